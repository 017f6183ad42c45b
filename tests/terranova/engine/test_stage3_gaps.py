"""Stage 3's last gaps, with hand-computed values: the Patronage modifiers acting on city states
(Scholasticism's science, Cultural Diplomacy's happiness and military help, Philanthropy's route
influence), the production carry-over, the spies' roll over all 10 city slots, the trade-route
quest counting routes, and the observation fields random play never reaches changing after a step."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from hexarena.games.terranova.contract import compiled
from hexarena.games.terranova.engine.mapgen import generate
from hexarena.games.terranova.engine.observe import empty_tracker
from hexarena.games.terranova.engine.rules.cities import production_phase
from hexarena.games.terranova.engine.rules.citystates import citystate_round, quest_index
from hexarena.games.terranova.engine.rules.cs_relations import relationship_yields
from hexarena.games.terranova.engine.rules.espionage import spy_phase, steal_chance
from hexarena.games.terranova.engine.rules.units import (
    attack_targets,
    capture_city,
    found_city,
    reach_window,
    reachable,
)
from hexarena.games.terranova.engine.spaces import random_actions
from hexarena.games.terranova.engine.state import N_PLAYERS, map_layers
from hexarena.games.terranova.engine.step import city_states_turn, new_game
from hexarena.games.terranova.engine.tables import (
    CULTURE,
    HAPPY,
    N_BUILDABLES,
    SCIENCE,
    citystate_rules,
    load_tables,
)
from hexarena.games.terranova.engine.world import occupancy

from ..tn_helpers import grassland_start, place_unit, with_buildings, with_policies
from .test_combat import east

TB = load_tables()
TYPES = citystate_rules()["types"]
P0 = jnp.int32(0)


@pytest.fixture(scope="module")
def start():
    return new_game(jax.tree_util.tree_map(jnp.asarray, map_layers(generate(0))), jax.random.PRNGKey(0))


def with_cs(s, **fields):
    return s._replace(citystates=s.citystates._replace(**fields))


def two_cities(s, p: int = 0):
    """Player ``p`` with its capital (slot 0) and a second city (slot 1)."""
    s = found_city(s, jnp.int32(p), s.units.pos[p, 0])
    return found_city(s, jnp.int32(p), jnp.int32(int(np.asarray(s.layers.starts)[(p + 1) % N_PLAYERS])))


# 1. The four Patronage columns.


@pytest.fixture(scope="module")
def friends(start):
    """Player 0 (two cities) is a friend of a cultural city state and the ally of a mercantile one."""
    kind = jnp.asarray([TYPES.index("cultural"), TYPES.index("mercantile")] + [0] * 10, jnp.int8)
    rel = jnp.zeros((12, 6), jnp.int8).at[0, 0].set(1).at[1, 0].set(2)
    return with_cs(two_cities(start), kind=kind, relationship=rel)


def test_scholasticism_adds_a_quarter_of_the_relationship_yields_as_science(friends):
    y = np.asarray(jax.jit(relationship_yields)(with_policies(friends, "scholasticism"), P0))
    # x 1.5 (cs_yield_pct 50): capital 2 culture -> 3, happiness 3 + 1 -> 6; science 25 % of 9
    assert y[0, CULTURE] == pytest.approx(3.0) and y[0, HAPPY] == pytest.approx(6.0)
    assert y[0, SCIENCE] == pytest.approx(0.25 * 9)
    # the second city: the ally's 1 happiness x 1.5, and 25 % of it as science
    assert y[1, HAPPY] == pytest.approx(1.5) and y[1, SCIENCE] == pytest.approx(0.375)
    plain = np.asarray(jax.jit(relationship_yields)(friends, P0))
    assert plain[:, SCIENCE].sum() == 0


def test_cultural_diplomacy_raises_the_yields_and_the_happiness_more(friends):
    both = with_policies(friends, "scholasticism", "cultural_diplomacy")
    y = np.asarray(jax.jit(relationship_yields)(both, P0))
    # x (1 + 0.5 + 0.25) as the original's relationship multiplier; happiness x 1.5 on top
    assert y[0, CULTURE] == pytest.approx(2 * 1.75)
    assert y[0, HAPPY] == pytest.approx(4 * 1.75 * 1.5)
    assert y[0, SCIENCE] == pytest.approx(0.25 * (3.5 + 10.5))
    assert y[1, HAPPY] == pytest.approx(1.75 * 1.5) and y[1, SCIENCE] == pytest.approx(0.25 * 2.625)


def test_cultural_diplomacy_doubles_the_militaristic_help(start):
    kind = jnp.full(12, TYPES.index("cultural"), jnp.int8).at[0].set(TYPES.index("militaristic"))
    s = with_cs(start, kind=kind, influence=start.citystates.influence.at[0, 0].set(70.0))
    soldier = int(np.flatnonzero(np.asarray(TB.unit_strength)[np.asarray(s.units.kind[0])] > 0)[0])
    run = jax.jit(citystate_round)
    plain = np.asarray(run(s).citystates.combat_bonus[0])
    helped = np.asarray(run(with_policies(s, "cultural_diplomacy")).citystates.combat_bonus[0])
    # an ally of one militaristic city state: 2 x 2.5 % to its one soldier; x 2 with the policy
    assert plain[soldier] == pytest.approx(0.05) and helped[soldier] == pytest.approx(0.10)
    assert plain.sum() == pytest.approx(0.05) and helped.sum() == pytest.approx(0.10)


def test_philanthropy_adds_a_quarter_to_the_influence_routes_send(start):
    s = with_cs(start, influence=start.citystates.influence.at[3, 3].set(10.0))
    trade = jnp.zeros((6, 12)).at[3, 3].set(1.5)
    run = jax.jit(citystate_round)
    assert float(run(s, trade).citystates.influence[3, 3]) == pytest.approx(10 + 1.5 - 1)
    giver = with_policies(s, "philanthropy", p=3)
    # 1.5 x 1.25 in, 1 x 0.75 decay out
    assert float(run(giver, trade).citystates.influence[3, 3]) == pytest.approx(10 + 1.875 - 0.75)


# 2. The production carry-over.


def test_the_production_beyond_the_cost_carries_over_and_is_observed(start):
    s = found_city(start, P0, start.units.pos[0, 0])
    monument = TB.building("monument")
    cost = float(TB.building_cost[monument])
    c = s.cities
    s = s._replace(
        cities=c._replace(
            prod=c.prod.at[0, 0].set(cost + 4.0),
            constructing=c.constructing.at[0, 0].set(monument),
            buildings=c.buildings.at[0, 0, monument].set(False),
        )
    )
    scores = jnp.zeros((10, N_BUILDABLES))
    out = jax.jit(production_phase)(s, P0, scores, jnp.zeros(10), jnp.zeros(10))[0]
    assert bool(out.cities.buildings[0, 0, monument])
    assert float(out.cities.prod[0, 0]) == pytest.approx(4.0 * TB.rules["prod_carryover"])
    obs = compiled.view(out, empty_tracker(), 0)[0]["player_cities"]["prod_carryover"]
    assert np.asarray(obs).tolist() == [1.0] + [0.0] * 9  # the share carried, in each city that exists


# 3. Spies.


def test_the_steal_roll_averages_the_defence_over_all_ten_city_slots(start):
    era4 = TB.tech_names[int(np.flatnonzero(TB.tech_era == 4)[0])]
    s = start._replace(
        players=start.players._replace(
            techs=start.players.techs.at[0, TB.tech(era4)].set(True).at[1].set(True)  # 1 knows all
        )
    )
    s = two_cities(s, p=1)
    s = found_city(s, jnp.int32(1), jnp.int32(int(np.asarray(s.layers.starts)[3])))
    s = with_buildings(s, "constabulary", p=1, city=0)
    s = with_buildings(s, "constabulary", "police_station", p=1, city=2)
    target, chance = jax.jit(steal_chance)(s, P0)
    # industrial era: 2 spies, min(2, 3 cities) tries; defence 25 + 0 + 50 over 10 slots = 7.5 %
    expected = 2 * (1 - 0.075) / 30
    assert int(target) == 1 and float(chance) == pytest.approx(expected)
    # the roll: uniform < chance, one free tech each time it lands
    keys = jax.random.split(jax.random.PRNGKey(7), 4000)
    thefts = jax.jit(jax.vmap(lambda k: spy_phase(s._replace(key=k), P0).players.free_techs[0]))(keys)
    draws = jax.vmap(lambda k: jax.random.uniform(jax.random.fold_in(k, 16)))(keys)
    assert np.array_equal(np.asarray(thefts), np.asarray(draws < expected).astype(np.int32))
    assert abs(int(thefts.sum()) - 4000 * expected) < 4 * np.sqrt(4000 * expected)  # 245.3 +- 62


# 4. The trade-route quest counts routes.


def test_the_trade_route_quest_counts_routes_every_round(start):
    caravan = TB.unit("caravan")
    u, tr = start.units, start.trade
    kind, to = u.kind, tr.route_to_player
    for p, n in ((1, 3), (4, 1)):  # player 1 runs 3 routes to city state 2, player 4 one
        kind = kind.at[p, 20 : 20 + n].set(caravan)
        to = to.at[p, 20 : 20 + n].set(N_PLAYERS + 2)
    met = start.players.have_met.at[1, N_PLAYERS + 2].set(True).at[4, N_PLAYERS + 2].set(True)
    quest = start.citystates.quest.at[2].set(quest_index("trade_routes"))
    s = start._replace(
        units=u._replace(kind=kind),
        trade=tr._replace(route_to_player=to),
        players=start.players._replace(have_met=met),
    )
    s = with_cs(s, quest=quest, trade_tracker=start.citystates.trade_tracker.at[4, 2].set(1))
    run = jax.jit(city_states_turn)
    mid = run(s._replace(turn=jnp.int32(10)))
    assert int(mid.citystates.trade_tracker[1, 2]) == 3 and int(mid.citystates.trade_tracker[4, 2]) == 2
    # the quest ends after round 29: 3 routes beat 1 + 1 (counting rounds, player 4 would win 2 to 1)
    end = run(s._replace(turn=jnp.int32(29)))
    assert float(end.citystates.influence[2, 1]) == pytest.approx(30.0)
    assert float(end.citystates.influence[2, 4]) == 0.0


# 5. Roads beyond 10 tiles.


@pytest.fixture(scope="module")
def long_road():
    """A bare grassland of radius 16 round player 0's start with a road 16 tiles east."""
    s, centre = grassland_start(seed=1, radius=16)
    path = east(centre, 16)
    return s._replace(tiles=s.tiles._replace(road=s.tiles.road.at[jnp.asarray(path)].set(True))), path


