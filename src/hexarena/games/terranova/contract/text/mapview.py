"""A local ASCII map around a place, a unit or a city (``map 21,32``, ``map unit 1``, ``map city 0``),
drawn from the player's own observation: one character a tile, odd rows shifted half a tile right
(the odd-r layout), the map wrapping east-west; then the legend and what stands on the map.
Like the maps of text roguelikes, it answers "what is around me" without spending the turn.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np

from hexarena.games.terranova.engine.geometry import COLS, ROWS, tile_text
from hexarena.games.terranova.engine.tables import ROLES, TERRAIN_KEYS, load_tables

RADIUS_ROWS, RADIUS_COLS = 5, 9
TERRAIN = {"ocean": "~", "grassland": "g", "plains": "p", "desert": "d", "tundra": "t", "snow": "s"}
LEGEND = (
    "Legend: C your city, X another's city, S city state, u your unit, e another's unit, "
    "~ water, ^ mountain, n hill, f forest or jungle, m marsh, g grassland, p plains, d desert, "
    "t tundra, s snow, ? unexplored; a tile seen before but not in sight now is as you saw it."
)
USAGE = "map R,C | map unit N | map city N: a local map (11 rows) around a place, unit or city"
_MAP = re.compile(r"^map\s+(?:(unit|city)\s+(\d+)|\(?\s*(\d+)\s*[, ]\s*(\d+)\s*\)?)\s*$", re.IGNORECASE)


def is_map_command(text: str) -> bool:
    return text.strip().lower().split(" ", 1)[0] == "map"


def map_command(text: str, obs: dict[str, Any], me: int) -> str:
    """The answer to a ``map`` command (a usage line when it names nothing on the map)."""
    m = _MAP.match(text.strip())
    if not m:
        return f"Usage: {USAGE}."
    if m.group(1):
        slot = int(m.group(2))
        if m.group(1).lower() == "unit":
            ids, rowcols = obs["units"]["unit_type"][me], obs["units"]["unit_rowcol"][me]
        else:
            ids, rowcols = obs["player_cities"]["city_ids"][me], obs["player_cities"]["city_rowcols"][me]
        if slot >= len(ids) or ids[slot] <= 0:
            return f"You have no {m.group(1).lower()} {slot}."
        row, col = (int(v) for v in rowcols[slot])
    else:
        row, col = int(m.group(3)), int(m.group(4))
        if not (0 <= row < ROWS and 0 <= col < COLS):
            return f"({row}, {col}) is off the map (rows 0-{ROWS - 1}, cols 0-{COLS - 1})."
    return local_map(obs, me, row, col)


def _glyphs(obs: dict[str, Any], me: int) -> tuple[dict[int, str], dict[int, list[str]]]:
    """What stands on tiles: a glyph each and the words for the list under the map."""
    tb = load_tables()
    glyph: dict[int, str] = {}
    words: dict[int, list[str]] = {}
    units = obs["units"]
    for p in range(len(ROLES)):
        for s in np.flatnonzero(units["unit_type"][p] > 0):
            t = int(units["unit_rowcol"][p, s, 0]) * COLS + int(units["unit_rowcol"][p, s, 1])
            name = tb.unit_names[int(units["unit_type"][p, s])]
            glyph.setdefault(t, "u" if p == me else "e")
            words.setdefault(t, []).append(f"your {name} (unit {s})" if p == me else f"{ROLES[p]} {name}")
    pc = obs["player_cities"]
    for p, c in zip(*np.nonzero(np.asarray(pc["city_ids"]) > 0), strict=True):
        t = int(pc["city_rowcols"][p, c, 0]) * COLS + int(pc["city_rowcols"][p, c, 1])
        glyph[t] = "C" if p == me else "X"
        words.setdefault(t, []).insert(0, f"your city {c}" if p == me else f"{ROLES[p]} city")
    for k, (r, c) in enumerate(np.asarray(obs["citystate_info"]["city_rowcols"])):
        if r >= 0:
            glyph[int(r) * COLS + int(c)] = "S"
            words.setdefault(int(r) * COLS + int(c), []).insert(0, f"city state #{k}")
    return glyph, words


def _terrain(obs: dict[str, Any], row: int, col: int) -> str:
    if int(obs["elevation_map"][row, col]) == 3:
        return "^"
    if obs["lake_map"][row, col] > 0:
        return "~"
    feature = int(obs["feature_map"][row, col])
    if feature in (1, 2):
        return "f"
    if feature == 3:
        return "m"
    if int(obs["elevation_map"][row, col]) == 2:
        return "n"
    terrain = int(obs["terrain_map"][row, col])
    return TERRAIN[TERRAIN_KEYS[terrain]] if 0 <= terrain < len(TERRAIN_KEYS) else "?"


def local_map(obs: dict[str, Any], me: int, row: int, col: int) -> str:
    """The map of rows ``row`` +- 5 and columns ``col`` +- 9 around ``(row, col)``."""
    vis = np.asarray(obs["visibility_map"])
    glyph, words = _glyphs(obs, me)
    rows = range(max(0, row - RADIUS_ROWS), min(ROWS, row + RADIUS_ROWS + 1))
    cols = [(col + d) % COLS for d in range(-RADIUS_COLS, RADIUS_COLS + 1)]
    lines = [
        f"Map around ({row}, {col}) (marked @), rows {rows[0]}-{rows[-1]}, columns {cols[0]}-{cols[-1]} "
        "(the header gives each column's last digit):",
        "      " + " ".join(f"{c % 10}" for c in cols),
    ]
    listed = []
    for r in rows:
        cells = []
        for c in cols:
            t = r * COLS + c
            g = "?" if vis[r, c] <= 0 else glyph.get(t, _terrain(obs, r, c))
            cells.append("@" if (r, c) == (row, col) else g)
            if vis[r, c] > 0 and t in words:
                listed.append(f"{tile_text(t)} {', '.join(words[t])}")
        lines.append(f"{r:>4}: {' ' if r & 1 else ''}{' '.join(cells)}")
    lines.append(LEGEND)
    if listed:
        lines.append("On this map: " + "; ".join(listed) + ".")
    return "\n".join(lines)
