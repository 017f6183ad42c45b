"""Helpers for City of Gold rule tests: games set up in a chosen position."""

from __future__ import annotations

from hexarena.games.cityofgold import cards as C
from hexarena.games.cityofgold.board import COIN, MACHETE, NEIGHBORS, PADDLE, REMOVE
from hexarena.games.cityofgold.board import DISCARD as REQ_DISCARD
from hexarena.games.cityofgold.engine import HAND, Game, new_game


def set_hand(g: Game, **cards: int) -> None:
    """Give the player to act exactly these hand cards (from the draw pile, then the shop)."""
    zones = g.zones[g.player]
    for k in range(C.N_CARDS):
        zones[0][k] += zones[HAND][k]
        zones[HAND][k] = 0
    for name, n in cards.items():
        k = C.card_id(name.replace("_", " "))
        take = min(n, zones[0][k])
        zones[0][k] -= take
        if n > take:  # the rest comes out of the shop, so cards stay conserved
            s = C.SHOP_INDEX[k]
            g.shop[s] -= n - take
            g.market[s] = g.market[s] and g.shop[s] > 0
        zones[HAND][k] = n


def place_for(g: Game, kind: int, amount: int | None = None, pawn: int = 0) -> tuple[int, int]:
    """Put the mover's pawn next to an ungated, empty hex of requirement ``kind``; (pawn cell, dir)."""
    gates = g.gate
    occupied = g.occupied()
    for cell in g.course.cells():
        if not g.course.passable(cell) or cell in occupied:
            continue
        for d, n in enumerate(NEIGHBORS[cell]):
            if n < 0 or n in occupied or cell * 6 + d in gates:
                continue
            if g.course.req_kind[n] == kind and (amount is None or g.course.req_amount[n] == amount):
                g.pawns[g.player][pawn] = cell
                return cell, d
    raise LookupError(f"no hex of kind {kind} amount {amount} on this course")


def full_course_game(n_players: int = 4):
    """A game whose course has every requirement kind (scans seeds deterministically)."""
    for seed in range(200):
        g = new_game(seed, n_players=n_players, n_pieces=4, difficulty="hard")
        kinds = {g.course.req_kind[c] for c in g.course.cells()}
        if {MACHETE, PADDLE, COIN, REQ_DISCARD, REMOVE} <= kinds:
            return g
    raise AssertionError("no seed with every hex kind")
