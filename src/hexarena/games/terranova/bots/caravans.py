"""The heuristic bot's caravans: when to build one and where to send it.

A route to a city state pays little gold but 1.5 influence a round against a decay of 1
(:mod:`.trade_routes`, :mod:`.citystates`), and influence is what makes a city state a friend
(30: yields in the capital) or an ally (60: yields in every city); a city state whose quest is
trade routes gives +30 influence at the quest's end to the player with the most routes to it.
So a caravan goes, best first, to a city state whose trade-route quest it can win, then to the
city state it is closest to befriending or allying (the next threshold within reach), then to
any city state, then to a foreign city (more gold and some science), then to one of its own.

A bot whose plan is diplomacy (allies are its votes) routes for alliances instead
(:func:`diplomat_values`): to a city state nobody holds, the nearer the ally threshold the better,
then to one a rival holds, then to one it holds by a thin margin, each more by
:data:`QUEST_BONUS` where the quest is trade routes and it can win it (+30 at the quest's end,
just before a Congress session) and less for every route of its own already running there
(its caravans spread over the city states rather than pile onto one: seed 3's bots held 668
influence on one city state and no ally elsewhere). One it holds by
:data:`SAFE_MARGIN` is worth less than any city: when that caravan's 14 turns end, it is sent on
to the next city state, since 60 influence decays for 40 rounds or more before the ally is lost.
So is one a rival holds against :data:`OUTBID_MARGIN` of its own (outbid by a margin it cannot
see: the rival's routes there outpace its own; a rival that stopped sending them loses a point a
round, so short of that it keeps contesting).
A strategic bot of another plan does not contest a city state a rival holds (the rival's
influence is unknown and a route there buys nothing until it is beaten), nor pile routes onto one
it holds safely (seed 0's science bot had 874 influence on its one ally); a foreign city pays
it more.

A science plan sends its caravans to foreign cities first (:data:`RESEARCH_ROUTE`): such a route
pays the origin 2 science per 10 techs it knows, multiplied by the origin's libraries to
laboratories (12 a route at 60 techs, before them), where a city state's friendship pays 2 science
in the capital and its alliance 1 a city. Research is a science plan's critical path (the science
seats of seeds 6 and 12 ended the cap one tech and one part short with every route at a city
state). A conqueror's cities (a rival that has sacked a capital) come last of the foreign ones: its
wars destroy the routes.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from hexarena.games.terranova.bots.steps import free_reach
from hexarena.games.terranova.engine.geometry import COLS, N_TILES, distance_np
from hexarena.games.terranova.engine.rules.citystates import quest_index
from hexarena.games.terranova.engine.state import N_PLAYERS
from hexarena.games.terranova.engine.tables import citystate_rules, load_tables

# a destination's base worth by kind; the city-state bonuses below are added to it
OWN, FOREIGN, CITY_STATE = 1.0, 2.0, 3.0
QUEST_BONUS = 4.0  # its quest is trade routes and nobody has more routes to it than we do
THRESHOLD_BONUS = 2.0  # scaled by how close the next relationship threshold is (1 = at it)
HELD_ELSEWHERE = 1.5  # a non-diplomat's worth of a city state a rival holds: below a foreign city
SAFE_MARGIN = 40.0  # influence beyond the ally threshold at which a diplomat's route moves on
OUTBID_MARGIN = 80.0  # influence beyond the threshold at which it gives up a rival's city state
SAFE = 0.5  # a diplomat's worth of a city state it holds safely: below its own cities
UNHELD, CONTESTED, THIN = 6.0, 4.5, 4.0  # a diplomat's worth of a city state by who holds it
ROUTE_SHARE = 1.5  # less per route of its own already running to the city state
RESEARCH_ROUTE = 10.0  # a science plan's worth of a foreign city at peace: above every city state


def _tiles(rowcol: np.ndarray) -> np.ndarray:
    return rowcol[..., 0] * COLS + rowcol[..., 1]


def free_route_slots(obs: dict[str, Any], me: int) -> int:
    """The trade-route slots (``num_trade_routes``) no caravan of ``me``'s alive holds."""
    caravans = int((np.asarray(obs["units"]["unit_type"])[me] == load_tables().unit("caravan")).sum())
    return max(int(obs["num_trade_routes"]) - caravans, 0)


def wants_caravan(obs: dict[str, Any], me: int) -> bool:
    """Whether a caravan is worth queueing: a route slot free (:func:`free_route_slots`; the build
    cap counts those under way) and someone to trade with (a city state seen, or a second city of
    its own)."""
    cs_seen = (np.asarray(obs["citystate_info"]["city_rowcols"])[:, 0] >= 0).any()
    cities = int((np.asarray(obs["player_cities"]["city_ids"])[me] > 0).sum())
    return free_route_slots(obs, me) > 0 and bool(cs_seen or cities >= 2)


