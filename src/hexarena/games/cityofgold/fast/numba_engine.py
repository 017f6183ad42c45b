"""The CPU engine: numba kernels that step a batch of City of Gold games and write their observations.

Each env's state is one record of :data:`STATE_DTYPE` (array of records: on a CPU one env is
stepped start to finish at a time, so keeping its fields together keeps it in one or two cache
lines). The rules are a line-by-line transcription of :mod:`..engine` (same order of random
draws from the same SplitMix64 stream), so the differential tests can demand identical games.

Observations are written straight into the ``OBS_DTYPE`` records of :mod:`..observe`, viewed as
raw bytes (numba cannot type nested boolean fields); :func:`layout` gives the byte offsets.
Everything the kernels read from the data files (cards, offsets, neighbours) is passed as
arrays, never captured as globals, so the on-disk numba cache cannot go stale when data change.
Caves are not supported here (the python backend has them).
"""

from __future__ import annotations

import numba as nb
import numpy as np
from llvmlite import ir
from numba.core import cgutils, types
from numba.cpython.unsafe.numbers import trailing_zeros
from numba.extending import intrinsic

from hexarena.games.cityofgold import cards as C
from hexarena.games.cityofgold.actions import DISCARD, MOVE, MOVE_HEAD, N_ACTIONS, PASS, REMOVE, SHOP, SPECIAL
from hexarena.games.cityofgold.board import NEIGHBORS
from hexarena.games.cityofgold.engine import STAT_NAMES
from hexarena.games.cityofgold.fast import numba_cache  # noqa: F401 (before the first cached kernel)
from hexarena.games.cityofgold.fast.boards import EXIT_FINISH, EXIT_GATE
from hexarena.games.cityofgold.fast.codes import (
    ARRIVED,
    BUYING,
    COIN,
    DONE,
    DRAWN,
    MONEY2,
    MOVEMENT,
    NATIVE,
    NO_REQ,
    PAY_DISCARD,
    PAY_REMOVE,
    REMOVES,
    REMOVING,
    REQ_DISCARD,
    SPEC,
    ST_ADDED,
    ST_BLOCKADES,
    ST_HEXES,
    ST_MACHETE,
    ST_REMOVED,
    ST_STEPS,
    ST_USES,
    STARTER,
    SU,
    TRANSMIT,
    M,
    card_table,
    shop_table,
)
from hexarena.games.cityofgold.observe import (
    MASK_DTYPE,
    OBS_DTYPE,
    PLAYER_DTYPE,
    PLAYER_OBS_DTYPE,
    ZONE_FIELDS,
)

# Terminal stash columns: turn, truncated, n_players, then 4 x stats.
TERM_COLS = 3 + 4 * len(STAT_NAMES)

STATE_DTYPE = np.dtype(
    [  # what a step reads first, then by use: one env-step touches a few lines of the record
        ("player", np.int32),
        ("phase", np.int32),
        ("pending", np.int32),
        ("money2", np.int32),
        ("res", np.int32, (3,)),
        ("board", np.int32),
        ("viewer", np.int32),
        ("n_legal", np.int16),
        ("ending", np.int8),
        ("done", np.int8),
        ("truncated", np.int8),
        ("n_blockades", np.int8),
        ("active", np.int8),  # the card in the active zone of the seat to act (it holds one at most), or -1
        ("hand_bits", np.int32, (4,)),  # bit k: card k is in the seat's hand
        ("rng", np.uint64, (2,)),
        ("legal", np.uint8, (N_ACTIONS,)),
        ("marked", np.int16, (8,)),
        ("pawns", np.int16, (4, 2)),
        ("holder", np.int8, (6,)),
        ("shop", np.int16, (C.N_SHOP,)),
        ("market", np.int8, (C.N_SHOP,)),
        ("seats", np.uint8, (4, PLAYER_OBS_DTYPE.itemsize)),  # zones and counts, as observed
        ("stats", np.int32, (4, len(STAT_NAMES))),
        ("exits", np.uint32, (4, 2, 6)),  # each pawn's six exits: 1 + neighbour | board exit << 12
        ("removed", np.int16, (C.N_CARDS,)),
        ("turn", np.int32),
        ("turns_taken", np.int32, (4,)),
        ("rewards", np.float32, (4,)),
        ("episode", np.int64),
        ("term", np.int64, (TERM_COLS,)),
    ]
)
"""One env's game (the fields of :class:`~..engine.Game`), its play generator (mix64(seed),
counter), each seat's card zones and counts in the byte layout of its observation (a deck
holds at most 8 + 18 * 3 cards; the hand and draw pile sizes are kept up to date, so a draw
needs no scan and writing a seat is one block copy), each pawn's six exits (refreshed when the
pawn moves: the board record is 76 KB, and reading it each step costs cache misses), the cells
its observation marked, its legal actions in increasing order (the mask as a list, so a uniform
draw is one index) and the stash of its last finished game."""

