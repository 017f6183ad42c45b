"""The replay viewer's snapshot of a game (see :mod:`hexarena.core.frames`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from hexarena.games.smallworld.engine import SmallWorldGame
from hexarena.games.smallworld.enums import Feature

_SYMBOLS = {Feature.MINE: "mine", Feature.MAGIC_SOURCE: "magic", Feature.CAVERN: "cavern"}


def build_frame(game: SmallWorldGame, roles: Sequence[str]) -> dict[str, Any]:
    """Regions as hex cells (terrain, owner, tokens, markers), per-player panels, the combo row."""
    gs = game._state
    cells = []
    for region, st in zip(gs.map.regions, gs.regions, strict=True):
        icons = [_SYMBOLS[f] for f in sorted(region.features) if f in _SYMBOLS]
        icons += [m.value.lower() for m in st.markers]
        if st.has_lost_tribe:
            icons.append("lost_tribe")
        cells.append(
            {
                "id": f"r{region.id}",
                "q": region.q,
                "r": region.r,
                "terrain": region.terrain.value.lower(),
                "owner": roles[st.owner] if st.owner is not None else None,
                "region": region.id,
                # "id:tokens", as moves write a placement (REDEPLOY 3:4): every move names ids
                "label": f"{region.id}:{st.tokens}" if st.tokens else str(region.id),
                "icons": icons,
                "info": {
                    "region": region.id,
                    "race": st.race.value if st.race else None,
                    "declined": st.is_decline,
                    "tokens": st.tokens,
                    "border": region.is_border,
                },
            }
        )
    players = []
    for p in gs.players:
        fields: dict[str, Any] = {
            "active": f"{p.active.race_name.value} + {p.active.power_name.value}" if p.active else None,
            "in hand": p.active.tokens_in_hand if p.active else 0,
            "declined": ", ".join(d.race_name.value for d in p.declines()) or None,
            "regions": len(gs.player_regions(p.player_id)),
            "tokens on map": gs.tokens_on_map(p.player_id),
        }
        players.append({"role": roles[p.player_id], "score": float(p.coins), "fields": fields})
    combos = [
        f"{i}: {c.race.value} + {c.power.value} ({c.total_tokens}, {c.coins}c)"
        for i, c in enumerate(gs.combo_row.visible)
    ]
    return {
        "layout": "pointy",
        "cells": cells,
        "players": players,
        "panels": {
            "Turn": {
                "turn": f"{min(gs.turn, gs.config.max_turns)} of {gs.config.max_turns}",
                "phase": gs.phase.value,
                "to act": roles[gs.acting_player],
            },
            "Combo row": combos,
        },
    }
