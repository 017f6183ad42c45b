"""Orders judged one by one, as Freeciv and Civilization do (and a Diplomacy adjudicator voids
only the offending order): every order the player can carry out this turn is kept, every other
one is refused with what is missing ("granary needs pottery"), and the move fails only when it
gave orders and none of them could be read or carried out.

A turn's units act before its cities, so orders may address the city a settle order of the same
turn founds (the first free city slots, in unit order): ``unit 0 settle; city 0 build warrior``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from hexarena.games.terranova.contract.moves import buildable_names
from hexarena.games.terranova.contract.notation import order_texts, unit_text
from hexarena.games.terranova.contract.text.religion import tenet_choices
from hexarena.games.terranova.engine.geometry import COLS, work_area
from hexarena.games.terranova.engine.state import MAX_UNITS
from hexarena.games.terranova.engine.tables import BUILDING_SLOTS, ROLES, SITE_NEEDS, load_tables

TARGET_MASKS = {"move": "reach", "combat": "attack", "send_caravan": "send", "move_caravan": "relocate"}


@dataclass
class Judged:
    """The orders kept (a sparse order-form move), the refused ones as ``"ORDER (why)"``, and the
    city slots this turn's settle orders found."""

    move: dict[str, Any]
    refused: list[str] = field(default_factory=list)
    founding: list[int] = field(default_factory=list)


def _names(mask: np.ndarray, names: tuple[str, ...]) -> str:
    return ", ".join(names[i] for i in np.flatnonzero(mask))


def tech_refusal(techs: list[str], obs: Mapping[str, Any]) -> str:
    """Why none of ``techs`` can be researched: known already, or the technologies each needs."""
    tb = load_tables()
    known = np.asarray(obs["technologies"]) > 0
    why = []
    for name in techs:
        t = tb.tech_names.index(name)
        missing = tb.tech_prereq[t] & ~known
        why.append(
            f"{name} is known already" if known[t] else f"{name} needs {_names(missing, tb.tech_names)}"
        )
    return "; ".join(why)


def build_refusal(item: str, city: int | None, obs: Mapping[str, Any], me: int) -> str | None:
    """What ``item`` needs that city ``city`` (None: a city founded this turn) lacks, or None
    where the tables see nothing missing (a site, resource or cap reason then applies)."""
    tb = load_tables()
    known = np.asarray(obs["technologies"]) > 0
    i = buildable_names().index(item)
    pc = obs["player_cities"]
    if i < BUILDING_SLOTS:
        owned = np.asarray(pc["buildings_owned"]) > 0
        built = owned[city] if city is not None else np.zeros(BUILDING_SLOTS, bool)
        built = built | (owned.any(0) & tb.building_empire_wide)  # the Apollo Program, in any city
        if not tb.buildable[i]:
            return f"{item} cannot be built with production"
        if built[i]:
            where = "city" if city is not None and owned[city, i] else "empire"
            return f"the {where} has a {item} already"
        techs = tb.building_tech[i] & ~known
        if techs.any():
            return f"{item} needs {_names(techs, tb.tech_names)}"
        have = tb.building_req[i] & ~built
        if have.any():
            return f"{item} needs a {_names(have, tb.building_names)} in the city first"
        policies = tb.building_policy[i] & ~(np.asarray(obs["policies"]) > 0)
        if policies.any():
            return f"{item} needs the policy {_names(policies, tb.policy_names)}"
        sites = [SITE_NEEDS[s].replace("_", " ") for s in np.flatnonzero(tb.building_needs[i])]
        resources = _names(tb.building_resource[i], tb.resource_names)
        if tb.building_kind[i] == 1:
            return f"{item} is a world wonder: built or under way elsewhere, or the city lacks its site"
        if tb.building_kind[i] == 2:
            return f"{item} is a national wonder: one per empire, built or under way"
        if sites or resources:
            needs = " and ".join(
                x for x in (f"a site with {', '.join(sites)}" if sites else "", resources) if x
            )
            return f"{item} needs {needs}"
        return None
    u = i - BUILDING_SLOTS + 1
    techs = tb.unit_tech[u] & ~known
    if techs.any():
        return f"{item} needs {_names(techs, tb.tech_names)}"
    if (tb.unit_obsolete[u] & known).any():
        return f"{item} is obsolete (replaced since {_names(tb.unit_obsolete[u] & known, tb.tech_names)})"
    if tb.unit_resource[u].any():
        return f"{item} needs {_names(tb.unit_resource[u], tb.resource_names)} connected to the city"
    kinds = np.asarray(obs["units"]["unit_type"])[me]
    if (kinds > 0).sum() >= MAX_UNITS:
        return f"you have {MAX_UNITS} units or units in training, the most allowed"
    if item == "settler":
        return "a settler needs room for one more city (10 at most, counting settlers)"
    if item == "caravan":
        return "every trade-route slot has a caravan (more routes come with technologies)"
    return None


