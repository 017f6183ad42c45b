"""Streaming recorder: one chosen game, appended as it goes, gzip NDJSON in the frames format.

Nothing is preallocated: each :meth:`Recorder.record` turns the game's state into a frame
(:mod:`hexarena.core.frames`), encodes it as a delta against the previous one and appends one
line. The first line is the frames header. Terrain, rivers (as edges), resources, improvements,
cities, units, borders (as owners) and fog per role all go into the frame, so the replay viewer
reads the file like any other game's record.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import jax
import numpy as np

from hexarena.core.frames import FrameEncoder, decode_frames, header
from hexarena.games.terranova.geometry import N_TILES, axial, neighbors
from hexarena.games.terranova.state import GameState
from hexarena.games.terranova.tables import load_tables

ROLES = ("red", "blue", "green", "yellow", "purple", "orange")
TERRAIN_KEYS = ("ocean", "grassland", "plains", "desert", "tundra", "snow")
FEATURE_KEYS = ("", "forest", "jungle", "marsh", "oasis", "floodplains", "ice")


def select_game(games: GameState, device: int = 0, game: int = 0) -> GameState:
    """Game ``(device, game)`` of a batched state, as numpy."""
    return jax.tree_util.tree_map(lambda x: np.asarray(x)[device, game], games)


def river_edges(river: np.ndarray) -> list[dict[str, str]]:
    """Each river edge once, as a frame edge between two cells."""
    nb = neighbors()
    out = []
    for t in np.flatnonzero(river):
        for d in range(3):  # directions 0-2; 3-5 are the same edges seen from the other side
            if river[t] >> d & 1:
                out.append({"a": f"t{t}", "b": f"t{nb[t, d]}", "kind": "river"})
    return out


def frame_of(state: GameState, scores: np.ndarray | None = None) -> dict[str, Any]:
    """A full frame of one game (numpy state): every tile, rivers, and a panel per player."""
    tb = load_tables()
    s = state
    q, r = axial()
    lay, t = s.layers, s.tiles
    units_at: dict[int, list[str]] = {}
    for p in range(len(ROLES)):
        for slot in np.flatnonzero(s.units.kind[p] > 0):
            units_at.setdefault(int(s.units.pos[p, slot]), []).append(
                f"{ROLES[p]}:{tb.unit_names[s.units.kind[p, slot]]}"
            )
    cities = {
        int(s.cities.pos[p, c]): (p, c) for p in range(len(ROLES)) for c in np.flatnonzero(s.cities.exists[p])
    }
    cells = []
    for i in range(N_TILES):
        elev = int(lay.elevation[i])
        terrain = "lake" if lay.lake[i] else TERRAIN_KEYS[lay.terrain[i]]
        terrain = {2: f"{terrain}_hill", 3: "mountain"}.get(elev, terrain)
        icons = [k for k in (FEATURE_KEYS[t.feature[i]],) if k]
        if lay.natural_wonder[i]:
            icons.append("natural_wonder")
        if lay.resource[i]:
            icons.append(tb.resource_names[lay.resource[i]])
        if t.improvement[i]:
            icons.append(tb.improvement_names[t.improvement[i]])
        if t.road[i]:
            icons.append("road")
        cell: dict[str, Any] = {
            "id": f"t{i}",
            "q": int(q[i]),
            "r": int(r[i]),
            "terrain": terrain,
            "owner": ROLES[t.owner[i]] if t.owner[i] >= 0 else None,
            "fog": {role: int(t.visibility[p, i]) for p, role in enumerate(ROLES)},
        }
        if i in cities:
            p, c = cities[i]
            cell["label"] = str(int(s.cities.pop[p, c]))
            icons.append("capital" if s.cities.capital[p, c] else "city")
        if i in units_at:
            icons.extend(units_at[i])
        if icons:
            cell["icons"] = icons
        cells.append(cell)
    players = []
    for p, role in enumerate(ROLES):
        fields = {
            "cities": int(s.cities.exists[p].sum()),
            "population": int(s.cities.pop[p].sum()),
            "techs": int(s.players.techs[p].sum()),
            "gold": round(float(s.players.gold[p]), 1),
            "happiness": round(float(s.players.happiness[p]), 1),
            "units": int((s.units.kind[p] > 0).sum()),
        }
        score = float(scores[p]) if scores is not None else float(s.players.prev_score[p])
        players.append({"role": role, "score": score, "fields": fields})
    return {
        "layout": "pointy",
        "cells": cells,
        "edges": river_edges(lay.river),
        "players": players,
        "panels": {"Turn": {"round": int(s.turn), "to_move": ROLES[int(s.player)]}},
    }


class Recorder:
    """Appends frames of one game to ``path`` (gzip NDJSON), one line per :meth:`record`."""

    def __init__(self, path: str | Path, device: int = 0, game: int = 0, **meta: Any) -> None:
        self.path = Path(path)
        self.device, self.game = device, game
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._encoder = FrameEncoder()
        self._file = gzip.open(self.path, "wt", encoding="utf-8")  # noqa: SIM115 - closed by close()
        self._write(header("terranova", roles=list(ROLES), **meta))
        self.frames = 0

    def _write(self, line: dict[str, Any]) -> None:
        self._file.write(json.dumps(line, separators=(",", ":")) + "\n")
        self._file.flush()

    def record(self, games: GameState) -> None:
        """Append the chosen game of a batched state (call once per round, or as often as wanted)."""
        self.record_state(select_game(games, self.device, self.game))

    def record_state(self, state: GameState) -> None:
        self._write(self._encoder.encode(frame_of(state)))
        self.frames += 1

    def close(self) -> None:
        self._file.close()

    def __enter__(self) -> Recorder:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def read_replay(path: str | Path) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The header and the full frames of a recorded file."""
    with gzip.open(path, "rt", encoding="utf-8") as f:
        lines = [json.loads(line) for line in f]
    return lines[0], list(decode_frames(lines[1:]))
