"""What a player may do at the start of its turn: the legal options of every endpoint.

The step never needs this (its resolver masks as it goes); the text view, the order checker and
the bot do. It runs the first part of the player's turn (units refreshed, worker builds finished)
and then asks the same mask functions the resolver uses, for every unit slot and city at once.
So an option listed here is what the resolver would accept first in the turn; later slots can
find a tile taken by an earlier one, which the resolver then resolves by the next preference.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from hexarena.games.terranova.engine.rules.cities import build_mask, unit_counts
from hexarena.games.terranova.engine.rules.policies import policy_mask
from hexarena.games.terranova.engine.rules.trade import expire_deals, offer_options, peace_blocked
from hexarena.games.terranova.engine.rules.trade_routes import MOVE_CARAVAN, SEND_CARAVAN
from hexarena.games.terranova.engine.rules.units import COMBAT, MOVE, finish_builds, unit_options
from hexarena.games.terranova.engine.state import MAX_CITIES, MAX_UNITS, GameState
from hexarena.games.terranova.engine.tables import BUILDING_SLOTS, load_tables
from hexarena.games.terranova.engine.world import const, occupancy


def turn_start(state: GameState, p: jax.Array) -> GameState:
    """The state as player ``p``'s turn begins: full movement, finished worker builds."""
    tb = load_tables()
    u = state.units
    full = const(tb.unit_moves).astype(jnp.float32)[u.kind[p].astype(jnp.int32)]
    units = u._replace(moves=u.moves.at[p].set(full), fought=u.fought.at[p].set(False))
    return finish_builds(state._replace(units=units), p)


def options(state: GameState, p: jax.Array) -> dict[str, jax.Array]:
    """Player ``p``'s options: ``categories`` (30, 19), ``reach``, ``attack``, caravan targets
    ``relocate`` (category 16) and ``send`` (17) (30, H) bool per unit slot; trade offers
    ``trade_partners`` (6,), ``trade_ask`` and ``trade_offer`` (6, 56) (``trade.offer_options``);
    ``build`` (10, 185) bool per city (what it may start once its current build is done: a started
    build is locked), ``techs`` (81,) and ``policies`` (54,) bool."""
    tb = load_tables()
    st = turn_start(state, p)
    occ = occupancy(st)
    peace = peace_blocked(st, p, occ)

    def per_unit(slot: jax.Array) -> tuple[jax.Array, ...]:
        legal, _, reach, targets, to_city, to_route = unit_options(st, p, slot, occ, peace)
        routes = to_city & legal[MOVE_CARAVAN], to_route & legal[SEND_CARAVAN]
        return legal, reach & legal[MOVE], targets & legal[COMBAT], *routes

    categories, reach, attack, relocate, send = jax.vmap(per_unit)(jnp.arange(MAX_UNITS, dtype=jnp.int32))
    c = st.cities
    current = jnp.where(c.constructing[p] < BUILDING_SLOTS, c.constructing[p], BUILDING_SLOTS)
    claims = jnp.zeros(BUILDING_SLOTS, bool).at[current].set(True, mode="drop")
    claims &= const(tb.building_kind) > 0
    counts = unit_counts(st, p)
    free = st._replace(cities=c._replace(constructing=c.constructing.at[p].set(-1)))
    build = jax.vmap(lambda cs: build_mask(free, p, cs, claims, counts))(
        jnp.arange(MAX_CITIES, dtype=jnp.int32)
    )
    known = st.players.techs[p]
    techs = ~known & jnp.all(~const(tb.tech_prereq) | known, axis=1)
    deals = offer_options(expire_deals(st, p), p)
    return {
        "categories": categories,
        "reach": reach,
        "attack": attack,
        "relocate": relocate,
        "send": send,
        "trade_partners": deals.partners,
        "trade_ask": deals.ask,
        "trade_offer": deals.offer,
        "build": build,
        "techs": techs,
        "policies": policy_mask(st, p),
    }
