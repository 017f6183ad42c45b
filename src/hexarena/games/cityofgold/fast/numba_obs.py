"""The observation writer of the CPU engine: :class:`~..observe.ObsWriter` as a numba kernel.

Writes one ``OBS_DTYPE`` record viewed as raw bytes (offsets from :func:`.numba_engine.layout`).
Modes: ``FRESH`` (a new game: zero the record, copy the board's static layers), ``VIEWER`` (the
seat to act changed: every seat's zones are redrawn, with what is hidden from the new viewer),
``MOVER`` (same seat: only its own zones changed; pawns, blockades and the shop are redrawn only
after an action that can change them). Between two turns only the seat that ended its turn
(``prev``: its hand and draw pile become hidden, its discard pile grew) and the new seat to act
change, so ``VIEWER`` redraws those two. Each gives the bytes a fresh scalar write gives.
"""

from __future__ import annotations

import numba as nb
import numpy as np
from llvmlite import ir
from numba.core import types
from numba.extending import intrinsic

from hexarena.games.cityofgold import cards as C
from hexarena.games.cityofgold.actions import MOVE, N_ACTIONS, REMOVE, SHOP
from hexarena.games.cityofgold.board import N_CELLS
from hexarena.games.cityofgold.fast.codes import ARRIVED, BUYING, PAY_DISCARD, PAY_REMOVE
from hexarena.games.cityofgold.fast.numba_engine import (
    HAND_AT,
    O_BLK,
    O_FLAT,
    O_GUARD,
    O_HEAD_OFF,
    O_HEADS,
    O_MAP,
    O_MARKET,
    O_MAX_TURNS,
    O_PD,
    O_PD_SIZE,
    O_PENDING,
    O_PHASE,
    O_RES,
    O_SEAT,
    O_SHOP,
    O_TURN,
    SEAT_BYTES,
    list_legal,
)
from hexarena.games.cityofgold.observe import MASK_DTYPE

MOVER, VIEWER, FRESH = 0, 1, 2
MASK_BYTES = MASK_DTYPE.itemsize


@intrinsic
def _float_bits(typingctx, value):
    """The IEEE bits of a float32 as a uint32 (written out little-endian, as numpy stores it)."""

    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], ir.IntType(32))

    return types.uint32(types.float32), codegen


@nb.njit(cache=True, error_model="numpy")
def _write_seat(dst, s, p: int, at: int, visible: bool) -> None:
    """Seat ``p``'s zones and counts (the state keeps them in observation layout), its draw pile
    and hand (the first two zones) zeroed unless ``visible``. The loops run over views indexed
    from 0 with constant bounds, so they compile to block copies."""
    out = dst.b[at : at + SEAT_BYTES]
    src = s.seats[p]
    for k in range(SEAT_BYTES):
        out[k] = src[k]
    if not visible:
        for k in range(2 * HAND_AT):
            out[k] = 0


@nb.njit(cache=True, error_model="numpy")
def write_obs(dst, selected, s, b, mode: int, prev: int, action: int, c, t) -> None:
    """Row ``dst.b`` := the observation of the seat to act of game ``s`` on board ``b``;
    ``selected.b`` := that seat's five-head mask (written in the same pass); ``c``, ``t``: the
    settings and constants records. Records, not arrays, are passed: an array argument costs
    reference counts."""
    row, sel, marked = dst.b, selected.b, s.marked
    n_players, n_pawns, omniscient, max_turns = c.n_players, c.n_pawns, c.omniscient, c.max_turns
    o = t.layout
    me = s.player
    base = o[O_MAP]
    moved = mode != MOVER or (MOVE <= action < SHOP)
    shopped = mode != MOVER or (SHOP <= action < REMOVE)
    if mode == FRESH:
        row[:] = 0
        for c in range(N_CELLS * 7):
            row[base + c] = b.static_map[c]
        for c in range(N_CELLS * 6):
            row[o[O_GUARD] + c] = b.guard[c]
    elif moved:
        for j in range(8):
            if marked[j] >= 0:
                row[base + marked[j] * 7] = 0
    if moved:
        marked[:] = -1
        m = 0
        for p in range(n_players):
            for i in range(n_pawns):
                c = s.pawns[p, i]
                if c != ARRIVED:
                    row[base + c * 7] = (p - me + n_players) % n_players + 1 + 4 * i
                    marked[m] = c
                    m += 1
    row[o[O_PHASE]] = s.phase
    row[o[O_PENDING]] = s.pending
    for k in range(4):  # int32 little-endian; the cap changes only with the game
        row[o[O_TURN] + k] = (s.turn >> (8 * k)) & 0xFF
        if mode == FRESH:
            row[o[O_MAX_TURNS] + k] = (max_turns >> (8 * k)) & 0xFF
    res = o[O_RES]
    for r in range(3):
        v2 = 2 * s.res[r]
        if s.phase == BUYING:
            v2 = s.money2 if r == 2 else 0
        bits = _float_bits(np.float32(v2) * np.float32(0.5))
        for k in range(4):
            row[res + 4 * r + k] = (bits >> (8 * k)) & 0xFF
    for i in range(C.N_SHOP if shopped else 0):
        row[o[O_SHOP] + i] = s.shop[i]
        row[o[O_MARKET] + i] = s.market[i]
    for g in range(s.n_blockades if moved else 0):
        holder = s.holder[g]
        at = o[O_BLK] + 4 * g
        row[at] = holder < 0
        if mode == FRESH:  # kind and amount never change in a game (and live in the board record)
            row[at + 1] = b.blk_kind[g]
            row[at + 2] = b.blk_amount[g]
        row[at + 3] = 0 if holder < 0 else (holder - me + n_players) % n_players + 1
    pd, size = o[O_PD], o[O_PD_SIZE]
    if mode == VIEWER:
        at = pd + prev * size + o[O_HEADS]
        row[at : at + MASK_BYTES] = 0
    for p in range(n_players):
        if mode == FRESH or p == me or (mode == VIEWER and p == prev):
            _write_seat(dst, s, p, pd + p * size + o[O_SEAT], omniscient or p == me)
    n = list_legal(s, b, n_pawns, t)
    flat = o[O_FLAT]
    heads = pd + me * size + o[O_HEADS]
    fm = row[flat : flat + N_ACTIONS]
    hm = row[heads : heads + MASK_BYTES]
    for k in range(N_ACTIONS):
        fm[k] = 0
    for k in range(MASK_BYTES):
        hm[k] = 0
        sel[k] = 0
    for h in range(5):
        hm[o[O_HEAD_OFF + h]] = 1
        sel[o[O_HEAD_OFF + h]] = 1
    if s.phase == PAY_DISCARD or s.phase == PAY_REMOVE:  # an owed payment cannot be left out
        hm[o[O_HEAD_OFF + 2]] = 0
        sel[o[O_HEAD_OFF + 2]] = 0
    for j in range(n):
        a = s.legal[j]
        fm[a] = 1
        at = t.head_pos[a]
        if at >= 0:
            hm[at] = 1
            sel[at] = 1
