"""The strategic bot's army: how big, of which units, and what each unit does this turn.

The army is sized to the plan and the purse (:func:`army_target`: one unit per two cities plus one
in peace, a garrison a city at war, twice that for domination, fewer while the budget runs a
deficit, since a unit's upkeep grows to about 4.7 gold a turn by round 300, and more while the
treasury can pay for them to the cap: gold has no other use, as no endpoint buys anything). A
conquest's army is one siege unit (double strength against cities) in :data:`SIEGE_SHARE`. A unit is obsolete
when its tech is superseded or its strength is under :data:`OBSOLETE_FRACTION` of the best unit
its cities can train: obsolete units do not count toward the army, so modern ones are trained to
replace them (no endpoint disbands or upgrades a unit, so the old ones stay and keep costing).
Each city keeps one unit on its tile (on a march a ranged one, so the melee units, whose blow
alone takes a city, go); one unit explores while the map is unknown
(until round :data:`EXPLORE_ROUNDS`, or :data:`EXPLORE_CAPITALS_ROUNDS` while a rival capital is
unseen: a conquest plays for the capitals it knows); the rest fight the players at war with the
bot, and, under a domination plan with a full army, march on the nearest rival capital it has not
sacked (stepping over its closed border, which the options list as an attack, declares the war),
or, with none in sight (fog), scouts the unseen map for one. The marchers gather
:data:`GATHER` tiles from the capital until :data:`ASSAULT` of them stand there (garrisons
included), then strike together, and keep striking while it is below full health: a city heals
0.2 a turn, so units arriving one by one never bring it down. A wounded melee unit
(:data:`WOUNDED`) strikes only a capital under siege and otherwise rests to heal, stepping away
from a hostile unit next to it.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from hexarena.games.terranova.bots.steps import free_reach, progress, territory
from hexarena.games.terranova.engine import formulas
from hexarena.games.terranova.engine.geometry import COLS, N_TILES, distance_np, neighbors
from hexarena.games.terranova.engine.state import MAX_UNITS
from hexarena.games.terranova.engine.tables import BUILDING_SLOTS, load_tables

SIEGE_CLASS = 4  # catapult .. rocket artillery: x2 against cities

OBSOLETE_FRACTION = 0.6
SIEGE_SHARE = 3  # one siege unit in three of a conquest's army
UNIT_GOLD = 4.0  # a unit's upkeep in gold a turn (about 2 at round 100, 4.7 at 300)
CAPTURE_ROOM = 8  # with fewer free unit slots than this, no blow captures a civilian
MAX_WORKERS = 5  # nor with this many workers (the most the planner trains; seed 7's conqueror held
# ten and two idle settlers, 16 of its 30 slots civilians, and never had the army to march again)
GATHER, ASSAULT = 3, 4  # marchers wait this close to the capital until this many have come
VOLLEYS = 0.4  # and their blows would take this share of its hit points (down in three turns)
CHASE, CHASE_MARCHING = 6, 2  # a unit goes for a hostile unit this near (on a march: in its way)
EXPLORE_ROUNDS = 80  # one unit scouts the unseen map until then, or while a rival capital is unknown
EXPLORE_CAPITALS_ROUNDS = 150
WOUNDED = 0.4  # a melee unit below this health rests rather than strikes (a capital falling excepted)
SCOUT_SPREAD = 4.0  # a march with no capital in sight: each unit picks an unseen tile this much apart
TOP = 12


def _tiles(rowcol: np.ndarray) -> np.ndarray:
    return rowcol[..., 0] * COLS + rowcol[..., 1]


def power(kinds: np.ndarray) -> np.ndarray:
    """Each unit kind's fighting strength: the better of its melee and ranged strength."""
    tb = load_tables()
    k = np.maximum(np.asarray(kinds, int), 0)
    return np.maximum(tb.unit_strength[k], tb.unit_ranged[k]) * (np.asarray(kinds) > 0)


