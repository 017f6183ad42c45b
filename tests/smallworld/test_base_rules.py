"""The base rules (reference section 8), each proved on a small hand-built map."""

from __future__ import annotations

import pytest

from hexarena.games.smallworld import (
    GameConfig,
    IllegalAction,
    InvalidConfig,
    InvalidPhase,
    Phase,
    SmallWorldGame,
)
from hexarena.games.smallworld.conquest import compute_base_conquest_cost, compute_conquest_cost
from hexarena.games.smallworld.enums import Marker, PowerName, RaceName, Terrain
from hexarena.games.smallworld.scoring import compute_player_score

from .helpers import (
    act,
    begin_turn,
    finish_conquest,
    legal,
    line_map,
    region,
    rig_die,
    scenario,
    setup_pool,
    targets,
)

R, P = RaceName, PowerName
F, H, W, S, M, SEA = "FARMLAND", "HILL", "FOREST", "SWAMP", "MOUNTAIN", "SEA"


def plain(n: int = 6, **kw) -> SmallWorldGame:
    return scenario(
        line_map([F] * n), [(R.RATMEN, P.ALCHEMIST), (R.HUMANS, P.HILL), (R.ELVES, P.SWAMP)], **kw
    )


# ---------------------------------------------------------------------- combo row ---
def test_combo_index_costs_its_number_and_leaves_a_coin_on_each_combo_above():
    game = plain()
    act(game, "PICK_COMBO", index=2)
    gs = game._state
    assert gs.players[0].coins == 3
    assert [c.coins for c in gs.combo_row.visible[:2]] == [1, 1]
    assert len(gs.combo_row.visible) == 6
    assert gs.players[0].active.race_name == R.ELVES


def test_picker_collects_the_coins_lying_on_the_chosen_combo():
    game = plain()
    game._state.combo_row.visible[1].coins = 3
    act(game, "PICK_COMBO", index=1)
    assert game._state.players[0].coins == 5 - 1 + 3


def test_unaffordable_combos_are_not_legal():
    game = plain()
    game._state.players[0].coins = 1
    assert {a["index"] for a in legal(game, "PICK_COMBO")} == {0, 1}
    with pytest.raises(IllegalAction, match="costs 3 coins"):
        act(game, "PICK_COMBO", index=3)


def test_tokens_on_pick_are_banner_plus_badge_and_never_above_the_box():
    game = plain()
    act(game, "PICK_COMBO", index=0)  # Ratmen 8 + Alchemist 4
    assert game._state.players[0].active.tokens_in_hand == 12
    game = plain()
    game._state.tray[R.RATMEN] = 5
    act(game, "PICK_COMBO", index=0)
    assert game._state.players[0].active.tokens_in_hand == 5


# ------------------------------------------------------------------ first conquest ---
def test_first_conquest_must_be_a_border_region():
    game = plain()
    act(game, "PICK_COMBO", index=0)
    assert targets(game) == {0}
    with pytest.raises(IllegalAction, match="not a border region"):
        act(game, "CONQUER", region_id=3)


def test_shore_of_an_edge_sea_counts_as_border_and_seas_are_not_conquerable():
    from hexarena.games.smallworld.map_generator import generate_map
    from hexarena.games.smallworld.rng import SeededRNG

    gm = generate_map(4, SeededRNG(3))
    for rid in gm.water_regions():
        if gm.get_region(rid).terrain is Terrain.SEA:
            for nb in gm.neighbors(rid):
                if gm.get_region(nb).is_land:
                    assert gm.get_region(nb).is_border
    game = scenario(line_map([F, SEA, F], border={0}), [(R.RATMEN, P.ALCHEMIST)])
    act(game, "PICK_COMBO", index=0)
    assert 1 not in targets(game)
    act(game, "CONQUER", region_id=0)
    with pytest.raises(IllegalAction, match="only Seafaring"):
        act(game, "CONQUER", region_id=1)


