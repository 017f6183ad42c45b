"""The vectorised API of City of Gold in both the spec's shape and the 0.0.3 ``vec`` shape.

Spec shape::

    envs = get_vec_env(n)()
    samplers = get_vec_sampler(n)(seed)
    runner = get_runner(n)(envs, samplers, workers)
    envs.reset(seed, n_players, n_pieces, Difficulty.EASY, max_turns, render)
    actions = samplers.get_actions()           # persistent int32 [n] of flat actions
    while ...:
        runner.sample(); runner.step_sync()
        ... envs.dones, envs.rewards, envs.infos, envs.final_observations ...

0.0.3 shape: ``runner = vec.get_runner(n)(n_threads)``, ``runner.make_samplers(seed)``,
``envs = runner.get_envs()``, ``runner.get_actions()`` (five-head ``ACTION_DTYPE`` records),
``runner.sample_seq()`` / ``runner.step_seq()`` (and the threaded names, which run sequentially:
threads do not pay on small machines).

Arrays are updated in place, so references taken once stay valid. Courses come from a board
pool (:mod:`.fast.boards`: board ``j`` is the course of seed ``seed + j``), so env ``i`` first
plays exactly ``new_game(seed + i)`` (for ``i`` below the pool size); a finished game is reset
inside ``step`` to the env's next (board, play seed) of the pool schedule, after its terminal
observation and info were copied to ``final_observations`` / ``final_infos``. Rewards and dones
are cleared at every step.

Backends (``get_vec_env(n, backend=...)``): ``"python"`` (the scalar engine, the reference),
``"cpu"`` (the numba engine of :mod:`.fast`) and ``"jax"`` (the JAX engine, copied back to these
numpy arrays each step; no terminal observations); all give the same arrays step for step.
Illegal actions are not applied: the env is left as it was and ``invalid[i]`` / ``errors[i]``
say why (pass ``validate=False`` for the trusted fast path).
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from hexarena.core.rng import Rng
from hexarena.games.cityofgold.actions import HEADS, N_ACTIONS, flat_to_heads, heads_to_flat
from hexarena.games.cityofgold.board import Difficulty
from hexarena.games.cityofgold.engine import Game, step, why_illegal
from hexarena.games.cityofgold.fast.boards import BoardPool, default_pool_size
from hexarena.games.cityofgold.observe import (
    ACTION_DTYPE,
    INFO_DTYPE,
    MASK_DTYPE,
    MAX_PLAYERS,
    OBS_DTYPE,
    ObsWriter,
    write_info,
)


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


BACKENDS = ("python", "cpu", "jax")


def _backend_classes(backend: str) -> tuple[type[VecEnv], type[VecSampler]]:
    if backend == "python":
        return VecEnv, VecSampler
    if backend == "cpu":
        from hexarena.games.cityofgold.fast.numba_vec import CpuVecEnv, CpuVecSampler

        return CpuVecEnv, CpuVecSampler
    if backend == "jax":
        from hexarena.games.cityofgold.fast.jax_vec import JaxVecEnv

        try:
            from hexarena.games.cityofgold.fast.numba_vec import CpuVecSampler
        except ImportError:  # numba is optional here: the python sampler draws the same actions
            return JaxVecEnv, VecSampler
        return JaxVecEnv, CpuVecSampler
    raise ValueError(f"backend must be one of {', '.join(BACKENDS)}, got {backend!r}")


def get_vec_env(n: int, backend: str = "python") -> type[VecEnv]:
    """A VecEnv class for ``n`` envs (any n >= 1), built with no arguments."""
    return type(f"VecEnv{n}", (_backend_classes(backend)[0],), {"n": _check_n(n)})


def get_vec_sampler(n: int, backend: str = "python") -> type[VecSampler]:
    """A sampler class (uniform over legal flat actions); both backends draw the same actions."""
    return type(f"VecSampler{n}", (_backend_classes(backend)[1],), {"n": _check_n(n)})


def get_runner(n: int, backend: str = "python") -> type[Runner]:
    """A runner class; the cpu one draws and steps in a single kernel call per step."""
    base: type[Runner] = Runner
    if backend == "cpu":
        from hexarena.games.cityofgold.fast.numba_vec import CpuRunner

        base = CpuRunner
    elif backend not in BACKENDS:
        raise ValueError(f"backend must be one of {', '.join(BACKENDS)}, got {backend!r}")
    return type(f"Runner{n}", (base,), {"n": _check_n(n)})


def _check_n(n: int) -> int:
    if not isinstance(n, int) or n < 1:
        raise ValueError(f"the number of envs must be a positive int, got {n!r}")
    return n


class action_sampler:
    """0.0.3's random policy: each head uniform over its valid entries, independently.

    With the precedence rule this is *not* uniform over the flat actions (``play`` wins most
    often); hexarena's own samplers are uniform over legal flat actions.
    """

    def __init__(self, seed: int = 0) -> None:
        self.rng = Rng(seed)

    def sample(self, mask: np.ndarray) -> np.ndarray:
        """A five-head ``ACTION_DTYPE`` record for a five-head ``MASK_DTYPE`` record."""
        out = np.zeros((), ACTION_DTYPE)
        for h in HEADS:
            valid = np.flatnonzero(mask[h])
            out[h] = valid[self.rng.randbelow(len(valid))]
        return out


class CompatRunner:
    """The 0.0.3 ``vec`` runner: owns its envs and samplers; actions are five-head records."""

    n: ClassVar[int] = 0

    def __init__(self, n_threads: int | None = None) -> None:
        self.n_threads = n_threads or 1
        self.envs = VecEnv(self.n)
        self.samplers = VecSampler(0, self.n)
        self.head_samplers: list[action_sampler] | None = None
        self.actions = np.zeros(self.n, ACTION_DTYPE)

    def make_samplers(self, seed: int, per_head: bool = False) -> None:
        """Env ``i``'s sampler is seeded ``seed + i``; ``per_head`` picks 0.0.3's per-head sampling."""
        self.samplers = VecSampler(seed, self.n)
        self.head_samplers = [action_sampler(seed + i) for i in range(self.n)] if per_head else None

    def get_envs(self) -> VecEnv:
        return self.envs

    def get_actions(self) -> np.ndarray:
        return self.actions

    def sample_seq(self) -> None:
        """Sample flat actions uniformly (or per head), written in five-head form."""
        if self.head_samplers is not None:
            for i, sampler in enumerate(self.head_samplers):
                self.actions[i] = sampler.sample(self.envs.selected_action_masks[i])
            return
        flat = self.samplers.sample(self.envs.action_masks)
        for i, a in enumerate(flat):
            self.actions[i] = tuple(flat_to_heads(int(a)).values())

    def step_seq(self) -> None:
        self.envs.step(self.actions)

    def start_workers(self) -> None:
        """Sequential stepping; kept for scripts written against 0.0.3."""

    sample = sample_seq
    step = step_seq

    def sync(self) -> None:
        """Nothing to wait for: stepping is sequential."""

    sleep = wake = sync


class _CompatNamespace:
    """``vec.get_runner(n)(n_threads)`` as in 0.0.3."""

    @staticmethod
    def get_runner(n: int) -> type[CompatRunner]:
        return type(f"CompatRunner{n}", (CompatRunner,), {"n": _check_n(n)})


vec = _CompatNamespace()