def winnable_trade_quests(info: dict[str, Any]) -> np.ndarray:
    """(12,) bool: the city states whose quest is trade routes and where nobody has more than one
    route more than ``me`` (``info``: its ``citystate_info``), so a route there may win the +30."""
    trade_quest = np.asarray(info["quest_type"]) == quest_index("trade_routes")
    mine, lead = np.asarray(info["trade_tracker_mine"]), float(info["trade_tracker_lead"])
    return trade_quest & (mine >= lead - 1)


def destination_values(
    obs: dict[str, Any], me: int, plan: str | None = None, slot: int | None = None
) -> np.ndarray:
    """(H,) what a route to each tile's city is worth to ``me``'s caravan in ``slot`` (0 where there
    is no known city); ``plan`` None is the ``easy`` bot's valuation, ``"diplomatic"``
    :func:`diplomat_values` for the city states."""
    rules = citystate_rules()
    value = np.zeros(N_TILES)
    pc = obs["player_cities"]
    ids, rowcols = np.asarray(pc["city_ids"]), np.asarray(pc["city_rowcols"])
    foreign = np.full(N_PLAYERS, FOREIGN)
    if plan == "science":  # research routes, a conqueror's cities last (its wars destroy them)
        foreign[~np.asarray(obs["has_sacked"]).any(1)] = RESEARCH_ROUTE
    for q in range(N_PLAYERS):
        tiles = _tiles(rowcols[q][ids[q] != -1])
        value[tiles[tiles >= 0]] = OWN if q == me else foreign[q]
    info = obs["citystate_info"]
    sites = _tiles(np.asarray(info["city_rowcols"]))
    if plan == "diplomatic":
        value[sites[sites >= 0]] = diplomat_values(obs, me, slot)[sites >= 0]
        return value
    influence = np.asarray(info["influence_level"], dtype=float)
    quest = winnable_trade_quests(info)
    ally = np.asarray(info["relationships"])
    safe = influence >= rules["ally_influence"] + SAFE_MARGIN
    for k in np.flatnonzero(sites >= 0):
        if plan is not None and (ally[k] not in (-1, me) or safe[k]):
            value[sites[k]] = HELD_ELSEWHERE if ally[k] != me else SAFE
            continue
        worth = CITY_STATE + QUEST_BONUS * quest[k]
        for threshold in (rules["friend_influence"], rules["ally_influence"]):
            if influence[k] < threshold:
                worth += THRESHOLD_BONUS * max(0.0, 1 - (threshold - influence[k]) / threshold)
                break
        value[sites[k]] = worth
    return value


def diplomat_values(obs: dict[str, Any], me: int, slot: int | None = None) -> np.ndarray:
    """(12,) a diplomat's worth of a route to each city state (see the module's docstring); routes
    of its caravans other than ``slot`` count against their city state."""
    info = obs["citystate_info"]
    influence = np.asarray(info["influence_level"], dtype=float)
    ally = np.asarray(info["relationships"])
    threshold = citystate_rules()["ally_influence"]
    worth = np.where(ally == -1, UNHELD + np.clip(influence / threshold, 0, 1), CONTESTED)
    worth = np.where(influence >= threshold + OUTBID_MARGIN, SAFE, worth)  # outbid by far
    worth = np.where(ally == me, np.where(influence >= threshold + SAFE_MARGIN, SAFE, THIN), worth)
    to = np.asarray(obs["units"]["trade_to_player_int"]) - N_PLAYERS
    if slot is not None:
        to = np.delete(to, slot)
    routes = np.bincount(to[to >= 0], minlength=len(worth))[: len(worth)]
    worth = worth + QUEST_BONUS * (winnable_trade_quests(info) & (worth > SAFE))
    return np.maximum(worth - ROUTE_SHARE * routes, SAFE)


def caravan_order(
    obs: dict[str, Any], me: int, pos: int, opts: dict[str, Any] | None, slot: int, plan: str | None = None
) -> dict[str, Any]:
    """The order of the caravan in ``slot`` on tile ``pos``: send it to the best destination it may
    reach (with options: those listed for it; without: known cities within 15 tiles, the
    resolver skipping the others), else hold its tile (a route starts only from its owner's
    city: with no order it walked off to the first tile in its reach)."""
    value = destination_values(obs, me, plan, slot)
    if opts is not None:
        can = np.asarray(opts["send"][slot], bool)
    else:
        can = (value > 0) & (distance_np(np.arange(N_TILES), pos) < load_tables().rules["trade_route_range"])
        can[pos] = False
    idx = np.flatnonzero(can)
    targets = [int(t) for t in idx[np.argsort(-value[idx], kind="stable")]]
    reach = free_reach(obs, me, slot, opts)
    stay = [pos] if reach is None or reach[pos] else [int(t) for t in np.flatnonzero(reach)[:1]]
    targets = targets[:11]
    return {
        "categories": ["send_caravan", "move"],
        "targets": [*targets, *(t for t in stay if t not in targets)],
    }
