"""The unit phase of a player's turn: worker builds finish, then each of the 30 slots acts once.

A slot's action is resolved from the player's preferences: the best legal category (masked
argmax over 19 scores), then the best legal target tile for it (masked argmax over 2772 scores).
Categories: 0 move, 1 settle, 2-15 worker builds, 16-17 caravans (``trade_routes``), 18 combat.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp

from hexarena.games.terranova.engine import formulas
from hexarena.games.terranova.engine.effects import empire_modifier_columns, empire_modifiers, kill_yields
from hexarena.games.terranova.engine.geometry import (
    COLS,
    N_TILES,
    N_WORK,
    ROWS,
    axial,
    window_neighbors,
    window_offsets,
)
from hexarena.games.terranova.engine.rules import trade, trade_routes
from hexarena.games.terranova.engine.state import MAX_CITIES, MAX_UNITS, GameState
from hexarena.games.terranova.engine.tables import CULTURE, FAITH, GOLD, SCIENCE, load_tables
from hexarena.games.terranova.engine.world import (
    IMPASSABLE,
    Occupancy,
    const,
    distance_from,
    enter_cost,
    is_military,
    masked_argmax,
    occupancy,
    top_era,
    work_frames,
)

MOVE, SETTLE, COMBAT = 0, 1, 18
MAX_RANGE = 3  # the longest strike of a ranged unit
FIRST_BUILD, LAST_BUILD = 2, 15
MIN_CITY_HP = 0.01  # ranged attacks leave a city this much (1 of its 200 hit points)


def finish_builds(state: GameState, p: jax.Array) -> GameState:
    """Decrement worker builds of player ``p``; builds reaching zero change their tile."""
    tb = load_tables()
    u, t = state.units, state.tiles
    turns = u.engaged_turns[p]
    finishing = (turns == 1) & (u.kind[p] > 0)
    cat = jnp.maximum(u.engaged_action[p].astype(jnp.int32), 0)
    builds = finishing & (cat >= FIRST_BUILD) & (cat <= LAST_BUILD)  # a caravan's route ends too
    imp = const(tb.category_improvement)[cat]
    is_road = imp == tb.improvement_names.index("road")
    removes = const(tb.improvement_flags["removes_feature"])[imp]
    pos = u.pos[p]

    def at(mask: jax.Array) -> jax.Array:
        return jnp.where(builds & mask, pos, N_TILES)

    tiles = t._replace(
        road=t.road.at[at(is_road)].set(True, mode="drop"),
        feature=t.feature.at[at(removes)].set(0, mode="drop"),
        improvement=t.improvement.at[at(~is_road & ~removes)].set(imp.astype(jnp.int8), mode="drop"),
    )
    units = u._replace(
        engaged_turns=u.engaged_turns.at[p].set(jnp.maximum(turns - 1, 0).astype(jnp.int8)),
        engaged_action=u.engaged_action.at[p].set(jnp.where(finishing, -1, u.engaged_action[p])),
    )
    return state._replace(tiles=tiles, units=units)


def window_tiles(pos: jax.Array) -> jax.Array:
    """(469,) tiles within REACH_RADIUS of ``pos`` in window order, -1 beyond the map's edge."""
    q, r = (const(a)[pos] for a in axial())
    off = const(window_offsets())
    wq, row = q + off[:, 0], r + off[:, 1]
    col = (wq + (row - (row & 1)) // 2) % COLS
    return jnp.where((row >= 0) & (row < ROWS), row * COLS + col, -1)


class Reach(NamedTuple):
    """A unit's movement this turn over the window around it (window order, centre first)."""

    tiles: jax.Array  # (W,) map tile of each window slot, -1 off the map
    spent: jax.Array  # (W,) moves spent to stand there, inf where it cannot
    moves: jax.Array  # () moves the unit has
    stand: jax.Array  # (W,) bool: it may end a move there (its own tile included)


def reach_window(state: GameState, p: jax.Array, slot: jax.Array, occ: Occupancy) -> Reach:
    """Where unit (p, slot) can go this turn and at what cost (Civ V: a last step may overspend).

    Bellman-Ford over the 469 tiles within REACH_RADIUS (12) of the unit, repeated until nothing
    changes (at most 3 rounds per move, as a road step costs a third): exact for every unit of up
    to 4 moves (all but the tank, airship and helicopter), roads included; those three are searched
    up to 12 tiles away (a tank on roads could go 15, a helicopter 24).

    Why 12: the batch-1 benchmark (``benchmarks.terranova_bench.bench_batch(1)``, 120 player turns,
    process CPU seconds per step on the shared 2-core machine) measured 0.0137 s at radius 10 (3
    runs: 0.0137, 0.0139, 0.0134), 0.0138 at 12 (0.0138, 0.0137), 0.0145 at 15 (+6 %) and 0.0171
    at 24 (+25 %, every unit exact). The original needs no more than 10: its road discount
    (``ROAD_MOVEMENT_DISCOUNT``, a step costs max(1, cost - 0.5)) never lets a step cost less than
    one move, so its units reach at most their moves (8, the helicopter) a turn; roads here cost a
    third of a move, as Civilization V, which carries a 4-move unit 12 tiles.
    """
    tb = load_tables()
    u = state.units
    kind, pos, moves = u.kind[p, slot], u.pos[p, slot], u.moves[p, slot]
    tiles = window_tiles(jnp.maximum(pos, 0))
    valid = tiles >= 0
    lt = jnp.maximum(tiles, 0)
    lnb = const(window_neighbors())
    nb_ok = (lnb >= 0) & valid[jnp.maximum(lnb, 0)]
    lnb = jnp.maximum(lnb, 0)
    sailing = state.players.techs[p, tb.tech("sailing")]
    cost = enter_cost(state, sailing)[lt]
    mil_owner = jnp.where(occ.military >= 0, occ.military // MAX_UNITS, -1)[lt]
    civ_owner = jnp.where(occ.civilian >= 0, occ.civilian // MAX_UNITS, -1)[lt]
    foreign = ((mil_owner >= 0) & (mil_owner != p)) | ((civ_owner >= 0) & (civ_owner != p))
    foreign |= ((occ.city_owner[lt] >= 0) & (occ.city_owner[lt] != p)) | occ.cs_city[lt]
    foreign |= closed_borders(state, p)[lt]
    passable = (cost < IMPASSABLE) & ~foreign & valid
    road = (state.tiles.road | (occ.city_owner >= 0))[lt]
    # step_cost[i, d]: entering i from its neighbour in direction d. Roads cost a third; crossing a
    # river (without a bridge: Engineering) or embarking / landing takes every move left.
    on_road = road[:, None] & road[lnb]
    river = ((state.layers.river[lt][:, None] >> jnp.arange(6, dtype=jnp.uint8)) & 1) > 0
    bridges = state.players.techs[p, tb.tech("engineering")]
    water = (state.layers.elevation == 0)[lt]
    shore = water[:, None] != water[lnb]
    step_cost = jnp.where(on_road & (~river | bridges), 1.0 / 3.0, cost[:, None])
    step_cost = jnp.where((river & ~(on_road & bridges)) | shore, jnp.maximum(moves, 1.0), step_cost)
    dist0 = jnp.where(jnp.arange(tiles.shape[0]) == 0, 0.0, jnp.inf)

    def relax(dist: jax.Array) -> jax.Array:
        from_nb = jnp.where(nb_ok, dist[lnb], jnp.inf)
        cand = jnp.where(from_nb < moves, jnp.minimum(from_nb + step_cost, moves), jnp.inf)
        return jnp.minimum(dist, jnp.where(passable, cand.min(1), jnp.inf))

    def changing(carry: tuple[jax.Array, jax.Array, jax.Array]) -> jax.Array:
        dist, before, rounds = carry
        return (rounds < 3 * moves) & (dist != before).any()

    def another(carry: tuple[jax.Array, jax.Array, jax.Array]) -> tuple[jax.Array, jax.Array, jax.Array]:
        dist, _, rounds = carry
        return relax(dist), dist, rounds + 1

    dist = jax.lax.while_loop(changing, another, (relax(dist0), dist0, jnp.ones((), moves.dtype)))[0]
    own_same = jnp.where(is_military(kind), mil_owner == p, civ_owner == p)
    alive = (kind > 0) & (pos >= 0)
    spent = jnp.where((dist <= moves) & alive & valid, dist, jnp.inf)
    stand = jnp.isfinite(spent) & ((dist == 0) | ~own_same)
    return Reach(tiles, spent, moves, stand)


def reachable_from(reach: Reach) -> jax.Array:
    """(H,) the unit's move targets, as the original's move map: every tile it can walk to this
    turn, the one it stands on included (a move there holds it: how a unit stands still) and
    those its own units of the same class hold (a move there is blocked and it stays too,
    :func:`_move`); it ends its move elsewhere only on ``reach.stand`` tiles."""
    ok = jnp.isfinite(reach.spent)
    return jnp.zeros(N_TILES, bool).at[jnp.where(ok, reach.tiles, N_TILES)].set(True, mode="drop")


def reachable(state: GameState, p: jax.Array, slot: jax.Array, occ: Occupancy) -> jax.Array:
    """(H,) tiles unit (p, slot) can end its move on this turn."""
    return reachable_from(reach_window(state, p, slot, occ))


def settle_ok(state: GameState, p: jax.Array, pos: jax.Array, dist: jax.Array) -> jax.Array:
    """A city may be founded on the unit's tile."""
    r = load_tables().rules
    lay, t, c = state.layers, state.tiles, state.cities
    tile = jnp.maximum(pos, 0)
    land = (lay.elevation[tile] == 1) | (lay.elevation[tile] == 2)
    free = (t.owner[tile] < 0) | (t.owner[tile] == p)
    city_d = jnp.where(c.exists, dist[jnp.maximum(c.pos, 0)], 99)
    far = (city_d.min() >= r["city_min_distance"]) & (dist[lay.cs_sites].min() >= r["city_min_distance"])
    room = c.exists[p].sum() < MAX_CITIES
    open_land = (lay.natural_wonder[tile] == 0) & (state.citystates.owner[tile] == 0)
    return (pos >= 0) & land & open_land & free & far & room


def build_ok(state: GameState, p: jax.Array, pos: jax.Array, occ: Occupancy) -> jax.Array:
    """(14,) worker builds legal on the unit's tile, in category order 2..15."""
    tb = load_tables()
    f = {k: const(v)[1:] for k, v in tb.improvement_flags.items()}
    lay, t = state.layers, state.tiles
    tile = jnp.maximum(pos, 0)
    techs = state.players.techs[p]
    imp_ids = jnp.arange(1, len(tb.improvement_names))
    tech_ok = techs[const(tb.improvement_tech)[1:]]
    land = lay.elevation[tile] > 0
    res = lay.resource[tile].astype(jnp.int32)
    revealed = (res > 0) & techs[jnp.maximum(const(tb.resource_reveal)[res], 0)]
    res_match = revealed & (const(tb.resource_improvement)[res] == imp_ids)
    feature = t.feature[tile].astype(jnp.int32)
    need_feat = const(tb.improvement_feature)[1:]
    ok = tech_ok & jnp.where(f["land"], land, ~land)
    ok &= jnp.where(f["anywhere"], True, t.owner[tile] == p)
    ok &= ~f["flat"] | (lay.elevation[tile] == 1)
    ok &= ~f["no_feature"] | (feature == 0)
    ok &= ~f["needs_resource"] | res_match
    ok &= ~f["hill_or_resource"] | (lay.elevation[tile] == 2) | res_match
    ok &= (need_feat < 0) | (feature == need_feat)
    is_road = imp_ids == tb.improvement_names.index("road")
    already = jnp.where(is_road, t.road[tile], (t.improvement[tile] == imp_ids) & ~f["removes_feature"])
    ok &= ~already & (lay.natural_wonder[tile] == 0) & (occ.city_owner[tile] < 0)
    return ok & (pos >= 0)


def _strike_reach(state: GameState, p: jax.Array, slot: jax.Array) -> jax.Array:
    """() how far unit (p, slot) strikes from where it stands: 1 melee, its range if ranged."""
    tb = load_tables()
    kind = state.units.kind[p, slot].astype(jnp.int32)
    return jnp.where(const(tb.unit_ranged)[kind] > 0, const(tb.unit_range)[kind], 1)


def attack_targets(
    state: GameState, p: jax.Array, slot: jax.Array, reach: Reach, occ: Occupancy
) -> jax.Array:
    """(H,) tiles unit (p, slot) may attack this turn, moving first (as the original plays it): tiles
    holding another player's unit or city within striking distance (1 melee, the range of a ranged
    unit) of a tile the unit can stand on with a move left, its own included; and (melee units)
    empty tiles next to such a tile inside the borders of a player it is at peace with: entering
    them declares war. A melee unit attacks only tiles it could enter (water needs Sailing)."""
    tb = load_tables()
    kind = state.units.kind[p, slot].astype(jnp.int32)
    strike = _strike_reach(state, p, slot)
    lnb = const(window_neighbors())
    nb_ok = lnb >= 0
    lnb = jnp.maximum(lnb, 0)
    near = reach.stand & (reach.spent < reach.moves)
    for step in range(MAX_RANGE):  # unrolled: a loop costs more per round than its work here
        near = jnp.where(step < strike, near | (nb_ok & near[lnb]).any(1), near)
    in_range = jnp.zeros(N_TILES, bool).at[jnp.where(near, reach.tiles, N_TILES)].set(True, mode="drop")
    enemy_military = (occ.military >= 0) & (occ.military // MAX_UNITS != p)
    enemy_civilian = (occ.civilian >= 0) & (occ.civilian // MAX_UNITS != p)
    enemy_city = (occ.city_owner >= 0) & (occ.city_owner != p)
    melee = const(tb.unit_ranged)[kind] == 0  # ranged units cannot shoot at a lone civilian
    empty = (occ.military < 0) & (occ.civilian < 0) & (occ.city_owner < 0) & ~occ.cs_city
    sailing = state.players.techs[p, tb.tech("sailing")]
    enterable = enter_cost(state, sailing) < IMPASSABLE
    invade = melee & empty & closed_borders(state, p) & enterable
    targets = enemy_military | enemy_city | (enemy_civilian & melee) | invade
    # a melee blow is fought where the unit could step (it advances there): no land unit without
    # Sailing strikes or captures an embarked one
    targets = targets & (enterable | ~melee)
    here = jnp.arange(N_TILES) == state.units.pos[p, slot]
    return in_range & targets & ~here & is_military(kind) & (kind > 0)


def window_distance(tiles: jax.Array, target: jax.Array) -> jax.Array:
    """(W,) hex distance from ``target`` to each of ``tiles`` (the short way round the cylinder)."""
    q, r = (const(a) for a in axial())
    t = jnp.maximum(tiles, 0)
    dq0, dr = q[t] - q[jnp.maximum(target, 0)], r[t] - r[jnp.maximum(target, 0)]
    dq = jnp.stack([dq0 - COLS, dq0, dq0 + COLS])
    return ((jnp.abs(dq) + jnp.abs(dr) + jnp.abs(dq + dr)) // 2).min(0)


def strike_from(
    state: GameState, p: jax.Array, slot: jax.Array, reach: Reach, target: jax.Array
) -> jax.Array:
    """Window slot the unit attacks ``target`` from: the tile within striking distance of it that
    leaves the most moves (its own tile when it is close enough), -1 if none."""
    d = window_distance(reach.tiles, target)
    ok = reach.stand & (reach.spent < reach.moves) & (d <= _strike_reach(state, p, slot)) & (d >= 1)
    return masked_argmax(-reach.spent, ok)


def closed_borders(state: GameState, p: jax.Array) -> jax.Array:
    """(H,) tiles inside the borders of a player ``p`` is at peace with (closed to its units)."""
    owner = state.tiles.owner.astype(jnp.int32)
    return (owner >= 0) & (owner != p) & ~state.players.at_war[p, jnp.maximum(owner, 0)]


def put(arr: jax.Array, idx: Any, value: Any, go: jax.Array) -> jax.Array:
    """``arr`` with ``arr[idx] = value`` where ``go``: a masked point update.

    Every action below writes only through masked updates, so a slot runs all of them in turn
    and only the chosen one takes effect: under ``vmap`` this costs a few point writes instead of
    selecting between whole copies of the state (what ``lax.switch`` turns into).
    """
    return arr.at[idx].set(jnp.where(go, jnp.asarray(value, arr.dtype), arr[idx]))


def _remove_unit(state: GameState, q: jax.Array, s: jax.Array, gone: jax.Array) -> GameState:
    """Clear unit slot (q, s) where ``gone``."""
    u = state.units

    def clear(arr: jax.Array, value: float | int) -> jax.Array:
        return arr.at[q, s].set(jnp.where(gone, jnp.asarray(value, arr.dtype), arr[q, s]))

    return state._replace(
        units=u._replace(
            kind=clear(u.kind, 0),
            pos=clear(u.pos, -1),
            moves=clear(u.moves, 0.0),
            hp=clear(u.hp, 0.0),
            engaged_turns=clear(u.engaged_turns, 0),
            engaged_action=clear(u.engaged_action, -1),
            combat_bonus=clear(u.combat_bonus, 0.0),
        )
    )


def spawn_unit(
    state: GameState,
    p: jax.Array,
    kind: jax.Array,
    pos: jax.Array,
    go: jax.Array,
    bonus: jax.Array | float = 0.0,
) -> tuple[GameState, jax.Array]:
    """A new unit of ``p`` in its first free slot where ``go``; also says whether it was placed.
    A military unit starts with combat strength bonus ``bonus`` (the XP of its city's barracks)."""
    u = state.units
    slot = jnp.argmin(u.kind[p] > 0)
    put = go & (u.kind[p, slot] == 0)

    def setv(arr: jax.Array, value: jax.Array | float | int) -> jax.Array:
        return arr.at[p, slot].set(jnp.where(put, jnp.asarray(value, arr.dtype), arr[p, slot]))

    return state._replace(
        units=u._replace(
            kind=setv(u.kind, kind),
            pos=setv(u.pos, pos),
            moves=setv(u.moves, 0.0),
            hp=setv(u.hp, 1.0),
            engaged_turns=setv(u.engaged_turns, 0),
            engaged_action=setv(u.engaged_action, -1),
            fought=setv(u.fought, False),
            combat_bonus=setv(u.combat_bonus, jnp.where(is_military(jnp.asarray(kind)), bonus, 0.0)),
        )
    ), put


def _move(
    state: GameState, p: jax.Array, slot: jax.Array, target: jax.Array, occ: Occupancy, go: jax.Array
) -> GameState:
    """Unit (p, slot) moves to ``target`` and spends its moves; a tile one of its own units of
    the same class holds blocks it (the original's ``step_unitsv2``), so it stays where it stood."""
    u = state.units
    held = jnp.where(is_military(u.kind[p, slot]), occ.military[target], occ.civilian[target])
    blocked = (held >= 0) & (held // MAX_UNITS == p) & (held != p * MAX_UNITS + slot)
    to = jnp.where(blocked, u.pos[p, slot], target)
    return state._replace(
        units=u._replace(pos=put(u.pos, (p, slot), to, go), moves=put(u.moves, (p, slot), 0.0, go))
    )


def _approach(
    state: GameState, p: jax.Array, slot: jax.Array, reach: Reach, spot: jax.Array, go: jax.Array
) -> GameState:
    """Move then attack: the unit walks to window slot ``spot`` (where it strikes from), paying
    the moves it costs."""
    u = state.units
    i = jnp.maximum(spot, 0)
    go = go & (spot >= 0)
    return state._replace(
        units=u._replace(
            pos=put(u.pos, (p, slot), reach.tiles[i], go),
            moves=put(u.moves, (p, slot), u.moves[p, slot] - reach.spent[i], go),
        )
    )


def found_city(state: GameState, p: jax.Array, pos: jax.Array, go: jax.Array | bool = True) -> GameState:
    """A new city of ``p`` on ``pos``: first free slot, claims the unowned tiles of ring 1."""
    tb = load_tables()
    go = jnp.asarray(go)
    c, t = state.cities, state.tiles
    slot = jnp.argmin(c.exists[p]).astype(jnp.int32)
    first = ~c.exists[p].any()
    buildings = jnp.zeros(c.buildings.shape[-1], bool).at[tb.building("palace")].set(first)
    ring1 = work_frames(pos)[:7]
    claim = (
        (ring1 >= 0)
        & (t.owner[jnp.maximum(ring1, 0)] < 0)
        & (state.citystates.owner[jnp.maximum(ring1, 0)] == 0)
    )
    idx = jnp.where(claim.at[0].set(True) & go, ring1, N_TILES)
    at = (p, slot)
    cities = c._replace(
        exists=put(c.exists, at, True, go),
        pos=put(c.pos, at, pos, go),
        capital=put(c.capital, at, first, go),
        pop=put(c.pop, at, 1, go),
        food=put(c.food, at, 0.0, go),
        prod=put(c.prod, at, 0.0, go),
        constructing=put(c.constructing, at, -1, go),
        culture=put(c.culture, at, 0.0, go),
        tiles_claimed=put(c.tiles_claimed, at, 0, go),
        hp=put(c.hp, at, tb.rules["city_max_hp"], go),
        buildings=put(c.buildings, at, buildings, go),
        worked=put(c.worked, at, jnp.zeros(N_WORK, bool).at[0].set(True), go),
        yields=put(c.yields, at, jnp.zeros(c.yields.shape[-1]), go),
    )
    tiles = t._replace(
        owner=t.owner.at[idx].set(p.astype(jnp.int8), mode="drop"),
        owner_city=t.owner_city.at[idx].set(slot.astype(jnp.int8), mode="drop"),
        road=put(t.road, pos, True, go),
        improvement=put(t.improvement, pos, 0, go),
    )
    players = state.players._replace(ever_settled=put(state.players.ever_settled, p, True, go))
    return state._replace(cities=cities, tiles=tiles, players=players)


def _settle(state: GameState, p: jax.Array, slot: jax.Array, go: jax.Array) -> GameState:
    state = found_city(state, p, state.units.pos[p, slot], go)
    return _remove_unit(state, p, slot, go)


def _build(state: GameState, p: jax.Array, slot: jax.Array, cat: jax.Array, go: jax.Array) -> GameState:
    tb = load_tables()
    u = state.units
    faster = (
        1 + empire_modifiers(state, p)[tb.modifier("improvement_time_pct")] / 100.0
    )  # Pyramids, Citizenship
    turns = const(tb.improvement_turns)[const(tb.category_improvement)[cat]]
    turns = jnp.maximum(jnp.ceil(turns * faster - 1e-4), 1).astype(turns.dtype)
    return state._replace(
        units=u._replace(
            engaged_turns=put(u.engaged_turns, (p, slot), turns, go),
            engaged_action=put(u.engaged_action, (p, slot), cat, go),
            moves=put(u.moves, (p, slot), 0.0, go),
        )
    )


def city_defence(state: GameState, q: jax.Array, cs: jax.Array) -> jax.Array:
    tb = load_tables()
    c = state.cities
    pos = jnp.maximum(c.pos[q, cs], 0)
    defence = (c.buildings[q, cs] * const(tb.building_defence)).sum()
    return formulas.city_strength(
        c.pop[q, cs],
        state.layers.elevation[pos] == 2,
        c.capital[q, cs],
        top_era(state.players.techs[q]),
        defence,
    )


def _unit_defence(state: GameState, q: jax.Array, s: jax.Array, target: jax.Array) -> jax.Array:
    tb = load_tables()
    kind = state.units.kind[q, s].astype(jnp.int32)
    elev = state.layers.elevation[target].astype(jnp.int32)
    feat = state.tiles.feature[target].astype(jnp.int32)
    imp = state.tiles.improvement[target].astype(jnp.int32)
    bonus = (
        const(tb.elevation_defence)[elev]
        + const(tb.feature_defence)[feat]
        + const(tb.improvement_defence)[imp]
    )
    accel = 1.0 + state.units.combat_bonus[q, s] + bonus  # the original adds the tile's bonus to it
    cs_gift = state.citystates.combat_bonus[q, s]  # from militaristic city states
    return jnp.maximum(const(tb.unit_strength)[kind], 1.0) * accel * combat_factor(state, q) * (1.0 + cs_gift)


def combat_factor(state: GameState, q: jax.Array) -> jax.Array:
    """() the empire-wide strength factor of ``q``'s units (Statue of Zeus, Himeji Castle)."""
    return 1.0 + empire_modifier_columns(state, q, ("combat_pct",))[0] / 100.0


def gain_kill_yields(state: GameState, p: jax.Array, kills: jax.Array) -> GameState:
    """``p`` collects its per-kill yields (policies: Honor) ``kills`` times: gold, culture (toward
    policies and lifetime), faith and science (toward its research)."""
    gain = kill_yields(state, p).sum(0) * kills
    pl = state.players
    return state._replace(
        players=pl._replace(
            gold=pl.gold.at[p].add(gain[GOLD]),
            culture=pl.culture.at[p].add(gain[CULTURE]),
            culture_total=pl.culture_total.at[p].add(gain[CULTURE]),
            faith=pl.faith.at[p].add(gain[FAITH]),
            science=pl.science.at[p].add(gain[SCIENCE]),
        )
    )


def capture_city(state: GameState, p: jax.Array, q: jax.Array, cs: jax.Array, take: jax.Array) -> GameState:
    """Where ``take``: city (q, cs) moves to a free slot of ``p``, or is deleted if ``p`` has none."""
    tb = load_tables()
    c, t = state.cities, state.tiles
    free = ~c.exists[p]
    slot = jnp.argmax(free).astype(jnp.int32)
    moves = take & free.any()
    national = const(tb.building_kind == 2)
    fields = {}
    for name in c._fields:
        arr = getattr(c, name)
        src = arr[q, cs]
        if name == "buildings":
            src = src & ~national
        elif name == "capital":
            src = jnp.zeros_like(src)
        elif name == "constructing":
            src = jnp.full_like(src, -1)
        elif name == "hp":
            src = jnp.full_like(src, 0.5)
        arr = arr.at[p, slot].set(jnp.where(moves, src, arr[p, slot]))
        cleared = {"exists": False, "pos": -1, "constructing": -1}.get(name, 0)
        arr = arr.at[q, cs].set(jnp.where(take, jnp.full_like(arr[q, cs], cleared), arr[q, cs]))
        fields[name] = arr
    theirs = take & (t.owner == q) & (t.owner_city == cs)
    owner = jnp.where(theirs, jnp.where(moves, p, -1), t.owner).astype(jnp.int8)
    owner_city = jnp.where(theirs, jnp.where(moves, slot, -1), t.owner_city).astype(jnp.int8)
    state = state._replace(cities=c._replace(**fields), tiles=t._replace(owner=owner, owner_city=owner_city))
    return _move_religion(state, p, slot, q, cs, take, moves)


def _move_religion(
    state: GameState,
    p: jax.Array,
    slot: jax.Array,
    q: jax.Array,
    cs: jax.Array,
    take: jax.Array,
    moves: jax.Array,
) -> GameState:
    """A taken city keeps its followers and the pressure gathered on it (in ``p``'s ``slot`` when it
    moves); what it sent as ``q``'s city stops; a deleted city keeps nothing."""
    rel = state.religion
    followers = rel.followers.at[p, slot].set(jnp.where(moves, rel.followers[q, cs], rel.followers[p, slot]))
    followers = followers.at[q, cs].set(jnp.where(take, 0, followers[q, cs]))
    onto = rel.pressure[:, :, q, cs]
    pressure = rel.pressure.at[:, :, p, slot].set(jnp.where(moves, onto, rel.pressure[:, :, p, slot]))
    pressure = pressure.at[:, :, q, cs].set(jnp.where(take, 0.0, onto))
    pressure = pressure.at[q, cs].set(jnp.where(take, 0.0, pressure[q, cs]))
    cs_pressure = rel.cs_pressure.at[q, cs].set(jnp.where(take, 0.0, rel.cs_pressure[q, cs]))
    return state._replace(
        religion=rel._replace(followers=followers, pressure=pressure, cs_pressure=cs_pressure)
    )


def _combat(
    state: GameState, p: jax.Array, slot: jax.Array, target: jax.Array, occ: Occupancy, go: jax.Array
) -> GameState:
    """One attack on ``target``: a military unit defends first, then the city, then a civilian."""
    tb = load_tables()
    r = tb.rules
    kind = state.units.kind[p, slot].astype(jnp.int32)
    a_class = const(tb.unit_class)[kind]
    ranged = const(tb.unit_ranged)[kind] > 0
    att = jnp.where(ranged, const(tb.unit_ranged)[kind], const(tb.unit_strength)[kind])
    att = att * (1.0 + state.units.combat_bonus[p, slot]) * combat_factor(state, p)
    att = att * (1.0 + state.citystates.combat_bonus[p, slot])  # from militaristic city states
    mil, civ = occ.military[target], occ.civilian[target]
    city_q, city_s = occ.city_owner[target], occ.city_slot[target]
    vs_unit = mil >= 0
    vs_city = ~vs_unit & (city_q >= 0)
    vs_civ = ~vs_unit & ~vs_city & (civ >= 0)
    vs_land = ~vs_unit & ~vs_city & ~vs_civ  # an empty tile across a closed border
    uq = jnp.where(vs_unit, mil, jnp.maximum(civ, 0)) // MAX_UNITS
    us = jnp.where(vs_unit, mil, jnp.maximum(civ, 0)) % MAX_UNITS
    d_class = const(tb.unit_class)[state.units.kind[uq, us].astype(jnp.int32)]
    counter = const(tb.counter)
    cq, cs = jnp.maximum(city_q, 0), jnp.maximum(city_s, 0)
    att_eff = att * jnp.where(
        vs_city, jnp.where(a_class == 4, r["siege_vs_city"], 1.0), counter[a_class, d_class]
    )
    defence = jnp.where(
        vs_city, city_defence(state, cq, cs), _unit_defence(state, uq, us, target) * counter[d_class, a_class]
    )
    to_def, to_att = formulas.combat_damage(att_eff, defence, ranged | vs_land)
    victim = jnp.where(vs_city, city_q, jnp.where(vs_land, state.tiles.owner[target].astype(jnp.int32), uq))
    pl = state.players
    war = put(put(pl.at_war, (p, victim), True, go), (victim, p), True, go)
    state = state._replace(players=pl._replace(at_war=war))
    # Damage to a defending unit; a civilian alone is captured (a settler becomes a worker).
    u = state.units
    unit_hp = u.hp[uq, us] - jnp.where(vs_civ, 1.0, to_def)
    hit_unit = (vs_unit | vs_civ) & go
    state = state._replace(units=u._replace(hp=put(u.hp, (uq, us), unit_hp, hit_unit)))
    killed = hit_unit & vs_unit & (unit_hp <= 0)
    state = _remove_unit(state, uq, us, hit_unit & (unit_hp <= 0))
    worker = jnp.asarray(tb.unit("worker"), jnp.int8)
    state, _ = spawn_unit(state, p, worker, target, vs_civ & go)
    # Damage to a city; a melee blow at zero takes it (a capital is sacked instead).
    c = state.cities
    city_hp = c.hp[cq, cs] - to_def
    city_hp = jnp.where(ranged, jnp.maximum(city_hp, MIN_CITY_HP), city_hp)  # only melee takes a city
    state = state._replace(cities=c._replace(hp=put(c.hp, (cq, cs), city_hp, vs_city & go)))
    falls = vs_city & (city_hp <= 0) & ~ranged & go
    sacked = falls & state.cities.capital[cq, cs]
    c, pl = state.cities, state.players
    state = state._replace(
        cities=c._replace(hp=put(c.hp, (cq, cs), r["sacked_capital_hp"], sacked)),
        players=pl._replace(has_sacked=put(pl.has_sacked, (p, cq), True, sacked)),
    )
    state = capture_city(state, p, cq, cs, falls & ~sacked)
    state = gain_kill_yields(state, p, (killed | falls).astype(jnp.float32))
    # The attacker: melee damage, then it advances when the tile is clear.
    u = state.units
    att_hp = u.hp[p, slot] - to_att
    at = (p, slot)
    u = u._replace(
        hp=put(u.hp, at, att_hp, go), moves=put(u.moves, at, 0.0, go), fought=put(u.fought, at, True, go)
    )
    state = state._replace(units=u)
    after = occupancy(state)
    clear = (after.military[target] < 0) & ((after.city_owner[target] < 0) | (after.city_owner[target] == p))
    advance = ~ranged & (att_hp > 0) & clear & go
    civ_after = after.civilian[target]
    cq2, cs2 = jnp.maximum(civ_after, 0) // MAX_UNITS, jnp.maximum(civ_after, 0) % MAX_UNITS
    state = _remove_unit(state, cq2, cs2, advance & (civ_after >= 0) & (cq2 != p))
    u = state.units
    state = state._replace(units=u._replace(pos=put(u.pos, at, target, advance)))
    return _remove_unit(state, p, slot, (att_hp <= 0) & go)


def _prepare_units(state: GameState, p: jax.Array) -> tuple[GameState, jax.Array, jax.Array]:
    """Full moves, finished worker builds, and what stays fixed while ``p``'s units act (``p``
    cannot hurt those it gives peace to): the route table and the peace-blocked tiles."""
    tb = load_tables()
    u = state.units
    full = const(tb.unit_moves).astype(jnp.float32)[u.kind[p].astype(jnp.int32)]
    units = u._replace(moves=u.moves.at[p].set(full), fought=u.fought.at[p].set(False))
    state = finish_builds(state._replace(units=units), p)
    return state, trade_routes.route_table(state, p), trade.peace_blocked(state, p, occupancy(state))


def _idle(state: GameState, p: jax.Array, slot: jax.Array) -> jax.Array:
    """Unit (p, slot) may act: it exists, builds nothing and has moves left."""
    u = state.units
    return (u.kind[p, slot] > 0) & (u.engaged_turns[p, slot] == 0) & (u.moves[p, slot] > 0)


class UnitOptions(NamedTuple):
    """What unit (p, slot) may do now: the legal categories (19,) and the tiles of each kind of
    target (N_TILES,) bool, before they are narrowed to the legal categories."""

    categories: jax.Array
    window: Reach  # its movement window (an attack approaches through it)
    moves_to: jax.Array
    targets: jax.Array  # attack targets, none under a peace
    to_city: jax.Array  # caravan: cities to relocate to
    to_route: jax.Array  # caravan: cities to open a route with


def unit_options(
    st: GameState, p: jax.Array, slot: jax.Array, occ: Occupancy, peace: jax.Array, branch: bool = False
) -> UnitOptions:
    """The one legality rule of a unit's action: the resolver masks with it, and the options a
    player is shown (``contract.options``) are the same function's answer. ``branch`` (never
    under ``vmap``, see :func:`_act`) skips the checks of categories the unit's kind lacks,
    whose answers the kind's row masks off anyway (their target masks are then empty)."""
    cats = const(load_tables().unit_categories)
    kind, pos = st.units.kind[p, slot].astype(jnp.int32), st.units.pos[p, slot]
    can = cats[kind]

    def check(category: jax.Array, answer: Callable[[], Any], empty: Any) -> Any:
        return jax.lax.cond(category, answer, lambda: empty) if branch else answer()

    dist = distance_from(jnp.maximum(pos, 0))
    window = reach_window(st, p, slot, occ)
    moves_to = reachable_from(window)
    no_tiles = jnp.zeros(N_TILES, bool)
    targets = check(can[COMBAT], lambda: attack_targets(st, p, slot, window, occ) & ~peace, no_tiles)
    legal = jnp.zeros(cats.shape[1], bool)
    settle = check(can[SETTLE], lambda: settle_ok(st, p, pos, dist), jnp.bool_(False))
    legal = legal.at[MOVE].set(moves_to.any()).at[SETTLE].set(settle)
    builds = jnp.zeros(LAST_BUILD + 1 - FIRST_BUILD, bool)
    builds = check(can[FIRST_BUILD : LAST_BUILD + 1].any(), lambda: build_ok(st, p, pos, occ), builds)
    legal = legal.at[FIRST_BUILD : LAST_BUILD + 1].set(builds)
    legal = legal.at[COMBAT].set(targets.any())
    trades = can[trade_routes.MOVE_CARAVAN] | can[trade_routes.SEND_CARAVAN]
    to_city, to_route = check(
        trades, lambda: trade_routes.caravan_targets(st, p, slot, dist, occ.civilian), (no_tiles, no_tiles)
    )
    legal = (
        legal.at[trade_routes.MOVE_CARAVAN]
        .set(to_city.any())
        .at[trade_routes.SEND_CARAVAN]
        .set(to_route.any())
    )
    legal &= cats[kind] & _idle(st, p, slot)
    return UnitOptions(legal, window, moves_to, targets, to_city, to_route)


def _act(
    st: GameState,
    p: jax.Array,
    slot: jax.Array,
    tscore: jax.Array,
    hscore: jax.Array,
    routes: jax.Array,
    peace: jax.Array,
    branch: bool = False,
) -> tuple[GameState, jax.Array]:
    """Unit (p, slot) acts; returns the state and the executed (category, target), -1 for none.
    A unit that is not :func:`_idle` changes nothing.

    Every action is a masked update (:func:`put`), the form that suits ``vmap`` (where a
    ``lax.cond`` computes both branches). ``branch``, for one game outside ``vmap``, runs only the
    chosen action and only the legality checks of the unit's kind, with the same results."""
    pos = st.units.pos[p, slot]
    occ = occupancy(st)
    legal, reach, moves_to, targets, to_city, to_route = unit_options(st, p, slot, occ, peace, branch)
    cat = masked_argmax(tscore, legal)
    here = jnp.arange(N_TILES) == pos
    tmask = jnp.where(cat == MOVE, moves_to, jnp.where(cat == COMBAT, targets, here & (cat >= 0)))
    tmask = jnp.where(cat == trade_routes.MOVE_CARAVAN, to_city, tmask)
    tmask = jnp.where(cat == trade_routes.SEND_CARAVAN, to_route, tmask)
    target = masked_argmax(hscore, tmask)
    tgt, c = jnp.maximum(target, 0), jnp.maximum(cat, 0)

    def only(chosen: jax.Array, action: Callable[[GameState], GameState], s: GameState) -> GameState:
        return jax.lax.cond(chosen, action, lambda unchanged: unchanged, s) if branch else action(s)

    def attack(s: GameState) -> GameState:
        s = _approach(s, p, slot, reach, strike_from(s, p, slot, reach, tgt), cat == COMBAT)
        return _combat(s, p, slot, tgt, occ, cat == COMBAT)

    building = (cat >= FIRST_BUILD) & (cat <= LAST_BUILD)
    caravan = (cat == trade_routes.MOVE_CARAVAN) | (cat == trade_routes.SEND_CARAVAN)
    st = _move(st, p, slot, tgt, occ, cat == MOVE)
    st = only(cat == SETTLE, lambda s: _settle(s, p, slot, cat == SETTLE), st)
    st = only(building, lambda s: _build(s, p, slot, c, building), st)
    st = only(cat == COMBAT, attack, st)
    st = only(caravan, lambda s: trade_routes.caravan_action(s, p, slot, cat, tgt, routes), st)
    return st, jnp.stack([cat, jnp.where(cat >= 0, target, -1)])


def unit_phase(
    state: GameState, p: jax.Array, type_scores: jax.Array, target_scores: jax.Array
) -> tuple[GameState, jax.Array, jax.Array]:
    """All 30 slots of player ``p`` act in order; returns the executed (category, target) per slot.
    A slot without an idle unit is skipped (its action would change nothing)."""
    state, routes, peace = _prepare_units(state, p)

    def act(st: GameState, xs: tuple[jax.Array, jax.Array, jax.Array]) -> tuple[GameState, jax.Array]:
        slot, tscore, hscore = xs
        run = lambda s: _act(s, p, slot, tscore, hscore, routes, peace, branch=True)  # noqa: E731
        return jax.lax.cond(_idle(st, p, slot), run, lambda s: (s, jnp.full(2, -1, jnp.int32)), st)

    slots = jnp.arange(MAX_UNITS, dtype=jnp.int32)
    state, executed = jax.lax.scan(act, state, (slots, type_scores, target_scores))
    return state, executed[:, 0], executed[:, 1]


def unit_phase_games(
    states: GameState, type_scores: jax.Array, target_scores: jax.Array
) -> tuple[GameState, jax.Array, jax.Array]:
    """:func:`unit_phase` of each game's player over a leading axis of games, with the same results.
    A slot where no game has an idle unit is skipped, as its action would change nothing: under
    ``vmap`` a per-game skip would compute every slot anyway, and most slots are empty."""
    if states.player.shape[0] == 1:  # one game: no vmap, so its slots branch (unit_phase)
        one = jax.tree_util.tree_map(lambda x: x[0], states)
        one, cats, targets = unit_phase(one, one.player, type_scores[0], target_scores[0])
        return jax.tree_util.tree_map(lambda x: x[None], one), cats[None], targets[None]
    p = states.player
    states, routes, peace = jax.vmap(_prepare_units)(states, p)
    acts = jax.vmap(_act, in_axes=(0, 0, None, 0, 0, 0, 0))
    nothing = jnp.full((p.shape[0], 2), -1, jnp.int32)

    def act(st: GameState, slot: jax.Array) -> tuple[GameState, jax.Array]:
        some = jax.vmap(_idle, in_axes=(0, 0, None))(st, p, slot).any()
        tscore, hscore = (
            jax.lax.dynamic_index_in_dim(x, slot, 1, False) for x in (type_scores, target_scores)
        )
        run = lambda s: acts(s, p, slot, tscore, hscore, routes, peace)  # noqa: E731
        return jax.lax.cond(some, run, lambda s: (s, nothing), st)

    # the scores stay game-major: slicing one slot per round costs less than transposing them all
    states, executed = jax.lax.scan(act, states, jnp.arange(MAX_UNITS, dtype=jnp.int32))
    return states, executed[..., 0].T, executed[..., 1].T


def heal_units(state: GameState, p: jax.Array) -> GameState:
    """Units of ``p`` that did not fight this turn heal."""
    u = state.units
    heal = load_tables().rules["heal_per_turn"]
    hp = jnp.where((u.kind[p] > 0) & ~u.fought[p], jnp.minimum(u.hp[p] + heal, 1.0), u.hp[p])
    return state._replace(units=u._replace(hp=u.hp.at[p].set(hp)))


def alive_players(state: GameState) -> jax.Array:
    """(6,) players with a city or a unit left."""
    return state.cities.exists.any(1) | (state.units.kind > 0).any(1)
