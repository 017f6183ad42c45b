"""Records for the viewer tests: real Hex matches through the manager, and synthetic records that
use every part of the frame format (regions, icons, edges, fog, panels) at any map size."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

from hexarena.core.frames import FrameEncoder, header
from hexarena.core.manager import play_match
from hexarena.core.players import CallablePlayer, Reply
from hexarena.core.rng import Rng

TERRAINS = ("forest", "hill", "mountain", "swamp", "farmland", "water", "grassland", "desert", "mystery_bog")
ROLES = ("red", "blue", "p3")
REPLY_WITH_MARKUP = "I think </script><b>a1</b> is strong"  # must not break the exported page


def hex_record(out: Path, seed: int = 3, size: int = 5) -> Path:
    """A random Hex match."""
    players = [{"type": "random", "seed": 1}, {"type": "random", "seed": 2}]
    play_match(
        {
            "game": {"name": "hex", "seed": seed, "params": {"size": size}},
            "players": players,
            "output": {"dir": str(out)},
        }
    )
    return out


def hex_record_with_rejection(out: Path) -> Path:
    """A Hex match whose red player (an LLM-like text player that reads its own move out of its
    reply) first answers an off-board cell."""
    calls = {"n": 0}

    def llm_like(view: Any) -> Reply:
        calls["n"] += 1
        if calls["n"] == 1:
            return Reply(move="z9", raw="Let me play z9, the strongest point.", meta={"tokens": 12})
        move = view.legal_moves()[0]
        return Reply(move=move, raw=f"{REPLY_WITH_MARKUP}\nMy move: {move}", meta={"tokens": 20})

    config = {
        "game": {"name": "hex", "seed": 5, "params": {"size": 4}},
        "players": [{"type": "random", "seed": 1, "roles": ["red"]}, {"type": "random", "seed": 2}],
        "manager": {"backoff_s": 0.0},
        "output": {"dir": str(out)},
    }
    play_match(config, players={"red": CallablePlayer(llm_like, name="fake-llm")})
    return out


def offset_to_axial(col: int, row: int) -> tuple[int, int]:
    """odd-r offset to axial, as Terra Nova stores its maps."""
    return col - (row - (row & 1)) // 2, row


def synthetic_frames(width: int, height: int, steps: int, seed: int = 1) -> list[dict[str, Any]]:
    """Full snapshots of a made-up game: units (icons with owners) wander, owners spread, fog lifts."""
    rng = Rng(seed)
    cells: dict[str, dict[str, Any]] = {}
    for row in range(height):
        for col in range(width):
            q, r = offset_to_axial(col, row)
            cid = f"t{col}_{row}"
            cells[cid] = {
                "id": cid,
                "q": q,
                "r": r,
                "terrain": TERRAINS[(col * 7 + row * 3) % len(TERRAINS)],
                "owner": None,
                "region": (col // 3) + (row // 3) * 100,
                "fog": dict.fromkeys(ROLES, 0),
                "info": {"food": (col + row) % 4, "note": f"cell {col},{row}"},
            }
    ids = list(cells)
    units = {role: rng.choice(ids) for role in ROLES}
    cells[ids[0]]["icons"] = ["mountain", "troll_lair", "magic", "unknown_thing", "cave"]
    edges = [{"a": f"t{c}_2", "b": f"t{c}_3", "kind": "river"} for c in range(min(width, 6))]
    edges.append({"a": "t0_0", "b": "t1_0", "kind": "wall_of_fire"})
    frames = []
    for step in range(steps):
        if step:
            role = ROLES[step % len(ROLES)]
            target = rng.choice(ids)
            old = units[role]
            cells[old] = {k: v for k, v in cells[old].items() if k not in ("icons", "label")}
            units[role] = target
            cell = dict(cells[target], owner=role, icons=[f"warrior:{role}"], label=str(step % 9 + 1))
            cell["fog"] = {**cell["fog"], role: 2}
            cells[target] = cell
        scores = {role: float(sum(1 for c in cells.values() if c.get("owner") == role)) for role in ROLES}
        frames.append(
            {
                "layout": "pointy",
                "cells": list(cells.values()),
                "edges": edges,
                "players": [
                    {
                        "role": r,
                        "score": scores[r],
                        "fields": {
                            "coins": step + i,
                            "races": ["Elves", "Trolls"],
                            "deck": {"cards": 10 + i, "discard": step % 5},
                        },
                    }
                    for i, r in enumerate(ROLES)
                ],
                "panels": {
                    "Shop": [{"card": "Scout", "cost": 1}, {"card": "Pioneer", "cost": 2 + step % 3}],
                    "Market": {"round": step, "open": step % 2 == 0},
                },
            }
        )
    return frames


def write_synthetic(
    out: Path,
    width: int = 8,
    height: int = 6,
    steps: int = 12,
    gz: bool = False,
    bare: bool = False,
    game: str = "synthetic",
) -> Path:
    """A record directory holding only a frames file (as a streaming recorder writes it).

    ``bare`` writes the deltas themselves as lines, without the manager's step wrapper; ``game``
    names the game in the header (the viewer picks its palette by it).
    """
    out.mkdir(parents=True, exist_ok=True)
    encoder = FrameEncoder()
    lines = [header(game, roles=list(ROLES))]
    for step, frame in enumerate(synthetic_frames(width, height, steps)):
        delta = encoder.encode(frame)
        role = ROLES[step % len(ROLES)] if step else None
        lines.append(
            delta
            if bare
            else {"step": step, "role": role, "move": f"move {step}" if step else None, "delta": delta}
        )
    text = "".join(json.dumps(line, separators=(",", ":")) + "\n" for line in lines)
    if gz:
        with gzip.open(out / "frames.jsonl.gz", "wt", encoding="utf-8") as fh:
            fh.write(text)
    else:
        (out / "frames.jsonl").write_text(text, encoding="utf-8")
    return out
