"""Rule and observation defects found by an independent rules check (issue 13), through the API."""

from __future__ import annotations

from hexarena.games.smallworld import GameConfig, Phase, SmallWorldGame
from hexarena.games.smallworld.enums import PowerName, RaceName

from .helpers import act, begin_turn, line_map, region, rig_die, scenario, setup_pool, targets

R, P = RaceName, PowerName
F = "FARMLAND"

GHOUL_LOG = [
    {"type": "PICK_COMBO", "index": 0},
    {"type": "CONQUER", "region_id": 0},
    {"type": "CONQUER", "region_id": 3},
    {"type": "CONQUER", "region_id": 4},
    {"type": "SKIP_CONQUEST"},
    {"type": "SKIP_CONQUEST"},
    {"type": "REDEPLOY", "placements": {0: 8, 3: 1, 4: 1}},
    {"type": "PICK_COMBO", "index": 0},
    {"type": "SKIP_CONQUEST"},
    {"type": "SKIP_CONQUEST"},
    {"type": "DECLINE"},
    {"type": "EXPAND"},
    {"type": "SKIP_CONQUEST"},
    {"type": "SKIP_CONQUEST"},
    {"type": "PICK_COMBO", "index": 0},
]


def test_declined_ghouls_place_the_full_cost_of_each_conquest():
    game = SmallWorldGame.replay(GameConfig(num_players=2, seed=1), GHOUL_LOG)
    assert game.get_phase() is Phase.GHOUL_CONQUEST
    ghouls = game._state.players[0].decline
    assert ghouls.race_name is R.GHOULS and ghouls.tokens_in_hand == 7
    cost = int(game.get_observation(0)["conquest_costs"]["5"])
    out = act(game, "CONQUER", region_id=5)
    assert out["tokens_used"] == cost == 3
    assert region(game, 5).tokens == 3 and ghouls.tokens_in_hand == 4
    act(game, "CONQUER", region_id=8)
    assert (region(game, 5).tokens, region(game, 8).tokens, ghouls.tokens_in_hand) == (3, 3, 1)


def test_declined_ghouls_final_conquest_places_every_token_in_hand_after_full_cost_conquests():
    game = scenario(line_map([F] * 6), [(R.RATMEN, P.ALCHEMIST)])
    setup_pool(game, 0, R.GHOULS, P.HILL, {0: 6}, decline=True)
    begin_turn(game, 0)
    act(game, "PICK_COMBO", index=0)  # ready troops: 5 Ghouls in hand
    act(game, "CONQUER", region_id=1)  # cost 2
    assert (region(game, 0).tokens, region(game, 1).tokens) == (1, 2)
    assert game._state.players[0].decline.tokens_in_hand == 3
    act(game, "CONQUER", region_id=2)  # cost 2: 1 left in hand
    assert region(game, 2).tokens == 2
    assert 3 in targets(game, "FINAL_CONQUEST")
    rig_die(game, 1)
    out = act(game, "FINAL_CONQUEST", region_id=3)
    assert out["success"] and region(game, 3).tokens == 1
    assert [region(game, r).tokens for r in (0, 1, 2, 3)] == [1, 2, 2, 1]
    assert game._state.players[0].decline.tokens_in_hand == 0


def test_halflings_with_seafaring_may_enter_through_an_edge_sea():
    game = SmallWorldGame(GameConfig(num_players=2, seed=0))
    combo = game.get_observation(0)["combo_row"][5]
    assert (combo["race"], combo["power"]) == ("Halflings", "Seafaring")
    act(game, "PICK_COMBO", index=5)
    gs = game._state
    seas = {r.id for r in gs.map.regions if r.is_water and r.is_border}
    assert 4 in seas and seas <= targets(game)
    act(game, "CONQUER", region_id=4)
    assert region(game, 4).race is R.HALFLINGS
