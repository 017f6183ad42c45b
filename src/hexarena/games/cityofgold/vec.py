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
numpy arrays each step); all give the same arrays step for step.
Illegal actions are not applied: the env is left as it was and ``invalid[i]`` / ``errors[i]``
say why (pass ``validate=False`` for the trusted fast path).
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from hexarena.core.rng import Rng
from hexarena.games.cityofgold.actions import HEADS, flat_to_heads
from hexarena.games.cityofgold.observe import ACTION_DTYPE
from hexarena.games.cityofgold.vec_base import Runner, VecEnv, VecSampler

__all__ = [
    "BACKENDS",
    "Runner",
    "VecEnv",
    "VecSampler",
    "action_sampler",
    "get_runner",
    "get_vec_env",
    "get_vec_sampler",
    "vec",
]

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
