"""What a player may order this turn as whole moves, and what the default would do.

:func:`legal_orders` is the numbered list a model picks from: order-form moves (``"fill"``), one
order each, every one accepted (built from the same options the orders are judged by), written
in the orders' notation so ``#6`` teaches an order the model can type itself. :func:`default_text`
resolves the default's preferences (the heuristic bot's, :func:`~.bots.heuristic.default_orders`)
against the options: the orders ``pass`` would give.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from hexarena.games.terranova.contract.judge import TARGET_MASKS
from hexarena.games.terranova.contract.judge import target_tile as _tile
from hexarena.games.terranova.contract.moves import buildable_names
from hexarena.games.terranova.contract.notation import VERBS, place
from hexarena.games.terranova.contract.orders import FILL
from hexarena.games.terranova.engine.geometry import COLS
from hexarena.games.terranova.engine.tables import ROLES, load_tables

NOTHING = "none this turn (builds under way; units without a target in reach stay)"
MOVES_PER_UNIT = 4  # move orders listed per unit (its best reachable tiles; the view lists all)
BUILDS_PER_CITY = 6  # builds listed per idle city, cheapest first
TECHS_LISTED = 5


def _costs() -> np.ndarray:
    tb = load_tables()
    return np.concatenate([tb.building_cost, tb.unit_cost[1:]])


def legal_orders(
    obs: Mapping[str, Any], opts: Mapping[str, Any], me: int, best_reach: Any
) -> list[dict[str, Any]]:
    """Pass first, then research, unit, city, policy and trade orders; ``best_reach(slot)``
    ranks a unit's reachable tiles (the text view's order)."""
    tb = load_tables()
    moves: list[dict[str, Any]] = [{"fill": FILL}]
    one = lambda **order: moves.append({"fill": FILL, **order})  # noqa: E731
    if int(obs["is_researching"]) < 0:
        techs = np.flatnonzero(opts["techs"])
        for t in techs[np.argsort(tb.tech_cost[techs], kind="stable")][:TECHS_LISTED]:
            one(tech=[tb.tech_names[t]])
    kinds = np.asarray(obs["units"]["unit_type"])[me]
    for s in np.flatnonzero(kinds > 0):
        cats = np.flatnonzero(opts["categories"][s])
        for c in cats:
            name = tb.category_names[c]
            if name not in TARGET_MASKS:
                one(units={str(s): {"category": name}})
            elif name == "move":
                here = [int(v) for v in np.asarray(obs["units"]["unit_rowcol"])[me, s]]
                stay = [here[0] * COLS + here[1]] if opts["reach"][s][here[0] * COLS + here[1]] else []
                for t in [*best_reach(int(s))[:MOVES_PER_UNIT], *stay]:  # the last: it holds its tile
                    one(units={str(s): {"category": name, "target": [t // COLS, t % COLS]}})
            else:
                for t in np.flatnonzero(opts[TARGET_MASKS[name]][s]):
                    one(units={str(s): {"category": name, "target": [int(t) // COLS, int(t) % COLS]}})
    pc = obs["player_cities"]
    names, costs = buildable_names(), _costs()
    for c in np.flatnonzero(np.asarray(pc["city_ids"])[me] > 0):
        if int(pc["is_constructing"][c]) >= 0:
            continue  # a started build is locked: an order now only matters later
        items = np.flatnonzero(opts["build"][c])
        for b in items[np.argsort(costs[items], kind="stable")][:BUILDS_PER_CITY]:
            one(build={str(c): [names[b]]})
    if float(obs["culture_reserves"]) >= float(obs["culture_threshold"]) or int(obs["free_policies"]):
        for p in np.flatnonzero(opts["policies"]):
            one(policy=[tb.policy_names[p]])
    for q in np.flatnonzero(np.asarray(obs["trade_offers"])[:, 0] >= 0):
        one(trade={"accept": [int(q)]})
        one(trade={"deny": [int(q)]})
    return moves


def _first(ranked: Any, index: Any, mask: Any) -> Any:
    """The first of ``ranked`` whose ``index(x)`` is set in ``mask``, or None."""
    return next((x for x in ranked if mask[index(x)]), None)


def default_text(default: Mapping[str, Any], obs: Mapping[str, Any], opts: Mapping[str, Any], me: int) -> str:
    """The orders the default's preferences come to now (what ``pass`` does), in the orders'
    notation: the research, each idle unit's action, each idle city's build, offers answered."""
    tb = load_tables()
    out = []
    if int(obs["is_researching"]) < 0:
        tech = _first(default.get("tech", []), tb.tech_names.index, opts["techs"])
        out += [f"research {tech}"] if tech else []
    founding = 0
    for slot, order in default.get("units", {}).items():
        s = int(slot)
        cats = [order["category"]] if "category" in order else order.get("categories", [])
        targets = [order["target"]] if "target" in order else order.get("targets", [])
        cat = _first(cats, tb.category_names.index, opts["categories"][s])
        if cat is None:
            continue
        if cat in TARGET_MASKS:
            tile = _first(targets, _tile, opts[TARGET_MASKS[cat]][s])
            if tile is None:
                continue
            out.append(f"unit {s} {VERBS[cat]} {place(tile)}")
        else:
            founding += cat == "settle"
            out.append(f"unit {s} {'settle' if cat == 'settle' else 'build ' + cat}")
    pc = obs["player_cities"]
    names = buildable_names()
    exists = np.asarray(pc["city_ids"])[me] > 0
    new = list(np.flatnonzero(~exists)[:founding])
    for slot, items in default.get("build", {}).items():
        c = int(slot)
        if exists[c] and int(pc["is_constructing"][c]) < 0:
            item = _first(items, names.index, opts["build"][c])
            out += [f"city {c} build {item} (locked until done)"] if item else []
        elif c in new and items:
            out.append(f"city {c} build {items[0]} (the city founded this turn; locked until done)")
    trade = default.get("trade", {})
    for key in ("accept", "deny"):
        offers = np.asarray(obs["trade_offers"])[:, 0] >= 0
        who = [q for q in trade.get(key, []) if offers[int(q)]]
        if who:
            out.append(f"{key} {', '.join(ROLES[int(q)] for q in who)}")
    return "; ".join(out) or NOTHING
