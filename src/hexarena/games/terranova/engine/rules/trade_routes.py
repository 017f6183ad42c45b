"""Caravans and trade routes (unit action categories 16 and 17), as the original plays them.

A caravan (Animal Husbandry) lives in one of its owner's cities. Category 16 (move caravan) moves it
to another of its owner's cities at any distance, ending its route. Category 17 (send caravan) opens
a route from the city it stands in to a city within range (15 tiles, raised by ``trade_range_pct``:
caravansary, harbor): one of its owner's, a met player's it is at peace with, or a city state whose
city it has seen. The caravan is then engaged for 14 turns; the route keeps paying until the caravan
acts again (moves or sends a new route), dies, or a war with the destination player destroys it.

Yields per turn, from the origin city's side and the destination's (``route_yields``, 10 columns:
food, production, gold, faith, culture, science, happiness, tourism, influence, religious pressure):

* own city: the destination gets 1 food, or 4 food with a granary and / or 4 production with a
  workshop in the origin (the original's table: a workshop alone gives 0 food + 4 production);
* city state: gold g / 2 to the origin, where g = 1 + 5 % of the origin's gold + 0.5 per improved
  resource of the origin city; 1.5 influence per turn (``trade_route_cs_influence``); Merchant
  Confederacy adds food and production to the origin and influence;
* foreign player: the origin gets g + its ``trade_gold_origin`` gold (market, caravansary ...),
  3 faith with Religious Troubadours and science 2 per 10 known techs; the destination gets
  g / 2 + ``trade_gold_destination``, half that science and 0.25 tourism.

Every route from a player who has founded a religion carries 6 religious pressure to its
destination (``trade_route_pressure``, read by the religion stage). The number of caravans a player
may keep (``num_trade_routes``) is 2, +1 per Animal Husbandry, Banking, Railroad, Penicillin, + the
``trade_routes`` modifiers (Colossus, Petra, National Treasury, Entrepreneurship).
"""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp

from hexarena.games.terranova.engine.effects import empire_modifiers
from hexarena.games.terranova.engine.geometry import N_TILES
from hexarena.games.terranova.engine.state import (
    MAX_CITIES,
    N_CITY_STATES,
    N_PLAYERS,
    ROUTE_YIELDS,
    GameState,
)
from hexarena.games.terranova.engine.tables import GOLD, TENET_KINDS, load_tables
from hexarena.games.terranova.engine.world import const, gather

MOVE_CARAVAN, SEND_CARAVAN = 16, 17
INFLUENCE, PRESSURE = 8, 9  # columns of a route's yields after the 8 city yields


def num_trade_routes(state: GameState, p: jax.Array) -> jax.Array:
    """How many caravans ``p`` may keep (the spec's ``num_trade_routes``)."""
    tb = load_tables()
    r = tb.rules
    tech_ids = jnp.asarray([tb.tech(t) for t in r["trade_route_techs"]])
    extra = empire_modifiers(state, p)[tb.modifier("trade_routes")]
    return (r["start_trade_routes"] + state.players.techs[p, tech_ids].sum() + extra).astype(jnp.int32)


def active_routes(state: GameState) -> jax.Array:
    """(6, 30) bool: unit slots holding a caravan with a route."""
    caravan = load_tables().unit("caravan")
    return (state.units.kind == caravan) & (state.trade.route_to_player >= 0)


def _origin_city(state: GameState, p: jax.Array, pos: jax.Array) -> jax.Array:
    """The slot of ``p``'s city on tile ``pos``, -1 if none."""
    c = state.cities
    here = c.exists[p] & (c.pos[p] == pos)
    return jnp.where(here.any(), jnp.argmax(here), -1).astype(jnp.int32)


