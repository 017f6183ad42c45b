"""Trade deals: offers, answers, the 15-turn ledger of 10, gold per turn, resources (luxury happiness),
peace, embassies and wars, each with hand-computed values; resolver properties over random
preferences; the endpoint through the game-contract adapter in its JSON form."""

from __future__ import annotations

import dataclasses

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from hexarena.games.terranova.adapter import TerraNovaState
from hexarena.games.terranova.engine.geometry import distance_np, work_area
from hexarena.games.terranova.engine.rules import trade
from hexarena.games.terranova.engine.rules.cities import resources_owned
from hexarena.games.terranova.engine.rules.units import found_city
from hexarena.games.terranova.engine.step import empire_phase
from hexarena.games.terranova.engine.tables import GOLD, GRANTS, load_tables
from hexarena.games.terranova.engine.world import occupancy

from ..tn_helpers import grassland_start, place_unit

TB = load_tables()
SILK = TB.resource("silk")
SILK_ITEM = 3 + SILK
GPT, PEACE, EMBASSY = trade.GOLD_PER_TURN, trade.PEACE, trade.EMBASSY

_phase = jax.jit(trade.trade_phase)
_expire = jax.jit(trade.expire_deals)
_settle = jax.jit(trade.settle_offers)
_offer = jax.jit(trade.make_offer)
_owned = jax.jit(resources_owned)
_empire = jax.jit(lambda s, p: empire_phase(s, p, jnp.zeros(8), jnp.zeros(len(GRANTS))))
_after_wars = jax.jit(trade.after_wars)
_sight = jax.jit(trade.embassy_sight)
_blocked = jax.jit(lambda s, p: trade.peace_blocked(s, p, occupancy(s)))


def _on_turn(s, p: int):
    return s._replace(player=jnp.int32(p))


@pytest.fixture(scope="module")
def world():
    """Players 0 and 1 with a capital 5 tiles apart on grassland, all techs, met, 10 gold a turn;
    player 1 owns one improved silk next to its capital; 100 gold each. Returns (state, p0 capital, p1 capital, silk)."""
    s, centre = grassland_start(radius=8)
    far = int(np.flatnonzero(distance_np(np.arange(2772), centre) == 5)[0])
    s = found_city(found_city(s, jnp.int32(0), jnp.int32(centre)), jnp.int32(1), jnp.int32(far))
    silk_tile = int(work_area()[far, 1])
    lay, t, c, pl = s.layers, s.tiles, s.cities, s.players
    s = s._replace(
        layers=lay._replace(resource=lay.resource.at[silk_tile].set(SILK)),
        tiles=t._replace(
            improvement=t.improvement.at[silk_tile].set(TB.improvement_names.index("plantation"))
        ),
        cities=c._replace(yields=c.yields.at[:2, 0, GOLD].set(10.0)),
        players=pl._replace(
            techs=pl.techs.at[:2].set(True), gold=jnp.full(6, 100.0), have_met=jnp.ones_like(pl.have_met)
        ),
    )
    return s, centre, far, silk_tile


def scores(ask=(), offer=(), to=(), accept=(), deny=()):
    """Trade scores: the listed items / players first (in order), everything else below."""
    ad = np.zeros((6, 2), np.float32)
    for q in accept:
        ad[q, trade.ACCEPT] = 1.0
    for q in deny:
        ad[q, 1 - trade.ACCEPT] = 1.0
    ask_s, offer_s, to_s = np.full((6, 56), -1.0), np.full(56, -1.0), np.full(6, -1.0)
    for rank, item in enumerate(ask):
        ask_s[:, item] = len(ask) - rank
    for rank, item in enumerate(offer):
        offer_s[item] = len(offer) - rank
    for rank, q in enumerate(to):
        to_s[q] = len(to) - rank
    return tuple(jnp.asarray(x, jnp.float32) for x in (ad, ask_s, offer_s, to_s))


