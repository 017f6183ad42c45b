"""The replay viewer's 4X screens of a Terra Nova frame, and the panel of each city, from the state.

A frame lists its screens once (``screens``: title, kind and the static parts) and keeps each
screen's changing body under its own top-level key (``data``), because the frame encoder
(:mod:`hexarena.core.frames`) re-sends a top-level key only when it changed: a step where a city
grew re-sends the Cities body, not the technology tree or the religions. Each city's panel
(buildings, specialists, great works, yields, what it builds) rides on its map cell (``panel``), so
it is re-sent with that cell only.

Screens: technologies, social policies, religion (religions and pantheons, their beliefs, followers
per city and per city state, faith), trade (deals from the ledger, offers, caravan routes),
city states (influence of each player, friends, ally, quest and its leader), demographics, cities,
victory. Kinds are the viewer's (``viewer/static/screens.js``): ``table`` (rows, or titled
sections of rows), ``plots``, ``techtree``, ``policies``, ``citystates``. Everything is named as
the text view names it (tables, ``religion_text``, ``trade_text``), never by id.
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any

import jax
import numpy as np

from hexarena.games.terranova.contract.moves import buildable_names
from hexarena.games.terranova.contract.text.citystates import vote_count
from hexarena.games.terranova.contract.text.policies import (
    YIELDS,
    finisher_effects,
    policy_effects,
    tree_eras,
)
from hexarena.games.terranova.contract.text.religion import tenet_effects
from hexarena.games.terranova.contract.text.trade import item_text
from hexarena.games.terranova.engine import formulas
from hexarena.games.terranova.engine.geometry import tile_text
from hexarena.games.terranova.engine.rules.beliefs import holy_city, religion_counts
from hexarena.games.terranova.engine.rules.policies import adoptable
from hexarena.games.terranova.engine.rules.pressure import city_state_followers
from hexarena.games.terranova.engine.rules.trade import FIRST_RESOURCE, item_names
from hexarena.games.terranova.engine.rules.victory import VICTORIES, delegates, spaceship_mask
from hexarena.games.terranova.engine.state import GameState
from hexarena.games.terranova.engine.tables import (
    FOOD,
    GREAT_WORKS,
    PROD,
    ROLES,
    SPECIALISTS,
    TENET_KINDS,
    citystate_rules,
    load_tables,
)

ROUTE_YIELD_NAMES = (*YIELDS, "influence", "religious pressure")  # trade_routes.route_yields columns
ROUTE_KINDS = ("own", "city state", "foreign")  # trade_routes.route_table's kinds


def words(name: str) -> str:
    return name.replace("_", " ")


def city_name(s: GameState, p: int, c: int) -> str:
    """A city as the text view calls it: owner, slot and place, e.g. ``red city 0 (12, 40)`` (a
    route may still name a city that has since been lost)."""
    if not 0 <= c < s.cities.exists.shape[1] or not s.cities.exists[p, c]:
        return f"{ROLES[p]} city {c} (gone)"
    return f"{ROLES[p]} city {c} {tile_text(int(s.cities.pos[p, c]))}"


def citystate_name(s: GameState, k: int) -> str:
    return f"city state {k} ({citystate_rules()['types'][int(s.citystates.kind[k])]})"


def amounts(values: np.ndarray, names: tuple[str, ...]) -> str:
    """``+2 gold, +0.25 tourism`` for the non-zero values (to two decimals)."""
    return ", ".join(f"{v:+g} {names[i]}" for i, v in enumerate(np.round(values, 2)) if v) or "nothing"


@cache
def tech_tree() -> dict[str, Any]:
    """The technology tree's layout (static): each tech's grid place, era, cost, prerequisites."""
    tb = load_tables()
    doc = json.loads(
        resources.files("hexarena.games.terranova").joinpath("data", "technologies.json").read_text()
    )
    nodes = [
        {
            "name": t["name"],
            "row": t["grid_row"],
            "col": t["grid_col"],
            "era": t["era"],
            "cost": t["cost"],
            "prereqs": [tb.tech(p) for p in t["prerequisites"]],
        }
        for t in doc["technologies"]
    ]
    return {"eras": doc["eras"], "nodes": nodes}


@cache
def policy_trees() -> list[dict[str, Any]]:
    """The social policy trees (static): each tree's era and finisher, each policy's effects and
    prerequisites (policy ids) in table order."""
    tb = load_tables()
    effects = policy_effects()
    return [
        {
            "name": tree,
            "era": era,
            "finisher": finished,
            "policies": [
                {
                    "id": int(i),
                    "name": tb.policy_names[i],
                    "effect": effects[i],
                    "prereqs": [int(q) for q in np.flatnonzero(tb.policy_req[i])],
                }
                for i in np.flatnonzero(tb.policy_tree == t)
            ],
        }
        for t, (tree, era, finished) in enumerate(
            zip(tb.tree_names, tree_eras(), finisher_effects(), strict=True)
        )
    ]


def _technologies(s: GameState) -> dict[str, Any]:
    return {
        "players": {
            role: {
                "known": [int(t) for t in np.flatnonzero(s.players.techs[p])],
                "researching": int(s.players.researching[p]),
            }
            for p, role in enumerate(ROLES)
        }
    }


def _policies(s: GameState, tb: Any) -> dict[str, Any]:
    """Per player: adopted and adoptable policy ids (the step's rule, evaluated in numpy). The
    culture toward the next policy, which changes every turn, goes under a key of its own."""
    have = np.asarray(s.players.policies, bool)
    era = np.max(np.where(np.asarray(s.players.techs, bool), tb.tech_era, 0), axis=-1)
    out = {}
    for p, role in enumerate(ROLES):
        legal = adoptable(have[p], era[p], np)
        out[role] = {
            "adopted": [int(i) for i in np.flatnonzero(have[p])],
            "adoptable": [int(i) for i in np.flatnonzero(legal)],
        }
    culture = {role: round(float(s.players.culture[p]), 1) for p, role in enumerate(ROLES)}
    return {"screen_social_policies": {"players": out}, "screen_policy_culture": {"culture": culture}}


def _cities_count(n: int) -> str:
    return f"{n} city" if n == 1 else f"{n} cities"


def _religion(s: GameState, tb: Any) -> dict[str, Any]:
    """Religion ``r`` is player ``r``'s (its pantheon counts as one for followers, as in the rules):
    who holds what, the holy city, followers in the world and per city and city state, faith."""
    held = np.asarray(s.players.tenets, bool)
    counts = np.asarray(religion_counts(s))  # (6, 3) followers, cities with any, foreign cities led
    holy = np.asarray(holy_city(s))
    religions = []
    for p, role in enumerate(ROLES):
        named = [
            f"{words(tb.tenet_names[t])} ({TENET_KINDS[tb.tenet_kind[t]]})" for t in np.flatnonzero(held[p])
        ]
        religions.append(
            {
                "player": role,
                "faith": round(float(s.players.faith[p]), 1),
                "followers": f"{int(counts[p, 0])} in {_cities_count(int(counts[p, 1]))}"
                if counts[p, 0]
                else "none",
                "holy city": city_name(s, p, int(np.argmax(holy[p]))) if holy[p].any() else "",
                "beliefs": ", ".join(named) or "none",
            }
        )
    effects = tenet_effects()
    beliefs = [
        {
            "belief": words(tb.tenet_names[t]),
            "kind": TENET_KINDS[tb.tenet_kind[t]],
            "held by": ROLES[int(np.argmax(held[:, t]))],
            "effect": effects[t],
        }
        for t in np.flatnonzero(held.any(0))
    ]
    followers = np.where(s.cities.exists[..., None], s.religion.followers, 0)
    per_city = []
    for p, c in zip(*np.nonzero(followers.sum(-1) > 0), strict=True):
        row = followers[p, c]
        top = int(np.argmax(row))
        per_city.append(
            {
                "city": city_name(s, int(p), int(c)),
                "citizens": int(s.cities.pop[p, c]),
                "followers": ", ".join(f"{ROLES[r]} {int(n)}" for r, n in enumerate(row) if n),
                "majority": ROLES[top] if row[top] > s.cities.pop[p, c] / 2 else "none",
            }
        )
    cs = np.asarray(city_state_followers(s))  # (12, 6)
    for k in np.flatnonzero(cs.sum(1) > 0):
        per_city.append(
            {
                "city": citystate_name(s, int(k)),
                "citizens": "",
                "followers": ", ".join(f"{ROLES[r]} {int(n)}" for r, n in enumerate(cs[k]) if n),
                "majority": ROLES[int(np.argmax(cs[k]))],
            }
        )
    return {
        "sections": [
            {"title": "Religions and pantheons", "rows": religions},
            {"title": "Beliefs held", "rows": beliefs},
            {"title": "Followers by city", "rows": per_city},
        ],
        "note": "A religion is named by its founder; a city follows the majority of its citizens.",
    }


def _deal_rows(s: GameState) -> list[dict[str, Any]]:
    """Each running deal once. A deal sits in both partners' ledgers, each side written as (item
    given, item got) and counting down on its own player's turn; the two sides are matched here."""
    ledger, length = np.asarray(s.trade.ledger), np.asarray(s.trade.length)
    rows = []

    def row(a: int, b: int, give: int, get: int, turns: str) -> dict[str, Any]:
        return {
            "player": ROLES[a],
            "gives": item_text(give),
            "to": ROLES[b],
            "for": item_text(get),
            "turns left": turns,
        }

    for p in range(len(ROLES)):
        for q in range(p + 1, len(ROLES)):
            # q's side as p sees it: (p gives, p gets, turns left on q's side)
            theirs = [
                (int(ledger[q, p, j, 1]), int(ledger[q, p, j, 0]), int(length[q, j]))
                for j in np.flatnonzero(ledger[q, p, :, 0] > 0)
            ]
            for j in np.flatnonzero(ledger[p, q, :, 0] > 0):
                give, get, left = int(ledger[p, q, j, 0]), int(ledger[p, q, j, 1]), int(length[p, j])
                match = next((i for i, t in enumerate(theirs) if t[:2] == (give, get)), None)
                other = theirs.pop(match)[2] if match is not None else left
                rows.append(
                    row(p, q, give, get, str(left) if other == left else f"{left} ({ROLES[q]}: {other})")
                )
            rows += [row(q, p, get, give, str(left)) for give, get, left in theirs]  # p's side has ended
    return rows


