"""Issue 24: the rules where independent checks found ours differing from the original's code
(``trevormcinroe/terra_nova``), each on a hand-made position with hand-computed numbers."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from hexarena.games.terranova.engine import formulas
from hexarena.games.terranova.engine.geometry import distance_np, work_area
from hexarena.games.terranova.engine.rules.cities import city_phase, grow, production_phase
from hexarena.games.terranova.engine.rules.great_people import great_people_phase, spawn_free_units
from hexarena.games.terranova.engine.rules.trade import PEACE, settle_offers
from hexarena.games.terranova.engine.spaces import zero_actions
from hexarena.games.terranova.engine.step import empire_phase
from hexarena.games.terranova.engine.tables import BUILDING_SLOTS, FOOD, GRANTS, TOURISM, load_tables

from ..tn_helpers import bare_capital, contract_step, place_unit, with_buildings

TB = load_tables()
P0 = jnp.int32(0)


@pytest.fixture(scope="module")
def capital():
    """Player 0's 1-citizen capital on bare grassland, every tech, 1000 gold (no deficit eats science)."""
    s, _ = bare_capital()
    pl = s.players
    return s._replace(
        player=P0, auto_reset=jnp.bool_(False), players=pl._replace(gold=pl.gold.at[0].set(1000.0))
    )


def _reserves(s, culture: float = 0.0, faith: float = 0.0):
    pl = s.players
    return s._replace(
        players=pl._replace(culture=pl.culture.at[0].set(culture), faith=pl.faith.at[0].set(faith))
    )


@pytest.fixture(scope="module")
def reached(capital):
    """A monument (2 culture) and a shrine (1 faith): culture 13 + 2 reaches the first policy's 15,
    faith 9 + 1 the first pantheon's 10, both this turn; Pottery 1 science short of its cost."""
    s = _reserves(with_buildings(capital, "monument", "shrine"), culture=13.0, faith=9.0)
    pl = s.players
    pottery = TB.tech("pottery")
    known = jnp.zeros_like(pl.techs[0]).at[TB.tech("agriculture")].set(True)
    s = s._replace(
        players=pl._replace(
            techs=pl.techs.at[0].set(known),
            researching=pl.researching.at[0].set(pottery),
            science=pl.science.at[0].set(float(TB.tech_cost[pottery]) - 1.0),
        )
    )
    return s, contract_step(s, zero_actions())


def test_policy_comes_the_turn_the_culture_reaches_its_cost(reached):
    """Item 2: 13 in reserve + 2 this turn = 15, the first policy's cost: adopted now, nothing left."""
    _, (out, executed, *_) = reached
    policy = np.asarray(executed[1])
    assert policy[0] >= 0 and policy[1] == -1
    assert bool(out.players.policies[0, policy[0]]) and int(out.players.policies[0].sum()) == 1
    assert float(out.players.culture[0]) == pytest.approx(0.0)
    assert float(out.players.culture_total[0]) == pytest.approx(2.0)


def test_policy_waits_while_reserve_and_culture_fall_short(capital):
    """12 + 2 = 14 < 15: no policy, the reserve holds 14."""
    s = _reserves(with_buildings(capital, "monument"), culture=12.0)
    out, executed, *_ = contract_step(s, zero_actions())
    assert np.asarray(executed[1]).tolist() == [-1, -1] and not out.players.policies[0].any()
    assert float(out.players.culture[0]) == pytest.approx(14.0)


def test_pantheon_comes_the_turn_the_faith_reaches_its_cost(reached):
    """Item 2: faith 9 + 1 (the shrine) = 10, the first pantheon's cost: taken now, nothing left."""
    _, (out, executed, *_) = reached
    tenet = np.asarray(executed[2])
    assert tenet[0] >= 0 and TB.tenet_kind[tenet[0]] == 0 and (tenet[1:] == -1).all()
    assert bool(out.players.tenets[0, tenet[0]])
    assert float(out.players.faith[0]) == pytest.approx(0.0)


def test_next_research_is_chosen_the_turn_a_tech_completes(reached):
    """Item 3: Pottery completes this turn and the next tech is chosen on this turn's scores (the
    executed tech >= 0 and legal after Pottery)."""
    before, (out, executed, *_) = reached
    pick = int(np.asarray(executed[3])[0])
    known = np.asarray(out.players.techs[0])
    assert known[TB.tech("pottery")] and pick >= 0 and int(out.players.researching[0]) == pick
    assert not np.asarray(before.players.techs[0])[pick] and known[TB.tech_prereq[pick]].all()


_city_phase = jax.jit(city_phase)
# citizen i prefers work slot i (the first ring is owned), so each citizen works its own tile
_CITIZENS = jnp.zeros((10, 36, 36)).at[0].set(jnp.eye(36))


