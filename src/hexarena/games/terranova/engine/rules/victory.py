"""The World Congress and the four victories (the original's ``termination_fns``).

* **World Congress**: forms once some player knows Printing Press and has met every other player;
  it then meets every 30 rounds (at the end of rounds 29, 59, ...). Delegates come from the
  ``delegates`` modifier: the Forbidden Palace 2, Consulates 1.
* **Science**: a player owns every spaceship part (three boosters, engine, cockpit, stasis
  chamber; each needs the Apollo Program).
* **Domination**: a player has sacked every rival capital (``step.domination_winner``).
* **Culture**: a player's accumulated tourism on each rival exceeds that rival's lifetime culture.
* **Diplomatic**: at a Congress session, a player's delegates plus allied city states reach 12.

Checked after every player's turn, the diplomatic one at sessions only. When several hold at once
the first in ``citystates.json`` "victories" order names the kind, and the lowest player id wins
among those who qualify (the original's metrics take the lowest id too). The reward stays the
score delta: the original adds nothing for a victory.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from hexarena.games.terranova.engine.rules.cs_relations import empire_modifier, have_met
from hexarena.games.terranova.engine.state import N_PLAYERS, GameState
from hexarena.games.terranova.engine.tables import citystate_rules, load_tables
from hexarena.games.terranova.engine.world import const

VICTORIES = tuple(citystate_rules()["victories"])  # code -> name; 0 = none (turn cap)


def victory_code(name: str) -> int:
    return VICTORIES.index(name)


def spaceship_mask() -> np.ndarray:
    """(148,) bool: the spaceship parts a science victory needs."""
    tb = load_tables()
    parts = [tb.building(name) for name in citystate_rules()["spaceship_parts"]]
    return np.isin(np.arange(len(tb.building_names)), parts)


def delegates(state: GameState) -> jax.Array:
    """(6,) World Congress delegates of each player."""
    return empire_modifier(state, "delegates").astype(jnp.int32)


def congress_formed(state: GameState) -> jax.Array:
    """() bool: someone knows Printing Press and has met every other player."""
    tb = load_tables()
    press = state.players.techs[:, tb.tech(citystate_rules()["congress_tech"])]
    return (press & have_met(state)[:, :N_PLAYERS].all(1)).any()


def congress_session(state: GameState) -> jax.Array:
    """() bool: the Congress meets at the end of this round (``state.turn`` = the round just played)."""
    return congress_formed(state) & ((state.turn + 1) % citystate_rules()["congress_rounds"] == 0)


def diplomatic_votes(state: GameState) -> jax.Array:
    """(6,) delegates plus allied city states."""
    allies = (state.citystates.relationship == 2).sum(0)
    return delegates(state) + allies


def qualifiers(state: GameState, domination: jax.Array, session: jax.Array) -> jax.Array:
    """(4 kinds, 6) bool: who meets each victory condition now (kinds in ``VICTORIES[1:]`` order)."""
    pl, c = state.players, state.cities
    parts = const(spaceship_mask())
    science = (c.buildings.any(1) | ~parts[None, :]).all(1)
    dominates = jnp.arange(N_PLAYERS) == domination
    rivals = ~jnp.eye(N_PLAYERS, dtype=bool)
    culture = ((pl.tourism > pl.culture_total[None, :]) | ~rivals).all(1)
    diplomatic = session & (diplomatic_votes(state) >= citystate_rules()["diplomatic_votes"])
    by_name = {"science": science, "domination": dominates, "culture": culture, "diplomatic": diplomatic}
    return jnp.stack([by_name[name] for name in VICTORIES[1:]])


def decide(state: GameState, domination: jax.Array, session: jax.Array) -> tuple[jax.Array, jax.Array]:
    """``(kind, winner)``: the victory reached now (0 and -1 when none)."""
    q = qualifiers(state, domination, session)
    any_kind = q.any(1)
    kind = jnp.where(any_kind.any(), jnp.argmax(any_kind) + 1, 0)
    winner = jnp.where(kind > 0, jnp.argmax(q[jnp.maximum(kind - 1, 0)]), -1)
    return kind.astype(jnp.int32), winner.astype(jnp.int32)
