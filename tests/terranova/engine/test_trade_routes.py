"""Caravans and trade routes (unit categories 16 and 17): targets and range, route yields to own,
foreign and city-state cities by hand, influence and religious pressure for the later stages, the
route count from techs and buildings, the caravan cap, war plundering, the unit endpoint."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from hexarena.games.terranova.engine.geometry import distance_np, work_area
from hexarena.games.terranova.engine.rules import trade_routes as tr
from hexarena.games.terranova.engine.rules.cities import build_mask, unit_counts
from hexarena.games.terranova.engine.rules.pressure import trade_route_pressure as religion_input
from hexarena.games.terranova.engine.rules.units import found_city, unit_phase
from hexarena.games.terranova.engine.tables import BUILDING_SLOTS, GOLD, TENET_KINDS, load_tables
from hexarena.games.terranova.engine.world import distance_from, occupancy

from ..tn_helpers import grassland_start, place_unit

TB = load_tables()
P0 = jnp.int32(0)
SLOT = jnp.int32(0)
SCIENCE = 81 / 10 * 2  # every tech known: 2 science per 10 techs


def _targets(s, slot=SLOT):
    pos = s.units.pos[0, slot]
    return tr.caravan_targets(s, P0, slot, distance_from(jnp.maximum(pos, 0)), occupancy(s).civilian)


_targets_jit = jax.jit(_targets)
_act = jax.jit(
    lambda s, cat, tgt: tr.caravan_action(s, P0, SLOT, jnp.int32(cat), jnp.int32(tgt), tr.route_table(s, P0))
)
_city_yields = jax.jit(tr.route_city_yields)
_routes = jax.jit(tr.num_trade_routes)
_clear = jax.jit(tr.clear_dead_routes)
_counts = jax.jit(unit_counts)


def _build(s, b):
    state = s.cities.buildings
    return s._replace(cities=s.cities._replace(buildings=state.at[0, 0, TB.building(b)].set(True)))


@pytest.fixture(scope="module")
def world():
    """Player 0: capital (10 gold, one improved silk) and a second city 5 away; player 1: a city 6
    away; player 2: a city 16 away; city state 0 moved 7 away and seen. All techs, everyone met, a
    caravan in player 0's capital. Returns (state, tiles dict)."""
    s, centre = grassland_start(radius=8)
    d = distance_np(np.arange(2772), centre)
    own2 = int(np.flatnonzero(d == 5)[0])
    dd = distance_np(np.arange(2772), own2)
    foreign = int(np.flatnonzero((d == 6) & (dd >= 5))[0])
    cs = int(np.flatnonzero((d == 7) & (dd >= 4) & (distance_np(np.arange(2772), foreign) >= 4))[0])
    far = int(np.flatnonzero((d == 16) & (s.layers.elevation > 0))[0])
    for p, tile in ((0, centre), (0, own2), (1, foreign), (2, far)):
        s = found_city(s, jnp.int32(p), jnp.int32(tile))
    silk = int(work_area()[centre, 1])
    lay, t, c, pl = s.layers, s.tiles, s.cities, s.players
    s = s._replace(
        layers=lay._replace(
            resource=lay.resource.at[silk].set(TB.resource("silk")), cs_sites=lay.cs_sites.at[0].set(cs)
        ),
        tiles=t._replace(
            improvement=t.improvement.at[silk].set(TB.improvement_names.index("plantation")),
            visibility=t.visibility.at[0, cs].set(1),
        ),
        cities=c._replace(yields=c.yields.at[0, 0, GOLD].set(10.0)),
        players=pl._replace(techs=jnp.ones_like(pl.techs), have_met=jnp.ones_like(pl.have_met)),
    )
    s = place_unit(s, 0, 0, "caravan", centre)
    return s, {"centre": centre, "own2": own2, "foreign": foreign, "cs": cs, "far": far}


def test_targets_own_cities_and_cities_in_range(world):
    s, at = world
    move, send = (np.asarray(x) for x in _targets_jit(s))
    assert np.flatnonzero(move).tolist() == [at["own2"]]
    assert sorted(np.flatnonzero(send).tolist()) == sorted([at["own2"], at["foreign"], at["cs"]])
    assert not send[at["far"]]  # 16 tiles: beyond the 15-tile range
    _, send = _targets_jit(_build(s, "caravansary"))  # +50 % range
    assert bool(send[at["far"]])
    pl = s.players
    war = s._replace(players=pl._replace(at_war=pl.at_war.at[0, 1].set(True).at[1, 0].set(True)))
    assert not bool(_targets_jit(war)[1][at["foreign"]])
    unseen = s._replace(tiles=s.tiles._replace(visibility=s.tiles.visibility.at[0, at["cs"]].set(0)))
    assert not bool(_targets_jit(unseen)[1][at["cs"]])
    outside = place_unit(s, 0, 0, "caravan", int(work_area()[at["centre"], 2]))
    assert not np.asarray(_targets_jit(outside)[0]).any() and not np.asarray(_targets_jit(outside)[1]).any()