# A seat's bytes (``STATE_DTYPE["seats"]``, laid out as ``PLAYER_OBS_DTYPE``): the zones, then counts.
DRAW_AT, HAND_AT, ACTIVE_AT, PLAYED_AT, DISCARD_AT = (PLAYER_OBS_DTYPE.fields[f][1] for f in ZONE_FIELDS)
N_HAND, N_DRAW, N_ARRIVED, N_HELD = (
    PLAYER_OBS_DTYPE.fields[f][1] for f in ("hand_size", "draw_size", "arrived", "blockades")
)
SEAT_BYTES = PLAYER_OBS_DTYPE.itemsize
assert (DRAW_AT, HAND_AT) == (0, C.N_CARDS) and N_HAND == 5 * C.N_CARDS  # hidden = the first 2 zones
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)


def _offset(dtype: np.dtype, *path: str) -> int:
    total = 0
    for name in path:
        sub, off = dtype.fields[name][:2]
        total += off
        dtype = sub.base if sub.subdtype else sub
    return total


# Slots of the layout vector (byte offsets inside one observation record).
(O_MAP, O_PHASE, O_RES, O_SHOP, O_MARKET, O_BLK, O_GUARD, O_PD, O_PD_SIZE, O_FLAT, O_HEADS) = range(11)
O_SEAT, O_HEAD_OFF, O_PENDING, O_TURN, O_MAX_TURNS, O_LEN = 11, 12, 17, 18, 19, 20


def layout() -> np.ndarray:
    """Byte offsets of the observation fields inside one ``OBS_DTYPE`` record (int64 [O_LEN])."""
    o = np.zeros(O_LEN, np.int64)
    for slot, name in (
        (O_MAP, "map"),
        (O_PHASE, "phase"),
        (O_RES, "current_resources"),
        (O_SHOP, "shop"),
        (O_MARKET, "market"),
        (O_BLK, "blockades"),
        (O_GUARD, "blockade_map"),
        (O_PENDING, "pending"),
        (O_TURN, "turn"),
        (O_MAX_TURNS, "max_turns"),
    ):
        o[slot] = _offset(OBS_DTYPE, "shared", name)
    o[O_PD] = _offset(OBS_DTYPE, "player_data")
    o[O_PD_SIZE] = PLAYER_DTYPE.itemsize
    o[O_FLAT] = _offset(OBS_DTYPE, "action_mask")
    o[O_HEADS] = _offset(PLAYER_DTYPE, "action_mask")
    o[O_SEAT] = _offset(PLAYER_DTYPE, "obs")
    for h, name in enumerate(MASK_DTYPE.names):
        o[O_HEAD_OFF + h] = _offset(MASK_DTYPE, name)
    return o


