"""Quantities derived from a state inside the step: tile yields, movement costs, occupancy.

All functions are pure and jittable; table arrays enter as constants.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from hexarena.games.terranova.engine.geometry import COLS, N_TILES, axial, neighbors, work_area
from hexarena.games.terranova.engine.state import MAX_CITIES, MAX_UNITS, N_PLAYERS, GameState
from hexarena.games.terranova.engine.tables import EXTRA_TILE_CLASSES, IMPROVEMENT_TILE_CLASSES, load_tables

IMPASSABLE = 99.0
NEG = -jnp.inf


def const(x: np.ndarray) -> jax.Array:
    return jnp.asarray(x)


def masked_argmax(scores: jax.Array, mask: jax.Array) -> jax.Array:
    """Index of the best score among legal options, -1 when none is legal (ties: lowest index)."""
    best = jnp.argmax(jnp.where(mask, scores, NEG), axis=-1)
    return jnp.where(mask.any(-1), best, -1).astype(jnp.int32)


def distance_from(tile: jax.Array) -> jax.Array:
    """(H,) hex distance from ``tile`` to every tile on the cylinder."""
    return tile_distance(jnp.arange(axial()[0].shape[0]), tile)


def tile_distance(a: jax.Array, b: jax.Array) -> jax.Array:
    """Hex distance between tiles ``a`` and ``b`` (broadcasting), the short way round the cylinder."""
    q, r = (const(x) for x in axial())
    dq0, dr = q[a] - q[b], r[a] - r[b]
    best = None
    for shift in (-COLS, 0, COLS):
        dq = dq0 + shift
        d = (jnp.abs(dq) + jnp.abs(dr) + jnp.abs(dq + dr)) // 2
        best = d if best is None else jnp.minimum(best, d)
    return best


def _at(tiles: jax.Array | None) -> Any:
    """A reader of per-tile layers: the whole map (``tiles`` None) or the tiles ``tiles`` (-1 read
    as tile 0; callers mask those)."""
    return (lambda x: x) if tiles is None else (lambda x: x[jnp.maximum(tiles, 0)])


def base_yields(state: GameState, tiles: jax.Array | None = None) -> jax.Array:
    """(H, 7) yields of bare tiles: terrain, elevation, feature, lake, river, natural wonder; with
    ``tiles``, (..., 7) at those tiles only."""
    tb = load_tables()
    at = _at(tiles)
    lay, feat = state.layers, at(state.tiles.feature).astype(jnp.int32)
    elev = at(lay.elevation).astype(jnp.int32)
    y = const(tb.terrain_yields)[at(lay.terrain).astype(jnp.int32)]
    y = jnp.where(const(tb.elevation_sets)[elev][..., None], const(tb.elevation_yields)[elev], y)
    fsets = const(tb.feature_sets)[feat][..., None]
    fy = const(tb.feature_yields)[feat]
    y = jnp.where(fsets, fy, y + fy)
    y = jnp.where(at(lay.lake)[..., None], const(tb.lake_yields), y)
    y = y + (at(lay.river) > 0)[..., None] * const(tb.river_yields)
    y = y + const(tb.wonder_yields)[at(lay.natural_wonder).astype(jnp.int32)]
    return jnp.maximum(y, 0.0)


def player_yields(state: GameState, techs: jax.Array, tiles: jax.Array | None = None) -> jax.Array:
    """(H, 7) tile yields as a player with ``techs`` gets them (resources need their reveal tech);
    with ``tiles``, (..., 7) at those tiles only, 0 where a tile is -1 (``gather(player_yields(...),
    tiles, 0.0)`` without the whole map: the city phase reads 370 tiles of 2772)."""
    tb = load_tables()
    at = _at(tiles)
    res = at(state.layers.resource).astype(jnp.int32)
    imp = at(state.tiles.improvement).astype(jnp.int32)
    reveal = const(tb.resource_reveal)[res]
    seen = (res > 0) & techs[jnp.maximum(reveal, 0)]
    improved = seen & (const(tb.resource_improvement)[res] == imp) & (imp > 0)
    ry = jnp.where(improved[..., None], const(tb.resource_improved)[res], const(tb.resource_yields)[res])
    y = base_yields(state, tiles) + jnp.where(seen[..., None], ry, 0.0) + const(tb.improvement_yields)[imp]
    y = jnp.maximum(y, 0.0)
    return y if tiles is None else jnp.where((tiles >= 0)[..., None], y, 0.0)


def visible_resources(state: GameState, techs: jax.Array) -> jax.Array:
    """(H,) resource id where ``techs`` reveal it, else 0."""
    res = state.layers.resource.astype(jnp.int32)
    reveal = const(load_tables().resource_reveal)[res]
    return jnp.where((res > 0) & techs[jnp.maximum(reveal, 0)], res, 0)


def city_resources(state: GameState, p: jax.Array) -> jax.Array:
    """(10, 53) int32: how many sources of each resource each city of ``p`` has, as the original
    counts them: tiles the city owns that carry the resource's improvement, and the city's own
    tile, where ``p``'s techs reveal the resource. A unit or building that needs a resource
    needs one in the city that makes it (or from a deal: :func:`deal_resources`)."""
    tb = load_tables()
    c, t = state.cities, state.tiles
    res = state.layers.resource.astype(jnp.int32)
    imp = t.improvement.astype(jnp.int32)
    centre = jnp.zeros(N_TILES + 1, bool).at[jnp.where(c.exists[p], c.pos[p], N_TILES)].set(True)[:-1]
    reveal = const(tb.resource_reveal)[res]
    ok = (t.owner == p) & (t.owner_city >= 0) & (res > 0)
    ok &= (const(tb.resource_improvement)[res] == imp) | centre
    ok &= state.players.techs[p][jnp.maximum(reveal, 0)]
    city = jnp.where(ok, t.owner_city.astype(jnp.int32), MAX_CITIES)
    counts = jnp.zeros((MAX_CITIES + 1, len(tb.resource_names)), jnp.int32).at[city, res].add(1)
    return counts[:MAX_CITIES]


def player_resource_sources(state: GameState) -> jax.Array:
    """(6, 53) int32: :func:`city_resources` summed over the cities, for every player in one
    scatter over the tiles (each tile counts for its owner; six scatters of every tile cost a
    tenth of the batched step)."""
    tb = load_tables()
    c, t = state.cities, state.tiles
    res = state.layers.resource.astype(jnp.int32)
    imp = t.improvement.astype(jnp.int32)
    owner = t.owner.astype(jnp.int32)
    city_at = jnp.full(N_TILES + 1, -1, jnp.int32)
    city_at = city_at.at[jnp.where(c.exists, c.pos, N_TILES).reshape(-1)].set(
        jnp.repeat(jnp.arange(N_PLAYERS, dtype=jnp.int32), c.pos.shape[1])
    )[:-1]
    reveal = const(tb.resource_reveal)[res]
    ok = (owner >= 0) & (t.owner_city >= 0) & (res > 0)
    ok &= (const(tb.resource_improvement)[res] == imp) | (city_at == owner)
    ok &= state.players.techs[jnp.maximum(owner, 0), jnp.maximum(reveal, 0)]
    counts = jnp.zeros((N_PLAYERS + 1, len(tb.resource_names)), jnp.int32)
    return counts.at[jnp.where(ok, owner, N_PLAYERS), res].add(1)[:N_PLAYERS]


def deal_resources(state: GameState, p: jax.Array) -> jax.Array:
    """(53,) int32: what ``p``'s running trade deals bring in (+) or take away (-) of each resource."""
    return jnp.zeros(len(load_tables().resource_names), jnp.int32).at[1:].add(state.trade.resources[p])


