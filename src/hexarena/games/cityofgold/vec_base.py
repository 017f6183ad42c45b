"""The python backend's vectorised env, sampler and runner: the base classes every backend builds on.

Kept apart from :mod:`.vec` (the public entry points), which picks a backend's subclasses from
:mod:`.fast` lazily; the backends import these classes from here, so no import cycle forms.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from hexarena.core.rng import Rng
from hexarena.games.cityofgold.actions import HEADS, N_ACTIONS, heads_to_flat
from hexarena.games.cityofgold.board import Difficulty
from hexarena.games.cityofgold.engine import Game, step, why_illegal
from hexarena.games.cityofgold.fast.boards import BoardPool, default_pool_size
from hexarena.games.cityofgold.observe import (
    INFO_DTYPE,
    MASK_DTYPE,
    MAX_PLAYERS,
    OBS_DTYPE,
    ObsWriter,
    write_info,
)


def checked_actions(actions: Any, n: int) -> np.ndarray:
    """``actions`` as every backend takes them: a NumPy array of shape ``(n,)`` holding flat
    actions (integers) or ``ACTION_DTYPE`` records; anything else is a ValueError saying so."""
    if (
        not isinstance(actions, np.ndarray)
        or actions.shape != (n,)
        or not (actions.dtype.names or np.issubdtype(actions.dtype, np.integer))
    ):
        got = f"a {type(actions).__name__}"
        if isinstance(actions, np.ndarray):
            got += f" of shape {actions.shape} and dtype {actions.dtype}"
        raise ValueError(
            f"actions must be a NumPy array of shape ({n},), one flat action (an integer) or "
            f"ACTION_DTYPE record per env; got {got}"
        )
    return actions


def as_int32(actions: np.ndarray) -> np.ndarray:
    """Flat actions as the compiled backends take them (int32); one out of range becomes -1, which
    they refuse as the python backend does, rather than wrapping round to a legal action."""
    if actions.dtype == np.int32:
        return actions
    return np.where((actions >= 0) & (actions < N_ACTIONS), actions, -1).astype(np.int32)


class VecEnv:
    """``n`` games stepped together; see the module docstring for the arrays."""

    n: ClassVar[int] = 0
    supports_caves: ClassVar[bool] = True

    def __init__(
        self,
        n: int | None = None,
        validate: bool = True,
        omniscient: bool = False,
        pool_size: int | None = None,
    ) -> None:
        n = self.n if n is None else n
        if not isinstance(n, int) or n < 1:
            raise ValueError(f"the number of envs must be a positive int, got {n!r}")
        self.num_envs = n
        self.pool_size = default_pool_size(n) if pool_size is None else pool_size
        self.pool: BoardPool | None = None
        self.validate = validate
        self.omniscient = omniscient
        self.games: list[Game] = []
        self.observations = np.zeros(n, OBS_DTYPE)
        self.final_observations = np.zeros(n, OBS_DTYPE)
        self._writer, self._final_writer = ObsWriter(self.observations), ObsWriter(self.final_observations)
        self.action_masks = self.observations["action_mask"]
        self.selected_action_masks = np.zeros(n, MASK_DTYPE)
        self.agent_selection = np.zeros(n, np.int32)
        self.rewards = np.zeros((n, MAX_PLAYERS), np.float32)
        self.dones = np.zeros(n, np.bool_)
        self.truncations = np.zeros(n, np.bool_)
        self.infos = np.zeros(n, INFO_DTYPE)
        self.final_infos = self.infos
        self.invalid = np.zeros(n, np.bool_)
        self.errors: list[str | None] = [None] * n
        self.episodes = np.zeros(n, np.int64)
        self._params: dict[str, Any] = {}
        self._seed = 0
        self.render_mode: str | None = None

    def reset(
        self,
        seed: int = 0,
        n_players: int = 4,
        n_pieces: int = 3,
        difficulty: Difficulty | int | str = Difficulty.EASY,
        max_turns: int = 1000,
        render: bool = False,
        *,
        max_steps: int | None = None,
        layout: str = "linear",
        caves: bool = False,
    ) -> None:
        """Start a game in every env (env ``i`` plays seed ``seed + i``). ``max_steps`` is 0.0.3's
        name for ``max_turns`` (it always counted player turns)."""
        if caves and not self.supports_caves:
            raise ValueError(f"{type(self).__name__} has no caves variant; use backend='python'")
        self._params = {
            "n_players": n_players,
            "max_turns": max_steps if max_steps is not None else max_turns,
        }
        self._seed = seed
        self.render_mode = "text" if render else None
        self.pool = BoardPool(seed, self.pool_size, n_pieces, difficulty, layout, caves)
        self.episodes[:] = 0
        for arr in (self.rewards, self.dones, self.truncations, self.invalid):
            arr[:] = 0
        self.infos[:] = np.zeros((), INFO_DTYPE)
        self.errors = [None] * self.num_envs
        self._start_games()

    def _start_games(self) -> None:
        """The first game of every env, observed (the batched backends start theirs in a kernel)."""
        assert self.pool is not None
        self.games = [self.pool.new_game(i, 0, **self._params) for i in range(self.num_envs)]
        for i in range(self.num_envs):
            self._writer.forget(i)
            self._observe(i)

    def _observe(self, i: int) -> None:
        g = self.games[i]
        self._writer.write(i, g, self.omniscient)
        self.agent_selection[i] = g.player
        self.selected_action_masks[i] = self._writer.heads[i, g.player]

    def step(self, actions: np.ndarray) -> None:
        """Apply one action per env: flat ints (int array [n]) or five-head ``ACTION_DTYPE`` records."""
        if not self.games:
            raise RuntimeError("call reset() before step()")
        actions = checked_actions(actions, len(self.games))
        heads = actions.dtype.names is not None
        self.rewards[:] = 0
        self.dones[:] = False
        self.truncations[:] = False
        self.invalid[:] = False
        for i, g in enumerate(self.games):
            a = heads_to_flat({h: int(actions[i][h]) for h in HEADS}, g.phase) if heads else int(actions[i])
            if self.validate and not (0 <= a < N_ACTIONS and self.action_masks[i, a]):
                self.invalid[i] = True
                self.errors[i] = why_illegal(g, a)
                continue
            self.errors[i] = None
            step(g, a, validate=False)
            if g.done:
                self._finish(i, g)
            self._observe(i)

    def _finish(self, i: int, g: Game) -> None:
        self.dones[i] = True
        self.truncations[i] = g.truncated
        self.rewards[i, : g.n_players] = g.rewards
        self._final_writer.forget(i)
        self._final_writer.write(i, g, self.omniscient)
        self.infos[i] = np.zeros((), INFO_DTYPE)
        write_info(self.infos[i], g)
        self.episodes[i] += 1
        assert self.pool is not None
        self.games[i] = self.pool.new_game(i, int(self.episodes[i]), **self._params)
        self._writer.forget(i)

    def render(self, i: int = 0, mode: str = "text") -> Any:
        """Env ``i`` as text or as an RGB array (see :mod:`.render`)."""
        from hexarena.games.cityofgold.render import render_ascii, render_rgb

        g = self.games[i]
        return render_rgb(g) if mode == "rgb_array" else render_ascii(g, g.player)


class VecSampler:
    """Uniform random player over the legal flat actions of each env (env ``i`` seeded seed + i)."""

    n: ClassVar[int] = 0

    def __init__(self, seed: int = 0, n: int | None = None) -> None:
        n = self.n if n is None else n
        self.rngs = [Rng(seed + i) for i in range(n)]
        self.actions = np.zeros(n, np.int32)

    def get_actions(self) -> np.ndarray:
        return self.actions

    def sample(self, masks: np.ndarray) -> np.ndarray:
        """Fill the persistent action array from masks of shape [n, N_ACTIONS]."""
        for i, rng in enumerate(self.rngs):
            legal = np.flatnonzero(masks[i])
            self.actions[i] = legal[rng.randbelow(len(legal))] if len(legal) else N_ACTIONS - 1
        return self.actions


class Runner:
    """Samples and steps the envs, sequentially here (``workers`` is accepted for compatibility;
    the cpu backend's runner steps its envs on that many threads)."""

    n: ClassVar[int] = 0

    def __init__(self, envs: VecEnv, samplers: VecSampler, workers: int = 1) -> None:
        self.envs, self.samplers, self.workers = envs, samplers, workers

    def sample(self) -> None:
        self.samplers.sample(self.envs.action_masks)

    def step_sync(self) -> None:
        self.envs.step(self.samplers.actions)
