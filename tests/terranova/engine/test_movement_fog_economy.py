"""Movement costs, fog of war, borders, ranged combat and captures, healing, roads and gold,
happiness and domination."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from hexarena.games.terranova.engine import formulas
from hexarena.games.terranova.engine.geometry import distance_np, neighbors, work_area
from hexarena.games.terranova.engine.mapgen import generate
from hexarena.games.terranova.engine.rules.cities import production_phase
from hexarena.games.terranova.engine.rules.units import found_city, heal_units, reachable, unit_phase
from hexarena.games.terranova.engine.state import map_layers
from hexarena.games.terranova.engine.step import (
    connected_to_capital,
    domination_winner,
    empire_phase,
    new_game,
    road_gold,
    update_fog,
)
from hexarena.games.terranova.engine.tables import GRANTS, N_BUILDABLES, load_tables
from hexarena.games.terranova.engine.world import occupancy

from ..tn_helpers import attack_scores, clear_units, flatten, place_unit

TB = load_tables()
P0 = jnp.int32(0)


@pytest.fixture(scope="module")
def arena():
    """Player 0's warrior alone on a patch of grassland of radius 5."""
    m = generate(1)
    s = new_game(jax.tree_util.tree_map(jnp.asarray, map_layers(m)), jax.random.PRNGKey(0))
    centre = int(m.starts[0])
    patch = np.flatnonzero(distance_np(np.arange(2772), centre) <= 5)
    s = place_unit(clear_units(flatten(s, patch)), 0, 0, "warrior", centre)
    return s, centre


@jax.jit
def _reach(s):
    return reachable(s, P0, jnp.int32(0), occupancy(s))


def _ring(centre: int, k: int) -> set[int]:
    return set(np.flatnonzero(distance_np(np.arange(2772), centre) == k).tolist())


def test_open_ground_two_moves(arena):
    s, centre = arena
    reach = set(np.flatnonzero(np.asarray(_reach(s))).tolist())
    assert reach == _ring(centre, 0) | _ring(centre, 1) | _ring(centre, 2)  # its own tile: a stay


def test_hills_cost_all_moves_and_mountains_block(arena):
    s, centre = arena
    ring1 = [int(t) for t in neighbors()[centre]]
    elev = s.layers.elevation.at[jnp.asarray(ring1)].set(2).at[ring1[0]].set(3)
    reach = set(
        np.flatnonzero(np.asarray(_reach(s._replace(layers=s.layers._replace(elevation=elev))))).tolist()
    )
    assert reach == {centre, *ring1[1:]}  # a hill takes both moves; the mountain is out of bounds


def test_roads_cost_a_third(arena):
    s, centre = arena
    path = [centre]
    for _ in range(4):
        path.append(int(neighbors()[path[-1]][0]))  # due east
    road = s.tiles.road.at[jnp.asarray(path)].set(True)
    reach = np.asarray(_reach(s._replace(tiles=s.tiles._replace(road=road))))
    assert reach[path[3]] and reach[path[4]]  # 4 road steps cost 4/3 <= 2 moves
    assert not np.asarray(_reach(s))[path[3]]  # three steps of open ground are too far


def _move_to(target: int):
    types = jnp.full((30, 19), -1.0).at[:, 0].set(1.0)  # category 0: move
    return types, jnp.zeros((30, 2772)).at[:, target].set(1.0)


def test_a_unit_holds_its_tile_by_moving_onto_it_or_onto_its_own_units_tile(arena):
    """The original's move map starts on the unit's own tile, and a move onto a tile one of its
    own units of the same class holds is blocked: either way the unit stays where it stood. A
    tile its own unit of the other class holds it enters (one military and one civilian a tile)."""
    s, centre = arena
    east = int(neighbors()[centre][0])
    east2 = int(neighbors()[east][0])
    held = place_unit(s, 0, 1, "warrior", east)
    _, _, tgts = jax.jit(unit_phase)(held, P0, *_move_to(centre))
    assert int(tgts[0]) == centre  # the move was to its own tile, and it was legal
    out, cats, tgts = jax.jit(unit_phase)(held, P0, *_move_to(east))
    assert int(cats[0]) == 0 and int(tgts[0]) == east  # the move onto its own warrior is legal ...
    assert int(out.units.pos[0, 0]) == centre and int(out.units.pos[0, 1]) == east  # ... and blocked
    worker = place_unit(s, 0, 1, "worker", east2)
    out, _, _ = jax.jit(unit_phase)(worker, P0, *_move_to(east2))
    assert int(out.units.pos[0, 0]) == east2  # a civilian's tile does not block a warrior


