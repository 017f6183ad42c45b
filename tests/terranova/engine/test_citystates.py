"""City states: influence decay and its floors, friend and ally thresholds, the yields by type,
quests (progress, rotation every 30 rounds, +30 to the winner among players who met the city
state), border growth, militaristic gifts and the observation fields (hand-computed values)."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from hexarena.games.terranova.engine.geometry import neighbors
from hexarena.games.terranova.engine.mapgen import generate
from hexarena.games.terranova.engine.observe import empty_tracker, observe, update_tracker
from hexarena.games.terranova.engine.rules.citystates import (
    citystate_round,
    grow_borders,
    quest_index,
    relationships,
)
from hexarena.games.terranova.engine.rules.cs_relations import have_met, relationship_yields
from hexarena.games.terranova.engine.rules.units import found_city
from hexarena.games.terranova.engine.state import N_PLAYERS, map_layers
from hexarena.games.terranova.engine.step import new_game
from hexarena.games.terranova.engine.tables import CULTURE, FOOD, HAPPY, citystate_rules, load_tables

from ..tn_helpers import place_unit

TB = load_tables()
TYPES = citystate_rules()["types"]
round_ = jax.jit(citystate_round)


@pytest.fixture(scope="module")
def start():
    return new_game(jax.tree_util.tree_map(jnp.asarray, map_layers(generate(0))), jax.random.PRNGKey(0))


def with_cs(s, **fields):
    return s._replace(citystates=s.citystates._replace(**fields))


def meet(s, player: int, cs: int):
    """``player`` has seen the territory of city state ``cs`` and so met it."""
    tiles = np.flatnonzero(np.asarray(s.citystates.owner) == cs + 1)
    met = s.players.have_met.at[player, N_PLAYERS + cs].set(True)
    return s._replace(
        tiles=s.tiles._replace(visibility=s.tiles.visibility.at[player, tiles].set(1)),
        players=s.players._replace(have_met=met),
    )


def adopt(s, player: int, *names: str):
    pol = s.players.policies
    for name in names:
        pol = pol.at[player, TB.policy(name)].set(True)
    return s._replace(players=s.players._replace(policies=pol))


def influence(s, rows: dict[int, list[float]]):
    inf = s.citystates.influence
    for k, row in rows.items():
        inf = inf.at[k].set(jnp.asarray(row, jnp.float32))
    return with_cs(s, influence=inf)


def test_influence_decays_by_one_a_round_to_zero_and_trade_routes_add(start):
    s = influence(start, {3: [10, 0.5, 0, 10, 0, 0]})
    trade = jnp.zeros((6, 12)).at[3, 3].set(1.5)
    out = round_(s, trade, None, jnp.zeros((6, 12)).at[3, 3].set(1))  # one route
    assert np.allclose(out.citystates.influence[3], [9, 0, 0, 10.5, 0, 0])
    assert np.allclose(out.citystates.perturn[3], [-1, -0.5, 0, 0.5, 0, 0])
    assert int(out.citystates.trade_tracker[3, 3]) == 1 and int(out.citystates.trade_tracker.sum()) == 1


def test_patronage_sets_a_resting_floor_and_philanthropy_slows_decay(start):
    s = adopt(influence(start, {0: [10, 10, 0, 0, 0, 0]}), 0, "patronage_opener")
    s = adopt(s, 1, "patronage_opener", "merchant_confederacy", "philanthropy")
    out = round_(s)
    # player 0: floor 20 everywhere; player 1: 10 - 0.75 = 9.25, then the floor of 20
    assert np.allclose(out.citystates.influence[:, 0], 20) and np.allclose(out.citystates.influence[:, 1], 20)
    s = adopt(influence(start, {0: [0, 30, 0, 0, 0, 0]}), 1, "patronage_opener", "merchant_confederacy")
    s = adopt(s, 1, "philanthropy")
    assert float(round_(s).citystates.influence[0, 1]) == pytest.approx(29.25)


def test_friend_at_30_one_ally_at_60_ties_to_the_lowest_id():
    inf = jnp.asarray([[29.9, 30, 59.9, 60, 61, 0], [60, 60, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0]], jnp.float32)
    rel = np.asarray(relationships(inf))
    assert rel[0].tolist() == [0, 1, 1, 1, 2, 0]
    assert rel[1].tolist() == [2, 1, 0, 0, 0, 0]
    assert rel[2].tolist() == [0] * 6


def _two_cities(start):
    """Player 0 with its capital and a second city."""
    s = found_city(start, jnp.int32(0), start.units.pos[0, 0])
    far = int(np.asarray(start.layers.starts)[1])
    return found_city(s, jnp.int32(0), jnp.int32(far))


def test_friend_yields_go_to_the_capital_and_ally_yields_to_every_city(start):
    s = _two_cities(start)
    kind = jnp.asarray([TYPES.index("cultural"), TYPES.index("mercantile")] + [0] * 10, jnp.int8)
    rel = jnp.zeros((12, 6), jnp.int8).at[0, 0].set(1).at[1, 0].set(2)
    s = with_cs(s, kind=kind, relationship=rel)
    y = np.asarray(jax.jit(relationship_yields)(s, jnp.int32(0)))
    # cultural friend: +2 culture in the capital; mercantile ally: +3 happiness in the capital
    # (friend) and +1 happiness in every city (ally)
    assert y[0, CULTURE] == 2 and y[0, HAPPY] == 3 + 1 and y[1, CULTURE] == 0 and y[1, HAPPY] == 1
    assert y[2:].sum() == 0 and y[:, FOOD].sum() == 0
    boosted = np.asarray(jax.jit(relationship_yields)(adopt(s, 0, "scholasticism"), jnp.int32(0)))
    assert boosted[0, HAPPY] == pytest.approx(6.0)  # Scholasticism: +50 %


def test_city_yields_include_the_bonus(start):
    from hexarena.games.terranova.engine.rules.cities import city_yields

    s = _two_cities(start)
    kind = jnp.full(12, TYPES.index("agricultural"), jnp.int8)
    scores = jnp.zeros((10, 36, 36))
    before = np.asarray(jax.jit(city_yields)(s, jnp.int32(0), scores).yields)
    s = with_cs(s, kind=kind, relationship=jnp.zeros((12, 6), jnp.int8).at[:2, 0].set(2))
    after = np.asarray(jax.jit(city_yields)(s, jnp.int32(0), scores).yields)
    # two agricultural allies: capital +2 x (2 + 1) food, the other city +2 x 1
    assert np.allclose(after[:2, FOOD] - before[:2, FOOD], [6, 2])


def test_culture_quest_pays_30_to_the_best_player_who_met_the_city_state(start):
    quest = jnp.full(12, quest_index("culture"), jnp.int8)
    s = with_cs(start, quest=quest, culture_tracker=jnp.asarray([5, 8, 50, 0, 0, 0], jnp.float32))
    s = meet(meet(s, 0, 0), 1, 0)  # player 2 made most culture but never met city state 0
    s = s._replace(turn=jnp.int32(29))
    out = round_(s)
    inf = np.asarray(out.citystates.influence)
    assert inf[0].tolist() == [0, 30, 0, 0, 0, 0]
    assert inf[1:].sum() == 0  # nobody met the other city states
    assert int(out.citystates.relationship[0, 1]) == 1  # a friend now
    assert float(out.citystates.culture_tracker.sum()) == 0  # trackers restart with the new quests
    assert not np.array_equal(np.asarray(out.citystates.quest), np.asarray(quest))
    # one round earlier the quest is still running: progress kept, no reward, same quests
    early = round_(s._replace(turn=jnp.int32(28)))
    assert float(early.citystates.influence.sum()) == 0
    assert np.asarray(early.citystates.culture_tracker).tolist() == [5, 8, 50, 0, 0, 0]
    assert np.array_equal(np.asarray(early.citystates.quest), np.asarray(quest))


def test_tech_and_trade_quests_measure_progress_since_the_quest_began(start):
    quest = jnp.asarray([quest_index("techs"), quest_index("trade_routes")] + [0] * 10, jnp.int8)
    techs = start.players.techs.at[3, TB.tech("pottery")].set(True).at[3, TB.tech("mining")].set(True)
    techs = techs.at[4, TB.tech("pottery")].set(True)
    s = with_cs(start, quest=quest, tech_start=jnp.asarray([1, 1, 1, 1, 2, 1], jnp.int32))
    s = s._replace(players=s.players._replace(techs=techs), turn=jnp.int32(59))
    for p in (3, 4):
        s = meet(meet(s, p, 0), p, 1)
    trade = jnp.zeros((6, 12)).at[4, 1].set(1.5)
    out = round_(s, trade, None, jnp.zeros((6, 12)).at[4, 1].set(1))
    inf = np.asarray(out.citystates.influence)
    assert inf[0].tolist() == [0, 0, 0, 30, 0, 0]  # player 3: +2 techs, player 4: +0
    assert inf[1].tolist() == [0, 0, 0, 0, 30 + 1.5 - 1, 0]  # the only trade route to city state 1
    assert np.asarray(out.citystates.tech_start).tolist() == [1, 1, 1, 3, 2, 1]


def test_no_reward_when_nobody_made_progress(start):
    s = with_cs(start, quest=jnp.full(12, quest_index("faith"), jnp.int8))
    s = meet(s, 0, 0)._replace(turn=jnp.int32(29))
    assert float(round_(s).citystates.influence.sum()) == 0


def test_borders_grow_into_free_adjacent_tiles_near_the_city(start):
    owner0 = np.asarray(start.citystates.owner)
    grow = jax.jit(grow_borders)
    grown = 0
    for i in range(12):
        owner = np.asarray(grow(start, jax.random.PRNGKey(i)))
        new = np.flatnonzero(owner != owner0)
        assert (owner0[new] == 0).all() and (np.asarray(start.tiles.owner)[new] < 0).all()
        for t in new:
            nb = neighbors()[t]
            assert (owner0[nb[nb >= 0]] == owner[t]).any(), "a claimed tile touches the territory"
        assert len(new) <= 12
        grown += len(new)
    assert 0 < grown < 12 * 12 * 0.5  # 5 % a round per city state


def test_militaristic_friends_and_allies_strengthen_one_military_unit(start):
    kind = jnp.asarray([TYPES.index("militaristic")] * 2 + [0] * 10, jnp.int8)
    s = with_cs(influence(start, {0: [100, 40, 0, 0, 0, 0], 1: [40, 0, 0, 0, 0, 0]}), kind=kind)
    out = round_(s)
    bonus = np.asarray(out.citystates.combat_bonus)
    warrior = 1  # slot 1 holds each player's warrior, slot 0 the settler (not military)
    assert bonus[0, warrior] == pytest.approx(2 * 0.025 + 0.025)  # ally of one, friend of the other
    assert bonus[1, warrior] == pytest.approx(0.025) and bonus[2:].sum() == 0 and bonus[:, 0].sum() == 0
    gone = out._replace(units=out.units._replace(kind=out.units.kind.at[0, warrior].set(0)))
    assert float(round_(gone).citystates.combat_bonus[0].sum()) == 0  # a dead unit's bonus goes


def test_meeting_a_city_state_and_the_observation(start):
    s = meet(start, 0, 4)
    met = np.asarray(have_met(s))
    assert met[0, 6 + 4] and met[0, 6:].sum() == 1 and not met[1, 6:].any()
    assert met[np.arange(6), np.arange(6)].all()
    s = with_cs(s, influence=s.citystates.influence.at[4, 0].set(70).at[5, 3].set(65))
    s = round_(s)
    obs = jax.jit(observe)(s, update_tracker(empty_tracker(), s), jnp.int32(0))
    info = obs["citystate_info"]
    assert (
        int(info["cs_type"][4]) == int(s.citystates.kind[4]) and (np.delete(info["cs_type"], 4) == -1).all()
    )
    assert int(info["quest_type"][4]) >= 1 and int(info["relationships"][4]) == 0
    assert int(info["relationships"][5]) == 3  # everyone knows who the allies are
    assert float(info["influence_level"][4]) == 69 and float(obs["cs_perturn_influence"][4]) == -1
    assert (info["city_rowcols"][4] >= 0).all() and (info["city_rowcols"][5] == -1).all()
    assert int(obs["num_delegates"][0]) == 0 and (obs["num_delegates"][1:] == -1).all()
    assert float(obs["culture_info"]["cs_resting_influence"]) == 0


def test_the_militaristic_gift_counts_in_combat(start):
    from hexarena.games.terranova.engine.rules.units import _unit_defence

    s = place_unit(start, 1, 2, "warrior", int(start.units.pos[1, 1]))
    plain = float(_unit_defence(s, jnp.int32(1), jnp.int32(2), s.units.pos[1, 2]))
    gifted = with_cs(s, combat_bonus=s.citystates.combat_bonus.at[1, 2].set(0.05))
    assert float(_unit_defence(gifted, jnp.int32(1), jnp.int32(2), s.units.pos[1, 2])) == pytest.approx(
        plain * 1.05
    )


def test_the_text_view_lists_met_city_states_and_victory_progress(start):
    from hexarena.games.terranova.contract.text.citystates import citystate_section

    s = with_cs(meet(start, 0, 4), influence=start.citystates.influence.at[4, 0].set(70))
    s = round_(s)
    obs = jax.tree_util.tree_map(
        np.asarray, jax.jit(observe)(s, update_tracker(empty_tracker(), s), jnp.int32(0))
    )
    lines = citystate_section(obs, 0)
    kind = TYPES[int(s.citystates.kind[4])]
    quest = citystate_rules()["quests"][int(s.citystates.quest[4]) - 1]
    assert lines[0].startswith(f"City state #4 ({kind}) at (")
    assert "your influence 69.0 (-1.0 a round, ally); ally you; quest " + quest in lines[0]
    assert lines[1:] == [
        "Science: 0 of 6 spaceship parts built.",
        "Domination: 0 of 5 rival capitals sacked.",
        "Culture: your tourism exceeds the lifetime culture of 0 of 5 rivals.",
        "Diplomatic: 0 delegates + 1 allied city state = 1 of 12 votes, counted when the World Congress "
        "meets (every 30 rounds, once someone knows Printing Press and has met everyone).",
    ]
    assert (
        citystate_section(
            jax.tree_util.tree_map(
                np.asarray, jax.jit(observe)(start, update_tracker(empty_tracker(), start), jnp.int32(1))
            ),
            1,
        )[0]
        == "No city state met yet."
    )
