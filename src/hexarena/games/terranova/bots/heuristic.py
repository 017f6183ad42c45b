"""A simple heuristic player: expand early, improve land, explore, attack what it can see.

It reads only its own observation and answers with a sparse preference move, so the resolver
still guarantees legality: a preference that cannot be executed falls through to the next one.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from hexarena.core.contract import GameState
from hexarena.core.frozen import thaw
from hexarena.core.players import RandomPlayer, Reply, SeededPlayer
from hexarena.games.terranova.bots import seat_environment
from hexarena.games.terranova.bots.caravans import caravan_order, wants_caravan
from hexarena.games.terranova.bots.military import steps_to
from hexarena.games.terranova.bots.religion import tenet_order
from hexarena.games.terranova.bots.steps import free_reach, progress
from hexarena.games.terranova.bots.trade import peace_plan
from hexarena.games.terranova.engine.geometry import COLS, N_TILES, distance_np, work_area
from hexarena.games.terranova.engine.state import MAX_CITIES
from hexarena.games.terranova.engine.tables import BUILDING_SLOTS, load_tables

WORKER_BUILDS = ("farm", "mine", "pasture", "plantation", "camp", "quarry", "road", "move")
BUILD_ORDER = ("monument", "shrine", "granary", "library", "warrior", "walls", "market", "archer", "worker")
# the early policies, most wanted first: culture for more policies (Tradition's +3 in the capital,
# Liberty's +1 a city, Legalism's free monuments), then production and expansion (Republic,
# Collective Rule's free settler, Citizenship's free worker), then food and gold in the capital
POLICY_FIRST = (
    "tradition_opener",
    "liberty_opener",
    "legalism",
    "republic",
    "collective_rule",
    "citizenship",
    "landed_elite",
    "monarchy",
    "representation",
    "meritocracy",
)
# then the rest tree by tree: Tradition and Liberty, Piety, Rationalism and Commerce for faith,
# science and gold once their eras open; Honor last (the bot rarely fights)
POLICY_TREES = (
    "tradition",
    "liberty",
    "piety",
    "rationalism",
    "commerce",
    "patronage",
    "aesthetics",
    "exploration",
    "honor",
)
# pantheons that help every city of a growing empire come first (food and faster borders, +1
# production a city, the capital's all-round yields, happiness, connected cities), then every
# tenet by the yields it would give now (:func:`.bot_religion.tenet_order`); a tenet another
# player took is skipped by the resolver
PANTHEONS = (
    "religious_settlements",
    "god_of_craftsmen",
    "god_king",
    "goddess_of_love",
    "messenger_of_the_gods",
    "ancestor_worship",
)
MAX_WANTED_CITIES = 6
# worked tiles' value per yield (food, production, gold, ...) in a city training a settler and in
# one growing; the food surplus kept while training a settler (pop 2+)
SETTLING_WEIGHTS = (2.5, 3.0, 1.0, 0, 0, 0, 0)
GROWING_WEIGHTS = (3.0, 2.0, 1.0, 0, 0, 0, 0)
SETTLING_SURPLUS = 0
SETTLER_PRODUCTION = 4  # a city making less builds for itself (a settler would take 12+ turns)
TOP = 12  # ranked targets per unit (keeps moves small)
# a settler's walk: each tile costs about what a good tile of the new city gives (a turn of walking
# is a turn of that city's yields lost), sites further than MAX_WALK are not considered, and one
# GOOD_ENOUGH as the goal's site is settled on the way
WALK_COST, MAX_WALK, GOOD_ENOUGH = 8.0, 8, 0.8
UNSEEN_SITE = 0.7  # an unseen site's value, relative to a seen one like it


def _tiles(rowcol: np.ndarray) -> np.ndarray:
    return rowcol[..., 0] * COLS + rowcol[..., 1]


class HeuristicPlayer(SeededPlayer):
    """Expands to six cities (the capital trains settlers, which walk to the best site near by),
    researches the cheapest open tech, adopts culture and expansion policies first
    (:data:`POLICY_FIRST`), takes an empire-wide pantheon (:data:`PANTHEONS`) and then the
    tenets worth most to it (:mod:`.bot_religion`), works production-heavy tiles while training
    settlers without letting a city starve, gives new cities culture and faith buildings, builds
    caravans for its route slots and sends them to city states (:mod:`.bot_caravans`), takes fair
    deals and makes peace when losing (:mod:`.bot_trade`), improves land, explores.

    Each endpoint has its own function (:func:`policy_order`, :func:`tenet_order`,
    :func:`build_order`, :func:`work_ranking`, :func:`site_values`), so a mechanic that lands
    later (trade deals, caravans, city states, great people) adds one of its own to :func:`plan`."""

    kind = "easy"  # the first bot; ``heuristic`` is now :class:`.planner.StrategicPlayer`

    def act(self, view: GameState) -> Reply:
        env = seat_environment(view)
        return Reply(move=plan(env.view, env.viewer, self.rng, env.options))


def game_against_random(seed: int, rounds: int, bot: type[SeededPlayer] = HeuristicPlayer) -> GameState:
    """A seeded game of ``bot`` (red, seat 0; this one by default) against five uniform random
    players, played to its end after ``rounds`` rounds (``python -m benchmarks terranova_bot``
    plays 50 of them with the ``heuristic`` bot). A legal move is one order with the default for
    the rest; a random player here gives its one order alone (the rest scoring zero), so the
    baseline stays random rather than the default's."""
    import hexarena  # the registry imports the adapter, which imports this module

    state = hexarena.make("terranova", seed=seed, turn_cap=rounds)
    players = {
        r: bot(seed=seed) if i == 0 else RandomPlayer(seed=seed * 7 + i)
        for i, r in enumerate(state.all_roles())
    }
    for role, player in players.items():
        player.reset((role,), seed)
    while not state.is_over():
        role = state.roles[0]
        move = players[role].act(state.query_game(role)).move
        if role != state.all_roles()[0]:
            move = {k: v for k, v in thaw(move).items() if k != "fill"} or {"tech": []}
        state = state.apply(move)
        if state.message is not None:
            raise RuntimeError(f"the {role} player's move was refused: {state.message}")
    return state


