"""Stage 2's buildings and wonders: the 148 rows, their yields and prerequisites as data, wonder
exclusivity, one-time grants, happiness and golden ages (hand-made positions)."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from hexarena.games.terranova.engine.geometry import distance_np, work_area
from hexarena.games.terranova.engine.mapgen import generate
from hexarena.games.terranova.engine.observe import building_tile_bonus
from hexarena.games.terranova.engine.rules.cities import build_mask, city_yields, production_phase
from hexarena.games.terranova.engine.rules.units import found_city
from hexarena.games.terranova.engine.step import choose_research
from hexarena.games.terranova.engine.tables import (
    BUILDING_CATEGORIES,
    BUILDING_SLOTS,
    CULTURE,
    FOOD,
    GOLD,
    GRANTS,
    MODIFIERS,
    N_BUILDABLES,
    PROD,
    load_tables,
)
from hexarena.games.terranova.engine.world import tile_class_parts

from ..tn_helpers import bare_capital, grassland_start, with_buildings

TB = load_tables()
P0, P1 = jnp.int32(0), jnp.int32(1)
ZERO_CITIZENS = jnp.zeros((10, 36, 36))


@pytest.fixture(scope="module")
def city():
    """Player 0's capital (palace removed) of 3 citizens on bare grassland without rivers, all techs."""
    s, centre = grassland_start()
    s = found_city(s, P0, jnp.int32(centre))
    c, pl = s.cities, s.players
    s = s._replace(
        cities=c._replace(buildings=c.buildings.at[0, 0].set(False), pop=c.pop.at[0, 0].set(3)),
        players=pl._replace(techs=pl.techs.at[0].set(True)),
    )
    return s, centre


def _with(s, *names: str, slot: int = 0, p: int = 0):
    b = s.cities.buildings
    for n in names:
        b = b.at[p, slot, TB.building(n)].set(True)
    return s._replace(cities=s.cities._replace(buildings=b))


_yields = jax.jit(lambda s: city_yields(s, P0, ZERO_CITIZENS).yields[0])


def test_the_148_buildings_by_kind():
    counts = {k: int((TB.building_category == i).sum()) for i, k in enumerate(BUILDING_CATEGORIES)}
    assert counts == {
        "regular": 30,
        "military": 5,
        "religious": 12,
        "culture": 17,
        "economic": 6,
        "sea": 3,
        "science": 6,
        "national_wonder": 11,
        "world_wonder": 51,
        "spaceship": 7,
    }
    assert TB.building_exists.all() and len(set(TB.building_names)) == BUILDING_SLOTS
    assert (TB.building_tech.sum(1) == 1).all()  # every building names its technology
    assert (TB.building_kind == 1).sum() == 51 and (TB.building_kind == 2).sum() == 11
    # Faith-only buildings (cathedral, ...) and the palace are never built with production.
    assert not TB.buildable[TB.building("palace")] and not TB.buildable[TB.building("cathedral")]
    assert TB.buildable.sum() == 132


@pytest.mark.parametrize("name", [n for n in TB.building_names if n != "palace"])
def test_building_yields_present_iff_built(city, name):
    """Flat, per-citizen and percent yields of every building and of the specialists in its slots,
    hand-computed from its row."""
    s, _ = city
    base = np.asarray(_yields(s))
    got = np.asarray(_yields(_with(s, name)))
    b = TB.building(name)
    pct = TB.building_percent[b].copy()
    pct[CULTURE] += TB.building_empire_mods[b, MODIFIERS.index("culture_pct_all_cities")]
    flat = TB.building_yields[b] + TB.building_specialists[b] @ TB.specialist_yields
    want = (base + flat + 3 * TB.building_per_pop[b]) * (1 + pct / 100.0)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_granary_adds_food_on_worked_wheat(city):
    s, centre = city
    tile = int(work_area()[centre, 1])
    s = s._replace(layers=s.layers._replace(resource=s.layers.resource.at[tile].set(TB.resource("wheat"))))
    citizens = ZERO_CITIZENS.at[0, :, 0].set(1.0)  # every citizen on slot 0 (the wheat tile)
    run = jax.jit(lambda s: city_yields(s, P0, citizens).yields[0])
    base = np.asarray(run(s))
    got = np.asarray(run(_with(s, "granary")))
    assert got[FOOD] == pytest.approx(base[FOOD] + 2 + 1)  # +2 in the city, +1 on the wheat tile


