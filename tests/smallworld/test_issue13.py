"""Rule and observation defects found by an independent rules check (issue 13), through the API."""

from __future__ import annotations

import random

from hexarena.games.smallworld import GameConfig, Phase, SmallWorldGame
from hexarena.games.smallworld.data_loader import get_race_config
from hexarena.games.smallworld.enums import PowerName, RaceName
from hexarena.games.smallworld.text import render_observation

from .helpers import (
    act,
    begin_turn,
    finish_conquest,
    line_map,
    region,
    rig_die,
    scenario,
    setup_pool,
    targets,
)

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


def _race_views(obs: dict) -> list[dict]:
    players = [obs["self"], *obs["opponents"]]
    return [p[k] for p in players for k in ("active", "decline", "decline_spirit") if p[k]]


def test_every_race_reports_its_tokens_on_the_map_in_hand_and_in_the_box_at_every_step():
    game = SmallWorldGame(GameConfig(num_players=3, seed=11))
    rng = random.Random(5)
    seen_loss = False
    while not game.is_game_over():
        for viewer in range(3):
            obs = game.get_observation(viewer)
            for view in _race_views(obs):
                race = view["race"]
                on_map = sum(r["tokens"] for r in obs["map"]["regions"] if r["race"] == race)
                assert view["tokens_on_map"] == on_map
                assert view["tokens_total"] == on_map + view["tokens_in_hand"] + view["tokens_pending"]
                max_tokens = get_race_config(RaceName(race)).max_tokens
                assert view["tokens_total"] + view["tokens_in_box"] == max_tokens
        before = {v["race"]: v["tokens_total"] for v in _race_views(game.get_observation(0))}
        game.submit_action(game.get_current_player(), rng.choice(game.get_legal_actions()))
        after = {v["race"]: v["tokens_total"] for v in _race_views(game.get_observation(0))}
        seen_loss |= any(after.get(r, 0) < n for r, n in before.items() if r in after)
    assert seen_loss  # the totals do drop when a race loses tokens


def test_a_defender_sees_who_took_what_from_it_since_its_last_turn_oldest_first():
    game = scenario(line_map([F] * 6), [(R.RATMEN, P.ALCHEMIST), (R.HUMANS, P.HILL)])
    setup_pool(game, 1, R.ORCS, P.FOREST, {2: 3})
    act(game, "PICK_COMBO", index=0)  # player 0: Ratmen
    act(game, "CONQUER", region_id=0)
    act(game, "CONQUER", region_id=1)
    act(game, "CONQUER", region_id=2)  # 2 + 3 Orcs = 5 tokens; Orcs lose 1, keep 2
    finish_conquest(game)
    act(game, "REDEPLOY", placements={0: 2, 1: 2, 2: 8})
    assert game.get_current_player() == 1  # Orcs, with no region, take their 2 back to hand
    obs = game.get_observation(1)
    kinds = [e["event"] for e in obs["events"]]
    assert kinds[:2] == ["turn_start", "pick_combo"] and kinds[-1] == "turn_start"
    hits = [e for e in obs["events"] if e["event"] == "conquest"]
    assert [e["region"] for e in hits] == [0, 1, 2]
    assert hits[2] == {
        "event": "conquest", "turn": 1, "player": 0, "race": "Ratmen", "region": 2, "tokens": 5,
        "defender": 1, "defender_race": "Orcs", "defender_tokens": 3, "defender_lost": 1,
        "lost_tribe": False, "by": "conquest",
    }  # fmt: skip
    assert any(
        e["event"] == "redeploy" and e["placements"] == {"0": 2, "1": 2, "2": 8} for e in obs["events"]
    )
    assert any(e["event"] == "score" and e["coins"] == "HIDDEN" for e in obs["events"])
    text = render_observation(obs, ["red", "blue"])
    assert "Since your last turn (oldest first):" in text
    assert "red: Ratmen took region 2 with 5 tokens from blue's Orcs (3 tokens, 1 lost)" in text
    orcs = obs["self"]["active"]
    assert (orcs["tokens_on_map"], orcs["tokens_in_hand"], orcs["tokens_total"]) == (0, 2, 2)
    # Player 0's own window starts at its own last turn; after blue's decline it sees that too.
    act(game, "DECLINE")
    assert game.get_current_player() == 0
    mine = game.get_observation(0)["events"]
    assert mine[0] == {"event": "turn_start", "turn": 1, "player": 0}
    assert {"event": "decline", "turn": 1, "player": 1, "race": "Orcs", "power": "Forest"} in mine
    assert [e["turn"] for e in mine] == sorted(e["turn"] for e in mine)


def test_a_die_roll_and_a_decline_reach_the_other_players_log():
    game = scenario(line_map([F] * 3), [(R.RATMEN, P.ALCHEMIST)])
    setup_pool(game, 1, R.HUMANS, P.HILL, {1: 10})
    act(game, "PICK_COMBO", index=0)  # 12 Ratmen
    act(game, "CONQUER", region_id=0)  # 10 left; region 1 costs 12
    act(game, "SKIP_CONQUEST")
    rig_die(game, 3)
    act(game, "FINAL_CONQUEST", region_id=1)
    act(game, "REDEPLOY", placements={0: 2, 1: 10})
    assert game.get_current_player() == 1
    act(game, "DECLINE")
    events = game.get_observation(0)["events"]
    die = next(e for e in events if e["event"] == "reinforcement_die")
    assert (die["player"], die["region"], die["roll"], die["success"]) == (0, 1, 3, True)
    assert {"event": "decline", "turn": 1, "player": 1, "race": "Humans", "power": "Hill"} in events


def test_declined_races_say_which_of_their_abilities_still_act():
    game = scenario(line_map([F] * 4), [(R.RATMEN, P.ALCHEMIST)])
    setup_pool(game, 1, R.GHOULS, P.SEAFARING, {0: 2}, decline=True)
    setup_pool(game, 1, R.DWARVES, P.SPIRIT, {1: 1}, decline=True, spirit_slot=True)
    setup_pool(game, 0, R.HUMANS, P.HILL, {3: 1}, decline=True)
    obs = game.get_observation(0)
    blue = obs["opponents"][0]
    assert (blue["decline"]["race_ability_acts"], blue["decline"]["power_acts"]) == (True, True)
    spirit = blue["decline_spirit"]
    assert (spirit["race_ability_acts"], spirit["power_acts"]) == (True, True)
    mine = obs["self"]["decline"]
    assert (mine["race_ability_acts"], mine["power_acts"]) == (False, False)
    text = render_observation(obs, ["red", "blue"])
    assert (
        "declined Humans + Hill (1 on the map, 0 in hand, 9 in the box; no ability acts in decline)" in text
    )
    assert "still acting: Ghouls ability and Seafaring power" in text
