"""The vectorised API of :mod:`..vec` on the CPU engine (``backend="cpu"``).

One kernel call steps every env (sample, validate, apply, finish, auto-reset, observe); the
arrays the API exposes (``observations``, ``rewards``, ``dones``, ...) are the kernel's outputs,
so nothing is copied per step. Terminal infos are filled on the host from a per-env stash, only
for the envs that finished (a few hundred per second at most).
"""

from __future__ import annotations

import zlib
from typing import Any

import numba as nb
import numpy as np
from numba.core import cgutils, types
from numba.extending import intrinsic

from hexarena.games.cityofgold.actions import N_ACTIONS
from hexarena.games.cityofgold.engine import STAT_NAMES
from hexarena.games.cityofgold.fast.boards import BOARD_DTYPE, STRIDE
from hexarena.games.cityofgold.fast.codes import heads_to_flat_batch
from hexarena.games.cityofgold.fast.numba_engine import (
    CFG_DTYPE,
    O_FLAT,
    O_HEADS,
    O_PD,
    O_PD_SIZE,
    O_PHASE,
    SEAT_BYTES,
    STATE_DTYPE,
    TABLE_DTYPE,
    apply,
    make_tables,
    mix64,
    new_game,
    prefetch,
    randbelow,
    seed_rng,
)
from hexarena.games.cityofgold.fast.numba_obs import FRESH, MASK_BYTES, MOVER, VIEWER, write_obs
from hexarena.games.cityofgold.observe import INFO_DTYPE, MAX_PLAYERS, OBS_DTYPE
from hexarena.games.cityofgold.vec_base import Runner, VecEnv, VecSampler, as_int32, checked_actions

_TABLES: np.ndarray | None = None

ROW_DTYPE = np.dtype([("b", np.uint8, (OBS_DTYPE.itemsize,))])
SEL_DTYPE = np.dtype([("b", np.uint8, (MASK_BYTES,))])
RNG_DTYPE = np.dtype([("rng", np.uint64, (2,))])
"""Observation rows, selected masks and sampler generators as records over raw bytes: the
kernels take ``obs[i].b`` (a view without a reference count) rather than ``obs[i]``."""
_NO_SAMPLER = np.zeros(0, RNG_DTYPE)


def tables() -> np.ndarray:
    global _TABLES
    if _TABLES is None:
        _TABLES = make_tables()
    return _TABLES


IO_DTYPE = np.dtype(
    [
        ("rewards", np.float32, (MAX_PLAYERS,)),
        ("done", np.uint8),
        ("truncated", np.uint8),
        ("invalid", np.uint8),
        ("agent", np.int32),
    ]
)
"""Per-env step outputs in one record (the API's ``rewards``, ``dones``, ... are views of it)."""


@nb.njit(cache=True, error_model="numpy")
def _start(i: int, env: int, k: int, st, boards, obs, sel, c, t) -> None:
    """Row ``i``'s (env ``env``'s) ``k``-th game from the pool schedule (see :mod:`.boards`),
    freshly observed."""
    s = st[i]
    size = c.pool
    u = np.int64(env) + np.int64(k) * STRIDE
    j = u % size
    seed = boards[j].play_seed
    if u >= size:
        seed = mix64(seed ^ np.uint64(u))
    s.board = j
    s.episode = k
    new_game(s, boards[j], seed, c, t)
    s.viewer = s.player
    write_obs(obs[i], sel[i], s, boards[j], FRESH, 0, 0, c, t)


@nb.njit(cache=True, error_model="numpy")
def start_all(st, boards, obs, sel, io, cfg, tab) -> None:
    for i in range(st.shape[0]):
        _start(i, i, 0, st, boards, obs, sel, cfg[0], tab[0])
        io[i].agent = st[i].player


@nb.njit(cache=True, error_model="numpy")
def _pick(mask, rng) -> int:
    """Uniform over the set entries of one flat mask (``PASS`` if none), as :class:`..vec.VecSampler`."""
    count = 0
    for a in range(N_ACTIONS):
        count += mask[a] != 0
    if count == 0:
        return N_ACTIONS - 1
    pick = randbelow(rng, count)
    for a in range(N_ACTIONS):
        if mask[a]:
            if pick == 0:
                return a
            pick -= 1
    return N_ACTIONS - 1


