"""Moves of the game-contract adapter: one player's full preference tuple, or a sparse form.

The sparse form is a JSON object; every key is optional, and anything left out scores zero::

    {"tech": ["writing", "pottery"],                      # ranked, names or indices
     "policy": ["tradition"],                             # ranked (the first adoptable wins)
     "tenet": ["god_king", "tithe"],                      # ranked (taken when faith allows)
     "units": {"0": {"category": "settle"},               # slot -> category (name or index)
               "1": {"category": "move", "target": 1234},   # and target tile (index or [row, col])
               "2": {"categories": ["combat", "move"],      # or ranked categories
                     "targets": [1300, 1234]}},             # and ranked target tiles
     "build": {"0": ["worker", "monument"]},              # city slot -> ranked buildables
     "work": {"0": [3, 7, 1]},                            # city slot -> ranked work-area slots 0..35
     "trade": {"to": [2, 4],                              # ranked counterparties (players 0..5)
               "ask": ["peace", "iron"],                  # ranked items to receive (or {"2": [...]})
               "offer": ["gold_per_turn"],                # ranked items to give
               "accept": [1]}}                            # players whose offers to accept (rest denied)

Ranked lists become descending scores, so the first item that is legal wins. A work ranking is
spread over the city's citizens: the k-th citizen prefers the k-th slot listed, then the ones
after it (then the unlisted slots), so citizens work different tiles where they own them (each
citizen takes its best owned slot, and two picking the same one would leave one idle). A dense move is the
spec's nested tuple (as nested lists) without the leading device and game axes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from hexarena.core.contract import quote_reply
from hexarena.core.errors import IllegalMoveError
from hexarena.core.frozen import thaw
from hexarena.games.terranova.engine.geometry import COLS, N_TILES, ROWS
from hexarena.games.terranova.engine.rules.trade import ACCEPT, N_ITEMS, item_names
from hexarena.games.terranova.engine.rules.units import SETTLE
from hexarena.games.terranova.engine.spaces import ACTION_SHAPES, N_CITIZENS, map_shapes
from hexarena.games.terranova.engine.state import MAX_CITIES, MAX_UNITS, N_PLAYERS
from hexarena.games.terranova.engine.tables import N_BUILDABLES, load_tables

SPARSE_KEYS = ("tech", "policy", "tenet", "units", "build", "work", "trade")
TRADE_KEYS = ("to", "ask", "offer", "accept", "deny")
#: Keys of the orders form (``"fill": "heuristic"``, what :func:`.orders.parse_orders` writes).
ORDER_KEYS = (*SPARSE_KEYS, "fill", "work_tiles")
#: Unit categories whose order may name a target tile in the orders form.
TARGETED = ("move", "combat", "send_caravan", "move_caravan")


def buildable_names() -> tuple[str, ...]:
    tb = load_tables()
    return (*tb.building_names, *tb.unit_names[1:])


def _index(value: Any, names: Sequence[str], size: int, what: str) -> int:
    if isinstance(value, str) and value in names:
        return names.index(value)
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < size:
        return value
    raise IllegalMoveError(f"unknown {what} {value!r}")


def _ranked(values: Any, names: Sequence[str], size: int, what: str) -> np.ndarray:
    if not isinstance(values, (list, tuple)):
        raise IllegalMoveError(f"{what} preferences must be a list, got {values!r}")
    scores = np.zeros(size, np.float32)
    for rank, v in enumerate(values):
        scores[_index(v, names, size, what)] = len(values) - rank
    return scores


def _mapping(value: Any, what: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise IllegalMoveError(f"{what} must be an object of slot -> order, got {value!r}")
    return value


def _slot(key: Any, size: int, what: str) -> int:
    if isinstance(key, bool) or not isinstance(key, int | str):
        raise IllegalMoveError(f"{what} slot must be a number, got {key!r}")
    try:
        i = int(key)
    except ValueError:
        raise IllegalMoveError(f"{what} slot must be a number, got {key!r}") from None
    if not 0 <= i < size:
        raise IllegalMoveError(f"{what} slot {i} out of range 0..{size - 1}")
    return i


def _tile(value: Any) -> int:
    if isinstance(value, (list, tuple)) and len(value) == 2:
        row, col = value
        if not all(isinstance(v, int) and not isinstance(v, bool) for v in value):
            raise IllegalMoveError(f"target [row, col] must be two numbers, got {value!r}")
        if not (0 <= row < ROWS and 0 <= col < COLS):
            raise IllegalMoveError(
                f"target {value!r} is off the map (rows 0..{ROWS - 1}, cols 0..{COLS - 1})"
            )
        value = row * COLS + col
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < N_TILES:
        return value
    raise IllegalMoveError(f"target must be a tile index or [row, col], got {value!r}")


def expand_sparse(move: Mapping[str, Any]) -> tuple:
    """The dense preference tuple of a sparse move."""
    tb = load_tables()
    unknown = set(move) - set(SPARSE_KEYS)
    if unknown:
        raise IllegalMoveError(f"unknown keys {sorted(unknown)}; a sparse move uses {list(SPARSE_KEYS)}")
    dense = map_shapes(lambda s: np.zeros(s, np.float32))
    tech = dense[3]
    if "tech" in move:
        tech[:] = _ranked(move["tech"], tb.tech_names, tb.n_techs, "technology")
    if "policy" in move:
        dense[1][:] = _ranked(move["policy"], tb.policy_names, dense[1].shape[0], "policy")
    if "tenet" in move:
        dense[2][:] = _ranked(move["tenet"], tb.tenet_names, dense[2].shape[0], "tenet")
    utype, utarget = dense[4]
    for key, order in _mapping(move.get("units", {}), "units").items():
        slot = _slot(key, MAX_UNITS, "unit")
        if not isinstance(order, Mapping):
            raise IllegalMoveError(f"unit order must be an object, got {order!r}")
        unknown_order = set(order) - {"category", "categories", "target", "targets"}
        if unknown_order:
            raise IllegalMoveError(f"unknown unit order keys {sorted(unknown_order)}")
        if "category" in order:
            cat = _index(order["category"], tb.category_names, len(tb.category_names), "action category")
            utype[slot, cat] = 1.0
        if "categories" in order:
            utype[slot] = _ranked(order["categories"], tb.category_names, len(tb.category_names), "category")
        if "target" in order:
            utarget[slot, _tile(order["target"])] = 1.0
        if "targets" in order:
            tiles = order["targets"]
            if not isinstance(tiles, (list, tuple)):
                raise IllegalMoveError(f"targets must be a list of tiles, got {tiles!r}")
            for rank, tile in enumerate(tiles):
                utarget[slot, _tile(tile)] = len(tiles) - rank
    worked, build = dense[5]
    names = buildable_names()
    for key, order in _mapping(move.get("build", {}), "build").items():
        build[_slot(key, MAX_CITIES, "city")] = _ranked(order, names, N_BUILDABLES, "buildable")
    for key, order in _mapping(move.get("work", {}), "work").items():
        ranked = _ranked(order, (), N_CITIZENS, "work-area slot")
        worked[_slot(key, MAX_CITIES, "city")] = spread_over_citizens(ranked)
    if "trade" in move:
        _trade_scores(move["trade"], dense[0])
    return dense


def _trade_scores(order: Any, dense: tuple) -> None:
    """Fill the trade endpoint's scores (accept/deny, ask, offer, counterparty) from a sparse order."""
    if not isinstance(order, Mapping):
        raise IllegalMoveError(f"trade order must be an object, got {order!r}")
    unknown = set(order) - set(TRADE_KEYS)
    if unknown:
        raise IllegalMoveError(f"unknown trade keys {sorted(unknown)}; a trade order uses {list(TRADE_KEYS)}")
    accept_deny, ask, offer, counterparty = dense
    items = item_names()
    players = tuple(str(i) for i in range(N_PLAYERS))
    if "to" in order:
        to = order["to"] if isinstance(order["to"], (list, tuple)) else [order["to"]]
        counterparty[:] = _ranked(
            [str(v) if isinstance(v, int) else v for v in to], players, N_PLAYERS, "player"
        )
    if "ask" in order:
        wanted = order["ask"]
        if isinstance(wanted, Mapping):
            for key, ranked in wanted.items():
                ask[_slot(key, N_PLAYERS, "player")] = _ranked(ranked, items, N_ITEMS, "trade item")
        else:
            ask[:] = _ranked(wanted, items, N_ITEMS, "trade item")[None, :]
    if "offer" in order:
        offer[:] = _ranked(order["offer"], items, N_ITEMS, "trade item")
    for key, column in (("accept", ACCEPT), ("deny", 1 - ACCEPT)):
        who = order.get(key, [])
        if not isinstance(who, (list, tuple)):
            raise IllegalMoveError(f"trade {key} must be a list of players, got {who!r}")
        for q in who:
            accept_deny[_slot(q, N_PLAYERS, "player"), column] = 1.0