def siege_units(kinds: np.ndarray) -> np.ndarray:
    """Which of ``kinds`` are siege engines (x2 against cities)."""
    k = np.maximum(np.asarray(kinds, int), 0)
    return (load_tables().unit_class[k] == SIEGE_CLASS) & (np.asarray(kinds) > 0)


def best_unit(legal: np.ndarray, siege: bool = False, melee: bool = False) -> str | None:
    """The strongest military unit (``siege``: siege unit; ``melee``: melee unit, the only kind
    whose blow takes a city, as a ranged one leaves it at its last hit point) among the
    buildables ``legal`` (185,), or None."""
    tb = load_tables()
    kinds = np.arange(1, len(tb.unit_names))
    ok = np.asarray(legal)[BUILDING_SLOTS:].astype(bool) & (power(kinds) > 0)
    if siege:
        ok &= tb.unit_class[kinds] == SIEGE_CLASS
    if melee:
        ok &= tb.unit_ranged[kinds] == 0
    if not ok.any():
        return None
    strength = np.where(ok, power(kinds) * 10 + (tb.unit_ranged[kinds] == 0), -1)
    return tb.unit_names[int(kinds[np.argmax(strength)])]


def obsolete(my_kinds: np.ndarray, techs: np.ndarray, best: str | None) -> np.ndarray:
    """(30,) bool: military units superseded by a known tech or far weaker than ``best`` (siege
    units only when superseded: they are weaker in the field and count double against cities)."""
    tb = load_tables()
    k = np.maximum(np.asarray(my_kinds, int), 0)
    military = power(my_kinds) > 0
    superseded = (tb.unit_obsolete[k] & (np.asarray(techs) > 0)[None, :]).any(1)
    top = float(power(np.array([tb.unit(best)]))[0]) if best else 0.0
    weak = (power(my_kinds) < OBSOLETE_FRACTION * top) & (tb.unit_class[k] != SIEGE_CLASS)
    return military & (superseded | weak)


