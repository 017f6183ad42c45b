"""The strategic bot's plan: which victory to play for, and what that plan wants researched,
adopted, valued and built.

Each victory has a progress the bot can read off its observation (:func:`progress`: techs known
for science, tourism against each rival's lifetime culture for culture, delegates and allied city
states for diplomacy, rival capitals sacked for domination) and an aptitude (:func:`aptitude`:
whether its science pays for the spaceship's remaining research by the cap, leading the literacy,
culture or soldier demographics, friends and allies, a rival capital in reach and the gold to
pay for an army; for diplomacy, the city states its caravans reach, while no rival holds more
of them as allies: the allies are public, so the diplomats of a game thin out to the leader, as
the conquerors do to the strongest, and it does not split the city states with four others).
The bot plays the plan with the most progress plus aptitude (science's progress is its reach alone:
techs known are worth nothing if the spaceship stays out of reach), keeping the one it plays unless another
leads it by :data:`SWITCH_MARGIN` (a plan is not dropped on one bad turn, and is dropped when the
bot falls behind in what it needs).
"""

from __future__ import annotations

from functools import cache
from typing import Any

import numpy as np

from hexarena.games.terranova.bots import economy, military
from hexarena.games.terranova.bots.steps import territory
from hexarena.games.terranova.engine.geometry import COLS, distance_np
from hexarena.games.terranova.engine.rules.victory import VICTORIES
from hexarena.games.terranova.engine.state import N_PLAYERS
from hexarena.games.terranova.engine.tables import SCIENCE, citystate_rules, load_tables