def test_prerequisites_are_masks(city):
    s, _ = city
    mask = jax.jit(lambda s: build_mask(s, P0, jnp.int32(0), jnp.zeros(148, bool), jnp.zeros(4, jnp.int32)))
    m = np.asarray(mask(s))
    assert not m[TB.building("pyramids")]  # needs Liberty's opener
    assert not m[TB.building("stable")]  # needs horses, sheep or cattle
    assert not m[TB.building("lighthouse")]  # needs the coast
    assert not m[TB.building("garden")]  # needs fresh water
    assert not m[TB.building("temple")] and m[TB.building("shrine")]
    assert not m[TB.building("grand_temple")]  # holy cities come with religions
    pl = s.players
    opened = s._replace(
        players=pl._replace(policies=pl.policies.at[0, TB.policy("liberty_opener")].set(True))
    )
    assert np.asarray(mask(opened))[TB.building("pyramids")]
    assert np.asarray(mask(_with(s, "shrine")))[TB.building("temple")]


def _complete(s, name: str, p=P0):
    scores = jnp.zeros((10, N_BUILDABLES)).at[:, TB.building(name)].set(1.0)
    pl = s.players
    s = s._replace(players=pl._replace(policies=pl.policies.at[p].set(True)))
    return jax.jit(production_phase)(s, p, scores, jnp.full(10, 5000.0), jnp.zeros(10))


def test_world_wonder_cancelled_elsewhere_production_kept(city):
    s, _ = city
    m = generate(1)
    s = found_city(s, P1, jnp.int32(m.starts[1]))
    c = s.cities
    pyramids = TB.building("pyramids")
    s = s._replace(
        cities=c._replace(
            constructing=c.constructing.at[1, 0].set(pyramids),
            prod=c.prod.at[1, 0].set(50.0),
            buildings=c.buildings.at[0, 0, pyramids].set(True),
        )
    )
    pl = s.players
    s = s._replace(players=pl._replace(techs=pl.techs.at[1].set(True), policies=pl.policies.at[1].set(True)))
    colosseum = TB.building("colosseum")
    scores = jnp.zeros((10, N_BUILDABLES)).at[:, pyramids].set(9.0).at[:, colosseum].set(5.0)
    out, chosen, _, _ = jax.jit(production_phase)(s, P1, scores, jnp.zeros(10), jnp.zeros(10))
    assert not bool(out.cities.buildings[1, 0, pyramids]) and int(chosen[0]) == colosseum
    assert int(out.cities.constructing[1, 0]) == colosseum
    assert float(out.cities.prod[1, 0]) == pytest.approx(50.0)  # the wonder's production carries over


@pytest.mark.parametrize(
    ("wonder", "grant", "amount"),
    [
        ("oracle", "free_policies", 1),
        ("great_library", "free_techs", 1),
        ("oxford_university", "free_techs", 1),
        ("taj_mahal", "golden_age", 1),
        ("statue_of_liberty", "population", 6),
        ("louvre", "great_person_artist", 1),
        ("hagia_sophia", "great_person_prophet", 1),
    ],
)
def test_wonder_grants(city, wonder, grant, amount):
    s, _ = city
    out, chosen, _, grants = _complete(s, wonder)
    assert int(chosen[0]) == TB.building(wonder) and bool(out.cities.buildings[0, 0, TB.building(wonder)])
    assert float(grants[GRANTS.index(grant)]) == amount
    if grant == "population":
        assert int(out.cities.pop[0, 0]) == 3 + 6


def test_free_buildings(city):
    s, centre = city
    second = int(np.flatnonzero(distance_np(np.arange(2772), centre) == 5)[0])
    s = found_city(s, P0, jnp.int32(second))
    out, *_ = _complete(s, "great_wall")
    walls = TB.building("walls")
    assert out.cities.buildings[0, :2, walls].tolist() == [True, True]  # walls in every city
    out, *_ = _complete(s, "angkor_wat")
    assert bool(out.cities.buildings[0, 0, TB.building("university")])


def test_unhappiness_costs_production_and_gold(city):
    s, _ = city
    base = np.asarray(_yields(s))
    pl = s.players
    sad = s._replace(players=pl._replace(happiness=pl.happiness.at[0].set(-10.0)))
    got = np.asarray(_yields(sad))
    assert got[PROD] == pytest.approx(base[PROD] * 0.8) and got[GOLD] == pytest.approx(base[GOLD] * 0.8)
    assert got[FOOD] == pytest.approx(base[FOOD])


def test_golden_age_yields(city):
    s, _ = city
    base = np.asarray(_yields(_with(s, "monument")))
    pl = s.players
    golden = s._replace(players=pl._replace(golden_age_turns=pl.golden_age_turns.at[0].set(3)))
    got = np.asarray(_yields(_with(golden, "monument")))
    assert got[PROD] == pytest.approx(base[PROD] * 1.2) and got[GOLD] == pytest.approx(base[GOLD] * 1.05)
    assert got[CULTURE] == pytest.approx(base[CULTURE] * 1.2)