def test_later_conquests_must_be_adjacent_and_abandoning_everything_rearms_the_border_rule():
    game = plain(n=5)
    setup_pool(game, 0, R.RATMEN, P.ALCHEMIST, {1: 2, 2: 1}, hand=4)
    begin_turn(game, 0)
    act(game, "EXPAND")
    assert targets(game) == {0, 3}
    act(game, "ABANDON", region_ids=[1, 2])
    assert targets(game) == {0}
    assert game._state.players[0].active.tokens_in_hand == 7


def test_abandon_only_before_the_first_conquest():
    game = plain(n=5)
    setup_pool(game, 0, R.RATMEN, P.ALCHEMIST, {1: 5})
    begin_turn(game, 0)
    act(game, "EXPAND")
    act(game, "CONQUER", region_id=2)
    with pytest.raises(InvalidPhase):
        act(game, "ABANDON", region_ids=[1])


# ------------------------------------------------------------------------- costs ---
@pytest.mark.parametrize(
    ("terrain", "tribe", "expected"),
    [(F, False, 2), (M, False, 3), (F, True, 3), (M, True, 4)],
)
def test_conquest_cost_of_terrain_and_lost_tribes(terrain, tribe, expected):
    game = scenario(line_map([terrain], tribes=[0] if tribe else []), [(R.RATMEN, P.ALCHEMIST)])
    assert compute_base_conquest_cost(0, game._state) == expected


def test_cost_counts_enemy_tokens_and_stacks_defensive_markers():
    game = plain()
    setup_pool(game, 1, R.HUMANS, P.HILL, {0: 3})
    assert compute_base_conquest_cost(0, game._state) == 5
    region(game, 0).markers += [Marker.TROLL_LAIR, Marker.FORTRESS, Marker.ENCAMPMENT, Marker.ENCAMPMENT]
    assert compute_base_conquest_cost(0, game._state) == 9


def test_discounts_never_take_the_cost_below_one():
    game = scenario(line_map([H, H]), [(R.RATMEN, P.MOUNTED)])
    setup_pool(game, 0, R.RATMEN, P.MOUNTED, {0: 1})
    setup_pool(game, 1, R.HUMANS, P.HILL, {1: 1})
    assert compute_conquest_cost(1, game._state, 0) == 2
    game._state.players[0].active.power_name = P.COMMANDO
    region(game, 1).tokens = 0
    region(game, 1).owner = region(game, 1).race = None
    game._state.tray[R.HUMANS] += 1
    assert compute_conquest_cost(1, game._state, 0) == 1


# ------------------------------------------------------------------------ defence ---
def test_defender_loses_one_token_and_redeploys_the_rest_at_the_end_of_the_turn():
    game = plain(n=4)
    setup_pool(game, 1, R.HUMANS, P.HILL, {0: 3, 3: 1})
    act(game, "PICK_COMBO", index=0)  # player 0: Ratmen + Alchemist, 12 tokens
    act(game, "CONQUER", region_id=0)  # costs 2 + 3 = 5
    assert game._state.pending == {R.HUMANS: 2}
    assert game._state.tray[R.HUMANS] == 10 - 4 + 1
    finish_conquest(game)
    act(game, "REDEPLOY", placements={0: 12})
    assert game.get_phase() is Phase.OPPONENT_REDEPLOY and game.get_current_player() == 1
    with pytest.raises(IllegalAction, match="place exactly 2"):
        act(game, "OPPONENT_REDEPLOY", placements={3: 1})
    act(game, "OPPONENT_REDEPLOY", placements={3: 2})
    assert region(game, 3).tokens == 3
    assert game.get_current_player() == 1 and game.get_phase() is Phase.CHOOSE_EXPAND_OR_DECLINE


def test_defender_with_no_region_left_keeps_the_tokens_in_hand():
    game = plain(n=4)
    setup_pool(game, 1, R.HUMANS, P.HILL, {0: 3})
    act(game, "PICK_COMBO", index=0)
    act(game, "CONQUER", region_id=0)
    finish_conquest(game)
    act(game, "REDEPLOY", placements={0: 12})
    assert game._state.players[1].active.tokens_in_hand == 2
    assert game.get_phase() is Phase.CHOOSE_EXPAND_OR_DECLINE