PLANS = VICTORIES[1:]  # science, domination, culture, diplomatic
SWITCH_MARGIN = 0.15
PLAN_ITEM_VALUE = 6.0  # worth per turn of a building the plan needs for what no yield shows
SCIENCE_TECHS = 75  # the techs a spaceship needs
WAR_ROUND = 60  # no conquest plan before this round (the land is still being settled)
DIPLOMACY_ROUND = 50  # nor a diplomatic one before this (its cities and the city states' sites)
RACE_ALLIES = 2  # a rival with this many allies, and more than the bot, leads the diplomatic race
DIPLOMACY_REACH = 8  # city states within its caravans' range for a full diplomatic aptitude
# tourism onto every rival below this share of its lifetime culture: no culture plan (the best
# seat of 20 games came to 8 % at round 300, every great-work slot holding a work; a culture empire
# with 15 of the wonders would be two to three times short: benchmarks/README.md)
CULTURE_REACH = 0.25
ARMY_PURSE = 20.0  # gold a turn to spare that pays for a conquering army (five more units)
# yield weights per plan: food, production, gold, faith, culture, science, happiness, tourism
PLAN_WEIGHTS = {
    "science": np.array([1.0, 1.0, 0.6, 0.3, 0.6, 1.6, 1.0, 0.2]),
    "culture": np.array([1.0, 1.0, 0.6, 0.5, 1.6, 0.7, 1.0, 1.6]),
    "diplomatic": np.array([1.0, 1.0, 1.2, 0.4, 0.8, 0.8, 1.0, 0.3]),
    "domination": np.array([1.0, 1.6, 0.9, 0.3, 0.5, 1.2, 1.0, 0.1]),
}
# buildings a plan needs for what their yields do not show (parts, great-work slots, delegates,
# a diplomat's trade-route slots)
PLAN_BUILDINGS = {
    "science": (
        "apollo_program",
        *citystate_rules()["spaceship_parts"],
        "national_college",
        "oxford_university",
        "great_library",
        "spaceship_factory",  # +50 % production on the parts, 1,508 each for the Apollo Program and boosters
    ),
    "culture": ("amphitheater", "opera_house", "museum", "broadcast_tower", "hermitage", "hotel", "louvre"),
    "diplomatic": ("forbidden_palace", "caravansary", "national_treasury", "colossus", "petra"),
    "domination": ("barracks", "walls", "castle", "heroic_epic", "ironworks", "forge"),
}
# the great people a plan wants, per point of each kind (SPECIALISTS order: artist, musician,
# writer, engineer, merchant, scientist): a science plan's scientists, whose birth is five turns of
# its science. Every birth doubles the one threshold of all kinds, so another kind's point takes a
# birth from the scientists; an engineer's birth (five turns of production) builds parts, so it
# costs half. The science seats of seeds 1, 12 and 17 had 3-6 merchants born by round 230 (gold they
# could not spend) against 2-3 scientists: their markets, banks and stock exchanges hold as many
# specialists as the universities, public schools and laboratories
GREAT_PEOPLE = {"science": np.array([-1.0, -1.0, -1.0, -0.5, -1.0, 1.0])}
# the units and buildings whose techs each plan researches first (in this order)
PLAN_GOALS = {
    "science": (
        "library",
        "national_college",
        "university",
        "observatory",
        "public_school",
        "laboratory",
        # the parts' techs: the stasis chamber's long chain (Railroad to Robotics and
        # Nanotechnology) before the engine's and the cockpit's, which then stay open side by side
        # to the end, for free techs (a free tech may not be the one in research: in seed 12 three
        # science seats' last free techs went to Internet and Globalization, which the spaceship
        # does not need, while Railroad or Combined Arms, alone open, was researched)
        "apollo_program",
        "booster_1",
        "stasis_chamber",
        "engine",
        "cockpit",
    ),
    "culture": ("amphitheater", "opera_house", "museum", "broadcast_tower", "hotel", "stadium"),
    "diplomatic": ("caravansary", "forbidden_palace", "bank", "stock_exchange"),
    "domination": (
        "swordsman",
        "catapult",
        "longswordsman",
        "trebuchet",
        "musketman",
        "cannon",
        "rifleman",
        "artillery",
        "infantry",
        "tank",
    ),
}
EXTRA_TECHS = {  # plan techs no building names: tourism, the Congress, trade-route slots
    "science": (),
    "culture": (
        load_tables().rules["tourism_tech"],
        "archaeology",
        "radio",
        load_tables().rules["tourism_double_tech"],
    ),
    "diplomatic": (citystate_rules()["congress_tech"], *load_tables().rules["trade_route_techs"]),
    "domination": ("bronze_working", "iron_working", "mathematics"),
}
# the economy's early techs every plan wants: luxuries' improvements (plantation, mine, camp),
# the colosseum, stone works and circus for happiness, then science and gold
OPENING = ("pottery", "mining", "calendar", "construction", "writing", "trapping", "currency")
PLAN_TREES = {
    "science": ("tradition", "rationalism", "liberty", "commerce", "patronage", "aesthetics"),
    "culture": ("tradition", "aesthetics", "piety", "liberty", "rationalism", "commerce"),
    "diplomatic": ("patronage", "tradition", "commerce", "liberty", "rationalism", "aesthetics"),
    "domination": ("liberty", "honor", "tradition", "commerce", "rationalism", "exploration"),
}
# Monarchy before Landed Elite: half a happiness and half a gold per citizen of the capital (about
# 4 of each at round 60), when six new cities had the empire at -6 to -20 from round 40 to 80
OPENERS = ("tradition_opener", "liberty_opener", "legalism", "monarchy", "landed_elite", "republic")
# a plan's policies that go before the openers once legal: a diplomat's Patronage (from the
# medieval era) in the order that buys votes: resting influence 20, +1 influence a route (2.5),
# decay -25 %, then Consulates' delegate
PLAN_FIRST = {
    "diplomatic": (
        "patronage_opener",
        "merchant_confederacy",
        "philanthropy",
        "cultural_diplomacy",
        "consulates",
    ),
}


@cache
def ancestors() -> np.ndarray:
    """(81, 81) bool: ``a[t, p]``: tech ``p`` must be known before ``t`` (transitively)."""
    closure = load_tables().tech_prereq.copy()
    while True:
        nxt = closure | ((closure.astype(int) @ closure.astype(int)) > 0)
        if (nxt == closure).all():
            return closure
        closure = nxt


@cache
def goal_techs(plan: str) -> tuple[int, ...]:
    """The techs of ``plan``'s goals, in goal order (no duplicates)."""
    tb = load_tables()
    out: list[int] = []
    for name in PLAN_GOALS[plan]:
        is_building = name in tb.building_names
        row = tb.building_tech[tb.building(name)] if is_building else tb.unit_tech[tb.unit(name)]
        out += [int(t) for t in np.flatnonzero(row)]
    out += [tb.tech(name) for name in EXTRA_TECHS[plan] if name in tb.tech_names]
    return tuple(dict.fromkeys(out))


def luxury_techs(obs: dict[str, Any], me: int) -> np.ndarray:
    """(81,) bool: the techs of the improvements the luxuries in ``me``'s borders still lack
    (seed 0's whales and marble waited for Sailing and Masonry): each is 4 happiness."""
    tb = load_tables()
    owned = territory(obs, me)
    resource = np.maximum(np.asarray(obs["visible_resources_map_players"]).reshape(-1), 0)
    bare = owned & (resource > 0) & (np.asarray(obs["improvement_map"]).reshape(-1) == 0)
    luxury = bare & (tb.resource_kind[resource] == 3)
    tech = tb.improvement_tech[tb.resource_improvement[resource[luxury]]]
    out = np.zeros(tb.n_techs, bool)
    out[tech[tech >= 0]] = True
    return out


