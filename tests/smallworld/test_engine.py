"""Whole games: invariants over random play, determinism and replay, errors, the observation."""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hexarena.games.smallworld import GameConfig, GameOver, Phase, SmallWorldError, SmallWorldGame
from hexarena.games.smallworld.state import STARTING_COINS

from .helpers import play_random

RANDOM_GAMES = 500


@pytest.mark.parametrize("chunk", range(4))
def test_invariants_hold_after_every_action_of_random_games(chunk):
    """500 games over 2-5 players (in 4 chunks): conservation, caps, supplies, ownership, coins."""
    per = RANDOM_GAMES // 4
    for i in range(chunk * per, (chunk + 1) * per):
        game, _ = play_random(2 + i % 4, 1000 + i)
        assert game.is_game_over()


@pytest.mark.slow
def test_invariants_hold_over_ten_thousand_random_games():
    for i in range(10_000):
        play_random(2 + i % 4, 50_000 + i)


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_games_end_after_the_turn_track_and_rank_everyone(players):
    game, _ = play_random(players, 7, check=False)
    res = game.get_results()
    assert game.get_phase() is Phase.GAME_OVER
    assert sorted(res["ranking"]) == list(range(players)) and res["winner"] == res["ranking"][0]
    turn_ends = [a for a in game._state.action_log if a["type"] in ("PICK_COMBO", "EXPAND", "DECLINE")]
    assert len(turn_ends) == players * GameConfig(players, 7).max_turns
    with pytest.raises(GameOver):
        game.submit_action(game.get_current_player(), {"type": "EXPAND"})


def test_same_config_and_actions_give_identical_games_and_replay_matches():
    game, _ = play_random(4, 99, check=False)
    again, _ = play_random(4, 99, check=False)
    assert again._state.to_json() == game._state.to_json()
    replayed = SmallWorldGame.replay(GameConfig(4, 99), game._state.action_log)
    assert replayed._state.to_json() == game._state.to_json()
    other, _ = play_random(4, 100, check=False)
    assert other._state.to_json() != game._state.to_json()


def test_map_seed_varies_the_map_independently_of_the_game_seed():
    a = SmallWorldGame(GameConfig(3, 1, map_seed=5))
    b = SmallWorldGame(GameConfig(3, 2, map_seed=5))
    c = SmallWorldGame(GameConfig(3, 1))
    assert a._state.map.to_json() == b._state.map.to_json() != c._state.map.to_json()


def test_every_listed_action_is_accepted_including_exhaustive_lists():
    game = SmallWorldGame(GameConfig(3, 4))
    rnd = random.Random(4)
    while not game.is_game_over():
        actions = game.get_legal_actions(exhaustive=bool(rnd.getrandbits(1)))
        for action in rnd.sample(actions, min(3, len(actions))):
            probe = game.clone()
            probe.submit_action(probe.get_current_player(), action)
        game.submit_action(game.get_current_player(), rnd.choice(actions))


def test_observation_hides_opponents_coins_and_the_rng_and_is_json_safe():
    game, _ = play_random(3, 12, check=False)
    game = SmallWorldGame(GameConfig(3, 12))
    game.submit_action(0, game.get_legal_actions()[0])
    obs = game.get_observation(1)
    text = json.dumps(obs)
    assert set(obs) >= {"game", "map", "combo_row", "self", "opponents", "legal_actions"}
    assert all(o["coins"] == "HIDDEN" for o in obs["opponents"])
    assert obs["self"]["coins"] == STARTING_COINS
    assert "rng" not in text and "race_deck" not in text
    assert obs["legal_actions"] == [] or game.get_current_player() == 1
    assert game.get_observation(game.get_current_player())["legal_actions"] == game.get_legal_actions()