def _unit_refusal(
    slot: int, order: Mapping[str, Any], obs: Mapping[str, Any], opts: Mapping[str, Any], me: int
) -> str | None:
    tb = load_tables()
    kinds = np.asarray(obs["units"]["unit_type"])[me]
    if kinds[slot] <= 0:
        have = ", ".join(f"{i} {tb.unit_names[k]}" for i, k in enumerate(kinds) if k > 0)
        return f"you have no unit {slot} (your units: {have or 'none'})"
    name = tb.unit_names[kinds[slot]]
    busy = int(np.asarray(obs["units"]["engaged_for_n_turns"])[slot])
    if busy > 0:
        job = tb.category_names[int(np.asarray(obs["units"]["engaged_action_id"])[slot])]
        return f"the {name} is busy: {job}, {busy} turn{'s' if busy != 1 else ''} left"
    cat = tb.category_names.index(order["category"])
    if not opts["categories"][slot][cat]:
        can = [tb.category_names[c] for c in np.flatnonzero(opts["categories"][slot])]
        what = "found a city here" if order["category"] == "settle" else order["category"].replace("_", " ")
        return f"the {name} cannot {what} now (it can: {', '.join(can) or 'nothing'})"
    if "target" in order:
        tile = target_tile(order["target"])
        mask = np.asarray(opts[TARGET_MASKS[order["category"]]][slot])
        if not mask[tile]:
            listed = "its Reach line" if order["category"] == "move" else "its Can line"
            where = f"({tile // COLS}, {tile % COLS})"
            return f"{where} is not one of its {int(mask.sum())} targets ({listed} lists them)"
    return None


def target_tile(target: Any) -> int:
    """A target as a tile index (orders give ``[row, col]``, JSON moves either)."""
    if isinstance(target, (list, tuple)):
        return int(target[0]) * COLS + int(target[1])
    return int(target)


def judge(move: Mapping[str, Any], obs: Mapping[str, Any], opts: Mapping[str, Any], me: int) -> Judged:
    """Keep the orders of ``move`` (order form, places as ``[row, col]``) that player ``me`` can
    carry out now; refuse the others with their reasons."""
    tb = load_tables()
    kept: dict[str, Any] = {"fill": move["fill"]}
    out = Judged(kept, [f"{text} ({why})" for text, why in move.get("unread", ())])

    def refuse(order: Mapping[str, Any], why: str) -> None:
        out.refused.append(f"{'; '.join(order_texts({'fill': 1, **order}))} ({why})")

    if "tech" in move:
        if any(opts["techs"][tb.tech_names.index(t)] for t in move["tech"]):
            kept["tech"] = move["tech"]
        else:
            refuse({"tech": move["tech"]}, tech_refusal(move["tech"], obs))
    if "policy" in move:
        if any(opts["policies"][tb.policy(p)] for p in move["policy"]):
            kept["policy"] = move["policy"]
        else:
            legal = _names(opts["policies"], tb.policy_names) or "none"
            refuse({"policy": move["policy"]}, f"not adoptable now; adoptable now: {legal}")
    if "tenet" in move:
        choices = tenet_choices(obs, me)
        if any(choices[tb.tenet(t)] for t in move["tenet"]):
            kept["tenet"] = move["tenet"]
        else:
            can = _names(choices, tb.tenet_names) or "none"
            refuse({"tenet": move["tenet"]}, f"none can be taken now; can choose: {can}")
    _judge_trade(move.get("trade", {}), obs, opts, me, kept, refuse)
    free_slots = [int(c) for c in np.flatnonzero(np.asarray(obs["player_cities"]["city_ids"])[me] <= 0)]
    for slot, order in move.get("units", {}).items():
        why = _unit_refusal(int(slot), order, obs, opts, me)
        if why:
            out.refused.append(f"{unit_text(slot, order)} ({why})")
            continue
        kept.setdefault("units", {})[slot] = order
        if order["category"] == "settle" and len(out.founding) < len(free_slots):
            out.founding.append(free_slots[len(out.founding)])
    exists = np.asarray(obs["player_cities"]["city_ids"])[me] > 0
    names = buildable_names()
    for slot, items in move.get("build", {}).items():
        c = int(slot)
        if c in out.founding:
            why = [build_refusal(i, None, obs, me) for i in items]
            ok = [i for i, w in zip(items, why, strict=True) if w is None]
        elif exists[c]:
            ok = [i for i in items if opts["build"][c][names.index(i)]]
            why = [build_refusal(i, c, obs, me) or f"{i} cannot be started there now" for i in items]
        else:
            refuse({"build": {slot: items}}, _no_city(c, exists))
            continue
        if ok:
            kept.setdefault("build", {})[slot] = ok
        else:
            refuse({"build": {slot: items}}, "; ".join(w for w in why if w))
    for slot, places in move.get("work_tiles", {}).items():
        c = int(slot)
        if c in out.founding:
            refuse(
                {"work_tiles": {slot: places}}, f"city {c} is founded this turn: choose its tiles next turn"
            )
        elif not exists[c]:
            refuse({"work_tiles": {slot: places}}, _no_city(c, exists))
        else:
            slots = _work_slots(c, places, obs, me)
            if isinstance(slots, str):
                refuse({"work_tiles": {slot: places}}, slots)
            else:
                kept.setdefault("work", {})[slot] = slots
    return out


