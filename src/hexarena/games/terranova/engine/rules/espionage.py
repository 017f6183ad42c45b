"""Spies, as the original: a tech-steal roll at the end of every player's turn.

A player has ``spies_by_era[its latest era]`` spies (none before the Renaissance, 5 in the Future
era) plus the Intelligence Agency's (``spies`` modifier). Its spies always target the player that
knows the most techs, and may steal only from a player that knows more than it does. The chance
of a theft in a turn is 1/30 x min(spies, the target's cities) x the target's weakness, 1 - its
spy defence averaged over all 10 city slots (an empty slot defends nothing), as the original
takes the mean of its per-slot ``tech_steal_reduce_accel``: Constabulary and Police Station 25 %
each, the Great Firewall 99.9 %, the Intelligence Agency 15 % in every city. A theft is a free
tech, picked through the tech endpoint like any other free tech.

The original stores each slot's reduction as 0 minus the buildings' shares and multiplies the chance
by that mean, which is never positive, so its spies never steal; here a slot's weakness is 1 minus
its defence, what the reduction is meant to lower.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from hexarena.games.terranova.engine.effects import city_modifiers, empire_modifiers
from hexarena.games.terranova.engine.state import GameState
from hexarena.games.terranova.engine.tables import citystate_rules, load_tables
from hexarena.games.terranova.engine.world import top_era


def spy_count(state: GameState, p: jax.Array) -> jax.Array:
    """() the number of spies of ``p``."""
    by_era = jnp.asarray(citystate_rules()["spies_by_era"], jnp.float32)
    extra = empire_modifiers(state, p)[load_tables().modifier("spies")]
    spies = by_era[top_era(state.players.techs[p])] + extra
    return spies.astype(jnp.int32)


def steal_chance(state: GameState, p: jax.Array) -> tuple[jax.Array, jax.Array]:
    """``(target, chance)``: whom the spies of ``p`` rob this turn and the chance they succeed."""
    tb = load_tables()
    known = state.players.techs.sum(1)
    target = jnp.argmax(known)
    cities = state.cities.exists[target]
    defence = city_modifiers(state, target)[:, tb.modifier("spy_defence_pct")]
    defence = defence + empire_modifiers(state, target)[tb.modifier("spy_defence_pct_all")]
    weakness = 1.0 - (jnp.clip(defence / 100.0, 0.0, 1.0) * cities).mean()  # over the 10 slots
    tries = jnp.minimum(spy_count(state, p), cities.sum())
    chance = tries * weakness / citystate_rules()["tech_steal_one_in"]
    return target, jnp.where(known[p] < known[target], chance, 0.0)


def spy_phase(state: GameState, p: jax.Array) -> GameState:
    """The tech-steal roll of ``p``: a success adds a free tech."""
    _, chance = steal_chance(state, p)
    stole = jax.random.uniform(jax.random.fold_in(state.key, 16)) < chance
    pl = state.players
    return state._replace(players=pl._replace(free_techs=pl.free_techs.at[p].add(stole.astype(jnp.int32))))