TABLE_DTYPE = np.dtype(
    [
        ("cards", np.int64, (C.N_CARDS, 11)),
        ("shop", np.int64, (C.N_SHOP, 3)),
        ("nbr", np.int16, (len(NEIGHBORS), 6)),
        ("layout", np.int64, (O_LEN,)),
        ("head_pos", np.int16, (N_ACTIONS,)),
        ("cost2", np.int64, (C.N_SHOP,)),  # twice the price of each shop stack's card
        ("res_bits", np.int64),  # bit k: card k gives movement resources
        ("special_bits", np.int64),  # bit k: card k has a special effect
    ]
)
"""Every constant array the kernels read, in one record: a record and its fields carry no
reference count, where each array argument costs two atomic operations per call."""

CFG_DTYPE = np.dtype(
    [(name, np.int64) for name in ("n_players", "n_pawns", "max_turns", "validate", "omniscient", "pool")]
)
"""The batch settings, one record (read by the kernels as ``c.n_players``, ...)."""


def make_tables() -> np.ndarray:
    """The one-record :data:`TABLE_DTYPE` array of constants."""
    t = np.zeros(1, TABLE_DTYPE)
    t["cards"], t["shop"], t["nbr"] = card_table(), shop_table(), np.array(NEIGHBORS, np.int16)
    t["layout"], t["head_pos"] = layout(), head_positions()
    t["cost2"] = 2 * np.array([C.COST[k] for k in C.SHOP_CARDS])
    t["res_bits"] = sum(1 << k for k in range(C.N_CARDS) if C.HAS_RESOURCES[k])
    t["special_bits"] = sum(1 << k for k in range(C.N_CARDS) if C.SPECIAL[k])
    return t


def head_positions() -> np.ndarray:
    """int16 [115]: the byte of each flat action in a five-head mask record (-1 for ``PASS``).
    Both the ``REMOVE`` and the ``DISCARD`` range map to the ``remove`` head: in every phase at
    most one of them has legal actions, and it is the one that head shows."""
    pos = np.full(N_ACTIONS, -1, np.int16)
    for head, start, size in (
        ("play", 0, C.N_CARDS),
        ("play_special", SPECIAL, C.N_CARDS),
        ("get_from_shop", SHOP, C.N_SHOP),
        ("remove", REMOVE, C.N_CARDS),
        ("remove", DISCARD, C.N_CARDS),
    ):
        pos[start : start + size] = _offset(MASK_DTYPE, head) + 1 + np.arange(size)
    pos[list(MOVE_HEAD)] = _offset(MASK_DTYPE, "move") + 1 + np.arange(12)  # 0.0.3's direction order
    return pos


@intrinsic
def prefetch(typingctx, address):
    """Ask for the cache line at ``address`` (``llvm.prefetch``: for writing, kept close)."""

    def codegen(context, builder, signature, args):
        ptr, i32 = ir.PointerType(), ir.IntType(32)
        fnty = ir.FunctionType(ir.VoidType(), [ptr, i32, i32, i32])
        fn = cgutils.get_or_insert_function(builder.module, fnty, "llvm.prefetch.p0")
        builder.call(fn, [builder.inttoptr(args[0], ptr), i32(1), i32(3), i32(1)])
        return context.get_dummy_value()

    return types.void(types.uint64), codegen


# ------------------------------------------------------------------------------- random ---
@nb.njit(cache=True, inline="always", error_model="numpy")
def mix64(z: np.uint64) -> np.uint64:
    z = (z ^ (z >> np.uint64(30))) * _M1
    z = (z ^ (z >> np.uint64(27))) * _M2
    return z ^ (z >> np.uint64(31))


@nb.njit(cache=True, inline="always", error_model="numpy")
def randbelow(rng: np.ndarray, n: int) -> int:
    """``Rng.randbelow`` on ``rng = [mix64(seed), counter]`` (uint64), advancing the counter."""
    nn = np.uint64(n)
    while True:
        c = rng[1] + np.uint64(1)
        rng[1] = c
        x = mix64(rng[0] + c * _GOLDEN)
        if x < np.uint64(0) - nn:  # below 2**64 - n: below the limit (saves a division)
            return np.int64(x % nn)  # signed: a uint64 draw minus a uint8 count never goes below 0
        rest = (np.uint64(0) - nn) % nn  # 2**64 mod n; accept below 2**64 - rest
        if rest == 0 or x < np.uint64(0) - rest:
            return np.int64(x % nn)