def spread_over_citizens(ranked: np.ndarray) -> np.ndarray:
    """(36 citizens, 36 slots) scores from one ranking of slots (descending scores, zero unlisted):
    citizen k's favourite is the k-th slot of the full order (the listed ones, then the rest by
    index), followed by the slots after it, wrapping round."""
    full = np.argsort(-ranked, kind="stable")  # listed first, the unlisted (zero) in slot order
    n = len(full)
    shift = (np.arange(n)[:, None] + np.arange(n)[None, :]) % n  # citizen k, preference rank r
    scores = np.zeros((n, n), np.float32)
    np.put_along_axis(scores, full[shift], np.arange(n, 0, -1, dtype=np.float32)[None, :], axis=1)
    return scores


def _check_dense(move: Sequence[Any]) -> tuple:
    def convert(x: Any, shapes: Any) -> Any:
        if isinstance(shapes, tuple) and all(isinstance(d, int) for d in shapes):
            try:
                arr = np.asarray(x, np.float32)
            except (TypeError, ValueError):
                got = quote_reply(str(x))
                raise IllegalMoveError(f"expected numbers of shape {shapes}, got {got}") from None
            if arr.shape != shapes or not np.isfinite(arr).all():
                raise IllegalMoveError(f"expected finite scores of shape {shapes}, got {arr.shape}")
            return arr
        if not isinstance(x, (list, tuple)) or len(x) != len(shapes):
            raise IllegalMoveError("a dense move must follow the spec's nested action tuple")
        return tuple(convert(a, s) for a, s in zip(x, shapes, strict=True))

    return convert(move, ACTION_SHAPES)


