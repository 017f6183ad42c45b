"""A City of Gold policy that ranks the legal flat actions by a learned linear score of move features.

Each legal action gets a feature vector read from the scalar engine's :class:`Game` (what the
heuristic bot weighs, :mod:`hexarena.games.cityofgold.bot`, as separate numbers): how much
closer a step gets by the bot's cost-weighted plan, what it pays (resources, cards discarded
or removed, a blockade), how far a card would carry a pawn, a card's value for the terrain
still ahead, its price, the money left, the deck's size, which card is bought. The policy
plays ``argmax_a w . phi(a)``; the features sit in one block per kind of decision, so one
weight vector :data:`FEATURES` long covers the whole turn. :mod:`.cog_es` learns the weights
(from a fit to the heuristic's own choices, then evolution strategies on wins against it).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from hexarena.games.cityofgold import cards as C
from hexarena.games.cityofgold.actions import DISCARD, MOVE, PASS, PLAY, REMOVE, SHOP, SPECIAL, Phase
from hexarena.games.cityofgold.board import COIN, FINISH
from hexarena.games.cityofgold.board import DISCARD as REQ_DISCARD
from hexarena.games.cityofgold.bot import (
    _THIN_ORDER,
    _step_cost,
    _terrain_ahead,
    card_value,
    plan,
    run_length,
)
from hexarena.games.cityofgold.engine import ARRIVED, Game, legal_mask
from hexarena.rl.ranking import MoveRanking, columns

_SHOP_NAMES = tuple(C.NAMES[k].lower().replace(" ", "_").replace("-", "_") for k in C.SHOP_CARDS)
BLOCKS: dict[str, tuple[str, ...]] = {
    "move": (
        "bias",
        "gain",
        "closer",
        "arrive",
        "blockade",
        "resource",
        "discard_cards",
        "remove_cards",
        "leftover",
        "trailing",
        "native",
    ),
    "play": ("bias", "run", "single_use", "money", "price", "value"),
    "special": ("draw", "native", "transmit", "thin", "deck"),
    "end_move": ("bias", "hand", "best_run", "money"),
    "spend": ("play", "discard", "money", "useless", "value", "wanted"),
    "buy": ("bias", "value", "price", "money_left", "deck", "turn", "free", *_SHOP_NAMES),
    "end_buy": ("bias", "money", "hand"),
    "thin": ("remove", "value", "starter", "deck", "keep", "keep_deck"),
    "give": ("value", "starter", "money"),
}
OFFSET, _COL, FEATURES = columns(BLOCKS)
_STARTERS = frozenset(k for k in range(C.N_CARDS) if C.STARTER_DECK[k]) | frozenset(_THIN_ORDER)


def move_features(g: Game, legal: list[int]) -> np.ndarray:
    """``(len(legal), FEATURES)``: one row per legal flat action of the player to act."""
    phi = np.zeros((len(legal), FEATURES), np.float32)
    dist = plan(g)
    ahead = _terrain_ahead(g, dist)
    hand = g.hand()
    deck = sum(sum(z) for z in g.zones[g.player])
    pawns = [c for c in g.pawns[g.player] if c != ARRIVED]
    occupied = g.occupied()
    runs: dict[int, int] = {}

    def run(k: int) -> int:
        if k not in runs:
            runs[k] = max(
                (run_length(g, c, list(C.RESOURCES[k]), dist, occupied - {c}) for c in pawns), default=0
            )
        return runs[k]

    phase = g.phase
    for i, a in enumerate(legal):
        row = phi[i]
        if a == PASS:
            _pass(row, g, phase, hand, deck, run)
        elif a < SPECIAL:
            k = a - PLAY
            if phase == Phase.MOVEMENT:
                c = _COL["play"]
                row[c["bias"]] = 1
                row[c["run"]] = run(k) / 4
                row[c["single_use"]] = C.SINGLE_USE[k]
                row[c["money"]] = C.MONEY2[k] / 8
                row[c["price"]] = C.COST[k] / 5
                row[c["value"]] = card_value(k, ahead) / 3
            else:
                _spend(row, "play", k, ahead, run)
        elif a < MOVE:
            k, c = a - SPECIAL, _COL["special"]
            row[c["draw"]] = C.SPECIAL[k] == C.SPECIAL_DRAW
            row[c["native"]] = C.SPECIAL[k] == C.SPECIAL_NATIVE
            row[c["transmit"]] = C.SPECIAL[k] == C.SPECIAL_TRANSMIT
            row[c["thin"]] = C.REMOVE[k] / 2
            row[c["deck"]] = deck / 20
        elif a < SHOP:
            _move(row, g, (a - MOVE) // 6, (a - MOVE) % 6, dist, pawns)
        elif a < REMOVE:
            _buy(row, g, a - SHOP, ahead, deck, phase == Phase.TRANSMIT)
        elif a < DISCARD:
            k = a - REMOVE
            if phase == Phase.REMOVE:
                c = _COL["thin"]
                row[c["remove"]] = 1
                row[c["value"]] = card_value(k, ahead) / 3
                row[c["starter"]] = k in _STARTERS
                row[c["deck"]] = deck / 20
            else:
                _give(row, k, ahead)
        elif phase == Phase.BUYING:
            _spend(row, "discard", a - DISCARD, ahead, run)
        else:
            _give(row, a - DISCARD, ahead)
    if phase == Phase.BUYING:  # what the heuristic buys for: is any card worth buying affordable?
        wanted = max(
            (card_value(C.SHOP_CARDS[a - SHOP], ahead) for a in legal if SHOP <= a < REMOVE), default=0
        )
        phi[:, _COL["spend"]["wanted"]] = (
            wanted / 3 * (phi[:, _COL["spend"]["play"]] + phi[:, _COL["spend"]["discard"]])
        )
    return phi


def _pass(row: np.ndarray, g: Game, phase: int, hand: list[int], deck: int, run: Any) -> None:
    if phase == Phase.MOVEMENT:
        c = _COL["end_move"]
        row[c["bias"]] = 1
        row[c["hand"]] = sum(hand) / 4
        row[c["best_run"]] = (
            max((run(k) for k in range(C.N_CARDS) if hand[k] and C.HAS_RESOURCES[k]), default=0) / 4
        )
        row[c["money"]] = (g.money2 + sum(C.MONEY2[k] * hand[k] for k in range(C.N_CARDS))) / 16
    elif phase == Phase.BUYING:
        c = _COL["end_buy"]
        row[c["bias"]] = 1
        row[c["money"]] = g.money2 / 8
        row[c["hand"]] = sum(hand) / 4
    elif phase == Phase.REMOVE:
        c = _COL["thin"]
        row[c["keep"]] = 1
        row[c["keep_deck"]] = deck / 20
    # TRANSMIT and NATIVE passes score 0: the other options are measured against giving up


def _spend(row: np.ndarray, how: str, k: int, ahead: list[float], run: Any) -> None:
    c = _COL["spend"]
    row[c[how]] = 1
    row[c["money"]] = C.MONEY2[k] / 8 if how == "play" else 0
    row[c["useless"]] = C.HAS_RESOURCES[k] and run(k) == 0
    row[c["value"]] = card_value(k, ahead) / 3


def _give(row: np.ndarray, k: int, ahead: list[float]) -> None:
    c = _COL["give"]
    row[c["value"]] = card_value(k, ahead) / 3
    row[c["starter"]] = k in _STARTERS
    row[c["money"]] = C.MONEY2[k] / 8


def _buy(row: np.ndarray, g: Game, s: int, ahead: list[float], deck: int, free: bool) -> None:
    c = _COL["buy"]
    card = C.SHOP_CARDS[s]
    row[c["bias"]] = 1
    row[c["value"]] = card_value(card, ahead) / 3
    row[c["price"]] = C.COST[card] / 5
    row[c["money_left"]] = 0 if free else (g.money2 - 2 * C.COST[card]) / 8
    row[c["deck"]] = deck / 20
    row[c["turn"]] = g.turn / 40
    row[c["free"]] = free
    row[c[_SHOP_NAMES[s]]] = 1


def _move(row: np.ndarray, g: Game, pawn: int, d: int, dist: list[float], pawns: list[int]) -> None:
    c = _COL["move"]
    cell = g.pawns[g.player][pawn]
    n, kind, amount, blocked = _step_cost(g, cell, d)
    row[c["bias"]] = 1
    gain = 0.0 if blocked else dist[cell] - dist[n]
    row[c["gain"]] = max(min(gain, 10.0), -10.0) / 5
    row[c["closer"]] = gain > 0
    row[c["arrive"]] = not blocked and g.course.terrain[n] == FINISH
    row[c["blockade"]] = blocked
    native = g.phase == Phase.NATIVE
    row[c["native"]] = native
    if native:
        return
    if kind <= COIN:
        row[c["resource"]] = 1
        row[c["leftover"]] = (g.res[kind - 1] - amount) / 3
    elif kind == REQ_DISCARD:
        row[c["discard_cards"]] = amount / 2
    else:
        row[c["remove_cards"]] = amount / 2
    row[c["trailing"]] = len(pawns) > 1 and dist[cell] >= max(dist[p] for p in pawns)


class RankingPolicy(MoveRanking):
    """``weights`` (length :data:`FEATURES`) over :func:`move_features`."""

    GAME, TITLE, BLOCKS, COLUMNS, FEATURES = "cityofgold", "City of Gold", BLOCKS, _COL, FEATURES

    def choose(self, g: Game, rng: np.random.Generator | None = None) -> int:
        """The best-scored legal flat action (the first on ties), or one drawn from the softmax."""
        legal = [a for a, ok in enumerate(legal_mask(g)) if ok]
        if len(legal) == 1:
            return legal[0]
        return self.pick(legal, move_features(g, legal), rng)
