"""Small World through the hexarena contract: immutability, export, hidden coins, text, frames, bot."""

from __future__ import annotations

import json

import pytest

import hexarena
from hexarena.core.errors import MoveParseError
from hexarena.core.frozen import canonical_json, thaw
from hexarena.core.players import RandomPlayer
from hexarena.games.smallworld.adapter import SmallWorldState
from hexarena.games.smallworld.bot import HeuristicPlayer, play_vs_random
from tests.helpers.play import random_play


def test_registered_with_roles_per_player_count():
    state = hexarena.make("smallworld", seed=1, players=5)
    assert isinstance(state, SmallWorldState) and state.all_roles() == (
        "red",
        "blue",
        "green",
        "yellow",
        "purple",
    )
    assert hexarena.make("smallworld", seed=1, players=2).roles == ("red", "blue")
    with pytest.raises(ValueError, match="num_players"):
        hexarena.make("smallworld", players=7)


def test_update_leaves_the_old_state_and_its_export_unchanged():
    state = random_play(hexarena.make("smallworld", seed=3, players=3), moves=30)
    before = canonical_json(state.export())
    move = state.legal_moves()[0]
    nxt = state.update_game(state.environment, move)
    assert nxt.message is None and nxt is not state
    assert canonical_json(state.export()) == before
    assert state.environment._game is not nxt.environment._game


def test_rejected_move_keeps_environment_and_says_why():
    state = random_play(hexarena.make("smallworld", seed=4, players=3), moves=5)
    bad = state.apply({"type": "CONQUER", "region_id": 999})
    assert bad.environment is state.environment and bad.roles == state.roles
    assert bad.message and ("999" in bad.message or "not allowed" in bad.message)


def test_export_round_trips_through_json():
    state = random_play(hexarena.make("smallworld", seed=5, players=4), moves=80)
    data = json.loads(json.dumps(state.export()))
    back = SmallWorldState.from_export(data)
    assert back == state and canonical_json(back.export()) == canonical_json(data)


def test_a_view_never_shows_opponents_coins_decks_or_rng():
    state = random_play(hexarena.make("smallworld", seed=6, players=3), moves=40)
    gs = state.environment._game._state
    for p, secret in zip(gs.players, (4321, 8765, 9753), strict=True):
        p.coins = secret  # distinctive numbers to look for
    view = state.query_game("blue")
    dumped = json.dumps(thaw(view.environment.to_json())) + view.render_text("blue")
    assert "8765" in dumped and "4321" not in dumped and "9753" not in dumped
    assert "race_deck" not in dumped and "rng" not in dumped
    assert set(view.get_scores()) == set(state.all_roles())
    assert view.get_scores()["red"] == 0.0


def test_views_list_and_parse_the_legal_moves_of_the_role_to_move():
    state = random_play(hexarena.make("smallworld", seed=7, players=3), moves=25)
    view = state.query_game()
    moves = view.legal_moves()
    assert moves and moves == state.legal_moves()
    for move in moves:
        assert view.parse_move(view.format_move(move)) == move
    text = view.render_text(view.roles[0])
    assert "Legal moves" not in text  # players list them (the human summary, the LLM prompt)
    assert "adjacent" in text and "Combo row" in text


def test_parse_move_reads_a_reply_that_is_one_move_and_json():
    state = hexarena.make("smallworld", seed=8, players=3)
    assert thaw(state.parse_move("`PICK_COMBO 2`")) == {"type": "PICK_COMBO", "index": 2}
    assert thaw(state.parse_move("pick 2")) == {"type": "PICK_COMBO", "index": 2}
    for prose in ("I pick `PICK_COMBO 2` because it is cheap", "Legal now, for example: PICK_COMBO 0."):
        with pytest.raises(MoveParseError, match="a reply is one move"):
            state.parse_move(prose)
    assert thaw(state.parse_move('{"type": "PICK_COMBO", "index": 1}')) == {"type": "PICK_COMBO", "index": 1}
    assert thaw(state.parse_move("redeploy 3:2 5:1")) == {"type": "REDEPLOY", "placements": {"3": 2, "5": 1}}


def test_frame_has_regions_terrain_owners_tokens_and_player_panels():
    state = random_play(hexarena.make("smallworld", seed=9, players=3), moves=40)
    frame = state.frame()
    json.dumps(frame)
    cells = frame["cells"]
    assert len(cells) == len(state.environment._game._state.regions)
    assert any(c["owner"] for c in cells) and all("terrain" in c and "region" in c for c in cells)
    assert [p["role"] for p in frame["players"]] == list(state.all_roles())
    assert "Combo row" in frame["panels"]


def test_full_game_through_the_contract_with_the_heuristic_bot():
    state = hexarena.make("smallworld", seed=10, players=3)
    players = {"red": HeuristicPlayer(seed=1), "blue": RandomPlayer(seed=2), "green": RandomPlayer(seed=3)}
    for role, p in players.items():
        p.reset((role,), 10)
    while not state.is_over():
        role = state.roles[0]
        state = state.apply(players[role].act(state.query_game(role)).move)
        assert state.message is None, state.message
    outcome = state.validate_game()
    assert outcome.kind.value == "win" and len(outcome.ranking) == 3


def test_heuristic_bot_beats_three_random_players_in_most_games():
    assert play_vs_random(range(40)) >= 0.8


@pytest.mark.slow
def test_heuristic_bot_wins_at_least_80_percent_of_200_four_player_games():
    assert play_vs_random(range(200)) >= 0.8


def test_races_and_powers_are_explained_to_a_model_and_a_person():
    """Issue 27 item 4: every race and power has its ability in the rules; the combo row on offer
    shows each combo's abilities and tokens; `pick 4` picks; the recent events come after the map."""
    rules = SmallWorldState.rules_summary
    for race in ("Amazons", "Ghouls", "Tritons", "Skeletons"):
        assert f"\n  {race} (" in rules
    for power in ("Alchemist", "Bivouacking", "Seafaring", "Wealthy"):
        assert f"\n  {power} (+" in rules
    state = hexarena.make("smallworld", seed=1, players=3)
    text = state.query_game().render_text("red")
    assert "0: Ghouls + Seafaring, 10 tokens, 0 coins\n       Ghouls: Keep every token" in text
    assert "       Seafaring: The seas and the lake may be conquered" in text
    after = state.apply(state.parse_move("pick 4"))
    assert after.message is None and thaw(after.history[-1]) == {"type": "PICK_COMBO", "index": 4}
    later = after.query_game("blue").render_text("blue")
    assert later.index("Since your last turn") > later.index("Regions (")
    assert "picked Tritons + Swamp" in later.split("Since your last turn")[1]