def tech_order(obs: dict[str, Any], plan: str, me: int | None = None) -> list[str]:
    """Unknown techs ranked (those not open yet too, see below): the opening's and the
    improvements of ``me``'s bare luxuries (:func:`luxury_techs`), and what leads to them (while
    ``me`` is unhappy, those luxuries' and the colosseum's first: seed 2's poorest bot was at -10
    without Construction at round 100), then what leads to the plan's next goal tech, cheapest
    first, then every other tech by cost (a wide tree is research that is never wasted). With a
    free tech pending, :func:`free_pick` leads (the free tech is taken first)."""
    tb = load_tables()
    known = np.asarray(obs["technologies"]) > 0
    legal = ~known & np.all(~tb.tech_prereq | known, axis=1)
    priority = np.zeros(tb.n_techs)
    opening = [tb.tech(name) for name in OPENING]
    if me is not None:
        opening += [int(t) for t in np.flatnonzero(luxury_techs(obs, me))]
    for t in opening:
        priority[t] = 2.0
        priority[ancestors()[t]] = 2.0
    if me is not None and float(np.asarray(obs["happiness"])) < 0:  # the calming techs lead it
        calming = luxury_techs(obs, me) | tb.building_tech[tb.building("colosseum")]
        for t in np.flatnonzero(calming):
            priority[t] = 3.0
            priority[ancestors()[t] & ~known] = 3.0
    goals = [t for t in goal_techs(plan) if not known[t]]
    if goals:
        target = goals[0]
        priority[target] = max(priority[target], 1.0)
        priority[ancestors()[target] & ~known] = np.maximum(priority[ancestors()[target] & ~known], 1.0)
    # the techs not open yet too: the engine picks the next research from this ranking when one
    # completes, and ranked open techs only, seed 17's science seat started Lasers the turn Robotics
    # opened Nanotechnology, its last tech for the spaceship, and ended one tech short of it
    idx = np.flatnonzero(~known)
    key = np.lexsort((tb.tech_cost[idx], -priority[idx]))
    ranked = [tb.tech_names[t] for t in idx[key]]
    if plan == "science" and int(np.asarray(obs.get("free_techs", 0))) > 0:
        pick = free_pick(legal, int(np.asarray(obs.get("is_researching", -1))))
        if pick is not None:
            ranked.insert(0, ranked.pop(ranked.index(pick)))
    return ranked


def free_pick(legal: np.ndarray, researching: int = -1) -> str | None:
    """The tech a science plan's free tech (a spy's theft, the Great Library, Oxford University)
    should teach, of the ``legal`` (81,) ones: the dearest of the spaceship's, since it needs
    every one of them and a free one saves its whole cost. Ranked cheapest first, as research
    is, it took the cheapest: in seed 1 the seats behind the leader got 5 to 15 free techs a game,
    most of them spies' thefts after round 200, when the techs cost 1,600 to 9,680 science.
    Another plan's free tech stays its ranking's first (its goals' order): the dearest open tech
    for every plan gave 6 victories of 20 against 10 (benchmarks/README.md, "Twelfth pass").
    The tech in ``researching`` is not a free tech's (the engine's rule, as the original's): picked,
    the free tech fell to the ranking's next, the cheapest (seed 12's science seat got Fertilizer,
    1,600, while Satellites, 8,470, was open). None when the tech in research is the only one open
    (the free tech waits; seed 11 crashed on it)."""
    tb = load_tables()
    legal = legal & (np.arange(tb.n_techs) != researching)
    wanted = legal & spaceship_techs()
    pool = np.flatnonzero(wanted if wanted.any() else legal)
    if not len(pool):
        return None
    return tb.tech_names[int(pool[np.argmax(tb.tech_cost[pool])])]


def policy_order(plan: str) -> list[str]:
    """Every policy: the plan's first ones (:data:`PLAN_FIRST`), the openers, then the plan's trees
    in order (opener first), then the rest."""
    tb = load_tables()
    names = list(tb.policy_names)
    tree = [tb.tree_names[int(np.argmax(tb.policy_tree_onehot[p]))] for p in range(len(names))]
    ranked = list(dict.fromkeys([*PLAN_FIRST.get(plan, ()), *OPENERS]))
    for t in PLAN_TREES[plan]:
        members = [n for n, tr in zip(names, tree, strict=True) if tr == t]
        members.sort(key=lambda n: not n.endswith("_opener"))
        ranked += [n for n in members if n not in ranked]
    return ranked + [n for n in names if n not in ranked]


