"""Religion: the tenet endpoint (pantheon, founding, enhancing, reformation), great prophets from
faith, faith purchases, and the religion phase of a turn.

A player's religion grows in stages, one per turn at most, each taken through the tenet endpoint
as a masked preference over the 91 tenets (a tenet belongs to one player only):

* **pantheon**: faith reaches ``10 + 5 x pantheons already taken`` (rules ``pantheon_cost_*``); the
  player's citizens all follow it;
* **founding**: with a pantheon, faith reaches the first great prophet (rules ``prophet_faith[0]``,
  134); one founder and two follower tenets at once, executed ``(founder, follower, follower)``;
  the capital becomes the holy city and all its citizens follow the religion;
* **enhancing**: the second great prophet (``prophet_faith[1]``, 201): one enhancer tenet;
* **reformation**: free with the Reformation policy (``reformation_belief``), once the five tenets
  above are held: one reformation tenet (the original's ``REFORMATION_THRESHOLD`` of 400 faith is
  defined but never used there).

Prophets cost what they need, ``prophet_faith x (1 + prophet_faith_pct / 100)`` (Messiah: -25 %),
so faith never goes negative. A great prophet granted by a wonder (Hagia Sophia) counts as the
first prophet's faith, as in the original. A player holding a purchase tenet (Cathedrals, Pagodas,
Work Ethic ...) and all five tenets buys, as the original does on its own, that tenet's buildings in
its first city lacking them, one set per tenet per turn, for ``faith_purchase_cost`` (125) faith.
The tenets acting in each city are ``beliefs.city_tenets``; spread is ``pressure.spread_religion``.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from hexarena.games.terranova.engine.effects import empire_modifiers
from hexarena.games.terranova.engine.rules.beliefs import tenets_of_kind
from hexarena.games.terranova.engine.rules.pressure import spread_religion
from hexarena.games.terranova.engine.state import GameState
from hexarena.games.terranova.engine.tables import SPECIALISTS, load_tables
from hexarena.games.terranova.engine.world import const, masked_argmax

PROPHET = len(SPECIALISTS)  # the great prophet's column of ``Players.great_people``


def pantheon_tenets() -> jax.Array:
    """(91,) bool: the pantheon beliefs."""
    return tenets_of_kind("pantheon")


def pantheons_taken(state: GameState) -> jax.Array:
    """How many pantheons have been founded in the game."""
    return (state.players.tenets & pantheon_tenets()[None, :]).any(1).sum()


def pantheon_cost(state: GameState) -> jax.Array:
    """Faith the next pantheon costs: base + step x pantheons already taken (10, 15, 20, ...)."""
    r = load_tables().rules
    return (r["pantheon_cost_base"] + r["pantheon_cost_step"] * pantheons_taken(state)).astype(jnp.float32)


def prophet_cost(state: GameState, p: jax.Array, which: int) -> jax.Array:
    """Faith of ``p``'s first (0: founding) or second (1: enhancing) great prophet."""
    tb = load_tables()
    pct = empire_modifiers(state, p)[tb.modifier("prophet_faith_pct")]
    return jnp.float32(tb.rules["prophet_faith"][which]) * (1 + pct / 100.0)


def stage_costs(state: GameState, p: jax.Array) -> jax.Array:
    """(5,) faith each kind of tenet costs ``p`` now (TENET_KINDS order; founder and follower tenets
    come together, paid once, under the founder)."""
    zero = jnp.float32(0)
    return jnp.stack([pantheon_cost(state), prophet_cost(state, p, 0), zero, prophet_cost(state, p, 1), zero])


def tenet_mask(state: GameState, p: jax.Array) -> jax.Array:
    """(91,) tenets ``p`` may take now: those nobody holds, of the stage ``p`` has reached and can
    pay for (founding: the founder and follower tenets, with two followers still free)."""
    pl = state.players
    held, faith = pl.tenets[p], pl.faith[p]
    kind = {k: tenets_of_kind(k) for k in ("pantheon", "founder", "follower", "enhancer", "reformation")}
    free = ~pl.tenets.any(0)
    has = {k: (held & m).any() for k, m in kind.items()}
    costs = stage_costs(state, p)
    pantheon = ~has["pantheon"] & state.cities.exists[p].any() & (faith >= costs[0])
    founding = has["pantheon"] & ~has["founder"] & (state.cities.exists[p] & state.cities.capital[p]).any()
    founding &= (faith >= costs[1]) & (free & kind["founder"]).any() & ((free & kind["follower"]).sum() >= 2)
    enhancing = has["founder"] & ~has["enhancer"] & (faith >= costs[3])
    reform = empire_modifiers(state, p)[load_tables().modifier("reformation_belief")] > 0
    reforming = has["enhancer"] & ~has["reformation"] & reform
    stage = (
        (kind["pantheon"] & pantheon)
        | ((kind["founder"] | kind["follower"]) & founding)
        | (kind["enhancer"] & enhancing)
        | (kind["reformation"] & reforming)
    )
    return free & stage