def _junk() -> st.SearchStrategy:
    scalars = st.one_of(st.none(), st.booleans(), st.integers(-3, 60), st.text(max_size=4), st.floats())
    values = st.recursive(
        scalars,
        lambda inner: (
            st.lists(inner, max_size=3)
            | st.dictionaries(st.one_of(st.integers(-2, 50), st.text(max_size=3)), inner, max_size=3)
        ),
        max_leaves=6,
    )
    types = st.sampled_from(
        [
            "PICK_COMBO",
            "EXPAND",
            "DECLINE",
            "ABANDON",
            "CONQUER",
            "SKIP_CONQUEST",
            "FINAL_CONQUEST",
            "REDEPLOY",
            "USE_DRAGON",
            "USE_SORCERER",
            "PLACE_BIVOUACS",
            "PLACE_FORTRESS",
            "PLACE_HEROES",
            "CHOOSE_DIPLOMAT_ALLY",
            "STOUT_DECLINE",
            "OPPONENT_REDEPLOY",
            "conquer",
            "NOPE",
            "",
        ]
    )
    keys = st.sampled_from(
        ["index", "region_id", "region_ids", "placements", "target_player", "decline", "x"]
    )
    return st.one_of(
        st.fixed_dictionaries(
            {"type": types},
            optional={
                k: values
                for k in ["index", "region_id", "region_ids", "placements", "target_player", "decline"]
            },
        ),
        st.dictionaries(keys, values, max_size=3),
        values,
    )


_GAMES: dict[int, list[SmallWorldGame]] = {}


def _positions() -> list[SmallWorldGame]:
    """Snapshots of one random game at many phases (built once)."""
    if not _GAMES:
        game = SmallWorldGame(GameConfig(3, 21))
        rnd = random.Random(21)
        snaps = []
        while not game.is_game_over():
            snaps.append(game.clone())
            game.submit_action(game.get_current_player(), rnd.choice(game.get_legal_actions()))
        snaps.append(game)
        _GAMES[0] = snaps
    return _GAMES[0]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), junk=_junk(), who=st.integers(-1, 5))
def test_junk_actions_are_rejected_with_the_state_unchanged(data, junk, who):
    snaps = _positions()
    game = snaps[data.draw(st.integers(0, len(snaps) - 1))].clone()
    before = json.dumps(game._state.to_json(), sort_keys=True)
    acting = game.get_current_player()
    try:
        game.submit_action(who, junk)
    except SmallWorldError as exc:
        assert str(exc)
        assert json.dumps(game._state.to_json(), sort_keys=True) == before
    else:  # junk that happens to be a legal move, made by the acting player
        assert who == acting


def test_the_spec_quick_start_loop_runs_to_the_end_and_replays():
    from hexarena.smallworld import GameConfig as AliasConfig
    from hexarena.smallworld import SmallWorldGame as AliasGame

    config = AliasConfig(num_players=3, seed=42)
    game = AliasGame(config)
    while not game.is_game_over():
        player_id = game.get_current_player()
        assert isinstance(game.get_observation(player_id), dict)
        result = game.submit_action(player_id, game.get_legal_actions()[0])
        assert result["game_over"] == game.is_game_over()
    results = game.get_results()
    assert results["winner"] in range(3) and set(results["scores"]) == {0, 1, 2}
    replayed = SmallWorldGame.replay(config, game._state.action_log)
    assert replayed._state.to_json() == game._state.to_json()


@pytest.mark.parametrize(
    ("action", "message"),
    [
        ("PICK_COMBO 0", "is a dict"),
        ({"index": 0}, "unknown action type None"),
        ({"type": "PICK_COMBO"}, "index must be an integer"),
        ({"type": "PICK_COMBO", "index": True}, "index must be an integer"),
        ({"type": "PICK_COMBO", "index": 9}, "out of range"),
        ({"type": "PICK_COMBO", "index": 0, "bonus": 1}, "does not take bonus"),
        ({"type": "CONQUER", "region_id": 3}, "not allowed in phase PICK_COMBO"),
    ],
)
def test_bad_input_is_refused_with_a_message_naming_the_problem(action, message):
    game = SmallWorldGame(GameConfig(3, 1))
    before = game._state.to_json()
    with pytest.raises(SmallWorldError, match=message):
        game.submit_action(0, action)
    assert game._state.to_json() == before


def test_spec_fixtures_start_a_three_player_game_at_the_combo_row(game, game_state):
    assert game_state is game._state and game.get_phase() is Phase.PICK_COMBO
    assert [p.coins for p in game_state.players] == [STARTING_COINS] * 3
    assert len(game_state.combo_row.visible) == 6 and game_state.config.max_turns == 10
