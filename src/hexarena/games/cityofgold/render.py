"""Text and image renderings of a City of Gold game (both headless).

The ASCII map uses the odd-r offset layout (pointy-top hexes, odd rows shifted right), so the six
move directions read naturally: E / W along a row, NE / NW to the row above, SE / SW below.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from hexarena.games.cityofgold import cards as C
from hexarena.games.cityofgold.board import (
    CAVE,
    FINISH,
    GRID,
    MOUNTAIN,
    START,
    TERRAIN_NAMES,
    Course,
)
from hexarena.games.cityofgold.engine import ARRIVED, Game

_REQ_LETTER = {1: "J", 2: "W", 3: "V", 4: "R", 5: "B"}
LEGEND = (
    "Legend: J=jungle (machete), W=water (paddle), V=village (coin), R=rubble (discard cards), "
    "B=basecamp (remove cards); the digit is the amount. Lower-case = a blockade borders this hex. "
    "^^ mountain, Ca cave, St start, $J/$W El Dorado (1 machete / 1 paddle), P1..P4 = pawns by seat. "
    "Directions: E/W along a row, NE/NW to the row above, SE/SW to the row below. Rows are "
    "numbered on the left, columns on top; every other row sits half a hex to the right."
)


def hex_code(course: Course, cell: int) -> str:
    """Two characters for a hex without pawns."""
    terrain = course.terrain[cell]
    if terrain == MOUNTAIN:
        return "^^"
    if terrain == CAVE:
        return "Ca"
    if terrain == START:
        return "St"
    letter = _REQ_LETTER[course.req_kind[cell]]
    if terrain == FINISH:
        return "$" + letter
    return letter + str(course.req_amount[cell])


def _offset(course: Course, cell: int) -> tuple[int, int]:
    """A hex's (row, column) in the odd-r offset layout of the grid."""
    h = course.hex_of(cell)
    return h.r, h.q + (h.r - (h.r & 1)) // 2


def _origin(course: Course) -> tuple[int, int]:
    """The grid's (row, column) of the map's row 1, column 1."""
    spots = [_offset(course, c) for c in course.cells()]
    return min(r for r, _ in spots), min(c for _, c in spots)


def map_position(course: Course, cell: int) -> str:
    """Where a hex is on the ASCII map, as its axes number it: ``(row 3, col 7)``."""
    (r, c), (r0, c0) = _offset(course, cell), _origin(course)
    return f"(row {r - r0 + 1}, col {c - c0 + 1})"


def ascii_map(g: Game) -> str:
    """The course as rows of two-character hexes, pawns shown as P<seat + 1>, with numbered rows
    (left) and columns (top; odd rows are shifted half a hex right)."""
    course = g.course
    pawn_at = {c: p for p, cells in enumerate(g.pawns) for c in cells if c != ARRIVED}
    guarded = {cell for cell, _, b in course.gates if g.blockade_holder[b] < 0}
    placed: dict[tuple[int, int], str] = {}
    for cell in course.cells():
        if cell in pawn_at:
            text = f"P{pawn_at[cell] + 1}"
        else:
            text = hex_code(course, cell)
            if cell in guarded:
                text = text.lower()
        placed[_offset(course, cell)] = text
    r0, cmin = _origin(course)
    rmax, cmax = max(r for r, _ in placed), max(c for _, c in placed)
    width = 4 * (cmax - cmin + 1) + 2
    lines = ["col " + "".join(f"{k:<4}" for k in range(1, cmax - cmin + 2)).rstrip()]
    for r in range(r0, rmax + 1):
        line = [" "] * width
        for (rr, col), text in placed.items():
            if rr == r:
                x = 4 * (col - cmin) + 2 * (r & 1)
                line[x : x + 2] = text
        lines.append(f"{r - r0 + 1:>3} " + "".join(line).rstrip())
    return "\n".join(lines)