def _deal(s, ask, offer, accept=True):
    """Player 0 offers ``offer`` for ``ask`` to player 1, who answers on its turn."""
    s, ex0 = _phase(s, jnp.int32(0), scores(ask=[ask], offer=[offer], to=[1]))
    answer = scores(accept=[0]) if accept else scores(deny=[0])
    s, ex1 = _phase(s, jnp.int32(1), answer)
    return s, ex0, ex1


def test_gold_per_turn_for_a_luxury(world):
    s0, *_ = world
    happy_before = [float(_empire(s0, jnp.int32(p)).players.happiness[p]) for p in (0, 1)]
    gold_before = [float(_empire(s0, jnp.int32(p)).players.gold[p]) for p in (0, 1)]
    s, ex0, ex1 = _deal(s0, SILK_ITEM, GPT)
    assert [int(x) for x in ex0[1:]] == [SILK_ITEM, GPT, 1]  # executed ask, offer, counterparty
    assert ex1.decisions.tolist() == [1, -1, -1, -1, -1, -1]
    tr = s.trade
    slot0, slot1 = int(np.argmax(tr.length[0])), int(np.argmax(tr.length[1]))
    assert tr.ledger[0, 1, slot0].tolist() == [GPT, SILK_ITEM] and tr.ledger[1, 0, slot1].tolist() == [
        SILK_ITEM,
        GPT,
    ]
    assert int(tr.length[0, slot0]) == int(tr.length[1, slot1]) == 15
    assert tr.gpt.tolist()[:2] == [-5.0, 5.0]
    assert int(tr.resources[0, SILK - 1]) == 1 and int(tr.resources[1, SILK - 1]) == -1
    assert bool(_owned(s, jnp.int32(0))[SILK]) and not bool(_owned(s, jnp.int32(1))[SILK])
    # The luxury's 4 happiness moved from player 1 to player 0; 5 gold a turn the other way.
    happy = [float(_empire(s, jnp.int32(p)).players.happiness[p]) for p in (0, 1)]
    gold = [float(_empire(s, jnp.int32(p)).players.gold[p]) for p in (0, 1)]
    assert happy[0] - happy_before[0] == pytest.approx(4.0) and happy[1] - happy_before[1] == pytest.approx(
        -4.0
    )
    assert gold[0] - gold_before[0] == pytest.approx(-5.0) and gold[1] - gold_before[1] == pytest.approx(5.0)


def test_an_offer_is_seen_then_denied(world):
    s0, *_ = world
    s, _ = _phase(s0, jnp.int32(0), scores(ask=[SILK_ITEM], offer=[GPT], to=[1]))
    seen = trade.observed(s, jnp.int32(1))
    assert seen["trade_offers"][0].tolist() == [SILK_ITEM, GPT]  # (asked of 1, offered to 1)
    assert (np.asarray(seen["trade_offers"])[1:] == -1).all()
    s, ex = _phase(s, jnp.int32(1), scores())  # all-zero answers deny
    assert ex.decisions.tolist()[0] == 0 and not (s.trade.length > 0).any()
    assert (np.asarray(s.trade.offers[:, 1]) == 0).all()  # answered offers are gone


def test_a_deal_ends_after_15_turns_on_each_side(world):
    s, *_ = world
    s, *_ = _deal(s, SILK_ITEM, GPT)
    for _ in range(14):
        s = _expire(s, jnp.int32(0))
    assert (s.trade.length[0] == 1).any() and float(s.trade.gpt[0]) == -5.0
    s = _expire(s, jnp.int32(0))
    assert not (s.trade.length[0] > 0).any() and float(s.trade.gpt[0]) == 0.0
    assert int(s.trade.resources[0, SILK - 1]) == 0 and not (s.trade.ledger[0] > 0).any()
    assert (s.trade.length[1] == 15).any() and float(s.trade.gpt[1]) == 5.0  # the partner's turn comes
    obs = trade.observed(s, jnp.int32(1))
    assert (
        sorted(np.asarray(obs["trade_length_ledger"]).tolist())[-1] == 15
        and float(obs["trade_gpt_adjustment"]) == 5
    )


