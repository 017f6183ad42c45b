"""Each race's ability, on a small hand-built map through the public API."""

from __future__ import annotations

import pytest

from hexarena.games.smallworld import IllegalAction, Phase
from hexarena.games.smallworld.conquest import compute_conquest_cost
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


def test_amazons_attack_with_four_extra_tokens_that_leave_after_redeployment():
    game = scenario(line_map([F] * 8), [(R.AMAZONS, P.ALCHEMIST)])
    act(game, "PICK_COMBO", index=0)
    assert game._state.players[0].active.tokens_in_hand == 6 + 4 + 4
    for rid in (0, 1, 2):
        act(game, "CONQUER", region_id=rid)
    finish_conquest(game)
    assert all(sum(a["placements"].values()) == 10 for a in legal(game, "REDEPLOY"))
    act(game, "REDEPLOY", placements={0: 4, 1: 3, 2: 3})
    assert game._state.players[0].active.tokens_in_hand == 4
    begin_turn(game, 0)
    act(game, "EXPAND")
    assert game._state.players[0].active.tokens_in_hand == 4 + 7


def test_dwarves_score_mines_while_active_and_in_decline():
    gm = line_map([F, F, F], features={0: [Feature.MINE], 1: [Feature.MINE]})
    game = scenario(gm, [(R.HUMANS, P.HILL)])
    setup_pool(game, 0, R.DWARVES, P.FOREST, {0: 1, 1: 1, 2: 1})
    assert compute_player_score(game._state, 0) == 3 + 2
    begin_turn(game, 0)
    out = act(game, "DECLINE")
    assert {"event": "score", "turn": 1, "player": 0, "coins": 5} in out["events"]


def test_elves_lose_no_token_when_conquered():
    game = scenario(line_map([F, F]), [(R.RATMEN, P.ALCHEMIST)])
    setup_pool(game, 1, R.ELVES, P.HILL, {0: 3, 1: 1})
    act(game, "PICK_COMBO", index=0)
    act(game, "CONQUER", region_id=0)
    assert game._state.pending == {R.ELVES: 3}


def test_ghouls_keep_all_tokens_in_decline_and_keep_conquering_even_their_owners_race():
    game = scenario(line_map([F, F, F, F, F]), [(R.RATMEN, P.ALCHEMIST)])
    setup_pool(game, 0, R.GHOULS, P.HILL, {1: 4, 2: 3})
    begin_turn(game, 0)
    act(game, "DECLINE")
    assert (region(game, 1).tokens, region(game, 2).tokens) == (4, 3)
    begin_turn(game, 0)
    act(game, "PICK_COMBO", index=0)
    assert game.get_phase() is Phase.GHOUL_CONQUEST
    assert game._state.players[0].decline.tokens_in_hand == 5  # ready troops: 1 stays per region
    act(game, "CONQUER", region_id=3)
    assert region(game, 3).race == R.GHOULS and region(game, 3).is_decline
    act(game, "SKIP_CONQUEST")
    assert game.get_phase() is Phase.CONQUEST
    act(game, "CONQUER", region_id=0)  # the new active race enters at the border
    finish_conquest(game)
    options = legal(game, "REDEPLOY")
    assert options and all(sum(a["placements"][r] for r in (1, 2, 3)) == 7 for a in options)
    # A later turn: the declined Ghouls may attack their owner's active race.
    game2 = scenario(line_map([F, F, F]), [(R.RATMEN, P.ALCHEMIST)])
    setup_pool(game2, 0, R.GHOULS, P.HILL, {1: 5}, decline=True)
    setup_pool(game2, 0, R.HUMANS, P.HILL, {2: 1})
    begin_turn(game2, 0)
    act(game2, "EXPAND")
    assert game2.get_phase() is Phase.GHOUL_CONQUEST and 2 in targets(game2)


def test_giants_pay_one_less_next_to_their_mountain_only():
    game = scenario(line_map([M, F, F]), [(R.RATMEN, P.ALCHEMIST)])
    setup_pool(game, 0, R.GIANTS, P.HILL, {0: 2, 2: 1})
    assert compute_conquest_cost(1, game._state, 0) == 1
    game2 = scenario(line_map([F, F, F]), [(R.RATMEN, P.ALCHEMIST)])
    setup_pool(game2, 0, R.GIANTS, P.HILL, {0: 2})
    assert compute_conquest_cost(1, game2._state, 0) == 2