def test_route_to_own_city_carries_food_or_production(world):
    s, at = world
    out = _act(s, tr.SEND_CARAVAN, at["own2"])
    t = out.trade
    assert (int(t.route_to_player[0, 0]), int(t.route_to_city[0, 0]), int(t.route_from_city[0, 0])) == (
        0,
        1,
        0,
    )
    assert np.asarray(t.route_yields[0, 0]).tolist() == [[0.0] * 10, [1.0] + [0.0] * 9]
    assert int(out.units.engaged_turns[0, 0]) == 14 and int(out.units.engaged_action[0, 0]) == 17
    assert np.asarray(_city_yields(out, P0))[1].tolist() == [1.0] + [0.0] * 7
    granary = _act(_build(s, "granary"), tr.SEND_CARAVAN, at["own2"]).trade.route_yields[0, 0, 1, :2]
    workshop = _act(_build(s, "workshop"), tr.SEND_CARAVAN, at["own2"]).trade.route_yields[0, 0, 1, :2]
    assert granary.tolist() == [4.0, 0.0] and workshop.tolist() == [0.0, 4.0]


def test_route_to_a_foreign_city(world):
    s, at = world
    # g = 1 + 5 % of 10 gold + 0.5 per improved resource (the silk) = 2.0; a market adds 1 each side.
    y = np.asarray(_act(_build(s, "market"), tr.SEND_CARAVAN, at["foreign"]).trade.route_yields[0, 0])
    origin = [0, 0, 2.0 + 1, 0, 0, SCIENCE, 0, 0, 0, 0]
    destination = [0, 0, 1.0 + 1, 0, 0, SCIENCE / 2, 0, 0.25, 0, 0]
    np.testing.assert_allclose(y, [origin, destination], rtol=1e-6)
    out = _act(s, tr.SEND_CARAVAN, at["foreign"])
    theirs = np.asarray(jax.jit(tr.route_city_yields)(out, jnp.int32(1)))[0]
    np.testing.assert_allclose(theirs, [0, 0, 1.0, 0, 0, SCIENCE / 2, 0, 0.25], rtol=1e-6)
    mine = np.asarray(_city_yields(out, P0))[0]
    np.testing.assert_allclose(mine, [0, 0, 2.0, 0, 0, SCIENCE, 0, 0], rtol=1e-6)
    seen = tr.observed(out, P0)
    assert [int(seen[k][0]) for k in ("trade_to_player_int", "trade_to_city_int", "trade_from_city_int")] == [
        1,
        0,
        0,
    ]
    assert int(seen["trade_to_player_int"][1]) == -1 and seen["trade_yields"].shape == (30, 2, 10)