def caravan_targets(
    state: GameState, p: jax.Array, slot: jax.Array, dist: jax.Array, civilian: jax.Array
) -> tuple[jax.Array, jax.Array]:
    """(H,) tiles for category 16 (own cities but this one without a civilian unit: ``civilian`` is
    ``world.occupancy``'s) and 17 (cities in range) for the unit in ``slot``; ``dist`` is the hex
    distance from the unit's tile. Only a caravan standing in its owner's city has any."""
    tb = load_tables()
    c, u = state.cities, state.units
    pos = u.pos[p, slot]
    origin = _origin_city(state, p, pos)
    ok = (u.kind[p, slot] == tb.unit("caravan")) & (origin >= 0)
    own = c.exists[p] & (c.pos[p] != pos) & (gather(civilian, c.pos[p], 0) < 0) & ok
    move = jnp.zeros(N_TILES + 1, bool).at[jnp.where(own, c.pos[p], N_TILES)].set(True)[:N_TILES]
    pct = (
        c.buildings[p, jnp.maximum(origin, 0)]
        * const(tb.building_city_mods[:, tb.modifier("trade_range_pct")])
    ).sum()
    reach = tb.rules["trade_route_range"] * (1 + pct / 100.0)
    pl = state.players
    partner = (pl.have_met[p, :N_PLAYERS] & ~pl.at_war[p]) | (jnp.arange(N_PLAYERS) == p)  # (6,)
    city_d = gather(dist, jnp.where(c.exists, c.pos, -1), 99)  # (6, 10)
    player_ok = c.exists & partner[:, None] & (city_d > 0) & (city_d < reach) & ok
    sites = state.layers.cs_sites
    cs_ok = (state.tiles.visibility[p, sites] > 0) & (dist[sites] > 0) & (dist[sites] < reach) & ok
    send = jnp.zeros(N_TILES + 1, bool)
    send = send.at[jnp.where(player_ok, c.pos, N_TILES)].set(True)
    send = send.at[jnp.where(cs_ok, sites, N_TILES)].set(True)[:N_TILES]
    return move, send


def route_table(state: GameState, p: jax.Array) -> jax.Array:
    """(10, 3, 2, 10) yields per turn of a route from each city of ``p`` to (own, city-state,
    foreign) cities, (origin, destination) sides. Computed once per unit phase: nothing a route
    depends on changes while ``p``'s units act."""
    tb = load_tables()
    r = tb.rules
    c, pl, t = state.cities, state.players, state.tiles
    city_mods = c.buildings[p].astype(jnp.float32) @ const(tb.building_city_mods)  # (10, M)
    emp = empire_modifiers(state, p)

    def mod(rows: jax.Array, name: str) -> jax.Array:
        return rows[..., tb.modifier(name)]

    res = state.layers.resource.astype(jnp.int32)
    imp = t.improvement.astype(jnp.int32)
    reveal = pl.techs[p][jnp.maximum(const(tb.resource_reveal)[res], 0)]
    centre = jnp.zeros(N_TILES + 1, bool).at[jnp.where(c.exists[p], c.pos[p], N_TILES)].set(True)[:N_TILES]
    improved = (res > 0) & reveal & (t.owner == p) & ((const(tb.resource_improvement)[res] == imp) | centre)
    per_city = (
        jnp.zeros(MAX_CITIES + 1).at[jnp.where(improved, t.owner_city, MAX_CITIES)].add(1.0)[:MAX_CITIES]
    )
    gold = (
        r["trade_route_base_gold"]
        + r["trade_route_gold_per_city_gold"] * c.yields[p, :, GOLD]
        + r["trade_route_gold_per_resource"] * per_city
    )  # (10,)
    science = pl.techs[p].sum() / 10.0 * r["trade_route_science_per_10_techs"]
    founder = const(tb.tenet_kind == TENET_KINDS.index("founder"))
    pressure = r["trade_route_pressure"] * (pl.tenets[p] & founder).any()
    troubadours = pl.tenets[p, tb.tenet("religious_troubadours")].astype(jnp.float32)
    granary, workshop = mod(city_mods, "trade_food") > 0, mod(city_mods, "trade_production") > 0
    food_opts, prod_opts = r["trade_route_own_food"], r["trade_route_own_production"]
    z = jnp.zeros((MAX_CITIES, ROUTE_YIELDS))
    own_to = z.at[:, 0].set(jnp.where(granary, food_opts[1], jnp.where(workshop, prod_opts[0], food_opts[0])))
    own_to = own_to.at[:, 1].set(jnp.where(workshop, prod_opts[1], 0.0))
    cs_from = z.at[:, 0].set(mod(emp, "cs_trade_food")).at[:, 1].set(mod(emp, "cs_trade_production"))
    cs_from = cs_from.at[:, GOLD].set(gold / 2)
    cs_to = z.at[:, INFLUENCE].set(r["trade_route_influence"] + mod(emp, "cs_trade_influence"))
    far_from = z.at[:, GOLD].set(gold + mod(city_mods, "trade_gold_origin"))
    far_from = far_from.at[:, 3].set(3.0 * troubadours).at[:, 5].set(science)
    far_to = z.at[:, GOLD].set(gold / 2 + mod(city_mods, "trade_gold_destination"))
    far_to = far_to.at[:, 5].set(science / 2).at[:, 7].set(r["trade_route_tourism"])
    table = jnp.stack(
        [jnp.stack([z, own_to], 1), jnp.stack([cs_from, cs_to], 1), jnp.stack([far_from, far_to], 1)], 1
    )
    return table.at[:, :, 1, PRESSURE].set(pressure)


