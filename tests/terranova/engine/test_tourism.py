"""Tourism (hand-computed: great works, wonders' culture through hotels, the cities' tourism yields,
Acoustics and the Internet, the Aesthetics finisher), accumulated onto met rivals only, its
observation with fog, and great works in the observation and the score."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from hexarena.games.terranova.contract.text.great_people import great_people_lines
from hexarena.games.terranova.engine import formulas
from hexarena.games.terranova.engine.observe import empty_tracker, observe, update_tracker
from hexarena.games.terranova.engine.rules.great_people import great_people_phase, tourism_yield
from hexarena.games.terranova.engine.tables import TOURISM, load_tables

from ..tn_helpers import bare_capital, with_buildings, with_policies

TB = load_tables()
P0 = jnp.int32(0)
_tourism = jax.jit(tourism_yield)
_phase = jax.jit(great_people_phase)


@pytest.fixture(scope="module")
def city():
    """A capital with a museum (two art slots: two works of art), the Parthenon (4 culture, one art
    slot) and a hotel; a rival city (player 1) in sight; player 2 never seen."""
    s, _ = bare_capital()
    s = with_buildings(s, "museum", "parthenon", "hotel")
    c, t = s.cities, s.tiles
    tile = int(c.pos[0, 0]) + 2
    return s._replace(
        cities=c._replace(exists=c.exists.at[1, 0].set(True), pos=c.pos.at[1, 0].set(tile)),
        tiles=t._replace(visibility=t.visibility.at[0, tile].set(2)),
        players=s.players._replace(have_met=s.players.have_met.at[0, 1].set(True)),
    )


def _techs(s, *, acoustics=True, internet=True):
    techs = s.players.techs.at[0, TB.tech("acoustics")].set(acoustics)
    techs = techs.at[0, TB.tech("internet")].set(internet)
    return s._replace(players=s.players._replace(techs=techs))


def test_tourism_hand_computed(city):
    """3 works x 0.2 x (1 + 12.5 % hotel) = 0.675; Parthenon culture 4 x 50 % (hotel) = 2.0: 2.675."""
    assert float(_tourism(city, P0)) == pytest.approx(2.675, rel=1e-5)
    # Fine Arts: +10 % on converted culture (2.2); Flourishing of Arts: +0.15 per work (0.45).
    s = with_policies(city, "fine_arts", "flourishing_of_arts")
    assert float(_tourism(s, P0)) == pytest.approx(0.675 + 2.2 + 0.45, rel=1e-5)


def test_acoustics_gate_and_internet_doubles_city_tourism(city):
    c = city.cities
    s = city._replace(cities=c._replace(yields=c.yields.at[0, 0, TOURISM].set(3.0)))
    assert float(_tourism(_techs(s, acoustics=False), P0)) == 0.0
    assert float(_tourism(_techs(s, internet=False), P0)) == pytest.approx(2.675 + 3.0, rel=1e-5)
    assert float(_tourism(_techs(s), P0)) == pytest.approx(2.675 + 6.0, rel=1e-5)


def test_tourism_accumulates_onto_met_rivals_with_the_aesthetics_finisher(city):
    s = city
    for _ in range(2):
        s, _ = _phase(s, P0, jnp.zeros(8))
    assert np.asarray(s.players.tourism[0]) == pytest.approx([0, 5.35, 0, 0, 0, 0], rel=1e-5)
    aesthetics = [
        n for i, n in enumerate(TB.policy_names) if TB.tree_names[TB.policy_tree[i]] == "aesthetics"
    ]
    out, _ = _phase(with_policies(city, *aesthetics), P0, jnp.zeros(8))
    # the whole tree: Fine Arts and Flourishing of Arts as above, then x 1.2 onto each rival
    assert float(out.players.tourism[0, 1]) == pytest.approx((0.675 + 2.2 + 0.45) * 1.2, rel=1e-5)


def test_observation_tourism_great_works_and_slots(city):
    s, _ = _phase(city, P0, jnp.zeros(8))
    pl = s.players
    s = s._replace(players=pl._replace(tourism=pl.tourism.at[2, 3].set(7.0).at[1, 0].set(1.5)))
    obs = jax.jit(observe)(s, update_tracker(empty_tracker(), s), P0)
    tour = np.asarray(obs["tourism_total"])
    assert tour[0, 1] == pytest.approx(2.675) and tour[1, 0] == 1.5
    assert (tour[2] == -1).all()  # player 2 never met
    assert np.asarray(obs["great_works"]).tolist() == [0, 3, 0, 0]  # every slot holds a work
    # writing, art, music, artifact, then all slots: museum 2 + Parthenon 1
    assert np.asarray(obs["player_cities"]["gw_slots"])[0].tolist() == [0, 3, 0, 0, 3]
    assert float(obs["gp_threshold"]) == 67.0 and np.asarray(obs["gpps"]).shape == (6,)


def test_score_counts_great_works():
    base = formulas.score(np.array(1), np.array(1), np.array(7), np.array(0), np.array(1))
    more = formulas.score(np.array(1), np.array(1), np.array(7), np.array(0), np.array(1), great_works=3)
    assert float(more - base) == pytest.approx(0.3)


def test_text_section(city):
    """The text view's section from the observation: specialists, points, works, tourism vs culture."""
    s = with_buildings(city, "university")
    s, _ = _phase(s, P0, jnp.zeros(8))
    obs = jax.tree_util.tree_map(np.asarray, jax.jit(observe)(s, update_tracker(empty_tracker(), s), P0))
    text = "\n".join(great_people_lines(obs, 0))
    assert "city 0: 2 scientists" in text
    assert "scientist 6 (+6.0, 11 turns;" in text and "next great person at 67" in text
    assert "Great works: 3 art in 3 slots" in text
    assert "onto rivals met / their lifetime culture: " in text and text.count("/0") == 1  # one rival met
