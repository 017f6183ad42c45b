"""Streaming recorders: one chosen game, appended as it goes, gzip NDJSON in the frames format.

Nothing is preallocated: each record turns the game's state into a frame
(:mod:`hexarena.core.frames`), encodes it as a delta against the previous one and appends one
line ``{"step", "round", "role", "delta"}`` (the role that has just moved). The first line is the
frames header. Terrain, rivers (as edges), resources, improvements, cities, units, borders (as
owners) and fog per role all go into the frame, so the replay viewer reads the file like any
other game's record (``hexarena view game.jsonl.gz``).

Two front ends write the same file:

* :class:`Recorder` (``Recorder(path)``; ``record(games)`` takes the batched state and picks one
  game; ``record_state(state)`` takes one game) writes straight to ``path``;
* :class:`GameStateRecorder` is the spec's API, which runs as the spec writes it::

      gamestate = jax.tree_util.tree_map(lambda x: x[device_idx][games_idx], games)
      recorder = GameStateRecorder.create(reference_gamestate=gamestate, num_steps=num_steps)
      recorder = recorder.record(gamestate)
      ...  # after every env step: recorder = recorder.record(gamestate)
      recorder.save_replay("saved_games/game.jsonl.gz")

  It streams each record to a spool file and ``save_replay`` copies that out, so memory stays
  one frame whatever ``num_steps`` is (the original preallocated ``num_steps`` copies of the
  state, ~5 GB for 300 rounds). (The spec's snippet calls ``jax.tree_map``, which newer JAX
  removed; ``jax.tree_util.tree_map`` is the same function.)
"""

from __future__ import annotations

import gzip
import json
import shutil
import tempfile
import zlib
from pathlib import Path
from typing import Any

import jax
import numpy as np

from hexarena.core.frames import FrameEncoder, decode_frames, fog_runs, header
from hexarena.games.terranova.engine.geometry import COLS, N_TILES, axial, neighbors
from hexarena.games.terranova.engine.state import GameState
from hexarena.games.terranova.engine.tables import (
    CULTURE,
    FEATURE_KEYS,
    PROD,
    ROLES,
    SCIENCE,
    TERRAIN_KEYS,
    load_tables,
)
from hexarena.games.terranova.view import screens


def select_game(games: GameState, device: int = 0, game: int = 0) -> GameState:
    """Game ``(device, game)`` of a batched state, as numpy."""
    return jax.tree_util.tree_map(lambda x: np.asarray(x)[device, game], games)


def river_edges(river: np.ndarray) -> list[dict[str, Any]]:
    """Each river edge once, as a frame edge between two cells; ``side`` is the direction from
    ``a`` to ``b`` (hexgrid order), so the viewer can draw edges across the east-west seam."""
    nb = neighbors()
    out = []
    for t in np.flatnonzero(river):
        for d in range(3):  # directions 0-2; 3-5 are the same edges seen from the other side
            if river[t] >> d & 1:
                out.append({"a": f"t{t}", "b": f"t{nb[t, d]}", "kind": "river", "side": d})
    return out


def _player_fields(s: GameState, p: int, tb: Any) -> dict[str, Any]:
    """The per-player numbers of a frame: the player card and the demographics plots."""
    y = np.asarray(s.cities.yields[p])[np.asarray(s.cities.exists[p])]
    strength = tb.unit_strength[np.asarray(s.units.kind[p]).astype(int)]
    return {
        "cities": int(s.cities.exists[p].sum()),
        "population": int(s.cities.pop[p].sum()),
        "production": round(float(y[:, PROD].sum()), 1),
        "gold": round(float(s.players.gold[p]), 1),
        "science": round(float(y[:, SCIENCE].sum()), 1),
        "culture": round(float(y[:, CULTURE].sum()), 1),
        "military": round(float(strength.sum()), 1),
        "techs": int(s.players.techs[p].sum()),
        "happiness": round(float(s.players.happiness[p]), 1),
        "units": int((s.units.kind[p] > 0).sum()),
        "tiles": int((np.asarray(s.tiles.owner) == p).sum()),
        "great people": int(s.great.born[p].sum()),
        "great works": int(s.great.works[p].sum()),
        "tourism": round(float(s.players.tourism[p].sum()), 1),
        "golden age": int(s.players.golden_age_turns[p]),
    }


