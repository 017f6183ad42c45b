"""The city phase of a player's turn: worked tiles, yields, growth, borders and production.

Citizens pick tiles from the preference (each citizen the best of its city's owned tiles;
duplicates merge, so a citizen can idle). Growth, yields and worked tiles are vectorised over the
ten cities; borders and construction run in a scan over cities in slot order, so an earlier city
claims a wonder (or a unit-cap slot) before a later one sees it.
"""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp

from hexarena.games.terranova.engine import formulas
from hexarena.games.terranova.engine.effects import (
    city_civic_rows,
    city_modifiers,
    city_site,
    empire_modifiers,
    empire_multipliers,
    policy_city_effects,
)
from hexarena.games.terranova.engine.geometry import N_TILES, N_WORK, ring_of_slot
from hexarena.games.terranova.engine.rules.cs_relations import relationship_yields
from hexarena.games.terranova.engine.rules.great_people import specialist_yields
from hexarena.games.terranova.engine.rules.trade_routes import num_trade_routes, route_city_yields
from hexarena.games.terranova.engine.rules.units import spawn_unit
from hexarena.games.terranova.engine.state import MAX_CITIES, MAX_UNITS, GameState
from hexarena.games.terranova.engine.tables import (
    BUILDING_SLOTS,
    CULTURE,
    FOOD,
    GOLD,
    GRANTS,
    N_YIELDS,
    PROD,
    SCIENCE,
    load_tables,
)
from hexarena.games.terranova.engine.world import (
    city_resources,
    class_bonus,
    const,
    deal_resources,
    gather,
    is_military,
    masked_argmax,
    neighbor_table,
    occupancy,
    player_yields,
    resource_counts,
    tile_class_parts,
    tile_classes_at,
    work_frames,
)


class CityYields(NamedTuple):
    yields: jax.Array  # (10, 8) per city: food .. happiness, tourism
    worked: jax.Array  # (10, 37) bool
    executed: jax.Array  # (10, 36) tile slot per citizen, -1 idle


def owned_frames(state: GameState, p: jax.Array) -> tuple[jax.Array, jax.Array]:
    """Each city's 37 work-area tiles and which of them the city owns."""
    c, t = state.cities, state.tiles
    frames = work_frames(jnp.where(c.exists[p], c.pos[p], -1))
    owner = gather(t.owner, frames, -1)
    city = gather(t.owner_city, frames, -1)
    owned = (frames >= 0) & (owner == p) & (city == jnp.arange(MAX_CITIES)[:, None])
    return frames, owned


def city_yields(state: GameState, p: jax.Array, citizen_scores: jax.Array) -> CityYields:
    """Worked tiles from the citizens' preferences, then each city's yields."""
    tb = load_tables()
    c = state.cities
    frames, owned = owned_frames(state, p)
    workable = owned[:, 1:]  # (10, 36); the centre is always worked
    pop = c.pop[p]
    picks = masked_argmax(citizen_scores, workable[:, None, :])  # (10, 36 citizens)
    active = jnp.arange(N_WORK - 1)[None, :] < pop[:, None]
    picks = jnp.where(active & c.exists[p][:, None], picks, -1)
    hit = (picks[:, :, None] == jnp.arange(N_WORK - 1)[None, None, :]).any(1)
    worked = jnp.concatenate([c.exists[p][:, None], hit], axis=1)
    techs = state.players.techs[p]
    tile_y = player_yields(state, techs, frames)  # (10, 37, 7)
    built = c.buildings[p].astype(jnp.float32)  # (10, 148)
    classes = tile_classes_at(tile_class_parts(state, techs), frames).astype(jnp.float32)  # (10, 37, C)
    bonus = class_bonus(built, tb.building_tile_bonus)  # (10, C, 7)
    tile_y = tile_y + jnp.einsum("ftc,fcy->fty", classes, bonus)
    pol = policy_city_effects(state, p)
    tile_y = tile_y + jnp.einsum("ftc,fcy->fty", classes, pol.tile_bonus)
    tile_sum = (worked[..., None] * tile_y).sum(1)
    tile_sum = jnp.concatenate([tile_sum, jnp.zeros((MAX_CITIES, 1))], axis=1)
    flat = (
        built @ const(tb.building_yields)
        + pol.flat
        + specialist_yields(state, p)
        + route_city_yields(state, p)
    )
    per_pop = (built @ const(tb.building_per_pop) + pol.per_pop) * pop[:, None]
    religions = (state.religion.followers[p] > 0).sum(-1).astype(jnp.float32)  # (10,)
    flat = flat + (built @ const(tb.building_per_religion)) * religions[:, None]
    per_pop = per_pop.at[:, SCIENCE].add(tb.rules["science_per_pop"] * pop)
    percent = built @ const(tb.building_percent) + pol.percent
    percent = percent.at[:, CULTURE].add(empire_modifiers(state, p)[tb.modifier("culture_pct_all_cities")])
    total = (tile_sum + flat + per_pop) * (1 + percent / 100.0)
    total = total * empire_multipliers(state, p)
    total = total.at[:, :N_YIELDS].add(relationship_yields(state, p))  # after multipliers, as the original
    total = jnp.where(c.exists[p][:, None], total, 0.0)
    return CityYields(total, worked, picks)


