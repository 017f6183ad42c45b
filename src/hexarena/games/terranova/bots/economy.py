"""The strategic bot's economy: what its cities build, what they work, and what it can afford.

A building is worth the yields it would add to the city that builds it, as the tables the engine
applies say (flat yields, yields per citizen, percent of what the city makes now), each yield
weighted by the plan's :data:`~.strategy.PLAN_WEIGHTS` and by the empire's needs
(:func:`yield_weights`: gold counts more while the budget is thin, happiness more while the
empire is unhappy), minus its upkeep in gold. A building whose worth is not above its upkeep is
never queued: no courthouse, stable or harbor that only costs upkeep (their effects act through
nothing the bot values), unless its tables change to give yields. Its plan adds what the yields
do not show (:data:`~.strategy.PLAN_BUILDINGS`: spaceship parts, great-work slots, delegates).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from hexarena.games.terranova.engine import formulas
from hexarena.games.terranova.engine.state import MAX_CITIES
from hexarena.games.terranova.engine.tables import BUILDING_SLOTS, N_BUILDABLES, load_tables

GOLD, HAPPY = 2, 6
THIN_TREASURY = 60.0  # below this, or with a deficit, gold counts for more
RICH_SURPLUS = 5.0  # gold a turn to spare (treasury included) above which gold counts for less
UNHAPPY_WEIGHT = 0.25  # happiness's weight grows by this share per unhappy point
WONDER_VALUE = 2.0  # a world wonder's score (10 points) and what it denies the others
MIN_VALUE = 0.25  # a building must be worth this much per turn beyond its upkeep
SPEND_ROUNDS = 30  # the treasury is spent over the rounds left, but at least over this many
HAPPY_PER_GOLD = 1.0  # happiness a gold of upkeep that an unhappy empire builds beyond its budget
GROWN_POP = 3  # a building per citizen is valued at least at this size (it stands for 300 rounds)


def empire_yield(obs: dict[str, Any], me: int, kind: int) -> float:
    """What ``me``'s cities make a turn of yield ``kind`` (FOOD .. HAPPY order)."""
    pc = obs["player_cities"]
    mine = np.asarray(pc["city_ids"])[me] > 0
    return float(np.asarray(pc["yields"])[: len(mine), kind][mine].sum())


def net_gold(obs: dict[str, Any], me: int) -> float:
    """Gold per turn as the bot can see it: its cities' gold, less building and unit upkeep."""
    pc = obs["player_cities"]
    mine = np.asarray(pc["city_ids"])[me] > 0
    income = empire_yield(obs, me, GOLD)
    upkeep = float(np.asarray(pc["bldg_maintenance"])[: len(mine)][mine].sum())
    units = int((np.asarray(obs["units"]["unit_type"])[me] > 0).sum())
    return income - upkeep - float(formulas.unit_upkeep(units, int(obs["current_turn"])))


def unit_gold(obs: dict[str, Any]) -> float:
    """Gold a turn one more unit costs now (about 1.4 at round 70, 1.8 at 100, 4.7 at 300)."""
    turn = int(obs["current_turn"])
    return float(formulas.unit_upkeep(3, turn) - formulas.unit_upkeep(2, turn))


def spendable(obs: dict[str, Any], me: int) -> float:
    """Gold a turn the bot may spend on upkeep: its net gold plus its treasury beyond
    ``THIN_TREASURY`` spread over the rounds left to the cap (at least :data:`SPEND_ROUNDS`). No
    endpoint buys anything, so gold left in the treasury at the cap is gold wasted."""
    rounds = max(int(load_tables().rules["turn_cap"]) - int(obs["current_turn"]), SPEND_ROUNDS)
    reserve = max(float(np.asarray(obs["treasury"])) - THIN_TREASURY, 0.0)
    return net_gold(obs, me) + reserve / rounds


def yield_weights(obs: dict[str, Any], me: int, plan_weights: np.ndarray) -> np.ndarray:
    """(8,) worth of one unit of each yield a turn: the plan's, raised where the empire is short.
    Gold counts less while the treasury pays for more upkeep (:func:`spendable`); happiness more
    the deeper the empire is below zero (each unhappy point costs 2 % of production and gold)."""
    w = np.array(plan_weights, dtype=float)
    gold = net_gold(obs, me)
    treasury = float(np.asarray(obs["treasury"]))
    if gold < 2 or treasury < THIN_TREASURY:
        w[GOLD] *= 3.0 if gold < 0 else 2.0
    elif spendable(obs, me) > RICH_SURPLUS:
        w[GOLD] *= 0.25  # gold it cannot spend: upkeep for happiness, science or culture is cheap
    happiness = float(np.asarray(obs["happiness"]))
    if happiness < 4:
        w[HAPPY] *= 3.0 + UNHAPPY_WEIGHT * max(-happiness, 0.0) if happiness < 0 else 2.0
    return w


