"""Great people: points per city (hand-computed), one shared threshold that doubles, each kind's
effect when born, free great people, golden ages from happiness, free units of wonders and policies,
policy buildings in later cities."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from hexarena.games.terranova.engine.effects import apply_grants, civic_rows
from hexarena.games.terranova.engine.rules.great_people import city_gpp, grant_free_units, great_people_phase
from hexarena.games.terranova.engine.rules.policies import adopt_policies
from hexarena.games.terranova.engine.rules.units import found_city
from hexarena.games.terranova.engine.tables import CULTURE, GOLD, GRANTS, SCIENCE, SPECIALISTS, load_tables

from ..tn_helpers import bare_capital, with_buildings, with_policies

TB = load_tables()
P0 = jnp.int32(0)
K = {k: i for i, k in enumerate(SPECIALISTS)}
_phase = jax.jit(great_people_phase)
_gpp = jax.jit(city_gpp)
_adopt = jax.jit(adopt_policies)
_grant = jax.jit(grant_free_units)


@pytest.fixture(scope="module")
def city():
    return bare_capital()[0]


def with_points(s, kind: str, points: float):
    g = s.great
    return s._replace(great=g._replace(points=g.points.at[0, K[kind]].set(points)))


def run(s, empire=None):
    """One great-people phase of player 0 with nothing completed this turn."""
    empire = jnp.zeros(8) if empire is None else jnp.asarray(empire, jnp.float32)
    return _phase(s, P0, empire)


def test_city_points_hand_computed(city):
    """University (2 scientists) + garden (+20 % in the city) + Leaning Tower (+20 % everywhere) + the
    Great Library's own point + Rationalism opener (+20 % scientists):
    (3 x 2 x 1.2 + 1) x 1.2 x 1.2 = 11.808 scientist points a turn; the workshop's engineer:
    3 x 1.2 x 1.2 = 4.32."""
    s = with_buildings(city, "university", "garden", "leaning_tower", "great_library", "workshop")
    s = with_policies(s, "rationalism_opener")
    got = np.asarray(_gpp(s, P0))
    assert got[0, K["scientist"]] == pytest.approx(11.808, rel=1e-5)
    assert got[0, K["engineer"]] == pytest.approx(4.32, rel=1e-5)
    assert got[1:].sum() == 0 and got[0, [K["artist"], K["musician"], K["writer"], K["merchant"]]].sum() == 0


def test_points_accumulate_and_one_threshold_doubles(city):
    """2 scientists (6 a turn) and 1 engineer (3 a turn): after 11 turns 66 and 33; the 12th turn's
    72 >= 67 gives a great scientist, the threshold becomes 134, the scientists' points restart at 0
    and the engineers keep their 36."""
    s = with_buildings(city, "university", "workshop")
    for _ in range(11):
        s, _ = run(s)
    assert float(s.great.points[0, K["scientist"]]) == pytest.approx(66.0)
    assert int(s.great.born[0].sum()) == 0
    s, _ = run(s)
    g = s.great
    assert int(g.born[0, K["scientist"]]) == 1 and int(g.born[0].sum()) == 1
    assert float(g.threshold[0]) == 134.0
    assert float(g.points[0, K["scientist"]]) == 0.0
    assert float(g.points[0, K["engineer"]]) == pytest.approx(36.0)
    assert (np.asarray(g.points) >= 0).all()


def test_artist_golden_age(city):
    s = with_points(with_buildings(city, "museum"), "artist", 67.0)
    out, _ = run(s)
    assert int(out.players.golden_age_turns[0]) == 10
    chichen = with_buildings(s, "chichen_itza")
    out, _ = run(chichen)
    assert int(out.players.golden_age_turns[0]) == 15  # 10 x 1.5


def test_writer_culture_burst(city):
    s = with_points(with_buildings(city, "amphitheater"), "writer", 70.0)
    _, empire = run(s, [0, 0, 0, 0, 10.0, 4.0, 0, 0])
    assert float(empire[CULTURE]) == 50.0 and float(empire[SCIENCE]) == 4.0


def test_every_great_work_slot_holds_a_work_and_no_great_person_adds_one(city):
    """As the original's ``gw_slots``: a museum's two art slots are two works of art the turn it
    stands, an amphitheatre's slot a work of writing; a great writer or artist born adds none."""
    s = with_points(with_buildings(city, "museum", "amphitheater"), "writer", 70.0)
    out, _ = run(s)
    assert int(out.great.born[0, K["writer"]]) == 1
    assert np.asarray(out.great.works[0, 0]).tolist() == [1, 2, 0, 0]
    assert int(np.asarray(out.great.works[0]).sum()) == 3


