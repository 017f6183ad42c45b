"""Observations in the spec's layout, for the player to move, with fog of war.

Unknown = -1 everywhere: map layers of never-seen tiles, other players' units out of sight, cities
on never-seen tiles. Tiles seen before but not visible now show what the player saw last (the
:class:`Tracker`, the spec's ``obs_spaces``). Policies, culture and faith reserves, the culture
threshold, free techs and policies, golden-age turns, lifetime culture and the policies' yields
(``culture_info``: on buildings, on tiles) are live; so are specialists, great-work slots and great
works, great person points and threshold, and tourism (rows of rivals not met yet: -1). Fields of
later stages (trade, religion, city states) are present with their shapes and hold zeros or -1.
"""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp

from hexarena.games.terranova.beliefs import city_tenets
from hexarena.games.terranova.cities import resources_owned
from hexarena.games.terranova.effects import civic_part, policy_city_effects
from hexarena.games.terranova.geometry import COLS, N_TILES, ROWS
from hexarena.games.terranova.great_people import city_gpp, great_work_slots, has_met, specialists
from hexarena.games.terranova.policies import next_policy_cost
from hexarena.games.terranova.state import MAX_CITIES, MAX_UNITS, N_PLAYERS, GameState
from hexarena.games.terranova.step import player_scores
from hexarena.games.terranova.tables import N_YIELDS, load_tables
from hexarena.games.terranova.units import city_defence
from hexarena.games.terranova.world import (
    const,
    gather,
    neighbor_table,
    player_yields,
    tile_class_map,
    top_era,
    visible_resources,
    work_frames,
)

Obs = dict


class Tracker(NamedTuple):
    """What each player last saw of the changing tile layers (-1 never seen)."""

    owner: jax.Array  # (6, H) int8
    improvement: jax.Array  # (6, H) int8
    road: jax.Array  # (6, H) int8
    feature: jax.Array  # (6, H) int8


def empty_tracker() -> Tracker:
    blank = jnp.full((N_PLAYERS, N_TILES), -1, jnp.int8)
    return Tracker(blank, blank, blank, blank)


def update_tracker(tracker: Tracker, state: GameState) -> Tracker:
    vis = state.tiles.visibility == 2
    t = state.tiles
    now = (t.owner, t.improvement, t.road.astype(jnp.int8), t.feature)
    return Tracker(
        *(jnp.where(vis, cur[None, :].astype(jnp.int8), old) for old, cur in zip(tracker, now, strict=True))
    )


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
        "trade_to_player_int": jnp.full(MAX_UNITS, -1, jnp.int32),
        "trade_to_city_int": jnp.full(MAX_UNITS, -1, jnp.int32),
        "trade_from_city_int": jnp.full(MAX_UNITS, -1, jnp.int32),
        "trade_yields": jnp.zeros((MAX_UNITS, 2, 10), jnp.float32),
        "combat_bonus_accel": hide(jnp.ones_like(u.hp)),
        "health": hide(u.hp),
    }


def _ownership_maps(state: GameState, seen: jax.Array) -> jax.Array:
    """(6, 10, 42, 66) int8: 0 not owned, 1 could own, 2 owned, 3 centre; -1 never seen."""
    c, t = state.cities, state.tiles
    frames = work_frames(jnp.where(c.exists, c.pos, -1))  # (6, 10, 37)
    could = jnp.zeros((N_PLAYERS, MAX_CITIES, N_TILES + 1), bool)
    pi = jnp.arange(N_PLAYERS)[:, None, None]
    ci = jnp.arange(MAX_CITIES)[None, :, None]
    could = could.at[pi, ci, jnp.where(frames >= 0, frames, N_TILES)].set(True)[..., :-1]
    owned = (t.owner[None, None, :] == pi) & (t.owner_city[None, None, :] == ci)
    centre = jnp.arange(N_TILES)[None, None, :] == jnp.where(c.exists, c.pos, -1)[..., None]
    code = jnp.where(centre, 3, jnp.where(owned, 2, jnp.where(could & (t.owner[None, None, :] < 0), 1, 0)))
    code = jnp.where(seen[None, None, :], code, -1).astype(jnp.int8)
    return code.reshape(N_PLAYERS, MAX_CITIES, ROWS, COLS)