def _city(s, pop: int, food: float, last_food: float):
    c = s.cities
    return s._replace(
        cities=c._replace(
            pop=c.pop.at[0, 0].set(pop),
            food=c.food.at[0, 0].set(food),
            yields=c.yields.at[0, 0, FOOD].set(last_food),
        )
    )


def test_a_citizen_born_this_turn_works_at_once(capital):
    """Item 4: stock 9 + last turn's 5 food - 2 eaten = 12 >= 10 (the threshold at 1 citizen):
    the city grows to 2, and both citizens work a tile this turn."""
    assert float(formulas.growth_threshold(np.array(1))) == 10.0
    out, worked, *_ = _city_phase(_city(capital, 1, 9.0, 5.0), P0, _CITIZENS, jnp.zeros((10, 185)))
    assert int(out.cities.pop[0, 0]) == 2 and float(out.cities.food[0, 0]) == pytest.approx(2.0)
    assert (np.asarray(worked)[0] >= 0).sum() == 2
    assert int(np.asarray(out.cities.worked)[0, 0].sum()) == 3  # the centre and two tiles


def test_a_city_that_starved_works_one_tile_fewer(capital):
    """Item 4: stock 0 + last turn's 0 food - 4 eaten = -4 < -2: the city starves to 1 citizen,
    who alone works a tile."""
    out, worked, *_ = _city_phase(_city(capital, 2, 0.0, 0.0), P0, _CITIZENS, jnp.zeros((10, 185)))
    assert int(out.cities.pop[0, 0]) == 1
    assert (np.asarray(worked)[0] >= 0).sum() == 1


def test_unhappiness_does_not_slow_growth(capital):
    """Item 9: at -5 happiness a city with 6 food and 1 citizen stores all of its surplus, 4."""
    pl = capital.players
    s = _city(capital._replace(players=pl._replace(happiness=pl.happiness.at[0].set(-5.0))), 1, 0.0, 0.0)
    out = jax.jit(grow)(s, P0, jnp.full(10, 6.0))
    assert float(out.cities.food[0, 0]) == pytest.approx(4.0)


_production = jax.jit(production_phase)


def _claim(s, culture: float):
    """The production phase with ``culture`` toward the border and nothing built; returns the state."""
    c = s.cities
    s = s._replace(cities=c._replace(culture=c.culture.at[0, 0].set(culture)))
    return _production(s, P0, jnp.zeros((10, 185)), jnp.zeros(10), jnp.zeros(10))[0]


def _mine(s) -> int:
    """Tiles of player 0's capital."""
    return int(((np.asarray(s.tiles.owner) == 0) & (np.asarray(s.tiles.owner_city) == 0)).sum())


def test_border_cost_counts_the_tiles_the_city_owns(capital):
    """Item 5: a capital whose first ring has one tile of player 1 owns 5 tiles: its next tile costs
    6.87 x 0^2.06 = 0, so 0.5 culture claims one; owning 6, the next costs 6.87 x 1 (not the
    6.87 x 2^2.06 = 28.65 of a count of claims)."""
    ring = int(work_area()[int(capital.cities.pos[0, 0]), 1])
    t = capital.tiles
    s = capital._replace(
        tiles=t._replace(owner=t.owner.at[ring].set(1), owner_city=t.owner_city.at[ring].set(0))
    )
    assert _mine(s) == 6  # the centre and five ring tiles
    once = _claim(s, 0.5)
    assert _mine(once) == 7 and float(once.cities.culture[0, 0]) == pytest.approx(0.5)
    short = _claim(once, 6.8)
    assert _mine(short) == 7
    twice = _claim(once, 6.9)
    assert _mine(twice) == 8 and float(twice.cities.culture[0, 0]) == pytest.approx(0.03, abs=1e-4)


_empire = jax.jit(empire_phase)


def _whales(s, n: int, given: int):
    """``n`` improved whale tiles in the capital's first ring, ``given`` whales given away by deal."""
    whales = TB.resource_names.index("whales")
    ring = jnp.asarray(work_area()[int(s.cities.pos[0, 0]), 1 : 1 + n])
    lay, t, tr = s.layers, s.tiles, s.trade
    return s._replace(
        layers=lay._replace(resource=lay.resource.at[ring].set(whales)),
        tiles=t._replace(improvement=t.improvement.at[ring].set(jnp.int8(TB.resource_improvement[whales]))),
        trade=tr._replace(resources=tr.resources.at[0, whales - 1].set(-given)),
    )


