"""Hexagonal grid geometry shared by every game.

Coordinates follow the usual conventions (see Red Blob Games' hex guide for the maths):

* **axial** ``(q, r)``: the canonical form used everywhere inside hexarena;
* **cube** ``(x, y, z)`` with ``x + y + z == 0``: convenient for distances, rings and lines;
* **offset** ``(col, row)``: how maps are stored in arrays. ``odd-r`` shoves odd rows right
  (pointy-top hexes, Terra Nova), ``even-q`` shoves even columns down (flat-top hexes).

Maps that wrap around east-west (a cylinder) are handled by :class:`WrappedOffsetGrid`, which
works in odd-r offset space and folds columns modulo the width.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import NamedTuple


class Hex(NamedTuple):
    """An axial hex coordinate. Hashable, ordered, cheap."""

    q: int
    r: int

    @property
    def s(self) -> int:
        """The third cube coordinate, implied by ``q + r + s == 0``."""
        return -self.q - self.r

    def __add__(self, other: object) -> Hex:  # type: ignore[override]
        if not isinstance(other, Hex):
            return NotImplemented
        return Hex(self.q + other.q, self.r + other.r)

    def __sub__(self, other: Hex) -> Hex:
        return Hex(self.q - other.q, self.r - other.r)

    def scale(self, k: int) -> Hex:
        return Hex(self.q * k, self.r * k)

    def neighbor(self, direction: int) -> Hex:
        return self + DIRECTIONS[direction % 6]

    def neighbors(self) -> list[Hex]:
        return [self + d for d in DIRECTIONS]

    def distance(self, other: Hex) -> int:
        return distance(self, other)


#: The six axial directions, counter-clockwise starting east (pointy-top) / south-east (flat-top).
DIRECTIONS: tuple[Hex, ...] = (
    Hex(1, 0),
    Hex(1, -1),
    Hex(0, -1),
    Hex(-1, 0),
    Hex(-1, 1),
    Hex(0, 1),
)


def distance(a: Hex, b: Hex) -> int:
    """Number of steps between two hexes on an unbounded grid."""
    dq, dr = a.q - b.q, a.r - b.r
    return (abs(dq) + abs(dr) + abs(dq + dr)) // 2


def axial_to_cube(h: Hex) -> tuple[int, int, int]:
    return (h.q, h.r, -h.q - h.r)


def cube_to_axial(x: int, y: int, z: int) -> Hex:
    if x + y + z != 0:
        raise ValueError(f"cube coordinates must sum to 0, got ({x}, {y}, {z})")
    return Hex(x, y)


def cube_round(x: float, y: float, z: float) -> Hex:
    """The hex containing a fractional cube point (used for lines)."""
    rx, ry, rz = round(x), round(y), round(z)
    dx, dy, dz = abs(rx - x), abs(ry - y), abs(rz - z)
    if dx > dy and dx > dz:
        rx = -ry - rz
    elif dy > dz:
        ry = -rx - rz
    return Hex(int(rx), int(ry))


def axial_to_oddr(h: Hex) -> tuple[int, int]:
    """Axial to odd-r offset ``(col, row)``: pointy-top, odd rows shoved right."""
    col = h.q + (h.r - (h.r & 1)) // 2
    return col, h.r


def oddr_to_axial(col: int, row: int) -> Hex:
    return Hex(col - (row - (row & 1)) // 2, row)


def axial_to_evenq(h: Hex) -> tuple[int, int]:
    """Axial to even-q offset ``(col, row)``: flat-top, even columns shoved down."""
    row = h.r + (h.q + (h.q & 1)) // 2
    return h.q, row


def evenq_to_axial(col: int, row: int) -> Hex:
    return Hex(col, row - (col + (col & 1)) // 2)


def ring(center: Hex, radius: int) -> list[Hex]:
    """The hexes at exactly ``radius`` steps from ``center``, in walking order."""
    if radius < 0:
        raise ValueError("radius must be >= 0")
    if radius == 0:
        return [center]
    out: list[Hex] = []
    h = center + DIRECTIONS[4].scale(radius)
    for side in range(6):
        for _ in range(radius):
            out.append(h)
            h = h + DIRECTIONS[side]
    return out


def spiral(center: Hex, radius: int) -> list[Hex]:
    """All hexes within ``radius`` of ``center``: centre first, then ring by ring."""
    out = [center]
    for k in range(1, radius + 1):
        out.extend(ring(center, k))
    return out


def line(a: Hex, b: Hex) -> list[Hex]:
    """The hexes on the straight line from ``a`` to ``b`` inclusive (linear interpolation).

    A tiny nudge breaks ties consistently so the line never zig-zags along a hex edge.
    """
    n = distance(a, b)
    if n == 0:
        return [a]
    ax, ay, az = a.q + 1e-6, a.r + 1e-6, -a.q - a.r - 2e-6
    bx, by, bz = b.q + 1e-6, b.r + 1e-6, -b.q - b.r - 2e-6
    return [
        cube_round(ax + (bx - ax) * i / n, ay + (by - ay) * i / n, az + (bz - az) * i / n)
        for i in range(n + 1)
    ]


def rhombus(width: int, height: int) -> Iterator[Hex]:
    """The hexes of a ``width`` x ``height`` rhombus with a corner at the origin (Hex boards)."""
    for r in range(height):
        for q in range(width):
            yield Hex(q, r)


def hexagon(radius: int) -> list[Hex]:
    """All hexes of a regular hexagon of the given radius around the origin."""
    return spiral(Hex(0, 0), radius)


@dataclass(frozen=True, slots=True)
class WrappedOffsetGrid:
    """A ``width`` x ``height`` odd-r offset grid whose columns wrap east-west (a cylinder).

    Cells are addressed by ``(col, row)`` or by a flat index ``row * width + col``.
    """

    width: int
    height: int
    wrap: bool = True

    def __post_init__(self) -> None:
        if self.width <= 0 or self.height <= 0:
            raise ValueError("grid dimensions must be positive")

    @property
    def size(self) -> int:
        return self.width * self.height

    def index(self, col: int, row: int) -> int:
        return row * self.width + col

    def cell(self, index: int) -> tuple[int, int]:
        return index % self.width, index // self.width

    def normalize(self, col: int, row: int) -> tuple[int, int] | None:
        """Fold a column into range (if wrapping); None for cells off the map."""
        if not 0 <= row < self.height:
            return None
        if self.wrap:
            return col % self.width, row
        return (col, row) if 0 <= col < self.width else None

    def neighbors(self, col: int, row: int) -> list[tuple[int, int]]:
        """Neighbouring cells in direction order (east first, counter-clockwise); off-map ones skipped."""
        out = []
        for cell in self.neighbors_by_direction(col, row):
            if cell is not None:
                out.append(cell)
        return out

    def neighbors_by_direction(self, col: int, row: int) -> list[tuple[int, int] | None]:
        """Neighbour in each of the six directions, or None where the map ends."""
        base = oddr_to_axial(col, row)
        out: list[tuple[int, int] | None] = []
        for d in DIRECTIONS:
            c, r = axial_to_oddr(base + d)
            out.append(self.normalize(c, r))
        return out

    def distance(self, a: tuple[int, int], b: tuple[int, int]) -> int:
        """Steps between two cells, taking the shorter way around when columns wrap."""
        ha, hb = oddr_to_axial(*a), oddr_to_axial(*b)
        best = distance(ha, hb)
        if self.wrap:
            for shift in (-self.width, self.width):
                best = min(best, distance(ha, oddr_to_axial(b[0] + shift, b[1])))
        return best

    def neighbor_table(self) -> list[list[int]]:
        """For every flat index, the flat index of each of its six neighbours (-1 off the map).

        Batched engines turn this into an array once and gather through it.
        """
        table = []
        for idx in range(self.size):
            col, row = self.cell(idx)
            table.append([-1 if c is None else self.index(*c) for c in self.neighbors_by_direction(col, row)])
        return table