def test_a_lone_declined_token_vanishes_and_its_race_leaves_the_map():
    game = plain(n=4)
    setup_pool(game, 1, R.HUMANS, P.HILL, {0: 1}, decline=True)
    act(game, "PICK_COMBO", index=0)
    act(game, "CONQUER", region_id=0)
    assert R.HUMANS not in game._state.pending
    assert game._state.tray[R.HUMANS] == 10


# ------------------------------------------------------------------ final conquest ---
def _final_setup(hand: int, enemy: int) -> SmallWorldGame:
    game = plain(n=3)
    setup_pool(game, 0, R.RATMEN, P.ALCHEMIST, {0: 1}, hand=hand)
    setup_pool(game, 1, R.HUMANS, P.HILL, {1: enemy})
    begin_turn(game, 0)
    game._state.phase = Phase.CONQUEST
    return game


def test_final_conquest_succeeds_when_the_die_covers_the_shortfall():
    game = _final_setup(hand=2, enemy=3)  # cost 5, 3 short
    rig_die(game, 3)
    out = act(game, "FINAL_CONQUEST", region_id=1)
    assert out["success"] and out["die"] == 3
    assert region(game, 1).race == R.RATMEN and region(game, 1).tokens == 2
    assert game.get_phase() is Phase.REDEPLOY


def test_final_conquest_fails_on_a_blank_and_tokens_go_back_to_held_regions():
    game = _final_setup(hand=2, enemy=3)
    rig_die(game, 0)
    out = act(game, "FINAL_CONQUEST", region_id=1)
    assert not out["success"] and region(game, 1).race == R.HUMANS
    assert game.get_phase() is Phase.REDEPLOY
    assert legal(game, "REDEPLOY") == [{"type": "REDEPLOY", "placements": {0: 3}}]


def test_final_conquest_refused_when_more_than_three_short_or_with_no_tokens():
    game = _final_setup(hand=1, enemy=3)  # 4 short
    with pytest.raises(IllegalAction, match="1 to 3 tokens short"):
        act(game, "FINAL_CONQUEST", region_id=1)
    game = _final_setup(hand=0, enemy=1)
    with pytest.raises(IllegalAction, match="at least 1 token"):
        act(game, "FINAL_CONQUEST", region_id=1)


def test_skip_offers_the_final_attempt_then_ends_conquests():
    game = _final_setup(hand=3, enemy=3)
    act(game, "SKIP_CONQUEST")
    assert game.get_phase() is Phase.FINAL_CONQUEST
    assert {a["type"] for a in game.get_legal_actions()} == {"FINAL_CONQUEST", "SKIP_CONQUEST"}
    act(game, "SKIP_CONQUEST")
    assert game.get_phase() is Phase.REDEPLOY


# -------------------------------------------------------------------- redeployment ---
def test_redeploy_needs_one_token_per_region_and_empties_the_hand():
    game = plain(n=4)
    setup_pool(game, 0, R.RATMEN, P.ALCHEMIST, {0: 3, 1: 1}, hand=2)
    begin_turn(game, 0)
    act(game, "EXPAND")
    finish_conquest(game)
    with pytest.raises(IllegalAction, match="at least 1"):
        act(game, "REDEPLOY", placements={0: 6, 1: 0})
    with pytest.raises(IllegalAction, match="exactly 6"):
        act(game, "REDEPLOY", placements={0: 4, 1: 1})
    act(game, "REDEPLOY", placements={"0": 1, "1": 5})
    gs = game._state
    assert (region(game, 0).tokens, region(game, 1).tokens) == (1, 5)
    assert gs.players[0].active.tokens_in_hand == 0