def frame_of(
    state: GameState, scores: np.ndarray | None = None, sacks: tuple[screens.Sack, ...] = ()
) -> dict[str, Any]:
    """A full frame of one game (numpy state): every tile (a city's with its panel), rivers, a card
    per player and the 4X screens (:mod:`.screens`; ``sacks``: the capitals sacked so far, with
    their rounds)."""
    tb = load_tables()
    panels = screens.city_panels(state)
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
        }
        if i in cities:
            p, c = cities[i]
            cell["label"] = str(int(s.cities.pop[p, c]))
            icons.append("capital" if s.cities.capital[p, c] else "city")
            cell["panel"] = panels[(p, c)]
        if i in units_at:
            icons.extend(units_at[i])
        if icons:
            cell["icons"] = icons
        cells.append(cell)
    players = []
    for p, role in enumerate(ROLES):
        score = float(scores[p]) if scores is not None else float(s.players.prev_score[p])
        players.append({"role": role, "score": score, "fields": _player_fields(s, p, tb)})
    vis = np.asarray(t.visibility).astype(np.uint8) + ord("0")
    return {
        "layout": "pointy",
        "rowcol": COLS,  # cells in tile order: the viewer names them (row, col) as the text view does
        "cells": cells,
        "edges": river_edges(lay.river),
        "fog": {role: fog_runs(vis[p].tobytes().decode("ascii")) for p, role in enumerate(ROLES)},
        "players": players,
        "panels": {"Turn": {"round": int(s.turn), "to_move": ROLES[int(s.player)]}},
        **screens.screens(s, sacks),
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
        self._sacked: np.ndarray | None = None
        self._sacks: tuple[screens.Sack, ...] = ()

    def _write(self, line: dict[str, Any]) -> None:
        self._file.write(json.dumps(line, separators=(",", ":")) + "\n")
        self._file.flush()

    def record(self, games: GameState) -> None:
        """Append the chosen game of a batched state (call once per round, or as often as wanted)."""
        self.record_state(select_game(games, self.device, self.game))

    def record_state(self, state: GameState) -> None:
        """Append one game's state (numpy or JAX arrays, no batch axes)."""
        state = jax.tree_util.tree_map(np.asarray, state)
        mover = (int(state.player) - 1) % len(ROLES) if self.frames else None
        if self._sacked is not None:
            self._sacks += screens.new_sacks(self._sacked, state.players.has_sacked, int(state.turn))
        self._sacked = state.players.has_sacked
        line = {
            "step": self.frames,
            "round": int(state.turn),
            "role": ROLES[mover] if mover is not None else None,
            "delta": self._encoder.encode(frame_of(state, sacks=self._sacks)),
        }
        self._write(line)
        self.frames += 1

    def close(self) -> None:
        self._file.close()

    def __enter__(self) -> Recorder:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class GameStateRecorder:
    """The spec's recorder: ``create``, ``record`` (returns the recorder), ``save_replay``.

    ``num_steps`` is how many records the caller plans (kept in the header); recording more or
    fewer is fine, since nothing is allocated ahead.
    """

    def __init__(self, num_steps: int, spool: Recorder) -> None:
        self.num_steps = num_steps
        self._spool = spool

    @classmethod
    def create(cls, reference_gamestate: GameState, num_steps: int) -> GameStateRecorder:
        """A recorder for games shaped like ``reference_gamestate`` (one game, no batch axes)."""
        if np.ndim(reference_gamestate.turn) != 0:
            raise ValueError(
                "reference_gamestate must be one game: index the device and game axes first "
                "(jax.tree_util.tree_map(lambda x: x[device_idx][games_idx], games))"
            )
        if not isinstance(num_steps, int) or num_steps < 1:
            raise ValueError(f"num_steps must be a positive int, got {num_steps!r}")
        folder = Path(tempfile.mkdtemp(prefix="terranova-recorder-"))
        return cls(num_steps, Recorder(folder / "spool.jsonl.gz", num_steps=num_steps))

    @property
    def frames(self) -> int:
        return self._spool.frames

    def record(self, gamestate: GameState) -> GameStateRecorder:
        """Append ``gamestate`` (one game) and return the recorder, as the spec's loop expects."""
        if np.ndim(gamestate.turn) != 0:
            raise ValueError("record takes one game: index the device and game axes first")
        self._spool.record_state(gamestate)
        return self

    def save_replay(self, path: str | Path) -> Path:
        """Write everything recorded so far to ``path`` (gzip NDJSON); recording may go on."""
        out = Path(path)
        out.parent.mkdir(parents=True, exist_ok=True)
        self._spool._file.flush()  # a sync flush: all recorded so far is readable, the stream stays open
        unzip = zlib.decompressobj(wbits=31)
        with self._spool.path.open("rb") as src, gzip.open(out, "wb") as dst:
            while chunk := src.read(1 << 20):
                dst.write(unzip.decompress(chunk))
        return out

    def __del__(self) -> None:
        spool = getattr(self, "_spool", None)
        if spool is not None:
            spool.close()
            shutil.rmtree(spool.path.parent, ignore_errors=True)


def read_replay(path: str | Path) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The header and the full frames of a recorded file."""
    with gzip.open(path, "rt", encoding="utf-8") as f:
        lines = [json.loads(line) for line in f]
    return lines[0], list(decode_frames(line.get("delta", line) for line in lines[1:]))
