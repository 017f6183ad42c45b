"""Religion stages through the tenet endpoint: great prophets at 134 and 201 faith (Messiah: 25 %
less), founding (founder + two followers, the capital's citizens converted), enhancing,
reformation with the Reformation policy, prophets granted by Hagia Sophia, faith purchases; the
resolver's properties (executed tenets legal, never twice, rescaled scores change nothing); the
executed (3,) and the observation through the step."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from hexarena.games.terranova.engine.rules.religion import (
    PROPHET,
    buy_with_faith,
    choose_tenets,
    prophet_cost,
    prophets_to_faith,
    tenet_mask,
)
from hexarena.games.terranova.engine.spaces import zero_actions

from ..religion_helpers import TB, capital_start, take
from ..tn_helpers import contract_observe, contract_step, fed

P0 = jnp.int32(0)
N = 91
KIND = TB.tenet_kind
_choose = jax.jit(choose_tenets)
_mask = jax.jit(tenet_mask)
_buy = jax.jit(buy_with_faith)


@pytest.fixture(scope="module")
def pantheon():
    """Player 0's capital with a pantheon (God-King)."""
    s, _ = capital_start()
    return take(s, "god_king")


def _faith(s, amount: float, player: int = 0):
    return s._replace(players=s.players._replace(faith=s.players.faith.at[player].set(amount)))


def _prefer(*names: str) -> jax.Array:
    """Scores preferring the named tenets in order (then the lowest index)."""
    scores = jnp.zeros(N)
    for i, n in enumerate(names):
        scores = scores.at[TB.tenet(n)].set(10.0 - i)
    return scores


def test_founding_needs_the_first_prophet_134_faith(pantheon):
    scores = _prefer("tithe", "pagodas", "choral_music", "mosques")
    out, ex = _choose(_faith(pantheon, 133.9), P0, scores)
    assert ex.tolist() == [-1, -1, -1] and float(out.players.faith[0]) == pytest.approx(133.9)
    out, ex = _choose(_faith(pantheon, 150.0), P0, scores)
    assert ex.tolist() == [TB.tenet("tithe"), TB.tenet("pagodas"), TB.tenet("choral_music")]
    assert float(out.players.faith[0]) == pytest.approx(150 - 134)
    assert out.religion.followers[0, 0].tolist() == [4, 0, 0, 0, 0, 0]  # the holy city converts
    held = np.asarray(out.players.tenets[0])
    assert held.sum() == 4 and held[TB.tenet("god_king")]


def test_founding_without_a_pantheon_or_a_capital_is_not_legal():
    s, _ = capital_start()
    legal = np.asarray(_mask(_faith(s, 500.0), P0))
    assert legal.any() and (KIND[legal] == 0).all()  # a pantheon first, whatever the faith
    c = s.cities
    no_city = take(s._replace(cities=c._replace(exists=c.exists.at[0].set(False))), "god_king")
    assert not np.asarray(_mask(_faith(no_city, 500.0), P0)).any()


@pytest.mark.parametrize(("messiah", "threshold"), [(False, 201.0), (True, 150.75)])
def test_enhancing_needs_the_second_prophet(pantheon, messiah, threshold):
    """201 faith, or 201 x 0.75 = 150.75 with Messiah (prophets 25 % cheaper)."""
    founded = take(pantheon, "messiah" if messiah else "tithe", "pagodas", "choral_music")
    assert float(jax.jit(prophet_cost, static_argnums=2)(founded, P0, 1)) == pytest.approx(threshold)
    scores = _prefer("dharma", "kotel")
    out, ex = _choose(_faith(founded, threshold - 0.01), P0, scores)
    assert ex.tolist() == [-1, -1, -1]
    out, ex = _choose(_faith(founded, threshold), P0, scores)
    assert ex.tolist() == [TB.tenet("dharma"), -1, -1]
    assert float(out.players.faith[0]) == pytest.approx(0.0, abs=1e-4)
    _, ex2 = _choose(_faith(out, 1000.0), P0, scores)  # one enhancer; reformation needs the policy
    assert ex2.tolist() == [-1, -1, -1]


def test_reformation_is_free_with_the_reformation_policy(pantheon):
    enhanced = _faith(take(pantheon, "tithe", "pagodas", "choral_music", "dharma"), 0.0)
    scores = _prefer("indulgences", "work_ethic")
    _, ex = _choose(enhanced, P0, scores)
    assert ex.tolist() == [-1, -1, -1]
    pl = enhanced.players
    reformed = enhanced._replace(
        players=pl._replace(policies=pl.policies.at[0, TB.policy("reformation")].set(True))
    )
    out, ex = _choose(reformed, P0, scores)
    assert ex.tolist() == [TB.tenet("indulgences"), -1, -1] and float(out.players.faith[0]) == 0.0
    _, ex = _choose(out, P0, scores)  # one reformation tenet
    assert ex.tolist() == [-1, -1, -1]


