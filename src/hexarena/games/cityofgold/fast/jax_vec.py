"""The vectorised API of :mod:`..vec` on the JAX engine (``backend="jax"``).

For code written against the numpy API (and for the differential tests): each step runs the
jitted batch step, then copies the device state into the numpy arrays. RL code that stays on the
device should call :mod:`.jax_engine` directly (``batch_step``, ``rollout``). A step in which
games finish runs without the kernel's auto-reset, copies their terminal observations and infos to
``final_observations`` / ``final_infos`` (as the other backends do), then starts their next games
(:func:`.jax_engine.batch_reset_finished`). Illegal actions are always refused (``invalid``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from hexarena.games.cityofgold.engine import STAT_NAMES
from hexarena.games.cityofgold.fast import jax_engine as J
from hexarena.games.cityofgold.fast.codes import heads_to_flat_batch
from hexarena.games.cityofgold.observe import INFO_DTYPE
from hexarena.games.cityofgold.vec_base import VecEnv, as_int32, checked_actions


class JaxVecEnv(VecEnv):
    """:class:`..vec.VecEnv` stepped by the JAX engine (no caves)."""

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
        actions = checked_actions(actions, self.num_envs)
        if actions.dtype.names is not None:
            actions = heads_to_flat_batch(actions, np.asarray(self.state.phase))
        else:
            actions = as_int32(actions)
        assert self.pool is not None
        self.state, invalid = J.batch_step(
            self.state, actions, self.boards, self.cfg, self.pool.size, donate=True, auto_reset=False
        )
        self.invalid[:] = np.asarray(invalid)
        self.errors = [None] * self.num_envs
        for i in np.flatnonzero(self.invalid):
            self.errors[i] = f"action {int(actions[i])} is not legal now (see the action mask)"
        finished = np.flatnonzero(np.asarray(self.state.terminated) | np.asarray(self.state.truncated))
        if len(finished):
            self._keep_final(finished)
            self.state = J.batch_reset_finished(self.state, self.boards, self.cfg, self.pool.size)
        self._copy_out()

    def _keep_final(self, finished: np.ndarray) -> None:
        """The terminal observations and infos (``write_info``'s fields) of the ``finished`` envs."""
        s = self.state
        self.final_observations[finished] = J.to_records(s.observation)[finished]
        rewards, stats = np.asarray(s.rewards), np.asarray(s.stats)
        turn, truncated = np.asarray(s.turn), np.asarray(s.truncated)
        n = self.cfg.n_players
        for i in finished:
            info = np.zeros((), INFO_DTYPE)
            info["total_length"], info["truncated"], info["n_players"] = turn[i], truncated[i], n
            for p in range(n):
                info["agents"][p]["returns"] = rewards[i, p]
                for k, name in enumerate(STAT_NAMES):
                    info["agents"][p][name] = stats[i, p, k]
            self.final_infos[i] = info

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
