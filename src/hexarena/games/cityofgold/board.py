"""Courses (maps) of City of Gold: piece data and course generation, separate from stepping.

A course is laid out on the 48 x 48 observation grid: cell ``x * 48 + y`` holds axial hex
``(q, r) = (x + q0, y + r0)``; the map's minimum corner sits at grid cell (1, 1). Every array is a
flat tuple over the 2,304 cells, so a batched engine can stack courses into a board pool.

Pieces sit on a lattice of radius-3 hexagon *slots* (see ``data/tiles.json``). The default
``linear`` layout is a chain start -> travel pieces -> El Dorado, each piece touching only its
neighbours in the chain, with a blockade at each join between two travel pieces (board-game
style). The ``tree`` layout (0.0.3's generator) attaches each piece to any placed piece and has
no blockades. Generation retries a few times, then raises :class:`CourseError`.
"""

from __future__ import annotations

import json
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass
from enum import IntEnum
from importlib import resources
from typing import Any

from hexarena.core.hexgrid import DIRECTIONS, Hex
from hexarena.core.rng import Rng, derive_seed

GRID = 48
N_CELLS = GRID * GRID

# Terrain kinds (what a hex is) and requirement kinds (what entering it costs).
EMPTY, JUNGLE, WATER, VILLAGE, RUBBLE, BASECAMP, MOUNTAIN, START, FINISH, CAVE = range(10)
TERRAIN_NAMES = (
    "empty",
    "jungle",
    "water",
    "village",
    "rubble",
    "basecamp",
    "mountain",
    "start",
    "finish",
    "cave",
)
NO_REQ, MACHETE, PADDLE, COIN, DISCARD, REMOVE = range(6)
REQ_NAMES = ("none", "machete", "paddle", "coin", "discard", "remove")
_CODE_TERRAIN = {"J": JUNGLE, "W": WATER, "V": VILLAGE, "R": RUBBLE, "B": BASECAMP}
_TERRAIN_REQ = {JUNGLE: MACHETE, WATER: PADDLE, VILLAGE: COIN, RUBBLE: DISCARD, BASECAMP: REMOVE}


class Difficulty(IntEnum):
    """Which travel pieces a course may use (each level includes the easier ones)."""

    EASY = 0
    MEDIUM = 1
    HARD = 2


class CourseError(ValueError):
    """A course cannot be built with these settings (too many pieces, does not fit the grid)."""


@dataclass(frozen=True, slots=True)
class Piece:
    name: str
    cls: str  # start, easy, medium, hard, end
    shape: str  # large, strip, end
    hexes: tuple[tuple[int, int, str], ...]


@dataclass(frozen=True, slots=True)
class BlockadeDef:
    name: str
    kind: int  # requirement kind
    amount: int


def _load() -> dict[str, Any]:
    return json.loads(resources.files(__package__).joinpath("data/tiles.json").read_text())


_DATA = _load()
SLOT_DIRS: tuple[Hex, ...] = tuple(Hex(q, r) for q, r in _DATA["slot_directions"])
PIECES: dict[str, Piece] = {
    p["name"]: Piece(p["name"], p["class"], p["shape"], tuple((q, r, c) for q, r, c in p["hexes"]))
    for p in _DATA["pieces"]
}
BLOCKADES: tuple[BlockadeDef, ...] = tuple(
    BlockadeDef(b["name"], REQ_NAMES.index(b["kind"]), b["amount"]) for b in _DATA["blockades"]
)
CAVE_TOKENS: tuple[tuple[int, int], ...] = tuple(
    (REQ_NAMES.index(kind) if kind != "draw" else -1, amount)
    for kind, amount, count in _DATA["cave_tokens"]["tokens"]
    for _ in range(count)
)
"""Cave tokens as (requirement kind or -1 for draw, amount)."""
_CLASSES = {
    Difficulty.EASY: ("easy",),
    Difficulty.MEDIUM: ("easy", "medium"),
    Difficulty.HARD: ("easy", "medium", "hard"),
}
START_PIECES = ("A", "B")
END_PIECES = ("X", "Y")


_DISTANCES: dict[int, tuple[Course, list[int]]] = {}