def test_scientist_science_burst(city):
    _, empire = run(with_points(city, "scientist", 67.0), [0, 0, 0, 0, 10.0, 8.0, 0, 0])
    assert float(empire[SCIENCE]) == 40.0 and float(empire[CULTURE]) == 10.0


def test_engineer_production_burst(city):
    s = with_points(city, "engineer", 67.0)
    c = s.cities
    s = s._replace(cities=c._replace(yields=c.yields.at[0, 0, 1].set(10.0), prod=c.prod.at[0, 0].set(5.0)))
    out, _ = run(s)
    assert float(out.cities.prod[0, 0]) == 45.0  # 5 + 4 x 10: the city made 5 x its production


def test_merchant_gold_by_era_commerce_and_mausoleum(city):
    s = with_points(city, "merchant", 67.0)
    _, empire = run(s)
    assert float(empire[GOLD]) == 650.0  # every tech known: the last era
    commerce = [n for i, n in enumerate(TB.policy_names) if TB.tree_names[TB.policy_tree[i]] == "commerce"]
    rich = with_buildings(with_policies(s, *commerce), "mausoleum_of_halicarnassus")
    _, empire = run(rich)
    assert float(empire[GOLD]) == 650.0 * 2 + 100.0


def test_musician_tourism_burst_onto_met_rivals(city):
    """A museum's two works of art (0.4 tourism) and a great musician: 0.4 + 5 x 0.4 = 2.4 onto the
    met rival 1, nothing onto rival 2 (never seen) nor onto itself."""
    s = with_points(with_buildings(city, "museum"), "musician", 67.0)
    s = _rival_city(s, 1)
    out, _ = run(s)
    assert np.asarray(out.players.tourism[0]) == pytest.approx([0, 2.4, 0, 0, 0, 0], abs=1e-6)
    assert float(out.great.tourism_turn[0]) == pytest.approx(0.4)


def _rival_city(s, q: int):
    """A city of player ``q`` two tiles from player 0's capital, in its sight."""
    c, t = s.cities, s.tiles
    tile = int(c.pos[0, 0]) + 2
    return s._replace(
        cities=c._replace(exists=c.exists.at[q, 0].set(True), pos=c.pos.at[q, 0].set(tile)),
        tiles=t._replace(visibility=t.visibility.at[0, tile].set(2)),
        players=s.players._replace(have_met=s.players.have_met.at[0, q].set(True)),
    )


def test_free_great_person_is_born_through_points_and_prophets_are_kept(city):
    """A granted writer adds one threshold of writer points: born that turn (threshold 67 -> 134);
    two granted merchants are born on two turns; the prophet column is left to religion."""
    grants = jnp.zeros(len(GRANTS)).at[GRANTS.index("great_person_writer")].set(1)
    grants = grants.at[GRANTS.index("great_person_merchant")].set(2)
    grants = grants.at[GRANTS.index("great_person_prophet")].set(1)
    s = jax.jit(apply_grants)(city, P0, grants)
    out, _ = run(s)
    assert np.asarray(out.great.born[0]).tolist() == [0, 0, 1, 0, 1, 0]
    assert float(out.great.threshold[0]) == 134.0
    assert np.asarray(out.players.great_people[0]).tolist() == [0, 0, 0, 0, 1, 0, 1]
    out, _ = run(out)
    assert int(out.great.born[0, K["merchant"]]) == 2 and float(out.great.threshold[0]) == 268.0
    assert int(out.players.great_people[0, -1]) == 1


def test_free_great_person_of_choice_takes_the_most_advanced_kind(city):
    s = with_points(city, "musician", 30.0)
    grants = jnp.zeros(len(GRANTS)).at[GRANTS.index("free_great_people")].set(1)
    out = jax.jit(apply_grants)(s, P0, grants)
    assert int(out.players.great_people[0, K["musician"]]) == 1