def zone_text(counts: list[int]) -> str:
    """``Explorer x3, Sailor`` style list of a card-count vector (or 'none')."""
    parts = [C.NAMES[k] + (f" x{n}" if n > 1 else "") for k, n in enumerate(counts) if n]
    return ", ".join(parts) if parts else "none"


def render_ascii(g: Game, viewer: int | None = None) -> str:
    """Map and a status line per seat (a quick look, e.g. for ``cog_env.render``)."""
    lines = [ascii_map(g), LEGEND]
    for p in range(g.n_players):
        where = ["home" if c == ARRIVED else _xy(c) for c in g.pawns[p]]
        mark = " <- to act" if p == g.player and not g.done else ""
        hand = zone_text(g.zones[p][1]) if viewer is None or viewer == p else f"{sum(g.zones[p][1])} cards"
        lines.append(f"P{p + 1}: pawns {', '.join(where)}; hand {hand}{mark}")
    return "\n".join(lines)


def _xy(cell: int) -> str:
    return f"({cell // GRID},{cell % GRID})"


# --------------------------------------------------------------------------- images ---
_COLOURS = {
    "empty": (255, 255, 255),
    "jungle": (60, 150, 70),
    "water": (70, 130, 210),
    "village": (230, 200, 90),
    "rubble": (150, 150, 150),
    "basecamp": (200, 80, 70),
    "mountain": (90, 80, 70),
    "start": (240, 240, 230),
    "finish": (255, 150, 0),
    "cave": (60, 50, 45),
}
PLAYER_COLOURS = ((220, 40, 40), (40, 90, 230), (245, 245, 245), (30, 30, 30))


def render_rgb(g: Game, size: int = 14) -> np.ndarray:
    """An RGB image (uint8 [H, W, 3]) of the course with pawns and requirement labels."""
    from PIL import Image, ImageDraw

    course = g.course
    cells = course.cells()
    centres = {}
    for cell in cells:
        h = course.hex_of(cell)
        centres[cell] = (size * math.sqrt(3) * (h.q + h.r / 2), size * 1.5 * h.r)
    xs = [x for x, _ in centres.values()]
    ys = [y for _, y in centres.values()]
    ox, oy = min(xs) - size * 1.5, min(ys) - size * 1.5
    width, height = int(max(xs) - ox + size * 1.5), int(max(ys) - oy + size * 1.5)
    img = Image.new("RGB", (width, height), (255, 255, 255))
    draw = ImageDraw.Draw(img)
    pawn_at = {c: p for p, ps in enumerate(g.pawns) for c in ps if c != ARRIVED}
    for cell, (x, y) in centres.items():
        x, y = x - ox, y - oy
        corners = [
            (x + size * math.cos(math.radians(60 * i + 30)), y + size * math.sin(math.radians(60 * i + 30)))
            for i in range(6)
        ]
        draw.polygon(corners, fill=_COLOURS[TERRAIN_NAMES[course.terrain[cell]]], outline=(40, 40, 40))
        if cell in pawn_at:
            r = size * 0.55
            draw.ellipse((x - r, y - r, x + r, y + r), fill=PLAYER_COLOURS[pawn_at[cell]], outline=(0, 0, 0))
        elif course.req_kind[cell]:
            draw.text((x - 3, y - 5), str(course.req_amount[cell]), fill=(0, 0, 0))
    for cell, _, b in course.gates:
        if g.blockade_holder[b] < 0:
            x, y = centres[cell][0] - ox, centres[cell][1] - oy
            draw.rectangle((x - 3, y + 3, x + 3, y + 7), fill=(120, 40, 120))
    return np.asarray(img, np.uint8)


def save_png(g: Game, path: Any, size: int = 14) -> None:
    """Write :func:`render_rgb` to a PNG file."""
    from PIL import Image

    Image.fromarray(render_rgb(g, size)).save(path)


__all__ = ["LEGEND", "ascii_map", "render_ascii", "render_rgb", "save_png", "zone_text"]
