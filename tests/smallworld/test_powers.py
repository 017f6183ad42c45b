"""Each special power, on a small hand-built map through the public API."""

from __future__ import annotations

import pytest

from hexarena.games.smallworld import IllegalAction, InvalidPhase, Phase
from hexarena.games.smallworld.conquest import attack_for, compute_conquest_cost, target_refusal
from hexarena.games.smallworld.enums import Feature, Marker, PowerName, RaceName
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
F, H, W, S, M, SEA, LAKE = "FARMLAND", "HILL", "FOREST", "SWAMP", "MOUNTAIN", "SEA", "LAKE"


def score_event(out: dict, pid: int = 0) -> int:
    return next(e["coins"] for e in out["events"] if e["event"] == "score" and e["player"] == pid)


def test_alchemist_adds_two_coins_while_active_only():
    game = scenario(line_map([F, F]), [(R.RATMEN, P.ALCHEMIST)])
    setup_pool(game, 0, R.RATMEN, P.ALCHEMIST, {0: 1})
    assert compute_player_score(game._state, 0) == 1 + 2
    begin_turn(game, 0)
    assert score_event(act(game, "DECLINE")) == 1


def test_wealthy_pays_seven_once_at_the_end_of_the_first_turn():
    game = scenario(line_map([F, F, F]), [(R.RATMEN, P.WEALTHY)])
    act(game, "PICK_COMBO", index=0)
    act(game, "CONQUER", region_id=0)
    finish_conquest(game)
    out = act(game, "REDEPLOY", placements={0: 12})
    assert score_event(out) == 1 + 7
    assert game._state.players[0].active.first_turn is False
    assert compute_player_score(game._state, 0) == 1


def test_berserk_rolls_before_the_choice_and_takes_the_roll_off_the_cost():
    game = scenario(line_map([F, F, F]), [(R.RATMEN, P.BERSERK)])
    setup_pool(game, 1, R.HUMANS, P.HILL, {0: 3})
    rig_die(game, 3)
    act(game, "PICK_COMBO", index=0)
    obs = game.get_observation(0)
    assert obs["self"]["active"]["berserk_die_result"] == 3
    out = act(game, "CONQUER", region_id=0)  # 5 - 3
    assert out["tokens_used"] == 2
    assert game._state.players[0].active.berserk_die_result is not None  # rolled again for the next one
    assert "FINAL_CONQUEST" not in {a["type"] for a in game.get_legal_actions()}
    act(game, "SKIP_CONQUEST")
    assert game.get_phase() is Phase.REDEPLOY


def test_berserk_cost_never_drops_below_one():
    game = scenario(line_map([F, F]), [(R.RATMEN, P.BERSERK)])
    rig_die(game, 3)
    act(game, "PICK_COMBO", index=0)
    assert act(game, "CONQUER", region_id=0)["tokens_used"] == 1


def test_bivouacking_places_all_five_stacked_moves_them_and_loses_them_on_decline():
    game = scenario(line_map([F, F, F]), [(R.RATMEN, P.BIVOUACKING)])
    act(game, "PICK_COMBO", index=0)
    act(game, "CONQUER", region_id=0)
    act(game, "CONQUER", region_id=1)
    finish_conquest(game)
    act(game, "REDEPLOY", placements={0: 6, 1: 7})
    assert game.get_phase() is Phase.PLACE_BIVOUACS
    with pytest.raises(IllegalAction, match="all 5"):
        act(game, "PLACE_BIVOUACS", placements={0: 4})
    act(game, "PLACE_BIVOUACS", placements={0: 4, 1: 1})
    assert region(game, 0).markers.count(Marker.ENCAMPMENT) == 4
    begin_turn(game, 0)
    act(game, "EXPAND")
    finish_conquest(game)
    act(game, "REDEPLOY", placements={0: 6, 1: 7})
    act(game, "PLACE_BIVOUACS", placements={1: 5})
    assert region(game, 0).markers == [] and region(game, 1).markers.count(Marker.ENCAMPMENT) == 5
    begin_turn(game, 0)
    act(game, "DECLINE")
    assert game._state.marker_count(Marker.ENCAMPMENT) == 0


