"""Observations in the spec's layout, for the player to move, with fog of war.

Unknown = -1 everywhere: map layers of never-seen tiles, other players' units out of sight, cities
never seen. Tiles seen before but not visible now show what the player saw last: owner, feature,
improvement, road and the yields these give; so do rival cities out of sight (population, HP,
defence), from the :class:`Tracker` (the spec's ``obs_spaces``). Policies, culture and faith
reserves, the culture threshold, free techs and policies, golden-age turns, lifetime culture, the
policies' yields (``culture_info``: on buildings, on tiles, per kill), ``combat_bonus_accel``,
``have_met`` and the demographics are live; so are specialists, great-work slots and great works,
great person points and threshold, and tourism (rows of rivals not met yet: -1); religion
(followers, tenets per city, pressure); the trade fields (``trade.observed``: offers as (asked of
you, offered to you), the ledger as (you give, you get), -1 where empty) and the caravans'
(``trade_routes.observed``; route yields in the original's column order: 8 city yields, influence,
religious pressure); the city states (``citystate_info``, ``cs_perturn_influence``,
``cs_resting_influence``, territory) and ``num_delegates`` (-1 for players not met).
"""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp

from hexarena.games.terranova.engine.effects import civic_part, kill_yields, policy_city_effects
from hexarena.games.terranova.engine.geometry import COLS, N_TILES, ROWS
from hexarena.games.terranova.engine.rules import trade, trade_routes
from hexarena.games.terranova.engine.rules.beliefs import city_tenets
from hexarena.games.terranova.engine.rules.cities import city_max_hp, owned_frames
from hexarena.games.terranova.engine.rules.cs_relations import have_met, resting_influence
from hexarena.games.terranova.engine.rules.great_people import city_gpp, great_work_slots, specialists
from hexarena.games.terranova.engine.rules.policies import next_policy_cost
from hexarena.games.terranova.engine.rules.pressure import city_state_followers
from hexarena.games.terranova.engine.rules.units import city_defence, combat_factor
from hexarena.games.terranova.engine.rules.victory import delegates
from hexarena.games.terranova.engine.state import MAX_CITIES, N_PLAYERS, GameState
from hexarena.games.terranova.engine.step import player_scores
from hexarena.games.terranova.engine.tables import FOOD, GOLD, N_YIELDS, PROD, load_tables
from hexarena.games.terranova.engine.world import (
    city_resources,
    class_bonus,
    const,
    gather,
    is_military,
    neighbor_table,
    player_yields,
    tile_class_parts,
    tile_class_yields,
    tile_classes_at,
    top_era,
    visible_resources,
    work_frames,
)

Obs = dict


class CityMemory(NamedTuple):
    """What each player last saw of every city (observer, owner, slot); pos -1 = not known."""

    pos: jax.Array  # (6, 6, 10) int32
    capital: jax.Array  # (6, 6, 10) bool
    pop: jax.Array  # (6, 6, 10) int32
    hp: jax.Array  # (6, 6, 10) float32
    defence: jax.Array  # (6, 6, 10) float32
    max_hp: jax.Array  # (6, 6, 10) float32: walls and castles, seen with the city


class Tracker(NamedTuple):
    """What each player last saw of the changing tile layers (-1 never seen) and of cities."""

    owner: jax.Array  # (6, H) int8
    improvement: jax.Array  # (6, H) int8
    road: jax.Array  # (6, H) int8
    feature: jax.Array  # (6, H) int8
    owner_city: jax.Array  # (6, H) int8
    cities: CityMemory


TILE_MEMORY = ("owner", "improvement", "road", "feature", "owner_city")


def empty_tracker() -> Tracker:
    blank = jnp.full((N_PLAYERS, N_TILES), -1, jnp.int8)
    shape = (N_PLAYERS, N_PLAYERS, MAX_CITIES)
    cities = CityMemory(
        jnp.full(shape, -1, jnp.int32),
        jnp.zeros(shape, bool),
        jnp.full(shape, -1, jnp.int32),
        jnp.full(shape, -1.0, jnp.float32),
        jnp.full(shape, -1.0, jnp.float32),
        jnp.full(shape, -1.0, jnp.float32),
    )
    return Tracker(blank, blank, blank, blank, blank, cities)


