"""The strategic bot (``heuristic``): it plays for a victory through the moves anyone makes.

Every turn it picks its plan (:mod:`.strategy`), then fills each endpoint: research toward the
plan's goals, the plan's policy trees, tenets by value (:mod:`.religion`), settlers while there is
land and contentment to spare, an army of its era sized to the plan and the purse
(:mod:`.military`), buildings worth their upkeep (:mod:`.economy`), caravans to city states or,
for a science plan, to foreign cities (:mod:`.caravans`), the spaceship's aluminium by deal
(:func:`spaceship_deal`), peace unless the war is the plan (:mod:`.trade`). Settlers, workers, caravans
and the citizens' tiles are placed as the ``easy`` bot places them (:mod:`.heuristic`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from hexarena.core.contract import GameState
from hexarena.core.players import Reply, SeededPlayer
from hexarena.games.terranova.bots import economy, military, seat_environment, strategy
from hexarena.games.terranova.bots.caravans import caravan_order, free_route_slots, wants_caravan
from hexarena.games.terranova.bots.heuristic import (
    PANTHEONS,
    settler_order,
    site_values,
    work_ranking,
)
from hexarena.games.terranova.bots.military import steps_to
from hexarena.games.terranova.bots.religion import tenet_order
from hexarena.games.terranova.bots.steps import free_reach, progress, territory
from hexarena.games.terranova.bots.trade import peace_plan
from hexarena.games.terranova.engine.geometry import COLS, N_TILES, distance_np, work_area
from hexarena.games.terranova.engine.rules.trade import FIRST_RESOURCE, GOLD_PER_TURN, item_names
from hexarena.games.terranova.engine.state import MAX_CITIES, MAX_UNITS
from hexarena.games.terranova.engine.tables import (
    BUILDING_SLOTS,
    FAITH,
    SCIENCE,
    citystate_rules,
    load_tables,
)

SETTLER_PRODUCTION = 4  # a city making less leaves settlers to the others
SETTLE_RANGE = 10  # a free site this close to one of its cities is land to expand into
# beyond EARLY_CITIES, found another city only while happiness stays at least this after it: a
# city is worth about 12 points of score (its tiles, citizens and itself) against 2 % of
# production and gold per unhappy point, and the rivals expand whatever their happiness; at -10
# seed 0's bots founded their seventh to ninth cities at -6 and stayed below zero to round 200
EXPAND_HAPPINESS = -2
EARLY_CITIES = 6  # up to this many cities, expand whatever the happiness
# below this its cities stop growing (each citizen is one unhappiness): a margin over zero, since
# a city founded or a luxury traded away takes 4 at once (at 2, seed 0's and seed 2's bots were
# at -0.8 and -0.5 at round 200)
GROWTH_HAPPINESS = 4
POOR_WORK_WEIGHTS = (2.5, 2.0, 3.0, 0, 0, 0, 0)  # food, production, gold of a worked tile when short
# growth held: food counts against a tile (the ranking still feeds every citizen), so a city
# works production and gold with no food to spare
HOLD_WORK_WEIGHTS = (-1.0, 3.0, 2.0, 0, 0, 0, 0)
# a science plan's tiles until the spaceship's first tech: food well before production. Its science
# is its citizens' (a citizen 1 science, the libraries to laboratories and Rationalism multiplying
# it), research is its critical path, and production past its science buildings made stadiums and
# military bases: the science seats of seeds 1 and 12 ended one or two techs short at round 300.
# With these weights they spent 182,433 and 193,323 science on techs by then (172,753 and 182,433
# before) and knew every tech of the spaceship, six of its seven items built
SCIENCE_WORK_WEIGHTS = (4.0, 1.5, 0.5, 0, 0, 0, 0)
# a domination plan marches once it has this many military units beyond one a city, obsolete ones
# too (the techs make an army obsolete faster than it is replaced; old units die in the assault)
MARCH_ARMY = 6
DELEGATES_WONDER = "forbidden_palace"  # a diplomat's first need once legal: 2 delegates
# a science plan's needs once legal, each in its own city: the Apollo Program, then the six parts
SPACESHIP = ("apollo_program", *citystate_rules()["spaceship_parts"])
FACTORY = "factory"  # a science plan asks for its resource (coal) by deal: see factory_deal
RENEW_ROUNDS = 2  # a science plan asks for aluminium again when its deal has this many rounds left
RACE_REACH = 0.8  # a science seat below this reach (not the literacy leader) sells its aluminium
LUXURY_GOLD = 5  # the gold a turn it pays for a luxury (a trade's gold item)
# a site's value per luxury kind the empire lacks within its two rings: about two rings' tiles of
# food (a site is worth 50-80); each kind is 4 happiness, a city's own unhappiness is 3 and a citizen
LUXURY_SITE = 12.0
TOP = 12
CIVILIANS = ("settler", "worker", "caravan")  # the units a caravan standing in a city keeps it from finishing


def _tiles(rowcol: np.ndarray) -> np.ndarray:
    return rowcol[..., 0] * COLS + rowcol[..., 1]


def built_anywhere(obs: dict[str, Any], me: int) -> np.ndarray:
    """(148,) bool: the buildings standing in at least one of ``me``'s cities."""
    ids = np.asarray(obs["player_cities"]["city_ids"])[me]
    return np.asarray(obs["player_cities"]["buildings_owned"])[: len(ids)][ids > 0].any(0)


def needed_resource(building: str) -> int:
    """The resource id ``building`` needs in its city or from a deal."""
    tb = load_tables()
    return int(np.flatnonzero(tb.building_resource[tb.building(building)])[0])


def spaceship_resource() -> int:
    """The resource id every spaceship item needs in its city or from a deal (aluminium)."""
    return needed_resource(SPACESHIP[0])


def knows_tech_of(obs: dict[str, Any], building: str) -> bool:
    """Whether the player knows the tech ``building`` needs."""
    tb = load_tables()
    return bool((np.asarray(obs["technologies"])[tb.building_tech[tb.building(building)]] > 0).all())


def one_city(building: int) -> bool:
    """Whether one city of an empire builds ``building`` at a time: a wonder, or a spaceship part
    (the victory needs each once; a second city building it wastes its production)."""
    tb = load_tables()
    return bool(tb.building_kind[building] > 0 or tb.building_names[building] in SPACESHIP)