def resource_counts(state: GameState, p: jax.Array) -> jax.Array:
    """(53,) int32: of each resource kind, how many of ``p``'s cities have a source, plus what its
    deals bring or take, as the original counts them (two whales in one city count once, so giving
    one whale away leaves none)."""
    return (city_resources(state, p) > 0).sum(0) + deal_resources(state, p)


def enter_cost(state: GameState, has_sailing: jax.Array) -> jax.Array:
    """(H,) movement cost to enter each tile; IMPASSABLE for mountains, ice, wonders, water before Sailing."""
    tb = load_tables()
    lay = state.layers
    elev, feat = lay.elevation.astype(jnp.int32), state.tiles.feature.astype(jnp.int32)
    cost = jnp.maximum(const(tb.elevation_cost)[elev], const(tb.feature_cost)[feat])
    water = elev == 0
    blocked = (lay.natural_wonder > 0) | (water & ~has_sailing) | (water & lay.lake)
    return jnp.where(blocked, IMPASSABLE, jnp.where(water, 1.0, cost))


class Occupancy(NamedTuple):
    """Who stands where: flat unit index (player * 30 + slot) or -1; city owner and slot or -1."""

    military: jax.Array  # (H,)
    civilian: jax.Array  # (H,)
    city_owner: jax.Array  # (H,)
    city_slot: jax.Array  # (H,)
    cs_city: jax.Array  # (H,) bool: a city-state city stands here