def all_city_defence(state: GameState) -> jax.Array:
    """(6, 10) the defence strength of every city slot."""
    return jax.vmap(jax.vmap(lambda q, s: city_defence(state, q, s), (None, 0)), (0, None))(
        jnp.arange(N_PLAYERS), jnp.arange(MAX_CITIES)
    )


def update_tracker(tracker: Tracker, state: GameState) -> Tracker:
    """Each player's memory after a turn: tiles in sight now show what stands there; a city in
    sight is remembered as it is (one whose tile is in sight without it is forgotten)."""
    vis = state.tiles.visibility == 2
    t = state.tiles
    now = {"owner": t.owner, "improvement": t.improvement, "road": t.road, "feature": t.feature}
    now["owner_city"] = t.owner_city
    tiles = {k: jnp.where(vis, now[k][None, :].astype(jnp.int8), getattr(tracker, k)) for k in TILE_MEMORY}
    c, mem = state.cities, tracker.cities
    seen_now = c.exists[None] & jax.vmap(lambda v: gather(v, c.pos, False))(vis)
    tile_gone = jax.vmap(lambda v, pos: gather(v, pos, False))(vis, mem.pos) & ~seen_now
    pos = jnp.where(seen_now, c.pos[None], jnp.where(tile_gone, -1, mem.pos))
    current = (c.capital, c.pop, c.hp, all_city_defence(state), city_max_hp(state))
    kept = [jnp.where(seen_now, x[None], old) for x, old in zip(current, mem[1:], strict=True)]
    return Tracker(**tiles, cities=CityMemory(pos, *kept))


def _grid(x: jax.Array) -> jax.Array:
    return x.reshape(ROWS, COLS, *x.shape[1:])


