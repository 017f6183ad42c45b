"""Specialists: every slot of a city's buildings holds one (as in the original), their yields
(Secularism +2 science each), the yields of great works (Flourishing of Arts, Artistic Genius), and
the observation's specialist and great-person-point fields."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from hexarena.games.terranova.engine.observe import empty_tracker, observe, update_tracker
from hexarena.games.terranova.engine.rules.cities import city_yields
from hexarena.games.terranova.engine.rules.great_people import specialist_yields, specialists
from hexarena.games.terranova.engine.tables import CULTURE, GOLD, PROD, SCIENCE, SPECIALISTS, load_tables

from ..tn_helpers import bare_capital, with_buildings, with_policies

TB, P0 = load_tables(), jnp.int32(0)
_specialists, _yields = jax.jit(specialists), jax.jit(specialist_yields)


@pytest.fixture(scope="module")
def city():
    """Player 0's capital without buildings, every tech known."""
    return bare_capital()[0]


def test_slots_of_the_buildings(city):
    """The original's 18 specialist buildings by kind, e.g. the factory's 2 engineers."""
    kinds = {k: {TB.building_names[b] for b in np.flatnonzero(TB.building_specialists[:, i])}
             for i, k in enumerate(SPECIALISTS)}  # fmt: skip
    assert kinds["engineer"] == {"workshop", "windmill", "factory"}
    assert kinds["scientist"] == {"university", "public_school", "laboratory"}
    assert {"market", "bank", "stock_exchange", "vihara"} <= kinds["merchant"]
    s = with_buildings(city, "factory", "university", "stock_exchange", "writers_guild")
    got = np.asarray(_specialists(s, P0))
    assert got[0].tolist() == [0, 0, 2, 2, 2, 2] and got[1:].sum() == 0


def test_specialist_yields_hand_computed(city):
    """2 engineers +4 production, 2 merchants +4 gold, 2 scientists +6 science, 2 writers +6 culture;
    Secularism: +2 science for each of the 8 specialists."""
    s = with_buildings(city, "factory", "university", "stock_exchange", "writers_guild")
    y = np.asarray(_yields(s, P0))[0]
    assert (y[PROD], y[GOLD], y[SCIENCE], y[CULTURE]) == (4, 4, 6, 6)
    y = np.asarray(_yields(with_policies(s, "rationalism_opener", "secularism"), P0))[0]
    assert y[SCIENCE] == 6 + 2 * 8


def test_great_works_yield_culture_and_science(city):
    """Flourishing of Arts +1 culture and Artistic Genius +1.5 science per great work in the city."""
    s = with_policies(with_buildings(city, "museum"), "flourishing_of_arts", "artistic_genius")
    g = s.great
    s = s._replace(great=g._replace(works=g.works.at[0, 0, 1].set(2)))
    y = np.asarray(_yields(s, P0))[0]
    assert y[CULTURE] == 2.0 and y[SCIENCE] == 3.0


def test_specialists_reach_the_city_yields_before_percent(city):
    """A university: 2 scientists (+6 science) and its +33 % science; the citizens' science too."""
    run = jax.jit(lambda s: city_yields(s, P0, jnp.zeros((10, 36, 36))).yields[0])
    base = np.asarray(run(city))
    got = np.asarray(run(with_buildings(city, "university")))
    b = TB.building("university")
    want = (base[SCIENCE] + TB.building_yields[b, SCIENCE] + 6) * (1 + TB.building_percent[b, SCIENCE] / 100)
    assert got[SCIENCE] == pytest.approx(want, rel=1e-5)


def test_observation_fields(city):
    s = with_buildings(city, "university", "garden")
    obs = jax.jit(observe)(s, update_tracker(empty_tracker(), s), P0)["player_cities"]
    assert np.asarray(obs["specialist_slots"])[0].tolist() == [0, 0, 0, 0, 0, 2]
    assert float(obs["great_person_points"][0, SPECIALISTS.index("scientist")]) == pytest.approx(7.2)
    assert np.asarray(obs["great_person_points"])[1:].sum() == 0