def test_water_needs_sailing(arena):
    s, centre = arena
    wet = int(neighbors()[centre][2])
    lay = s.layers._replace(
        elevation=s.layers.elevation.at[wet].set(0), terrain=s.layers.terrain.at[wet].set(0)
    )
    dry = s._replace(layers=lay)
    assert not bool(_reach(dry)[wet])
    techs = dry.players.techs.at[0, TB.tech("sailing")].set(True)
    assert bool(_reach(dry._replace(players=dry.players._replace(techs=techs)))[wet])


def test_fog_sees_two_tiles_and_remembers(arena):
    s, centre = arena
    fog = jax.jit(update_fog)(s)
    vis = np.asarray(fog.tiles.visibility[0])
    assert set(np.flatnonzero(vis == 2).tolist()) == _ring(centre, 0) | _ring(centre, 1) | _ring(centre, 2)
    moved = place_unit(fog, 0, 0, "warrior", int(neighbors()[neighbors()[neighbors()[centre][0]][0]][0]))
    later = np.asarray(jax.jit(update_fog)(moved).tiles.visibility[0])
    assert later[int(neighbors()[centre][3])] == 1  # seen before, out of sight now
    assert ((vis == 0) | (later > 0)).all()


def test_border_grows_by_one_adjacent_tile(arena):
    s, centre = arena
    s = found_city(s, P0, jnp.int32(centre))
    cost = float(formulas.border_cost(np.array(6)))  # the first ring owned
    s = s._replace(cities=s.cities._replace(culture=s.cities.culture.at[0, 0].set(cost + 0.5)))
    out, _, _, _ = jax.jit(production_phase)(
        s, P0, jnp.zeros((10, N_BUILDABLES)), jnp.zeros(10), jnp.zeros(10)
    )
    before, after = np.asarray(s.tiles.owner) == 0, np.asarray(out.tiles.owner) == 0
    new = np.flatnonzero(after & ~before)
    assert len(new) == 1 and distance_np(new[0], centre) == 2
    assert float(out.cities.culture[0, 0]) == pytest.approx(0.5, abs=1e-4)
    assert int(out.cities.tiles_claimed[0, 0]) == 1


def test_ranged_attack_costs_the_archer_nothing(arena):
    s, centre = arena
    target = int(work_area()[centre, 7])  # ring 2
    s = place_unit(place_unit(s, 0, 0, "archer", centre), 1, 0, "warrior", target)
    out, cats, _ = jax.jit(unit_phase)(s, P0, *attack_scores(target))
    d, _ = formulas.combat_damage(np.array(7.0), np.array(8.0), np.array(True))
    assert int(cats[0]) == 18
    assert float(out.units.hp[1, 0]) == pytest.approx(1 - d) and float(out.units.hp[0, 0]) == 1.0
    assert int(out.units.pos[0, 0]) == centre  # ranged units stay put


def test_healing_skips_units_that_fought(arena):
    s, _ = arena
    u = s.units
    s = s._replace(units=u._replace(hp=u.hp.at[0, 0].set(0.5).at[0, 1].set(0.5), kind=u.kind.at[0, 1].set(2)))
    s = s._replace(units=s.units._replace(fought=s.units.fought.at[0, 1].set(True)))
    out = jax.jit(heal_units)(s, P0)
    assert float(out.units.hp[0, 0]) == pytest.approx(0.5 + TB.rules["heal_per_turn"])
    assert float(out.units.hp[0, 1]) == pytest.approx(0.5)


def test_happiness_counts_unique_luxuries(arena):
    s, centre = arena
    s = found_city(s, P0, jnp.int32(centre))
    s = s._replace(cities=s.cities._replace(pop=s.cities.pop.at[0, 0].set(3)))
    wine = TB.resource("wine")
    tiles = [int(t) for t in neighbors()[centre][:2]]
    plantation = TB.improvement_names.index("plantation")
    lay = s.layers._replace(resource=s.layers.resource.at[jnp.asarray(tiles)].set(wine))
    tl = s.tiles._replace(improvement=s.tiles.improvement.at[jnp.asarray(tiles)].set(plantation))
    out = jax.jit(empire_phase)(s._replace(layers=lay, tiles=tl), P0, jnp.zeros(8), jnp.zeros(len(GRANTS)))
    # 8 base + 4 for one kind of luxury (two wine tiles count once) - 1 per citizen; the first city is free
    assert float(out.players.happiness[0]) == pytest.approx(8 + 4 - 3)


def test_domination_needs_every_rival_capital(arena):
    s, _ = arena
    pl = s.players._replace(ever_settled=s.players.ever_settled.at[0].set(True))
    u = s.units._replace(kind=s.units.kind.at[:, 0].set(2))
    s = s._replace(players=pl, units=u)
    assert int(domination_winner(s)) == -1
    sacked = pl.has_sacked.at[0, 1:].set(True)
    assert int(domination_winner(s._replace(players=pl._replace(has_sacked=sacked)))) == 0
    almost = pl.has_sacked.at[0, 1:5].set(True)
    assert int(domination_winner(s._replace(players=pl._replace(has_sacked=almost)))) == -1


