"""The vectorised API of :mod:`..vec` on the JAX engine (``backend="jax"``).

For code written against the numpy API (and for the differential tests): each step runs the
jitted batch step, then copies the device state into the numpy arrays. RL code that stays on the
device should call :mod:`.jax_engine` directly (``batch_step``, ``rollout``). Terminal
observations and infos are not produced (``final_observations`` / ``infos`` stay zero): read
``rewards``, ``dones`` and ``truncations``. Illegal actions are always refused (``invalid``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from hexarena.games.cityofgold.fast import jax_engine as J
from hexarena.games.cityofgold.fast.codes import heads_to_flat_batch
from hexarena.games.cityofgold.vec import VecEnv


class JaxVecEnv(VecEnv):
    """:class:`..vec.VecEnv` stepped by the JAX engine (no caves, no terminal observations)."""

    has_final = False
    supports_caves = False

    def _start_games(self) -> None:
        assert self.pool is not None
        self.boards = J.Boards.from_pool(self.pool)
        self.cfg = J.Config(self._params["n_players"], self._params["max_turns"], self.omniscient)
        self.state = J.batch_init(self.num_envs, self.boards, self.cfg, self.pool.size)
        self._copy_out()

    def _observe(self, i: int) -> None:
        """Observations come from the device state (:meth:`_copy_out`)."""

    def step(self, actions: np.ndarray) -> None:
        if self.pool is None:
            raise RuntimeError("call reset() before step()")
        if actions.dtype.names is not None:
            actions = heads_to_flat_batch(actions, np.asarray(self.state.phase))
        self.state, invalid = J.batch_step(
            self.state, actions, self.boards, self.cfg, self.pool.size, donate=True
        )
        self.invalid[:] = np.asarray(invalid)
        for i in np.flatnonzero(self.invalid):
            self.errors[i] = f"action {int(actions[i])} is not legal now (see the action mask)"
        self._copy_out()

    def _copy_out(self) -> None:
        s = self.state
        self.observations[:] = J.to_records(s.observation)
        self.rewards[:] = np.asarray(s.rewards)
        self.truncations[:] = np.asarray(s.truncated)
        self.dones[:] = np.asarray(s.terminated) | self.truncations
        self.agent_selection[:] = np.asarray(s.current_player)
        self.episodes[:] = np.asarray(s.episode)
        heads = self.observations["player_data"]["action_mask"]
        self.selected_action_masks[:] = heads[np.arange(self.num_envs), self.agent_selection]

    def render(self, i: int = 0, mode: str = "text") -> Any:
        raise NotImplementedError("render a jax-backend env through backend='python' with the same seed")