def _work_slots(c: int, places: list[list[int]], obs: Mapping[str, Any], me: int) -> list[int] | str:
    """City ``c``'s work-area slots of ``places``, or why one of them cannot be worked."""
    pc = obs["player_cities"]
    row, col = (int(v) for v in np.asarray(pc["city_rowcols"])[me, c])
    ring = list(work_area()[row * COLS + col, 1:])
    owned = np.asarray(pc["ownership_map"])[me, c].reshape(-1)
    picks = []
    for r, cc in places:
        tile = r * COLS + cc
        if tile not in ring or owned[tile] != 2:
            return f"({r}, {cc}) is not a tile city {c} owns (its Worked and Free tiles lines list them)"
        picks.append(ring.index(tile))
    return picks


def _no_city(c: int, exists: np.ndarray) -> str:
    have = ", ".join(str(i) for i in np.flatnonzero(exists)) or "none"
    return f"you have no city {c} (your cities: {have}; a settle order this turn founds the next)"


def _judge_trade(
    trade: Mapping[str, Any],
    obs: Mapping[str, Any],
    opts: Mapping[str, Any],
    me: int,
    kept: dict[str, Any],
    refuse: Any,
) -> None:
    from hexarena.games.terranova.engine.rules.trade import item_names

    items = item_names()
    out: dict[str, Any] = {}
    if "to" in trade:
        offer = {k: trade[k] for k in ("to", "offer", "ask")}
        q, give, want = trade["to"][0], trade["offer"][0], trade["ask"][0]
        if not opts["trade_partners"][q]:
            refuse({"trade": offer}, f"{ROLES[q]} cannot take an offer now: {_no_partner(q, obs, me)}")
        elif not opts["trade_offer"][q][items.index(give)]:
            refuse({"trade": offer}, f"you cannot give {give} now (at war only peace; a resource you have)")
        elif not opts["trade_ask"][q][items.index(want)]:
            refuse({"trade": offer}, f"{ROLES[q]} cannot give {want} now")
        else:
            out.update(offer)
    offers = np.asarray(obs["trade_offers"])
    for key in ("accept", "deny"):
        for q in trade.get(key, ()):
            if offers[q, 0] < 0:
                refuse({"trade": {key: [q]}}, f"{ROLES[q]} has made you no offer")
            else:
                out.setdefault(key, []).append(q)
    if out:
        kept["trade"] = out


def _no_partner(q: int, obs: Mapping[str, Any], me: int) -> str:
    """Why player ``q`` cannot take ``me``'s offer, as far as ``me`` can know (a rival's ledger is
    hidden)."""
    if q == me:
        return "that is you"
    if not np.asarray(obs["have_met"])[q]:
        return f"you have not met {ROLES[q]} yet"
    if (np.asarray(obs["trade_length_ledger"]) > 0).all():
        return "your ledger is full (10 running deals)"
    return f"{ROLES[q]} has no free ledger slot or nothing it could give you"
