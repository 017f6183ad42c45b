"""Terra Nova's linear preference policy: what :mod:`.tn_es` trains and ``policy:PATH`` plays.

The simulator's action is a score for every option of every endpoint (:mod:`~hexarena.games.
terranova.engine.spaces`); the resolver executes the best legal one, so any scores are legal. The
policy reads three features of its state, ``f = (1, turn / 60, own cities / 4)``, a few features
of every tile (:func:`tile_features`: how good a site for a city it is, how far from its own and
from rival cities, inside a rival's borders, never seen) and gives

* policy, tenet, tech and buildable (every city) scores ``f @ W + g``, ``W`` learned, ``g``
  standard Gumbel noise: the resolver executes the best legal option, so each endpoint samples
  ``softmax(f @ W)`` over its legal options (the Gumbel-max trick; :mod:`.tn_bc` fits ``W`` as
  that conditional logit); with ``W = 0`` it is the uniform random player;
* unit action categories (every unit) the same way from ``f`` and the features of the unit's tile
  (a settler founds its city where the site is good);
* unit targets ``tile features @ w[class] + g``, the features including the steps from the unit,
  one weight row per class of unit (settler, worker, the others): a settler walks towards good
  free land, a warrior towards rival cities;
* worked tiles from a learned value per yield (7 weights): each city's 36 work-area slots ranked by
  ``yields @ w``, citizen ``k`` preferring the ``k``-th slot, then the next ones (as the contract's
  ``spread_over_citizens``), so citizens do not all pick the same tile;
* trade: all zeros (deny every offer, offer nothing).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from hexarena.games.terranova.engine.geometry import COLS, N_TILES, work_area
from hexarena.games.terranova.engine.spaces import (
    ACTION_SHAPES,
    N_CITIZENS,
    N_POLICIES,
    N_TECHS,
    N_TENETS,
    map_shapes,
)
from hexarena.games.terranova.engine.state import MAX_CITIES, MAX_UNITS
from hexarena.games.terranova.engine.tables import N_BUILDABLES, N_CATEGORIES, N_YIELDS, load_tables
from hexarena.games.terranova.engine.world import tile_distance

HEADS: tuple[tuple[str, int], ...] = (
    ("policy", N_POLICIES),
    ("tenet", N_TENETS),
    ("tech", N_TECHS),
    ("unit_category", N_CATEGORIES),
    ("build", N_BUILDABLES),
)
FEATURES = ("bias", "turn / 60", "own cities / 4")
TILE_FEATURES = ("site", "own city distance / 10", "rival city distance / 10", "rival border", "unseen")
UNIT_HEAD = "unit_category"  # the head that also reads the unit's tile (its first three features)
UNIT_FEATURES = (*FEATURES, *(f"{name} here" for name in TILE_FEATURES[:3]))
UNIT_CLASSES = ("settler", "worker", "other")
TARGET_FEATURES = (*TILE_FEATURES, "steps from the unit / 4")


def head_features(name: str) -> tuple[str, ...]:
    """The features a head's logits read."""
    return UNIT_FEATURES if name == UNIT_HEAD else FEATURES


N_HEAD_PARAMS = sum(len(head_features(name)) * n for name, n in HEADS)
N_TARGET_PARAMS = len(UNIT_CLASSES) * len(TARGET_FEATURES)
N_PARAMS = N_HEAD_PARAMS + N_TARGET_PARAMS + N_YIELDS
TURN_SCALE, CITY_SCALE, DISTANCE_SCALE, STEP_SCALE = 60.0, 4.0, 10.0, 4.0
# a tile's worth to a city (food twice, production 1.5, gold once; an unseen tile 3), summed over
# its centre and first ring: about 40 for good land
SITE_SCALE = 40.0
KIND = "hexarena-terranova-es3"  # tile features (es2: three features, unit targets at random)


class Weights(NamedTuple):
    heads: dict[str, jax.Array]  # name -> (features of the head, options)
    target: jax.Array  # (unit classes, target features)
    yields: jax.Array  # (7,) a worked tile's value per yield


def split(theta: jax.Array) -> Weights:
    """The flat parameter vector as its weights."""
    heads, at = {}, 0
    for name, n in HEADS:
        k = len(head_features(name))
        heads[name], at = theta[at : at + k * n].reshape(k, n), at + k * n
    target = theta[at : at + N_TARGET_PARAMS].reshape(len(UNIT_CLASSES), len(TARGET_FEATURES))
    return Weights(heads, target, theta[at + N_TARGET_PARAMS :])


