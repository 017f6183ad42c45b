"""City of Gold through the hexarena contract: immutability, hidden information, text, frames."""

from __future__ import annotations

import json

import pytest

import hexarena
from hexarena.core.contract import OutcomeKind
from hexarena.core.errors import MoveParseError
from hexarena.core.frozen import canonical_json
from hexarena.games.cityofgold import cards as C
from hexarena.games.cityofgold.engine import DRAW_PILE, HAND
from hexarena.games.cityofgold.state import CityOfGoldState
from tests.helpers.play import random_play


def test_registered_and_new():
    assert "cityofgold" in hexarena.list_games()
    s = hexarena.make("cityofgold", seed=2, n_players=3)
    assert isinstance(s, CityOfGoldState) and s.roles == ("red", "blue", "white")


def test_update_game_leaves_the_old_state_unchanged():
    s0 = hexarena.make("cityofgold", seed=5)
    before = canonical_json(s0.export())
    s1 = s0.update_game(s0.environment, s0.legal_moves()[0])
    s2 = s1.apply("pass").apply("pass")
    assert canonical_json(s0.export()) == before
    assert s1.roles[0] == "red" and s2.roles[0] == "blue"  # a turn is several moves
    assert len(s2.history) == 3


def test_rejected_moves_keep_the_state_and_say_why():
    s = hexarena.make("cityofgold", seed=5)
    bad = s.apply("buy Scout")
    assert "not allowed in the movement phase" in bad.message
    assert bad.environment is s.environment and bad.roles == s.roles
    assert "cannot read" in s.apply("dance wildly").message
    assert "no Pioneer in hand" in s.apply("play Pioneer").message


def test_export_replay_round_trip():
    s = random_play(hexarena.make("cityofgold", seed=9, n_players=2, n_pieces=1, max_turns=30), seed=1)
    assert s.is_over()
    data = json.loads(json.dumps(s.export()))
    again = CityOfGoldState.from_export(data)
    assert canonical_json(again.export()) == canonical_json(s.export())


def test_views_hide_opponents_hands_draw_piles_and_randomness():
    s = hexarena.make("cityofgold", seed=4, n_players=3)
    view = s.query_game("blue")
    g = view.environment.game
    assert not any(g.zones[0][HAND]) and not any(g.zones[0][DRAW_PILE])
    assert sum(g.zones[1][HAND]) == 4 and g.rng.state == (0, 0)
    # swapping red's hidden cards must not change blue's view, its text or its observation
    other = s.game.copy()
    red = other.zones[0]
    k = next(k for k in range(C.N_CARDS) if red[HAND][k])
    j = next(j for j in range(C.N_CARDS) if red[DRAW_PILE][j] and j != k)
    red[HAND][k] -= 1
    red[DRAW_PILE][k] += 1
    red[DRAW_PILE][j] -= 1
    red[HAND][j] += 1
    s2 = s.replace(environment=type(s.environment)(other))
    v2 = s2.query_game("blue")
    assert v2.render_text("blue") == view.render_text("blue")
    assert canonical_json(v2.environment.to_json()) == canonical_json(view.environment.to_json())
    assert (s2.observation_array("blue") == s.observation_array("blue")).all()
    assert "hand 4 cards" in view.render_text("blue")


def test_legal_moves_work_on_the_view_and_parse_back():
    s = hexarena.make("cityofgold", seed=4, n_players=4)
    view = s.query_game()
    assert view.legal_moves() == s.legal_moves()
    for move in view.legal_moves():
        assert view.parse_move(f" `{move}`\n") == move
        assert s.format_move(s.move_to_action(move)) == move
    for prose in (
        "",
        "I will do this:\npass",
        "Move: pass. I think that is best.",
        "I prefer to play Explorer",
    ):
        with pytest.raises(MoveParseError):
            view.parse_move(prose)
    with pytest.raises(MoveParseError, match=r"could not read a move from 'fly to the moon'.*Write one move"):
        view.parse_move("fly to the moon")
    with pytest.raises(MoveParseError, match="unknown direction 'north'"):
        view.parse_move("move north")


def test_render_text_is_enough_to_play():
    s = hexarena.make("cityofgold", seed=4, n_players=2)
    text = s.query_game("red").render_text("red")
    for needle in ("P1", "Legend", "Shop market", "Reserve (closed)", "hand ["):
        assert needle in text
    assert "move pawn 1" in text or "play" in text


def test_frame_has_tiles_pawns_players_and_shop():
    s = hexarena.make("cityofgold", seed=3, n_players=4)
    frame = s.frame()
    json.dumps(frame)
    owners = [c["owner"] for c in frame["cells"] if c["owner"]]
    assert sorted(owners) == sorted(s.all_roles())
    assert any("blockade" in c.get("icons", ()) for c in frame["cells"])
    assert {c["terrain"] for c in frame["cells"]} >= {"jungle", "start", "finish"}
    assert frame["players"][0]["fields"]["deck size"] == 8
    assert set(frame["panels"]["Shop"]) == {C.NAMES[k] for k in C.SHOP_CARDS}


def test_outcomes_win_and_truncation():
    s = random_play(hexarena.make("cityofgold", seed=2, n_players=3, n_pieces=1, max_turns=6), seed=2)
    out = s.validate_game()
    assert out.kind is OutcomeKind.TRUNCATED and set(out.scores.values()) == {0.0}
    s = hexarena.make("cityofgold", seed=2, n_players=3, n_pieces=1)
    g = s.game.copy()
    g.pawns[1][0] = -1
    g.ending = True
    g.player = 2
    s = s.replace(environment=type(s.environment)(g))
    s = s.apply("pass").apply("pass")
    out = s.validate_game()
    assert out.kind is OutcomeKind.WIN and out.winners == ("blue",) and out.scores["blue"] == 2.0
    assert "blue reached El Dorado" in s.render_text()