@nb.njit(cache=True, inline="always", error_model="numpy")
def seed_rng(rng: np.ndarray, seed: np.uint64) -> None:
    rng[0] = mix64(seed)
    rng[1] = np.uint64(0)


# ---------------------------------------------------------------------------- the rules ---
@nb.njit(cache=True, inline="always", error_model="numpy")
def _hand_total(s, p: int) -> int:
    return s.seats[p, N_HAND]


@nb.njit(cache=True, inline="always", error_model="numpy")
def _to_hand(s, p: int, k: int) -> None:
    """Card ``k`` joins seat ``p``'s hand (its count, the hand size and the hand's bit set)."""
    s.seats[p, HAND_AT + k] += 1
    s.seats[p, N_HAND] += 1
    s.hand_bits[p] |= 1 << k


@nb.njit(cache=True, inline="always", error_model="numpy")
def _from_hand(s, p: int, k: int) -> None:
    left = s.seats[p, HAND_AT + k] - 1
    s.seats[p, HAND_AT + k] = left
    s.seats[p, N_HAND] -= 1
    if left == 0:
        s.hand_bits[p] &= ~(1 << k)


@nb.njit(cache=True, error_model="numpy")
def _draw(s, p: int, n: int) -> None:
    z = s.seats[p]
    for _ in range(n):
        total = z[N_DRAW]
        if total == 0:
            for k in range(C.N_CARDS):
                total += z[DISCARD_AT + k]
            if total == 0:
                return
            for k in range(C.N_CARDS):
                z[DRAW_AT + k] += z[DISCARD_AT + k]
                z[DISCARD_AT + k] = 0
        pick = randbelow(s.rng, total)
        for k in range(C.N_CARDS):
            pick -= z[DRAW_AT + k]
            if pick < 0:
                z[DRAW_AT + k] -= 1
                z[N_DRAW] = total - 1
                _to_hand(s, p, k)
                break


@nb.njit(cache=True, error_model="numpy")
def new_game(s, b, play_seed: np.uint64, c, t) -> None:
    """:func:`~..engine.new_game` on board record ``b`` with the given play seed (``c``: the
    :data:`CFG_DTYPE` record, ``t``: the :data:`TABLE_DTYPE` record). The kernels pass records,
    never arrays, between functions: an array argument costs reference-count calls."""
    n_players, n_pawns, cards, shop = c.n_players, c.n_pawns, t.cards, t.shop
    seed_rng(s.rng, play_seed)
    s.player = 0
    s.phase = MOVEMENT
    s.pending = 0
    s.money2 = 0
    s.res[:] = 0
    s.seats[:] = 0
    s.hand_bits[:] = 0
    s.active = -1
    for p in range(n_players):
        for k in range(C.N_CARDS):
            s.seats[p, DRAW_AT + k] = cards[k, STARTER]
            s.seats[p, N_DRAW] += cards[k, STARTER]
    s.removed[:] = 0
    for i in range(C.N_SHOP):
        s.shop[i] = shop[i, 2]
        s.market[i] = shop[i, 1]
    s.pawns[:] = ARRIVED
    for p in range(n_players):
        for i in range(n_pawns):
            s.pawns[p, i] = b.starts[p * n_pawns + i]
            _cache_neighbours(s, b, p, i, t)
    s.n_blockades = b.n_blockades
    s.holder[:] = -1
    for i in range(35, 0, -1):  # the cave-token shuffle of the scalar engine (draws only)
        randbelow(s.rng, i + 1)
    s.turn = 0
    s.turns_taken[:] = 0
    s.ending = 0
    s.done = 0
    s.truncated = 0
    s.rewards[:] = 0
    s.stats[:] = 0
    for p in range(n_players):
        _draw(s, p, C.HAND_SIZE)


