"""Religion: pantheons and the tenet endpoint.

Faith accumulates every turn (``step.empire_phase``). A player without a pantheon whose faith
reaches the pantheon cost, ``10 + 5 x pantheons already taken in the game`` (rules
``pantheon_cost_base`` and ``pantheon_cost_step``), takes the pantheon belief its tenet scores
prefer among those nobody has taken yet: each pantheon belief belongs to one player only. The cost
is spent and the belief's effect rows (``tenets.json``) apply to all of that player's cities from
then on, through ``effects.civic_rows``. The executed tenets are ``(3,)``: the pantheon first, the
others -1 (the slots a religion's founding fills: founder, follower, follower).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from hexarena.games.terranova.state import GameState
from hexarena.games.terranova.tables import TENET_KINDS, load_tables
from hexarena.games.terranova.world import const, masked_argmax


def pantheon_tenets() -> jax.Array:
    """(91,) bool: the pantheon beliefs."""
    return const(load_tables().tenet_kind == TENET_KINDS.index("pantheon"))


def pantheons_taken(state: GameState) -> jax.Array:
    """How many pantheons have been founded in the game."""
    return (state.players.tenets & pantheon_tenets()[None, :]).any(1).sum()


def pantheon_cost(state: GameState) -> jax.Array:
    """Faith the next pantheon costs: base + step x pantheons already taken (10, 15, 20, ...)."""
    r = load_tables().rules
    return (r["pantheon_cost_base"] + r["pantheon_cost_step"] * pantheons_taken(state)).astype(jnp.float32)


def tenet_mask(state: GameState, p: jax.Array) -> jax.Array:
    """(91,) tenets ``p`` may take now: a pantheon belief nobody holds, while ``p`` has none and
    enough faith (and a city)."""
    pl = state.players
    pantheon = pantheon_tenets()
    wants = ~(pl.tenets[p] & pantheon).any() & state.cities.exists[p].any()
    affords = pl.faith[p] >= pantheon_cost(state)
    return pantheon & ~pl.tenets.any(0) & wants & affords


def choose_tenets(state: GameState, p: jax.Array, scores: jax.Array) -> tuple[GameState, jax.Array]:
    """The tenet endpoint for player ``p``; returns the state and the executed ``(3,)`` tenets."""
    pl = state.players
    legal = tenet_mask(state, p)
    pick = jnp.where(legal.any(), masked_argmax(scores, legal), -1)
    taken = jnp.arange(legal.shape[0]) == pick
    players = pl._replace(
        tenets=pl.tenets.at[p].set(pl.tenets[p] | taken),
        faith=pl.faith.at[p].add(jnp.where(pick >= 0, -pantheon_cost(state), 0.0)),
    )
    return state._replace(players=players), jnp.stack([pick, -1, -1]).astype(jnp.int32)
