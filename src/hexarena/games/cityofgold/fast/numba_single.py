"""One game on the CPU engine, stepped one action at a time: the engine behind the single-agent env.

The batched kernels of :mod:`.numba_vec` step many envs per call and reset finished games
themselves; a single-agent env instead plays one game, one action per call from Python (the
learner's, then each opponent's), and keeps the finished game for its last observation and
outcome. :class:`SingleGame` holds that game's records and calls two kernels through their
compiled entry points with one address vector (as :mod:`.numba_vec` does: no dispatcher type
resolution per call): :func:`_play` applies an action and observes the next seat to act;
:func:`_observe_as` writes a fresh observation for any seat (the learner's when the game ended
on another seat's move). :func:`flatten_row` is :func:`..observe.flatten` of a record's bytes.

The game is :func:`..engine.new_game` of the same seed (the course is the one the scalar engine
generated, the play generator the same stream), so every step equals the scalar engine's;
``tests/rl/test_cityofgold_single.py`` plays the two side by side.
"""

from __future__ import annotations

import zlib
from typing import Any

import numba as nb
import numpy as np
from llvmlite import ir
from numba.core import types
from numba.extending import intrinsic

from hexarena.games.cityofgold.actions import N_ACTIONS
from hexarena.games.cityofgold.board import N_CELLS, Course
from hexarena.games.cityofgold.engine import play_seed_of
from hexarena.games.cityofgold.fast.boards import BOARD_DTYPE, encode
from hexarena.games.cityofgold.fast.numba_engine import CFG_DTYPE, O_FLAT, STATE_DTYPE, TABLE_DTYPE, apply
from hexarena.games.cityofgold.fast.numba_engine import new_game as start_game
from hexarena.games.cityofgold.fast.numba_obs import FRESH, MOVER, VIEWER, write_obs
from hexarena.games.cityofgold.fast.numba_vec import ROW_DTYPE, SEL_DTYPE, _voidptr, tables
from hexarena.games.cityofgold.observe import OBS_DTYPE, SHARED_DTYPE, flatten_runs

# Slots of the address vector.
A_STATE, A_BOARD, A_ROW, A_SEL, A_SCRATCH, A_SCRATCH_ROW, A_SCRATCH_SEL, A_CFG, A_TABLES = range(9)
A_MIRROR, A_RUNS, A_N_RUNS, A_CHECK = range(9, 13)
_DTYPES = (STATE_DTYPE, BOARD_DTYPE, ROW_DTYPE, SEL_DTYPE, CFG_DTYPE, TABLE_DTYPE)
LAYOUT_CHECK = zlib.crc32(repr([d.descr for d in _DTYPES]).encode())
"""The record layouts' fingerprint compiled into the kernels (a stale on-disk kernel refuses)."""
DONE = -1
"""What :func:`_play` returns once the game is over (else the seat to act)."""


@nb.njit(cache=True, inline="always", error_model="numpy")
def _arrays(address: int):
    ptr = nb.carray(_voidptr(address), A_CHECK + 1, np.uint64)
    return (
        nb.carray(_voidptr(ptr[A_STATE]), 1, STATE_DTYPE),
        nb.carray(_voidptr(ptr[A_BOARD]), 1, BOARD_DTYPE),
        nb.carray(_voidptr(ptr[A_ROW]), 1, ROW_DTYPE),
        nb.carray(_voidptr(ptr[A_SEL]), 1, SEL_DTYPE),
        nb.carray(_voidptr(ptr[A_SCRATCH]), 1, STATE_DTYPE),
        nb.carray(_voidptr(ptr[A_SCRATCH_ROW]), 1, ROW_DTYPE),
        nb.carray(_voidptr(ptr[A_SCRATCH_SEL]), 1, SEL_DTYPE),
        nb.carray(_voidptr(ptr[A_CFG]), 1, CFG_DTYPE),
        nb.carray(_voidptr(ptr[A_TABLES]), 1, TABLE_DTYPE),
        ptr[A_CHECK] == LAYOUT_CHECK,
    )


@nb.njit(cache=True, error_model="numpy")
def _start(address: int, play_seed: np.uint64) -> int:
    """A new game on the board record, observed by its first seat; the seat to act."""
    st, boards, row, sel, _, _, _, cfg, tab, fresh = _arrays(address)
    if not fresh:
        return -2
    s = st[0]
    start_game(s, boards[0], play_seed, cfg[0], tab[0])
    s.viewer = s.player
    write_obs(row[0], sel[0], s, boards[0], FRESH, 0, 0, cfg[0], tab[0])
    return s.player