def caravan_action(
    state: GameState, p: jax.Array, slot: jax.Array, cat: jax.Array, target: jax.Array, table: jax.Array
) -> GameState:
    """Apply category 16 or 17 (any other ``cat`` leaves the state as it is); ``table`` is
    :func:`route_table`."""
    tb = load_tables()
    u, c, tr = state.units, state.cities, state.trade
    moving, sending = cat == MOVE_CARAVAN, cat == SEND_CARAVAN
    origin = _origin_city(state, p, u.pos[p, slot])
    at_city = c.exists & (c.pos == target)  # (6, 10)
    at_cs = state.layers.cs_sites == target  # (12,)
    to_player = jnp.where(at_cs.any(), N_PLAYERS + jnp.argmax(at_cs), jnp.argmax(at_city.any(1)))
    to_city = jnp.where(at_cs.any(), 0, jnp.argmax(at_city[jnp.argmax(at_city.any(1))]))
    kind = jnp.where(to_player == p, 0, jnp.where(to_player >= N_PLAYERS, 1, 2))
    yields = table[jnp.maximum(origin, 0), kind]
    at = (p, slot)

    def put(arr: jax.Array, value: jax.Array | float | int, go: jax.Array) -> jax.Array:
        return arr.at[at].set(jnp.where(go, jnp.asarray(value, arr.dtype), arr[at]))

    ends = moving | sending
    trade = tr._replace(
        route_to_player=put(put(tr.route_to_player, -1, moving), to_player, sending),
        route_to_city=put(put(tr.route_to_city, -1, moving), to_city, sending),
        route_from_city=put(put(tr.route_from_city, -1, moving), origin, sending),
        route_yields=put(tr.route_yields, jnp.where(sending, yields, 0.0), ends),
    )
    units = u._replace(
        pos=put(u.pos, target, moving),
        moves=put(u.moves, 0.0, ends),
        engaged_turns=put(u.engaged_turns, tb.rules["trade_route_turns"], sending),
        engaged_action=put(u.engaged_action, SEND_CARAVAN, sending),
    )
    return state._replace(units=units, trade=trade)


def clear_dead_routes(state: GameState) -> GameState:
    """Slots without a caravan hold no route; caravans on a route to a player their owner is at war
    with are destroyed (as the original: a war plunders the routes between the two)."""
    tr, u = state.trade, state.units
    caravan = u.kind == load_tables().unit("caravan")
    to = tr.route_to_player.astype(jnp.int32)
    at_war = state.players.at_war[jnp.arange(N_PLAYERS)[:, None], jnp.clip(to, 0, N_PLAYERS - 1)]
    plundered = caravan & (to >= 0) & (to < N_PLAYERS) & at_war
    gone = ~caravan | plundered

    def clear(arr: jax.Array, value: float | int) -> jax.Array:
        mask = gone.reshape(gone.shape + (1,) * (arr.ndim - 2))
        return jnp.where(mask, jnp.asarray(value, arr.dtype), arr)

    trade = tr._replace(
        route_to_player=clear(tr.route_to_player, -1),
        route_to_city=clear(tr.route_to_city, -1),
        route_from_city=clear(tr.route_from_city, -1),
        route_yields=clear(tr.route_yields, 0.0),
    )

    dead = {"kind": 0, "pos": -1, "moves": 0.0, "hp": 0.0, "engaged_turns": 0, "engaged_action": -1}
    units = u._replace(
        **{
            k: jnp.where(plundered, jnp.asarray(v, getattr(u, k).dtype), getattr(u, k))
            for k, v in dead.items()
        }
    )
    return state._replace(trade=trade, units=units)


def route_city_yields(state: GameState, p: jax.Array) -> jax.Array:
    """(10, 8) yields routes bring to each city of ``p`` this turn: its own routes' origin side and
    every route ending there (the 8 city yields: food .. happiness, tourism)."""
    tr = state.trade
    live = active_routes(state)
    cities = jnp.arange(MAX_CITIES)
    from_here = (live[p][:, None] & (tr.route_from_city[p][:, None] == cities)).astype(jnp.float32)
    to_here = live[..., None] & (tr.route_to_player[..., None] == p) & (tr.route_to_city[..., None] == cities)
    y = tr.route_yields[..., :8]  # (6, 30, 2, 8)
    out = from_here.T @ y[p, :, 0] + jnp.einsum("uqc,uqy->cy", to_here, y[:, :, 1])
    return out * state.cities.exists[p][:, None]