def finish_distances(course: Course) -> list[int]:
    """:meth:`Course.distance_to_finish`, cached per course object (players ask every move)."""
    hit = _DISTANCES.get(id(course))
    if hit is None or hit[0] is not course:
        if len(_DISTANCES) > 256:
            _DISTANCES.clear()
        hit = _DISTANCES[id(course)] = (course, course.distance_to_finish())
    return hit[1]


def _neighbor_table() -> tuple[tuple[int, ...], ...]:
    table = []
    for cell in range(N_CELLS):
        x, y = divmod(cell, GRID)
        row = []
        for d in DIRECTIONS:
            nx, ny = x + d.q, y + d.r
            row.append(nx * GRID + ny if 0 <= nx < GRID and 0 <= ny < GRID else -1)
        table.append(tuple(row))
    return tuple(table)


#: For every grid cell, the cell in each of the six hexgrid directions (-1 off the grid).
NEIGHBORS = _neighbor_table()
DIRECTION_NAMES = ("E", "NE", "NW", "W", "SW", "SE")


def rotate(h: Hex, k: int) -> Hex:
    """Rotate an axial hex by ``k`` sixth-turns (slot direction i goes to i + k)."""
    q, r = h
    for _ in range(k % 6):
        q, r = -r, q + r
    return Hex(q, r)


@dataclass(frozen=True, slots=True)
class Course:
    """A generated course: per-cell arrays on the 48 x 48 grid plus its pieces and blockades."""

    terrain: tuple[int, ...]
    req_kind: tuple[int, ...]
    req_amount: tuple[int, ...]
    piece_of: tuple[int, ...]  # index into ``pieces`` or -1
    starts: tuple[int, ...]
    finishes: tuple[int, ...]
    gates: tuple[tuple[int, int, int], ...]  # (cell, direction, blockade index)
    blockades: tuple[BlockadeDef, ...]
    pieces: tuple[tuple[str, int, int, int], ...]  # (name, slot q, slot r, rotation)
    origin: tuple[int, int]  # (q0, r0): axial of grid cell (0, 0)
    caves: tuple[int, ...]
    layout: str
    difficulty: int

    def gate_map(self) -> dict[int, int]:
        """``cell * 6 + direction`` -> blockade index, for the moves that cross a blockade."""
        return {cell * 6 + d: b for cell, d, b in self.gates}

    def hex_of(self, cell: int) -> Hex:
        x, y = divmod(cell, GRID)
        return Hex(x + self.origin[0], y + self.origin[1])

    def cell_of(self, h: Hex) -> int:
        x, y = h.q - self.origin[0], h.r - self.origin[1]
        if not (0 <= x < GRID and 0 <= y < GRID):
            return -1
        return x * GRID + y

    def passable(self, cell: int) -> bool:
        """Whether a pawn may ever enter the cell (start hexes only hold pawns at the start)."""
        return self.req_kind[cell] != NO_REQ

    def cells(self) -> list[int]:
        return [c for c in range(N_CELLS) if self.terrain[c] != EMPTY]

    def distance_to_finish(self) -> list[int]:
        """Fewest hexes from each cell to a finish hex, ignoring costs (-1 where unreachable)."""
        dist = [-1] * N_CELLS
        todo = deque(self.finishes)
        for f in self.finishes:
            dist[f] = 0
        while todo:
            c = todo.popleft()
            for n in NEIGHBORS[c]:
                if n >= 0 and dist[n] < 0 and (self.passable(n) or self.terrain[n] == START):
                    dist[n] = dist[c] + 1
                    if self.passable(n):
                        todo.append(n)
        return dist

    def start_distance(self) -> int:
        """Shortest start-to-finish path in hexes (-1 if El Dorado cannot be reached)."""
        dist = self.distance_to_finish()
        found = [dist[s] for s in self.starts if dist[s] >= 0]
        return min(found) if found else -1

    def to_json(self) -> dict[str, Any]:
        """A compact fingerprint (the course is rebuilt from the seed and parameters)."""
        return {
            "layout": self.layout,
            "difficulty": Difficulty(self.difficulty).name,
            "pieces": [list(p) for p in self.pieces],
            "blockades": [b.name for b in self.blockades],
        }


def _adjacent_slots(s: Hex) -> list[Hex]:
    return [s + d for d in SLOT_DIRS]