def features(obs: dict[str, Any]) -> jax.Array:
    """``(1, turn / 60, own cities / 4)`` of one observation (the spec's dict)."""
    me = obs["player_id"]
    cities = (jnp.asarray(obs["player_cities"]["city_ids"])[me] > 0).sum()
    return jnp.stack([jnp.float32(1.0), obs["current_turn"] / TURN_SCALE, cities / CITY_SCALE]).astype(
        jnp.float32
    )


WORK_AREA = work_area()


def _tiles(rowcol: jax.Array) -> tuple[jax.Array, jax.Array]:
    """(tile index, known) of ``(..., 2)`` row-column pairs, -1 where none."""
    return jnp.maximum(rowcol[..., 0] * COLS + rowcol[..., 1], 0), rowcol[..., 0] >= 0


def tile_features(obs: dict[str, Any]) -> jax.Array:
    """(2772, 5) :data:`TILE_FEATURES` of every tile as the player sees it: the site's worth (0
    where a city may not go: water, rival borders, within 3 of a known city), the steps to its
    nearest own and rival city (capped at 10), a rival's border, never seen."""
    me = obs["player_id"]
    y = jnp.asarray(obs["yield_map_players"]).reshape(N_TILES, N_YIELDS)
    unseen = y[:, 0] < 0
    value = jnp.where(unseen, 3.0, 2 * y[:, 0] + 1.5 * y[:, 1] + y[:, 2])
    ring = jnp.asarray(WORK_AREA[:, :7])
    site = jnp.where(ring >= 0, value[jnp.maximum(ring, 0)], 0.0).sum(1) / SITE_SCALE
    pc = obs["player_cities"]
    city, known = _tiles(jnp.asarray(pc["city_rowcols"]))  # (6, 10)
    d = jnp.where(known[None], tile_distance(jnp.arange(N_TILES)[:, None, None], city[None]), 99)
    mine = jnp.arange(d.shape[1]) == me
    own = jnp.where(mine[None, :, None], d, 99).min((1, 2))
    rival = jnp.where(mine[None, :, None], 99, d).min((1, 2))
    cs, cs_known = _tiles(jnp.asarray(obs["citystate_info"]["city_rowcols"]))
    near_cs = jnp.where(cs_known[None], tile_distance(jnp.arange(N_TILES)[:, None], cs[None]), 99).min(1)
    owners = jnp.asarray(pc["ownership_map"]).reshape(d.shape[1], -1, N_TILES).max(1) >= 2
    foreign = jnp.where(mine[:, None], False, owners).any(0) | (
        jnp.asarray(obs["cs_ownership_map"]).ravel() > 0
    )
    elev = jnp.asarray(obs["elevation_map"]).ravel()
    land = (elev == 1) | (elev == 2) | (elev < 0)
    free = (
        land
        & ~foreign
        & (jnp.minimum(jnp.minimum(own, rival), near_cs) >= load_tables().rules["city_min_distance"])
    )
    cap = lambda x: jnp.minimum(x, DISTANCE_SCALE) / DISTANCE_SCALE  # noqa: E731
    return jnp.stack([jnp.where(free, site, 0.0), cap(own), cap(rival), foreign, unseen], 1).astype(
        jnp.float32
    )


def unit_inputs(obs: dict[str, Any], tiles: jax.Array) -> tuple[jax.Array, jax.Array, jax.Array]:
    """Per unit slot of the mover: its tile, its class (:data:`UNIT_CLASSES`) and the features of
    its category head (:data:`UNIT_FEATURES`)."""
    me = obs["player_id"]
    tb = load_tables()
    kind = jnp.asarray(obs["units"]["unit_type"])[me]
    pos, _ = _tiles(jnp.asarray(obs["units"]["unit_rowcol"])[me])
    cls = jnp.where(kind == tb.unit("settler"), 0, jnp.where(kind == tb.unit("worker"), 1, 2))
    here = tiles[pos, :3]
    f = jnp.broadcast_to(features(obs), (MAX_UNITS, len(FEATURES)))
    return pos, cls, jnp.concatenate([f, here], 1)