def grow(state: GameState, p: jax.Array, food_yield: jax.Array) -> GameState:
    """Food: 2 per citizen eaten; a full stock adds a citizen, a stock below -2 loses one. Unhappiness
    does not slow growth (the original has no growth penalty, only -2 % production and gold)."""
    tb = load_tables()
    r = tb.rules
    c = state.cities
    pop = c.pop[p]
    surplus = food_yield - r["food_per_pop"] * pop
    food = c.food[p] + surplus
    need = formulas.growth_threshold(pop)
    keep = (c.buildings[p] * const(tb.building_carryover)).sum(1)
    grows = c.exists[p] & (food >= need)
    starves = c.exists[p] & (food < r["starve_threshold"])
    new_pop = pop + grows - (starves & (pop > 1))
    food = jnp.where(grows, food - need + keep * need, food)
    food = jnp.where(starves, jnp.where(pop > 1, 0.0, r["starve_threshold"]), food)
    food = jnp.where(c.exists[p], food, 0.0)
    return state._replace(cities=c._replace(pop=c.pop.at[p].set(new_pop), food=c.food.at[p].set(food)))


def fixed_build_mask(state: GameState, p: jax.Array) -> jax.Array:
    """(10, 185) the part of each city's build mask that holds for the whole production phase:
    technologies, policies, connected resources, the city's site, obsolete units, caravans."""
    tb = load_tables()
    pl = state.players
    techs = pl.techs[p]
    city_res = (city_resources(state, p) + deal_resources(state, p)[None]) > 0  # (10, 53)
    b_ok = const(tb.buildable) & jnp.all(~const(tb.building_tech) | techs, axis=1)
    b_ok &= jnp.all(~const(tb.building_policy) | pl.policies[p], axis=1)
    needs_res = const(tb.building_resource)
    b_ok = b_ok[None, :] & (~needs_res.any(1) | (needs_res[None] & city_res[:, None, :]).any(2))
    sites = jax.vmap(lambda cs: city_site(state, p, cs))(jnp.arange(MAX_CITIES))  # (10, SITE_NEEDS)
    b_ok &= jnp.all(~const(tb.building_needs)[None] | sites[:, None, :], axis=2)
    u_ok = jnp.all(~const(tb.unit_tech)[1:] | techs, axis=1) & ~jnp.any(
        const(tb.unit_obsolete)[1:] & techs, axis=1
    )
    u_ok = u_ok[None, :] & jnp.all(~const(tb.unit_resource)[None, 1:] | city_res[:, None, :], axis=2)
    return jnp.concatenate([b_ok, u_ok], axis=1)