def test_free_tech_is_learned_the_same_turn(city):
    s, _ = city
    pl = s.players
    techs = jnp.zeros_like(pl.techs).at[:, TB.tech("agriculture")].set(True)
    s = s._replace(players=pl._replace(techs=techs, free_techs=pl.free_techs.at[0].set(1)))
    scores = jnp.zeros(81).at[TB.tech("pottery")].set(3.0).at[TB.tech("mining")].set(2.0)
    out, picked = jax.jit(choose_research)(s, P0, scores)
    assert picked.tolist() == [TB.tech("pottery"), TB.tech("mining")]
    assert bool(out.players.techs[0, TB.tech("mining")]) and int(out.players.free_techs[0]) == 0
    assert int(out.players.researching[0]) == TB.tech("pottery")


@pytest.mark.slow
def test_no_world_wonder_twice_in_many_random_games():
    """Four random six-player games of 300 rounds: at every step at most one of each world wonder
    stands in each game, and reserves never go negative."""
    from hexarena.games.terranova.engine.simulator import build_simulator
    from hexarena.games.terranova.engine.spaces import random_actions

    step, games, tracker, metrics, ids, *_ = build_simulator(
        [generate(s) for s in range(4)], "duplicate", jax.random.PRNGKey(5)
    )
    world = jnp.asarray(TB.building_kind == 1)
    key = jax.random.PRNGKey(11)
    built = np.zeros(4, int)
    for _ in range(6 * 300):
        key, k = jax.random.split(key)
        games, tracker, metrics, ids, *_ = step(
            games, random_actions(k, games.turn.shape), tracker, metrics, ids
        )
        counts = np.asarray((games.cities.buildings & world).sum((2, 3)))  # (1, 4, 148)
        assert counts.max() <= 1, "a world wonder stands twice"
        built = np.maximum(built, counts[0].sum(-1))
        pl = games.players
        assert float(pl.faith.min()) >= 0 and float(pl.culture.min()) >= 0
    assert built.max() > 0  # wonders were built at all


def test_the_observation_shows_what_buildings_add_to_each_tile():
    """``player_cities/additional_yield_map``: a stable adds 1 production to the city's horse tiles,
    worked or not; nothing without it, nothing on other players' tiles."""
    s, centre = bare_capital()
    tile = int(work_area()[centre, 3])
    assert int(s.tiles.owner[tile]) == 0 and int(s.tiles.owner_city[tile]) == 0
    lay = s.layers
    s = s._replace(layers=lay._replace(resource=lay.resource.at[tile].set(TB.resource("horses"))))
    classes = tile_class_parts(s, s.players.techs[0])
    before = np.asarray(building_tile_bonus(s, jnp.int32(0), classes))
    assert not before.any()
    after = np.asarray(building_tile_bonus(with_buildings(s, "stable"), jnp.int32(0), classes))
    assert after[tile].tolist() == [0, 1, 0, 0, 0, 0, 0] and after.sum() == 1
    assert not np.asarray(building_tile_bonus(with_buildings(s, "stable"), jnp.int32(1), classes)).any()


def test_the_apollo_program_counts_in_every_city_once_one_city_has_it(city):
    """As the original spoofs it: built in one city, the Apollo Program is built for the whole
    empire, so no second one, and the spaceship parts (which need it) may go in any city; a part
    still needs aluminium in its own city (or from a deal)."""
    s, centre = city
    second, third = (int(np.flatnonzero(distance_np(np.arange(2772), centre) == d)[0]) for d in (4, 8))
    s = found_city(found_city(s, P0, jnp.int32(second)), P0, jnp.int32(third))
    res = s.layers.resource.at[jnp.array([centre, second])].set(TB.resource("aluminium"))
    s = s._replace(layers=s.layers._replace(resource=res))  # a city's own tile is a source
    mask = jax.jit(lambda s, cs: build_mask(s, P0, cs, jnp.zeros(148, bool), jnp.zeros(4, jnp.int32)))
    apollo, booster = TB.building("apollo_program"), TB.building("booster_1")
    assert TB.building_empire_wide[apollo] and TB.building_empire_wide.sum() == 1
    before = [np.asarray(mask(s, jnp.int32(c))) for c in range(3)]
    assert before[0][apollo] and before[1][apollo] and not before[1][booster]
    built = _with(s, "apollo_program", slot=0)
    after = [np.asarray(mask(built, jnp.int32(c))) for c in range(3)]
    assert not any(m[apollo] for m in after)  # one per empire
    assert after[0][booster] and after[1][booster]  # in the other city too
    assert not after[2][booster]  # no aluminium there