def default_orders(obs: dict[str, Any], me: int, opts: dict[str, Any] | None = None) -> dict[str, Any]:
    """The default for every endpoint a text move leaves out: the bot's plan, with its random
    tie-breaks drawn from a generator seeded by the round and the player (so replays agree)."""
    return plan(obs, me, np.random.default_rng([int(obs["current_turn"]), me]), opts)


def plan(
    obs: dict[str, Any], me: int, rng: np.random.Generator, opts: dict[str, Any] | None = None
) -> dict[str, Any]:
    """The heuristic's sparse move for player ``me`` from its observation (and, when given, its
    options this turn, :mod:`.options`: then settlers and workers only aim at what they can do)."""
    tb = load_tables()
    known = obs["technologies"] > 0
    legal = ~known & np.all(~tb.tech_prereq | known, axis=1)
    techs = [tb.tech_names[t] for t in np.flatnonzero(legal)[np.argsort(tb.tech_cost[legal], kind="stable")]]
    units = obs["units"]
    kinds, where = units["unit_type"], _tiles(units["unit_rowcol"])
    cities = obs["player_cities"]
    mine = np.flatnonzero(cities["city_ids"][me] > 0)
    all_tiles = np.arange(N_TILES)
    vis = obs["visibility_map"].reshape(-1)
    enemies = np.concatenate(
        [where[p][kinds[p] > 0] for p in range(len(kinds)) if p != me]
        + [_tiles(cities["city_rowcols"][p][cities["city_ids"][p] > 0]) for p in range(len(kinds)) if p != me]
    )
    sites = site_values(obs, me)
    claimed: list[int] = []  # sites other settlers of this move aim at
    orders: dict[str, Any] = {}
    for slot in np.flatnonzero(kinds[me] > 0):
        pos, name = int(where[me, slot]), tb.unit_names[kinds[me, slot]]
        d = distance_np(all_tiles, pos)
        if name == "settler":
            orders[str(slot)] = settler_order(obs, me, int(slot), sites, claimed, opts)
        elif name == "caravan":
            orders[str(slot)] = caravan_order(obs, me, pos, opts, int(slot))
        elif name == "worker":
            owned = obs["player_cities"]["ownership_map"][me].reshape(len(cities["city_ids"][me]), -1) >= 2
            bare = owned.any(0) & (obs["improvement_map"].reshape(-1) == 0)
            bare[pos] = False  # it builds here if it can; else it walks on (a move here is a stay)
            orders[str(slot)] = {
                "categories": list(WORKER_BUILDS),
                "targets": _best(-d.astype(float), bare),
            }
        else:
            near_enemy = np.isin(all_tiles, enemies) & (d <= 2)
            frontier = (vis == 0) & (d <= 8)
            value = np.where(near_enemy, 100.0, 0.0) - d + rng.random()
            # "combat" only with an enemy in sight: entering closed borders would declare war
            categories = ["combat", "move"] if near_enemy.any() else ["move"]
            orders[str(slot)] = {"categories": categories, "targets": _best(value, near_enemy | frontier)}
    constructing = np.asarray(cities["is_constructing"])[mine]
    builds = build_order(len(mine), kinds[me], constructing, wants_caravan(obs, me))
    # every slot gets an order, so a city founded during this very move starts at once (on a
    # monument: a new city's first build is locked in, and a settler would take it 20+ turns);
    # settlers come from the capital and from cities making SETTLER_PRODUCTION or more
    prod = np.asarray(cities["yields"])[:, 1]
    capital = np.asarray(cities["city_ids"])[me] == 1
    slow = [b for b in builds if b != "settler"]
    founding = not len(mine)  # the capital, founded this move, starts on a settler
    build = {
        str(c): builds if (c in mine and (capital[c] or prod[c] >= SETTLER_PRODUCTION)) or founding else slow
        for c in range(MAX_CITIES)
    }
    work = {str(c): work_ranking(obs, me, int(c), build[str(c)][0] == "settler") for c in mine}
    return {
        "tech": techs,
        "policy": list(policy_order()),
        "tenet": list(tenet_order(obs, me, PANTHEONS)),
        "units": orders,
        "build": build,
        "work": work,
        "trade": peace_plan(obs, me, opts),
    }