def caravan_held(obs: dict[str, Any], me: int) -> np.ndarray:
    """(10,) bool: ``me``'s cities whose tile holds one of its caravans. A unit is placed on its
    city's tile only while none of its class stands there, and a caravan trades from the city it
    stands in, back there when its route ends and sent on from there, so such a city never
    finishes a settler, a worker or a caravan: its production piles up behind the unit (from
    round 100 every bot had one to three cities so stuck, seed 13's diplomat 2,900 production in
    its capital for 60 rounds, on a caravan, and its third city's on a settler)."""
    pc = obs["player_cities"]
    ids = np.asarray(pc["city_ids"])[me]
    kinds = np.asarray(obs["units"]["unit_type"])[me]
    where = _tiles(np.asarray(obs["units"]["unit_rowcol"])[me])[kinds == load_tables().unit("caravan")]
    return (ids > 0) & np.isin(_tiles(np.asarray(pc["city_rowcols"])[me]), where[where >= 0])


class StrategicPlayer(SeededPlayer):
    """Reads its position, commits to a victory it can reach (:func:`.strategy.choose_plan`) and
    switches when it falls behind; keeps its treasury and happiness up, expands as far as its land
    allows, keeps an army of its era and makes peace unless the war serves its plan."""

    kind = "heuristic"

    def reset(self, roles: tuple[str, ...], seed: int) -> None:
        super().reset(roles, seed)
        self.plan: str | None = None

    def act(self, view: GameState) -> Reply:
        env = seat_environment(view)
        self.plan = strategy.choose_plan(env.view, env.viewer, getattr(self, "plan", None))
        rng = np.random.default_rng(int(self.rng.random() * 2**31))  # tie-breaks, from the seat's seed
        return Reply(move=plan_move(env.view, env.viewer, self.plan, rng, env.options))


def wants_settler(obs: dict[str, Any], me: int, sites: np.ndarray) -> bool:
    """Whether to train one more settler: a free site near its cities, a city slot, and the
    happiness to absorb a city (3 unhappiness and a citizen) unless it has few cities yet."""
    pc = obs["player_cities"]
    ids = np.asarray(pc["city_ids"])[me]
    n_cities = int((ids > 0).sum())
    kinds = np.asarray(obs["units"]["unit_type"])[me]
    settlers = int((kinds == load_tables().unit("settler")).sum())
    settlers += economy.constructing_counts(obs, me, economy.unit_item("settler"))
    if n_cities + settlers >= MAX_CITIES or settlers >= 2:
        return False
    happy_after = float(np.asarray(obs["happiness"])) - 4 * (settlers + 1)
    if n_cities + settlers >= EARLY_CITIES and happy_after < EXPAND_HAPPINESS:
        return False
    cities = _tiles(np.asarray(pc["city_rowcols"])[me][ids > 0])
    if not len(cities):
        return True
    near = np.min(distance_np(np.arange(N_TILES)[:, None], cities[None, :]), axis=1) <= SETTLE_RANGE
    return bool((np.isfinite(sites) & near).any())


def luxury_sites(obs: dict[str, Any], me: int) -> np.ndarray:
    """(H,) :data:`LUXURY_SITE` for each kind of luxury within a site's two rings that the empire
    has no tile of yet (with two to three kinds a seat, seeds 0-5's bots were at -6 to -20 happiness
    from round 40 to round 80, when the colosseums came)."""
    tb = load_tables()
    resource = np.maximum(np.asarray(obs["visible_resources_map_players"]).reshape(-1), 0)
    owned = territory(obs, me)
    luxury = tb.resource_kind[resource] == 3
    new = np.where(luxury & ~np.isin(resource, resource[owned & luxury]), resource, 0)
    area = work_area()[:, :19]
    around = np.where(area >= 0, new[np.maximum(area, 0)], 0)  # (H, 19) luxury ids, 0 none
    around = np.sort(around, axis=1)
    kinds = ((around[:, 1:] != around[:, :-1]) & (around[:, 1:] > 0)).sum(1) + (around[:, 0] > 0)
    return LUXURY_SITE * kinds


def city_builds(
    obs: dict[str, Any],
    me: int,
    city: int,
    opts: dict[str, Any] | None,
    first: list[str],
    ctx: dict[str, Any],
) -> list[str]:
    """City ``city``'s ranked buildables: the empire's needs assigned to it (``first``), then its
    buildings by value per production, then upkeep-free ones, a caravan while it has the gold for
    one (:func:`caravans_paid`), the other buildings by upkeep then value, and last the best unit
    (a city always has something to build, so the resolver never falls back to an arbitrary item,
    and never to a unit it need not keep), then a caravan. A conquest (``ctx["conquest"]``) has
    its soldiers stood in for those the city may not train (:func:`stand_in`), and no caravan."""
    tb = load_tables()
    legal = economy.legal_buildables(opts, city)
    if not legal.any():  # a city founded during this move: what its empire can build
        legal = ctx["legal_any"]
    names = [*tb.building_names, *tb.unit_names[1:]]
    buildings = legal[:BUILDING_SLOTS] & ~ctx["elsewhere"]
    ranked = economy.ranked_buildings(obs, me, city, ctx["weights"], ctx["items"], buildings)
    conquest = bool(ctx.get("conquest"))
    if conquest:
        first = [stand_in(n, legal) for n in first]
    order = calming_first(obs, me, ranked, first) + list(first)
    order += ranked
    free = np.flatnonzero(buildings & (tb.building_upkeep == 0))
    order += [tb.building_names[b] for b in free if tb.building_names[b] not in order]
    if ctx.get("caravan", True):
        order.append("caravan")
    # then every other building that gives something, the least costly to keep first: its upkeep
    # (1 to 3 gold) is less than a unit's (about 2 gold at round 100, 4.7 at 300)
    value = economy.building_values(obs, me, city, ctx["weights"], ctx["items"])
    gain = value + tb.building_upkeep * ctx["weights"][economy.GOLD]
    rest = np.flatnonzero(buildings & (gain > 0))
    order += [tb.building_names[b] for b in rest[np.lexsort((-value[rest], tb.building_upkeep[rest]))]]
    if ctx["unit"]:
        order.append(stand_in(ctx["unit"], legal) if conquest else ctx["unit"])
    order.append("caravan")  # a caravan without the gold for it only where nothing else is legal
    order = list(dict.fromkeys(order))
    if ctx["held"][city]:  # (a civilian where nothing else is legal: it waits)
        order = [n for n in order if n not in CIVILIANS] or order
    order = [n for n in order if legal[names.index(n)]] or order
    if conquest:  # (a conqueror's fallback caravans held 5 of seed 13's 30 slots)
        order = [n for n in order if n != "caravan"] or order
    return order