def build_mask(
    state: GameState,
    p: jax.Array,
    cs: jax.Array,
    claims: jax.Array,
    counts: jax.Array,
    fixed: jax.Array | None = None,
) -> jax.Array:
    """(185,) what city ``cs`` may start now, given wonders claimed and queued unit counts
    (:func:`unit_counts`: units, settlers, caravans, caravan slots).

    ``fixed`` is the city's row of :func:`fixed_build_mask` (computed here when not given); the
    rest (buildings already there, wonders built or claimed, unit caps) changes during the scan.
    """
    tb = load_tables()
    c = state.cities
    fixed = fixed_build_mask(state, p)[cs] if fixed is None else fixed
    # an empire-wide building (the Apollo Program) counts in every city once one city has it
    built_here = c.buildings[p, cs] | (c.buildings[p].any(0) & const(tb.building_empire_wide))
    kind = const(tb.building_kind)
    b_ok = ~built_here & jnp.all(~const(tb.building_req) | built_here, axis=1)
    b_ok &= (kind != 1) | (~c.buildings.any((0, 1)) & ~claims)
    b_ok &= (kind != 2) | (~c.buildings[p].any(0) & ~claims)
    types = jnp.arange(1, len(tb.unit_names))
    settler, caravan = types == tb.unit("settler"), types == tb.unit("caravan")
    n_units, n_settlers, n_caravans, route_slots = counts[0], counts[1], counts[2], counts[3]
    u_ok = (n_units < MAX_UNITS) & (~settler | (c.exists[p].sum() + n_settlers < MAX_CITIES))
    u_ok &= ~caravan | (n_caravans < route_slots)
    return fixed & jnp.concatenate([b_ok, u_ok]) & c.exists[p, cs] & (c.constructing[p, cs] < 0)


def unit_counts(state: GameState, p: jax.Array) -> jax.Array:
    """(4,) int32 for the unit caps: units, settlers and caravans of ``p`` (alive or being built),
    and the caravans it may keep (``trade_routes.num_trade_routes``)."""
    tb = load_tables()
    c, kind = state.cities, state.units.kind[p]
    queued = jnp.where(c.exists[p], c.constructing[p], -1) - BUILDING_SLOTS + 1
    settler, caravan = tb.unit("settler"), tb.unit("caravan")
    return jnp.stack(
        [
            (kind > 0).sum() + (queued > 0).sum(),
            (kind == settler).sum() + (queued == settler).sum(),
            (kind == caravan).sum() + (queued == caravan).sum(),
            num_trade_routes(state, p),
        ]
    ).astype(jnp.int32)


def resources_owned(state: GameState, p: jax.Array) -> jax.Array:
    """(53,) resource kinds ``p`` has a source of (tiles and deals: ``world.resource_counts``)."""
    return resource_counts(state, p) > 0


def _claim_tile(
    state: GameState, p: jax.Array, cs: jax.Array, pct: jax.Array, frame_yields: jax.Array
) -> GameState:
    """Spend culture on the best unowned tile next to the city's border, if affordable: the cost
    follows the tiles the city owns besides its centre (``formulas.border_cost``), changed by
    ``pct`` % (Stonehenge, Tradition). ``frame_yields``: ``p``'s ``player_yields`` (37, 7) on the
    city's work area, which nothing in the production scan changes, so they are computed once for
    every city, not once per city."""
    c, t = state.cities, state.tiles
    frame = work_frames(jnp.where(c.exists[p, cs], c.pos[p, cs], -1))
    owned = ((frame >= 0) & (gather(t.owner, frame, -1) == p) & (gather(t.owner_city, frame, -1) == cs)).sum()
    cost = formulas.border_cost(owned - 1) * (1 + pct / 100.0)
    nb = neighbor_table()[jnp.maximum(frame, 0)]
    mine = (gather(t.owner, nb, -1) == p) & (gather(t.owner_city, nb, -1) == cs)
    free = (frame >= 0) & (gather(t.owner, frame, 0) < 0) & (gather(state.citystates.owner, frame, 1) == 0)
    cand = free & mine.any(1)
    y = frame_yields
    value = y[:, FOOD] * 2 + y[:, PROD] + y[:, GOLD] + 2.0 * (gather(state.layers.resource, frame, 0) > 0)
    value = value - 0.5 * const(ring_of_slot())
    best = masked_argmax(value, cand)
    go = c.exists[p, cs] & (c.culture[p, cs] >= cost) & (best >= 0)
    tile = jnp.where(go, frame[jnp.maximum(best, 0)], N_TILES)
    return state._replace(
        tiles=t._replace(
            owner=t.owner.at[tile].set(p.astype(jnp.int8), mode="drop"),
            owner_city=t.owner_city.at[tile].set(cs.astype(jnp.int8), mode="drop"),
        ),
        cities=c._replace(
            culture=c.culture.at[p, cs].add(jnp.where(go, -cost, 0.0)),
            tiles_claimed=c.tiles_claimed.at[p, cs].add(go.astype(jnp.int32)),
        ),
    )