def work_ranking(
    obs: dict[str, Any],
    me: int,
    city: int,
    settling: bool,
    weights: tuple[float, ...] | None = None,
    food_bonus: float = 0.0,
    hold: bool = False,
) -> list[int]:
    """City ``city``'s 36 work-area slots, best first (its citizens take the first ones it owns).

    Tiles are valued food and production about even while the city trains a settler (food first
    otherwise; ``weights`` per yield replace either); its citizens' tiles are picked so the city
    never starves: a food surplus of one (it grows), or none while a city of two or more trains a
    settler (production matters more then), the food weight rising until they do (``food_bonus``:
    food the city has beyond its centre and its tiles, its buildings'); ``hold``: no surplus, so
    the city does not grow)."""
    cities = obs["player_cities"]
    centre = int(_tiles(cities["city_rowcols"][me][city]))
    ring = work_area()[centre, 1:]
    owned = cities["ownership_map"][me][city].reshape(-1)[np.maximum(ring, 0)] == 2
    y = obs["yield_map_players"].reshape(-1, 7)[np.maximum(ring, 0)]
    w = np.array(weights if weights is not None else SETTLING_WEIGHTS if settling else GROWING_WEIGHTS)
    value = np.where((ring >= 0) & owned, y @ w, -np.inf)
    pop = int(cities["population"][me][city])
    food_in = float(np.asarray(cities["city_center_yields"])[city][0]) + food_bonus
    surplus = 0 if hold else SETTLING_SURPLUS if settling and pop > 1 else 1
    chosen = np.argsort(-value, kind="stable")[:pop]
    for food_weight in (1.0, 2.0, 4.0, 8.0):
        if food_in + y[chosen, 0].sum() >= 2 * pop + surplus:
            break
        chosen = np.argsort(-(value + food_weight * y[:, 0]), kind="stable")[:pop]
    if hold:
        chosen = _trim_surplus(chosen, value, y[:, 0], 2 * pop - food_in)
    picked = set(chosen.tolist())
    rest = [j for j in np.argsort(-value, kind="stable") if j not in picked]
    return [int(j) for j in (*chosen, *rest)]