def _rowcol(pos: jax.Array) -> jax.Array:
    return jnp.where((pos >= 0)[..., None], jnp.stack([pos // COLS, pos % COLS], -1), -1)


def _units_obs(state: GameState, o: jax.Array) -> Obs:
    u = state.units
    vis = state.tiles.visibility[o]
    seen = (u.kind > 0) & (gather(vis, u.pos, 0) == 2)
    mine = jnp.arange(N_PLAYERS)[:, None] == o
    show = (seen | mine) & (u.kind > 0)

    def hide(x: jax.Array, fill: float | int = -1) -> jax.Array:
        m = show if x.ndim == 2 else show[..., None]
        return jnp.where(m, x, fill)

    own_engaged = u.engaged_turns[o].astype(jnp.int32)
    return {
        "unit_type": jnp.where(mine & (u.kind == 0), 0, hide(u.kind.astype(jnp.int32))),
        "unit_rowcol": hide(_rowcol(u.pos)),
        "unit_ap": hide(u.moves),
        "engaged_for_n_turns": jnp.where(u.kind[o] > 0, own_engaged, -1),
        "engaged_action_id": u.engaged_action[o].astype(jnp.int32),
        **trade_routes.observed(state, o),
        "combat_bonus_accel": hide(combat_accel(state)),
        "health": hide(u.hp),
    }


def combat_accel(state: GameState) -> jax.Array:
    """(6, 30) each unit's combat strength factor (the observation's ``combat_bonus_accel``): 1 +
    its own bonus (its city's barracks), times its owner's empire-wide factor; 0 for civilians."""
    u = state.units
    factor = jax.vmap(lambda q: combat_factor(state, q))(jnp.arange(N_PLAYERS))
    accel = (1.0 + u.combat_bonus) * factor[:, None]
    return jnp.where((u.kind > 0) & is_military(u.kind), accel, 0.0)


def _ownership_maps(tracker: Tracker, o: jax.Array) -> jax.Array:
    """(6, 10, 42, 66) int8 as ``o`` last saw it: 0 not owned, 1 could own, 2 owned, 3 centre; -1
    never seen. Only cities ``o`` knows of (``CityMemory``) have work areas and centres here."""
    owner, city = tracker.owner[o].astype(jnp.int32), tracker.owner_city[o].astype(jnp.int32)
    known_pos = tracker.cities.pos[o]  # (6, 10)
    frames = work_frames(known_pos)  # (6, 10, 37)
    could = jnp.zeros((N_PLAYERS, MAX_CITIES, N_TILES + 1), bool)
    pi = jnp.arange(N_PLAYERS)[:, None, None]
    ci = jnp.arange(MAX_CITIES)[None, :, None]
    could = could.at[pi, ci, jnp.where(frames >= 0, frames, N_TILES)].set(True)[..., :-1]
    owned = (owner[None, None, :] == pi) & (city[None, None, :] == ci)
    centre = jnp.arange(N_TILES)[None, None, :] == known_pos[..., None]
    code = jnp.where(centre, 3, jnp.where(owned, 2, jnp.where(could & (owner[None, None, :] == -1), 1, 0)))
    seen = tracker.feature[o] >= 0
    code = jnp.where(seen[None, None, :], code, -1).astype(jnp.int8)
    return code.reshape(N_PLAYERS, MAX_CITIES, ROWS, COLS)


def city_resource_flags(state: GameState, o: jax.Array) -> jax.Array:
    """(10, 52) int32: 1 where a city of ``o`` has a source of the resource (``resources_owned``)."""
    return (city_resources(state, o)[:, 1:] > 0).astype(jnp.int32)


def building_tile_bonus(state: GameState, o: jax.Array, classes: tuple[jax.Array, jax.Array]) -> jax.Array:
    """(H, 7) what the buildings of the owning city add to each tile of ``o`` (lighthouse on sea
    tiles, hotel on lakes...), whether worked or not; 0 elsewhere. A city owns tiles only in its
    37-tile work area, so the classes are read there (10 x 37 tiles, not the whole map: a per-tile
    gather of every class's bonus halved the batched step's speed)."""
    tb = load_tables()
    built = state.cities.buildings[o].astype(jnp.float32)
    per_city = class_bonus(built, tb.building_tile_bonus)  # (10, C, 7)
    frames, owned = owned_frames(state, o)  # (10, 37)
    here = tile_classes_at(classes, frames).astype(jnp.float32)  # (10, 37, C)
    bonus = jnp.einsum("kfc,kcy->kfy", here, per_city) * owned[..., None]
    at = jnp.where(owned, frames, N_TILES)
    return jnp.zeros((N_TILES + 1, N_YIELDS)).at[at].add(bonus)[:N_TILES]


def _cities_obs(
    state: GameState,
    tracker: Tracker,
    o: jax.Array,
    tile_yields: jax.Array,
    classes: tuple[jax.Array, jax.Array],
) -> Obs:
    tb = load_tables()
    c, mem = state.cities, tracker.cities
    mine = jnp.arange(N_PLAYERS)[:, None] == o
    show = jnp.where(mine, c.exists, mem.pos[o] >= 0)
    built = c.buildings[o].astype(jnp.float32)
    centre_y = gather(tile_yields, c.pos[o], 0.0)
    building_y = built @ const(tb.building_yields)
    pos = jnp.where(mine, c.pos, mem.pos[o])
    coast = jax.vmap(jax.vmap(lambda at: _coastal(state, at)))(pos)

    own_defence = jax.vmap(lambda cs: city_defence(state, o, cs))(jnp.arange(MAX_CITIES))

    def hide(now: jax.Array, seen: jax.Array, fill: float | int = -1) -> jax.Array:
        return jnp.where(show, jnp.where(mine, now, seen), fill)

    zeros = jnp.zeros
    return {
        "city_ids": jnp.where(
            show, jnp.where(hide(c.capital, mem.capital[o], False), 1, 2), jnp.where(mine, 0, -1)
        ),
        "city_rowcols": jnp.where(show[..., None], _rowcol(pos), -1),
        "ownership_map": _ownership_maps(tracker, o),
        "yields": c.yields[o][:, :N_YIELDS],
        "city_center_yields": centre_y,
        "building_yields": building_y,
        "population": hide(c.pop, mem.pop[o]),
        "worked_slots": c.worked[o][:, 1:].astype(jnp.int32),
        "specialist_slots": specialists(state, o).astype(jnp.int32),
        "gw_slots": _gw_obs(state, o),
        "food_reserves": c.food[o],
        "growth_carryover": built @ const(tb.building_carryover),
        "prod_reserves": c.prod[o],
        "prod_carryover": jnp.where(c.exists[o], tb.rules["prod_carryover"], 0.0).astype(jnp.float32),
        "is_constructing": c.constructing[o],
        "bldg_maintenance": built @ const(tb.building_upkeep),
        "defense": hide(own_defence[None, :], mem.defence[o], -1.0),
        "hp": hide(c.hp, mem.hp[o], -1.0),
        "max_hp": hide(city_max_hp(state), mem.max_hp[o], -1.0),
        "buildings_owned": c.buildings[o].astype(jnp.int32),
        "resources_owned": city_resource_flags(state, o),
        "additional_yield_map": _grid(building_tile_bonus(state, o, classes)),
        "is_coastal": jnp.where(show, coast, -1),
        "religion_info": {
            "religious_population": zeros((MAX_CITIES, 6), jnp.int32),
            "religious_tenets_per_city": zeros((MAX_CITIES, 91), jnp.int8),
            "building_yields": zeros((MAX_CITIES, 8), jnp.float32),
            "additional_yield_map": zeros((MAX_CITIES, ROWS, COLS, N_YIELDS), jnp.int8),
            "cs_perturn_influence_cumulative": zeros((MAX_CITIES, 12), jnp.float32),
            "player_perturn_influence_cumulative": zeros((MAX_CITIES, N_PLAYERS, MAX_CITIES), jnp.float32),
        },
        "culture_reserves_for_border": c.culture[o],
        "great_person_points": city_gpp(state, o),
    }


def _gw_obs(state: GameState, o: jax.Array) -> jax.Array:
    """(10, 5): great works in each city of ``o`` (writing, art, music, artifact), then (the spec's
    fifth column, which it leaves unnamed) the city's great-work slots of all kinds."""
    works = state.great.works[o].astype(jnp.int32)
    slots = great_work_slots(state, o).sum(-1).astype(jnp.int32)
    return jnp.concatenate([works, slots[:, None]], axis=1)


def _tourism_obs(state: GameState, o: jax.Array) -> jax.Array:
    """(6, 6) accumulated tourism of player i onto player j; rows of rivals ``o`` has not met: -1."""
    known = have_met(state)[o, :N_PLAYERS]  # itself included
    return jnp.where(known[:, None], state.players.tourism, -1.0)


def _coastal(state: GameState, pos: jax.Array) -> jax.Array:
    nb = neighbor_table()[jnp.maximum(pos, 0)]
    return (((state.layers.elevation[jnp.maximum(nb, 0)] == 0) & (nb >= 0)).any() & (pos >= 0)).astype(
        jnp.int32
    )


def _rank(values: jax.Array) -> tuple[jax.Array, jax.Array]:
    return jnp.argmax(values).astype(jnp.int32), jnp.argmin(values).astype(jnp.int32)


def observe(state: GameState, tracker: Tracker, o: jax.Array) -> Obs:
    """The observation of player ``o``."""
    lay, t, pl = state.layers, state.tiles, state.players
    vis = t.visibility[o]
    seen = vis > 0

    def fog(x: jax.Array) -> jax.Array:
        m = seen if x.ndim == 1 else seen[:, None]
        return _grid(jnp.where(m, x.astype(jnp.int32), -1))

    bits = (lay.river[:, None] >> jnp.arange(6, dtype=jnp.uint8)) & 1
    met = have_met(state)[o]
    techs = pl.techs[o]
    tile_y = player_yields(remembered_tiles(state, tracker, o), techs)
    classes = tile_class_parts(state, techs)
    policy = policy_city_effects(state, o, civic_part("policies"))
    # policies act alike in every city
    policy_tiles = tile_class_yields(classes, policy.tile_bonus[0]) * (t.owner == o)[:, None]
    imp_y = const(load_tables().improvement_yields)[jnp.maximum(tracker.improvement[o], 0).astype(jnp.int32)]
    demo = demographics(state)
    per_kill = kill_yields(state, o)
    obs: Obs = {
        "elevation_map": fog(lay.elevation),
        "terrain_map": fog(lay.terrain),
        "edge_river_map": fog(bits),
        "lake_map": fog(lay.lake),
        "feature_map": _grid(tracker.feature[o].astype(jnp.int32)),
        "nw_map": fog(lay.natural_wonder),
        "cs_ownership_map": fog(state.citystates.owner),
        "units": _units_obs(state, o),
        "technologies": techs.astype(jnp.int32),
        "policies": pl.policies[o].astype(jnp.int32),
        "player_cities": _cities_obs(state, tracker, o, tile_y, classes),
        "yield_map_players": _grid(jnp.where(seen[:, None], tile_y, -1.0)),
        "visible_resources_map_players": fog(visible_resources(state, techs)),
        "science_reserves": pl.science[o],
        "culture_reserves": pl.culture[o],
        "faith_reserves": pl.faith[o],
        "is_researching": pl.researching[o],
        "num_trade_routes": trade_routes.num_trade_routes(state, o),
        "cs_perturn_influence": state.citystates.perturn[:, o],
        "num_delegates": jnp.where(met[:N_PLAYERS], delegates(state), -1),
        "culture_threshold": next_policy_cost(state, o),
        "religious_tenets": pl.tenets.astype(jnp.int32),
        "free_techs": pl.free_techs[o],
        "free_policies": pl.free_policies[o],
        "great_works": state.great.works[o].sum(0).astype(jnp.int32),
        "culture_info": {
            "building_yields": policy.on_buildings,
            "yields_per_kill": per_kill[0],
            "honor_finisher_yields_per_kill": per_kill[1],
            "cs_resting_influence": resting_influence(state)[o],
            "cs_trade_route_yields": trade_routes.city_state_route_yields(state, o),
            "additional_yield_map": _grid(jnp.where(seen[:, None], policy_tiles, -1.0)),
        },
        "improvement_additional_yield_map": _grid(jnp.where(seen[:, None], imp_y, -1.0)),
        "improvement_map": _grid(tracker.improvement[o].astype(jnp.int32)),
        "road_map": _grid(tracker.road[o].astype(jnp.int32)),
        "gpps": state.great.points[o],
        "gp_threshold": state.great.threshold[o],
        "golden_age_turns": pl.golden_age_turns[o],
        "tourism_total": _tourism_obs(state, o),
        "culture_total": pl.culture_total,
        "citystate_info": _citystate_obs(state, o, met[N_PLAYERS:]),
        "visibility_map": _grid(vis.astype(jnp.int32)),
        **trade.observed(state, o),
        "have_met": pl.have_met[o].astype(jnp.int32),
        "at_war": pl.at_war.astype(jnp.int32),
        "has_sacked": pl.has_sacked.astype(jnp.int32),
        "treasury": pl.gold[o],
        "happiness": pl.happiness[o],
        "player_id": o.astype(jnp.int32),
        "current_turn": state.turn,
        "score": player_scores(state)[o],
        "era": top_era(techs),
    }
    for name, values in demo.items():
        obs[f"most_{name}"], obs[f"least_{name}"] = _rank(values)
    obs["player_cities"]["religion_info"].update(_religion_obs(state, o, classes))
    return obs


def _religion_obs(state: GameState, o: jax.Array, classes: tuple[jax.Array, jax.Array]) -> Obs:
    """``religion_info`` of ``o``'s own cities (no fog: they are its own): followers of each
    religion, the tenets acting in each city (its majority religion's, else ``o``'s pantheon), the
    yields those tenets add to the city (buildings, counts, sites, the city itself) and to the tiles
    of its work area that ``o`` owns, and the pressure its cities have accumulated on each city
    and city state."""
    c, rel = state.cities, state.religion
    faith = policy_city_effects(state, o, civic_part("tenets"))
    frames = work_frames(jnp.where(c.exists[o], c.pos[o], -1))  # (10, 37)
    here = tile_classes_at(classes, frames).astype(jnp.float32)  # (10, 37, C)
    mine = gather(state.tiles.owner == o, frames, False)[..., None]
    on_tiles = jnp.einsum("ftc,fcy->fty", here, faith.tile_bonus) * mine  # (10, 37, 7)
    # written as int8 straight away (each tile of a plane is set once): a float plane per city would
    # be four times the memory traffic for the same int8 field; off-map slots are dropped, not
    # written to a padding tile that a slice then copies away
    per_city = jnp.zeros((MAX_CITIES, N_TILES, N_YIELDS), jnp.int8)
    at = jnp.where(frames >= 0, frames, N_TILES)
    per_city = per_city.at[jnp.arange(MAX_CITIES)[:, None], at].set(on_tiles.astype(jnp.int8), mode="drop")
    return {
        "religious_population": rel.followers[o],
        "religious_tenets_per_city": city_tenets(state, o).astype(jnp.int8),
        "building_yields": faith.flat,
        "additional_yield_map": per_city.reshape(MAX_CITIES, ROWS, COLS, N_YIELDS),
        "cs_perturn_influence_cumulative": rel.cs_pressure[o],
        "player_perturn_influence_cumulative": rel.pressure[o],
    }


def demographics(state: GameState) -> dict[str, jax.Array]:
    """(6,) per player, the quantities the demographics fields rank: citizens, food, production and
    gold made last turn (the cities' yields), tiles owned, military strength (sum of the combat
    strength of its units, as the original), happiness and technologies known."""
    tb = load_tables()
    c, pl, u = state.cities, state.players, state.units
    made = jnp.where(c.exists[..., None], c.yields, 0.0).sum(1)  # (6, 8)
    strength = jnp.maximum(const(tb.unit_strength), const(tb.unit_ranged))[u.kind.astype(jnp.int32)]
    return {
        "population": jnp.where(c.exists, c.pop, 0).sum(1),
        "crop_yield": made[:, FOOD],
        "manufactured_goods": made[:, PROD],
        "gnp": made[:, GOLD],
        "land": (state.tiles.owner[None, :] == jnp.arange(N_PLAYERS)[:, None]).sum(1),
        "soldiers": jnp.where(u.kind > 0, strength, 0.0).sum(1),
        "approval": pl.happiness,
        "literacy": pl.techs.sum(1),
    }


def remembered_tiles(state: GameState, tracker: Tracker, o: jax.Array) -> GameState:
    """``state`` with the changing tile layers as ``o`` last saw them (tile yields of tiles out of
    sight are computed from these: what was there then, valued with ``o``'s techs)."""
    t = state.tiles
    seen = tracker.feature[o] >= 0
    tiles = t._replace(
        feature=jnp.where(seen, tracker.feature[o], t.feature),
        improvement=jnp.where(seen, tracker.improvement[o], t.improvement),
    )
    return state._replace(tiles=tiles)


def _citystate_obs(state: GameState, o: jax.Array, met: jax.Array) -> Obs:
    """The city states as ``o`` knows them: type, quest and city of those it has met; everyone's ally
    and ``o``'s influence; its quest progress (``*_mine``) and the best progress (``*_lead``); the
    followers of each religion in those it has met."""
    cst = state.citystates
    progress = {
        "culture": cst.culture_tracker,
        "faith": cst.faith_tracker,
        "tech": (state.players.techs.sum(1) - cst.tech_start).astype(jnp.float32),
        "religion": cst.religion_tracker.astype(jnp.float32),
        "wonder": cst.wonder_tracker.astype(jnp.float32),
        "resource": cst.resource_tracker.astype(jnp.float32),
    }
    trade = cst.trade_tracker.astype(jnp.float32)
    is_ally = cst.relationship == 2
    sites = state.layers.cs_sites
    return {
        "religious_population": jnp.where(met[:, None], city_state_followers(state), -1),
        "relationships": jnp.where(is_ally.any(1), jnp.argmax(is_ally, 1), -1).astype(jnp.int32),
        "influence_level": cst.influence[:, o],
        "cs_type": jnp.where(met, cst.kind.astype(jnp.int32), -1),
        "quest_type": jnp.where(met, cst.quest.astype(jnp.int32), -1),
        **{f"{k}_tracker_mine": v[o] for k, v in progress.items()},
        "trade_tracker_mine": trade[o],
        **{f"{k}_tracker_lead": v.max() for k, v in progress.items()},
        "trade_tracker_lead": trade.max(0).max(),
        "city_rowcols": jnp.where(met[:, None], _rowcol(sites), -1),
    }
