"""Observations of City of Gold as numpy structured records (the 0.0.3 ``ObsData`` layout, fixed).

``shared``
    ``map`` uint8 [48, 48, 7]: channel 0 = relative occupancy (1 = player to act, 2 = next, ...,
    0 = empty; + 4 for a seat's pawn 1, so 5 = the mover's pawn 1), channels 1-5 = machete,
    paddle, coin, discard, remove requirement, channel 6 = finish;
    ``phase`` uint8 (:class:`~.actions.Phase`); ``current_resources`` float32 [3] (machete, paddle,
    coin; coin is the money in the buying phase and may be x.5); ``shop`` uint8 [18] copies left
    per shop index; ``market`` bool [18]; ``blockades`` int8 [6, 4] rows (standing, requirement
    kind, amount, holder relative to the player to act: 0 none, 1 self, 2 next, ...);
    ``blockade_map`` uint8 [48, 48, 6]: at [x, y, d], blockade index + 1 if the move from hex
    (x, y) in hexgrid direction d (the flat MOVE order) crosses that blockade's border, else 0
    (static: whether it still stands is in ``blockades``);
    ``pending`` uint8: hand cards still owed (``PAY_DISCARD``, ``PAY_REMOVE``: all of them must
    go) or still allowed (``REMOVE``: up to that many, or pass), else 0;
    ``turn`` int32: player turns played so far; ``max_turns`` int32: the cap (the game is
    truncated when ``turn`` reaches it).
``player_data`` [4], by absolute seat
    ``obs``: the five zones ``draw``, ``hand``, ``active``, ``played``, ``discard`` uint8 [21] plus
    ``hand_size``, ``draw_size``, ``arrived`` (pawns home), ``blockades``; the hand and draw pile of
    every seat but the one to act are zeroed (only their sizes are public) unless ``omniscient``;
    ``action_mask``: the five-head mask, filled for the seat to act only.
``action_mask`` bool [115]: the flat mask (:mod:`.actions`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from hexarena.games.cityofgold import cards as C
from hexarena.games.cityofgold.actions import (
    DISCARD,
    HEAD_SIZES,
    HEADS,
    MOVE_HEAD,
    N_ACTIONS,
    PLAY,
    REMOVE,
    SHOP,
    SPECIAL,
    Phase,
)
from hexarena.games.cityofgold.board import FINISH, GRID, NO_REQ, Course
from hexarena.games.cityofgold.engine import ARRIVED, DRAW_PILE, HAND, STAT_NAMES, Game, legal_mask

MAX_PLAYERS = 4
ZONE_FIELDS = ("draw", "hand", "active", "played", "discard")

SHARED_DTYPE = np.dtype(
    [
        ("map", np.uint8, (GRID, GRID, 7)),
        ("phase", np.uint8),
        ("current_resources", np.float32, (3,)),
        ("shop", np.uint8, (C.N_SHOP,)),
        ("market", np.bool_, (C.N_SHOP,)),
        ("blockades", np.int8, (6, 4)),
        ("blockade_map", np.uint8, (GRID, GRID, 6)),
        ("pending", np.uint8),
        ("turn", np.int32),
        ("max_turns", np.int32),
    ]
)
PLAYER_OBS_DTYPE = np.dtype(
    [(z, np.uint8, (C.N_CARDS,)) for z in ZONE_FIELDS]
    + [("hand_size", np.uint8), ("draw_size", np.uint8), ("arrived", np.uint8), ("blockades", np.uint8)]
)
MASK_DTYPE = np.dtype([(h, np.bool_, (HEAD_SIZES[h],)) for h in HEADS])
ACTION_DTYPE = np.dtype([(h, np.uint8) for h in HEADS])
PLAYER_DTYPE = np.dtype([("obs", PLAYER_OBS_DTYPE), ("action_mask", MASK_DTYPE)])
OBS_DTYPE = np.dtype(
    [
        ("shared", SHARED_DTYPE),
        ("player_data", PLAYER_DTYPE, (MAX_PLAYERS,)),
        ("action_mask", np.bool_, (N_ACTIONS,)),
    ]
)
AGENT_INFO_DTYPE = np.dtype([("returns", np.float32)] + [(s, np.int64) for s in STAT_NAMES])
INFO_DTYPE = np.dtype(
    [
        ("total_length", np.int64),
        ("truncated", np.bool_),
        ("n_players", np.uint8),
        ("agents", AGENT_INFO_DTYPE, (MAX_PLAYERS,)),
    ]
)

_STATIC: dict[int, tuple[Course, np.ndarray, np.ndarray]] = {}


def static_layers(course: Course) -> tuple[np.ndarray, np.ndarray]:
    """Requirement channels 1-6 and the blockade map of a course (cached per course object)."""
    hit = _STATIC.get(id(course))
    if hit is not None and hit[0] is course:
        return hit[1], hit[2]
    layers = np.zeros((GRID * GRID, 7), np.uint8)
    for cell in course.cells():
        kind = course.req_kind[cell]
        if kind != NO_REQ:
            layers[cell, kind] = course.req_amount[cell]
        layers[cell, 6] = course.terrain[cell] == FINISH
    guard = np.zeros((GRID * GRID, 6), np.uint8)
    for cell, d, b in course.gates:
        guard[cell, d] = b + 1
    if len(_STATIC) > 512:
        _STATIC.clear()
    _STATIC[id(course)] = (course, layers.reshape(GRID, GRID, 7), guard.reshape(GRID, GRID, 6))
    return _STATIC[id(course)][1], _STATIC[id(course)][2]


class ObsWriter:
    """Writes observations into a batch of ``OBS_DTYPE`` records (field views are made once).

    Static map layers are copied only when the course changes, channel 0 is cleared and redrawn
    at its pawn cells, and card zones are rewritten for the seat to act only, unless the viewer
    changed (then all seats, since what is hidden changed too).
    """

    def __init__(self, recs: np.ndarray) -> None:
        self.recs = recs
        shared, players = recs["shared"], recs["player_data"]
        self.map, self.blockade_map = shared["map"], shared["blockade_map"]
        self.phase, self.res = shared["phase"], shared["current_resources"]
        self.pending, self.turn, self.max_turns = shared["pending"], shared["turn"], shared["max_turns"]
        self.shop, self.market, self.blockades = shared["shop"], shared["market"], shared["blockades"]
        obs = players["obs"]
        self.zones = [obs[f] for f in ZONE_FIELDS]
        self.hand_size, self.draw_size = obs["hand_size"], obs["draw_size"]
        self.arrived, self.held = obs["arrived"], obs["blockades"]
        self.heads = players["action_mask"]
        self.flat = recs["action_mask"]
        n = len(recs)
        self._course: list[Course | None] = [None] * n
        self._viewer = [-1] * n
        self._marked: list[list[int]] = [[] for _ in range(n)]

    def forget(self, i: int) -> None:
        """Zero record ``i`` and its cache: the next write is a fresh one (a new game)."""
        self.recs[i] = np.zeros((), self.recs.dtype)
        self._course[i], self._viewer[i], self._marked[i] = None, -1, []

    def write(self, i: int, g: Game, omniscient: bool = False, viewer: int | None = None) -> None:
        """Record ``i`` := ``viewer``'s observation (default: the player to act)."""
        me = g.player if viewer is None else viewer
        n = g.n_players
        full = self._course[i] is not g.course or self._viewer[i] != me
        if self._course[i] is not g.course:
            static, guard = static_layers(g.course)
            self.map[i] = static
            self.blockade_map[i] = guard
            self._course[i], self._marked[i] = g.course, []
        grid = self.map[i]
        for cell in self._marked[i]:
            grid[cell // GRID, cell % GRID, 0] = 0
        marked = self._marked[i] = []
        for p, pawns in enumerate(g.pawns):
            for k, cell in enumerate(pawns):
                if cell != ARRIVED:
                    grid[cell // GRID, cell % GRID, 0] = (p - me) % n + 1 + 4 * k
                    marked.append(cell)
        self.phase[i] = g.phase
        self.pending[i], self.turn[i], self.max_turns[i] = g.pending, g.turn, g.max_turns
        self.res[i] = (0.0, 0.0, g.money2 / 2) if g.phase == Phase.BUYING else g.res
        self.shop[i] = g.shop
        self.market[i] = g.market
        for b, blk in enumerate(g.course.blockades):
            holder = g.blockade_holder[b]
            relative = 0 if holder < 0 else (holder - me) % n + 1
            self.blockades[i, b] = (holder < 0, blk.kind, blk.amount, relative)
        if full:
            self._viewer[i] = me
            for z in self.zones:
                z[i] = 0
            self.heads[i] = np.zeros((), MASK_DTYPE)
        for p in range(n) if full else (me, g.player):
            zones = g.zones[p]
            visible = omniscient or p == me
            for z, field in enumerate(self.zones):
                if visible or z not in (DRAW_PILE, HAND):
                    field[i, p] = zones[z]
            self.hand_size[i, p] = sum(zones[HAND])
            self.draw_size[i, p] = sum(zones[DRAW_PILE])
        self.arrived[i, :n] = [sum(1 for c in pawns if c == ARRIVED) for pawns in g.pawns]
        self.held[i, :n] = [sum(1 for h in g.blockade_holder if h == p) for p in range(n)]
        if me != g.player:
            self.flat[i] = False
            return
        flat = self.flat[i]
        flat[:] = legal_mask(g)
        heads = self.heads[i, me]
        forced = g.phase in (Phase.PAY_DISCARD, Phase.PAY_REMOVE)
        for h, flat_actions in _head_actions(g.phase).items():
            head = heads[h]
            head[0] = not (forced and h == "remove")  # an owed payment cannot be left out
            head[1:] = flat[flat_actions]


def _head_actions(phase: int) -> dict[str, np.ndarray | slice]:
    """The flat actions of each head's entries 1.. in this phase (``move`` in 0.0.3's order)."""
    removal = DISCARD if phase in (Phase.PAY_DISCARD, Phase.BUYING) else REMOVE
    return {
        "play": slice(PLAY, PLAY + C.N_CARDS),
        "play_special": slice(SPECIAL, SPECIAL + C.N_CARDS),
        "remove": slice(removal, removal + C.N_CARDS),
        "move": _MOVE_HEAD,
        "get_from_shop": slice(SHOP, SHOP + C.N_SHOP),
    }


_MOVE_HEAD = np.array(MOVE_HEAD, np.intp)


def observe(g: Game, omniscient: bool = False, viewer: int | None = None) -> np.ndarray:
    """A fresh observation record for ``viewer`` (default: the player to act)."""
    recs = np.zeros(1, OBS_DTYPE)
    ObsWriter(recs).write(0, g, omniscient, viewer)
    return recs[0]


def flatten(rec: np.ndarray) -> np.ndarray:
    """Every observation field except the masks, as one float32 vector (for generic RL code)."""
    parts: list[np.ndarray] = []

    def walk(value: np.ndarray) -> None:
        names = value.dtype.names
        if names is None:
            parts.append(np.asarray(value, np.float32).ravel())
            return
        for name in names:
            if name != "action_mask":
                walk(value[name])

    walk(rec)
    return np.concatenate(parts)


def flatten_runs(dtype: np.dtype, skip: tuple[str, ...] = ()) -> list[tuple[int, int, int, np.dtype]]:
    """Where :func:`flatten` puts the leaves of a record of ``dtype``, as runs ``(index in the
    vector, byte offset in the record, count, element dtype)``: every field but the masks and
    those named in ``skip`` (their places stay reserved), adjacent runs of one dtype merged.
    The RL cores flatten with them instead of walking the record at every step."""
    runs: list[list[Any]] = []
    size = 0

    def walk(dt: np.dtype, bases: list[int]) -> None:
        """As ``flatten`` walks: field by field, each over every element of the parent."""
        nonlocal size
        for name in dt.names:
            if name == "action_mask":
                continue
            sub, off = dt.fields[name][:2]
            base, count = sub.base, int(np.prod(sub.shape, dtype=np.int64))
            if base.names:
                walk(base, [b + off + k * base.itemsize for b in bases for k in range(count)])
                continue
            for b in bases:
                last = runs[-1] if runs else None
                if name in skip:
                    pass
                elif (
                    last
                    and last[3] == base
                    and last[0] + last[2] == size
                    and last[1] + last[2] * base.itemsize == b + off
                ):
                    last[2] += count
                else:
                    runs.append([size, b + off, count, base])
                size += count

    walk(dtype, [0])
    return [(d, o, c, t) for d, o, c, t in runs]


def to_dict(rec: np.ndarray) -> dict[str, Any]:
    """A structured record as nested dicts of arrays (what Gymnasium-style code expects)."""
    if rec.dtype.names is None:
        return np.asarray(rec)
    return {name: to_dict(rec[name]) for name in rec.dtype.names}


def write_info(rec: np.ndarray, g: Game) -> None:
    """Fill an ``INFO_DTYPE`` record: game length, truncation and per-seat statistics."""
    rec["total_length"] = g.turn
    rec["truncated"] = g.truncated
    rec["n_players"] = g.n_players
    agents = rec["agents"]
    for p in range(g.n_players):
        agents[p]["returns"] = g.rewards[p]
        for s, value in zip(STAT_NAMES, g.stats[p], strict=True):
            agents[p][s] = value
