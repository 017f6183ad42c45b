"""The viewer frame of a City of Gold state (see :mod:`hexarena.core.frames`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from hexarena.games.cityofgold import cards as C
from hexarena.games.cityofgold.actions import Phase
from hexarena.games.cityofgold.board import GRID, REQ_NAMES, TERRAIN_NAMES
from hexarena.games.cityofgold.engine import ARRIVED, DISCARD_PILE, DRAW_PILE, HAND, Game
from hexarena.games.cityofgold.render import hex_code

#: What the players' scores mean (shown in the Turn panel): zero-sum, set when the game ends.
SCORE_NOTE = (
    "0 during the race; at the end each winner scores players - winners (+{win} for a lone winner) "
    "and everyone else -winners (-1 for one winner)"
)


def build_frame(g: Game, roles: Sequence[str]) -> dict[str, Any]:
    """Tiles with terrain and requirement labels, pawns, blockades, player panels and the shop
    of game ``g``, seat ``p`` named ``roles[p]``."""
    course = g.course
    pawn_at = {c: p for p, cells in enumerate(g.pawns) for c in cells if c != ARRIVED}
    standing = {cell: b for cell, _, b in course.gates if g.blockade_holder[b] < 0}
    cells = []
    for cell in course.cells():
        h = course.hex_of(cell)
        icons = []
        if cell in pawn_at:
            icons.append("pawn")
        if cell in standing:
            icons.append("blockade")
        entry: dict[str, Any] = {
            "id": f"{cell // GRID},{cell % GRID}",
            "q": h.q,
            "r": h.r,
            "terrain": TERRAIN_NAMES[course.terrain[cell]],
            "owner": roles[pawn_at[cell]] if cell in pawn_at else None,
            "label": hex_code(course, cell),
            "region": course.piece_of[cell],
        }
        if icons:
            entry["icons"] = icons
        if course.req_kind[cell]:
            entry["info"] = {"cost": f"{course.req_amount[cell]} {REQ_NAMES[course.req_kind[cell]]}"}
        cells.append(entry)
    players = []
    for p in range(g.n_players):
        zones = g.zones[p]
        players.append(
            {
                "role": roles[p],
                "score": float(g.rewards[p]),
                "fields": {
                    "pawns home": sum(1 for c in g.pawns[p] if c == ARRIVED),
                    "blockades": sum(1 for h in g.blockade_holder if h == p),
                    "deck size": sum(sum(z) for z in zones),
                    "hand": sum(zones[HAND]),
                    "draw pile": sum(zones[DRAW_PILE]),
                    "discard pile": sum(zones[DISCARD_PILE]),
                    "to act": p == g.player and not g.done,
                },
            }
        )
    shop = {
        C.NAMES[card]: {"left": g.shop[s], "cost": C.COST[card], "in market": g.market[s]}
        for s, card in enumerate(C.SHOP_CARDS)
    }
    blockades = [
        {
            "name": b.name,
            "cost": f"{b.amount} {REQ_NAMES[b.kind]}",
            "holder": _role(g.blockade_holder[i], roles),
        }
        for i, b in enumerate(course.blockades)
    ]
    turn = {
        "turn": g.turn + 1,
        "phase": Phase(g.phase).name,
        "to act": roles[g.player],
        "score": SCORE_NOTE.format(win=g.n_players - 1),
    }
    return {
        "layout": "pointy",
        "cells": cells,
        "players": players,
        "panels": {"Shop": shop, "Blockades": blockades, "Turn": turn},
    }


def _role(seat: int, roles: Sequence[str]) -> str | None:
    return None if seat < 0 else roles[seat]