def _trim_surplus(chosen: np.ndarray, value: np.ndarray, food: np.ndarray, need: float) -> np.ndarray:
    """``chosen`` worked slots with their food surplus over ``need`` swapped away, one slot at a
    time, each swap the one losing the least ``value`` among those that keep the city fed: the
    food weights' steps overshoot by one to four food, and held cities grew anyway (in seed 0, a
    bot at -13 to -3 happiness went from 20 to 35 citizens in 40 rounds)."""
    chosen = chosen.copy()
    for _ in range(len(chosen)):
        extra = float(food[chosen].sum()) - need
        if extra <= 0:
            break
        rest = np.setdiff1d(np.flatnonzero(np.isfinite(value)), chosen)
        if not len(rest):
            break
        cut = food[chosen][:, None] - food[rest][None, :]  # food saved by swapping i for j
        loss = np.where((cut > 0) & (cut <= extra), value[chosen][:, None] - value[rest][None, :], np.inf)
        if not np.isfinite(loss).any():
            break
        i, j = np.unravel_index(np.argmin(loss), loss.shape)
        chosen[i] = rest[j]
    return chosen


def policy_order() -> tuple[str, ...]:
    """All 54 policies ranked: :data:`POLICY_FIRST`, then tree by tree (:data:`POLICY_TREES`) in
    table order inside a tree (the resolver adopts the first one legal now)."""
    tb = load_tables()
    rank = [POLICY_TREES.index(tb.tree_names[t]) for t in tb.policy_tree]
    rest = [tb.policy_names[i] for i in np.argsort(rank, kind="stable")]
    return (*POLICY_FIRST, *(p for p in rest if p not in POLICY_FIRST))


def site_values(obs: dict[str, Any], me: int) -> np.ndarray:
    """(H,) how good each tile is for a new city (-inf where a city may not or should not go):
    the yields of its first two rings (unseen tiles count as average), on seen land, away from
    every known city and city state, outside other players' borders."""
    rules = load_tables().rules
    vis = obs["visibility_map"].reshape(-1)
    elev = obs["elevation_map"].reshape(-1)
    y = obs["yield_map_players"].reshape(-1, 7)
    tile_value = np.where(vis > 0, 2 * y[:, 0] + 1.5 * y[:, 1] + y[:, 2], 3.0)
    area = work_area()[:, :19]
    around = np.where(area >= 0, tile_value[np.maximum(area, 0)], 0.0)
    value = around[:, :7].sum(1) + 0.5 * around[:, 7:].sum(1)
    pc = obs["player_cities"]
    known = _tiles(pc["city_rowcols"][pc["city_ids"] > 0])
    cs = _tiles(obs["citystate_info"]["city_rowcols"])
    taken = np.concatenate([known, cs[cs >= 0]])
    land = (vis > 0) & ((elev == 1) | (elev == 2)) & (obs["nw_map"].reshape(-1) == 0)
    # an unseen tile is a guess (a settler walking there sees it before it arrives): it counts,
    # discounted, so a settler whose seen surroundings are all taken still has somewhere to go
    ok = land | (vis == 0)
    value = np.where(vis > 0, value, UNSEEN_SITE * value)
    ok &= obs["cs_ownership_map"].reshape(-1) <= 0  # -1: unseen
    owners = pc["ownership_map"].reshape(pc["ownership_map"].shape[0], -1, N_TILES).max(1) >= 2
    ok &= ~np.delete(owners, me, axis=0).any(0)
    if len(taken):
        near = np.min(distance_np(np.arange(N_TILES)[:, None], taken[None, :]), axis=1)
        ok &= near >= rules["city_min_distance"]
    return np.where(ok, value, -np.inf)