def test_peace_ends_a_war_sends_units_home_and_binds_the_giver(world):
    s, centre, far, _ = world
    pl = s.players
    s = s._replace(players=pl._replace(at_war=pl.at_war.at[0, 1].set(True).at[1, 0].set(True)))
    inside = int(work_area()[far, 3])  # a tile of player 1's territory
    s = place_unit(s, 0, 1, "warrior", inside)
    # At war only peace for peace is offered, whatever else is preferred.
    s, ex0 = _phase(s, jnp.int32(0), scores(ask=[SILK_ITEM, PEACE], offer=[GPT, PEACE], to=[1]))
    assert [int(x) for x in ex0[1:]] == [PEACE, PEACE, 1]
    s, ex1 = _phase(s, jnp.int32(1), scores(accept=[0]))
    assert int(ex1.decisions[0]) == 1
    assert not bool(s.players.at_war[0, 1]) and not bool(s.players.at_war[1, 0])
    assert int(s.units.pos[0, 1]) == centre  # the warrior went home to its capital
    assert bool(trade.peace_protected(s, jnp.int32(1))[0]) and bool(trade.peace_protected(s, jnp.int32(0))[1])
    blocked = np.asarray(_blocked(s, jnp.int32(1)))
    assert blocked[centre] and blocked[int(work_area()[centre, 2])]  # player 0's city and land
    assert not np.asarray(_blocked(world[0], jnp.int32(1))).any()  # no deal, no ban


def test_a_war_cancels_the_deals_and_returns_what_was_exchanged(world):
    s, *_ = world
    s, *_ = _deal(s, SILK_ITEM, GPT)
    before = s.players.at_war
    pl = s.players
    s = s._replace(players=pl._replace(at_war=pl.at_war.at[1, 0].set(True).at[0, 1].set(True)))
    s = _after_wars(s, before)
    tr = s.trade
    assert not (tr.ledger > 0).any() and not (tr.length > 0).any()
    assert not np.asarray(tr.gpt).any() and not np.asarray(tr.resources).any()


def test_nothing_is_offered_that_the_offerer_lacks(world):
    s, *_ = world
    # Player 0 has no silk: its best legal offer after silk is an embassy.
    _, ex = _phase(s, jnp.int32(0), scores(ask=[GPT], offer=[SILK_ITEM, EMBASSY], to=[1]))
    assert int(ex.offer) == EMBASSY
    broke = s._replace(cities=s.cities._replace(yields=s.cities.yields.at[0, 0, GOLD].set(4.0)))
    _, ex = _phase(broke, jnp.int32(0), scores(ask=[SILK_ITEM], offer=[GPT], to=[1]))
    assert int(ex.counterparty) == -1  # under 5 gold a turn: no gold to offer, nothing else scored
    # Player 1 cannot be asked for a resource it lacks either.
    _, ex = _phase(s, jnp.int32(0), scores(ask=[TB.resource("iron") + 3], offer=[GPT], to=[1]))
    assert int(ex.counterparty) == -1


def test_no_deal_beyond_a_full_ledger(world):
    s, *_ = world
    s, _ = _phase(s, jnp.int32(0), scores(ask=[SILK_ITEM], offer=[GPT], to=[1]))
    tr = s.trade
    full = tr._replace(length=tr.length.at[1].set(9), ledger=tr.ledger.at[1, 2, :, 0].set(EMBASSY))
    s_full = s._replace(trade=full)
    s2, ex = _phase(s_full, jnp.int32(1), scores(accept=[0]))
    assert int(ex.decisions[0]) == -1 and (s2.trade.length[1] > 0).sum() == 10
    _, ex = _phase(s_full, jnp.int32(0), scores(ask=[EMBASSY], offer=[EMBASSY], to=[1]))
    assert int(ex.counterparty) == 2  # player 1's ledger is full: the offer falls to the next player


def test_embassies_show_the_capital(world):
    s, centre, far, _ = world
    s, _, ex1 = _deal(s, EMBASSY, EMBASSY)
    assert int(ex1.decisions[0]) == 1
    assert np.asarray(trade.embassies(s))[[0, 1], [1, 0]].all()
    sight = np.asarray(_sight(s))
    assert sight[0, far] and sight[1, centre] and not sight[2].any()
    # Nobody gives a second embassy while the first runs.
    _, ex = _phase(s, jnp.int32(0), scores(ask=[EMBASSY], offer=[EMBASSY], to=[1]))
    assert int(ex.counterparty) == -1