def _trade(s: GameState) -> dict[str, Any]:
    """Deals (from the ledger), offers waiting for an answer, and caravan routes."""
    tr = s.trade
    offers = [
        {
            "player": ROLES[p],
            "offers": item_text(int(tr.offers[p, q, 0])),
            "to": ROLES[q],
            "for": item_text(int(tr.offers[p, q, 1])),
        }
        for p, q in zip(*np.nonzero(np.asarray(tr.offers)[..., 0] > 0), strict=True)
    ]
    routes = []
    caravan = load_tables().unit("caravan")
    live = (np.asarray(s.units.kind) == caravan) & (np.asarray(tr.route_to_player) >= 0)
    for p, u in zip(*np.nonzero(live), strict=True):
        to, city = int(tr.route_to_player[p, u]), int(tr.route_to_city[p, u])
        kind = 0 if to == p else 1 if to >= len(ROLES) else 2
        origin, dest = tr.route_yields[p, u]
        routes.append(
            {
                "from": city_name(s, int(p), int(tr.route_from_city[p, u])),
                "to": citystate_name(s, to - len(ROLES)) if kind == 1 else city_name(s, to, city),
                "kind": ROUTE_KINDS[kind],
                "origin gets": amounts(origin, ROUTE_YIELD_NAMES),
                "destination gets": amounts(dest, ROUTE_YIELD_NAMES),
                "turns left": int(s.units.engaged_turns[p, u]),
            }
        )
    names = item_names()
    net = [
        {
            "player": role,
            "gold per turn": f"{float(tr.gpt[p]):+g}",
            "resources": ", ".join(
                f"{words(names[FIRST_RESOURCE + r])} {int(n):+d}" for r, n in enumerate(tr.resources[p]) if n
            )
            or "none",
        }
        for p, role in enumerate(ROLES)
        if tr.gpt[p] or np.asarray(tr.resources[p]).any()
    ]
    return {
        "sections": [
            {"title": "Deals", "rows": _deal_rows(s)},
            {"title": "Offers awaiting an answer", "rows": offers},
            {"title": "Net from deals", "rows": net},
            {"title": "Trade routes", "rows": routes},
        ],
        "note": "Deals run 15 turns on each side; a route pays until its caravan acts again.",
    }