def science_work(obs: dict[str, Any], plan: str) -> tuple[float, ...] | None:
    """A science plan's tile weights, :data:`SCIENCE_WORK_WEIGHTS`, until the spaceship's first
    tech (Rocketry) is known; then, and for other plans, None (the usual ones). Production-first
    tiles for a city building a part (tried) chose the same tiles in seed 12's Apollo city, and
    the same 20 games to the same ends: its citizens worked every good tile already."""
    return SCIENCE_WORK_WEIGHTS if plan == "science" and not spaceship_open(obs) else None


def spaceship_open(obs: dict[str, Any]) -> bool:
    """Whether the player knows the Apollo Program's tech (Rocketry), the spaceship's first."""
    return knows_tech_of(obs, SPACESHIP[0])


def stand_in(name: str, legal: np.ndarray) -> str:
    """A conquest's need ``name`` as a city with buildables ``legal`` (185,) can meet it: a soldier
    it may not train (a horseman needs horses in the city) becomes its best legal one of the same
    role (melee, siege or other), else stays as it is. Lost for the turn, the conquest's melee
    units came to nothing: in seed 13 only one of the conqueror's nine cities had horses, so its
    cities trained the siege engines of its needs alone, fifteen catapults and four horsemen by
    round 130. Other plans keep the need as it is (their one soldier at a time is no army, and
    :func:`assign` tells why their needs are not held to what a city may build)."""
    tb = load_tables()
    if name not in tb.unit_names or legal[economy.unit_item(name)]:
        return name
    kind = np.array([tb.unit(name)])
    if military.power(kind)[0] <= 0:  # a civilian: no stand-in
        return name
    siege = bool(military.siege_units(kind)[0])
    melee = not siege and tb.unit_ranged[kind[0]] == 0
    return military.best_unit(legal, siege=siege, melee=melee) or name


def calming_first(obs: dict[str, Any], me: int, ranked: list[str], first: list[str]) -> list[str]:
    """The happiness buildings of ``ranked`` (a colosseum, a circus) that go before the city's
    assigned need while the empire is unhappy and at peace, unless that need is a settler or a
    worker (their cities pay back), the spaceship (the victory itself: seed 17's science plan
    knew every tech by round 290 and built no part, its one city with aluminium on a 44-round
    stadium before the Apollo Program), or the army has no unit yet: in seed 1, a bot at -17
    happiness had eight warriors and no colosseum at round 100."""
    tb = load_tables()
    if float(np.asarray(obs["happiness"])) >= 0 or np.asarray(obs["at_war"])[me].any():
        return []
    kinds = np.asarray(obs["units"]["unit_type"])[me]
    if first and (first[0] in ("settler", "worker", *SPACESHIP) or not (military.power(kinds) > 0).any()):
        return []
    return [n for n in ranked if tb.building_yields[tb.building(n), economy.HAPPY] > 0][:1]