def test_halflings_enter_anywhere_and_holes_protect_their_first_two_regions():
    game = scenario(line_map([F] * 6), [(R.HALFLINGS, P.ALCHEMIST), (R.RATMEN, P.HILL)])
    act(game, "PICK_COMBO", index=0)
    assert targets(game) == set(range(6))
    act(game, "CONQUER", region_id=3)
    assert targets(game) == {2, 4}  # only the entry ignores adjacency
    act(game, "CONQUER", region_id=4)
    act(game, "CONQUER", region_id=5)
    assert [Marker.HOLE_IN_THE_GROUND in region(game, r).markers for r in (3, 4, 5)] == [True, True, False]
    finish_conquest(game)
    act(game, "REDEPLOY", placements={3: 4, 4: 3, 5: 3})
    act(game, "PICK_COMBO", index=0)  # player 1: Ratmen + Hill, from the border (region 0)
    act(game, "CONQUER", region_id=0)
    act(game, "CONQUER", region_id=1)
    act(game, "CONQUER", region_id=2)
    assert 3 not in targets(game)
    with pytest.raises(IllegalAction, match="immune"):
        act(game, "CONQUER", region_id=3)
    begin_turn(game, 0)
    act(game, "DECLINE")
    assert game._state.marker_count(Marker.HOLE_IN_THE_GROUND) == 0


def test_humans_and_wizards_score_their_symbol_only_while_active():
    gm = line_map([F, F, H], features={2: [Feature.MAGIC_SOURCE]})
    game = scenario(gm, [(R.RATMEN, P.ALCHEMIST)])
    setup_pool(game, 0, R.HUMANS, P.HILL, {0: 1, 1: 1})
    setup_pool(game, 1, R.WIZARDS, P.FOREST, {2: 1})
    assert compute_player_score(game._state, 0) == 2 + 2 + 0
    assert compute_player_score(game._state, 1) == 1 + 1
    setup_pool(game, 1, R.WIZARDS, P.FOREST, {}, decline=True)
    game._state.players[1].active = None
    region(game, 2).is_decline = True
    assert compute_player_score(game._state, 1) == 1


def test_orcs_score_non_empty_conquests_and_a_lone_mountain_counts_as_empty():
    game = scenario(line_map([M, F, F], tribes=[1]), [(R.ORCS, P.ALCHEMIST)])
    act(game, "PICK_COMBO", index=0)
    act(game, "CONQUER", region_id=0)  # mountain, empty
    act(game, "CONQUER", region_id=1)  # lost tribe
    assert game._state.players[0].active.non_empty_conquests_this_turn == 1
    assert compute_player_score(game._state, 0) == 2 + 1 + 2


def test_ratmen_have_eight_tokens_and_no_ability():
    game = scenario(line_map([F]), [(R.RATMEN, P.HILL)])
    act(game, "PICK_COMBO", index=0)
    assert game._state.players[0].active.tokens_in_hand == 8 + 4


def test_skeletons_gain_a_token_per_two_non_empty_conquests_up_to_the_box():
    game = scenario(line_map([F] * 5, tribes=[0, 1, 2, 3]), [(R.SKELETONS, P.MERCHANT)])
    act(game, "PICK_COMBO", index=0)  # 6 + 2 = 8 tokens
    act(game, "CONQUER", region_id=0)
    act(game, "CONQUER", region_id=1)
    finish_conquest(game)
    assert all(sum(a["placements"].values()) == 9 for a in legal(game, "REDEPLOY"))
    game = scenario(line_map([F] * 5, tribes=[0, 1, 2, 3]), [(R.SKELETONS, P.MERCHANT)])
    act(game, "PICK_COMBO", index=0)
    game._state.tray[R.SKELETONS] = 0
    act(game, "CONQUER", region_id=0)
    act(game, "CONQUER", region_id=1)
    finish_conquest(game)
    assert all(sum(a["placements"].values()) == 8 for a in legal(game, "REDEPLOY"))


def test_sorcerers_convert_a_lone_adjacent_active_token_once_per_opponent():
    game = scenario(line_map([F, F, F, F, F]), [(R.RATMEN, P.ALCHEMIST)], num_players=3)
    setup_pool(game, 0, R.SORCERERS, P.HILL, {1: 2}, hand=0)
    setup_pool(game, 1, R.HUMANS, P.FOREST, {0: 1, 2: 2})
    setup_pool(game, 2, R.ELVES, P.SWAMP, {3: 1}, decline=True)
    begin_turn(game, 0)
    act(game, "EXPAND")
    assert targets(game, "USE_SORCERER") == {0}  # 2 has two tokens, 3 is declined
    act(game, "USE_SORCERER", region_id=0)
    assert region(game, 0).race == R.SORCERERS and region(game, 0).tokens == 1
    assert game._state.tray[R.SORCERERS] == 18 - 3
    region(game, 2).tokens = 1
    game._state.tray[R.HUMANS] += 1
    with pytest.raises(IllegalAction, match="already converted"):
        act(game, "USE_SORCERER", region_id=2)


