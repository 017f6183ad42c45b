import io

import pytest

import hexarena
from hexarena.core.errors import PlayerError
from hexarena.core.manager import GameManager
from hexarena.core.player_factory import HumanPlayer


def test_human_sees_board_moves_and_feedback_and_answers_by_number_or_text():
    out = io.StringIO()
    human = HumanPlayer("me", stdin=io.StringIO("a1\n3\n"), stdout=out)
    view = hexarena.make("hex", size=3).apply("b2").apply("b2").query_game()
    reply = human.act(view)
    assert reply.raw == "a1" and reply.move is None
    screen = out.getvalue()
    assert " 2 . R . 2" in screen and "    1. a1" in screen and "already taken" in screen
    assert human.act(view).move == "c1"  # the third listed move


def test_human_game_through_the_manager():
    answers = io.StringIO("a1\nz9\na2\na3\n")
    human = HumanPlayer("me", stdin=answers, stdout=io.StringIO())
    cfg = {
        "game": {"name": "hex", "params": {"size": 3}},
        "players": [
            {"type": "human", "roles": ["red"]},
            {"type": "scripted", "moves": ["b1", "b2"], "roles": ["blue"]},
        ],
    }
    result = GameManager(cfg, players={"red": human}).start()
    assert result.outcome.winners == ("red",) and result.invalid["red"] == 1


def test_end_of_input_is_a_player_error():
    with pytest.raises(PlayerError, match="end of file"):
        HumanPlayer(stdin=io.StringIO(""), stdout=io.StringIO()).act(
            hexarena.make("hex", size=3).query_game()
        )