def settler_order(
    obs: dict[str, Any],
    me: int,
    slot: int,
    sites: np.ndarray,
    claimed: list[int],
    opts: dict[str, Any] | None,
    stranded_walk: bool = False,
) -> dict[str, Any]:
    """Found the city here when this is (nearly) the best site in reach, else walk to the best
    (holding its tile when no step gets nearer). ``stranded_walk``: with no site within
    :data:`MAX_WALK` steps, the best one at any distance by land (a settler whose sites were taken
    held its slot, one of 30, for the rest of the game)."""
    pos = int(_tiles(np.asarray(obs["units"]["unit_rowcol"])[me, slot]))
    closed = np.zeros(len(np.asarray(obs["at_war"])), bool)  # a settler crosses no foreign border
    d = steps_to(obs, me, pos, closed)  # steps by land (a site across water was a goal it never
    # reached: seed 0's settlers stood still for 100 rounds)
    here_ok = opts is None or bool(opts["categories"][slot][1])
    if not here_ok:  # no city here (a rule the site values do not see): it would hold its tile
        sites = np.where(np.arange(N_TILES) == pos, -np.inf, sites)
    score = sites - WALK_COST * d
    far = score.copy()
    score[d > MAX_WALK] = -np.inf
    if stranded_walk and not np.isfinite(score).any():
        score = far
    for t in claimed:
        score[distance_np(np.arange(N_TILES), t) < 4] = -np.inf
    if not np.isfinite(score).any():
        return {
            "categories": ["settle", "move"],
            "targets": [int(t) for t in work_area()[pos, 1:7] if t >= 0],
        }
    goal = int(np.argmax(score))
    claimed.append(goal)
    good_enough = sites[pos] >= score[goal] - 4.0 or sites[pos] >= GOOD_ENOUGH * sites[goal]
    settle_now = here_ok and np.isfinite(sites[pos]) and good_enough
    reach = free_reach(obs, me, slot, opts) if opts is not None else None
    if reach is None or not reach.any():
        reach = np.zeros(N_TILES, bool)
        nb = work_area()[pos]
        reach[nb[nb >= 0]] = True
    towards = progress(steps_to(obs, me, goal, closed), pos, goal, reach)
    categories = ["settle", "move"] if settle_now else ["move", "settle"]
    return {"categories": categories, "targets": towards}


def build_order(
    n_cities: int, my_kinds: np.ndarray, constructing: np.ndarray, caravan: bool = False
) -> list[str]:
    """A defender when there is none, settlers up to six cities (counting those under way), a
    worker per three cities, then culture (a monument), a caravan when ``caravan`` (a route slot
    is free: the build cap stops more than the slots), faith, food, science and defence buildings."""
    tb = load_tables()
    settler_item = BUILDING_SLOTS + tb.unit("settler") - 1
    have = {name: int((my_kinds == tb.unit(name)).sum()) for name in ("settler", "worker")}
    military = int((tb.unit_strength[my_kinds.astype(int)] > 0).sum())
    order = []
    if military == 0:
        order.append("warrior")
    if n_cities + have["settler"] + int((constructing == settler_item).sum()) < MAX_WANTED_CITIES:
        order.append("settler")
    if have["worker"] < n_cities // 3:
        order.append("worker")
    rest = [b for b in BUILD_ORDER if b not in order]
    if caravan:
        rest.insert(rest.index("monument") + 1, "caravan")
    return order + rest


def _best(value: np.ndarray, mask: np.ndarray) -> list[int]:
    idx = np.flatnonzero(mask)
    return [int(t) for t in idx[np.argsort(-value[idx], kind="stable")][:TOP]]