def test_sorcerers_need_a_token_in_the_tray_and_respect_immunity_and_encampments():
    game = scenario(line_map([F, F, F]), [(R.RATMEN, P.ALCHEMIST)])
    setup_pool(game, 0, R.SORCERERS, P.HILL, {1: 2})
    setup_pool(game, 1, R.HUMANS, P.HEROIC, {0: 1, 2: 1})
    region(game, 0).markers.append(Marker.HERO)
    begin_turn(game, 0)
    act(game, "EXPAND")
    assert targets(game, "USE_SORCERER") == {2}
    region(game, 2).markers.append(Marker.ENCAMPMENT)
    with pytest.raises(IllegalAction, match="Encampment"):
        act(game, "USE_SORCERER", region_id=2)
    region(game, 2).markers = [Marker.FORTRESS]
    assert targets(game, "USE_SORCERER") == {2}
    game._state.tray[R.SORCERERS] = 0
    with pytest.raises(IllegalAction, match="tray"):
        act(game, "USE_SORCERER", region_id=2)


def test_tritons_pay_one_less_on_coastal_regions():
    game = scenario(line_map([F, F, LAKE, F]), [(R.RATMEN, P.ALCHEMIST)])
    setup_pool(game, 0, R.TRITONS, P.HILL, {0: 2})
    assert compute_conquest_cost(1, game._state, 0) == 1
    game2 = scenario(line_map([F, F, F]), [(R.RATMEN, P.ALCHEMIST)])
    setup_pool(game2, 0, R.TRITONS, P.HILL, {0: 2})
    assert compute_conquest_cost(1, game2._state, 0) == 2


def test_trolls_build_lairs_that_stay_in_decline_and_leave_on_abandon():
    game = scenario(line_map([F] * 4), [(R.TROLLS, P.ALCHEMIST)])
    act(game, "PICK_COMBO", index=0)
    act(game, "CONQUER", region_id=0)
    act(game, "CONQUER", region_id=1)
    assert all(Marker.TROLL_LAIR in region(game, r).markers for r in (0, 1))
    finish_conquest(game)
    act(game, "REDEPLOY", placements={0: 4, 1: 5})
    begin_turn(game, 0)
    act(game, "EXPAND")
    act(game, "ABANDON", region_ids=[0])
    assert region(game, 0).markers == []
    begin_turn(game, 0)
    act(game, "DECLINE")
    assert Marker.TROLL_LAIR in region(game, 1).markers and region(game, 1).is_decline


def test_holes_block_sorcerers_and_leave_when_the_halflings_abandon_the_region():
    game = scenario(line_map([F, F, F]), [(R.RATMEN, P.ALCHEMIST)])
    setup_pool(game, 0, R.SORCERERS, P.HILL, {1: 2})
    setup_pool(game, 1, R.HALFLINGS, P.FOREST, {0: 1, 2: 1})
    region(game, 0).markers.append(Marker.HOLE_IN_THE_GROUND)
    begin_turn(game, 0)
    act(game, "EXPAND")
    assert targets(game, "USE_SORCERER") == {2}
    begin_turn(game, 1)
    act(game, "EXPAND")
    act(game, "ABANDON", region_ids=[0])
    assert region(game, 0).markers == [] and region(game, 0).owner is None


def test_giants_discount_stops_at_one():
    game = scenario(line_map([M, F]), [(R.RATMEN, P.ALCHEMIST)])
    setup_pool(game, 0, R.GIANTS, P.COMMANDO, {0: 2})
    assert compute_conquest_cost(1, game._state, 0) == 1


def test_declined_ghouls_may_make_a_die_backed_final_attempt_then_the_active_race_plays():
    game = scenario(line_map([F, F, F, F]), [(R.RATMEN, P.ALCHEMIST)])
    setup_pool(game, 0, R.GHOULS, P.HILL, {1: 2}, decline=True)
    setup_pool(game, 1, R.HUMANS, P.HILL, {2: 2})
    begin_turn(game, 0)
    act(game, "PICK_COMBO", index=0)
    assert 2 in targets(game, "FINAL_CONQUEST")  # 1 Ghoul in hand, cost 4
    rig_die(game, 3)
    out = act(game, "FINAL_CONQUEST", region_id=2)
    assert out["success"] and region(game, 2).race == R.GHOULS and region(game, 2).is_decline
    assert game.get_phase() is Phase.CONQUEST