def building_values(
    obs: dict[str, Any], me: int, city: int, weights: np.ndarray, plan_items: np.ndarray
) -> np.ndarray:
    """(148,) what each building would add to city ``city`` a turn, upkeep deducted, in the units
    of ``weights``; ``plan_items`` (148,) adds the plan's worth of what the yields do not show."""
    tb = load_tables()
    pc = obs["player_cities"]
    pop = max(float(np.asarray(pc["population"])[me][city]), GROWN_POP)
    made = np.zeros(8)
    made[:7] = np.asarray(pc["yields"])[city][:7]
    gain = tb.building_yields + tb.building_per_pop * pop + tb.building_percent / 100.0 * made
    value = gain @ weights + plan_items
    value = value + WONDER_VALUE * (tb.building_kind == 1)
    return value - tb.building_upkeep * weights[GOLD]


def budget(obs: dict[str, Any], me: int, city: int) -> float:
    """Gold a turn left for new upkeep: :func:`spendable` less the upkeep of the buildings its
    other cities are building now (city ``city``'s own is the one being chosen)."""
    tb = load_tables()
    pc = obs["player_cities"]
    mine = np.asarray(pc["city_ids"])[me] > 0
    item = np.asarray(pc["is_constructing"])[: len(mine)].copy()
    item[city] = -1
    under_way = item[mine & (item >= 0) & (item < BUILDING_SLOTS)]
    return spendable(obs, me) - float(tb.building_upkeep[under_way].sum())


def affordable(obs: dict[str, Any], me: int, city: int, value: np.ndarray) -> np.ndarray:
    """(148,) which buildings to queue in city ``city``: worth more than ``MIN_VALUE`` beyond
    their upkeep, and either free to keep, paying their upkeep back in the city's gold, within
    the :func:`budget`, or, while the empire is unhappy, giving :data:`HAPPY_PER_GOLD` happiness
    a gold of upkeep (a colosseum, a theatre; not the courthouse's 2 for 4). Before, a building
    was held back only once the treasury was spent: seed 0's bots queued courthouses, granaries
    and libraries on a treasury of 50-170 and a growing deficit (10-24 gold a turn by round 100),
    and by round 100 five of six had none left (the deficit then comes out of science)."""
    tb = load_tables()
    upkeep = tb.building_upkeep
    city_gold = float(np.asarray(obs["player_cities"]["yields"])[city][GOLD])
    pays = tb.building_yields[:, GOLD] + tb.building_percent[:, GOLD] / 100.0 * city_gold >= upkeep
    happy = tb.building_yields[:, HAPPY]
    unhappy = float(np.asarray(obs["happiness"])) < 0
    calming = unhappy & (happy > 0) & (happy >= HAPPY_PER_GOLD * upkeep)
    return (value > MIN_VALUE) & ((upkeep == 0) | pays | calming | (upkeep <= budget(obs, me, city)))


def ranked_buildings(
    obs: dict[str, Any], me: int, city: int, weights: np.ndarray, plan_items: np.ndarray, legal: np.ndarray
) -> list[str]:
    """The buildings city ``city`` should build, best value per production first (only those
    ``legal`` (148,) there now and :func:`affordable`)."""
    tb = load_tables()
    value = building_values(obs, me, city, weights, plan_items)
    ok = legal & affordable(obs, me, city, value)
    cost = np.maximum(tb.building_cost, 1.0)
    rate = value / cost
    idx = np.flatnonzero(ok)
    return [tb.building_names[b] for b in idx[np.argsort(-rate[idx], kind="stable")]]


def legal_buildables(opts: dict[str, Any] | None, city: int) -> np.ndarray:
    """(185,) what city ``city`` may build now (everything when the options are not known)."""
    if opts is None:
        return np.ones(N_BUILDABLES, bool)
    return np.asarray(opts["build"])[city].astype(bool)


def constructing_counts(obs: dict[str, Any], me: int, item: int) -> int:
    """How many of ``me``'s cities are building buildable ``item`` now."""
    pc = obs["player_cities"]
    mine = np.asarray(pc["city_ids"])[me] > 0
    return int((np.asarray(pc["is_constructing"])[:MAX_CITIES][mine] == item).sum())


def unit_item(name: str) -> int:
    """The buildable index of unit ``name`` (as ``is_constructing`` counts)."""
    return BUILDING_SLOTS + load_tables().unit(name) - 1
