"""Terra Nova's linear preference policy: what :mod:`.tn_es` trains and ``policy:PATH`` plays.

The simulator's action is a score for every option of every endpoint (:mod:`~hexarena.games.
terranova.engine.spaces`); the resolver executes the best legal one, so any scores are legal. The
policy reads three features of its observation, ``f = (1, turn / 60, own cities / 4)``, and gives

* policy, tenet, tech, unit action category (every unit) and buildable (every city) scores
  ``f @ W + g``, ``W`` learned (3 x 430), ``g`` standard Gumbel noise: the resolver executes the
  best legal option, so each endpoint samples ``softmax(f @ W)`` over its legal options (the
  Gumbel-max trick; :mod:`.tn_bc` fits ``W`` as that conditional logit); with ``W = 0`` it is the
  uniform random player;
* worked tiles from a learned value per yield (7 weights): each city's 36 work-area slots ranked by
  ``yields @ w``, citizen ``k`` preferring the ``k``-th slot, then the next ones (as the contract's
  ``spread_over_citizens``), so citizens do not all pick the same tile;
* unit targets: uniform noise (as the random player); trade: all zeros (deny every offer, offer
  nothing).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

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
from hexarena.games.terranova.engine.tables import N_BUILDABLES, N_CATEGORIES, N_YIELDS

HEADS: tuple[tuple[str, int], ...] = (
    ("policy", N_POLICIES),
    ("tenet", N_TENETS),
    ("tech", N_TECHS),
    ("unit_category", N_CATEGORIES),
    ("build", N_BUILDABLES),
)
N_HEAD = sum(n for _, n in HEADS)
FEATURES = ("bias", "turn / 60", "own cities / 4")
N_PARAMS = len(FEATURES) * N_HEAD + N_YIELDS
TURN_SCALE, CITY_SCALE = 60.0, 4.0
KIND = "hexarena-terranova-es2"  # Gumbel noise (the first kind added uniform noise)


def features(obs: dict[str, Any]) -> jax.Array:
    """``(1, turn / 60, own cities / 4)`` of one observation (the spec's dict)."""
    me = obs["player_id"]
    cities = (jnp.asarray(obs["player_cities"]["city_ids"])[me] > 0).sum()
    return jnp.stack([jnp.float32(1.0), obs["current_turn"] / TURN_SCALE, cities / CITY_SCALE]).astype(
        jnp.float32
    )


def split(theta: jax.Array) -> tuple[dict[str, jax.Array], jax.Array]:
    """The flat parameter vector as per-head weights ``(3, n)`` and the yield weights ``(7,)``."""
    w = theta[: len(FEATURES) * N_HEAD].reshape(len(FEATURES), N_HEAD)
    heads, at = {}, 0
    for name, n in HEADS:
        heads[name], at = w[:, at : at + n], at + n
    return heads, theta[len(FEATURES) * N_HEAD :]


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
    rowcol = jnp.asarray(obs["player_cities"]["city_rowcols"])[me]  # (10, 2), -1 where none
    tile = jnp.where(rowcol[:, 0] >= 0, rowcol[:, 0] * COLS + rowcol[:, 1], 0)
    slots = jnp.asarray(WORK_AREA)[tile, 1:]  # (10, 36)
    yields = jnp.asarray(obs["yield_map_players"]).reshape(N_TILES, N_YIELDS)
    return spread(yields[jnp.where(slots >= 0, slots, 0)] @ w_yield)


WORK_AREA = work_area()


def act(theta: jax.Array, obs: dict[str, Any], key: jax.Array) -> tuple:
    """The dense preference tuple (the spec's nested action) for one observation."""
    heads, w_yield = split(theta)
    f = features(obs)
    k = iter(jax.random.split(key, 6))

    def scores(name: str, lead: tuple[int, ...] = ()) -> jax.Array:
        bias = f @ heads[name]
        return bias + jax.random.gumbel(next(k), (*lead, bias.shape[0]))

    trade = map_shapes(lambda s: jnp.zeros(s, jnp.float32), ACTION_SHAPES[0])
    units = (scores("unit_category", (MAX_UNITS,)), jax.random.uniform(next(k), (MAX_UNITS, N_TILES)))
    cities = (_work_scores(obs, w_yield), scores("build", (MAX_CITIES,)))
    return (trade, scores("policy"), scores("tenet"), scores("tech"), units, cities)


def save(path: str | Path, theta: Any, settings: dict[str, Any]) -> None:
    """An ``.npz`` with ``theta`` and JSON ``meta`` (the kind, heads, features and settings)."""
    meta = {"kind": KIND, "game": "terranova", "heads": HEADS, "features": FEATURES, "settings": settings}
    np.savez(Path(path), theta=np.asarray(theta, np.float32), meta=np.array(json.dumps(meta)))


def load(path: str | Path) -> tuple[np.ndarray, dict[str, Any]] | None:
    """``(theta, meta)`` of a Terra Nova policy file, or None for another kind of ``.npz``."""
    with np.load(Path(path)) as data:
        if "meta" not in data.files:
            return None
        meta = json.loads(str(data["meta"]))
        if meta.get("kind") != KIND:
            return None
        theta = np.asarray(data["theta"], np.float32)
    if theta.shape != (N_PARAMS,):
        raise ValueError(f"{Path(path).name}: theta has shape {theta.shape}, expected ({N_PARAMS},)")
    return theta, meta
