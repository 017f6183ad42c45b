"""Social policies: which a player may adopt, what the next one costs, and the policy endpoint.

The endpoint is a masked preference over the 54 policies. A policy is legal when it is not adopted
yet, every prerequisite inside its tree is, and its tree's era has been reached. When the culture
reserves (this turn's culture included: the endpoint runs after the empire phase, ``step``) reach
the cost, the best legal policy is adopted and its cost spent (the non-free pick);
when a free policy is pending (Oracle, Statue of Liberty, ...), the best legal policy after that is
adopted for free, one per turn. The executed pair is ``(non-free, free)``, -1 where none.
Adopting a policy (or finishing a tree) applies its one-time grants and free buildings; its lasting
effects are rows of the policy tables that ``effects`` reads every turn.
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from hexarena.games.terranova.engine import formulas
from hexarena.games.terranova.engine.effects import apply_grants, civic_rows, empire_modifiers
from hexarena.games.terranova.engine.state import GameState
from hexarena.games.terranova.engine.tables import load_tables
from hexarena.games.terranova.engine.world import const, masked_argmax, top_era


def adoptable(have: Any, era: Any, xp: Any = jnp) -> Any:
    """(54,) the policies a player holding ``have`` (54,) in era ``era`` may adopt: not yet held,
    every prerequisite held, the tree open in this era. ``xp`` is ``jnp`` in the step and ``np``
    where numbers are wanted without a JAX call (the recorder's frames)."""
    tb = load_tables()
    prereq_ok = xp.all(~xp.asarray(tb.policy_req) | have, axis=1)
    return ~have & prereq_ok & (xp.asarray(tb.policy_era) <= era)


def policy_mask(state: GameState, p: jax.Array) -> jax.Array:
    """(54,) policies ``p`` may adopt now."""
    return adoptable(state.players.policies[p], top_era(state.players.techs[p]))


def next_policy_cost(state: GameState, p: jax.Array) -> jax.Array:
    """Culture needed for ``p``'s next policy (the observation's ``culture_threshold``)."""
    tb = load_tables()
    mods = empire_modifiers(state, p)
    cost_pct = mods[tb.modifier("policy_cost_pct")]
    per_city_pct = mods[tb.modifier("policy_cost_per_city_pct")]
    return formulas.policy_cost(
        state.players.policies[p].sum(), state.cities.exists[p].sum(), cost_pct, per_city_pct
    )


def adopt_policies(
    state: GameState, p: jax.Array, scores: jax.Array, buy: bool = True, free: bool = True
) -> tuple[GameState, jax.Array]:
    """The policy endpoint for player ``p``; returns the state and the executed ``(non-free, free)``.
    ``buy`` / ``free`` (static) switch the two picks: the step takes the free one at the start of
    the turn and the bought one after the empire phase, as the original's timing (``step``)."""
    pl = state.players
    cost = next_policy_cost(state, p)
    legal = policy_mask(state, p)
    can_buy = (pl.culture[p] >= cost) & state.cities.exists[p].any() & buy
    bought = jnp.where(can_buy, masked_argmax(scores, legal), -1)
    n = legal.shape[0]
    legal = legal & (jnp.arange(n) != bought)
    free = jnp.where((pl.free_policies[p] > 0) & free, masked_argmax(scores, legal), -1)
    adopted = (jnp.arange(n) == bought) | (jnp.arange(n) == free)
    before = civic_rows(state, p)
    players = pl._replace(
        policies=pl.policies.at[p].set(pl.policies[p] | adopted),
        culture=pl.culture.at[p].add(jnp.where(bought >= 0, -cost, 0.0)),
        free_policies=pl.free_policies.at[p].add(-(free >= 0).astype(jnp.int32)),
    )
    state = state._replace(players=players)
    state = _on_adoption(state, p, civic_rows(state, p) - before)
    return state, jnp.stack([bought, free]).astype(jnp.int32)


def _on_adoption(state: GameState, p: jax.Array, new_rows: jax.Array) -> GameState:
    """Grants of the policies and finishers that became active (rows 0/1; their free units come at
    the end of the turn, ``great_people.grant_free_units``), then the free buildings of every active
    row, so cities founded after the adoption get them too (the original grants them every turn;
    here in each of the owner's turns, after its empire phase)."""
    tb = load_tables()
    state = apply_grants(state, p, new_rows @ const(tb.policy_grants))
    c = state.cities
    slots = jnp.arange(c.exists.shape[1], dtype=jnp.float32)
    within = (slots[None, :] < const(tb.policy_free_cities)[:, None]).astype(jnp.float32)  # (154, 10)
    rows = civic_rows(state, p) * within.T  # (10, 154)
    give = (rows @ const(tb.policy_free_buildings.astype(np.float32)) > 0) & c.exists[p][:, None]
    return state._replace(cities=c._replace(buildings=c.buildings.at[p].set(c.buildings[p] | give)))
