"""Invariants of a City of Gold game, checked after every action by the tests.

Cards are conserved (zones + shop + removed), pawns never share or stand on closed hexes, the
zones and phases agree, the market is consistent and finished games are zero-sum.
"""

from __future__ import annotations

from hexarena.games.cityofgold import cards as C
from hexarena.games.cityofgold.actions import Phase
from hexarena.games.cityofgold.engine import ACTIVE, ARRIVED, PLAYED, Game


def card_totals(g: Game) -> list[int]:
    """Copies of each card in all zones, the shop and removed (constant over a game)."""
    totals = g.removed[:]
    for zs in g.zones:
        for z in zs:
            for k in range(C.N_CARDS):
                totals[k] += z[k]
    for s, card in enumerate(C.SHOP_CARDS):
        totals[card] += g.shop[s]
    return totals


def initial_totals(n_players: int) -> list[int]:
    return [n_players * C.STARTER_DECK[k] + (C.COPIES if k in C.SHOP_INDEX else 0) for k in range(C.N_CARDS)]


def check_invariants(g: Game) -> None:
    """Raise AssertionError if the state breaks a rule of the game (used by the tests)."""
    assert card_totals(g) == initial_totals(g.n_players), "cards are not conserved"
    assert all(v >= 0 for zs in g.zones for z in zs for v in z), "negative card count"
    cells = [c for pawns in g.pawns for c in pawns if c != ARRIVED]
    assert len(cells) == len(set(cells)), "two pawns share a hex"
    assert all(g.course.passable(c) or c in g.course.starts for c in cells), "pawn on an impassable hex"
    for p, zs in enumerate(g.zones):
        if p != g.player or g.phase in (Phase.BUYING, Phase.DONE):
            assert not any(zs[ACTIVE]), "active cards outside the mover's movement phase"
        if p != g.player:
            assert not any(zs[PLAYED]), "played cards left after a turn"
    assert sum(g.zones[g.player][ACTIVE]) <= 1, "more than one active card"
    assert sum(g.market) <= C.MARKET_SLOTS, "market overfull"
    assert all(not m or g.shop[s] > 0 for s, m in enumerate(g.market)), "empty stack in the market"
    assert g.done == (g.phase == Phase.DONE), "done flag and phase disagree"
    assert all(v >= 0 for v in g.res) and g.money2 >= 0, "negative resources"
    if g.done and not g.truncated:
        assert abs(sum(g.rewards)) < 1e-9 and g.winners, "rewards not zero-sum"