@pytest.mark.parametrize(("n", "given", "happiness"), [(2, 1, 7.0), (2, 0, 11.0), (1, 0, 11.0)])
def test_a_luxury_counts_once_per_city_and_a_deal_takes_it(capital, n, given, happiness):
    """Item 6: happiness 8 + 4 per luxury kind - 1 citizen; two whales in one city count as one
    city's whale, so giving one away leaves none (8 - 1 = 7), as the original's per-city flags."""
    out = _empire(_whales(capital, n, given), P0, jnp.zeros(8), jnp.zeros(len(GRANTS)))
    assert float(out.players.happiness[0]) == pytest.approx(happiness)


def test_peace_sends_units_home_without_stacking(capital):
    """Item 10: at war, player 0's spearman, settler and worker stand on player 1's land and its
    warrior in its capital; accepting peace sends them home: the settler onto the capital (its
    civilian place is free), the spearman and the worker each to a free tile of player 0's first
    ring (distance 1): never two units of one class on a tile."""
    centre = int(capital.cities.pos[0, 0])
    away = [int(x) for x in np.flatnonzero(distance_np(np.arange(2772), centre) == 8)[:3]]
    s = place_unit(capital, 0, 0, "warrior", centre)
    for slot, (kind, tile) in enumerate(zip(("spearman", "settler", "worker"), away, strict=True), start=1):
        s = place_unit(s, 0, slot, kind, tile)
    t, pl, tr = s.tiles, s.players, s.trade
    s = s._replace(
        tiles=t._replace(owner=t.owner.at[jnp.asarray(away)].set(1)),
        players=pl._replace(at_war=pl.at_war.at[0, 1].set(True).at[1, 0].set(True)),
        trade=tr._replace(offers=tr.offers.at[1, 0].set(jnp.asarray([PEACE, PEACE], jnp.int8))),
    )
    accept = jnp.zeros((6, 2)).at[1, 1].set(1.0)
    out, answers = jax.jit(settle_offers)(s, P0, accept)
    assert int(answers[1]) == 1 and not bool(out.players.at_war[0, 1])
    pos = np.asarray(out.units.pos[0, :4])
    assert pos[0] == centre and pos[2] == centre  # the warrior stays, the settler joins it
    assert distance_np(pos[1], centre) == 1 and distance_np(pos[3], centre) == 1
    assert (np.asarray(out.tiles.owner)[pos] == 0).all()


@pytest.mark.parametrize(("queued", "spawned"), [(False, True), (True, False)])
def test_a_free_settler_respects_the_city_cap(capital, queued, spawned):
    """Item 11: one city and 8 settlers leave room for one more settler (10); with a settler being
    built there is none, so Collective Rule's free settler is lost."""
    centre = int(capital.cities.pos[0, 0])
    far = np.flatnonzero(distance_np(np.arange(2772), centre) == 6)[:8]
    s = capital
    for slot, tile in enumerate(far):
        s = place_unit(s, 0, slot, "settler", int(tile))
    settler = TB.unit("settler")
    c = s.cities
    build = jnp.where(queued, BUILDING_SLOTS + settler - 1, -1)
    s = s._replace(cities=c._replace(constructing=c.constructing.at[0, 0].set(build)))
    out = jax.jit(spawn_free_units)(s, P0, jnp.zeros(len(TB.unit_names)).at[settler].set(1))
    assert int((np.asarray(out.units.kind[0]) == settler).sum()) == 8 + spawned


def test_tourism_is_raised_onto_trading_and_converted_rivals(capital):
    """Item 8: 4 tourism doubled by the Internet = 8 onto each met rival, x 1.25 = 10 onto player 1
    (a caravan of player 0 trades with it) and onto player 2 (its city follows player 0's religion)."""
    centre = int(capital.cities.pos[0, 0])
    s = place_unit(capital, 0, 0, "caravan", centre)
    c, pl, tr, rel = s.cities, s.players, s.trade, s.religion
    s = s._replace(
        cities=c._replace(
            yields=c.yields.at[0, 0, TOURISM].set(4.0),
            exists=c.exists.at[2, 0].set(True),
            pop=c.pop.at[2, 0].set(2),
            pos=c.pos.at[2, 0].set(int(np.flatnonzero(distance_np(np.arange(2772), centre) == 9)[0])),
        ),
        players=pl._replace(have_met=pl.have_met.at[0, 1:4].set(True)),
        trade=tr._replace(route_to_player=tr.route_to_player.at[0, 0].set(1)),
        religion=rel._replace(followers=rel.followers.at[2, 0, 0].set(2)),
    )
    out, _ = jax.jit(great_people_phase)(s, P0, jnp.zeros(8))
    assert np.asarray(out.players.tourism[0]).tolist() == pytest.approx([0, 10, 10, 8, 0, 0])