def test_encampments_add_defence_and_are_not_lost_to_attacks():
    game = scenario(line_map([F, F]), [(R.HUMANS, P.HILL)])
    setup_pool(game, 1, R.RATMEN, P.BIVOUACKING, {0: 1, 1: 1})
    region(game, 0).markers += [Marker.ENCAMPMENT] * 2
    act(game, "PICK_COMBO", index=0)
    act(game, "CONQUER", region_id=0)  # 2 + 1 token + 2 encampments
    assert game._state.players[0].active.tokens_in_hand == 9 - 5
    finish_conquest(game)
    act(game, "REDEPLOY", placements={0: 9})
    begin_turn(game, 1)
    act(game, "EXPAND")
    finish_conquest(game)
    act(game, "REDEPLOY", placements={1: 1})
    assert {sum(a["placements"].values()) for a in legal(game, "PLACE_BIVOUACS")} == {5}


@pytest.mark.parametrize(
    ("power", "terrain", "feature", "expected"),
    [
        (P.COMMANDO, S, None, 1),
        (P.MOUNTED, H, None, 1),
        (P.MOUNTED, F, None, 1),
        (P.MOUNTED, S, None, 2),
        (P.UNDERWORLD, S, Feature.CAVERN, 1),
        (P.UNDERWORLD, S, None, 2),
    ],
)
def test_discount_powers(power, terrain, feature, expected):
    gm = line_map([F, terrain], features={1: [feature]} if feature else None)
    game = scenario(gm, [(R.HUMANS, P.HILL)])
    setup_pool(game, 0, R.RATMEN, power, {0: 1})
    assert compute_conquest_cost(1, game._state, 0) == expected


def test_underworld_caverns_are_adjacent_to_each_other():
    gm = line_map([F, F, F, F, F], features={0: [Feature.CAVERN], 4: [Feature.CAVERN]})
    game = scenario(gm, [(R.RATMEN, P.UNDERWORLD)])
    act(game, "PICK_COMBO", index=0)
    act(game, "CONQUER", region_id=0)
    assert targets(game) == {1, 4}


def test_diplomat_peace_binds_the_ally_only_and_skips_attacked_opponents():
    game = scenario(line_map([F] * 6), [(R.RATMEN, P.DIPLOMAT)], num_players=3)
    setup_pool(game, 1, R.HUMANS, P.HILL, {4: 1, 5: 1})
    setup_pool(game, 2, R.ELVES, P.SWAMP, {1: 1})
    act(game, "PICK_COMBO", index=0)
    act(game, "CONQUER", region_id=0)
    act(game, "CONQUER", region_id=1)  # attacks player 2
    finish_conquest(game)
    act(game, "REDEPLOY", placements={0: 6, 1: 7})
    assert game.get_phase() is Phase.CHOOSE_DIPLOMAT_ALLY
    assert {a["target_player"] for a in game.get_legal_actions()} == {1, None}
    with pytest.raises(IllegalAction, match="not an opponent you left in peace"):
        act(game, "CHOOSE_DIPLOMAT_ALLY", target_player=2)
    act(game, "CHOOSE_DIPLOMAT_ALLY", target_player=1)
    begin_turn(game, 1)
    act(game, "EXPAND")
    with pytest.raises(IllegalAction, match="made peace"):
        act(game, "CONQUER", region_id=1)
    # The Diplomat may still attack the ally (adjacency aside).
    att = attack_for(game._state, 0)
    att.reach = None
    assert target_refusal(att, 4) is None