def plan_items(plan: str) -> np.ndarray:
    """(148,) the plan's worth a turn of each building for what its yields do not show."""
    tb = load_tables()
    value = np.zeros(len(tb.building_names))
    for name in PLAN_BUILDINGS[plan]:
        value[tb.building(name)] = PLAN_ITEM_VALUE
    return value


def great_person_items(obs: dict[str, Any], me: int, plan: str, science_weight: float) -> np.ndarray:
    """(148,) the plan's worth a turn of the great person points each building adds
    (:data:`GREAT_PEOPLE`; none for a plan without), in the units of ``science_weight``: a point is
    1/threshold of a scientist's birth, five times this turn's science."""
    tb = load_tables()
    kinds = GREAT_PEOPLE.get(plan)
    if kinds is None:
        return np.zeros(len(tb.building_names))
    science = economy.empire_yield(obs, me, SCIENCE)
    per_point = tb.rules["great_person_burst"] * science / max(float(np.asarray(obs["gp_threshold"])), 1.0)
    points = tb.building_specialists * tb.rules["specialist_gpp"] + tb.building_gpp
    return points @ kinds * per_point * science_weight


def progress(obs: dict[str, Any], me: int) -> dict[str, float]:
    """How far ``me`` is along each victory, 0 (nothing) to 1 (won)."""
    known = float((np.asarray(obs["technologies"]) > 0).sum())
    tourism = np.asarray(obs["tourism_total"], dtype=float)[me]
    culture = np.asarray(obs["culture_total"], dtype=float)
    rivals = [q for q in range(N_PLAYERS) if q != me]
    ratio = min(max(tourism[q], 0.0) / max(culture[q], 1.0) for q in rivals)
    allies = int((np.asarray(obs["citystate_info"]["relationships"]) == me).sum())
    votes = max(int(np.asarray(obs["num_delegates"])[me]), 0) + allies
    sacked = int(np.asarray(obs["has_sacked"])[me].sum())
    return {
        "science": min(known / SCIENCE_TECHS, 1.0),
        "culture": min(ratio, 1.0),
        "diplomatic": min(votes / citystate_rules()["diplomatic_votes"], 1.0),
        "domination": sacked / (N_PLAYERS - 1),
    }


@cache
def spaceship_techs() -> np.ndarray:
    """(81,) bool: the techs the spaceship's parts and the Apollo Program need, prerequisites too."""
    tb = load_tables()
    need = np.zeros(tb.n_techs, bool)
    for name in ("apollo_program", *citystate_rules()["spaceship_parts"]):
        row = tb.building_tech[tb.building(name)]
        need |= row | ancestors()[row].any(0)
    return need


def science_reach(obs: dict[str, Any], me: int) -> float:
    """The share of the spaceship's remaining research its science would pay for by the turn cap,
    if its science doubled on average over the rounds left (0 to 1)."""
    tb = load_tables()
    known = np.asarray(obs["technologies"]) > 0
    remaining = float(tb.tech_cost[spaceship_techs() & ~known].sum())
    rate = economy.empire_yield(obs, me, SCIENCE)
    rounds = max(tb.rules["turn_cap"] - int(obs["current_turn"]), 0)
    return min(2.0 * rate * rounds / max(remaining, 1.0), 1.0)


def city_states_in_reach(obs: dict[str, Any], me: int) -> int:
    """How many city states ``me`` has seen within its caravans' range of one of its cities."""
    pc = obs["player_cities"]
    ids, rowcols = np.asarray(pc["city_ids"])[me], np.asarray(pc["city_rowcols"])[me]
    cities = rowcols[ids > 0] @ np.array([COLS, 1])
    sites = np.asarray(obs["citystate_info"]["city_rowcols"])
    sites = sites[sites[:, 0] >= 0] @ np.array([COLS, 1])
    if not len(cities) or not len(sites):
        return 0
    near = distance_np(cities[:, None], sites[None, :]).min(0)
    return int((near < load_tables().rules["trade_route_range"]).sum())