def test_golden_age_from_happiness(city):
    """Happiness 100 a turn fills the meter; (500 + 250 x 0) x 0.6667 = 333.35 is reached on the 4th
    turn: a 10-turn golden age, 66.65 carried over; the next needs (500 + 250) x 0.6667 = 500.03;
    during the golden age the meter rests."""
    pl = city.players
    s = city._replace(players=pl._replace(happiness=pl.happiness.at[0].set(100.0)))
    for _ in range(3):
        s, _ = run(s)
    assert int(s.players.golden_age_turns[0]) == 0 and float(s.great.golden_points[0]) == 300.0
    s, _ = run(s)
    assert int(s.players.golden_age_turns[0]) == 10 and int(s.great.golden_ages[0]) == 1
    assert float(s.great.golden_points[0]) == pytest.approx(66.65, abs=1e-3)
    s, _ = run(s)
    assert float(s.great.golden_points[0]) == pytest.approx(66.65, abs=1e-3)


def test_wonder_gives_free_workers_at_the_capital(city):
    before = city.cities.buildings[0]
    rows = civic_rows(city, P0)
    out = _grant(with_buildings(city, "pyramids"), P0, before, rows)
    kinds = np.asarray(out.units.kind[0])
    pos = np.asarray(out.units.pos[0])
    workers = np.flatnonzero(kinds == TB.unit("worker"))
    assert len(workers) == 2 and len(set(pos[workers])) == 2  # one on the capital, one beside it
    assert int(city.cities.pos[0, 0]) in pos[workers]
    again = _grant(out, P0, out.cities.buildings[0], rows)
    assert int((np.asarray(again.units.kind[0]) == TB.unit("worker")).sum()) == 2  # once only


def test_policy_gives_free_units_at_the_end_of_the_turn(city):
    pl = city.players
    s = city._replace(players=pl._replace(culture=pl.culture.at[0].set(1000.0)))
    s = with_policies(s, "honor_opener")
    rows = civic_rows(s, P0)
    scores = jnp.zeros(len(TB.policy_names)).at[TB.policy("warrior_code")].set(1.0)
    out, ex = _adopt(s, P0, scores)
    assert int(ex[0]) == TB.policy("warrior_code")
    assert int((np.asarray(out.units.kind[0]) == TB.unit("warrior")).sum()) == 0
    out = _grant(out, P0, out.cities.buildings[0], rows)
    warriors = np.flatnonzero(np.asarray(out.units.kind[0]) == TB.unit("warrior"))
    assert len(warriors) == 2 and len(set(np.asarray(out.units.pos[0])[warriors])) == 2


def test_policy_free_buildings_reach_cities_founded_later(city):
    """Legalism gives a monument in the first 4 cities: a city founded after the adoption gets it at
    the start of its owner's next turn."""
    s = with_policies(city, "tradition_opener", "legalism")
    far = int(city.cities.pos[0, 0]) + 5
    s = found_city(s, P0, jnp.int32(far))
    assert not bool(s.cities.buildings[0, 1, TB.building("monument")])
    out, _ = _adopt(s, P0, jnp.zeros(len(TB.policy_names)))
    assert bool(out.cities.buildings[0, 1, TB.building("monument")])
    assert bool(out.cities.buildings[0, 0, TB.building("monument")])
    assert not out.cities.buildings[0, 2:].any()


def test_merchant_courts_the_met_city_state_it_has_least_influence_with(city):
    """Met city states 2 (influence 40), 5 (10) and 7 (25): +35 goes to 5; 0 (0, never met) gets
    nothing. Without a merchant, or with no city state met, influence stays put."""
    pl, cst = city.players, city.citystates
    met = pl.have_met.at[0, 6 + jnp.array([2, 5, 7])].set(True)
    influence = cst.influence.at[jnp.array([2, 5, 7]), 0].set(jnp.array([40.0, 10.0, 25.0]))
    s = city._replace(players=pl._replace(have_met=met), citystates=cst._replace(influence=influence))
    out, _ = run(with_points(s, "merchant", 67.0))
    want = np.asarray(influence[:, 0]).copy()
    want[5] += 35.0
    assert np.asarray(out.citystates.influence[:, 0]) == pytest.approx(want)
    assert np.asarray(out.citystates.influence[:, 1:]).sum() == 0
    assert np.asarray(run(s)[0].citystates.influence) == pytest.approx(np.asarray(influence))
    alone = city._replace(citystates=cst._replace(influence=influence))  # has met no city state
    assert np.asarray(run(with_points(alone, "merchant", 67.0))[0].citystates.influence) == pytest.approx(
        np.asarray(influence)
    )