def test_melee_captures_a_lone_civilian(arena):
    s, centre = arena
    target = int(neighbors()[centre][0])
    s = place_unit(s, 1, 0, "settler", target)
    out, cats, _ = jax.jit(unit_phase)(s, P0, *attack_scores(target))
    assert int(cats[0]) == 18 and int(out.units.kind[1, 0]) == 0
    mine = np.asarray(out.units.kind[0])
    assert (mine == TB.unit("worker")).sum() == 1
    worker = int(np.flatnonzero(mine == TB.unit("worker"))[0])
    assert int(out.units.pos[0, worker]) == target and int(out.units.pos[0, 0]) == target


def test_ranged_units_do_not_shoot_lone_civilians(arena):
    s, centre = arena
    target = int(work_area()[centre, 7])
    s = place_unit(place_unit(s, 0, 0, "archer", centre), 1, 0, "worker", target)
    _, cats, _ = jax.jit(unit_phase)(s, P0, *attack_scores(target))
    assert int(cats[0]) != 18


def test_roads_join_cities_to_the_capital(arena):
    s, centre = arena
    path = [centre]
    for _ in range(4):
        path.append(int(neighbors()[path[-1]][0]))
    s = found_city(found_city(s, P0, jnp.int32(centre)), P0, jnp.int32(path[4]))
    gold = jax.jit(road_gold)
    joined = s._replace(tiles=s.tiles._replace(road=s.tiles.road.at[jnp.asarray(path)].set(True)))
    assert np.asarray(jax.jit(connected_to_capital)(joined, P0)).tolist()[:2] == [False, True]
    owned_roads = int((np.asarray(joined.tiles.owner)[path[1:4]] == 0).sum())
    income = float(formulas.connection_gold(np.array(1), np.array(1)))
    assert income == pytest.approx(1.1 + 0.15 - 1)
    assert float(gold(joined, P0)) == pytest.approx(income - owned_roads)
    broken = joined._replace(tiles=joined.tiles._replace(road=joined.tiles.road.at[path[2]].set(False)))
    assert not bool(jax.jit(connected_to_capital)(broken, P0)[1])


def test_rivers_and_shores_take_every_move(arena):
    s, centre = arena
    east = int(neighbors()[centre][0])
    # a river on the edge between the centre and its eastern neighbour (bit 0 there, bit 3 beyond)
    river = s.layers.river.at[centre].set(1).at[east].set(8)
    wet = s._replace(layers=s.layers._replace(river=river))
    reach = np.asarray(_reach(wet))
    assert reach[east] and not reach[int(neighbors()[east][0])]  # across the river the move ends
    assert reach[int(neighbors()[neighbors()[centre][1]][0])]  # around it, two steps still work
    sea = int(neighbors()[centre][2])
    lay = s.layers._replace(
        elevation=s.layers.elevation.at[sea].set(0), terrain=s.layers.terrain.at[sea].set(0)
    )
    techs = s.players.techs.at[0, TB.tech("sailing")].set(True)
    boat = s._replace(layers=lay, players=s.players._replace(techs=techs))
    assert bool(_reach(boat)[sea])  # embarking is allowed after Sailing


def test_borders_are_closed_until_war_and_entering_declares_it(arena):
    s, centre = arena
    east = int(neighbors()[centre][0])
    theirs = s._replace(tiles=s.tiles._replace(owner=s.tiles.owner.at[east].set(1)))
    assert not bool(_reach(theirs)[east])
    out, cats, tgts = jax.jit(unit_phase)(theirs, P0, *attack_scores(east))
    assert int(cats[0]) == 18 and int(tgts[0]) == east
    assert bool(out.players.at_war[0, 1]) and bool(out.players.at_war[1, 0])
    assert int(out.units.pos[0, 0]) == east and float(out.units.hp[0, 0]) == 1.0
    at_war = theirs._replace(players=out.players)
    assert bool(_reach(at_war)[east])


def test_ranged_attacks_never_take_a_city(arena):
    s, centre = arena
    target = int(work_area()[centre, 7])
    s = found_city(place_unit(s, 0, 0, "archer", centre), jnp.int32(1), jnp.int32(target))
    s = s._replace(cities=s.cities._replace(hp=s.cities.hp.at[1, 0].set(0.05)))
    out, cats, _ = jax.jit(unit_phase)(s, P0, *attack_scores(target))
    assert int(cats[0]) == 18 and bool(out.cities.exists[1, 0])
    assert float(out.cities.hp[1, 0]) == pytest.approx(0.01)