def cancel_taken_wonders(state: GameState, p: jax.Array) -> GameState:
    """A city of ``p`` building a world wonder that now stands elsewhere stops; its production stays."""
    tb = load_tables()
    c = state.cities
    cur = c.constructing[p]
    b = jnp.clip(cur, 0, BUILDING_SLOTS - 1)
    taken = (
        (cur >= 0) & (cur < BUILDING_SLOTS) & (const(tb.building_kind)[b] == 1) & c.buildings.any((0, 1))[b]
    )
    return state._replace(cities=c._replace(constructing=c.constructing.at[p].set(jnp.where(taken, -1, cur))))


def production_phase(
    state: GameState, p: jax.Array, build_scores: jax.Array, prod_yield: jax.Array, culture_yield: jax.Array
) -> tuple[GameState, jax.Array, jax.Array, jax.Array]:
    """Scan over cities: claim border tiles, pick builds (with claims), produce, complete.

    Production toward an item is raised by the city's production modifiers that apply to it
    (``tables.production_mods``). A completed building adds its free buildings and its one-time
    grants. The production beyond the item's cost carries over to the next item, times the rules'
    ``prod_carryover`` (1.0: all of it, as the original, whose per-city ``prod_carryover`` nothing
    changes). Returns the state, the build index chosen this turn per city (-1 none), the gold from
    cities with nothing legal to build and the grants summed over completed buildings (GRANTS,).
    """
    tb = load_tables()
    cost = jnp.concatenate([const(tb.building_cost), const(tb.unit_cost)[1:]])
    carryover = tb.rules["prod_carryover"]
    kind = const(tb.building_kind)
    state = cancel_taken_wonders(state, p)
    c0 = state.cities
    current = jnp.where(c0.constructing[p] < BUILDING_SLOTS, c0.constructing[p], BUILDING_SLOTS)
    in_progress = jnp.zeros(BUILDING_SLOTS, bool).at[current].set(True, mode="drop")
    claims = in_progress & (kind > 0)
    state = state._replace(cities=c0._replace(culture=c0.culture.at[p].add(culture_yield)))
    empire = empire_modifiers(state, p)
    mods = city_modifiers(state, p) + empire
    fixed = fixed_build_mask(state, p)
    item_mods = const(tb.production_mods)
    policy_pct = city_civic_rows(state, p) @ const(tb.policy_production)  # (10, 185)
    frames = work_frames(jnp.where(c0.exists[p], c0.pos[p], -1))  # no city moves in the scan
    frame_yields = player_yields(state, state.players.techs[p], frames)  # (10, 37, 7)

    def per_city(carry: tuple, xs: tuple) -> tuple[tuple, tuple]:
        st, claims, counts = carry
        cs, scores, prod_y, city_mods, fixed_row, civic_pct, yields_here = xs
        st = _claim_tile(st, p, cs, city_mods[tb.modifier("border_cost_pct")], yields_here)
        mask = build_mask(st, p, cs, claims, counts, fixed_row)
        choice = masked_argmax(scores, mask)
        c = st.cities
        item = jnp.where(choice >= 0, choice, c.constructing[p, cs])
        b = jnp.clip(choice, 0, BUILDING_SLOTS - 1)
        claims = claims | (
            (jnp.arange(BUILDING_SLOTS) == b) & (choice >= 0) & (choice < BUILDING_SLOTS) & (kind > 0)
        )
        new_unit = choice >= BUILDING_SLOTS
        new_type = choice - BUILDING_SLOTS + 1
        counts = counts + jnp.stack(
            [
                new_unit,
                new_unit & (new_type == tb.unit("settler")),
                new_unit & (new_type == tb.unit("caravan")),
                0,
            ]
        )
        idle = c.exists[p, cs] & (item < 0)
        at = jnp.maximum(item, 0)
        speed = 1.0 + (item_mods[at] @ city_mods + civic_pct[at]) / 100.0
        stock = c.prod[p, cs] + jnp.where(idle, 0.0, prod_y * speed)
        done = (item >= 0) & (stock >= cost[jnp.maximum(item, 0)])
        is_unit = item >= BUILDING_SLOTS
        utype = (item - BUILDING_SLOTS + 1).astype(jnp.int8)
        occ = occupancy(st)
        here = c.pos[p, cs]
        spot = jnp.maximum(here, 0)
        blocked = jnp.where(is_military(utype), occ.military[spot] >= 0, occ.civilian[spot] >= 0)
        xp = city_mods[tb.modifier("unit_xp")] * (1 + empire[tb.modifier("xp_pct")] / 100.0)
        st, placed = spawn_unit(st, p, utype, here, done & is_unit & ~blocked, xp / 100.0)
        finished = done & (~is_unit | placed)
        built = finished & ~is_unit
        bi = jnp.clip(item, 0, BUILDING_SLOTS - 1)
        grants = jnp.where(built, const(tb.building_grants)[bi], 0.0)
        c = st.cities
        new_b = c.buildings[p, cs] | (jnp.arange(BUILDING_SLOTS) == item) & built
        new_b = new_b | (const(tb.building_free_here)[bi] & built)
        everywhere = const(tb.building_free_all)[bi] & built & c.exists[p][:, None]
        buildings = c.buildings.at[p].set(c.buildings[p] | everywhere).at[p, cs].set(new_b | everywhere[cs])
        c = c._replace(
            buildings=buildings,
            pop=c.pop.at[p, cs].add(grants[GRANTS.index("population")].astype(jnp.int32)),
            prod=c.prod.at[p, cs].set(jnp.where(finished, (stock - cost[at]) * carryover, stock)),
            constructing=c.constructing.at[p, cs].set(jnp.where(finished, -1, item)),
        )
        st = st._replace(cities=c)
        gold = jnp.where(idle, prod_y, 0.0)
        return (st, claims, counts), (choice, gold, grants)

    cities = jnp.arange(MAX_CITIES, dtype=jnp.int32)
    xs = (cities, build_scores, prod_yield, mods, fixed, policy_pct, frame_yields)
    counts = unit_counts(state, p)
    (state, _, _), (chosen, gold, grants) = jax.lax.scan(per_city, (state, claims, counts), xs)
    return state, chosen, gold.sum(), grants.sum(0)