def army_target(n_cities: int, plan: str, gold: float, at_war: bool = False) -> int:
    """Modern military units wanted: one per two cities plus one in peace, a garrison a city plus
    one at war, twice that for domination; one fewer per 3 gold of deficit, and, for a conquest,
    one more per :data:`UNIT_GOLD` of surplus (``gold``: what it may spend a turn,
    :func:`.economy.spendable`)."""
    base = n_cities + 1 if at_war or plan == "domination" else n_cities // 2 + 1
    if plan == "domination":
        base = 2 * base + max(int(gold // UNIT_GOLD), 0)
    if gold < 0:
        base -= int(-gold // 3) + 1
    return max(base, 1 if n_cities else 0)


def known_capitals(obs: dict[str, Any], me: int) -> int:
    """How many rival capitals ``me`` has seen (a conquest's aptitude and route need them)."""
    ids = np.asarray(obs["player_cities"]["city_ids"]) == 1
    ids[me] = False
    return int(ids.any(1).sum())


def wants_scout(obs: dict[str, Any], me: int) -> bool:
    """Whether to train a scout: none alive, a rival capital unseen before round
    :data:`EXPLORE_CAPITALS_ROUNDS` (the first warrior garrisons the capital, and in seed 0 no bot
    had seen a rival capital by round 120, so none could plan a conquest)."""
    scouts = np.asarray(obs["units"]["unit_type"])[me] == load_tables().unit("scout")
    if int(obs["current_turn"]) >= EXPLORE_CAPITALS_ROUNDS or scouts.any():
        return False
    return known_capitals(obs, me) < len(np.asarray(obs["at_war"])) - 1


def land_frontier(obs: dict[str, Any]) -> np.ndarray:
    """(H,) bool: unseen tiles next to seen land, where an explorer can walk on (the nearest unseen
    tile was often across water or behind mountains, and seed 0's explorers stalled there: no bot
    had seen a rival capital by round 100)."""
    elevation = np.asarray(obs["elevation_map"]).reshape(-1)
    land = ((elevation == 1) | (elevation == 2)) & (np.asarray(obs["nw_map"]).reshape(-1) <= 0)
    nb = neighbors()
    by_land = (land[np.maximum(nb, 0)] & (nb >= 0)).any(1)
    return (np.asarray(obs["visibility_map"]).reshape(-1) == 0) & by_land


def trade_frontier(obs: dict[str, Any], me: int) -> np.ndarray:
    """(H,) bool: the :func:`land_frontier` within caravan range of ``me``'s cities, where a city
    state may stand unseen and out of its routes (seed 0's diplomat had three rival allies 4 to 11
    tiles from its cities unseen at round 200, each one tile past its sight, and stopped at 11 of
    12 votes)."""
    pc = obs["player_cities"]
    cities = _tiles(np.asarray(pc["city_rowcols"])[me][np.asarray(pc["city_ids"])[me] > 0])
    frontier = land_frontier(obs)
    if not len(cities):
        return frontier & False
    near = distance_np(np.arange(N_TILES)[:, None], cities[None, :]).min(1)
    return frontier & (near < load_tables().rules["trade_route_range"])


def besieged(obs: dict[str, Any], target: tuple[int, int]) -> bool:
    """Whether the ``target`` (player, tile) capital is seen below its full health (its walls'
    and castle's hit points included, as seen: compared with the base 2.0, a walled capital's
    siege never counted as under way): the siege is on, and every marcher near strikes it (a
    pause of a few turns let it heal back to full)."""
    pc = obs["player_cities"]
    on = _tiles(np.asarray(pc["city_rowcols"])[target[0]]) == target[1]
    hp = np.asarray(pc["hp"])[target[0]][on]
    full = np.asarray(pc["max_hp"])[target[0]][on]
    return bool(len(hp) and 0 <= hp[0] < max(float(full[0]), load_tables().rules["city_max_hp"]))


def volley(obs: dict[str, Any], target: tuple[int, int], kinds: np.ndarray) -> float:
    """How many times over one blow from each of ``kinds`` would take the ``target`` capital's hit
    points as seen (its defence as seen; siege units x2; the combat formula's damage, bonuses
    left out; every blow takes at least 0.2): below :data:`VOLLEYS` the gathered army waits for
    more, as units striking a capital a few at a time lost one a turn and never brought it down."""
    pc = obs["player_cities"]
    on = _tiles(np.asarray(pc["city_rowcols"])[target[0]]) == target[1]
    hp, defence = np.asarray(pc["hp"])[target[0]][on], np.asarray(pc["defense"])[target[0]][on]
    if not len(hp) or defence[0] <= 0:
        return np.inf  # strength unseen: the assault goes as before
    tb = load_tables()
    k = np.maximum(np.asarray(kinds, int), 0)
    siege = np.where(tb.unit_class[k] == SIEGE_CLASS, tb.rules["siege_vs_city"], 1.0)
    attack = np.maximum(tb.unit_strength[k], tb.unit_ranged[k]) * siege
    damage, _ = formulas.combat_damage(attack, float(defence[0]), tb.unit_ranged[k] > 0)
    return float(np.sum(damage)) / max(float(hp[0]), 0.1)


def field_army(obs: dict[str, Any], me: int) -> np.ndarray:
    """Tiles of ``me``'s military units outside its cities (its garrisons stay home)."""
    units, pc = obs["units"], obs["player_cities"]
    kinds = np.asarray(units["unit_type"])[me]
    where = _tiles(np.asarray(units["unit_rowcol"])[me])[(power(kinds) > 0)]
    ids = np.asarray(pc["city_ids"])[me]
    return where[(where >= 0) & ~np.isin(where, _tiles(np.asarray(pc["city_rowcols"])[me][ids > 0]))]


def campaign_target(obs: dict[str, Any], me: int) -> tuple[int, int] | None:
    """The rival capital a conquest marches on: of the unsacked ones, the fewest steps by land
    from its field army (from its capital while the army is home), so that after a sack the army
    goes straight on to the next rather than back across the map, and a capital it cannot walk to
    (over water, or behind a third player's closed border: seed 0's army stood 20 tiles from one
    for 50 rounds) comes after those it can; as the crow flies among those it cannot reach."""
    pc = obs["player_cities"]
    ids, rowcols = np.asarray(pc["city_ids"]), np.asarray(pc["city_rowcols"])
    sacked = np.asarray(obs["has_sacked"])[me]
    field = field_army(obs, me)
    if not len(field):
        mine = np.flatnonzero(ids[me] > 0)
        if not len(mine):
            return None
        field = _tiles(rowcols[me][mine[:1]])
    at_war = np.asarray(obs["at_war"])[me] > 0
    best: tuple[int, int] | None = None
    best_key = (np.inf, np.inf)
    for q in range(len(ids)):
        cap = np.flatnonzero((ids[q] == 1) & (rowcols[q][:, 0] >= 0))
        if q == me or sacked[q] or not len(cap):
            continue
        tile = int(_tiles(rowcols[q][cap[0]]))
        open_to = at_war.copy()
        open_to[q] = True
        key = (float(steps_to(obs, me, tile, open_to)[field].min()), float(distance_np(field, tile).min()))
        if key < best_key:
            best, best_key = (q, tile), key
    return best


def _garrison_rank(kinds: np.ndarray) -> np.ndarray:
    """(30,) a conquest's garrison preference, lowest first: the units worth least at a siege (their
    strength against a city, siege engines x2), the :data:`ASSAULT` strongest melee units last,
    since only a melee blow takes a city. Garrisons taken by distance alone kept seed 18's three
    warriors home while its nineteen composite bowmen held a capital at its last hit point for 100
    rounds; ranked ranged, siege, melee, seed 13's seven siege engines garrisoned its cities while
    nine spearmen and musketmen stood by a capital of defence 38-64 for 50 rounds, each blow
    costing them more hit points than it took from the city (an engine's blow costs it none)."""
    tb = load_tables()
    k = np.maximum(np.asarray(kinds, int), 0)
    worth = power(kinds) * np.where(tb.unit_class[k] == SIEGE_CLASS, tb.rules["siege_vs_city"], 1.0)
    melee = np.flatnonzero((tb.unit_ranged[k] == 0) & (worth > 0))
    worth[melee[np.argsort(-worth[melee], kind="stable")][:ASSAULT]] = np.inf
    return worth


def hosts(obs: dict[str, Any], me: int) -> np.ndarray:
    """(6,) bool: the players in whose territory ``me``'s field army stands (a peace with one
    sends those units home)."""
    owned = np.asarray(obs["player_cities"]["ownership_map"])
    owned = owned.reshape(owned.shape[0], -1, N_TILES).max(1) >= 2
    out = owned[:, field_army(obs, me)].any(1)
    out[me] = False
    return out


def _owners(obs: dict[str, Any], me: int) -> tuple[np.ndarray, np.ndarray]:
    """(H,) the rival player whose unit stands on each tile as seen, and (H,) whose city (-1 none)."""
    units_at, cities_at = np.full(N_TILES, -1), np.full(N_TILES, -1)
    units, pc = obs["units"], obs["player_cities"]
    kinds, where = np.asarray(units["unit_type"]), _tiles(np.asarray(units["unit_rowcol"]))
    ids, rowcols = np.asarray(pc["city_ids"]), np.asarray(pc["city_rowcols"])
    for q in range(len(kinds)):
        if q == me:
            continue
        for out, tiles in ((units_at, where[q][kinds[q] > 0]), (cities_at, _tiles(rowcols[q][ids[q] > 0]))):
            out[tiles[(tiles >= 0) & (tiles < N_TILES)]] = q
    return units_at, cities_at


def _civilians_alone(obs: dict[str, Any], me: int) -> np.ndarray:
    """(H,) bool: tiles where a rival's civilian stands with no rival soldier and no city (a blow
    captures it: it joins the attacker as a worker, in one of its 30 unit slots, which no endpoint
    frees; seed 13's conqueror held 9-11 workers, a third of its slots, while its last assault
    lacked men). In a city the blow strikes the city: masked with the civilians, a capital with a
    worker and no soldier in it was never struck (seed 13's army stood by one for 100 rounds)."""
    units = obs["units"]
    kinds, where = np.asarray(units["unit_type"]), _tiles(np.asarray(units["unit_rowcol"]))
    rival = (np.arange(len(kinds)) != me)[:, None] & (kinds > 0) & (where >= 0) & (where < N_TILES)
    armed = load_tables().unit_strength[np.maximum(kinds, 0)] > 0  # the engine's military units
    civil, soldier = np.zeros(N_TILES, bool), np.zeros(N_TILES, bool)
    civil[where[rival & ~armed]] = True
    soldier[where[rival & armed]] = True
    city = _owners(obs, me)[1] >= 0  # a blow there strikes the city, whatever stands in it
    return civil & ~soldier & ~city


def _first(mask: np.ndarray) -> list[int]:
    return [int(t) for t in np.flatnonzero(mask)[:TOP]]


def _toward(pos: int, goal: int, reach: np.ndarray | None, steps_to: np.ndarray | None = None) -> list[int]:
    """Tiles to step to on the way to ``goal``, nearest to it first (by ``steps_to``, the steps
    from each tile to the goal, where known; else as the crow flies), only those nearer than
    ``pos``, then ``pos`` (:func:`.steps.progress`: it holds its tile when it cannot get nearer)."""
    if reach is None or not reach.any():
        return [goal]
    crow = distance_np(np.arange(N_TILES), goal).astype(float)
    return progress(steps_to if steps_to is not None else crow, pos, goal, reach)


def steps_to(
    obs: dict[str, Any], me: int, goal: int, open_to: np.ndarray, blocked: np.ndarray | None = None
) -> np.ndarray:
    """(H,) steps from each tile to ``goal`` (inf where no way): around mountains, natural wonders,
    water (lakes always, seas until Sailing, with which units embark) and the territory of players
    not in ``open_to`` (6,) (a closed border), so a march does not stall behind them as the
    crow-flies step did; an unseen tile counts as passable (with unseen tiles as walls, seed 0's
    army found no way to a capital it knew and stood still for 50 rounds); ``blocked`` (H,) tiles
    are walls too (the army's own units: one military unit a tile, so the units behind a jam at a
    pass stepped back and forth between two tiles instead of finding the way around it)."""
    elevation = np.asarray(obs["elevation_map"]).reshape(-1)
    land = np.isin(elevation, (-1, 1, 2)) & (np.asarray(obs["nw_map"]).reshape(-1) <= 0)  # -1: unseen
    if np.asarray(obs["technologies"])[load_tables().tech("sailing")] > 0:  # units embark
        land |= (elevation == 0) & (np.asarray(obs["lake_map"]).reshape(-1) <= 0)
    owned = np.asarray(obs["player_cities"]["ownership_map"]).reshape(len(open_to), -1, N_TILES).max(1) >= 2
    closed = owned[[q for q in range(len(open_to)) if q != me and not open_to[q]]].any(0)
    passable = land & ~closed & (~blocked if blocked is not None else True)
    passable[_foreign_cities(obs, me)] = False  # no unit enters one: seed 0's army held by a city on
    # its route for 100 rounds, the route's next step
    nb = neighbors()
    dist = np.full(N_TILES, np.inf)
    dist[goal] = 0.0
    frontier = np.array([goal])
    step = 0
    while len(frontier):
        step += 1
        nxt = nb[frontier].ravel()
        nxt = np.unique(nxt[nxt >= 0])
        nxt = nxt[passable[nxt] & np.isinf(dist[nxt])]
        dist[nxt] = step
        frontier = nxt
    return dist


def _way(pos: int, route: np.ndarray, through: np.ndarray) -> np.ndarray:
    """The steps a marcher on ``pos`` follows: ``route`` (around the army's own units), unless
    every way round is walled (behind its own front line, where it held still for 100 rounds
    five to nine tiles from seed 0's capital): then ``through`` them (it fills the free tiles)."""
    nb = neighbors()[pos]
    return route if np.isfinite(route[nb[nb >= 0]]).any() else through


def _foreign_cities(obs: dict[str, Any], me: int) -> np.ndarray:
    """Tiles of the cities of other players and of city states, as seen."""
    pc, cs = obs["player_cities"], obs.get("citystate_info", {})
    tiles = [_tiles(np.asarray(cs["city_rowcols"]))] if "city_rowcols" in cs else []
    if "city_ids" in pc:
        ids, rowcols = np.asarray(pc["city_ids"]), np.asarray(pc["city_rowcols"])
        tiles += [_tiles(rowcols[q][ids[q] > 0]) for q in range(len(ids)) if q != me]
    out = np.concatenate(tiles) if tiles else np.zeros(0, int)
    return out[(out >= 0) & (out < N_TILES)]


def _claimed(orders: dict[str, Any]) -> np.ndarray:
    """(H,) the tiles the move orders so far go to first."""
    out = np.zeros(N_TILES, bool)
    out[[o["targets"][0] for o in orders.values() if o["categories"][0] == "move" and o["targets"]]] = True
    return out


def _hold(orders: dict[str, Any], slot: int, reach: np.ndarray | None, rank: np.ndarray, pos: int) -> None:
    """Keep a unit where it is best placed: the tile in reach ranked first by ``rank`` (H,), the
    nearest to ``pos`` among equals, its own tile when that ranks first (a move onto it holds it;
    with no order a unit walks to the lowest-numbered tile in reach, north-west)."""
    if reach is None or not reach.any():
        return
    steps = np.flatnonzero(reach)
    best = steps[np.lexsort((distance_np(steps, pos), rank[steps]))][:TOP]
    orders[str(slot)] = {"categories": ["move"], "targets": [int(t) for t in best]}


def _rest(orders: dict[str, Any], slot: int, pos: int, foes: np.ndarray, reach: np.ndarray | None) -> None:
    """A wounded unit heals (0.15 a turn, only in a turn it does not fight): it holds its tile, or,
    with a hostile unit next to it, steps to the tile in reach farthest from the hostile units
    (a melee blow at 0.05 health, as seed 0's pikemen struck, is a unit lost for nothing)."""
    hostile = np.flatnonzero(foes)
    if reach is None or not reach.any():
        return
    if not len(hostile) or distance_np(hostile, pos).min() > 1:
        _hold(orders, slot, reach, distance_np(np.arange(N_TILES), pos), pos)
        return
    steps = np.flatnonzero(reach)
    away = np.min(distance_np(steps[:, None], hostile[None, :]), axis=1)
    farthest = steps[np.argsort(-away, kind="stable")][:TOP]
    orders[str(slot)] = {"categories": ["move"], "targets": [int(t) for t in farthest]}


def unit_orders(
    obs: dict[str, Any],
    me: int,
    march: bool,
    opts: dict[str, Any] | None,
    rng: np.random.Generator,
    courting: bool = False,
) -> dict[str, Any]:
    """Orders for ``me``'s military units (slot -> order): garrison, explore, fight, march.
    ``courting`` (a diplomat) keeps one explorer on the :func:`trade_frontier` at any round."""
    units, pc = obs["units"], obs["player_cities"]
    kinds = np.asarray(units["unit_type"])[me]
    where = _tiles(np.asarray(units["unit_rowcol"])[me])
    military = np.flatnonzero(power(kinds) > 0)
    if not len(military):
        return {}
    ids = np.asarray(pc["city_ids"])[me]
    cities = _tiles(np.asarray(pc["city_rowcols"])[me][ids > 0])
    at_war = np.asarray(obs["at_war"])[me] > 0
    units_at, cities_at = _owners(obs, me)
    target = campaign_target(obs, me)
    hostile = np.zeros(len(at_war), bool)
    hostile[:] = at_war
    if march and target is not None:
        hostile[target[0]] = True
    foes = np.isin(units_at, np.flatnonzero(hostile))  # hostile units
    enemy = foes | np.isin(cities_at, np.flatnonzero(hostile))  # and their cities
    enemy_tiles = enemy.copy()
    capital = np.zeros(N_TILES, bool)
    if march and target is not None:  # crossing its closed border is how the war starts
        enemy_tiles |= territory(obs, target[0])
        capital[target[1]] = True
        enemy_tiles &= ~((cities_at >= 0) & ~capital)  # no blow at another city, garrisoned or not:
        # it heals, units die (seed 0's siege engines shelled a sacked capital's garrison for 50 rounds)
    workers = int((kinds == load_tables().unit("worker")).sum())
    if int((kinds > 0).sum()) >= MAX_UNITS - CAPTURE_ROOM or workers >= MAX_WORKERS:
        # a captured civilian is a worker of ours; masked after the march's land above, which put
        # the target's lone workers back (seed 18's conqueror held 10 workers on its march)
        enemy_tiles &= ~_civilians_alone(obs, me)
    orders: dict[str, Any] = {}
    all_tiles = np.arange(N_TILES)
    scout = kinds == load_tables().unit("scout")
    free = sorted(military, key=lambda s: not scout[s])  # a scout is the explorer, never a garrison
    # garrisons: the unit nearest each city without one holds it; on a march, a ranged one first
    taker = _garrison_rank(kinds) if march and target is not None else np.zeros(len(kinds))
    for city in cities:
        guards = [s for s in free if not scout[s]]
        if not guards:
            break
        pick = guards[int(np.lexsort((distance_np(where[guards], int(city)), taker[guards]))[0])]
        free.remove(pick)
        reach = free_reach(obs, me, int(pick), opts)
        attack = np.asarray(opts["attack"])[pick] & enemy_tiles if opts is not None else None
        if attack is not None and attack.any() and where[pick] == city:
            orders[str(pick)] = {"categories": ["combat"], "targets": _first(attack)}
        elif where[pick] != city:
            home = _toward(int(where[pick]), int(city), reach)
            orders[str(pick)] = {"categories": ["move"], "targets": home}
        else:
            _hold(orders, pick, reach, distance_np(all_tiles, int(city)), int(city))
    vis = np.asarray(obs["visibility_map"]).reshape(-1)
    turn = int(obs["current_turn"])
    unknown = known_capitals(obs, me) < len(at_war) - 1
    explorer = (vis == 0).any() and (turn < EXPLORE_ROUNDS or (turn < EXPLORE_CAPITALS_ROUNDS and unknown))
    frontier = land_frontier(obs) if explorer else trade_frontier(obs, me) if courting else None
    explorer = frontier is not None and frontier.any()
    assault, route, around, siege = False, None, None, False
    if march and target is not None:
        near = military[distance_np(where[military], target[1]) <= GATHER + 2]  # a ring of hills, water
        # or enemy units kept seed 0's army five tiles out: counted at four, it never gathered
        siege = besieged(obs, target)
        assault = siege or (len(near) >= ASSAULT and volley(obs, target, kinds[near]) >= VOLLEYS)
    health = np.asarray(units["health"])[me]
    old = obsolete(kinds, obs["technologies"], None)
    melee = load_tables().unit_ranged[np.maximum(kinds, 0)] == 0
    for slot in free:
        pos = int(where[slot])
        reach = free_reach(obs, me, int(slot), opts)
        if reach is not None:  # a tile an earlier unit moves to this turn blocks a later one (a stay)
            here = bool(reach[pos])
            reach = reach & ~_claimed(orders)
            reach[pos] = here
        if reach is not None and march and target is not None and not melee[slot]:
            # a ranged unit strikes from two tiles out: the six tiles round the capital are for
            # the melee units, whose blow alone takes it (ranged units there held every one)
            reach = reach & (distance_np(np.arange(N_TILES), target[1]) >= 2)
        attack = np.asarray(opts["attack"])[slot] & enemy_tiles if opts is not None else None
        if attack is not None and not assault:
            attack = attack & ~capital  # no lone blow at the capital: it heals before the next
        if attack is not None and attack.any() and melee[slot] and health[slot] < WOUNDED:
            # a wounded melee unit's blow only at a falling capital, or at the capital at all when
            # it is obsolete: dead, it frees its slot for a unit of its era (no endpoint disbands
            # one). Seed 13's eleven spearmen rested and healed by a capital of defence 28 to 73
            # for 100 rounds, in 11 of its 30 slots, and the army never had a unit of its era
            attack = attack & capital & (siege | old[slot])
            if not attack.any():
                _rest(orders, slot, pos, foes, reach)
                continue
        if attack is not None and attack.any():
            first = _first(attack & capital) + _first(attack & enemy & ~capital) + _first(attack & ~enemy)
            orders[str(slot)] = {"categories": ["combat", "move"], "targets": first[:TOP]}
            continue
        d = distance_np(all_tiles, pos)
        # a foe it may strike (seed 0's army held 100 rounds beside a city on its way, chasing the
        # garrison of a city a march does not strike)
        seen_enemy = np.flatnonzero(foes & enemy_tiles & (d <= (CHASE_MARCHING if march else CHASE)))
        if len(seen_enemy):
            goal = int(seen_enemy[np.argmin(d[seen_enemy])])
        elif march and target is not None:
            goal = target[1]
            if not assault and d[goal] <= GATHER:  # waits for the others before the assault
                _hold(orders, slot, reach, np.abs(distance_np(all_tiles, goal) - GATHER), pos)
                continue
            if route is None:  # through the lands of the target and of the bot's foes only (a
                # peace sends home the units in one's land), around the tiles its units stand on
                jam = np.zeros(N_TILES, bool)
                jam[where[military][(where[military] >= 0) & (where[military] < N_TILES)]] = True
                route = steps_to(obs, me, goal, hostile, jam)
                # behind its own front line every way round is walled: the way through it, then
                around = steps_to(obs, me, goal, hostile)
            orders[str(slot)] = {
                "categories": ["move"],
                "targets": _toward(pos, goal, reach, _way(pos, route, around)),
            }
            continue
        elif explorer:
            explorer = False
            edge = np.flatnonzero(frontier)
            goal = int(edge[np.argmin(d[edge] + SCOUT_SPREAD * rng.random(len(edge)))])
            way = steps_to(obs, me, goal, at_war)
            orders[str(slot)] = {"categories": ["move"], "targets": _toward(pos, goal, reach, way)}
            continue
        elif march and (vis == 0).any():  # no unsacked rival capital known: the army scouts for
            unseen = np.flatnonzero(vis == 0)  # one (after a sack it stood idle for 80 rounds)
            goal = int(unseen[np.argmin(d[unseen] + SCOUT_SPREAD * rng.random(len(unseen)))])
        else:  # a reserve: stays about where it stands (inside its borders)
            _hold(orders, slot, reach, d, pos)
            continue
        # a move only: with combat ranked first the engine would strike the best-scored attack
        # option, and with none of the targets one, any (a neutral's border, which starts a war)
        orders[str(slot)] = {"categories": ["move"], "targets": _toward(pos, goal, reach)}
    return orders