def test_resolver_properties_over_random_preferences(world):
    """An accepted deal is one both sides chose, no ledger holds more than 10, nothing is offered or
    given that the giver lacks, peace ends the war, at war only peace is traded."""
    s, *_ = world
    s = s._replace(cities=s.cities._replace(yields=s.cities.yields.at[2:, 0, GOLD].set(6.0)))
    pl = s.players
    s = s._replace(players=pl._replace(at_war=pl.at_war.at[0, 2].set(True).at[2, 0].set(True)))
    key = jax.random.PRNGKey(7)
    accepted = 0
    _give = jax.jit(
        lambda st: trade.giveable(st.trade, trade.gold_income(st), trade.resource_tile_counts(st))
    )
    for turn in range(48):
        p = jnp.int32(turn % 6)
        key, k = jax.random.split(key)
        ad, ask, offer, to = (
            jax.random.uniform(kk, sh)
            for kk, sh in zip(jax.random.split(k, 4), [(6, 2), (6, 56), (56,), (6,)], strict=True)
        )
        s = _expire(s, p)
        offers, ledger_before = np.asarray(s.trade.offers[:, int(p)]), np.asarray(s.trade.ledger)
        can = np.asarray(_give(s))
        s, decisions = _settle(s, p, ad)
        for q, d in enumerate(np.asarray(decisions).tolist()):
            if d == 1:
                accepted += 1
                assert ad[q, trade.ACCEPT] > ad[q, 1 - trade.ACCEPT], "accepted against the answer"
                off, asked = offers[q]
                assert can[q, int(p), off] and can[int(p), q, asked], "a side gave what it lacked"
                assert np.asarray(s.trade.ledger[int(p), q]).tolist().count([asked, off]) > ledger_before[
                    int(p), q
                ].tolist().count([asked, off])
                if PEACE in (off, asked):
                    assert not bool(s.players.at_war[int(p), q])
            elif d == 0:
                assert ad[q, trade.ACCEPT] <= ad[q, 1 - trade.ACCEPT]
        can = np.asarray(_give(s))
        s, a, o, q = _offer(s, p, ask, offer, to)
        if int(q) >= 0:
            assert can[int(p), int(q), int(o)] and can[int(q), int(p), int(a)]
            if bool(s.players.at_war[int(p), int(q)]):
                assert int(a) == int(o) == PEACE
        assert ((np.asarray(s.trade.length) > 0).sum(1) <= 10).all()
    assert accepted >= 5


def game_where_all_have_met() -> TerraNovaState:
    """An adapter game at its first turn in which every player has met every other."""
    game = TerraNovaState.new(seed=2, turn_cap=5)
    env = game.environment
    met = env.state.players._replace(have_met=jnp.ones((6, 18), bool))
    return dataclasses.replace(
        game, environment=dataclasses.replace(env, state=env.state._replace(players=met))
    )


def test_trade_through_the_adapter_in_json():
    game = game_where_all_have_met()
    move = game.parse_move(
        '{"trade": {"to": [1], "ask": ["embassy"], "offer": ["embassy", "gold_per_turn"]}}'
    )
    s = game.apply(move)
    assert s.message is None
    assert s.environment.executed[0] == [[-1] * 6, EMBASSY, EMBASSY, 1]
    s = s.apply({"trade": {"accept": [0]}})
    assert s.message is None and s.environment.executed[0][0][0] == 1
    assert np.asarray(trade.embassies(s.environment.state))[1, 0]
    assert "unknown trade item 'unicorns'" in s.apply({"trade": {"offer": ["unicorns"]}}).message
    assert "unknown trade keys ['bribe']" in s.apply({"trade": {"bribe": 1}}).message
    assert "out of range" in s.apply({"trade": {"accept": [9]}}).message