def is_military(kind: jax.Array) -> jax.Array:
    return const(load_tables().unit_strength)[kind.astype(jnp.int32)] > 0


def occupancy(state: GameState) -> Occupancy:
    u, c = state.units, state.cities
    flat_ids = jnp.arange(N_PLAYERS * MAX_UNITS, dtype=jnp.int32)
    kind, pos = u.kind.reshape(-1), u.pos.reshape(-1)
    alive = kind > 0
    mil = is_military(kind)
    military = (
        jnp.full(N_TILES, -1, jnp.int32).at[jnp.where(alive & mil, pos, N_TILES)].set(flat_ids, mode="drop")
    )
    civilian = (
        jnp.full(N_TILES, -1, jnp.int32).at[jnp.where(alive & ~mil, pos, N_TILES)].set(flat_ids, mode="drop")
    )
    cpos = jnp.where(c.exists, c.pos, N_TILES).reshape(-1)
    owners = jnp.repeat(jnp.arange(N_PLAYERS, dtype=jnp.int32), c.pos.shape[1])
    slots = jnp.tile(jnp.arange(c.pos.shape[1], dtype=jnp.int32), N_PLAYERS)
    city_owner = jnp.full(N_TILES, -1, jnp.int32).at[cpos].set(owners, mode="drop")
    city_slot = jnp.full(N_TILES, -1, jnp.int32).at[cpos].set(slots, mode="drop")
    cs_city = jnp.zeros(N_TILES, bool).at[state.layers.cs_sites].set(True)
    return Occupancy(military, civilian, city_owner, city_slot, cs_city)


def neighbor_table() -> jax.Array:
    return const(neighbors())


def work_frames(pos: jax.Array) -> jax.Array:
    """(..., 37) tiles of each city's work area (-1 off map or no city)."""
    frames = const(work_area())[jnp.maximum(pos, 0)]
    return jnp.where((pos >= 0)[..., None], frames, -1)


def gather(values: jax.Array, idx: jax.Array, fill: float | int) -> jax.Array:
    """``values[idx]`` with ``fill`` where ``idx`` is -1."""
    out = values[jnp.maximum(idx, 0)]
    mask = idx >= 0
    while mask.ndim < out.ndim:
        mask = mask[..., None]
    return jnp.where(mask, out, fill)


def top_era(techs: jax.Array) -> jax.Array:
    """The latest era among known techs, per player (..., 81) -> (...)."""
    era = const(load_tables().tech_era)
    return jnp.max(jnp.where(techs, era, 0), axis=-1)


def tile_class_parts(state: GameState, techs: jax.Array) -> tuple[jax.Array, jax.Array]:
    """The tile classes of :func:`tile_class_map` in two parts: (H,) the visible resource (0 none;
    the first 52 classes are its one-hot) and (H, 20) bool the other classes. Reading these at a
    few tiles, or a class table through the resource id, skips the (H, 72) map and its product."""
    tb = load_tables()
    lay, feat = state.layers, state.tiles.feature
    res = visible_resources(state, techs)
    water = lay.elevation == 0
    fid = {n: i for i, n in enumerate(("none", "forest", "jungle", "marsh", "oasis", "floodplains", "ice"))}
    extra = {
        "luxury": const(tb.resource_kind == 3)[res] & (res > 0),
        "sea_resource": water & (res > 0),
        "ocean": water & ~lay.lake,
        "water": water,
        "lake": lay.lake,
        "river": lay.river > 0,
        "oasis": feat == fid["oasis"],
        "jungle": feat == fid["jungle"],
        "tundra": (lay.terrain == 4) & ~water,
        "desert_dry": (lay.terrain == 3) & (feat != fid["floodplains"]) & ~water,
        "bare_ocean": water & ~lay.lake & (lay.resource == 0) & (state.tiles.improvement == 0),
        "desert": (lay.terrain == 3) & ~water,
        "forest": feat == fid["forest"],
        "natural_wonder": lay.natural_wonder > 0,
    }
    for name in IMPROVEMENT_TILE_CLASSES:
        extra[name] = state.tiles.improvement == tb.improvement_names.index(name)
    return res, jnp.stack([extra[k] for k in EXTRA_TILE_CLASSES], axis=1)


