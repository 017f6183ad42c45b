"""Social policies: which a player may adopt, what the next one costs, and the policy endpoint.

The endpoint is a masked preference over the 54 policies. A policy is legal when it is not adopted
yet, every prerequisite inside its tree is, and its tree's era has been reached. When the culture
reserves reach the cost, the best legal policy is adopted and its cost spent (the non-free pick);
when a free policy is pending (Oracle, Statue of Liberty, ...), the best legal policy after that is
adopted for free, one per turn. The executed pair is ``(non-free, free)``, -1 where none.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from hexarena.games.terranova import formulas
from hexarena.games.terranova.cities import empire_modifiers
from hexarena.games.terranova.state import GameState
from hexarena.games.terranova.tables import load_tables
from hexarena.games.terranova.world import const, masked_argmax, top_era


def policy_mask(state: GameState, p: jax.Array) -> jax.Array:
    """(54,) policies ``p`` may adopt now."""
    tb = load_tables()
    have = state.players.policies[p]
    prereq_ok = jnp.all(~const(tb.policy_req) | have, axis=1)
    era_ok = const(tb.policy_era) <= top_era(state.players.techs[p])
    return ~have & prereq_ok & era_ok


def next_policy_cost(state: GameState, p: jax.Array) -> jax.Array:
    """Culture needed for ``p``'s next policy (the observation's ``culture_threshold``)."""
    tb = load_tables()
    pl = state.players
    cost_pct = empire_modifiers(state, p)[tb.modifier("policy_cost_pct")]
    return formulas.policy_cost(pl.policies[p].sum(), state.cities.exists[p].sum(), cost_pct)


def adopt_policies(state: GameState, p: jax.Array, scores: jax.Array) -> tuple[GameState, jax.Array]:
    """The policy endpoint for player ``p``; returns the state and the executed ``(non-free, free)``."""
    pl = state.players
    cost = next_policy_cost(state, p)
    legal = policy_mask(state, p)
    can_buy = (pl.culture[p] >= cost) & state.cities.exists[p].any()
    bought = jnp.where(can_buy, masked_argmax(scores, legal), -1)
    n = legal.shape[0]
    legal = legal & (jnp.arange(n) != bought)
    free = jnp.where(pl.free_policies[p] > 0, masked_argmax(scores, legal), -1)
    adopted = (jnp.arange(n) == bought) | (jnp.arange(n) == free)
    players = pl._replace(
        policies=pl.policies.at[p].set(pl.policies[p] | adopted),
        culture=pl.culture.at[p].add(jnp.where(bought >= 0, -cost, 0.0)),
        free_policies=pl.free_policies.at[p].add(-(free >= 0).astype(jnp.int32)),
    )
    return state._replace(players=players), jnp.stack([bought, free]).astype(jnp.int32)