def needs(
    obs: dict[str, Any],
    me: int,
    plan: str,
    unit: str | None,
    sites: np.ndarray,
    legal: np.ndarray | None = None,
) -> list[str]:
    """The units (and a plan's buildings) the empire should start now, most urgent first: a first
    defender, a diplomat's Forbidden Palace, a science plan's Apollo Program and spaceship parts
    (each in its own city, the most productive first), a scout while a rival capital is unseen, a settler
    while there is land, the army's missing modern units (for a conquest, melee ones, at least
    :data:`~.military.ASSAULT`, since only a melee blow takes a city, and one in
    :data:`~.military.SIEGE_SHARE` the best siege unit of ``legal``), workers (one per two
    cities), caravans for free route slots (a diplomat's two at a time). Beyond the first defender
    (and, at war, a garrison a city), a military unit is wanted only while the budget pays its
    upkeep, unless the plan is a conquest (in seed 1, a conqueror spent its treasury on six bowmen
    at round 65 and their upkeep then took all its science for 200 rounds: the price of the
    exemption)."""
    tb = load_tables()
    kinds = np.asarray(obs["units"]["unit_type"])[me]
    mine = np.asarray(obs["player_cities"]["city_ids"])[me] > 0
    constructing = np.asarray(obs["player_cities"]["is_constructing"])[:MAX_CITIES][mine]
    training = constructing[constructing >= BUILDING_SLOTS] - BUILDING_SLOTS + 1
    old = military.obsolete(kinds, obs["technologies"], unit)
    modern = int(((military.power(kinds) > 0) & ~old).sum()) + int((military.power(training) > 0).sum())
    conquest = plan == "domination" and legal is not None
    melee = military.best_unit(legal, melee=True) if conquest else None
    unit = melee or unit
    gold = economy.spendable(obs, me)
    out: list[str] = []
    if unit and modern == 0:
        out.append(unit)
    palace = tb.building(DELEGATES_WONDER)
    if plan == "diplomatic" and legal is not None and legal[palace] and not (constructing == palace).any():
        out.append(DELEGATES_WONDER)  # two of the twelve votes, in the most productive city
    if plan == "science" and legal is not None:
        owned = built_anywhere(obs, me)
        for name in SPACESHIP:  # the victory itself: no yield shows what a part is worth
            b = tb.building(name)
            if legal[b] and not owned[b] and not (constructing == b).any():
                out.append(name)
    scout = legal is None or bool(legal[economy.unit_item("scout")])
    if scout and military.wants_scout(obs, me) and not (training == tb.unit("scout")).any():
        out.append("scout")  # early, while a rival's border is a tile or two: it sees over it
    if wants_settler(obs, me, sites):
        out.append("settler")
    workers = int((kinds == tb.unit("worker")).sum()) + int((training == tb.unit("worker")).sum())
    luxuries = int((resource_sites(obs, me)[0] == 3).sum())
    if luxuries and workers < min(luxuries, (int(mine.sum()) + 1) // 2):
        out.append("worker")  # a bare luxury is 4 happiness: before the army
        workers += 1
    slots = MAX_UNITS - 2 - caravan_room(obs, me, plan) - int((kinds > 0).sum()) - len(training)
    if unit and slots > 0:
        war = bool(np.asarray(obs["at_war"])[me].any())
        target = military.army_target(int(mine.sum()), plan, gold, war)
        # no more than the slots hold: a conqueror's purse asked for 45 units in 30 slots, and one
        # siege engine in three of those 45 was ten more catapults (seed 13, round 112)
        missing = min(max(target - max(modern, len(out) > 0), 0), slots - out.count(unit))
        siege = military.best_unit(legal, siege=True) if conquest else None
        if melee:
            swords = (tb.unit_ranged[np.maximum(kinds, 0)] == 0) & (military.power(kinds) > 0) & ~old
            missing = max(missing, military.ASSAULT - int(swords.sum()))
        # no endpoint disbands a unit, so outside a conquest the army grows only on gold it can pay
        # for; at war, a garrison a city. The conqueror (one at a time) is exempt: capped too, it
        # sacked 3 and 1 capitals in six-bot seeds 2 and 7, which it won by domination uncapped
        if plan != "domination":
            upkeep = economy.unit_gold(obs)
            pays = int((gold - upkeep * int((military.power(training) > 0).sum())) // upkeep)
            garrison = int(mine.sum()) + 1 - modern if war else 0
            missing = min(missing, max(pays, garrison, 0))
        # siege engines up to one in SIEGE_SHARE of the army, those alive counted (melee units die in
        # the assaults and siege engines do not: seed 0's conqueror ended with ten cannons, two pikemen)
        engines = int(((military.siege_units(kinds)) & ~old).sum())
        room = (modern + missing) // military.SIEGE_SHARE - engines
        for i in range(missing):
            take = bool(siege) and i % military.SIEGE_SHARE == 1 and room > 0
            room -= take
            out.append(siege if take else unit)
    out += ["worker"] * max(min((int(mine.sum()) + 1) // 2, military.MAX_WORKERS) - workers, 0)
    if caravans_paid(obs, me, plan):
        # one at a time, a diplomat's two: its votes are its routes, a slot left empty for 50
        # rounds is an ally it does not have
        under_way = int((training == tb.unit("caravan")).sum())
        free = free_route_slots(obs, me)
        out += ["caravan"] * (min(2 if plan == "diplomatic" else 1, free) - under_way)
    return out


def caravan_room(obs: dict[str, Any], me: int, plan: str) -> int:
    """The unit slots a diplomat keeps free of soldiers for the caravans its route slots still
    lack: no endpoint disbands a unit, and seed 17's diplomat had its 30 slots full at round 250
    (obsolete units, marines) with 3 caravans for 10 route slots, at 11 of 12 votes."""
    return free_route_slots(obs, me) if plan == "diplomatic" else 0


def caravans_paid(obs: dict[str, Any], me: int, plan: str) -> bool:
    """Whether to train a caravan: a route slot free (:func:`.caravans.wants_caravan`) and, unless
    the plan is diplomacy (influence is its victory), gold a turn to spare for its upkeep: a route
    to a city state pays the origin about a gold a turn, less than the caravan's upkeep (1.4 at
    round 70), and seed 0's bots kept three each on a deficit. Never for a conquest: its unit slots
    are its army, which no endpoint frees, and its gold buys nothing (seed 13's conqueror held 7
    caravans and 73,000 gold at round 290, its 30 slots full, 14 soldiers of them)."""
    if plan == "domination" or not wants_caravan(obs, me):
        return False
    return plan == "diplomatic" or economy.spendable(obs, me) >= economy.unit_gold(obs)


def assign(
    needs_list: list[str],
    cities: np.ndarray,
    production: np.ndarray,
    capital: int,
    held: np.ndarray,
    legal: np.ndarray | None = None,
    busy: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None,
) -> dict[int, list[str]]:
    """Each need to one city, the most productive first (settlers only from the capital and from
    cities making ``SETTLER_PRODUCTION``, civilians not to a city ``held`` by a caravan:
    :func:`caravan_held`), a spaceship part only where ``legal`` (10, 185) lets that city start
    it (it needs aluminium in its own city or from a deal: given to a city without, it is lost
    for the turn); a city gets at most one. The other needs are not held to ``legal`` (a unit
    needing a resource the city lacks is lost for the turn): held to it, with other changes, the
    20 six-bot seeds gave 6 and 8 victories (benchmarks/README.md, "Eleventh pass").

    With ``busy`` (:func:`busy_cities`: the rounds until each city is free, whether it may start
    a part then, and its spaceship speed), a part goes to the city that would finish it first,
    waiting for a busy one: an empire may not change a city's build, and given to whichever city
    was idle, seed 1's Apollo Program was still unfinished 50 rounds after it started."""
    tb = load_tables()
    order = sorted((int(c) for c in cities), key=lambda c: -production[c])
    out: dict[int, list[str]] = {c: [] for c in order}
    waiting: set[int] = set()  # busy cities a part waits for
    for item in needs_list:
        part = item in SPACESHIP and legal is not None
        if part and busy is not None:
            best = part_city(
                tb.building(item), order, production, legal, busy, {*waiting, *(c for c in order if out[c])}
            )
            if best is not None and busy[0][best] > 0:
                waiting.add(best)
            elif best is not None:
                out[best].append(item)
            continue
        for c in order:
            if out[c] or (item == "settler" and c != capital and production[c] < SETTLER_PRODUCTION):
                continue
            if (item in CIVILIANS and held[c]) or (part and not legal[c, tb.building(item)]):
                continue
            out[c].append(item)
            break
    return out


def busy_cities(obs: dict[str, Any]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(rounds, access, speed)``, (10,) each: the rounds until each city finishes what it builds
    (0 for an idle one) at its production now, whether it has the spaceship's resource (its own
    or a deal's), so that it may start a part once free, and how many times its production a
    spaceship item gets (1.5 with a spaceship factory)."""
    tb = load_tables()
    pc = obs["player_cities"]
    item = np.asarray(pc["is_constructing"])[:MAX_CITIES].astype(int)
    unit = np.maximum(item - BUILDING_SLOTS + 1, 0)
    cost = np.where(
        item < BUILDING_SLOTS, tb.building_cost[np.clip(item, 0, BUILDING_SLOTS - 1)], tb.unit_cost[unit]
    )
    left = np.maximum(cost - np.asarray(pc["prod_reserves"])[:MAX_CITIES], 0.0)
    owned = np.asarray(pc["buildings_owned"])[:MAX_CITIES].astype(float)
    speed = 1.0 + owned @ tb.building_city_mods[:, tb.modifier("spaceship_production_pct")] / 100.0
    part = np.isin(item, [tb.building(name) for name in SPACESHIP])
    production = np.maximum(np.asarray(pc["yields"])[:MAX_CITIES, 1], 1.0) * np.where(part, speed, 1.0)
    rounds = np.where(item >= 0, left / production, 0.0)
    resource = spaceship_resource()
    deals = resource_sources(obs, resource)[1]
    own = np.asarray(pc["resources_owned"])[:MAX_CITIES, resource - 1] > 0
    return rounds, own | (deals > 0), speed


def part_city(
    building: int,
    order: list[int],
    production: np.ndarray,
    legal: np.ndarray,
    busy: tuple[np.ndarray, np.ndarray, np.ndarray],
    taken: set[int],
) -> int | None:
    """The city of ``order`` not ``taken`` that would finish spaceship item ``building`` first
    (its production times its spaceship speed): an idle one that may start it now, or a busy one
    with the resource, once free (None: none may)."""
    rounds, access, speed = busy
    cost = float(load_tables().building_cost[building])
    finish = {
        c: rounds[c] + cost / max(float(production[c] * speed[c]), 1.0)
        for c in order
        if c not in taken and (legal[c, building] if rounds[c] == 0 else access[c])
    }
    return min(finish, key=lambda c: finish[c]) if finish else None


def plan_move(
    obs: dict[str, Any], me: int, plan: str, rng: np.random.Generator, opts: dict[str, Any] | None = None
) -> dict[str, Any]:
    """The strategic bot's sparse move for ``me`` playing ``plan``."""
    tb = load_tables()
    pc = obs["player_cities"]
    ids = np.asarray(pc["city_ids"])[me]
    mine = np.flatnonzero(ids > 0)
    kinds = np.asarray(obs["units"]["unit_type"])[me]
    where = _tiles(np.asarray(obs["units"]["unit_rowcol"])[me])
    sites = site_values(obs, me) + luxury_sites(obs, me)
    if opts is not None and len(mine):
        legal_any = np.asarray(opts["build"])[mine].any(0)
    else:
        legal_any = economy.legal_buildables(opts, 0)
    unit = military.best_unit(legal_any)
    constructing = np.asarray(pc["is_constructing"])[:MAX_CITIES]
    elsewhere = np.zeros(BUILDING_SLOTS, bool)
    for c in mine:
        item = int(constructing[c])
        if 0 <= item < BUILDING_SLOTS and one_city(item):
            elsewhere[item] = True  # one city builds each wonder (and spaceship part)
    # a part is needed once: one built is in no other city's list
    elsewhere |= built_anywhere(obs, me) & np.isin(np.asarray(tb.building_names), SPACESHIP)
    weights = economy.yield_weights(obs, me, strategy.PLAN_WEIGHTS[plan])
    ctx = {
        "unit": unit,
        "weights": weights,
        "items": strategy.plan_items(plan) + strategy.great_person_items(obs, me, plan, weights[SCIENCE]),
        "elsewhere": elsewhere,
        "legal_any": legal_any,
        "caravan": caravans_paid(obs, me, plan),
        "held": caravan_held(obs, me),
        "conquest": plan == "domination",
    }
    capital = int(mine[ids[mine] == 1][0]) if (ids[mine] == 1).any() else -1
    wanted = needs(obs, me, plan, unit, sites, legal_any)
    legal = None if opts is None else np.asarray(opts["build"], bool)
    busy = busy_cities(obs) if plan == "science" else None
    production = np.asarray(pc["yields"])[:, 1]
    first = assign(wanted, mine, production, capital, ctx["held"], legal, busy)
    build = {}
    for c in sorted(range(MAX_CITIES), key=lambda c: (c not in mine, -production[c])):
        if c in mine or len(mine):  # a slot founded during this move ranks as its cities do
            build[str(c)] = city_builds(obs, me, c, opts, first.get(c, []), ctx)
            wonders = [n for n in build[str(c)] if n in tb.building_names and one_city(tb.building(n))]
            if wonders:  # the most productive city that wants a wonder builds it, the others not
                elsewhere[tb.building(wonders[0])] = True
        else:  # the capital, founded this move
            build[str(c)] = ["settler", "warrior"]
    build = {str(c): build[str(c)] for c in range(MAX_CITIES)}
    unhappy = float(np.asarray(obs["happiness"])) < GROWTH_HAPPINESS
    poor = economy.net_gold(obs, me) < 0 or float(np.asarray(obs["treasury"])) < economy.THIN_TREASURY
    weights = HOLD_WORK_WEIGHTS if unhappy else POOR_WORK_WEIGHTS if poor else None
    food = other_food(obs, me) if unhappy else np.zeros(MAX_CITIES)  # held: no surplus
    work = {}
    for c in mine:
        settling = unhappy or build[str(c)][0] == "settler"
        w = weights if weights is not None or settling else science_work(obs, plan)
        work[str(c)] = work_ranking(obs, me, int(c), settling, w, food[c], hold=unhappy)
    march = plan == "domination" and int((military.power(kinds) > 0).sum()) >= len(mine) + MARCH_ARMY
    units = military.unit_orders(obs, me, march, opts, rng, courting=plan == "diplomatic")
    claimed: list[int] = []
    # the tiles workers of this move are bound for, first those they stand on: a worker standing
    # on a site builds there rather than leave it to one that cannot reach it (seed 13's only
    # aluminium stayed bare for 50 rounds under a worker, claimed by one stuck three tiles away)
    bound = [int(where[s]) for s in np.flatnonzero(kinds == tb.unit("worker"))]
    worker_sites = (resource_sites(obs, me), improvement_sites(obs, me)) if bound else None
    for slot in np.flatnonzero(kinds > 0):
        name, pos = tb.unit_names[kinds[slot]], int(where[slot])
        if name == "settler":
            units[str(slot)] = settler_order(obs, me, int(slot), sites, claimed, opts, stranded_walk=True)
        elif name == "caravan":
            units[str(slot)] = caravan_order(obs, me, pos, opts, int(slot), plan)
        elif name == "worker":
            units[str(slot)] = worker_order(obs, me, int(slot), pos, opts, bound, worker_sites)
    trade = war_plan(obs, me, plan == "domination", opts)
    return {
        "tech": strategy.tech_order(obs, plan, me),
        "policy": strategy.policy_order(plan),
        "tenet": tenets(obs, me),
        "units": units,
        "build": build,
        "work": work,
        "trade": factory_deal(obs, plan, spaceship_deal(obs, me, plan, trade, opts), opts),
    }


def other_food(obs: dict[str, Any], me: int) -> np.ndarray:
    """(10,) each city's food beyond its centre and its worked tiles' map yields (buildings,
    policies, city states, percent bonuses): its food yield less what the map shows it working."""
    pc = obs["player_cities"]
    ids = np.asarray(pc["city_ids"])[me]
    food = np.zeros(MAX_CITIES)
    tile_food = np.asarray(obs["yield_map_players"]).reshape(-1, 7)[:, 0]
    for c in np.flatnonzero(ids > 0):
        ring = work_area()[int(_tiles(np.asarray(pc["city_rowcols"])[me][c])), 1:]
        worked = (np.asarray(pc["worked_slots"])[c] > 0) & (ring >= 0)
        seen = float(np.asarray(pc["city_center_yields"])[c][0]) + tile_food[ring[worked]].sum()
        food[c] = max(float(np.asarray(pc["yields"])[c][0]) - seen, 0.0)
    return food


def tenets(obs: dict[str, Any], me: int) -> list[str]:
    """Tenets by value (:func:`.religion.tenet_order`) once a pantheon's faith is within a turn's
    reach; the pantheons alone before (no tenet can be taken then, and valuing all 91 is half
    the cost of a move)."""
    faith = float(np.asarray(obs["faith_reserves"])) + economy.empire_yield(obs, me, FAITH)
    if faith < load_tables().rules["pantheon_cost_base"]:
        return list(PANTHEONS)
    return list(tenet_order(obs, me, PANTHEONS))


def resource_sites(obs: dict[str, Any], me: int) -> tuple[np.ndarray, np.ndarray]:
    """(H,) int twice: each tile's rank for a worker (3 luxury, 2 strategic, 1 bonus, 0 none) and
    the worker category that improves its resource (-1 none), where the tile is ``me``'s, without
    that improvement (bare, or with another one built before a tech revealed the resource: seed
    0's science bot had another improvement on its aluminium, which Electricity reveals), not a
    city's centre (that one counts without an improvement), and its improvement's tech is known:
    a resource counts (a luxury's 4 happiness, a strategic unit's prerequisite) only once
    improved. A fishing boat's tile is sea (not a lake): its tech, Sailing, is the one with which
    a worker embarks to build it (seed 1's bot whose only luxury was pearls left them bare to
    round 100, at -18 happiness, while its workers farmed)."""
    tb = load_tables()
    pc = obs["player_cities"]
    resource = np.maximum(np.asarray(obs["visible_resources_map_players"]).reshape(-1), 0)
    improvement = tb.resource_improvement[resource]
    bare = territory(obs, me) & (np.asarray(obs["improvement_map"]).reshape(-1) != improvement)
    ids = np.asarray(pc["city_ids"])[me]
    bare[_tiles(np.asarray(pc["city_rowcols"])[me][ids > 0])] = False
    elevation = np.asarray(obs["elevation_map"]).reshape(-1)
    sea = (elevation == 0) & (np.asarray(obs["lake_map"]).reshape(-1) <= 0)
    on_water = tb.improvement_flags["water"][improvement]
    bare &= np.where(on_water, sea, np.isin(elevation, (1, 2)))
    tech = tb.improvement_tech[improvement]
    known = np.asarray(obs["technologies"])[np.maximum(tech, 0)] > 0
    ok = bare & (resource > 0) & (tech >= 0) & known
    category = np.full(N_TILES, -1)
    for i in np.unique(improvement[ok]):
        cats = np.flatnonzero(tb.category_improvement == i)
        category[ok & (improvement == i)] = cats[0] if len(cats) else -1
    ok &= category >= 0
    rank = np.where(ok, np.array([0, 1, 2, 3])[tb.resource_kind[resource]], 0)
    return rank, category


# a worked tile's improvement is worth this many times one a citizen may take later
WORKED_SITE = 2.0
# yield weights of a tile improvement (food, production, gold ...): food is growth, which the
# buildings' per-citizen yields multiply
SITE_WEIGHTS = np.array([1.5, 1.0, 0.6, 0, 0, 0, 0])
SITE_STEP = 0.1  # an improvement's worth lost per step a worker walks to it


def improvement_sites(obs: dict[str, Any], me: int) -> tuple[np.ndarray, np.ndarray]:
    """(H,) float and int: what the best plain improvement (farm, mine, lumber mill, trading post:
    the table's yields, :data:`SITE_WEIGHTS`) adds to each bare tile of ``me``'s cities, more
    (:data:`WORKED_SITE`) where a citizen works it, and its worker category (-1 none). Tiles with a
    visible resource are left to :func:`resource_sites` (a farm there would keep its own
    improvement out). At round 200 the science bots of seed 14 had 2 to 10 farms, 57 to 73 bare
    tiles of land, and their workers stood in forests they could neither farm nor leave."""
    tb = load_tables()
    flags = tb.improvement_flags
    pc = obs["player_cities"]
    ids = np.asarray(pc["city_ids"])[me]
    bare = territory(obs, me) & (np.asarray(obs["improvement_map"]).reshape(-1) == 0)
    bare &= np.asarray(obs["visible_resources_map_players"]).reshape(-1) <= 0
    bare &= np.asarray(obs["nw_map"]).reshape(-1) <= 0
    centres = _tiles(np.asarray(pc["city_rowcols"])[me][ids > 0])
    bare[centres] = False
    elevation = np.asarray(obs["elevation_map"]).reshape(-1)
    feature = np.asarray(obs["feature_map"]).reshape(-1)
    known = np.asarray(obs["technologies"]) > 0
    value = np.zeros(N_TILES)
    category = np.full(N_TILES, -1)
    for cat, imp in enumerate(tb.category_improvement):
        worth = float(tb.improvement_yields[imp] @ SITE_WEIGHTS) if imp > 0 else 0.0
        if worth <= 0 or flags["needs_resource"][imp] or not known[tb.improvement_tech[imp]]:
            continue
        ok = bare & np.isin(elevation, (1, 2))
        if flags["flat"][imp]:
            ok &= elevation == 1
        if flags["no_feature"][imp]:
            ok &= feature == 0
        if flags["hill_or_resource"][imp]:
            ok &= elevation == 2
        if tb.improvement_feature[imp] >= 0:
            ok &= feature == tb.improvement_feature[imp]
        better = ok & (worth > value)
        value[better], category[better] = worth, cat
    worked = np.zeros(N_TILES, bool)
    slots = np.asarray(pc["worked_slots"])
    for c, centre in zip(np.flatnonzero(ids > 0), centres, strict=True):
        ring = work_area()[centre, 1:]
        worked[ring[(slots[c] > 0) & (ring >= 0)]] = True
    return np.where(worked, WORKED_SITE * value, value), category


def worker_order(
    obs: dict[str, Any],
    me: int,
    slot: int,
    pos: int,
    opts: dict[str, Any] | None = None,
    claimed: list[int] | None = None,
    sites: tuple[tuple[np.ndarray, np.ndarray], ...] | None = None,
) -> dict[str, Any]:
    """Improve the resources of its borders first, luxuries first (each kind is 4 happiness; seed
    0's bots left 5-7 luxury tiles of theirs bare for 60 rounds, their workers farming every tile
    they stood on), then strategic and bonus ones, the nearest first; with none left, the bare tile
    whose improvement adds the most (:func:`improvement_sites`, worked tiles first, less a little a
    step), walking there by land; no roads (each costs 1 gold a turn); with nothing to improve it
    waits. ``claimed``: tiles other workers of this move are bound for (its own tile is its own);
    ``sites``: :func:`resource_sites` and :func:`improvement_sites`, where the caller computed them
    once for all its workers (they are not changed here)."""
    claimed = [] if claimed is None else claimed
    legal_here = None if opts is None else np.asarray(opts["categories"][slot], bool)
    steps = steps_to(obs, me, pos, np.zeros(len(np.asarray(obs["at_war"])), bool))
    if sites is None:
        sites = (resource_sites(obs, me), improvement_sites(obs, me))
    goal, category = -1, np.full(N_TILES, -1)
    for kind, (found, category) in enumerate(sites):
        worth = np.where(np.isfinite(steps), found, 0).astype(float)  # a copy: ``sites`` stay
        if legal_here is not None and category[pos] >= 0 and not legal_here[category[pos]]:
            worth[pos] = 0  # its improvement cannot go here (a rule the map does not show)
        worth[[t for t in claimed if t != pos]] = 0
        if worth.max() > 0:
            if kind == 0:  # a resource: the best rank, the nearest first
                cand = np.flatnonzero(worth == worth.max())
                goal = int(cand[np.argmin(steps[cand] + 0.01 * distance_np(cand, pos))])
            else:
                cand = np.flatnonzero(worth > 0)
                goal = int(cand[np.argmax(worth[cand] - SITE_STEP * steps[cand])])
            break
    if goal < 0:
        return {"categories": ["move"], "targets": [pos]}
    claimed.append(goal)
    if goal == pos:
        return {"categories": [load_tables().category_names[category[pos]]], "targets": [pos]}
    reach = free_reach(obs, me, slot, opts) if opts is not None else None
    if reach is None or not reach.any():
        reach = np.zeros(N_TILES, bool)
        nb = work_area()[pos, :7]
        reach[nb[nb >= 0]] = True
    way = steps_to(obs, me, goal, np.zeros(len(np.asarray(obs["at_war"])), bool))
    return {"categories": ["move"], "targets": progress(way, pos, goal, reach)}


def luxury_deals(obs: dict[str, Any], me: int, order: dict[str, Any], opts: dict[str, Any] | None) -> None:
    """Luxuries for gold, into ``order``: sell a second copy of a luxury for 5 gold a turn (its
    happiness counts once), and, while unhappy with gold to spare and no peace to ask for, offer
    5 gold a turn for a luxury it lacks to whoever may give one."""
    tb = load_tables()
    luxury = tb.resource_kind[1:] == 3  # (52,) trade items FIRST_RESOURCE + r
    copies = np.asarray(obs["player_cities"]["resources_owned"]).sum(0)
    offers = np.asarray(obs["trade_offers"])
    for q in np.flatnonzero(offers[:, 0] >= FIRST_RESOURCE):
        r = int(offers[q, 0]) - FIRST_RESOURCE
        if luxury[r] and copies[r] >= 2 and offers[q, 1] == GOLD_PER_TURN:
            order["accept"] = [*order.get("accept", []), int(q)]
    rich = economy.net_gold(obs, me) >= LUXURY_GOLD or float(np.asarray(obs["treasury"])) >= 10 * LUXURY_GOLD
    if "to" in order or opts is None or float(np.asarray(obs["happiness"])) >= GROWTH_HAPPINESS or not rich:
        return
    lacking = np.flatnonzero(luxury & (copies == 0))
    ask = np.asarray(opts["trade_ask"])[:, FIRST_RESOURCE + lacking]  # (6, k) what each may give
    pay = np.asarray(opts["trade_offer"])[:, GOLD_PER_TURN] & np.asarray(opts["trade_partners"])
    sellers = np.flatnonzero(pay & ask.any(1))
    if len(sellers):
        names = item_names()
        order.update(
            to=[int(q) for q in sellers],
            ask=[names[FIRST_RESOURCE + int(r)] for r in lacking],
            offer=[names[GOLD_PER_TURN]],
        )


def in_turn(obs: dict[str, Any], sellers: np.ndarray) -> list[int]:
    """``sellers`` ranked from a different one each round, for the spaceship's aluminium: the
    engine offers to the first legal counterparty, and one that refuses (a science plan keeps its
    only source) refused every round. In seed 17 a science seat knew Rocketry at round 235 and
    asked its neighbour, which had one source, for 30 rounds, while the diplomat behind it in the
    list had aluminium to spare. The luxury asks keep their order: rotated too, every game took
    another course from its first luxury deal, and 11 of the first 17 six-bot seeds ended in a
    victory against 13 (benchmarks/README.md, "Fourteenth pass")."""
    ranked = [int(q) for q in sellers]
    k = int(obs["current_turn"]) % max(len(ranked), 1)
    return ranked[k:] + ranked[:k]


def resource_sources(obs: dict[str, Any], resource: int) -> tuple[int, int]:
    """The sources of ``resource`` (a resource id) the player has, as the engine counts them: how
    many of its cities have one, and what its deals bring (a source traded away counts -1)."""
    r = resource - 1  # trade items and these arrays skip "none"
    cities = int((np.asarray(obs["player_cities"]["resources_owned"])[:, r] > 0).sum())
    return cities, int(np.asarray(obs["trade_resource_adjustment"])[r])


def deal_rounds(obs: dict[str, Any], item: int) -> int:
    """The most rounds left on the player's deals that bring it trade item ``item`` (0: none)."""
    brings = (np.asarray(obs["trade_ledger"])[..., 1] == item).any(0)  # (10,) ledger slots
    return int(np.asarray(obs["trade_length_ledger"])[brings].max()) if brings.any() else 0


def spaceship_deal(
    obs: dict[str, Any], me: int, plan: str, order: dict[str, Any], opts: dict[str, Any] | None
) -> dict[str, Any]:
    """``order`` with the spaceship's resource seen to for a science plan. The Apollo Program and
    every part need aluminium in the city that builds them, or from a deal (which serves every
    city). Once its tech is known, while fewer of its most productive cities (one for each item
    left to build) have their own than items are left, and no deal brings one for more than
    :data:`RENEW_ROUNDS` rounds, it asks 5 gold a turn for one of whoever may give it (before an
    embassy or a luxury; not before peace), so the parts go up in parallel: seed 12's leader let
    its deal lapse with one part left, since one city had its own, a city of 7 production that
    took the engine from round 282 to the cap. While it is in the race (:func:`in_space_race`) it
    sells none unless more of its cities have their own than items are left: a sale counts
    against its deals (seed 12's leader, with its own in one small city and one bought, sold two
    at once at round 250, and its cities could start no part from then to the cap). Out of the
    race it asks for none and sells its own to whoever asks: in seed 12 the two seats with
    aluminium were science seats that kept their only source, one of them far behind, while the
    leader knew every tech of the spaceship and built none of it. In seed 13 the science bot with
    the most techs had no aluminium in its land: it could never have started the spaceship."""
    if plan != "science":
        return order
    tb = load_tables()
    resource = spaceship_resource()
    item = FIRST_RESOURCE + resource - 1
    cities = resource_sources(obs, resource)[0]
    owned = built_anywhere(obs, me)
    left = sum(not owned[tb.building(name)] for name in SPACESHIP)
    racing = in_space_race(obs, me)
    order = dict(order)
    if "accept" in order and racing and cities <= left:
        offers = np.asarray(obs["trade_offers"])
        order["accept"] = [q for q in order["accept"] if offers[q, 0] != item]
    if (
        not racing
        or deal_rounds(obs, item) > RENEW_ROUNDS
        or strong_sources(obs, me, resource, left) >= left
        or opts is None
        or order.get("ask") == ["peace"]
    ):
        return order
    if not spaceship_open(obs):
        return order
    return ask_for(obs, order, opts, item)


def strong_sources(obs: dict[str, Any], me: int, resource: int, count: int) -> int:
    """How many of ``me``'s ``count`` most productive cities have ``resource`` of their own."""
    pc = obs["player_cities"]
    production = np.asarray(pc["yields"])[:MAX_CITIES, 1].astype(float)
    production[np.asarray(pc["city_ids"])[me][:MAX_CITIES] <= 0] = -np.inf
    best = np.argsort(-production, kind="stable")[:count]
    return int((np.asarray(pc["resources_owned"])[best, resource - 1] > 0).sum())


def in_space_race(obs: dict[str, Any], me: int) -> bool:
    """Whether a science plan may still launch first: it leads the literacy demographic, or its
    science would pay for the spaceship's remaining research by the cap
    (:func:`.strategy.science_reach` of :data:`RACE_REACH`). A seat behind sells its aluminium to
    the leader, whose parts then go up in every city that has a deal."""
    return int(obs["most_literacy"]) == me or strategy.science_reach(obs, me) >= RACE_REACH


def ask_for(obs: dict[str, Any], order: dict[str, Any], opts: dict[str, Any], item: int) -> dict[str, Any]:
    """``order`` asking trade item ``item`` for 5 gold a turn of whoever may give it this turn
    (:func:`in_turn`), or as it was when nobody may."""
    may = np.asarray(opts["trade_ask"])[:, item] & np.asarray(opts["trade_offer"])[:, GOLD_PER_TURN]
    sellers = np.flatnonzero(may & np.asarray(opts["trade_partners"]))
    if not len(sellers):
        return order
    names = item_names()
    return {**order, "to": in_turn(obs, sellers), "ask": [names[item]], "offer": [names[GOLD_PER_TURN]]}


def factory_deal(
    obs: dict[str, Any], plan: str, order: dict[str, Any], opts: dict[str, Any] | None
) -> dict[str, Any]:
    """``order`` with coal asked for by a science plan that knows the factory's tech and has no
    deal for it, 5 gold a turn (after peace and the aluminium; before an embassy or a luxury).
    The factory needs coal in its city or from a deal, and the spaceship factory (+50 % on the
    parts) and the solar plant need a factory: seed 14's science seat knew every tech of the
    spaceship by round 298 with its engine (503 production) left to build in cities making
    34-38 a turn, none with a factory."""
    if plan != "science" or opts is None or order.get("ask") == ["peace"]:
        return order
    names = item_names()
    if order.get("ask") == [names[FIRST_RESOURCE + spaceship_resource() - 1]]:
        return order
    if not knows_tech_of(obs, FACTORY):
        return order
    item = FIRST_RESOURCE + needed_resource(FACTORY) - 1
    if deal_rounds(obs, item) > RENEW_ROUNDS:
        return order
    return ask_for(obs, order, opts, item)


def war_plan(obs: dict[str, Any], me: int, conquest: bool, opts: dict[str, Any] | None) -> dict[str, Any]:
    """The trade order: :func:`.trade.peace_plan` and :func:`luxury_deals`, except that a bot
    playing for domination neither asks for nor accepts peace with the capital it marches on, nor
    with a player in whose land its army stands (a peace sends those units home, across the map),
    and asks every other player it is at war with for peace, winning or not: a war off its route
    spends its army on units rather than capitals."""
    order = dict(peace_plan(obs, me, opts))
    if order.get("ask") != ["peace"] and float(np.asarray(obs["happiness"])) < GROWTH_HAPPINESS:
        for key in ("to", "ask", "offer"):  # a luxury comes before an embassy
            order.pop(key, None)
    luxury_deals(obs, me, order, opts)
    if not conquest:
        return order
    keep = military.hosts(obs, me)
    target = military.campaign_target(obs, me)
    if target is not None:
        keep[target[0]] = True
    order = dict(order)
    if "accept" in order:
        order["accept"] = [p for p in order["accept"] if not keep[p]]
    aside = [int(q) for q in np.flatnonzero(np.asarray(obs["at_war"])[me] > 0) if not keep[q]]
    if "to" in order and order.get("ask") == ["peace"]:
        order["to"] = [p for p in order["to"] if not keep[p]]
        if not order["to"]:
            for key in ("to", "ask", "offer"):
                order.pop(key)
    if aside:
        order.update(to=aside, ask=["peace"], offer=["peace"])
    return order