def quest_progress(s: GameState, k: int) -> np.ndarray:
    """(6,) each player's progress on city state ``k``'s quest (the trackers the observation shows)."""
    cst = s.citystates
    quest = citystate_rules()["quests"][int(cst.quest[k]) - 1]
    return np.asarray(
        {
            "culture": cst.culture_tracker,
            "faith": cst.faith_tracker,
            "techs": np.asarray(s.players.techs).sum(1) - cst.tech_start,
            "trade_routes": cst.trade_tracker[:, k],
            "religion": cst.religion_tracker,
            "wonders": cst.wonder_tracker,
            "resources": cst.resource_tracker,
        }[quest],
        np.float32,
    )


def citystate_sites(s: GameState) -> list[dict[str, Any]]:
    """What never changes in a game: each city state's name, type and place."""
    rules = citystate_rules()
    return [
        {
            "name": f"city state {k}",
            "type": rules["types"][int(kind)],
            "at": tile_text(int(s.layers.cs_sites[k])),
        }
        for k, kind in enumerate(s.citystates.kind)
    ]


def _citystates(s: GameState) -> dict[str, Any]:
    """Each city state's quest and who leads it, its ally, and the influence and standing of every
    player (-1 not met, 0 neutral, 1 friend, 2 ally), a matrix the viewer draws as bars."""
    rules, cst = citystate_rules(), s.citystates
    met = np.asarray(s.players.have_met)[:, len(ROLES) :]  # (6, 12)
    states = []
    for k in range(len(cst.kind)):
        progress = quest_progress(s, k)
        best = float(progress.max())
        ally = np.flatnonzero(np.asarray(cst.relationship[k]) == 2)
        states.append(
            {
                "quest": words(rules["quests"][int(cst.quest[k]) - 1]),
                "leader": ", ".join(ROLES[p] for p in np.flatnonzero(progress == best)) if best > 0 else "",
                "lead": round(best, 1),
                "ally": ROLES[int(ally[0])] if len(ally) else "",
                "influence": [round(float(v), 1) for v in cst.influence[k]],
                "status": [int(v) if met[p, k] else -1 for p, v in enumerate(cst.relationship[k])],
            }
        )
    return {"states": states}


