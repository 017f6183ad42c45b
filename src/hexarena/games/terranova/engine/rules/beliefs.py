"""Which tenets act in each city, and the counts some tenets scale with.

Religion ``r`` is player ``r``'s (``Religion.followers[p, c, r]`` counts its followers in city ``c``
of player ``p``). As in the original, a city has a majority religion when one religion has more
followers than half the city's citizens; the city then applies that religion's tenets (pantheon,
followers, enhancer, reformation) except its founder tenet, plus the founder tenet of the city's
owner (a founder tenet works only for its founder, in its cities that have a majority religion). A
city without a majority applies its owner's pantheon only.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from hexarena.games.terranova.engine.state import N_PLAYERS, GameState
from hexarena.games.terranova.engine.tables import TENET_KINDS, load_tables
from hexarena.games.terranova.engine.world import const


def tenets_of_kind(kind: str) -> jax.Array:
    """(91,) bool: the tenets of one kind (``tables.TENET_KINDS``)."""
    return const(load_tables().tenet_kind == TENET_KINDS.index(kind))


def has_founded(state: GameState) -> jax.Array:
    """(6,) bool: players who have founded a religion (hold a founder tenet)."""
    return (state.players.tenets & tenets_of_kind("founder")).any(1)


def holy_city(state: GameState) -> jax.Array:
    """(6, 10) bool: each founder's holy city, the capital it founded its religion in (capitals
    never move: a sacked capital stays its owner's)."""
    return state.cities.capital & state.cities.exists & has_founded(state)[:, None]


def majority(state: GameState, p: jax.Array) -> tuple[jax.Array, jax.Array]:
    """(10,) the most-followed religion in each city of ``p``, and (10,) whether it is a majority
    (more followers than half the citizens)."""
    followers = state.religion.followers[p]
    top = jnp.argmax(followers, -1)
    return top, followers.max(-1) > state.cities.pop[p] / 2.0


def city_tenets(state: GameState, p: jax.Array) -> jax.Array:
    """(10, 91) bool: the tenets acting in each city of ``p`` (the spec's ``religious_tenets_per_city``)."""
    held = state.players.tenets
    founder = tenets_of_kind("founder")
    top, has = majority(state, p)
    with_majority = (held[top] & ~founder) | (held[p] & founder)[None, :]
    without = held[p] & tenets_of_kind("pantheon")
    return jnp.where(has[:, None], with_majority, without[None, :]) & state.cities.exists[p][:, None]


def religion_counts(state: GameState) -> jax.Array:
    """(6, 3) per religion: followers in the world, cities with any follower, and foreign cities
    (not the founder's) where it is the most-followed religion."""
    exists = state.cities.exists
    followers = jnp.where(exists[..., None], state.religion.followers, 0)  # (6, 10, 6)
    top = jnp.argmax(followers, -1)  # (6, 10)
    any_follower = followers.sum(-1) > 0
    religions = jnp.arange(N_PLAYERS)
    leads = (top[..., None] == religions) & any_follower[..., None]  # (6 owners, 10, 6 religions)
    foreign = (leads & (jnp.arange(N_PLAYERS)[:, None, None] != religions)).sum((0, 1))
    return jnp.stack([followers.sum((0, 1)), (followers > 0).sum((0, 1)), foreign], axis=1)


def tenet_counts(state: GameState, p: jax.Array) -> jax.Array:
    """(10, 91, len(TENET_COUNTS)) what each tenet's ``count_yields`` count in each city of ``p``:
    the counts of the tenet's religion (that of the player holding it), then the national and world
    wonders standing in the city."""
    tb = load_tables()
    held = state.players.tenets
    holder = jnp.argmax(held, 0)
    per_tenet = jnp.where(held.any(0)[:, None], religion_counts(state)[holder], 0)  # (91, 3)
    built = state.cities.buildings[p]
    kind = const(tb.building_kind)
    wonders = jnp.stack([(built & (kind == 2)).sum(1), (built & (kind == 1)).sum(1)], axis=1)  # (10, 2)
    n_cities, n_tenets = built.shape[0], held.shape[1]
    return jnp.concatenate(
        [
            jnp.broadcast_to(per_tenet[None], (n_cities, n_tenets, 3)),
            jnp.broadcast_to(wonders[:, None, :], (n_cities, n_tenets, 2)),
        ],
        axis=2,
    ).astype(jnp.float32)