def to_dense(move: Any) -> tuple:
    """Dense preference tuple of any accepted move (raises IllegalMoveError otherwise)."""
    if isinstance(move, (list, tuple)):  # nested lists, tuples or arrays: checked leaf by leaf
        return _check_dense(move)
    move = thaw(move)
    if isinstance(move, Mapping):
        return expand_sparse(move)
    raise IllegalMoveError(
        f"a Terra Nova move is a sparse object or the dense tuple, got {type(move).__name__}"
    )


def check_move(move: Any) -> None:
    """Raise IllegalMoveError naming the first part of ``move`` that no Terra Nova move can have (a
    wrong type, an unknown name, a slot or tile out of range), so that a reply is refused whole
    when it is read and nothing malformed reaches the step. Whether the orders can be carried out
    now is the step's question (:func:`.orders.check_orders`), not this one."""
    move = thaw(move)
    if isinstance(move, Mapping) and "fill" in move:
        _check_orders_form(move)
    else:
        to_dense(move)


def _check_orders_form(move: Mapping[str, Any]) -> None:
    """The orders form is the sparse form plus ``fill`` and ``work_tiles``, with names (not
    indices) for what the order check quotes back, and one counterparty, offer and ask a trade."""
    unknown = set(move) - set(ORDER_KEYS)
    if unknown:
        raise IllegalMoveError(f"unknown keys {sorted(unknown)}; an orders move uses {list(ORDER_KEYS)}")
    expand_sparse({k: v for k, v in move.items() if k not in ("fill", "work_tiles")})
    for key in ("tech", "policy", "tenet"):
        _names(move.get(key, []), key)
    for slot, order in move.get("units", {}).items():
        if set(order) - {"category", "target"} or not isinstance(order.get("category"), str):
            shape = "{'category': NAME, 'target': TILE}"
            raise IllegalMoveError(f"unit {slot}: an order is {shape}, got {order!r}")
        if "target" in order and order["category"] not in TARGETED:
            raise IllegalMoveError(f"unit {slot}: {order['category']} takes no target")
    for items in move.get("build", {}).values():
        _names(items, "build")
    for slot, places in _mapping(move.get("work_tiles", {}), "work_tiles").items():
        _slot(slot, MAX_CITIES, "city")
        if not isinstance(places, list) or not all(isinstance(p, list) for p in places):
            raise IllegalMoveError(f"work_tiles of city {slot} must be a list of [row, col], got {places!r}")
        for place in places:
            _tile(place)
    trade = move.get("trade", {})
    if {"to", "offer", "ask"} & set(trade):
        for key in ("to", "offer", "ask"):
            if not isinstance(trade.get(key), list) or len(trade[key]) != 1:
                raise IllegalMoveError(f"a trade offer needs 'to', 'offer' and 'ask', one each: {trade!r}")
        _names(trade["offer"] + trade["ask"], "trade item")
    for key in ("to", "accept", "deny"):
        if not all(isinstance(q, int) and not isinstance(q, bool) for q in trade.get(key, [])):
            raise IllegalMoveError(f"trade {key} names players by number 0..{N_PLAYERS - 1}: {trade[key]!r}")