@pytest.mark.parametrize(("unit", "far"), [("horseman", 12), ("tank", 12)])
def test_roads_carry_a_fast_unit_past_ten_tiles(long_road, unit, far):
    s, path = long_road
    s = place_unit(s, 0, 0, unit, path[0])
    s = s._replace(
        units=s.units._replace(moves=s.units.moves.at[0, 0].set(float(TB.unit_moves[TB.unit(unit)])))
    )
    reach = np.asarray(jax.jit(reachable)(s, P0, P0, occupancy(s)))
    # 4 moves x 3 road tiles = 12 (the window's edge too); the tank's 5 moves would carry it 15 but
    # the search ends 12 tiles out (units.reach_window says why)
    assert reach[path[far]] and not reach[path[far + 1]]
    assert reach[path[0]]  # its own tile: a move there holds it (the original's move map)


def test_a_land_unit_without_sailing_does_not_strike_an_embarked_one(long_road):
    s, path = long_road
    water = path[1]
    s = s._replace(layers=s.layers._replace(elevation=s.layers.elevation.at[water].set(0)))
    s = place_unit(place_unit(s, 0, 0, "warrior", path[0]), 1, 0, "worker", water)
    s = s._replace(
        units=s.units._replace(moves=s.units.moves.at[0, 0].set(1.0)),
        players=s.players._replace(
            techs=s.players.techs.at[1, TB.tech("sailing")].set(True),
            at_war=s.players.at_war.at[0, 1].set(True).at[1, 0].set(True),
        ),
    )

    @jax.jit
    def targets(s):
        occ = occupancy(s)
        return attack_targets(s, P0, P0, reach_window(s, P0, P0, occ), occ)

    assert not bool(targets(s)[water])  # it would capture the worker and advance onto the water
    sails = s._replace(players=s.players._replace(techs=s.players.techs.at[0, TB.tech("sailing")].set(True)))
    assert bool(targets(sails)[water])


