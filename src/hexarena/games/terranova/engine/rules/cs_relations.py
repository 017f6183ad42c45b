"""What contacts and city-state relationships give, read inside a player's turn.

A friend (influence >= 30) of a city state gets its friend yields in the capital; its ally (the
player with the most influence >= 60) also gets the ally yields in every city. The yields go by the
city state's type (``data/citystates.json``): cultural culture, agricultural food, mercantile
happiness, religious faith, scientific science; militaristic ones give none and strengthen one
unit a round instead (``CityStates.combat_bonus``).

The Patronage policies scale what relationships give, as modifier columns (``data/policies.json``):

* ``cs_yield_pct`` (Scholasticism +50, Cultural Diplomacy +25) and ``cs_gift_yield_pct`` (the
  Patronage finisher +50) multiply every yield, as the original's ``cs_relationship_bonus_accel``
  (1 + 0.5 + 0.25, summed) times its ``patronage_finisher_bonus``;
* ``cs_luxury_happiness_pct`` (Cultural Diplomacy +50) multiplies the happiness, which is what a
  mercantile city state's luxuries give here;
* ``cs_science_pct`` (Scholasticism +25): each city also gets that share of its relationship
  yields (all kinds summed, after the multipliers) as science, so allies (yields in every city)
  give more than friends (the capital only).

The original's code gives Scholasticism and Cultural Diplomacy only the +0.5 and +0.25 multipliers;
the science, happiness and strategic parts (``cs_strategic_pct``, read by ``citystates``) are
what its policy docstrings promise, made concrete here.

The original gives the ally yields to every friend (its ally mask is built from the friend mask);
here only the ally gets them, as its docstrings and Civilization V intend.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from hexarena.games.terranova.engine.effects import civic_rows, empire_modifiers
from hexarena.games.terranova.engine.state import N_CITY_STATES, N_PLAYERS, GameState
from hexarena.games.terranova.engine.tables import HAPPY, N_YIELDS, SCIENCE, citystate_rules, load_tables
from hexarena.games.terranova.engine.world import const


def bonus_table(name: str) -> np.ndarray:
    """(6 types, 7 yields) ``friend_yields`` or ``ally_yields``."""
    return np.asarray(citystate_rules()[name], np.float32)


def relationship_yields(state: GameState, p: jax.Array) -> jax.Array:
    """(10, 7) yields each city of ``p`` gets from its city-state friends and allies."""
    tb = load_tables()
    cst, c = state.citystates, state.cities
    rel = cst.relationship[:, p]  # (12,)
    kind = cst.kind.astype(jnp.int32)
    friend = (rel >= 1).astype(jnp.float32) @ const(bonus_table("friend_yields"))[kind]
    ally = (rel >= 2).astype(jnp.float32) @ const(bonus_table("ally_yields"))[kind]
    mods = empire_modifiers(state, p)

    def pct(name: str) -> jax.Array:
        return mods[tb.modifier(name)] / 100.0

    scale = (1 + pct("cs_yield_pct")) * (1 + pct("cs_gift_yield_pct"))
    scale = scale * jnp.ones(N_YIELDS).at[HAPPY].multiply(1 + pct("cs_luxury_happiness_pct"))
    per_city = scale * (c.capital[p][:, None] * friend[None, :] + c.exists[p][:, None] * ally[None, :])
    return per_city.at[:, SCIENCE].add(pct("cs_science_pct") * per_city.sum(1))


def have_met(state: GameState) -> jax.Array:
    """(6, 18) bool: player i has met player j (columns 0-5) or city state k (column 6 + k): the
    sticky ``Players.have_met`` (``step.update_contacts``), and everyone has met itself."""
    return state.players.have_met | jnp.eye(N_PLAYERS, N_PLAYERS + N_CITY_STATES, dtype=bool)


def empire_modifier(state: GameState, name: str) -> jax.Array:
    """(6,) one empire-wide modifier of every player (``effects.empire_modifiers``' column ``name``).

    The barrier keeps XLA from constant-folding this over a new game's all-zero buildings, which
    took seconds per batch when the initial observation was compiled.
    """
    tb = load_tables()
    col = tb.modifier(name)
    owned = jax.lax.optimization_barrier(state.cities.buildings).any(1).astype(jnp.float32)  # (6, 148)
    rows = jax.vmap(civic_rows, (None, 0))(state, jnp.arange(N_PLAYERS))  # (6, 154)
    return owned @ const(tb.building_empire_mods[:, col]) + rows @ const(tb.policy_empire_mods[:, col])


def resting_influence(state: GameState) -> jax.Array:
    """(6,) the influence each player's city-state relations never fall below (Patronage)."""
    return empire_modifier(state, "cs_resting_influence")
