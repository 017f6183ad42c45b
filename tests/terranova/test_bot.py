"""The heuristic bot plays legal sparse moves and expands."""

from __future__ import annotations

import json

import numpy as np
import pytest

from hexarena.games.terranova.adapter import TerraNovaState
from hexarena.games.terranova.bot import HeuristicPlayer


def test_heuristic_bots_found_cities_and_research():
    state = TerraNovaState.new(seed=3, turn_cap=12)
    bots = {role: HeuristicPlayer(seed=i) for i, role in enumerate(state.all_roles())}
    for role, bot in bots.items():
        bot.reset((role,), 3)
    while not state.is_over():
        role = state.roles[0]
        move = bots[role].act(state.query_game(role)).move
        json.dumps(move)  # sparse moves stay JSON
        nxt = state.apply(move)
        assert nxt.message is None, nxt.message
        state = nxt
    final = state.environment.state
    cities = final.cities.exists.sum(-1)
    assert (cities >= 1).all(), cities
    assert (final.players.techs.sum(-1) >= 2).all()
    assert TerraNovaState.bots["heuristic"].endswith(":HeuristicPlayer")


def test_bot_settles_where_its_options_allow_and_orders_every_city_slot():
    from hexarena.games.terranova.bot import site_values

    state = TerraNovaState.new(seed=3, turn_cap=30)
    view = state.query_game("red").environment
    move = HeuristicPlayer(seed=0).act(state.query_game("red")).move
    assert move["units"]["0"]["categories"][0] in ("settle", "move")
    assert set(move["build"]) == {str(c) for c in range(10)}  # a city founded this move starts at once
    sites = site_values(view.view, 0)
    assert np.isfinite(sites).any() and not np.isfinite(sites[view.view["visibility_map"].ravel() == 0]).any()


def test_bot_ranks_every_policy_tree_by_tree_tradition_first():
    from hexarena.games.terranova.bot import POLICY_TREES, policy_order
    from hexarena.games.terranova.tables import load_tables

    tb = load_tables()
    order = policy_order()
    assert sorted(order) == sorted(tb.policy_names)  # all 54, once each
    trees = [tb.tree_names[tb.policy_tree[tb.policy(p)]] for p in order]
    assert trees == sorted(trees, key=POLICY_TREES.index) and trees[0] == "tradition"
    assert order[0] == "tradition_opener" and trees[6] == "liberty"
    state = TerraNovaState.new(seed=3, turn_cap=30)
    move = HeuristicPlayer(seed=0).act(state.query_game("red")).move
    assert move["policy"] == list(order)


@pytest.mark.slow
def test_bot_expands_to_four_cities_against_random_players():
    from hexarena.core.players import RandomPlayer

    state = TerraNovaState.new(seed=0, turn_cap=60)
    players = {
        r: HeuristicPlayer(seed=0) if i == 0 else RandomPlayer(seed=i)
        for i, r in enumerate(state.all_roles())
    }
    for role, player in players.items():
        player.reset((role,), 0)
    while not state.is_over():
        role = state.roles[0]
        state = state.apply(players[role].act(state.query_game(role)).move)
        assert state.message is None
    assert int(state.environment.state.cities.exists[0].sum()) >= 4
    scores = state.get_scores()
    assert scores["red"] > max(v for r, v in scores.items() if r != "red")