def test_redeploy_enumeration_is_compact_for_large_spaces_and_exhaustive_for_small():
    game = plain(n=6)
    setup_pool(game, 0, R.SKELETONS, P.ALCHEMIST, {0: 1, 1: 1, 2: 1, 3: 1, 4: 1}, hand=10)
    begin_turn(game, 0)
    game._state.phase = Phase.REDEPLOY
    compact = legal(game, "REDEPLOY")
    assert 1 < len(compact) <= 6
    full = game.get_legal_actions(exhaustive=True)
    assert len(full) == 1001  # 10 spare tokens over 5 regions
    for a in compact + full[:50]:
        assert sum(a["placements"].values()) == 15


# ------------------------------------------------------------------------- scoring ---
def test_score_counts_active_and_declined_regions_with_active_bonuses_only():
    game = scenario(line_map([F, F, F, F]), [(R.HUMANS, P.ALCHEMIST)])
    setup_pool(game, 0, R.HUMANS, P.ALCHEMIST, {0: 1, 1: 1})
    setup_pool(game, 0, R.WIZARDS, P.FOREST, {2: 1, 3: 1}, decline=True)
    assert compute_player_score(game._state, 0) == 4 + 2 + 2  # regions, farmland, alchemist


# ------------------------------------------------------------------------- decline ---
def test_decline_is_not_offered_on_the_turn_the_combo_was_picked():
    game = plain()
    act(game, "PICK_COMBO", index=0)
    with pytest.raises(InvalidPhase):
        act(game, "DECLINE")


def test_decline_keeps_one_token_per_region_removes_the_older_declined_race_and_still_scores():
    game = plain(n=5)
    setup_pool(game, 0, R.RATMEN, P.ALCHEMIST, {0: 3, 1: 2}, hand=1)
    setup_pool(game, 0, R.HUMANS, P.HILL, {3: 1}, decline=True)
    begin_turn(game, 0)
    coins = game._state.players[0].coins
    out = act(game, "DECLINE")
    gs = game._state
    assert gs.players[0].decline.race_name == R.RATMEN and gs.players[0].active is None
    assert (region(game, 0).tokens, region(game, 1).tokens) == (1, 1) and region(game, 0).is_decline
    assert region(game, 3).owner is None and gs.tray[R.HUMANS] == 10
    assert R.HUMANS in gs.combo_row.race_deck + [c.race for c in gs.combo_row.visible]
    assert {"event": "score", "turn": 1, "player": 0, "coins": 2} in out["events"]
    assert gs.players[0].coins == coins + 2
    begin_turn(game, 0)
    assert game.get_phase() is Phase.PICK_COMBO


# ------------------------------------------------------------------- end and errors ---
@pytest.mark.parametrize(("players", "turns"), [(2, 10), (3, 10), (4, 9), (5, 8)])
def test_game_lasts_the_official_number_of_turns(players, turns):
    assert GameConfig(players, 1).max_turns == turns


def test_bad_player_count_is_an_invalid_config():
    with pytest.raises(InvalidConfig, match="num_players"):
        GameConfig(6, 1)


def test_tie_broken_by_tokens_on_the_map_then_seat():
    game = plain(n=4, num_players=3)
    gs = game._state
    for p in gs.players:
        p.coins = 20
    setup_pool(game, 2, R.HUMANS, P.HILL, {0: 3})
    setup_pool(game, 1, R.ELVES, P.SWAMP, {1: 3})
    setup_pool(game, 0, R.RATMEN, P.ALCHEMIST, {2: 1})
    assert game.get_results()["ranking"] == [1, 2, 0]


def test_wrong_player_and_wrong_phase_are_refused_without_change():
    game = plain()
    before = game._state.to_json()
    with pytest.raises(IllegalAction, match="player 0's move"):
        game.submit_action(1, {"type": "PICK_COMBO", "index": 0})
    with pytest.raises(InvalidPhase, match="not allowed in phase PICK_COMBO"):
        game.submit_action(0, {"type": "EXPAND"})
    with pytest.raises(IllegalAction, match="unknown action type"):
        game.submit_action(0, {"type": "FLY_AWAY"})
    assert game._state.to_json() == before
