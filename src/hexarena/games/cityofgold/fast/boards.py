"""The board pool: generated courses as fixed-size arrays, and the episode schedule of every backend.

Course generation is slow (milliseconds) and branchy, so it stays out of the batched kernels:
``BoardPool`` generates ``size`` courses on the host (board ``j`` is the course of seed
``seed + j``, exactly what the scalar engine builds for that seed) and packs them into one
structured array (:data:`BOARD_DTYPE`) that a kernel indexes by board number.

Episode schedule (shared by the python, cpu and jax backends, so auto-reset gives the same games):
env ``i``'s ``k``-th game uses ``u = i + k * STRIDE``, board ``u % size`` and play seed
``play_seed_of(seed + j)`` while ``u < size`` (so env ``i < size`` first plays exactly
``new_game(seed + i)``), else ``mix64(play_seed ^ u)``. ``STRIDE`` is a prime larger than any
pool, so every env walks through the whole pool and never replays a (board, play seed) pair.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from hexarena.core.rng import _mix64
from hexarena.games.cityofgold.board import N_CELLS, NEIGHBORS, Course, Difficulty, generate_course
from hexarena.games.cityofgold.engine import Game, new_game, play_seed_of
from hexarena.games.cityofgold.observe import static_layers

STRIDE = 1_000_003
MAX_STARTS = 8
MAX_BLOCKADES = 6
MAX_POOL = 1024

_FIELDS = [
    ("exits", np.uint16, (N_CELLS, 8)),  # see ``exits``: 16 bytes per cell, so one cache line
    ("req_kind", np.int8, (N_CELLS,)),
    ("req_amount", np.int8, (N_CELLS,)),
    ("finish", np.uint8, (N_CELLS,)),
    ("gate", np.int8, (N_CELLS, 6)),  # blockade index guarding the move (cell, direction), or -1
    ("starts", np.int16, (MAX_STARTS,)),
    ("blk_kind", np.int8, (MAX_BLOCKADES,)),
    ("blk_amount", np.int8, (MAX_BLOCKADES,)),
    ("n_blockades", np.int8),
    ("static_map", np.uint8, (N_CELLS * 7,)),  # observation map, channels 1-6 (channel 0 is zero)
    ("guard", np.uint8, (N_CELLS * 6,)),  # the observation's blockade map
    ("play_seed", np.uint64),
]
BOARD_DTYPE = np.dtype(
    {
        "names": [f[0] for f in _FIELDS],
        "formats": [(f[1], f[2]) if len(f) > 2 else f[1] for f in _FIELDS],
        "itemsize": -(-np.dtype(_FIELDS).itemsize // 64) * 64,  # records start on cache lines
    }
)
EXIT_FINISH, EXIT_GATE = 1 << 7, 8
"""An exit (cell, direction) of ``BOARD_DTYPE["exits"]``: the neighbour's requirement kind (bits
0-2; 0 if there is no neighbour or it cannot be entered), its amount (bits 3-6), whether it is a
finish (bit 7), and 1 + the blockade guarding the move, or 0 (bits 8-11). The CPU engine reads a
moved pawn's six exits from one line instead of from four arrays across the record."""


def default_pool_size(n_envs: int) -> int:
    """One board per env, at least 64 (variety for few envs), at most ``MAX_POOL`` (host time)."""
    return min(max(n_envs, 64), MAX_POOL)


def schedule(i: int | np.ndarray, k: int | np.ndarray, size: int) -> tuple[Any, Any]:
    """``(board index, u)`` of env ``i``'s ``k``-th game (ints or int64 arrays)."""
    u = np.asarray(i, np.int64) + np.asarray(k, np.int64) * STRIDE
    return u % size, u


def episode_play_seed(base: int, u: int, size: int) -> int:
    """The play seed of the game with schedule number ``u`` on a board whose own play seed is ``base``."""
    return base if u < size else _mix64(base ^ u)


@dataclass(frozen=True)
class BoardPool:
    """``size`` courses generated from seeds ``seed .. seed + size - 1`` with the same settings."""

    seed: int
    size: int
    n_pieces: int = 3
    difficulty: Difficulty | int | str = Difficulty.EASY
    layout: str = "linear"
    caves: bool = False
    courses: tuple[Course, ...] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        if not isinstance(self.size, int) or self.size < 1:
            raise ValueError(f"the pool size must be a positive int, got {self.size!r}")
        courses = tuple(
            generate_course(self.seed + j, self.n_pieces, self.difficulty, self.layout, caves=self.caves)
            for j in range(self.size)
        )
        object.__setattr__(self, "courses", courses)

    def episode(self, i: int, k: int) -> tuple[int, int]:
        """``(board index, play seed)`` of env ``i``'s ``k``-th game."""
        j, u = schedule(i, k, self.size)
        return int(j), episode_play_seed(play_seed_of(self.seed + int(j)), int(u), self.size)

    def new_game(self, i: int, k: int, n_players: int, max_turns: int) -> Game:
        """Env ``i``'s ``k``-th game, built by the scalar engine."""
        j, play_seed = self.episode(i, k)
        return new_game(
            self.seed + j,
            n_players,
            max_turns=max_turns,
            course=self.courses[j],
            play_seed=play_seed,
        )

    def arrays(self) -> np.ndarray:
        """The pool as ``BOARD_DTYPE`` records, for the batched engines (no caves there)."""
        if self.caves:
            raise ValueError("the batched engines do not support the caves variant; use backend='python'")
        out = np.zeros(self.size, BOARD_DTYPE)
        for j, course in enumerate(self.courses):
            encode(course, out[j : j + 1], play_seed_of(self.seed + j))
        return out


def exits(kind: np.ndarray, amount: np.ndarray, finish: np.ndarray, gate: np.ndarray) -> np.ndarray:
    """The packed exits of every cell (uint16 [N_CELLS, 8], directions 6 and 7 unused)."""
    if amount.max() >= 16 or gate.max() >= 15:
        raise ValueError("a requirement amount or blockade index does not fit an exit's bits")
    nbr = np.array(NEIGHBORS, np.int64)
    there = nbr >= 0
    n = np.where(there, nbr, 0)
    packed = kind[n] | amount[n].astype(np.int64) << 3 | finish[n].astype(np.int64) << 7
    packed |= (gate.astype(np.int64) + 1) << EXIT_GATE
    out = np.zeros((N_CELLS, 8), np.uint16)
    out[:, :6] = np.where(there, packed, 0)
    return out


def encode(course: Course, rec: np.ndarray, play_seed: int) -> None:
    """Write one course into a length-1 ``BOARD_DTYPE`` array."""
    r = rec[0]
    r["req_kind"] = course.req_kind
    r["req_amount"] = course.req_amount
    r["finish"] = [c in set(course.finishes) for c in range(N_CELLS)]
    gate = np.full((N_CELLS, 6), -1, np.int8)
    for cell, d, b in course.gates:
        gate[cell, d] = b
    r["gate"] = gate
    r["exits"] = exits(r["req_kind"], r["req_amount"], r["finish"], gate)
    starts = np.full(MAX_STARTS, -1, np.int16)
    starts[: len(course.starts)] = course.starts
    r["starts"] = starts
    for b, blk in enumerate(course.blockades):
        r["blk_kind"][b], r["blk_amount"][b] = blk.kind, blk.amount
    r["n_blockades"] = len(course.blockades)
    layers, guard = static_layers(course)
    r["static_map"], r["guard"] = layers.reshape(-1), guard.reshape(-1)
    r["play_seed"] = play_seed