def target_scores(tiles: jax.Array, pos: jax.Array, cls: jax.Array, w_target: jax.Array) -> jax.Array:
    """(units, 2772) every unit's score of every tile: :data:`TARGET_FEATURES` (the tile's
    features, then the steps from the unit) times its class's weights."""
    per_class = tiles @ w_target[:, :-1].T  # (2772, classes)
    steps = tile_distance(pos[:, None], jnp.arange(N_TILES)[None, :]) / STEP_SCALE
    return per_class[:, cls].T + steps * w_target[cls, -1][:, None]


def spread(value: jax.Array) -> jax.Array:
    """(cities, 36 citizens, 36 slots) from each city's slot values (cities, 36): citizen k
    prefers the k-th most valuable slot, then the next ones, wrapping round."""
    order = jnp.argsort(-value, axis=-1, stable=True)
    rank = jnp.argsort(order, axis=-1)  # slot -> its place in the order
    k = jnp.arange(N_CITIZENS)[None, :, None]
    return -((rank[:, None, :] - k) % N_CITIZENS).astype(jnp.float32)


def _work_scores(obs: dict[str, Any], w_yield: jax.Array) -> jax.Array:
    """(10 cities, 36 citizens, 36 slots): each city's slots valued ``yields @ w_yield``, spread."""
    me = obs["player_id"]
    tile, _ = _tiles(jnp.asarray(obs["player_cities"]["city_rowcols"])[me])  # (10,)
    slots = jnp.asarray(WORK_AREA)[tile, 1:]  # (10, 36)
    yields = jnp.asarray(obs["yield_map_players"]).reshape(N_TILES, N_YIELDS)
    return spread(yields[jnp.where(slots >= 0, slots, 0)] @ w_yield)


def act(theta: jax.Array, obs: dict[str, Any], key: jax.Array) -> tuple:
    """The dense preference tuple (the spec's nested action) for one observation."""
    w = split(theta)
    f = features(obs)
    tiles = tile_features(obs)
    pos, cls, x_unit = unit_inputs(obs, tiles)
    k = iter(jax.random.split(key, 7))

    def noisy(logits: jax.Array) -> jax.Array:
        return logits + jax.random.gumbel(next(k), logits.shape)

    def scores(name: str, lead: tuple[int, ...] = ()) -> jax.Array:
        return noisy(jnp.broadcast_to(f @ w.heads[name], (*lead, w.heads[name].shape[1])))

    trade = map_shapes(lambda s: jnp.zeros(s, jnp.float32), ACTION_SHAPES[0])
    units = (noisy(x_unit @ w.heads[UNIT_HEAD]), noisy(target_scores(tiles, pos, cls, w.target)))
    cities = (_work_scores(obs, w.yields), scores("build", (MAX_CITIES,)))
    return (trade, scores("policy"), scores("tenet"), scores("tech"), units, cities)


def save(path: str | Path, theta: Any, settings: dict[str, Any]) -> None:
    """An ``.npz`` with ``theta`` and JSON ``meta`` (the kind, heads, features and settings)."""
    meta = {
        "kind": KIND,
        "game": "terranova",
        "heads": HEADS,
        "features": FEATURES,
        "unit_features": UNIT_FEATURES,
        "target_features": TARGET_FEATURES,
        "unit_classes": UNIT_CLASSES,
        "settings": settings,
    }
    np.savez(Path(path), theta=np.asarray(theta, np.float32), meta=np.array(json.dumps(meta)))


def load(path: str | Path) -> tuple[np.ndarray, dict[str, Any]] | None:
    """``(theta, meta)`` of a Terra Nova policy file, or None for another kind of ``.npz``."""
    with np.load(Path(path)) as data:
        if "meta" not in data.files:
            return None
        meta = json.loads(str(data["meta"]))
        kind = str(meta.get("kind", ""))
        if kind.startswith("hexarena-terranova-") and kind != KIND:
            raise ValueError(
                f"{Path(path).name} is a Terra Nova policy of kind {kind}; "
                f"this version plays {KIND} (retrain: make train)"
            )
        if kind != KIND:
            return None
        theta = np.asarray(data["theta"], np.float32)
    if theta.shape != (N_PARAMS,):
        raise ValueError(f"{Path(path).name}: theta has shape {theta.shape}, expected ({N_PARAMS},)")
    return theta, meta