def _linear_path(rng: Rng, travel: Sequence[Piece], start_rot: int) -> list[tuple[Hex, int]] | None:
    """Slots and rotations for travel pieces and the end piece: a chain that touches only itself."""
    budget = [4000]
    exits = [(start_rot + k) % 6 for k in (5, 0, 1)]

    def extend(path: list[tuple[Hex, int]], used: list[Hex], dirs: list[int], i: int) -> list | None:
        budget[0] -= 1
        if budget[0] < 0:
            return None
        prev = used[-1]
        for d in rng.shuffled(dirs):
            slot = prev + SLOT_DIRS[d]
            if slot in used or any(n in used for n in _adjacent_slots(slot) if n != prev):
                continue
            if not _fits([*used, slot]):
                continue
            if i == len(travel):
                return [*path, (slot, d)]
            piece = travel[i]
            rot = d if piece.shape == "strip" else rng.randbelow(6)
            nxt = [d] if piece.shape == "strip" else [(d + k) % 6 for k in (5, 0, 1)]
            found = extend([*path, (slot, rot)], [*used, slot], nxt, i + 1)
            if found is not None:
                return found
        return None

    return extend([], [Hex(0, 0)], exits, 0)


def _fits(slots: list[Hex]) -> bool:
    """Whether radius-3 pieces on these slots can still fit the grid (leaving a one-cell border)."""
    qs, rs = [s.q for s in slots], [s.r for s in slots]
    return max(qs) - min(qs) + 6 <= GRID - 3 and max(rs) - min(rs) + 6 <= GRID - 3


def _tree_path(rng: Rng, travel: Sequence[Piece], start_rot: int) -> list[tuple[Hex, int]] | None:
    """0.0.3-style random tree: each piece attaches to any placed piece (strips only at their exit)."""
    used = [Hex(0, 0)]
    open_dirs: list[list[int]] = [[(start_rot + k) % 6 for k in (5, 0, 1)]]
    large: list[int] = []
    placed: list[tuple[Hex, int]] = []
    for piece in [*travel, None]:
        options = [
            (i, d)
            for i, ds in enumerate(open_dirs)
            for d in ds
            if used[i] + SLOT_DIRS[d] not in used and (piece is not None or i in large)
        ]
        if not options:
            return None
        i, d = rng.choice(options)
        slot = used[i] + SLOT_DIRS[d]
        if piece is None:
            return [*placed, (slot, d)]
        rot = d if piece.shape == "strip" else rng.randbelow(6)
        placed.append((slot, rot))
        used.append(slot)
        if piece.shape == "strip":
            open_dirs.append([d])
        else:
            large.append(len(used) - 1)
            open_dirs.append([k for k in range(6) if k != (d + 3) % 6])
    return None


def generate_course(
    seed: int,
    n_pieces: int = 3,
    difficulty: Difficulty | int | str = Difficulty.EASY,
    layout: str = "linear",
    min_distance: int = 8,
    caves: bool = False,
) -> Course:
    """A course, deterministic from ``seed`` and the settings (raises :class:`CourseError`)."""
    level = parse_difficulty(difficulty)
    if layout not in ("linear", "tree"):
        raise CourseError(f"layout must be 'linear' or 'tree', got {layout!r}")
    pool = [p for p in PIECES.values() if p.cls in _CLASSES[level]]
    if not isinstance(n_pieces, int) or not 1 <= n_pieces <= len(pool):
        raise CourseError(f"n_pieces must be 1..{len(pool)} for difficulty {level.name}, got {n_pieces!r}")
    rng = Rng(derive_seed(seed, "cityofgold-course"))
    last = "no attempt"
    for _ in range(20):
        start = PIECES[rng.choice(START_PIECES)]
        end = PIECES[rng.choice(END_PIECES)]
        travel = rng.sample(pool, n_pieces)
        start_rot = rng.randbelow(6)
        finder = _linear_path if layout == "linear" else _tree_path
        path = finder(rng, travel, start_rot)
        if path is None:
            last = "no chain of slots fits these pieces"
            continue
        placements = [
            (start, Hex(0, 0), start_rot),
            *[(p, s, r) for p, (s, r) in zip(travel, path, strict=False)],
        ]
        placements.append((end, path[-1][0], path[-1][1]))
        try:
            course = _build(rng, placements, layout, level, caves)
        except CourseError as exc:
            last = str(exc)
            continue
        dist = course.start_distance()
        if dist < 0:
            last = "El Dorado is unreachable"
            continue
        if dist < min_distance:
            last = f"start-to-finish distance {dist} < min_distance {min_distance}"
            continue
        return course
    raise CourseError(f"could not build a course with {n_pieces} pieces ({layout}, {level.name}): {last}")


