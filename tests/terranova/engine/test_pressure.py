"""Religious pressure, hand-computed: 6 a turn from each city of a founder within 15 tiles, the
holy city 6 x (1 + 3.5) = 27, a Grand Temple doubling its city's; a conversion each time a target's
account reaches 100; a citizen taken from the largest other religion once nobody is left
unconverted, so a city's majority switches; city states' followers as whole thresholds; the tenets
a city applies follow its majority."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from hexarena.games.terranova.engine.rules.beliefs import city_tenets, majority
from hexarena.games.terranova.engine.rules.pressure import (
    city_state_followers,
    pressure_sent,
    spread_religion,
    trade_route_pressure,
)
from hexarena.games.terranova.engine.world import tile_distance

from ..religion_helpers import TB, add_city, capital_start, follow, take, tile_at

P0, P1 = jnp.int32(0), jnp.int32(1)
_sent = jax.jit(pressure_sent)
_spread = jax.jit(spread_religion)


@pytest.fixture(scope="module")
def world():
    """Player 0 founded (holy city = its capital); its second city 5 tiles away; player 1's cities
    at 12 and 16 tiles from the holy city (16 from it, and 21 from the second city)."""
    s, centre = capital_start()
    s = take(s, "god_king", "tithe", "pagodas", "choral_music")
    s = follow(s, 0, 0, 0, 4)
    near, far = tile_at(centre, 12), tile_at(centre, 16)
    second = tile_at(centre, 5)
    s, _ = add_city(s, 0, second, 2)
    s, a = add_city(s, 1, near, 3)
    s, b = add_city(s, 1, far, 3)
    return s, {"second": 1, "near": a, "far": b}


def _dist(s, p, i, q, j):
    return int(tile_distance(s.cities.pos[p, i], s.cities.pos[q, j]))


def test_pressure_sent_by_distance_and_holy_city(world):
    s, at = world
    cities, _ = _sent(s, P0)
    near, far, second = at["near"], at["far"], at["second"]
    assert _dist(s, 0, 0, 1, near) == 12 and _dist(s, 0, 0, 1, far) == 16
    assert float(cities[0, 1, near]) == 27.0  # holy city: 6 x (1 + 3.5)
    assert float(cities[0, 1, far]) == 0.0  # beyond 15 tiles
    expected = 6.0 if _dist(s, 0, second, 1, near) <= 15 else 0.0
    assert float(cities[second, 1, near]) == expected
    assert float(cities[0, 0, second]) == 27.0 and float(cities[second, 0, 0]) == 6.0
    assert not np.asarray(_sent(s, P1)[0]).any()  # player 1 has founded nothing


def test_grand_temple_doubles_its_citys_pressure(world):
    s, at = world
    c = s.cities
    temple = s._replace(
        cities=c._replace(buildings=c.buildings.at[0, 0, TB.building("grand_temple")].set(True))
    )
    assert float(_sent(temple, P0)[0][0, 1, at["near"]]) == 54.0


def test_a_citizen_converts_when_the_account_reaches_100(world):
    """27 a turn from the holy city (plus 6 from the second city if it is in range): the account
    reaches 100 on the 4th turn (27 x 3 = 81), or the 3rd with 33 a turn (99 < 100: the 4th too)."""
    s, at = world
    near = at["near"]
    per_turn = float(_sent(s, P0)[0][:, 1, near].sum())
    turns = int(np.ceil(100.0 / per_turn))
    for k in range(1, turns + 1):
        s = _spread(s, P0)
        if k < turns:
            assert float(s.religion.pressure[0, :, 1, near].sum()) == pytest.approx(per_turn * k)
            assert int(s.religion.followers[1, near, 0]) == 0
    assert int(s.religion.followers[1, near, 0]) == 1
    assert float(s.religion.pressure[0, :, 1, near].sum()) == 0.0  # the account restarts
    assert int(s.religion.followers[1, at["far"]].sum()) == 0


def test_majority_switches_and_the_city_applies_the_new_religions_tenets(world):
    """Player 1's 3-citizen city follows player 1's religion (2 of 3). Player 0 converts one
    citizen (the unconverted one), then a second, taken from religion 1: 2 vs 1, religion 0 leads."""
    s, at = world
    near = at["near"]
    s = take(s, "sun_god", "zakat", "feed_the_world", "mosques", player=1)
    s = follow(s, 1, near, 1, 2)
    top, has = majority(s, P1)
    assert int(top[near]) == 1 and bool(has[near])
    ready = s.religion.pressure.at[0, 0, 1, near].set(99.0)
    s = s._replace(religion=s.religion._replace(pressure=ready))
    s = _spread(s, P0)
    assert s.religion.followers[1, near, :2].tolist() == [1, 2]
    s = s._replace(religion=s.religion._replace(pressure=s.religion.pressure.at[0, 0, 1, near].set(99.0)))
    s = _spread(s, P0)
    assert s.religion.followers[1, near, :2].tolist() == [2, 1]
    top, has = majority(s, P1)
    assert int(top[near]) == 0 and bool(has[near])
    here = set(np.flatnonzero(np.asarray(jax.jit(city_tenets)(s, P1))[near]).tolist())
    # religion 0's pantheon and followers; player 1's own founder tenet; not religion 0's founder
    assert here == {TB.tenet(n) for n in ("god_king", "pagodas", "choral_music", "zakat")}


def test_no_majority_falls_back_to_the_owners_pantheon(world):
    s, at = world
    s = take(s, "sun_god", player=1)
    s = follow(follow(s, 1, at["near"], 0, 1), 1, at["near"], 1, 1)  # 1 and 1 of 3: no majority
    here = np.flatnonzero(np.asarray(jax.jit(city_tenets)(s, P1))[at["near"]]).tolist()
    assert here == [TB.tenet("sun_god")]


def test_city_states_count_whole_thresholds(world):
    s, _ = world
    _, cs = _sent(s, P0)
    reached = np.asarray(cs[0]) > 0
    sites = np.asarray(s.layers.cs_sites)
    dist = np.asarray(tile_distance(s.cities.pos[0, 0], jnp.asarray(sites)))
    assert (reached == (dist <= 15)).all() and reached.any()
    for _ in range(4):
        s = _spread(s, P0)
    got = np.asarray(city_state_followers(s))
    per_turn = np.asarray(cs).sum(0)
    assert (got[:, 0] == np.floor(per_turn * 4 / 100)).all() and not got[:, 1:].any()


def test_the_trade_route_input_is_zero_without_routes(world):
    s, _ = world
    cities, cs = trade_route_pressure(s, P0)
    assert cities.shape == (10, 6, 10) and cs.shape == (10, 12)
    assert not np.asarray(cities).any() and not np.asarray(cs).any()


def test_vanished_cities_keep_no_followers_or_pressure(world):
    s, at = world
    s = _spread(s, P0)
    c = s.cities
    gone = s._replace(cities=c._replace(exists=c.exists.at[1, at["near"]].set(False)))
    out = _spread(gone, P0)
    assert not np.asarray(out.religion.pressure[:, :, 1, at["near"]]).any()
    assert not np.asarray(out.religion.followers[1, at["near"]]).any()