def _cities_obs(state: GameState, o: jax.Array, seen: jax.Array, tile_yields: jax.Array) -> Obs:
    tb = load_tables()
    c = state.cities
    known = c.exists & gather(seen, c.pos, False)
    mine = jnp.arange(N_PLAYERS)[:, None] == o
    show = known | (mine & c.exists)
    built = c.buildings[o].astype(jnp.float32)
    centre_y = gather(tile_yields, c.pos[o], 0.0)
    building_y = built @ const(tb.building_yields)
    coast = jax.vmap(jax.vmap(lambda pos: _coastal(state, pos)))(c.pos)
    defence = jax.vmap(jax.vmap(lambda q, s: city_defence(state, q, s), (None, 0)), (0, None))(
        jnp.arange(N_PLAYERS), jnp.arange(MAX_CITIES)
    )
    res_owned = resources_owned(state, o)[1:]

    def hide(x: jax.Array) -> jax.Array:
        return jnp.where(show, x, -1)

    zeros = jnp.zeros
    return {
        "city_ids": jnp.where(show, jnp.where(c.capital, 1, 2), jnp.where(mine, 0, -1)),
        "city_rowcols": jnp.where(show[..., None], _rowcol(c.pos), -1),
        "ownership_map": _ownership_maps(state, seen),
        "yields": c.yields[o][:, :N_YIELDS],
        "city_center_yields": centre_y,
        "building_yields": building_y,
        "population": hide(c.pop),
        "worked_slots": c.worked[o][:, 1:].astype(jnp.int32),
        "specialist_slots": specialists(state, o).astype(jnp.int32),
        "gw_slots": _gw_obs(state, o),
        "food_reserves": c.food[o],
        "growth_carryover": built @ const(tb.building_carryover),
        "prod_reserves": c.prod[o],
        "prod_carryover": jnp.ones(MAX_CITIES, jnp.float32),
        "is_constructing": c.constructing[o],
        "bldg_maintenance": built @ const(tb.building_upkeep),
        "defense": jnp.where(show, defence, -1.0),
        "hp": jnp.where(show, c.hp, -1.0),
        "buildings_owned": c.buildings[o].astype(jnp.int32),
        "resources_owned": jnp.where(c.exists[o][:, None], res_owned[None, :], False).astype(jnp.int32),
        "additional_yield_map": zeros((ROWS, COLS, N_YIELDS), jnp.float32),
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
    known = has_met(state, o) | (jnp.arange(N_PLAYERS) == o)
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
    techs = pl.techs[o]
    tile_y = player_yields(state, techs)
    classes = tile_class_map(state, techs)
    policy = policy_city_effects(state, o, civic_part("policies"))
    policy_tiles = (classes @ policy.tile_bonus[0]) * (t.owner == o)[:, None]  # policies: alike in every city
    imp_y = const(load_tables().improvement_yields)[jnp.maximum(tracker.improvement[o], 0).astype(jnp.int32)]
    c = state.cities
    pops = c.pop.sum(1)
    demo = {
        "population": pops,
        "crop_yield": pops * 2.0,
        "manufactured_goods": c.exists.sum(1),
        "gnp": pl.gold,
        "land": (t.owner[None, :] == jnp.arange(N_PLAYERS)[:, None]).sum(1),
        "soldiers": ((state.units.kind > 0) & (const(load_tables().unit_strength)[state.units.kind] > 0)).sum(
            1
        ),
        "approval": pl.happiness,
        "literacy": pl.techs.sum(1),
    }
    obs: Obs = {
        "elevation_map": fog(lay.elevation),
        "terrain_map": fog(lay.terrain),
        "edge_river_map": fog(bits),
        "lake_map": fog(lay.lake),
        "feature_map": _grid(tracker.feature[o].astype(jnp.int32)),
        "nw_map": fog(lay.natural_wonder),
        "cs_ownership_map": fog(lay.cs_owner),
        "units": _units_obs(state, o),
        "technologies": techs.astype(jnp.int32),
        "policies": pl.policies[o].astype(jnp.int32),
        "player_cities": _cities_obs(state, o, seen, tile_y),
        "yield_map_players": _grid(jnp.where(seen[:, None], tile_y, -1.0)),
        "visible_resources_map_players": fog(visible_resources(state, techs)),
        "science_reserves": pl.science[o],
        "culture_reserves": pl.culture[o],
        "faith_reserves": pl.faith[o],
        "is_researching": pl.researching[o],
        "num_trade_routes": jnp.int32(2),
        "cs_perturn_influence": jnp.zeros(12, jnp.float32),
        "num_delegates": jnp.zeros(N_PLAYERS, jnp.int32),
        "culture_threshold": next_policy_cost(state, o),
        "religious_tenets": pl.tenets.astype(jnp.int32),
        "free_techs": pl.free_techs[o],
        "free_policies": pl.free_policies[o],
        "great_works": state.great.works[o].sum(0).astype(jnp.int32),
        "culture_info": {
            "building_yields": policy.on_buildings,
            "yields_per_kill": jnp.zeros(8, jnp.float32),
            "honor_finisher_yields_per_kill": jnp.zeros(8, jnp.float32),
            "cs_resting_influence": jnp.float32(0),
            "cs_trade_route_yields": jnp.zeros((MAX_CITIES, 2, 10), jnp.float32),
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
        "citystate_info": _citystate_obs(state, seen),
        "visibility_map": _grid(vis.astype(jnp.int32)),
        "trade_offers": jnp.full((N_PLAYERS, 2), -1, jnp.int32),
        "trade_ledger": jnp.full((N_PLAYERS, 10, 2), -1, jnp.int32),
        "trade_length_ledger": jnp.zeros(10, jnp.int32),
        "trade_gpt_adjustment": jnp.float32(0),
        "trade_resource_adjustment": jnp.zeros(52, jnp.float32),
        "have_met": _have_met(state, o),
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


def _religion_obs(state: GameState, o: jax.Array, classes: jax.Array) -> Obs:
    """``religion_info`` of ``o``'s own cities (no fog: they are its own): followers of each
    religion, the tenets acting in each city (its majority religion's, else ``o``'s pantheon), the
    yields those tenets add to the city (buildings, counts, sites, the city itself) and to the tiles
    of its work area that ``o`` owns, and the pressure its cities have accumulated on each city
    and city state."""
    c, rel = state.cities, state.religion
    faith = policy_city_effects(state, o, civic_part("tenets"))
    frames = work_frames(jnp.where(c.exists[o], c.pos[o], -1))  # (10, 37)
    here = gather(classes, frames, False).astype(jnp.float32)  # (10, 37, C)
    mine = gather(state.tiles.owner == o, frames, False)[..., None]
    on_tiles = jnp.einsum("ftc,fcy->fty", here, faith.tile_bonus) * mine  # (10, 37, 7)
    n_tiles = classes.shape[0]
    per_city = jnp.zeros((MAX_CITIES, n_tiles + 1, N_YIELDS), jnp.float32)
    at = jnp.where(frames >= 0, frames, n_tiles)
    per_city = per_city.at[jnp.arange(MAX_CITIES)[:, None], at].set(on_tiles)[:, :n_tiles]
    return {
        "religious_population": rel.followers[o],
        "religious_tenets_per_city": city_tenets(state, o).astype(jnp.int8),
        "building_yields": faith.flat,
        "additional_yield_map": per_city.reshape(MAX_CITIES, ROWS, COLS, N_YIELDS).astype(jnp.int8),
        "cs_perturn_influence_cumulative": rel.cs_pressure[o],
        "player_perturn_influence_cumulative": rel.pressure[o],
    }


def _have_met(state: GameState, o: jax.Array) -> jax.Array:
    """(16,): players 0-5 (met = one of their cities or units is in sight), then city states (stage 2)."""
    vis = state.tiles.visibility[o] == 2
    units_seen = ((state.units.kind > 0) & gather(vis, state.units.pos, False)).any(1)
    cities_seen = (state.cities.exists & gather(vis, state.cities.pos, False)).any(1)
    met = (units_seen | cities_seen | (jnp.arange(N_PLAYERS) == o)).astype(jnp.int32)
    return jnp.concatenate([met, jnp.zeros(16 - N_PLAYERS, jnp.int32)])


def _citystate_obs(state: GameState, seen: jax.Array) -> Obs:
    n = 12
    sites = state.layers.cs_sites
    z = jnp.zeros
    return {
        "religious_population": z((n, 6), jnp.int32),
        "relationships": jnp.full(n, -1, jnp.int32),
        "influence_level": z(n, jnp.float32),
        "cs_type": jnp.full(n, -1, jnp.int32),
        "quest_type": jnp.full(n, -1, jnp.int32),
        **{
            f"{k}_tracker_mine": jnp.float32(0)
            for k in ("culture", "faith", "tech", "religion", "wonder", "resource")
        },
        "trade_tracker_mine": z(n, jnp.float32),
        **{
            f"{k}_tracker_lead": jnp.float32(0)
            for k in ("culture", "faith", "tech", "trade", "religion", "wonder", "resource")
        },
        "city_rowcols": jnp.where(seen[sites][:, None], _rowcol(sites), -1),
    }