def _cities(s: GameState) -> dict[str, Any]:
    """The Cities table: a row per city, each linked to its map cell (click: the city's panel)."""
    names = buildable_names()
    rows, cells = [], []
    for p, role in enumerate(ROLES):
        for c in np.flatnonzero(s.cities.exists[p]):
            tile = int(s.cities.pos[p, c])
            item = int(s.cities.constructing[p, c])
            rows.append(
                {
                    "owner": role,
                    "city": int(c),
                    "at": tile_text(tile),
                    "population": int(s.cities.pop[p, c]),
                    "hit points": round(100 * float(s.cities.hp[p, c])),
                    "building": words(names[item]) if item >= 0 else "",
                    "buildings": int(s.cities.buildings[p, c].sum()),
                }
            )
            cells.append(f"t{tile}")
    return {"rows": rows, "cells": cells, "note": "Click a row, or a city on the map, for its panel."}


def city_panels(s: GameState) -> dict[tuple[int, int], dict[str, Any]]:
    """Each city's panel, keyed (player, slot): population and growth, what it builds, yields,
    buildings, specialists by kind, great works in their slots, followers of each religion."""
    tb = load_tables()
    names = buildable_names()
    costs = np.concatenate([tb.building_cost, tb.unit_cost[1:]])
    built = np.asarray(s.cities.buildings, np.float32)
    specialists = built @ tb.building_specialists  # (6, 10, 6): every slot is filled (great_people)
    slots = built @ tb.building_gw_slots  # (6, 10, 4)
    out = {}
    for p, c in zip(*np.nonzero(s.cities.exists), strict=True):
        pop, y = int(s.cities.pop[p, c]), np.asarray(s.cities.yields[p, c])
        item = int(s.cities.constructing[p, c])
        works = s.great.works[p, c]
        kind = "capital" if s.cities.capital[p, c] else "city"
        need = float(formulas.growth_threshold(np.float32(pop)))
        out[(int(p), int(c))] = {
            "title": f"{city_name(s, int(p), int(c))}, {kind}",
            "population": pop,
            "food": f"{float(s.cities.food[p, c]):.0f} of {need:.0f} to grow "
            f"({float(y[FOOD]) - 2 * pop:+.1f} a turn)",
            "builds": f"{words(names[item])}: {float(s.cities.prod[p, c]):.0f} of {costs[item]:.0f} "
            f"production (+{float(y[PROD]):.1f} a turn)"
            if item >= 0
            else "nothing",
            "yields": amounts(y, YIELDS).replace("+", ""),
            "hit points": round(100 * float(s.cities.hp[p, c])),
            "buildings": [words(tb.building_names[b]) for b in np.flatnonzero(s.cities.buildings[p, c])],
            "specialists": ", ".join(
                f"{int(n)} {k}{'s' if n > 1 else ''}"
                for k, n in zip(SPECIALISTS, specialists[p, c], strict=True)
                if n
            )
            or "none",
            "great works": ", ".join(
                f"{k} {int(works[i])} of {int(slots[p, c, i])} slots"
                for i, k in enumerate(GREAT_WORKS)
                if slots[p, c, i] or works[i]
            )
            or "no slots",
            "religion": ", ".join(
                f"{ROLES[r]} {int(n)}" for r, n in enumerate(s.religion.followers[p, c]) if n
            )
            or "no followers",
        }
    return out