def test_dragon_master_conquers_with_one_token_once_per_turn_and_the_dragon_moves():
    game = scenario(line_map([F, F, F, F]), [(R.RATMEN, P.DRAGON_MASTER)])
    setup_pool(game, 1, R.HUMANS, P.HILL, {1: 5})
    act(game, "PICK_COMBO", index=0)
    act(game, "CONQUER", region_id=0)
    act(game, "USE_DRAGON", region_id=1)
    assert region(game, 1).race == R.RATMEN and region(game, 1).tokens == 1
    assert Marker.DRAGON in region(game, 1).markers
    with pytest.raises(InvalidPhase):
        act(game, "USE_DRAGON", region_id=2)
    finish_conquest(game)
    act(game, "REDEPLOY", placements={0: 8, 1: 5})
    begin_turn(game, 1)
    assert game._state.players[1].active.tokens_in_hand == 4  # Humans lost 1, kept 4 in hand
    act(game, "EXPAND")
    assert 1 not in targets(game)
    begin_turn(game, 0)
    act(game, "EXPAND")
    act(game, "USE_DRAGON", region_id=2)
    assert Marker.DRAGON not in region(game, 1).markers and Marker.DRAGON in region(game, 2).markers
    finish_conquest(game)
    act(game, "REDEPLOY", placements={0: 6, 1: 5, 2: 2})
    begin_turn(game, 0)
    act(game, "DECLINE")
    assert game._state.marker_count(Marker.DRAGON) == 0


@pytest.mark.parametrize(("power", "terrain"), [(P.FOREST, W), (P.HILL, H), (P.SWAMP, S)])
def test_terrain_powers_score_their_terrain_while_active(power, terrain):
    game = scenario(line_map([terrain, terrain, F]), [(R.HUMANS, P.ALCHEMIST)])
    setup_pool(game, 0, R.RATMEN, power, {0: 1, 1: 1, 2: 1})
    assert compute_player_score(game._state, 0) == 3 + 2
    begin_turn(game, 0)
    assert score_event(act(game, "DECLINE")) == 3


def test_merchant_and_pillaging_score_regions_and_non_empty_conquests():
    game = scenario(line_map([F, F, F]), [(R.HUMANS, P.ALCHEMIST)])
    setup_pool(game, 0, R.RATMEN, P.MERCHANT, {0: 1, 1: 1})
    assert compute_player_score(game._state, 0) == 2 + 2
    game = scenario(line_map([F, F, F], tribes=[0]), [(R.RATMEN, P.PILLAGING)])
    act(game, "PICK_COMBO", index=0)
    act(game, "CONQUER", region_id=0)
    act(game, "CONQUER", region_id=1)
    assert compute_player_score(game._state, 0) == 2 + 1


def test_fortified_one_fortress_per_turn_one_per_region_defence_in_decline_coin_only_active():
    game = scenario(line_map([F, F, F]), [(R.RATMEN, P.FORTIFIED)])
    act(game, "PICK_COMBO", index=0)
    act(game, "CONQUER", region_id=0)
    act(game, "CONQUER", region_id=1)
    finish_conquest(game)
    act(game, "REDEPLOY", placements={0: 5, 1: 6})
    assert {a["region_id"] for a in game.get_legal_actions()} == {0, 1, None}
    out = act(game, "PLACE_FORTRESS", region_id=0)
    assert score_event(out) == 2 + 1
    begin_turn(game, 0)
    act(game, "EXPAND")
    finish_conquest(game)
    act(game, "REDEPLOY", placements={0: 5, 1: 6})
    assert {a["region_id"] for a in game.get_legal_actions()} == {1, None}
    act(game, "PLACE_FORTRESS", region_id=1)
    begin_turn(game, 0)
    out = act(game, "DECLINE")
    assert score_event(out) == 2
    assert game._state.marker_count(Marker.FORTRESS) == 2


def test_fortresses_stop_at_six_on_the_map():
    game = scenario(line_map([F] * 8), [(R.RATMEN, P.FORTIFIED)])
    setup_pool(game, 0, R.RATMEN, P.FORTIFIED, {0: 1, 7: 1})
    for rid in range(1, 7):
        region(game, rid).markers.append(Marker.FORTRESS)
    begin_turn(game, 0)
    act(game, "EXPAND")
    finish_conquest(game)
    act(game, "REDEPLOY", placements={0: 1, 7: 1})
    assert game.get_phase() is not Phase.PLACE_FORTRESS


