"""The heuristic bot plays legal sparse moves and expands."""

from __future__ import annotations

import json

import numpy as np
import pytest

from hexarena.games.terranova.adapter import TerraNovaState
from hexarena.games.terranova.bot import HeuristicPlayer, game_against_random


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
    # every citizen works a tile of its own (one work ranking is spread over a city's citizens;
    # a city that grew this turn has one more citizen than worked tiles until its next turn)
    exists = np.asarray(final.cities.exists)
    worked = np.asarray(final.cities.worked)[..., 1:].sum(-1)[exists]
    pop = np.asarray(final.cities.pop)[exists]
    assert ((worked == pop) | (worked == pop - 1)).all() and (worked >= 2).any()
    assert TerraNovaState.bots["heuristic"].endswith(":HeuristicPlayer")


def test_bot_settles_where_its_options_allow_and_orders_every_city_slot():
    from hexarena.games.terranova.bot import site_values

    state = TerraNovaState.new(seed=3, turn_cap=30)
    view = state.query_game("red").environment
    move = HeuristicPlayer(seed=0).act(state.query_game("red")).move
    assert move["units"]["0"]["categories"][0] in ("settle", "move")
    assert set(move["build"]) == {str(c) for c in range(10)}  # a city founded this move starts at once
    sites = site_values(view.view, 0)
    seen = view.view["visibility_map"].ravel() > 0
    water = seen & ~np.isin(view.view["elevation_map"].ravel(), (1, 2))
    assert not np.isfinite(sites[water]).any()  # never on seen water or mountains
    # unseen tiles are guesses, discounted: a seen good site beats them
    assert np.isfinite(sites[~seen]).any() and sites[~seen].max() < sites[seen].max()


def test_bot_ranks_every_policy_culture_first_then_tree_by_tree():
    from hexarena.games.terranova.bot import POLICY_FIRST, POLICY_TREES, policy_order
    from hexarena.games.terranova.tables import load_tables

    tb = load_tables()
    order = policy_order()
    assert sorted(order) == sorted(tb.policy_names)  # all 54, once each
    assert order[: len(POLICY_FIRST)] == POLICY_FIRST and order[0] == "tradition_opener"
    trees = [tb.tree_names[tb.policy_tree[tb.policy(p)]] for p in order[len(POLICY_FIRST) :]]
    assert trees == sorted(trees, key=POLICY_TREES.index)
    state = TerraNovaState.new(seed=3, turn_cap=30)
    move = HeuristicPlayer(seed=0).act(state.query_game("red")).move
    assert move["policy"] == list(order)


def test_bot_takes_its_favourite_pantheon_once_it_has_the_faith():
    from dataclasses import replace

    import jax.numpy as jnp

    from hexarena.games.terranova.bot import PANTHEONS
    from hexarena.games.terranova.bot_religion import tenet_order
    from hexarena.games.terranova.tables import load_tables

    tb = load_tables()
    state = TerraNovaState.new(seed=3, turn_cap=30)
    order = tenet_order(state.query_game("red").environment.view, 0, PANTHEONS)
    assert sorted(order) == sorted(tb.tenet_names) and order[0] == PANTHEONS[0]
    for i, role in enumerate(
        state.all_roles()
    ):  # round 0: everyone founds a capital (a pantheon needs a city)
        state = state.apply(HeuristicPlayer(seed=i).act(state.query_game(role)).move)
    sim = state.environment.state
    rich = sim._replace(players=sim.players._replace(faith=jnp.full(6, 20.0, jnp.float32)))
    state = state.replace(environment=replace(state.environment, state=rich))
    move = HeuristicPlayer(seed=0).act(state.query_game("red")).move
    after = state.apply(move)
    assert after.message is None, after.message
    taken = np.flatnonzero(np.asarray(after.environment.state.players.tenets[0]))
    assert [tb.tenet_names[t] for t in taken] == [PANTHEONS[0]]
    # the next player's favourite is gone: it takes the second one
    blue = HeuristicPlayer(seed=1).act(after.query_game("blue")).move
    later = after.apply(blue).environment.state.players.tenets[1]
    assert [tb.tenet_names[t] for t in np.flatnonzero(np.asarray(later))] == [PANTHEONS[1]]


def _red_leads(state: TerraNovaState) -> bool:
    scores = state.get_scores()
    return scores["red"] > max(v for r, v in scores.items() if r != "red")


def test_bot_has_three_cities_two_policies_and_the_lead_by_round_30():
    state = game_against_random(seed=0, rounds=30)
    final = state.environment.state
    assert int(final.cities.exists[0].sum()) >= 3 and _red_leads(state)
    assert int(final.players.policies[0].sum()) >= 2  # Tradition's and Liberty's openers


@pytest.mark.slow
def test_bot_expands_to_four_cities_against_random_players():
    state = game_against_random(seed=0, rounds=45)
    assert int(state.environment.state.cities.exists[0].sum()) >= 4 and _red_leads(state)