def _routes_to_city_states(state: GameState) -> jax.Array:
    """(6, 30, 12) one-hot: unit (p, u) runs a live route to city state k."""
    tr = state.trade
    to_cs = active_routes(state) & (tr.route_to_player >= N_PLAYERS)
    return jax.nn.one_hot(tr.route_to_player.astype(jnp.int32) - N_PLAYERS, N_CITY_STATES) * to_cs[..., None]


def trade_route_cs_influence(state: GameState) -> jax.Array:
    """(6, 12) influence per turn each player's routes bring to each city state (for the city-state
    stage: add it to the influence every round)."""
    return jnp.einsum(
        "puk,pu->pk", _routes_to_city_states(state), state.trade.route_yields[..., 1, INFLUENCE]
    )


def trade_route_cs_counts(state: GameState) -> jax.Array:
    """(6, 12) how many live routes each player has to each city state (the trade-route quest counts
    them every round, as the original's ``trade_tracker``)."""
    return _routes_to_city_states(state).sum(1)


class RoutePressure(NamedTuple):
    """Religious pressure per turn from routes, by the sending player's religion (index = player)
    and the sending city (pressure accumulates per pair of cities)."""

    cities: jax.Array  # (6 religion, 10 from city, 6 owner, 10 city)
    city_states: jax.Array  # (6 religion, 10 from city, 12)


def trade_route_pressure(state: GameState) -> RoutePressure:
    """Pressure every route carries to its destination (6 per route once the sender has founded a
    religion; ``pressure.spread_pressure`` adds it to the pressure between the two cities)."""
    tr = state.trade
    live = active_routes(state)
    to = tr.route_to_player.astype(jnp.int32)
    origin = jnp.maximum(tr.route_from_city.astype(jnp.int32), 0)
    amount = tr.route_yields[..., 1, PRESSURE] * live  # (6, 30)
    n_cells = MAX_CITIES * N_PLAYERS * MAX_CITIES
    player_cell = jnp.where(
        live & (to < N_PLAYERS), (origin * N_PLAYERS + to) * MAX_CITIES + tr.route_to_city, n_cells
    )
    cs_cell = jnp.where(
        live & (to >= N_PLAYERS), origin * N_CITY_STATES + to - N_PLAYERS, MAX_CITIES * N_CITY_STATES
    )

    def scatter(cells: jax.Array, a: jax.Array, size: int) -> jax.Array:
        return jnp.zeros(size + 1).at[cells].add(a)[:-1]

    cities = jax.vmap(scatter, in_axes=(0, 0, None))(player_cell, amount, n_cells)
    cs = jax.vmap(scatter, in_axes=(0, 0, None))(cs_cell, amount, MAX_CITIES * N_CITY_STATES)
    return RoutePressure(
        cities.reshape(N_PLAYERS, MAX_CITIES, N_PLAYERS, MAX_CITIES),
        cs.reshape(N_PLAYERS, MAX_CITIES, N_CITY_STATES),
    )


def caravan_gold(state: GameState, p: jax.Array) -> jax.Array:
    """Gold per turn from ``caravan_gold`` (Trade Unions: each caravan, trading or not)."""
    tb = load_tables()
    n = (state.units.kind[p] == tb.unit("caravan")).sum()
    return n * empire_modifiers(state, p)[tb.modifier("caravan_gold")]


def city_state_route_yields(state: GameState, o: jax.Array) -> jax.Array:
    """(10, 2, 10) the yields of ``o``'s routes to city states, summed by origin city, as
    (origin, destination) rows (``culture_info/cs_trade_route_yields``)."""
    tr = state.trade
    to_cs = active_routes(state)[o] & (tr.route_to_player[o] >= N_PLAYERS)
    origin = jnp.where(to_cs, tr.route_from_city[o].astype(jnp.int32), MAX_CITIES)
    per_city = jnp.zeros((MAX_CITIES + 1, 2, ROUTE_YIELDS)).at[origin].add(tr.route_yields[o])
    return per_city[:MAX_CITIES]


def observed(state: GameState, o: jax.Array) -> dict[str, jax.Array]:
    """The unit observation's caravan fields and ``num_trade_routes`` for player ``o``."""
    tr = state.trade
    live = active_routes(state)[o]
    return {
        "trade_to_player_int": jnp.where(live, tr.route_to_player[o], -1).astype(jnp.int32),
        "trade_to_city_int": jnp.where(live, tr.route_to_city[o], -1).astype(jnp.int32),
        "trade_from_city_int": jnp.where(live, tr.route_from_city[o], -1).astype(jnp.int32),
        "trade_yields": jnp.where(live[:, None, None], tr.route_yields[o], 0.0),
    }