@nb.njit(cache=True, error_model="numpy")
def _cache_neighbours(s, b, p: int, pawn: int, t) -> None:
    """Copy the six exits of pawn ``(p, pawn)``'s cell (see :data:`.boards.EXIT_GATE`) and its
    neighbours into the state: one line of the board, read once per move."""
    cell = s.pawns[p, pawn]
    board_exits = b.exits[cell]
    for d in range(6):
        s.exits[p, pawn, d] = np.uint32(t.nbr[cell, d] + 1) | (np.uint32(board_exits[d]) << 12)


@nb.njit(cache=True, inline="always", error_model="numpy")
def _target(s, b, p: int, pawn: int, d: int):
    """(target cell, blockade or -1, requirement kind, amount); kind NO_REQ if impassable."""
    e = np.int64(s.exits[p, pawn, d])
    n = (e & 0xFFF) - 1
    kind = (e >> 12) & 7
    if n < 0 or kind == NO_REQ:
        return n, -1, NO_REQ, 0
    g = (e >> (12 + EXIT_GATE)) - 1
    if g >= 0 and s.holder[g] < 0:
        return n, g, np.int64(b.blk_kind[g]), np.int64(b.blk_amount[g])
    return n, -1, kind, (e >> 15) & 15


@nb.njit(cache=True, inline="always", error_model="numpy")
def _occupied(s, cell: int) -> bool:
    """Whether a pawn stands on ``cell`` (>= 0): every slot is compared, without branches (the
    unused and arrived ones hold ``ARRIVED``)."""
    hit = False
    for p in range(4):
        for i in range(2):
            hit |= s.pawns[p, i] == cell
    return hit


@nb.njit(cache=True, error_model="numpy")
def _list_moves(s, b, n: int, n_pawns: int, free: bool) -> int:
    p = s.player
    for pawn in range(n_pawns):
        cell = s.pawns[p, pawn]
        if cell == ARRIVED:
            continue
        for d in range(6):
            to, g, kind, amount = _target(s, b, p, pawn, d)
            if kind == NO_REQ or (g < 0 and _occupied(s, to)):
                continue
            if not free:
                if kind <= COIN:
                    if s.res[kind - 1] < amount:
                        continue
                elif _hand_total(s, p) < amount:
                    continue
            s.legal[n] = MOVE + 6 * pawn + d
            n += 1
            prefetch(np.uint64(b.exits[to:].ctypes.data))  # for this game's next step, if it moves
    return n


@nb.njit(cache=True, inline="always", error_model="numpy")
def _list_bits(s, n: int, bits: int, base: int) -> int:
    """Append ``base + k`` for each set bit ``k`` of ``bits``, in increasing order."""
    while bits:
        s.legal[n] = base + trailing_zeros(bits)
        n += 1
        bits &= bits - 1
    return n


@nb.njit(cache=True, error_model="numpy")
def list_legal(s, b, n_pawns: int, t) -> int:
    """:func:`~..engine.legal_mask` as the list ``s.legal[:s.n_legal]`` of the set entries, in
    increasing order (each phase appends its action ranges in their order); returns the count."""
    n = 0
    p = s.player
    phase = s.phase
    hand = s.hand_bits[p]
    if s.done:
        s.n_legal = 0
        return 0
    if phase == MOVEMENT:
        n = _list_bits(s, n, hand & t.res_bits, 0)
        n = _list_bits(s, n, hand & t.special_bits, SPECIAL)
        n = _list_moves(s, b, n, n_pawns, False)
    elif phase == BUYING:
        n = _list_bits(s, n, hand, 0)
        in_market = 0
        for i in range(C.N_SHOP):
            in_market += s.market[i]
        slot_free = in_market < C.MARKET_SLOTS
        can_buy = 0  # bit i: stack i can be bought (computed without branches, then listed)
        for i in range(C.N_SHOP):
            ok = (s.shop[i] > 0) & ((s.market[i] != 0) | slot_free) & (t.cost2[i] <= s.money2)
            can_buy |= np.int64(ok) << i
        n = _list_bits(s, n, can_buy, SHOP)
        n = _list_bits(s, n, hand, DISCARD)
    elif phase == TRANSMIT:
        for i in range(C.N_SHOP):
            if s.shop[i] > 0:
                s.legal[n] = SHOP + i
                n += 1
    elif phase == NATIVE:
        n = _list_moves(s, b, n, n_pawns, True)
    else:  # REMOVING, PAY_REMOVE, PAY_DISCARD
        n = _list_bits(s, n, hand, DISCARD if phase == PAY_DISCARD else REMOVE)
    if phase != PAY_REMOVE and phase != PAY_DISCARD:
        s.legal[n] = PASS
        n += 1
    s.n_legal = n
    return n