def test_a_taken_city_keeps_its_followers_and_the_pressure_on_it(start):
    s = found_city(found_city(start, P0, start.units.pos[0, 0]), jnp.int32(1), start.units.pos[1, 0])
    rel = s.religion
    s = s._replace(
        religion=rel._replace(
            followers=rel.followers.at[1, 0, 2].set(3),
            pressure=rel.pressure.at[2, 0, 1, 0].set(40.0).at[1, 0, 0, 0].set(25.0),
            cs_pressure=rel.cs_pressure.at[1, 0, 5].set(10.0),
        )
    )
    out = jax.jit(capture_city)(s, P0, jnp.int32(1), P0, jnp.bool_(True)).religion
    assert int(out.followers[0, 1, 2]) == 3 and int(out.followers[1].sum()) == 0  # moved to slot 1
    assert float(out.pressure[2, 0, 0, 1]) == 40.0 and float(out.pressure[:, :, 1].sum()) == 0
    assert float(out.pressure[1].sum()) == 0 and float(out.cs_pressure[1].sum()) == 0  # it sends nothing


# 6. Fields random play never reaches, after one step from a constructed state.


def leaves(obs) -> dict[str, np.ndarray]:
    return {jax.tree_util.keystr(k): np.asarray(v) for k, v in jax.tree_util.tree_flatten_with_path(obs)[0]}


