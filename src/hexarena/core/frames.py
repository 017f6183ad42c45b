"""The frame format: what every game's match record stores for the replay viewer.

A game's :meth:`~hexarena.core.contract.GameState.frame` returns a **full snapshot** of what to
draw, as a JSON-safe dict::

    {
      "layout": "pointy" | "flat",        # hex orientation; cells use axial (q, r)
      "rowcol": 66,                       # optional: the cells are in row-major order, this many
                                          # a row; the viewer names a cell (row, col), not (q, r)
      "cells": [                          # every hex drawn, each with a unique "id"
        {"id": "c5", "q": 2, "r": 4,
         "terrain": "forest",             # a style key the viewer colours (free vocabulary)
         "owner": "red" | None,           # a role, coloured per player
         "region": 17,                    # optional: cells sharing a region are outlined together
         "label": "3",                    # optional short text drawn in the hex
         "icons": ["mountain", "troll_lair"],  # optional symbols: "name", "name:role" (a unit of
                                          # that role) or {"name", "owner", "label"}
         "fog": {"red": 0|1|2},           # optional: per-role 0 never seen, 1 seen, 2 visible
         "info": {...},                   # optional details shown on hover
         "panel": {"title": ..., ...}}    # optional: opened beside the map when the cell is clicked
      ],
      "edges": [{"a": "c5", "b": "c6", "kind": "river",      # optional; "side" (0-5, the
                 "side": 0}],             # direction from a to b) draws an edge across a seam
      "fog": {"red": "0012..."},          # optional, instead of the cells' fog: one digit per
                                          # cell, in the order the cells first appeared, or the
                                          # same as runs, "r:<digit><count>,..." (fog_runs)
      "players": [{"role": "red", "score": 3.0, "fields": {...}}],   # per-player panel
      "panels": {"Shop": {...}},          # optional extra panels (title -> mapping or list)
      "screens": [{"title": "Cities", "kind": "table", "rows": [...]}],   # optional extra
                                          # screens: kinds "table", "plots" (player fields over
                                          # time: "fields"), "techtree" ("tree" names the
                                          # top-level key holding the layout; "players"),
                                          # "policies", "citystates" (docs/viewer.md); "data":
                                          # top-level keys merged into the screen (its body,
                                          # re-sent only when it changes)
    }

A :class:`FrameEncoder` turns successive snapshots into **deltas** so long records stay small:
only cells whose content changed are written (by id), and the top-level keys other than
``cells`` only when they changed. :func:`decode_frames` restores full snapshots. The viewer and
Terra Nova's streaming recorder use the same encoding.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from hexarena.core.errors import RecordError

FORMAT = "hexarena-frames"
VERSION = 1


class FrameEncoder:
    """Encode full snapshots as deltas against the previous one."""

    def __init__(self) -> None:
        self._cells: dict[Any, Mapping[str, Any]] = {}
        self._top: dict[str, Any] = {}

    def encode(self, frame: Mapping[str, Any]) -> dict[str, Any]:
        """The delta for ``frame``: ``{"cells": [changed cells], "removed": [ids], ...}``."""
        if not isinstance(frame, Mapping) or not isinstance(frame.get("cells"), list):
            raise ValueError("a frame is a mapping with a 'cells' list")
        delta: dict[str, Any] = {}
        cells_now: dict[Any, Mapping[str, Any]] = {}
        changed = []
        for cell in frame["cells"]:
            if "id" not in cell:
                raise ValueError(f"frame cell without an 'id': {cell!r}")
            cells_now[cell["id"]] = cell
            if self._cells.get(cell["id"]) != cell:  # plain equality: snapshots are fresh dicts
                changed.append(cell)
        removed = [cid for cid in self._cells if cid not in cells_now]
        delta["cells"] = changed
        if removed:
            delta["removed"] = removed
        for key, value in frame.items():
            if key == "cells":
                continue
            if key not in self._top or self._top[key] != value:
                delta[key] = value
                self._top[key] = value
        for key in [k for k in self._top if k not in frame]:
            delta.setdefault("dropped", []).append(key)
            del self._top[key]
        self._cells = cells_now
        return delta


def decode_frames(deltas: Iterable[Mapping[str, Any]]) -> Iterator[dict[str, Any]]:
    """Full snapshots from a sequence of deltas (inverse of :class:`FrameEncoder`)."""
    cells: dict[Any, Any] = {}
    top: dict[str, Any] = {}
    for i, delta in enumerate(deltas):
        if not isinstance(delta, Mapping) or not isinstance(delta.get("cells"), list):
            raise RecordError(f"frame {i} is not a frame delta (needs a 'cells' list)")
        for cid in delta.get("removed", ()):
            cells.pop(cid, None)
        for cell in delta["cells"]:
            cells[cell["id"]] = cell
        for key in delta.get("dropped", ()):
            top.pop(key, None)
        top.update({k: v for k, v in delta.items() if k not in ("cells", "removed", "dropped")})
        yield {**top, "cells": list(cells.values())}


def fog_runs(digits: str) -> str:
    """A fog string (one digit per cell) as runs, ``"r:0120,25,..."``: 120 cells of 0, 5 of 2...
    (fog comes in large patches: a 42 x 66 map's 2772 digits become a few hundred characters)."""
    runs = []
    start = 0
    for i in range(1, len(digits) + 1):
        if i == len(digits) or digits[i] != digits[start]:
            runs.append(f"{digits[start]}{i - start}")
            start = i
    return "r:" + ",".join(runs)


def fog_digits(fog: str) -> str:
    """One digit per cell from a fog string in either form (inverse of :func:`fog_runs`)."""
    if not fog.startswith("r:"):
        return fog
    return "".join(run[0] * int(run[1:]) for run in fog[2:].split(",") if run)


def header(game: str, **extra: Any) -> dict[str, Any]:
    """The first line of a frames file."""
    return {"format": FORMAT, "version": VERSION, "game": game, **extra}


def check_header(line: Mapping[str, Any]) -> None:
    if line.get("format") != FORMAT or line.get("version") != VERSION:
        raise RecordError(f"not a {FORMAT} v{VERSION} frames file (header {dict(line)!r})")
