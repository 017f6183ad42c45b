"""Spies (count by era, the tech-steal chance and roll) and the World Congress (formation,
sessions every 30 rounds, delegates), with hand-computed values."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from hexarena.games.terranova.engine.mapgen import generate
from hexarena.games.terranova.engine.rules.espionage import spy_count, spy_phase, steal_chance
from hexarena.games.terranova.engine.rules.units import found_city
from hexarena.games.terranova.engine.rules.victory import (
    congress_formed,
    congress_session,
    delegates,
    diplomatic_votes,
)
from hexarena.games.terranova.engine.state import map_layers
from hexarena.games.terranova.engine.step import new_game
from hexarena.games.terranova.engine.tables import load_tables

TB = load_tables()
ERA_TECH = {era: TB.tech_names[int(np.flatnonzero(TB.tech_era == era)[0])] for era in range(8)}


@pytest.fixture(scope="module")
def start():
    return new_game(jax.tree_util.tree_map(jnp.asarray, map_layers(generate(0))), jax.random.PRNGKey(0))


def learn(s, player: int, *names: str):
    techs = s.players.techs
    for name in names:
        techs = techs.at[player, TB.tech(name)].set(True)
    return s._replace(players=s.players._replace(techs=techs))


def build(s, player: int, city: int, *names: str):
    b = s.cities.buildings
    for name in names:
        b = b.at[player, city, TB.building(name)].set(True)
    return s._replace(cities=s.cities._replace(buildings=b))


def spy_scene(start):
    """Player 0 in the Renaissance (2 techs); player 1 knows 5 techs and has 2 cities, one with a
    Constabulary."""
    s = learn(start, 0, ERA_TECH[3])
    s = learn(s, 1, "pottery", "mining", "writing", "sailing")
    s = found_city(s, jnp.int32(1), s.units.pos[1, 0])
    s = found_city(s, jnp.int32(1), jnp.int32(int(np.asarray(s.layers.starts)[2])))
    return build(s, 1, 1, "constabulary")


def test_spies_by_era_and_the_intelligence_agency(start):
    count = jax.jit(spy_count)
    assert [int(count(learn(start, 0, ERA_TECH[e]), jnp.int32(0))) for e in range(8)] == [
        0,
        0,
        0,
        1,
        2,
        3,
        4,
        5,
    ]
    s = found_city(learn(start, 0, ERA_TECH[3]), jnp.int32(0), start.units.pos[0, 0])
    assert int(count(build(s, 0, 0, "intelligence_agency"), jnp.int32(0))) == 2


def test_steal_chance_by_hand(start):
    s = spy_scene(start)
    chance = jax.jit(steal_chance)
    target, c = chance(s, jnp.int32(0))
    # 1 spy, min(1, 2 cities) tries, weakness 1 - 0.25 / 10 slots = 0.975, 1 in 30
    assert int(target) == 1 and float(c) == pytest.approx(0.975 / 30)
    s2 = found_city(s, jnp.int32(0), s.units.pos[0, 0])
    s2 = build(s2, 0, 0, "intelligence_agency")
    assert float(chance(s2, jnp.int32(0))[1]) == pytest.approx(2 * 0.975 / 30)
    both = build(s, 1, 0, "constabulary", "police_station")  # 50 % and 25 % defence
    assert float(chance(both, jnp.int32(0))[1]) == pytest.approx((1 - 0.75 / 10) / 30)
    assert float(chance(s, jnp.int32(1))[1]) == 0  # nobody knows more than the leader
    assert float(chance(start, jnp.int32(0))[1]) == 0  # no spies before the Renaissance


def test_a_successful_roll_is_a_free_tech(start):
    s = found_city(spy_scene(start), jnp.int32(0), start.units.pos[0, 0])
    s = build(learn(s, 0, ERA_TECH[7]), 0, 0, "intelligence_agency")  # 6 spies, 2 tries: 1.95 / 30
    phase = jax.jit(spy_phase)
    thefts = sum(
        int(phase(s._replace(key=jax.random.PRNGKey(i)), jnp.int32(0)).players.free_techs[0])
        for i in range(300)
    )
    assert 5 <= thefts <= 35  # 300 x 0.065 = 19.5 expected
    s1 = s._replace(key=jax.random.PRNGKey(0))
    assert int(phase(s1, jnp.int32(1)).players.free_techs.sum()) == 0


def test_delegates_from_the_forbidden_palace_and_consulates(start):
    s = found_city(start, jnp.int32(0), start.units.pos[0, 0])
    s = build(s, 0, 0, "forbidden_palace")
    pol = s.players.policies.at[0, TB.policy("consulates")].set(True).at[2, TB.policy("consulates")].set(True)
    s = s._replace(players=s.players._replace(policies=pol))
    assert np.asarray(delegates(s)).tolist() == [3, 0, 1, 0, 0, 0]
    allies = s.citystates.relationship.at[:4, 2].set(2).at[5, 2].set(1)
    s = s._replace(citystates=s.citystates._replace(relationship=allies))
    assert np.asarray(diplomatic_votes(s)).tolist() == [3, 0, 5, 0, 0, 0]


def sees_everyone(s, player: int):
    return s._replace(
        tiles=s.tiles._replace(visibility=s.tiles.visibility.at[player].set(2)),
        players=s.players._replace(have_met=s.players.have_met.at[player].set(True)),
    )


def test_congress_forms_with_printing_press_and_everyone_met(start):
    formed = jax.jit(congress_formed)
    assert not bool(formed(start))
    assert not bool(formed(learn(start, 0, "printing_press")))  # has not met everyone
    assert not bool(formed(sees_everyone(start, 0)))  # no Printing Press
    assert not bool(formed(learn(sees_everyone(start, 0), 1, "printing_press")))  # not the same player
    assert bool(formed(learn(sees_everyone(start, 0), 0, "printing_press")))


def test_sessions_every_30_rounds(start):
    s = learn(sees_everyone(start, 3), 3, "printing_press")
    session = jax.jit(congress_session)
    met = {r: bool(session(s._replace(turn=jnp.int32(r)))) for r in (0, 28, 29, 30, 59, 89, 90)}
    assert met == {0: False, 28: False, 29: True, 30: False, 59: True, 89: True, 90: False}
    assert not bool(session(start._replace(turn=jnp.int32(29))))
