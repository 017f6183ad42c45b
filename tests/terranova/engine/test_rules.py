"""Stage-1 rules on hand-made positions: founding, growth, research, wonder claims, combat,
sacking and capture, worker builds."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from hexarena.games.terranova.engine import formulas
from hexarena.games.terranova.engine.geometry import neighbors, work_area
from hexarena.games.terranova.engine.mapgen import generate
from hexarena.games.terranova.engine.rules.cities import grow, production_phase
from hexarena.games.terranova.engine.rules.units import finish_builds, found_city, unit_phase
from hexarena.games.terranova.engine.state import map_layers
from hexarena.games.terranova.engine.step import choose_research, empire_phase, new_game
from hexarena.games.terranova.engine.tables import BUILDING_SLOTS, GRANTS, N_BUILDABLES, load_tables

from ..tn_helpers import attack_scores, clear_units, flatten, place_unit

TB = load_tables()
NO_GRANTS = jnp.zeros(len(GRANTS))
P0, P1 = jnp.int32(0), jnp.int32(1)


@pytest.fixture(scope="module")
def game():
    m = generate(0)
    return m, new_game(jax.tree_util.tree_map(jnp.asarray, map_layers(m)), jax.random.PRNGKey(0))


def _land_far(m, start: int, steps: int) -> int:
    """A passable tile ``steps`` hexes east-ish of ``start`` (walks the neighbour table)."""
    nb, ok, t = neighbors(), m.passable(), start
    for _ in range(steps):
        options = [n for n in nb[t] if n >= 0 and ok[n] and n != t]
        t = max(options, key=lambda n: (n % 66 - start % 66) % 66)
    return int(t)


def test_found_city_claims_ring_and_palace(game):
    m, s = game
    s = jax.jit(found_city)(s, P0, jnp.int32(m.starts[0]))
    c = s.cities
    assert bool(c.exists[0, 0]) and bool(c.capital[0, 0]) and int(c.pop[0, 0]) == 1
    assert bool(c.buildings[0, 0, TB.building("palace")])
    ring = work_area()[m.starts[0], :7]
    assert (np.asarray(s.tiles.owner)[ring] == 0).sum() >= 6
    assert float(c.hp[0, 0]) == TB.rules["city_max_hp"]


def test_growth_adds_a_citizen_when_food_is_full(game):
    m, s = game
    s = found_city(s, P0, jnp.int32(m.starts[0]))
    need = float(formulas.growth_threshold(np.array(1)))
    s = s._replace(cities=s.cities._replace(food=s.cities.food.at[0, 0].set(need - 1)))
    s2 = jax.jit(grow)(s, P0, jnp.full(10, 4.0))  # surplus 4 - 2 = 2
    assert int(s2.cities.pop[0, 0]) == 2 and float(s2.cities.food[0, 0]) == pytest.approx(1.0)
    starving = s._replace(
        cities=s.cities._replace(pop=s.cities.pop.at[0, 0].set(3), food=s.cities.food.at[0, 0].set(0.0))
    )
    s3 = jax.jit(grow)(starving, P0, jnp.zeros(10))  # eats 6, stock -6 < -2
    assert int(s3.cities.pop[0, 0]) == 2


def test_research_picks_best_legal_tech_and_completes(game):
    _, s = game
    scores = jnp.zeros(81).at[TB.tech("future_tech")].set(9.0).at[TB.tech("mining")].set(5.0)
    s, pick = jax.jit(choose_research)(s, P0, scores)
    assert pick.tolist() == [TB.tech("mining"), -1]  # future tech is not legal yet; no free tech
    empire = jnp.zeros(8).at[5].set(TB.tech_cost[TB.tech("mining")] + 3).at[2].set(1.0)  # gold covers upkeep
    s = jax.jit(empire_phase)(s, P0, empire, NO_GRANTS)
    assert bool(s.players.techs[0, TB.tech("mining")]) and int(s.players.researching[0]) == -1
    assert float(s.players.science[0]) == pytest.approx(3.0)


def test_no_two_cities_start_the_same_wonder(game):
    m, s = game
    second = _land_far(m, int(m.starts[0]), 5)
    s = found_city(found_city(s, P0, jnp.int32(m.starts[0])), P0, jnp.int32(second))
    pl = s.players
    s = s._replace(players=pl._replace(techs=pl.techs.at[0].set(True), policies=pl.policies.at[0].set(True)))
    pyramids, walls = TB.building("pyramids"), TB.building("walls")
    scores = jnp.zeros((10, N_BUILDABLES)).at[:, pyramids].set(10.0).at[:, walls].set(5.0)
    s2, chosen, _gold, _grants = jax.jit(production_phase)(s, P0, scores, jnp.zeros(10), jnp.zeros(10))
    assert chosen[:2].tolist() == [pyramids, walls]
    assert (np.asarray(chosen[2:]) == -1).all()
    assert s2.cities.constructing[0, :2].tolist() == [pyramids, walls]
    # Rescaled scores give the same choices.
    _, again, _, _ = jax.jit(production_phase)(s, P0, scores * 7.0 - 3.0, jnp.zeros(10), jnp.zeros(10))
    assert again.tolist() == chosen.tolist()


def test_production_completes_a_unit_and_respects_the_settler_cap(game):
    m, s = game
    s = found_city(clear_units(s), P0, jnp.int32(m.starts[0]))
    worker = BUILDING_SLOTS + TB.unit("worker") - 1
    scores = jnp.zeros((10, N_BUILDABLES)).at[:, worker].set(1.0)
    s2, chosen, _, _ = jax.jit(production_phase)(s, P0, scores, jnp.full(10, 100.0), jnp.zeros(10))
    assert int(chosen[0]) == worker
    kinds = np.asarray(s2.units.kind[0])
    assert (kinds == TB.unit("worker")).sum() == 1 and int(s2.cities.constructing[0, 0]) == -1


def test_melee_combat_uses_the_civ_formula_and_declares_war(game):
    m, s = game
    a = int(m.starts[0])
    b = int(neighbors()[a][0])
    s = flatten(s, [a, b])
    s = place_unit(place_unit(clear_units(s), 0, 0, "warrior", a), 1, 0, "warrior", b)
    s2, cats, tgts = jax.jit(unit_phase)(s, P0, *attack_scores(b))
    assert int(cats[0]) == 18 and int(tgts[0]) == b
    d, att = formulas.combat_damage(np.array(8.0), np.array(8.0), np.array(False))
    assert float(s2.units.hp[1, 0]) == pytest.approx(1 - d)
    assert float(s2.units.hp[0, 0]) == pytest.approx(1 - att)
    assert bool(s2.players.at_war[0, 1]) and bool(s2.players.at_war[1, 0])


def test_capital_is_sacked_and_other_city_is_captured(game):
    m, s = game
    s = clear_units(s)
    capital = int(m.starts[1])
    other = _land_far(m, capital, 5)
    s = found_city(found_city(s, P1, jnp.int32(capital)), P1, jnp.int32(other))
    s = s._replace(cities=s.cities._replace(hp=s.cities.hp.at[1].set(0.01)))
    s = flatten(s, [capital, other, *neighbors()[capital], *neighbors()[other]])
    for target, slot in ((capital, 0), (other, 1)):
        s = place_unit(s, 0, slot, "swordsman", int(neighbors()[target][3]))
    phase = jax.jit(unit_phase)
    s_cap, *_ = phase(s, P0, *attack_scores(capital))
    assert bool(s_cap.players.has_sacked[0, 1])
    assert bool(s_cap.cities.exists[1, 0]) and float(s_cap.cities.hp[1, 0]) == pytest.approx(1.33)
    s_oth, *_ = phase(s, P0, *attack_scores(other))
    assert not bool(s_oth.cities.exists[1, 1])
    assert int(s_oth.cities.pos[0, 0]) == other and int(s_oth.tiles.owner[other]) == 0


def _worker_by_capital(game):
    """A capital on the start and a worker on the first tile of its ring, both flat."""
    m, s = game
    tile = int(work_area()[m.starts[0], 1])
    s = flatten(s, [int(m.starts[0]), tile])
    s = found_city(clear_units(s), P0, jnp.int32(m.starts[0]))
    return place_unit(s, 0, 0, "worker", tile), tile


def test_worker_build_finishes_after_its_turns(game):
    s, tile = _worker_by_capital(game)
    types = jnp.full((30, 19), -1.0).at[:, 2].set(1.0)  # farm
    s, cats, _ = jax.jit(unit_phase)(s, P0, types, jnp.zeros((30, 2772)))
    assert int(cats[0]) == 2
    turns = int(s.units.engaged_turns[0, 0])
    assert turns == TB.improvement_turns[TB.improvement_names.index("farm")]
    finish = jax.jit(finish_builds)
    for _ in range(turns):
        s = finish(s, P0)
    assert int(s.tiles.improvement[tile]) == TB.improvement_names.index("farm")
    assert int(s.units.engaged_action[0, 0]) == -1


def test_citizenship_and_pyramids_shorten_worker_builds(game):
    s, _ = _worker_by_capital(game)
    pl = s.players
    s = s._replace(players=pl._replace(policies=pl.policies.at[0, TB.policy("citizenship")].set(True)))
    types = jnp.full((30, 19), -1.0).at[:, 2].set(1.0)  # farm
    out, _, _ = jax.jit(unit_phase)(s, P0, types, jnp.zeros((30, 2772)))
    base = int(TB.improvement_turns[TB.improvement_names.index("farm")])
    assert int(out.units.engaged_turns[0, 0]) == max(int(np.ceil(base * 0.75 - 1e-4)), 1)
    c = s.cities
    both = s._replace(cities=c._replace(buildings=c.buildings.at[0, 0, TB.building("pyramids")].set(True)))
    out, _, _ = jax.jit(unit_phase)(both, P0, types, jnp.zeros((30, 2772)))
    assert int(out.units.engaged_turns[0, 0]) == max(int(np.ceil(base * 0.5 - 1e-4)), 1)