@nb.njit(cache=True, error_model="numpy")
def _play(address: int, action: int) -> int:
    """Apply a legal ``action`` (unchecked) and observe the next seat to act; that seat, or
    :data:`DONE` (the observation row is then left as it was)."""
    st, boards, row, sel, _, _, _, cfg, tab, _ = _arrays(address)
    s, b = st[0], boards[0]
    apply(s, b, action, cfg[0], tab[0])
    if s.done:
        return DONE
    mode = MOVER if s.player == s.viewer else VIEWER
    prev = s.viewer
    s.viewer = s.player
    write_obs(row[0], sel[0], s, b, mode, prev, action, cfg[0], tab[0])
    return s.player


@nb.njit(cache=True, error_model="numpy")
def _observe_as(address: int, viewer: int) -> None:
    """The scratch row := ``viewer``'s observation, written fresh from a copy of the game in
    which ``viewer`` is the seat to act (only its masks, which :func:`flatten_row` skips, and
    the copy's legal list depend on who really acts)."""
    st, boards, _, _, scratch, scratch_row, scratch_sel, cfg, tab, _ = _arrays(address)
    scratch[0] = st[0]
    s = scratch[0]
    s.player = viewer
    s.viewer = viewer
    write_obs(scratch_row[0], scratch_sel[0], s, boards[0], FRESH, 0, 0, cfg[0], tab[0])


@nb.njit(cache=True, error_model="numpy")
def _refresh(address: int) -> None:
    """The mirror := the flattened observation row, given that it already holds this game's
    (the map's requirement channels and the blockade map do not change within a game): the
    map's occupancy channel and the fields of the live runs are rewritten."""
    ptr = nb.carray(_voidptr(address), A_CHECK + 1, np.uint64)
    raw = nb.carray(_voidptr(ptr[A_ROW]), ROW_BYTES, np.uint8)
    mirror = nb.carray(_voidptr(ptr[A_MIRROR]), SIZE, np.float32)
    for c in range(N_CELLS):
        mirror[7 * c] = raw[7 * c]
    flatten_row(raw, mirror, nb.carray(_voidptr(ptr[A_RUNS]), (ptr[A_N_RUNS], 4), np.int64))


@intrinsic
def _bits_float(typingctx, bits):
    """The float32 whose IEEE bits are ``bits`` (uint32)."""

    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], ir.FloatType())

    return types.float32(types.uint32), codegen


U8, I8, F32, I32 = range(4)
"""Element kinds of a :func:`run_table` row."""
ROW_BYTES = OBS_DTYPE.itemsize
assert OBS_DTYPE.names[0] == "shared" and SHARED_DTYPE.names[0] == "map"  # the vector starts with the map


@nb.njit(cache=True, error_model="numpy")
def flatten_row(raw, out, runs) -> None:
    """``out`` := the leaves of the record in ``raw`` (uint8 bytes) as float32, per run
    ``(dst, src byte offset, count, kind)`` of :func:`run_table`."""
    for r in range(runs.shape[0]):
        dst, src, count, kind = runs[r, 0], runs[r, 1], runs[r, 2], runs[r, 3]
        if kind == U8:
            for k in range(count):
                out[dst + k] = raw[src + k]
        elif kind == I8:
            for k in range(count):
                out[dst + k] = np.int8(raw[src + k])
        else:
            for k in range(count):
                at = src + 4 * k
                bits = np.uint32(raw[at]) | np.uint32(raw[at + 1]) << 8
                bits |= np.uint32(raw[at + 2]) << 16 | np.uint32(raw[at + 3]) << 24
                if kind == F32:
                    out[dst + k] = _bits_float(bits)
                else:
                    out[dst + k] = np.int32(bits)


def run_table(dtype: np.dtype, skip: tuple[str, ...] = ()) -> np.ndarray:
    """:func:`..observe.flatten_runs` as the int64 [n, 4] table of :func:`flatten_row`."""
    kinds = {np.dtype(np.uint8): U8, np.dtype(np.bool_): U8, np.dtype(np.int8): I8}
    kinds |= {np.dtype("<f4"): F32, np.dtype("<i4"): I32}
    runs = [(dst, src, count, kinds[dt]) for dst, src, count, dt in flatten_runs(dtype, skip)]
    return np.array(runs, np.int64).reshape(-1, 4)


FULL_RUNS = run_table(OBS_DTYPE)
LIVE_RUNS = run_table(OBS_DTYPE, skip=("map", "blockade_map"))
"""Every field's runs; those of the fields that change within a game (the map's occupancy
channel aside)."""
SIZE = int(FULL_RUNS[-1, 0] + FULL_RUNS[-1, 2])