def test_route_to_a_city_state_gives_influence_and_pressure_follows_a_religion(world):
    s, at = world
    out = _act(s, tr.SEND_CARAVAN, at["cs"])
    assert int(out.trade.route_to_player[0, 0]) == 6  # city states are 6..17
    np.testing.assert_allclose(np.asarray(out.trade.route_yields[0, 0, 0]), [0, 0, 1.0] + [0] * 7)
    per_city = np.asarray(tr.city_state_route_yields(out, jnp.int32(0)))  # culture_info's view
    origin = int(out.trade.route_from_city[0, 0])
    np.testing.assert_allclose(per_city[origin], np.asarray(out.trade.route_yields[0, 0]))
    assert np.delete(per_city, origin, axis=0).sum() == 0
    assert not np.asarray(tr.city_state_route_yields(_act(s, tr.SEND_CARAVAN, at["foreign"]), 0)).any()
    influence = np.asarray(jax.jit(tr.trade_route_cs_influence)(out))
    assert influence[0, 0] == pytest.approx(1.5) and influence.sum() == pytest.approx(1.5)
    assert not np.asarray(jax.jit(tr.trade_route_pressure)(out).city_states).any()  # no religion yet
    founder = int(np.flatnonzero(TB.tenet_kind == TENET_KINDS.index("founder"))[0])
    pl = s.players
    believer = s._replace(players=pl._replace(tenets=pl.tenets.at[0, founder].set(True)))
    to_cs = _act(believer, tr.SEND_CARAVAN, at["cs"])
    pressure = jax.jit(tr.trade_route_pressure)(to_cs)
    origin = int(to_cs.trade.route_from_city[0, 0])
    assert float(pressure.city_states[0, origin, 0]) == 6.0 and float(pressure.city_states.sum()) == 6.0
    _, onto_cs = religion_input(to_cs, 0)  # what the religion stage adds to its pressure
    assert float(onto_cs[origin, 0]) == 6.0
    pressure = jax.jit(tr.trade_route_pressure)(_act(believer, tr.SEND_CARAVAN, at["foreign"]))
    assert float(pressure.cities[0, origin, 1, 0]) == 6.0 and float(pressure.cities.sum()) == 6.0
    # Merchant Confederacy: +2 food, +2 production to the origin and +1 influence.
    mc = s._replace(
        players=pl._replace(policies=pl.policies.at[0, TB.policy("merchant_confederacy")].set(True))
    )
    y = np.asarray(_act(mc, tr.SEND_CARAVAN, at["cs"]).trade.route_yields[0, 0])
    assert y[0, :3].tolist() == [2.0, 2.0, 1.0] and y[1, tr.INFLUENCE] == pytest.approx(2.5)


def test_moving_a_caravan_ends_its_route_and_war_plunders_it(world):
    s, at = world
    out = _act(_act(s, tr.SEND_CARAVAN, at["foreign"]), tr.MOVE_CARAVAN, at["own2"])
    assert int(out.units.pos[0, 0]) == at["own2"] and int(out.trade.route_to_player[0, 0]) == -1
    assert not np.asarray(out.trade.route_yields[0, 0]).any()
    routed = _act(s, tr.SEND_CARAVAN, at["foreign"])
    pl = routed.players
    war = routed._replace(players=pl._replace(at_war=pl.at_war.at[0, 1].set(True).at[1, 0].set(True)))
    gone = _clear(war)
    assert int(gone.units.kind[0, 0]) == 0 and int(gone.trade.route_to_player[0, 0]) == -1
    assert int(_clear(routed).units.kind[0, 0]) == TB.unit("caravan")  # at peace it trades on


def test_route_count_from_techs_and_buildings_and_the_caravan_cap(world):
    s, _ = world
    fresh = s._replace(players=s.players._replace(techs=jnp.zeros_like(s.players.techs)))
    assert int(_routes(fresh, P0)) == 2  # the start
    assert int(_routes(s, P0)) == 2 + 4  # Animal Husbandry, Banking, Railroad, Penicillin
    assert int(_routes(_build(s, "colossus"), P0)) == 7
    pl = s.players
    ent = s._replace(players=pl._replace(policies=pl.policies.at[0, TB.policy("entrepreneurship")].set(True)))
    assert int(_routes(ent, P0)) == 8
    caravan = BUILDING_SLOTS + TB.unit("caravan") - 1
    counts = _counts(s, P0)
    assert counts.tolist()[2:] == [1, 6]
    mask = jax.jit(lambda st, cn: build_mask(st, P0, jnp.int32(0), jnp.zeros(BUILDING_SLOTS, bool), cn))
    assert bool(mask(s, counts)[caravan])
    assert not bool(mask(s, counts.at[2].set(6))[caravan])  # six caravans kept or queued: no seventh
    assert not bool(mask(fresh, _counts(fresh, P0))[caravan])  # Animal Husbandry first


def test_the_unit_endpoint_sends_a_caravan(world):
    s, at = world
    u = s.units
    s = s._replace(units=u._replace(moves=u.moves.at[0, 0].set(1.0)))
    types = jnp.full((30, 19), -1.0).at[0, tr.SEND_CARAVAN].set(1.0)
    targets = jnp.zeros((30, 2772)).at[0, at["foreign"]].set(1.0)
    out, cat, tgt = jax.jit(unit_phase)(s, P0, types, targets)
    assert int(cat[0]) == tr.SEND_CARAVAN and int(tgt[0]) == at["foreign"]
    assert int(out.trade.route_to_player[0, 0]) == 1 and int(out.units.engaged_turns[0, 0]) == 14
    again, cat, _ = jax.jit(unit_phase)(out, P0, types, targets)  # engaged: it cannot act
    assert int(cat[0]) == -1 and int(again.units.engaged_turns[0, 0]) == 13
