"""Fog of war as the original keeps it (issue 15): a tile seen earlier shows what was seen then
(owner, yields), a rival city out of sight its population, HP and defence when last seen;
``have_met`` is sticky and covers city states; demographics rank what their names say;
``resources_owned`` is per city."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from hexarena.games.terranova.engine.geometry import distance_np, neighbors
from hexarena.games.terranova.engine.observe import demographics, empty_tracker, observe, update_tracker
from hexarena.games.terranova.engine.rules.units import found_city
from hexarena.games.terranova.engine.step import update_fog
from hexarena.games.terranova.engine.tables import FOOD, GOLD, PROD, load_tables

from ..tn_helpers import grassland_start, place_unit

TB = load_tables()
P0, P1 = jnp.int32(0), jnp.int32(1)
fog, remember, look = jax.jit(update_fog), jax.jit(update_tracker), jax.jit(observe)


def east(tile: int, steps: int, direction: int = 0) -> int:
    for _ in range(steps):
        tile = int(neighbors()[tile][direction])
    return tile


@pytest.fixture(scope="module")
def scene():
    """Player 0's warrior two tiles west of player 1's new city on bare grassland."""
    s, centre = grassland_start(seed=1, radius=8)
    city = east(centre, 2)
    s = found_city(place_unit(s, 0, 0, "warrior", centre), P1, jnp.int32(city))
    return s, centre, city


def turn(s, tracker):
    s = fog(s)
    return s, remember(tracker, s)


def walk_away(s, centre):
    return place_unit(s, 0, 0, "warrior", east(centre, 6, 3))  # far to the west: the city is out of sight


def test_a_tile_seen_then_left_shows_its_old_owner_and_yields(scene):
    s, centre, city = scene
    tile = int(neighbors()[city][3])  # ring 1 of player 1's city, next to the warrior
    s, tracker = turn(s, empty_tracker())
    before = look(s, tracker, P0)
    s, tracker = turn(walk_away(s, centre), tracker)
    farm = TB.improvement_names.index("farm")
    t = s.tiles
    s = s._replace(
        tiles=t._replace(
            owner=t.owner.at[tile].set(2),
            owner_city=t.owner_city.at[tile].set(0),
            improvement=t.improvement.at[tile].set(farm),
        )
    )
    s, tracker = turn(s, tracker)
    o = look(s, tracker, P0)
    r, c = divmod(tile, 66)
    assert int(o["visibility_map"][r, c]) == 1
    own = np.asarray(o["player_cities"]["ownership_map"])[:, :, r, c]
    assert own[1, 0] == 2 and own[2, 0] == 0  # still player 1's as seen, not player 2's
    np.testing.assert_array_equal(o["yield_map_players"][r, c], before["yield_map_players"][r, c])
    assert int(o["improvement_map"][r, c]) == 0
    back = place_unit(s, 0, 0, "warrior", east(city, 1, 3))
    back, tracker = turn(back, tracker)
    now = look(back, tracker, P0)
    assert np.asarray(now["player_cities"]["ownership_map"])[2, 0, r, c] == 2  # in sight again: as it is
    assert float(now["yield_map_players"][r, c, FOOD]) == float(before["yield_map_players"][r, c, FOOD]) + 1


def test_a_rival_city_out_of_sight_shows_what_was_seen(scene):
    s, centre, city = scene
    s, tracker = turn(s, empty_tracker())
    seen = look(s, tracker, P0)["player_cities"]
    assert int(seen["city_ids"][1, 0]) == 1 and int(seen["population"][1, 0]) == 1
    s, tracker = turn(walk_away(s, centre), tracker)
    c = s.cities
    walls = c.buildings.at[1, 0, load_tables().building("walls")].set(True)  # +0.5 hit points, +5
    s = s._replace(cities=c._replace(pop=c.pop.at[1, 0].set(9), hp=c.hp.at[1, 0].set(0.3), buildings=walls))
    s, tracker = turn(s, tracker)
    later = look(s, tracker, P0)["player_cities"]
    assert int(later["population"][1, 0]) == 1  # not 9
    assert float(later["hp"][1, 0]) == float(seen["hp"][1, 0])  # not 0.3
    assert float(later["defense"][1, 0]) == float(seen["defense"][1, 0])  # 9 citizens would add 2
    assert float(later["max_hp"][1, 0]) == float(seen["max_hp"][1, 0]) == 2.0  # the walls unseen
    assert later["city_rowcols"][1, 0].tolist() == [city // 66, city % 66]
    back, tracker = turn(place_unit(s, 0, 0, "warrior", east(city, 2, 3)), tracker)
    now = look(back, tracker, P0)["player_cities"]
    assert int(now["population"][1, 0]) == 9 and float(now["hp"][1, 0]) == pytest.approx(0.3)
    assert float(now["defense"][1, 0]) == float(seen["defense"][1, 0]) + 2 + 5
    assert float(now["max_hp"][1, 0]) == pytest.approx(2.5)  # in sight: a besieger knows its full health


def test_a_city_founded_out_of_sight_stays_unknown(scene):
    s, centre, _ = scene
    s, tracker = turn(s, empty_tracker())
    spot = east(centre, 2, 3)  # seen now, left before the city is founded there
    s, tracker = turn(place_unit(s, 0, 0, "warrior", east(centre, 4)), tracker)
    s = found_city(s, jnp.int32(2), jnp.int32(spot))
    s, tracker = turn(s, tracker)
    o = look(s, tracker, P0)["player_cities"]
    assert int(o["city_ids"][2, 0]) == -1 and int(o["population"][2, 0]) == -1
    r, c = divmod(spot, 66)
    assert int(np.asarray(o["ownership_map"])[2, 0, r, c]) == 0  # the tile as seen: nobody's


def test_have_met_is_sticky_and_covers_city_states(scene):
    s, centre, _ = scene
    s = fog(s)
    assert np.asarray(s.players.have_met[0, :6]).tolist() == [True, True, False, False, False, False]
    s = fog(walk_away(s, centre))
    assert bool(s.players.have_met[0, 1])  # out of sight, still met
    sites = np.asarray(s.layers.cs_sites)
    j = int(np.argmax(distance_np(sites, centre)))  # a city state outside the flattened patch
    assert not s.players.have_met[0, 6 + j]
    s = fog(place_unit(s, 0, 0, "warrior", int(neighbors()[sites[j]][0])))
    assert bool(s.players.have_met[0, 6 + j]) and int(s.layers.cs_owner[sites[j]]) == j + 1
    assert int(s.players.have_met[0, 6:].sum()) >= 1
    o = look(s, remember(empty_tracker(), s), P0)
    assert o["have_met"].shape == (18,) and int(o["have_met"][6 + j]) == 1 and int(o["have_met"][1]) == 1


def test_demographics_rank_what_their_names_say(scene):
    s, _, _ = scene
    c, pl = s.cities, s.players
    exists = c.exists.at[:, 0].set(True)
    yields = jnp.zeros_like(c.yields)
    yields = yields.at[2, 0, FOOD].set(30.0).at[4, 0, FOOD].set(-1.0)
    yields = yields.at[3, 0, PROD].set(25.0).at[5, 0, GOLD].set(12.0).at[1, 0, GOLD].set(-4.0)
    pop = jnp.full_like(c.pop, 2).at[0, 0].set(11).at[3, 0].set(1)
    u = s.units
    kind = u.kind.at[4, 0:3].set(TB.unit("swordsman")).at[1, :].set(0)
    techs = pl.techs.at[5, :10].set(True)
    happy = pl.happiness.at[2].set(20.0).at[0].set(-7.0)
    s = s._replace(
        cities=c._replace(exists=exists, yields=yields, pop=pop),
        units=u._replace(kind=kind),
        players=pl._replace(techs=techs, happiness=happy),
    )
    d = {k: np.asarray(v) for k, v in jax.jit(demographics)(s).items()}
    assert d["crop_yield"][2] == 30 and d["manufactured_goods"][3] == 25 and d["gnp"][5] == 12
    assert d["soldiers"][4] == 3 * TB.unit_strength[TB.unit("swordsman")]
    o = look(fog(s), remember(empty_tracker(), fog(s)), P0)
    expect = {
        "population": (0, 3),
        "crop_yield": (2, 4),
        "manufactured_goods": (3, 0),
        "gnp": (5, 1),
        "soldiers": (4, 1),
        "approval": (2, 0),
        "literacy": (5, 0),
    }
    for name, (most, least) in expect.items():
        assert (int(o[f"most_{name}"]), int(o[f"least_{name}"])) == (most, least), name
    owned = np.bincount(np.asarray(s.tiles.owner)[np.asarray(s.tiles.owner) >= 0], minlength=6)
    assert int(o["most_land"]) == int(np.argmax(owned)) == 1


def test_resources_owned_is_per_city(scene):
    s, centre, _ = scene
    s = found_city(found_city(s, P0, jnp.int32(east(centre, 4, 3))), P0, jnp.int32(east(centre, 2, 4)))
    wine = TB.resource("wine")
    tile = int(neighbors()[east(centre, 4, 3)][3])
    plantation = TB.improvement_names.index("plantation")
    s = s._replace(
        layers=s.layers._replace(resource=s.layers.resource.at[tile].set(wine)),
        tiles=s.tiles._replace(improvement=s.tiles.improvement.at[tile].set(plantation)),
    )
    s = fog(s)
    o = look(s, remember(empty_tracker(), s), P0)["player_cities"]["resources_owned"]
    assert o.shape == (10, 52)
    assert int(o[0, wine - 1]) == 1 and int(o[1, wine - 1]) == 0 and int(o[2:].sum()) == 0