def city_phase(
    state: GameState, p: jax.Array, citizen_scores: jax.Array, build_scores: jax.Array
) -> tuple[GameState, jax.Array, jax.Array, jax.Array, jax.Array]:
    """Growth, yields, borders and production for player ``p``.

    As the original, a city grows or starves on its stock and last turn's food (``Cities.yields``),
    then exactly its new population is placed: a citizen born this turn works at once, a city that
    starved works one tile fewer, and the yields of those tiles are this turn's.

    Returns the state, executed worked tiles (10, 36), executed build choices (10,), the
    empire's yields this turn (8,) including gold from idle production, and the one-time grants
    of buildings completed this turn (GRANTS,).
    """
    state = grow(state, p, state.cities.yields[p, :, FOOD])
    cy = city_yields(state, p, citizen_scores)
    c = state.cities
    state = state._replace(
        cities=c._replace(worked=c.worked.at[p].set(cy.worked), yields=c.yields.at[p].set(cy.yields))
    )
    state, chosen, idle_gold, grants = production_phase(
        state, p, build_scores, cy.yields[:, PROD], cy.yields[:, CULTURE]
    )
    empire = cy.yields.sum(0).at[GOLD].add(idle_gold)
    return state, cy.executed, chosen, empire, grants


def city_max_hp(state: GameState) -> jax.Array:
    """(6, 10) each city's full hit points: the base and what its walls, castle and the like add."""
    tb = load_tables()
    return tb.rules["city_max_hp"] + (state.cities.buildings * const(tb.building_hp)).sum(-1) / 100.0


def heal_cities(state: GameState, p: jax.Array) -> GameState:
    tb = load_tables()
    c = state.cities
    cap = city_max_hp(state)[p]
    hp = jnp.where(c.exists[p], jnp.minimum(c.hp[p] + tb.rules["city_heal_per_turn"], cap), 0.0)
    return state._replace(cities=c._replace(hp=c.hp.at[p].set(hp)))
