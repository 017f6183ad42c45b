"""The heuristic bot plays legal sparse moves and expands."""

from __future__ import annotations

import json

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