@nb.njit(cache=True, error_model="numpy")
def _remove_card(s, p: int, k: int) -> None:
    s.removed[k] += 1
    s.stats[p, ST_REMOVED] += 1


@nb.njit(cache=True, error_model="numpy")
def _retire_active(s, used: bool, t) -> None:
    p = s.player
    k = s.active
    if k >= 0:
        s.active = -1
        s.seats[p, ACTIVE_AT + k] -= 1
        if used and t.cards[k, SU]:
            _remove_card(s, p, k)
        else:
            s.seats[p, PLAYED_AT + k] += 1


@nb.njit(cache=True, error_model="numpy")
def _finish(s, n_players: int, n_pawns: int) -> None:
    best = -1
    for p in range(n_players):
        if _arrived(s, p, n_pawns) and s.stats[p, ST_BLOCKADES] > best:
            best = s.stats[p, ST_BLOCKADES]
    k = 0
    for p in range(n_players):
        if _arrived(s, p, n_pawns) and s.stats[p, ST_BLOCKADES] == best:
            k += 1
    for p in range(n_players):
        won = _arrived(s, p, n_pawns) and s.stats[p, ST_BLOCKADES] == best
        s.rewards[p] = n_players - k if won else -k
    s.done = 1
    s.phase = DONE


@nb.njit(cache=True, error_model="numpy")
def _arrived(s, p: int, n_pawns: int) -> bool:
    for i in range(n_pawns):  # noqa: SIM110 (numba compiles no generator expressions)
        if s.pawns[p, i] != ARRIVED:
            return False
    return True


@nb.njit(cache=True, error_model="numpy")
def _end_turn(s, c) -> None:
    n_players, n_pawns, max_turns = c.n_players, c.n_pawns, c.max_turns
    p = s.player
    z = s.seats[p]
    for k in range(C.N_CARDS):
        z[DISCARD_AT + k] += z[ACTIVE_AT + k] + z[PLAYED_AT + k]
        z[ACTIVE_AT + k] = 0
        z[PLAYED_AT + k] = 0
    s.active = -1
    _draw(s, p, max(0, C.HAND_SIZE - _hand_total(s, p)))
    s.res[:] = 0
    s.money2 = 0
    s.pending = 0
    s.turn += 1
    s.turns_taken[p] += 1
    s.player = (p + 1) % n_players
    s.phase = MOVEMENT
    if s.ending and s.player == 0:
        _finish(s, n_players, n_pawns)
    elif s.turn >= max_turns and not s.ending:
        s.done = 1
        s.truncated = 1
        s.phase = DONE


@nb.njit(cache=True, error_model="numpy")
def _paid_one(s) -> None:
    s.pending -= 1
    if s.pending <= 0 or _hand_total(s, s.player) == 0:
        s.pending = 0
        s.phase = MOVEMENT