@nb.njit(cache=True, error_model="numpy")
def _pick_listed(s, g) -> int:
    """:func:`_pick` with generator record ``g`` on the mask of game ``s`` as its observation
    wrote it (from its legal list)."""
    if s.n_legal == 0:
        return N_ACTIONS - 1
    return s.legal[randbelow(g.rng, s.n_legal)]


S_SEATS = STATE_DTYPE.fields["seats"][1]
S_EXITS = STATE_DTYPE.fields["exits"][1]
EXITS_BYTES = STATE_DTYPE.fields["exits"][0].itemsize // 4
S_STATS = STATE_DTYPE.fields["stats"][1]
STATS_BYTES = STATE_DTYPE.fields["stats"][0].itemsize // 4
HOT_LINES = -(-S_SEATS // 64)  # the fields before the seats: read at every step
STATE_BYTES, ROW_BYTES = STATE_DTYPE.itemsize, ROW_DTYPE.itemsize
PREFETCH_FROM = 64
"""Batches from this size prefetch (their rows outgrow the L2 cache; at 2,048 and 4,096 envs, past
the L3 cache of the machine measured, it took 1.0-1.3 M to 1.3-2.5 M env-steps/s; neutral at 256)."""


@nb.njit(cache=True, inline="always", error_model="numpy")
def _prefetch_env(st, obs, j: int, o) -> None:
    """Prefetch what stepping env ``j`` will touch: its hot state lines, then (once they are in)
    the lines of its observation and seat that belong to the seat to act."""
    sb, ob = STATE_BYTES, ROW_BYTES
    n = st.shape[0]
    if j + 4 < n:
        base = np.uint64(st.ctypes.data + (j + 4) * sb)
        for line in range(HOT_LINES):
            prefetch(base + np.uint64(64 * line))
    if j < n:
        p = st[j].player
        base = st.ctypes.data + j * sb
        for at in (base + S_SEATS + SEAT_BYTES * p, base + S_EXITS + EXITS_BYTES * p):
            prefetch(np.uint64(at))
            prefetch(np.uint64(at + 64))
        prefetch(np.uint64(base + S_STATS + STATS_BYTES * p))
        row = obs.ctypes.data + j * ob
        seat = row + o[O_PD] + o[O_PD_SIZE] * p
        for at in (row + o[O_PHASE], row + o[O_FLAT], seat, seat + o[O_HEADS]):
            prefetch(np.uint64(at))
            prefetch(np.uint64(at + 64))


@nb.njit(cache=True, error_model="numpy")
def step_all(first: int, st, boards, obs, final, sel, io, actions, sampler, cfg, tab) -> int:
    """One action per env (first drawn into ``actions`` with the sampler's generators when
    ``sampler`` has a row per env); the arrays may be a run of the batch that starts at env
    ``first`` (for the episode schedule). Returns how many envs finished or refused their action
    (the host has work to do only then)."""
    c, t = cfg[0], tab[0]
    n_players = c.n_players
    o = t.layout
    flat = o[O_FLAT]
    fused = sampler.shape[0] > 0
    events = 0
    prefetching = st.shape[0] >= PREFETCH_FROM
    for i in range(st.shape[0]):
        if prefetching:
            _prefetch_env(st, obs, i + 4, o)
        out = io[i]
        out.rewards[:] = 0
        out.done = 0
        out.truncated = 0
        out.invalid = 0
        if fused:
            actions[i] = _pick_listed(st[i], sampler[i])
        a = actions[i]
        if c.validate and not (0 <= a < N_ACTIONS and obs[i].b[flat + a]):
            out.invalid = 1
            events += 1
            continue
        s = st[i]
        apply(s, boards[s.board], a, c, t)
        if s.done:
            events += 1
            out.done = 1
            out.truncated = s.truncated
            for p in range(n_players):
                out.rewards[p] = s.rewards[p]
            # its marked cells and selected mask are scratch here: the next game rewrites both
            write_obs(final[i], sel[i], s, boards[s.board], FRESH, 0, 0, c, t)
            s.term[0] = s.turn
            s.term[1] = s.truncated
            s.term[2] = n_players
            for p in range(4):
                for col in range(len(STAT_NAMES)):
                    s.term[3 + p * len(STAT_NAMES) + col] = s.stats[p, col]
            _start(i, first + i, s.episode + 1, st, boards, obs, sel, c, t)
        else:
            mode = MOVER if s.player == s.viewer else VIEWER
            prev = s.viewer
            s.viewer = s.player
            write_obs(obs[i], sel[i], s, boards[s.board], mode, prev, a, c, t)
        out.agent = s.player
    return events


# Slots of the address vector of :func:`step_by_address`.
P_N, P_POOL, P_STATE, P_BOARDS, P_OBS, P_FINAL, P_SEL, P_IO = range(8)
P_ACTIONS, P_RNG, P_CFG, P_TABLES, P_CHECK = range(8, 13)
_DTYPES = (STATE_DTYPE, BOARD_DTYPE, ROW_DTYPE, SEL_DTYPE, IO_DTYPE, RNG_DTYPE, CFG_DTYPE, TABLE_DTYPE)
LAYOUT_CHECK = zlib.crc32(repr([d.descr for d in _DTYPES]).encode())
"""A fingerprint of the record layouts, compiled into :func:`step_by_address`: the on-disk numba
cache does not see a layout changed in another module, so a stale kernel must refuse to run."""


@intrinsic
def _voidptr(typingctx, address):
    def codegen(context, builder, signature, args):
        return builder.inttoptr(args[0], cgutils.voidptr_t)

    return types.voidptr(types.uint64), codegen


@nb.njit(cache=True, error_model="numpy")
def _step_range(address: int, lo: int, hi: int) -> int:
    """:func:`step_all` with a fused draw on envs ``lo .. hi - 1``, the arrays rebuilt from the
    address vector at ``address``."""
    ptr = nb.carray(_voidptr(address), P_CHECK + 1, np.uint64)
    n = ptr[P_N]
    return step_all(
        lo,
        nb.carray(_voidptr(ptr[P_STATE]), n, STATE_DTYPE)[lo:hi],
        nb.carray(_voidptr(ptr[P_BOARDS]), ptr[P_POOL], BOARD_DTYPE),
        nb.carray(_voidptr(ptr[P_OBS]), n, ROW_DTYPE)[lo:hi],
        nb.carray(_voidptr(ptr[P_FINAL]), n, ROW_DTYPE)[lo:hi],
        nb.carray(_voidptr(ptr[P_SEL]), n, SEL_DTYPE)[lo:hi],
        nb.carray(_voidptr(ptr[P_IO]), n, IO_DTYPE)[lo:hi],
        nb.carray(_voidptr(ptr[P_ACTIONS]), n, np.int32)[lo:hi],
        nb.carray(_voidptr(ptr[P_RNG]), n, RNG_DTYPE)[lo:hi],
        nb.carray(_voidptr(ptr[P_CFG]), 1, CFG_DTYPE),
        nb.carray(_voidptr(ptr[P_TABLES]), 1, TABLE_DTYPE),
    )


@nb.njit(cache=True, error_model="numpy")
def step_by_address(address: int) -> int:
    """:func:`step_all` with a fused draw on every env, its arrays given as a vector of their
    addresses at ``address``: one integer argument (structured arrays cost the dispatcher a slow
    type lookup each, and any array an entry-point check). -1: stale cache."""
    ptr = nb.carray(_voidptr(address), P_CHECK + 1, np.uint64)
    if ptr[P_CHECK] != LAYOUT_CHECK:
        return -1
    return _step_range(address, 0, ptr[P_N])


@nb.njit(cache=True, parallel=True, error_model="numpy")
def step_parallel(address: int, chunks: int) -> int:
    """:func:`step_by_address` on numba's threads, the envs cut into ``chunks`` consecutive runs
    (an env's game and generator live in its own records, so the result is the same)."""
    ptr = nb.carray(_voidptr(address), P_CHECK + 1, np.uint64)
    if ptr[P_CHECK] != LAYOUT_CHECK:
        return -1
    n = np.int64(ptr[P_N])
    events = 0
    for w in nb.prange(chunks):
        events += _step_range(address, n * w // chunks, n * (w + 1) // chunks)
    return events


@nb.njit(cache=True, error_model="numpy")
def sample_all(masks, rngs, actions) -> None:
    """:class:`..vec.VecSampler` over a batch of flat masks."""
    for i in range(masks.shape[0]):
        actions[i] = _pick(masks[i], rngs[i].rng)


@nb.njit(cache=True, error_model="numpy")
def seed_all(rngs, seed: int) -> None:
    for i in range(rngs.shape[0]):
        seed_rng(rngs[i].rng, np.uint64(seed + i))


class CpuVecEnv(VecEnv):
    """:class:`..vec.VecEnv` stepped by the numba engine (no caves variant, no ``games`` list)."""

    supports_caves = False

    def __init__(
        self,
        n: int | None = None,
        validate: bool = True,
        omniscient: bool = False,
        pool_size: int | None = None,
    ) -> None:
        super().__init__(n, validate, omniscient, pool_size)
        n = self.num_envs
        self.state = np.zeros(n, STATE_DTYPE)
        self.io = np.zeros(n, IO_DTYPE)
        self.rewards, self.agent_selection = self.io["rewards"], self.io["agent"]
        self.dones = self.io["done"].view(np.bool_)
        self.truncations = self.io["truncated"].view(np.bool_)
        self.invalid = self.io["invalid"].view(np.bool_)
        self.cfg = np.zeros(1, CFG_DTYPE)
        self.boards: np.ndarray | None = None
        self._raw = self.observations.view(ROW_DTYPE)
        self._final_raw = self.final_observations.view(ROW_DTYPE)
        self._sel_raw = self.selected_action_masks.view(SEL_DTYPE)
        self._tables = tables()
        self.generation = 0  # counts resets: address vectors made before one are stale

    def addresses(self, actions: np.ndarray, rng_state: np.ndarray) -> np.ndarray:
        """The address vector of :func:`step_by_address` for these arrays (kept alive by the caller)."""
        assert self.boards is not None and actions.dtype == np.int32 and rng_state.dtype == RNG_DTYPE
        ptr = np.zeros(P_CHECK + 1, np.uint64)
        ptr[P_N], ptr[P_POOL], ptr[P_CHECK] = self.num_envs, len(self.boards), LAYOUT_CHECK
        arrays = (self.state, self.boards, self._raw, self._final_raw, self._sel_raw, self.io)
        arrays += (actions, rng_state, self.cfg, self._tables)
        for slot, arr in zip(range(P_STATE, P_CHECK), arrays, strict=True):
            assert arr.flags.c_contiguous
            ptr[slot] = arr.ctypes.data
        return ptr

    def _start_games(self) -> None:
        assert self.pool is not None
        self.boards = self.pool.arrays()
        n_players = self._params["n_players"]
        if n_players not in (2, 3, 4):
            raise ValueError(f"n_players must be 2, 3 or 4, got {n_players!r}")
        self.cfg[0] = (
            n_players,
            2 if n_players == 2 else 1,
            self._params["max_turns"],
            self.validate,
            self.omniscient,
            self.pool.size,
        )
        self.observations[:] = np.zeros((), OBS_DTYPE)
        start_all(self.state, self.boards, self._raw, self._sel_raw, self.io, self.cfg, self._tables)
        self.generation += 1

    def _observe(self, i: int) -> None:
        """Observations are written by the kernels."""

    def step(self, actions: np.ndarray) -> None:
        actions = checked_actions(actions, self.n)
        if actions.dtype.names is not None:
            actions = heads_to_flat_batch(actions, self.state["phase"])
        else:  # one compiled signature: int32 actions
            actions = as_int32(actions)
        self._step(actions, _NO_SAMPLER)

    def _step(self, actions: np.ndarray, sampler: np.ndarray) -> None:
        """One kernel call; with a sampler's generators the actions are drawn in the same call."""
        if self.boards is None:
            raise RuntimeError("call reset() before step()")
        events = step_all(
            0,
            self.state,
            self.boards,
            self._raw,
            self._final_raw,
            self._sel_raw,
            self.io,
            actions,
            sampler,
            self.cfg,
            self._tables,
        )
        if events:
            self._after_events(actions)

    def _after_events(self, actions: np.ndarray) -> None:
        """Infos of the games that finished, errors of the refused actions."""
        for i in np.flatnonzero(self.dones):
            self._write_info(i)
        for i in np.flatnonzero(self.invalid):
            self.errors[i] = f"action {int(actions[i])} is not legal now (see the action mask)"
        self.episodes[:] = self.state["episode"]

    def _write_info(self, i: int) -> None:
        t = self.state["term"][i]
        self.infos[i] = np.zeros((), INFO_DTYPE)
        rec = self.infos[i]
        rec["total_length"], rec["truncated"], rec["n_players"] = t[0], bool(t[1]), t[2]
        stats = t[3:].reshape(MAX_PLAYERS, len(STAT_NAMES))
        for p in range(int(t[2])):
            rec["agents"][p]["returns"] = self.rewards[i, p]
            for c, name in enumerate(STAT_NAMES):
                rec["agents"][p][name] = stats[p, c]

    def render(self, i: int = 0, mode: str = "text") -> Any:
        raise NotImplementedError("render a cpu-backend env through backend='python' with the same seed")


class CpuVecSampler(VecSampler):
    """:class:`..vec.VecSampler` in numba: the same draws, so the same actions."""

    def __init__(self, seed: int = 0, n: int | None = None) -> None:
        n = self.n if n is None else n
        self.actions = np.zeros(n, np.int32)
        self.rng_state = np.zeros(n, RNG_DTYPE)
        seed_all(self.rng_state, seed)

    def sample(self, masks: np.ndarray) -> np.ndarray:
        sample_all(masks, self.rng_state, self.actions)
        return self.actions


def _compiled_step(workers: int) -> Any:
    """The compiled kernel of one fused step from its address vector, called without the
    dispatcher's type resolution (half of the cost of one call from Python): sequential with one
    worker, else :func:`step_parallel` on up to ``workers`` threads."""
    if workers <= 1:
        return step_by_address.compile((types.uint64,))
    kernel = step_parallel.compile((types.uint64, types.int64))
    threads = min(workers, nb.config.NUMBA_NUM_THREADS)

    def step(address: int) -> int:
        nb.set_num_threads(threads)  # per call: the setting belongs to the calling thread
        return kernel(address, workers)

    return step


class CpuRunner(Runner):
    """:class:`..vec.Runner` for the cpu backend: ``sample()`` is deferred into the next
    ``step_sync()``, so each step is one kernel call (as 0.0.3's threaded ``sample()`` is
    asynchronous, ``get_actions()`` holds the drawn actions once ``step_sync()`` returns).
    With ``workers > 1`` the envs are stepped in that many consecutive runs on numba's threads
    (at most ``NUMBA_NUM_THREADS``); the games are the same as with one."""

    def __init__(self, envs: VecEnv, samplers: VecSampler, workers: int = 1) -> None:
        super().__init__(envs, samplers, workers)
        fused = isinstance(envs, CpuVecEnv) and isinstance(samplers, CpuVecSampler)
        self._cpu = (envs, samplers) if fused else None
        self._pending = False
        self._addresses = np.zeros(0, np.uint64)
        self._address = 0
        self._generation = -1
        self._kernel = _compiled_step(workers) if fused else None

    def sample(self) -> None:
        if self._cpu is not None:
            self._pending = True
        else:
            super().sample()

    def step_sync(self) -> None:
        if not self._pending or self._cpu is None:
            super().step_sync()
            return
        self._pending = False
        envs, samplers = self._cpu
        if self._generation != envs.generation:
            self._addresses = envs.addresses(samplers.actions, samplers.rng_state)
            self._address = self._addresses.ctypes.data
            self._generation = envs.generation
        events = self._kernel(self._address)
        if events:
            if events < 0:
                raise RuntimeError("stale numba cache of cityofgold.fast: delete its __pycache__")
            envs._after_events(samplers.actions)