def test_the_fields_random_play_never_reaches_change(start):
    from .test_live_fields import CONSTRUCTED_LIVE

    s = two_cities(start)
    tree = np.asarray(TB.policy_tree_onehot).argmax(1)
    honor = [n for i, n in enumerate(TB.policy_names) if tree[i] == tree[TB.policy("honor_opener")]]
    s = with_policies(s, "patronage_opener", *honor)  # a resting influence; the Honor finisher
    s = with_buildings(s, "windmill", "amphitheater")  # specialist slots; a writing slot
    g, pl = s.great, s.players
    s = s._replace(
        great=g._replace(works=g.works.at[0, 0, 0].set(1)),
        players=pl._replace(has_sacked=pl.has_sacked.at[0, 3].set(True)),
        citystates=s.citystates._replace(influence=s.citystates.influence.at[4, 0].set(70.0)),
        player=jnp.int32(5),  # the last player moves: the city states' round follows (an ally at 60)
    )
    before = compiled.view(start, empty_tracker(), 0)[0]
    out = compiled.step(s, empty_tracker(), random_actions(jax.random.PRNGKey(0), ()))
    after = compiled.view(out[0], out[1], 0)[0]
    flat_before, flat_after = leaves(before), leaves(after)
    assert set(flat_after) >= CONSTRUCTED_LIVE
    same = [name for name in CONSTRUCTED_LIVE if np.array_equal(flat_before[name], flat_after[name])]
    assert not same, f"unchanged: {same}"
    assert flat_after["['citystate_info']['relationships']"][4] == 0  # player 0 is city state 4's ally