@nb.njit(cache=True, error_model="numpy")
def _move(s, b, pawn: int, d: int, free: bool, c, t) -> None:
    p = s.player
    n, g, kind, amount = _target(s, b, p, pawn, d)
    s.phase = MOVEMENT
    if not free and kind <= COIN:
        used = s.active >= 0
        left = s.res[kind - 1] - amount
        s.res[:] = 0
        s.res[kind - 1] = left
        _retire_active(s, used, t)
        s.stats[p, ST_MACHETE + kind - 1] += 1
    elif not free:
        _retire_active(s, False, t)
        s.res[:] = 0
        s.phase = PAY_DISCARD if kind == REQ_DISCARD else PAY_REMOVE
        s.pending = amount
    if g >= 0:
        s.holder[g] = p
        s.seats[p, N_HELD] += 1
        s.stats[p, ST_BLOCKADES] += 1
        return
    s.stats[p, ST_HEXES] += 1
    if s.exits[p, pawn, d] & (EXIT_FINISH << 12):
        s.pawns[p, pawn] = ARRIVED
        s.seats[p, N_ARRIVED] += 1
        if _arrived(s, p, c.n_pawns):
            s.ending = 1
            _end_turn(s, c)
        return
    s.pawns[p, pawn] = n
    _cache_neighbours(s, b, p, pawn, t)


@nb.njit(cache=True, error_model="numpy")
def apply(s, b, a: int, c, t) -> None:
    """:func:`~..engine.step` without validation."""
    cards, shop = t.cards, t.shop
    p = s.player
    s.stats[p, ST_STEPS] += 1
    z = s.seats[p]
    if a < SPECIAL:
        k = a
        _from_hand(s, p, k)
        s.stats[p, ST_USES] += 1
        if s.phase == MOVEMENT:
            _retire_active(s, False, t)
            z[ACTIVE_AT + k] += 1
            s.active = k
            for r in range(3):
                s.res[r] = cards[k, M + r]
        else:
            s.money2 += cards[k, MONEY2]
            if cards[k, SU]:
                _remove_card(s, p, k)
            else:
                z[PLAYED_AT + k] += 1
    elif a < MOVE:
        k = a - SPECIAL
        _retire_active(s, False, t)
        s.res[:] = 0
        _from_hand(s, p, k)
        s.stats[p, ST_USES] += 1
        if cards[k, SU]:
            _remove_card(s, p, k)
        else:
            z[PLAYED_AT + k] += 1
        kind = cards[k, SPEC]
        if kind == C.SPECIAL_TRANSMIT:
            s.phase = TRANSMIT
        elif kind == C.SPECIAL_NATIVE:
            s.phase = NATIVE
        else:
            _draw(s, p, cards[k, DRAWN])
            if cards[k, REMOVES] and _hand_total(s, p):
                s.phase = REMOVING
                s.pending = cards[k, REMOVES]
    elif a < SHOP:
        m = a - MOVE
        _move(s, b, m // 6, m % 6, s.phase == NATIVE, c, t)
    elif a < REMOVE:
        i = a - SHOP
        s.shop[i] -= 1
        z[DISCARD_AT + shop[i, 0]] += 1
        s.stats[p, ST_ADDED] += 1
        if s.phase == TRANSMIT:
            if s.shop[i] == 0:
                s.market[i] = 0
            s.phase = MOVEMENT
            return
        s.market[i] = s.shop[i] > 0  # a reserve card fills the free slot; an emptied stack frees it
        _end_turn(s, c)
    elif a < DISCARD:
        k = a - REMOVE
        _from_hand(s, p, k)
        _remove_card(s, p, k)
        _paid_one(s)
    elif a < PASS:
        k = a - DISCARD
        _from_hand(s, p, k)
        z[DISCARD_AT + k] += 1
        if s.phase == PAY_DISCARD:
            _paid_one(s)
    elif s.phase == MOVEMENT:
        _retire_active(s, False, t)
        s.res[:] = 0
        s.money2 = 0
        s.phase = BUYING
    elif s.phase == BUYING:
        _end_turn(s, c)
    else:
        s.pending = 0
        s.phase = MOVEMENT
