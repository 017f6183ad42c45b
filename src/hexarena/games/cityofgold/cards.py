"""Card tables of City of Gold, loaded from ``data/cards.json``.

Cards are integer ids (the index into every card-count vector); the tables below are plain
tuples indexed by id so that the scalar engine and the later batched engines read the same data.
"""

from __future__ import annotations

import json
from importlib import resources
from typing import Any

N_CARDS = 21
N_SHOP = 18
HAND_SIZE = 4
MARKET_SLOTS = 6

SPECIAL_NONE, SPECIAL_TRANSMIT, SPECIAL_DRAW, SPECIAL_NATIVE = 0, 1, 2, 3
_SPECIALS = {None: SPECIAL_NONE, "transmit": SPECIAL_TRANSMIT, "draw": SPECIAL_DRAW, "native": SPECIAL_NATIVE}


def _load() -> dict[str, Any]:
    return json.loads(resources.files(__package__).joinpath("data/cards.json").read_text())


_DATA = _load()
_CARDS = sorted(_DATA["cards"], key=lambda c: c["id"])
if [c["id"] for c in _CARDS] != list(range(N_CARDS)):
    raise RuntimeError("cards.json must list card ids 0..20 exactly once")

NAMES: tuple[str, ...] = tuple(c["name"] for c in _CARDS)
#: (machete, paddle, coin) a card gives when played for movement; jokers give their amount in all three.
RESOURCES: tuple[tuple[int, int, int], ...] = tuple(
    (c["machete"] + c["joker"], c["paddle"] + c["joker"], c["coin"] + c["joker"]) for c in _CARDS
)
IS_JOKER: tuple[bool, ...] = tuple(c["joker"] > 0 for c in _CARDS)
#: Money when played in the buying phase, in half coins: coin value (or joker amount) or 1/2.
MONEY2: tuple[int, ...] = tuple(2 * (c["coin"] + c["joker"]) if c["coin"] + c["joker"] else 1 for c in _CARDS)
COST: tuple[int, ...] = tuple(c["cost"] if c["cost"] is not None else 0 for c in _CARDS)
SINGLE_USE: tuple[bool, ...] = tuple(bool(c["single_use"]) for c in _CARDS)
SPECIAL: tuple[int, ...] = tuple(_SPECIALS[c["special"]] for c in _CARDS)
DRAW: tuple[int, ...] = tuple(c["draw"] for c in _CARDS)
REMOVE: tuple[int, ...] = tuple(c["remove"] for c in _CARDS)
HAS_RESOURCES: tuple[bool, ...] = tuple(any(r) for r in RESOURCES)

SHOP_CARDS: tuple[int, ...] = tuple(NAMES.index(n) for n in _DATA["shop_order"])
"""Card id of each shop index (the 0.0.3 shop order)."""
SHOP_INDEX: dict[int, int] = {card: s for s, card in enumerate(SHOP_CARDS)}
START_MARKET: tuple[bool, ...] = tuple(_CARDS[c]["market"] for c in SHOP_CARDS)
COPIES = int(_DATA["copies_per_type"])
STARTER_DECK: tuple[int, ...] = tuple(_DATA["starter_deck"].get(n, 0) for n in NAMES)

if len(SHOP_CARDS) != N_SHOP or sum(START_MARKET) != MARKET_SLOTS or _DATA["hand_size"] != HAND_SIZE:
    raise RuntimeError("cards.json: the shop needs 18 types with 6 in the starting market")

_BY_NAME = {n.lower(): i for i, n in enumerate(NAMES)}


def card_id(name: str) -> int:
    """The id of a card from its name (case-insensitive), e.g. ``card_id("scout") == 1``."""
    try:
        return _BY_NAME[name.strip().lower()]
    except KeyError:
        raise ValueError(f"unknown card {name!r}; cards are: {', '.join(NAMES)}") from None


def describe(card: int) -> str:
    """A one-line description of a card for text renderings."""
    m, p, c = RESOURCES[card]
    if IS_JOKER[card]:
        what = f"joker {m}"
    elif SPECIAL[card] == SPECIAL_TRANSMIT:
        what = "take any shop card free"
    elif SPECIAL[card] == SPECIAL_NATIVE:
        what = "move 1 hex ignoring its cost"
    elif SPECIAL[card] == SPECIAL_DRAW:
        what = f"draw {DRAW[card]}" + (f", remove up to {REMOVE[card]}" if REMOVE[card] else "")
    else:
        what = ", ".join(
            f"{v} {k}" for v, k in zip((m, p, c), ("machete", "paddle", "coin"), strict=True) if v
        )
    cost = f"cost {COST[card]}" if COST[card] else "starter"
    return f"{NAMES[card]} ({what}; {cost}{'; single use' if SINGLE_USE[card] else ''})"