class SingleGame:
    """One City of Gold game on the CPU engine, from the scalar engine's course and seed.

    ``play(action)`` applies a legal action (the caller checks legality: :meth:`is_legal`);
    :attr:`player` is the seat to act (:data:`DONE` at the end); :meth:`legal` the legal actions
    in increasing order; :meth:`observation` the flattened observation of any seat.
    """

    def __init__(self, course: Course, seed: int, n_players: int, max_turns: int) -> None:
        self.state = np.zeros(1, STATE_DTYPE)
        self.board = np.zeros(1, BOARD_DTYPE)
        encode(course, self.board, play_seed_of(seed))
        self.rows = np.zeros(2, ROW_DTYPE)  # the seat to act's observation; a scratch one
        self.sels = np.zeros(2, SEL_DTYPE)  # their five-head masks
        self.scratch = np.zeros(1, STATE_DTYPE)
        self.cfg = np.zeros(1, CFG_DTYPE)
        self.cfg[0] = (n_players, 2 if n_players == 2 else 1, max_turns, 0, 0, 1)
        self.mirror = np.zeros(SIZE, np.float32)  # the flattened observation of row 0
        self._bind()
        self.player = _kernels()["start"](self._address, np.uint64(self.board[0]["play_seed"]))
        if self.player == -2:
            raise RuntimeError("stale numba cache of cityofgold.fast: delete its __pycache__")
        flatten_row(self._raw[0], self.mirror, FULL_RUNS)

    _OWN = ("state", "board", "rows", "sels", "scratch", "cfg", "mirror", "player")

    def _bind(self) -> None:
        """The address vector of the kernels, the views and the compiled entry points."""
        arrays = (self.state, self.board, self.rows[:1], self.sels[:1], self.scratch, self.rows[1:])
        arrays += (self.sels[1:], self.cfg, tables(), self.mirror, LIVE_RUNS)
        self._addresses = np.zeros(A_CHECK + 1, np.uint64)
        for slot, arr in enumerate(arrays):
            self._addresses[slot] = arr.ctypes.data
        self._addresses[A_N_RUNS], self._addresses[A_CHECK] = len(LIVE_RUNS), LAYOUT_CHECK
        self._address = int(self._addresses.ctypes.data)
        self._raw = self.rows.view(np.uint8).reshape(2, -1)
        self._legal = self.state["legal"][0]
        self._n_legal = self.state["n_legal"]
        kernels = _kernels()
        self._play, self._observe_as, self._refresh = (
            kernels["play"],
            kernels["observe_as"],
            kernels["refresh"],
        )

    def __getstate__(self) -> dict[str, Any]:
        """The game's own arrays: a copy or an unpickled game binds its own addresses."""
        return {name: getattr(self, name) for name in self._OWN}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._bind()

    @property
    def done(self) -> bool:
        return self.player == DONE

    def play(self, action: int) -> None:
        self.player = self._play(self._address, action)

    def legal(self) -> np.ndarray:
        """The legal actions of the seat to act, increasing (uint8; empty once the game is over)."""
        return self._legal[: 0 if self.player == DONE else self._n_legal[0]]

    def is_legal(self, action: int) -> bool:
        return self.player != DONE and 0 <= action < N_ACTIONS and bool(self._raw[0, _FLAT + action])

    def mask(self) -> np.ndarray:
        """The flat mask of the seat to act (int8 0/1, a copy; zeros once the game is over)."""
        if self.player == DONE:
            return np.zeros(N_ACTIONS, np.int8)
        return self._raw[0, _FLAT : _FLAT + N_ACTIONS].view(np.int8).copy()

    def observation(self, seat: int) -> np.ndarray:
        """``flatten`` of ``seat``'s observation record (float32, a new array)."""
        if seat == self.player:
            self._refresh(self._address)
            return self.mirror.copy()
        self._observe_as(self._address, seat)
        out = np.empty(SIZE, np.float32)
        flatten_row(self._raw[1], out, FULL_RUNS)
        return out

    def field(self, name: str) -> Any:
        """A field of the game's state record (``pawns``, ``rewards``, ``turn``, ...)."""
        return self.state[0][name]


_FLAT = int(tables()[0]["layout"][O_FLAT])
_KERNELS: dict[str, Any] = {}


def _kernels() -> dict[str, Any]:
    """The compiled entry points (called without the dispatcher's type resolution)."""
    if not _KERNELS:
        _KERNELS["start"] = _start.compile((types.uint64, types.uint64))
        _KERNELS["play"] = _play.compile((types.uint64, types.int64))
        _KERNELS["observe_as"] = _observe_as.compile((types.uint64, types.int64))
        _KERNELS["refresh"] = _refresh.compile((types.uint64,))
    return _KERNELS