Sack = tuple[int, int, int]  # (round, the player who sacked, the player whose capital it was)


def new_sacks(before: np.ndarray, after: np.ndarray, turn: int) -> tuple[Sack, ...]:
    """The capitals sacked between two states' ``has_sacked`` (6, 6), each with the round: the
    state keeps only whether, and the Victory screen tells when (a game's log of them is kept by
    whoever steps it: the adapter, the recorder)."""
    fresh = np.asarray(after, bool) & ~np.asarray(before, bool)
    return tuple((int(turn), int(p), int(q)) for p, q in zip(*np.nonzero(fresh), strict=True))


_delegates = jax.jit(delegates)  # compiled once: the frame's state is numpy, as each frame's


def _victory(s: GameState, sacks: tuple[Sack, ...] = ()) -> dict[str, Any]:
    sacked = np.asarray(s.players.has_sacked)
    alive = np.asarray(s.cities.exists).any(1) | (np.asarray(s.units.kind) > 0).any(1)
    parts = np.asarray(s.cities.buildings)[..., spaceship_mask()].any(1).sum(1)
    tourism, lifetime = np.asarray(s.players.tourism), np.asarray(s.players.culture_total)
    allies = (np.asarray(s.citystates.relationship) == 2).sum(0)
    seated = np.asarray(_delegates(s))
    ahead = ((tourism > lifetime[None, :]) & ~np.eye(len(ROLES), dtype=bool)).sum(1)
    rows = [
        {
            "player": role,
            "science": f"{int(parts[p])} of {int(spaceship_mask().sum())} spaceship parts",
            "domination": f"{int(sacked[p].sum())} of {int(alive.sum()) - 1} rival capitals sacked"
            + "".join(f"; {ROLES[q]}'s in round {r}" for r, by, q in sacks if by == p),
            "culture": f"tourism above the lifetime culture of {int(ahead[p])} rivals",
            "diplomatic": vote_count(int(seated[p]), int(allies[p])),
            "in the game": bool(alive[p]),
        }
        for p, role in enumerate(ROLES)
    ]
    kind = int(s.victory)
    won = f"; {ROLES[int(s.winner)]} won a {VICTORIES[kind]} victory in round {int(s.turn)}"
    ended = won if kind > 0 else ""
    if kind > 0:  # how it was won, in the winner's row of that kind
        ended += ", " + rows[int(s.winner)][VICTORIES[kind]]
    return {"rows": rows, "note": f"round {int(s.turn)} of {int(s.turn_cap)}{ended}"}


# (title, kind, static parts); each screen but Demographics has its body under "screen_..." keys
SCREENS = (
    ("Technologies", "techtree", {"tree": "tech_tree"}),
    ("Social policies", "policies", {"trees": "policy_trees"}),
    ("Religion", "table", {}),
    ("Trade", "table", {}),
    ("City states", "citystates", {"sites": "citystate_sites", "players": list(ROLES)}),
    (
        "Demographics",
        "plots",
        {"fields": ["population", "production", "gold", "science", "culture", "military"]},
    ),
    ("Cities", "table", {}),
    ("Victory", "table", {}),
)


def screens(s: GameState, sacks: tuple[Sack, ...] = ()) -> dict[str, Any]:
    """The frame's screens: the list and the layouts (static), each screen's body under its keys
    (``sacks``: the capitals sacked so far, with their rounds, :func:`new_sacks`)."""
    tb = load_tables()
    rules = citystate_rules()
    key = {title: "screen_" + title.lower().replace(" ", "_") for title, _, _ in SCREENS}
    bodies = {
        "Technologies": {key["Technologies"]: _technologies(s)},
        "Social policies": _policies(s, tb),
        "Religion": {key["Religion"]: _religion(s, tb)},
        "Trade": {key["Trade"]: _trade(s)},
        "City states": {key["City states"]: _citystates(s)},
        "Cities": {key["Cities"]: _cities(s)},
        "Victory": {key["Victory"]: _victory(s, sacks)},
    }
    thresholds = {"friend": rules["friend_influence"], "ally": rules["ally_influence"]}
    listed = [
        {
            "title": title,
            "kind": kind,
            **static,
            **(thresholds if kind == "citystates" else {}),
            **({"data": list(bodies[title])} if title in bodies else {}),
        }
        for title, kind, static in SCREENS
    ]
    return {
        "tech_tree": tech_tree(),
        "policy_trees": policy_trees(),
        "citystate_sites": citystate_sites(s),
        "screens": listed,
        **{k: body for parts in bodies.values() for k, body in parts.items()},
    }