def _names(values: Any, what: str) -> None:
    if not all(isinstance(v, str) for v in values):
        raise IllegalMoveError(f"{what} orders name their items, got {values!r}")


def sparse_from_dense(
    dense: tuple,
    obs: Mapping[str, Any],
    opts: Mapping[str, Any],
    trade: bool = False,
) -> dict[str, Any]:
    """A sparse move that the resolver executes as ``dense`` (a learnt policy's or the random
    player's scores), a few hundred numbers instead of a hundred thousand: full rankings (option
    indices, best first) of every endpoint for the player's own units and cities; each unit's
    legal targets ranked by its target scores; the build rankings of the city slots its settlers
    may fill this move (a city founded takes the lowest free slot and starts its first build at
    once); the trade endpoint's rankings too where ``trade`` is set (else the move offers nothing
    and denies every offer)."""
    deal, policy, tenet, tech, (categories, targets), (worked, build) = dense
    me = int(obs["player_id"])

    def order(scores: np.ndarray) -> list[int]:
        return [int(i) for i in np.argsort(-np.asarray(scores), kind="stable")]

    units = {}
    for slot in np.flatnonzero(np.asarray(obs["units"]["unit_type"])[me] > 0):
        legal = np.zeros(np.shape(opts["reach"])[1], bool)
        for key in ("reach", "attack", "relocate", "send"):
            legal |= np.asarray(opts[key][slot], bool)
        unit: dict[str, Any] = {"categories": order(categories[slot])}
        if legal.any():
            tiles = np.flatnonzero(legal)
            unit["targets"] = [int(tiles[i]) for i in order(np.asarray(targets[slot])[tiles])]
        units[str(slot)] = unit
    cities = np.flatnonzero(np.asarray(obs["player_cities"]["city_ids"])[me] > 0)
    founders = int(np.asarray(opts["categories"])[:, SETTLE].sum())
    new_cities = [c for c in range(MAX_CITIES) if c not in cities][:founders]
    move: dict[str, Any] = {
        "tech": order(tech),
        "policy": order(policy),
        "tenet": order(tenet),
        "units": units,
        "build": {str(c): order(build[c]) for c in (*cities, *new_cities)},
        "work": {str(c): [int(j) for j in np.argmax(worked[c], axis=1)] for c in cities},  # citizen k's first
    }
    if trade:
        accept_deny, ask, offer, counterparty = (np.asarray(x) for x in deal)
        accepted = accept_deny[:, ACCEPT] > accept_deny[:, 1 - ACCEPT]
        move["trade"] = {
            "to": order(counterparty),
            "ask": {str(q): order(ask[q]) for q in range(N_PLAYERS)},
            "offer": order(offer),
            "accept": [int(q) for q in np.flatnonzero(accepted)],
            "deny": [int(q) for q in np.flatnonzero(~accepted)],
        }
    return move