def test_flying_reaches_any_land_region_but_no_water():
    game = scenario(line_map([F, F, F, LAKE, F]), [(R.RATMEN, P.FLYING)])
    act(game, "PICK_COMBO", index=0)
    assert targets(game) == {0, 1, 2, 4}


def test_heroes_go_on_two_different_regions_protect_them_and_leave_on_decline():
    game = scenario(line_map([F, F, F]), [(R.RATMEN, P.HEROIC), (R.HUMANS, P.HILL)])
    act(game, "PICK_COMBO", index=0)
    act(game, "CONQUER", region_id=0)
    act(game, "CONQUER", region_id=1)
    finish_conquest(game)
    act(game, "REDEPLOY", placements={0: 6, 1: 7})
    with pytest.raises(IllegalAction, match="exactly 2"):
        act(game, "PLACE_HEROES", region_ids=[0])
    with pytest.raises(IllegalAction, match="twice"):
        act(game, "PLACE_HEROES", region_ids=[0, 0])
    act(game, "PLACE_HEROES", region_ids=[0, 1])
    act(game, "PICK_COMBO", index=0)
    assert not targets(game) & {0, 1}
    begin_turn(game, 0)
    act(game, "DECLINE")
    assert game._state.marker_count(Marker.HERO) == 0


def test_seafaring_conquers_water_at_cost_two_scores_it_and_keeps_it_in_decline():
    game = scenario(line_map([F, SEA, F], border={0, 1}), [(R.TRITONS, P.SEAFARING)])
    act(game, "PICK_COMBO", index=0)
    act(game, "CONQUER", region_id=0)
    assert compute_conquest_cost(1, game._state, 0) == 2  # Tritons' coastal discount does not apply
    act(game, "CONQUER", region_id=1)
    assert compute_player_score(game._state, 0) == 2
    finish_conquest(game)
    act(game, "REDEPLOY", placements={0: 6, 1: 5})
    begin_turn(game, 0)
    act(game, "DECLINE")
    assert region(game, 1).race == R.TRITONS and compute_player_score(game._state, 0) == 2


def test_spirit_decline_coexists_with_another_declined_race():
    game = scenario(line_map([F] * 4), [(R.HUMANS, P.ALCHEMIST)])
    setup_pool(game, 0, R.ELVES, P.HILL, {3: 1}, decline=True)
    setup_pool(game, 0, R.RATMEN, P.SPIRIT, {0: 1, 1: 1})
    begin_turn(game, 0)
    act(game, "DECLINE")
    gs = game._state
    assert gs.players[0].decline.race_name == R.ELVES and gs.players[0].decline_spirit.race_name == R.RATMEN
    setup_pool(game, 0, R.WIZARDS, P.FOREST, {2: 1})
    begin_turn(game, 0)
    act(game, "DECLINE")
    assert gs.players[0].decline.race_name == R.WIZARDS and gs.players[0].decline_spirit.race_name == R.RATMEN
    assert region(game, 3).owner is None


def test_stout_declines_after_scoring_and_picks_a_combo_next_turn():
    game = scenario(line_map([F, F, F]), [(R.RATMEN, P.STOUT)])
    act(game, "PICK_COMBO", index=0)
    act(game, "CONQUER", region_id=0)
    finish_conquest(game)
    out = act(game, "REDEPLOY", placements={0: 12})
    assert score_event(out) == 1 and game.get_phase() is Phase.STOUT_DECLINE
    act(game, "STOUT_DECLINE", decline=True)
    assert game._state.players[0].active is None and region(game, 0).tokens == 1
    begin_turn(game, 0)
    assert game.get_phase() is Phase.PICK_COMBO