def parse_difficulty(value: Difficulty | int | str) -> Difficulty:
    try:
        if isinstance(value, str):
            return Difficulty[value.upper()]
        return Difficulty(int(value))
    except (KeyError, ValueError):
        raise CourseError(f"difficulty must be EASY, MEDIUM or HARD (or 0-2), got {value!r}") from None


def _build(
    rng: Rng, placements: list[tuple[Piece, Hex, int]], layout: str, level: Difficulty, caves: bool
) -> Course:
    """Lay the pieces onto the grid, add blockades at the chain's joins and pick caves."""
    hexes: dict[Hex, tuple[int, str]] = {}
    for index, (piece, slot, rot) in enumerate(placements):
        for q, r, code in piece.hexes:
            h = rotate(Hex(q, r), rot) + slot
            if h in hexes:
                raise CourseError("pieces overlap")
            hexes[h] = (index, code)
    qs = [h.q for h in hexes]
    rs = [h.r for h in hexes]
    if max(qs) - min(qs) > GRID - 3 or max(rs) - min(rs) > GRID - 3:
        raise CourseError(
            f"the course spans {max(qs) - min(qs) + 1} x {max(rs) - min(rs) + 1} hexes; max {GRID - 2}"
        )
    origin = (min(qs) - 1, min(rs) - 1)
    terrain, req_kind, req_amount, piece_of = (
        [EMPTY] * N_CELLS,
        [NO_REQ] * N_CELLS,
        [0] * N_CELLS,
        [-1] * N_CELLS,
    )
    starts: list[int] = []
    finishes: list[int] = []
    for h, (index, code) in sorted(hexes.items()):
        cell = (h.q - origin[0]) * GRID + (h.r - origin[1])
        piece_of[cell] = index
        if code == "M":
            terrain[cell] = MOUNTAIN
        elif code == "S":
            terrain[cell] = START
            starts.append(cell)
        elif code.startswith("E"):
            terrain[cell], req_kind[cell], req_amount[cell] = (
                FINISH,
                _TERRAIN_REQ[_CODE_TERRAIN[code[1]]],
                int(code[2:]),
            )
            finishes.append(cell)
        else:
            kind = _CODE_TERRAIN[code[0]]
            terrain[cell], req_kind[cell], req_amount[cell] = kind, _TERRAIN_REQ[kind], int(code[1:])
    gates: list[tuple[int, int, int]] = []
    blockades: list[BlockadeDef] = []
    if layout == "linear":
        joins = min(len(placements) - 3, len(BLOCKADES))
        blockades = rng.sample(list(BLOCKADES), joins)
        for b in range(joins):
            a_piece, b_piece = b + 1, b + 2
            for cell in range(N_CELLS):
                if piece_of[cell] != a_piece or req_kind[cell] == NO_REQ:
                    continue
                for d, n in enumerate(NEIGHBORS[cell]):
                    if n >= 0 and piece_of[n] == b_piece and req_kind[n] != NO_REQ:
                        gates.append((cell, d, b))
                        gates.append((n, (d + 3) % 6, b))
    cave_cells: tuple[int, ...] = ()
    if caves:
        candidates = [
            c
            for c in range(N_CELLS)
            if terrain[c] == MOUNTAIN and any(n >= 0 and req_kind[n] for n in NEIGHBORS[c])
        ]
        cave_cells = tuple(sorted(rng.sample(candidates, min(len(candidates), len(CAVE_TOKENS) // 4))))
        for c in cave_cells:
            terrain[c] = CAVE
    return Course(
        terrain=tuple(terrain),
        req_kind=tuple(req_kind),
        req_amount=tuple(req_amount),
        piece_of=tuple(piece_of),
        starts=tuple(starts),
        finishes=tuple(finishes),
        gates=tuple(sorted(gates)),
        blockades=tuple(blockades),
        pieces=tuple((p.name, s.q, s.r, rot) for p, s, rot in placements),
        origin=origin,
        caves=cave_cells,
        layout=layout,
        difficulty=int(level),
    )