def _classes(res: jax.Array, extra: jax.Array) -> jax.Array:
    n_res = len(load_tables().resource_names) - 1
    return jnp.concatenate([res[..., None] == jnp.arange(1, n_res + 1), extra], axis=-1)


def tile_class_map(state: GameState, techs: jax.Array) -> jax.Array:
    """(H, C) bool: which tile classes (``tables.tile_classes()``) each tile belongs to for a player.

    A resource counts only where ``techs`` reveal it, as its yields do.
    """
    return _classes(*tile_class_parts(state, techs))


def tile_classes_at(parts: tuple[jax.Array, jax.Array], idx: jax.Array) -> jax.Array:
    """(..., C) bool: ``gather(tile_class_map(...), idx, False)`` from :func:`tile_class_parts`."""
    res, extra = parts
    return _classes(gather(res, idx, 0), gather(extra, idx, False))


def tile_class_yields(parts: tuple[jax.Array, jax.Array], table: jax.Array) -> jax.Array:
    """(H, 7) ``tile_class_map(...) @ table`` for a (C, 7) table of whole yields (every sum exact in
    any order): the resource's row plus the other classes' product."""
    res, extra = parts
    n_res = len(load_tables().resource_names) - 1
    by_res = jnp.concatenate([jnp.zeros_like(table[:1]), table[:n_res]])[res]
    return by_res + extra.astype(table.dtype) @ table[n_res:]


def class_bonus(weights: jax.Array, table: np.ndarray) -> jax.Array:
    """(..., C, 7) ``weights @ table`` for a (R, C, 7) table of tile-class bonuses (buildings', civic
    rows'), over the rows that have any bonus only (28 of 148 buildings, 28 of 154 civic rows): the
    other rows add exact zeros to sums of whole, non-negative yields."""
    rows = np.flatnonzero(table.reshape(table.shape[0], -1).any(1))
    flat = weights[..., rows] @ const(table[rows].reshape(len(rows), -1))
    return flat.reshape(*weights.shape[:-1], *table.shape[1:])


def connected_to_capital(state: GameState, p: jax.Array) -> jax.Array:
    """(10,) cities of ``p`` joined to its capital by roads (city tiles count as road)."""
    tb = load_tables()
    c, t = state.cities, state.tiles
    cities_at = (
        jnp.zeros(t.road.shape[0] + 1, bool).at[jnp.where(c.exists[p], c.pos[p], t.road.shape[0])].set(True)
    )
    network = t.road | cities_at[:-1]
    capital = jnp.where(c.exists[p] & c.capital[p], c.pos[p], t.road.shape[0])
    reached = jnp.zeros(t.road.shape[0] + 1, bool).at[capital].set(True)[:-1]
    nb = neighbor_table()

    def spread(carry: tuple[jax.Array, jax.Array, jax.Array]) -> tuple[jax.Array, jax.Array, jax.Array]:
        steps, r, _ = carry
        grown = r | (network & jnp.where(nb >= 0, r[jnp.maximum(nb, 0)], False).any(1))
        return steps + 1, grown, (grown != r).any()

    # at most connection_search_steps rounds; a round that adds nothing ends it early with the same
    # result (a network of a few tiles takes a few rounds, where 48 full-map rounds cost a fifth of
    # the batched step)
    more = lambda carry: (carry[0] < tb.rules["connection_search_steps"]) & carry[2]  # noqa: E731
    reached = jax.lax.while_loop(more, spread, (jnp.int32(0), reached, jnp.bool_(True)))[1]
    return c.exists[p] & ~c.capital[p] & reached[jnp.maximum(c.pos[p], 0)]
