"""Religious pressure: how a founded religion spreads to cities of every player and to city states.

On its owner's turn every city of a player who has founded a religion sends pressure for that
religion (rules ``religious_pressure_base`` 6 a turn) to every city and city state within
``religious_pressure_range`` (15 tiles). As the original computes it, the holy city (the capital)
sends ``6 x (1 + holy_city_pressure)`` = 27, a city with a Grand Temple twice its amount
(``religious_pressure_pct``), a city following a religion with Promised Land 25 % more onto its
owner's own cities and one with Religious Unity twice as much onto city states (tenet
``city_modifiers``). Pressure accumulates per (source city, target city); when a target's total from
one religion reaches ``religious_pressure_threshold`` (100), one of its citizens converts (taken
from the largest other religion when the city has no unconverted citizen left) and that account
restarts. City states keep no population: a religion's followers there are its whole thresholds of
accumulated pressure.

Trade routes add ``trade_route_pressure`` (6) a turn along each route from a founder's city
(``trade_routes.trade_route_pressure``).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from hexarena.games.terranova.engine.effects import city_modifiers
from hexarena.games.terranova.engine.rules import trade_routes
from hexarena.games.terranova.engine.rules.beliefs import has_founded, holy_city
from hexarena.games.terranova.engine.state import N_PLAYERS, GameState
from hexarena.games.terranova.engine.tables import load_tables
from hexarena.games.terranova.engine.world import tile_distance


def trade_route_pressure(state: GameState, p: jax.Array) -> tuple[jax.Array, jax.Array]:
    """Extra pressure a turn that ``p``'s trade routes carry for its religion: ``(10, 6, 10)`` from
    each city of ``p`` onto each player's cities and ``(10, 12)`` onto each city state."""
    routes = trade_routes.trade_route_pressure(state)
    return routes.cities[p], routes.city_states[p]


def pressure_sent(state: GameState, p: jax.Array) -> tuple[jax.Array, jax.Array]:
    """Pressure ``p``'s religion sends this turn, without trade routes: ``(10, 6, 10)`` from each
    city of ``p`` onto each city of each player, ``(10, 12)`` onto each city state (0 unfounded)."""
    tb = load_tables()
    r, c = tb.rules, state.cities
    mods = city_modifiers(state, p)
    src = c.exists[p] & has_founded(state)[p]
    holy = holy_city(state)[p]
    base = r["religious_pressure_base"] * (1 + r["holy_city_pressure"] * holy)
    base = base * (1 + mods[:, tb.modifier("religious_pressure_pct")] / 100.0) * src  # (10,)
    reach = r["religious_pressure_range"]
    near = tile_distance(c.pos[p][:, None, None], jnp.maximum(c.pos, 0)[None]) <= reach
    own = 1 + mods[:, tb.modifier("own_city_pressure_pct")] / 100.0
    onto = jnp.where(jnp.arange(N_PLAYERS)[None, :] == p, own[:, None], 1.0)  # (10, 6)
    cities = base[:, None, None] * onto[:, :, None] * (near & c.exists[None])
    sites = state.layers.cs_sites
    cs_near = (tile_distance(c.pos[p][:, None], jnp.maximum(sites, 0)[None, :]) <= reach) & (sites >= 0)
    cs_factor = 1 + mods[:, tb.modifier("city_state_pressure_pct")] / 100.0
    return cities, (base * cs_factor)[:, None] * cs_near


def spread_religion(state: GameState, p: jax.Array) -> GameState:
    """``p``'s religion presses on every city and city state in range; conversions at the threshold."""
    r = load_tables().rules
    rel, c = state.religion, state.cities
    cities, city_states = pressure_sent(state, p)
    trade_cities, trade_cs = trade_route_pressure(state, p)
    founded = has_founded(state)[p]
    total = rel.pressure[p] + cities + jnp.where(founded, trade_cities, 0.0)  # (10, 6, 10)
    converts = (total.sum(0) >= r["religious_pressure_threshold"]) & c.exists  # (6, 10)
    religions = jnp.arange(N_PLAYERS)
    followers = rel.followers + (converts[..., None] & (religions == p)).astype(jnp.int32)
    over = followers.sum(-1) > c.pop
    others = jnp.where(religions == p, 0, followers)
    loser = jnp.where((others > 0).any(-1), jnp.argmax(others, -1), p)
    followers = followers - (over[..., None] & (religions == loser[..., None])).astype(jnp.int32)
    pressure = rel.pressure.at[p].set(jnp.where(converts[None], 0.0, total))
    live = c.exists[:, :, None, None] & c.exists[None, None]
    cs_pressure = rel.cs_pressure.at[p].add(city_states + jnp.where(founded, trade_cs, 0.0))
    return state._replace(
        religion=rel._replace(
            followers=jnp.where(c.exists[..., None], followers, 0),
            pressure=jnp.where(live, pressure, 0.0),
            cs_pressure=jnp.where(c.exists[..., None], cs_pressure, 0.0),
        )
    )


def city_state_followers(state: GameState) -> jax.Array:
    """(12, 6) followers of each religion in each city state: whole thresholds of pressure received
    (the spec's ``citystate_info/religious_population``)."""
    threshold = load_tables().rules["religious_pressure_threshold"]
    return jnp.floor(state.religion.cs_pressure.sum(1) / threshold).T.astype(jnp.int32)