def choose_tenets(state: GameState, p: jax.Array, scores: jax.Array) -> tuple[GameState, jax.Array]:
    """The tenet endpoint for player ``p``; returns the state and the executed ``(3,)`` tenets:
    ``(founder, follower, follower)`` when founding, else ``(tenet, -1, -1)`` (or all -1)."""
    tb = load_tables()
    pl, c = state.players, state.cities
    legal = tenet_mask(state, p)
    follower = tenets_of_kind("follower")
    n = legal.shape[0]
    first = masked_argmax(scores, legal & ~follower)
    second = masked_argmax(scores, legal & follower)
    third = masked_argmax(scores, legal & follower & (jnp.arange(n) != second))
    picks = jnp.stack([first, second, third]).astype(jnp.int32)
    taken = (picks[:, None] == jnp.arange(n)[None, :]).any(0)
    kind = const(tb.tenet_kind)[jnp.maximum(first, 0)]
    cost = jnp.where(first >= 0, stage_costs(state, p)[kind], 0.0)
    religions = jnp.arange(pl.tenets.shape[0])
    mine = (religions == p).astype(jnp.int32)
    followers = state.religion.followers
    pantheon = (first >= 0) & (kind == 0)
    all_cities = jnp.where(c.exists[p][:, None], c.pop[p][:, None] * mine[None, :], 0)
    followers = followers.at[p].set(jnp.where(pantheon, all_cities, followers[p]))
    holy = c.capital[p] & c.exists[p] & (first >= 0) & (kind == 1)
    followers = followers.at[p].set(jnp.where(holy[:, None], c.pop[p][:, None] * mine[None, :], followers[p]))
    players = pl._replace(tenets=pl.tenets.at[p].set(pl.tenets[p] | taken), faith=pl.faith.at[p].add(-cost))
    state = state._replace(players=players, religion=state.religion._replace(followers=followers))
    return state, picks


def prophets_to_faith(state: GameState, p: jax.Array) -> GameState:
    """Great prophets granted to ``p`` (Hagia Sophia) become the first prophet's faith."""
    pl = state.players
    prophets = pl.great_people[p, PROPHET]
    faith = pl.faith[p] + prophets * jnp.float32(load_tables().rules["prophet_faith"][0])
    return state._replace(
        players=pl._replace(
            faith=pl.faith.at[p].set(faith), great_people=pl.great_people.at[p, PROPHET].set(0)
        )
    )


def buy_with_faith(state: GameState, p: jax.Array) -> GameState:
    """For each purchase tenet ``p`` holds (with all five tenets), the tenet's buildings go to its
    first city lacking one of them, for ``faith_purchase_cost`` faith, when their techs are known."""
    tb = load_tables()
    r = tb.rules
    pl = state.players
    pct = empire_modifiers(state, p)[tb.modifier("faith_purchase_pct")]
    cost = r["faith_purchase_cost"] * (1 + pct / 100.0)
    ready = pl.tenets[p].sum() >= r["faith_purchase_min_tenets"]
    exists, techs = state.cities.exists[p], pl.techs[p]
    buildings, faith = state.cities.buildings[p], pl.faith[p]
    for t in [int(t) for t in tb.tenet_purchase.any(1).nonzero()[0]]:
        group = const(tb.tenet_purchase[t])
        known = jnp.all(~const(tb.building_tech[tb.tenet_purchase[t]]) | techs)
        lacking = exists & (group & ~buildings).any(1)
        city = jnp.argmax(lacking)
        buy = pl.tenets[p, t] & ready & known & lacking.any() & (faith >= cost)
        buildings = buildings.at[city].set(jnp.where(buy, buildings[city] | group, buildings[city]))
        faith = faith - jnp.where(buy, cost, 0.0)
    c = state.cities
    return state._replace(
        cities=c._replace(buildings=c.buildings.at[p].set(buildings)),
        players=pl._replace(faith=pl.faith.at[p].set(faith)),
    )


def religion_phase(state: GameState, p: jax.Array, scores: jax.Array) -> tuple[GameState, jax.Array]:
    """``p``'s religion step, in the original's order: the tenet endpoint (after granted prophets
    turn into faith), faith purchases, then pressure and conversions. Returns the executed (3,)."""
    state, executed = choose_tenets(prophets_to_faith(state, p), p, scores)
    return spread_religion(buy_with_faith(state, p), p), executed