def leads_allies(obs: dict[str, Any], me: int, playing: bool = True) -> bool:
    """Whether no rival has more city-state allies than ``me`` (the allies are public), or none has
    :data:`RACE_ALLIES` yet (a first ally is a route's luck, not a lead). A rival that has sacked a
    capital is a conqueror and not in the race: in seeds 11 and 12 the conqueror's three or four
    allies made every other bot drop diplomacy, and nobody played it."""
    allies = np.bincount(np.asarray(obs["citystate_info"]["relationships"]) + 1, minlength=N_PLAYERS + 1)[1:]
    conquerors = np.asarray(obs["has_sacked"]).any(1)  # their armies are their plan
    allies = np.where(conquerors & (np.arange(N_PLAYERS) != me), 0, allies)
    best_rival = np.delete(allies, me).max()
    ahead = allies[me] >= best_rival if playing else allies[me] > best_rival
    return bool(ahead or best_rival < RACE_ALLIES)


def tourism_known(obs: dict[str, Any]) -> bool:
    """Whether the bot knows the tech that starts tourism (before it, no culture victory moves)."""
    tb = load_tables()
    return bool(np.asarray(obs["technologies"])[tb.tech(tb.rules["tourism_tech"])] > 0)


def aptitude(obs: dict[str, Any], me: int, diplomat: bool = True) -> dict[str, float]:
    """What the bot's position says it can reach: the spaceship's research within the rounds left
    (and leading literacy), lifetime culture once tourism is known, friends and allies, and, from
    round :data:`WAR_ROUND` and only for the player with the most soldiers, a rival capital known
    and the gold to pay an army (:data:`ARMY_PURSE` a turn, treasury included, is a full purse;
    with no rival capital in sight the army scouts for one: waiting to see one held seed 4's bots
    back until round 200). The purse alone made every rich bot a conqueror by round 150-200, and
    their armies met each other rather than the capitals: one conqueror at a time, the strongest,
    and none while a rival has sacked more capitals than it (its conquest is under way)."""
    culture = np.asarray(obs["culture_total"], dtype=float)
    info = obs["citystate_info"]
    friends = int((np.asarray(info["influence_level"]) >= citystate_rules()["friend_influence"]).sum())
    leads = leads_allies(obs, me, diplomat)
    reach = min(city_states_in_reach(obs, me) / DIPLOMACY_REACH, 1.0)
    pc = obs["player_cities"]
    rival_capitals = (np.asarray(pc["city_ids"]) == 1) & (np.asarray(pc["city_rowcols"])[..., 0] >= 0)
    rival_capitals[me] = False
    sacks = np.asarray(obs["has_sacked"]).sum(1)
    rival_conquest = np.delete(sacks, me).max() > sacks[me]  # the sacks are public: one at a time
    strongest = int(obs["most_soldiers"]) == me and not rival_conquest
    war_time = int(obs["current_turn"]) >= WAR_ROUND  # with no capital in sight, the army scouts
    purse = min(max(economy.spendable(obs, me), 0.0) / ARMY_PURSE, 1.0)
    return {
        "science": 0.1 + 0.8 * science_reach(obs, me) + 0.1 * (int(obs["most_literacy"]) == me),
        "culture": (0.1 + 0.2 * (int(np.argmax(culture)) == me and tourism_known(obs)))
        * (progress(obs, me)["culture"] >= CULTURE_REACH),
        "diplomatic": 0.05
        + leads * (0.04 * friends + 0.45 * reach * (int(obs["current_turn"]) >= DIPLOMACY_ROUND)),
        "domination": 0.05 + war_time * strongest * (0.35 * bool(rival_capitals.any()) + 0.5 * purse),
    }


def choose_plan(obs: dict[str, Any], me: int, current: str | None) -> str:
    """The plan to play this turn (``current`` kept unless another leads by ``SWITCH_MARGIN``; a
    conquest that has sacked a capital or whose army stands in a rival's land is kept: its army
    is what it has built, a bot that dropped it for diplomacy at its first sack left the war half
    won, and one that lost the most soldiers on the march would send its army home)."""
    if current == "domination" and (np.asarray(obs["has_sacked"])[me].any() or military.hosts(obs, me).any()):
        return current
    diplomat = current == "diplomatic"
    done, able = progress(obs, me), aptitude(obs, me, diplomat)
    done["science"] = 0.0  # techs known count only through the reach of what is left to research
    leads = leads_allies(obs, me, diplomat)
    done["diplomatic"] *= leads  # votes behind a rival's are not a race it leads
    score = {p: done[p] + able[p] for p in PLANS}
    best = max(PLANS, key=lambda p: score[p])
    if current == "diplomatic" and not leads:
        current = None  # behind in allies: its routes only raise the leader's price
    if current in score and score[best] < score[current] + SWITCH_MARGIN:
        return current
    return best