def test_a_tenet_held_by_another_player_is_never_taken(pantheon):
    s = take(_faith(pantheon, 300.0), "tithe", "pagodas", player=2)  # player 2 holds these
    out, ex = _choose(s, P0, _prefer("tithe", "zakat", "pagodas", "mosques", "choral_music"))
    assert ex.tolist() == [TB.tenet("zakat"), TB.tenet("mosques"), TB.tenet("choral_music")]
    assert (np.asarray(out.players.tenets).sum(0) <= 1).all()


def test_resolver_properties_over_random_games(pantheon):
    """Six players climb every stage under random scores: each executed tenet was legal in the state
    it was taken in, of the kind of its slot, never held twice; 3.5 x scores + 2 picks the same."""
    s = pantheon
    c, pl = s.cities, s.players
    s = s._replace(
        cities=c._replace(exists=c.exists.at[:, 0].set(True), capital=c.capital.at[:, 0].set(True)),
        players=pl._replace(
            tenets=pl.tenets.at[0].set(False),
            policies=pl.policies.at[:, TB.policy("reformation")].set(True),
        ),
    )
    key = jax.random.PRNGKey(3)
    seen = []
    for _ in range(6):
        for p in range(6):
            key, sub = jax.random.split(key)
            scores = jax.random.normal(sub, (N,))
            s = _faith(s, 300.0, p)
            legal = np.asarray(_mask(s, jnp.int32(p)))
            out, ex = _choose(s, jnp.int32(p), scores)
            _, ex2 = _choose(s, jnp.int32(p), scores * 3.5 + 2.0)
            assert ex.tolist() == ex2.tolist()
            picks = [int(t) for t in ex if t >= 0]
            assert all(legal[t] for t in picks) and len(set(picks)) == len(picks)
            assert not set(picks) & set(seen)
            if ex[1] >= 0:
                assert KIND[ex[0]] == 1 and KIND[ex[1]] == 2 and KIND[ex[2]] == 2
            seen += picks
            s = out
    held = np.asarray(s.players.tenets)
    assert (held.sum(0) <= 1).all() and (held.sum(1) == 6).all()  # pantheon, 3, enhancer, reformation
    assert (np.asarray(s.players.faith) >= 0).all()


def test_a_granted_great_prophet_is_the_first_prophets_faith(pantheon):
    pl = pantheon.players
    s = pantheon._replace(players=pl._replace(great_people=pl.great_people.at[0, PROPHET].set(1)))
    out = jax.jit(prophets_to_faith)(_faith(s, 5.0), P0)
    assert float(out.players.faith[0]) == 139.0 and int(out.players.great_people[0, PROPHET]) == 0


def test_faith_buys_a_purchase_tenets_buildings(pantheon):
    """With all five tenets and 125 faith, Pagodas buys a pagoda in the first city without one."""
    s = take(pantheon, "tithe", "pagodas", "choral_music", "dharma")
    pagoda = TB.building("pagoda")
    out = _buy(_faith(s, 130.0), P0)
    assert bool(out.cities.buildings[0, 0, pagoda]) and float(out.players.faith[0]) == pytest.approx(5.0)
    again = _buy(out, P0)  # no city left without one, and too little faith
    assert float(again.players.faith[0]) == pytest.approx(5.0)
    poor = _buy(_faith(s, 124.0), P0)
    assert not bool(poor.cities.buildings[0, 0, pagoda])
    early = _buy(_faith(take(pantheon, "tithe", "pagodas", "choral_music"), 500.0), P0)  # no enhancer yet
    assert not bool(early.cities.buildings[0, 0, pagoda])


def test_step_founds_and_the_observation_shows_the_religion(pantheon):
    s = fed(_faith(pantheon._replace(player=P0, auto_reset=jnp.bool_(False)), 140.0))
    actions = zero_actions()
    scores = _prefer("church_property", "feed_the_world", "holy_warriors")
    out, executed, *_ = contract_step(s, (actions[0], actions[1], scores, *actions[3:]))
    want = [TB.tenet(n) for n in ("church_property", "feed_the_world", "holy_warriors")]
    assert np.asarray(executed[2]).tolist() == want
    obs = contract_observe(out)
    info = obs["player_cities"]["religion_info"]
    assert np.asarray(info["religious_population"])[0, 0] == 4
    here = np.flatnonzero(np.asarray(info["religious_tenets_per_city"])[0])
    assert sorted(here.tolist()) == sorted([TB.tenet("god_king"), *want])
    # church property: +1 gold +1 faith for the one following city
    assert np.asarray(info["building_yields"])[0, 2] >= 1 and np.asarray(info["building_yields"])[0, 3] >= 1
    sent = np.asarray(info["player_perturn_influence_cumulative"])
    assert sent[0, 0, 0] == pytest.approx(27.0)  # the holy city's pressure on itself
    assert np.asarray(obs["religious_tenets"])[0, want].all()
