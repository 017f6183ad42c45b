"""Hostile input that used to end in a traceback gets a one-line answer instead."""

import pytest

import hexarena
from hexarena.core.errors import MoveParseError

DEEP = ["[" * 100_000, '{"a": ' * 40 + "1" + "}" * 40, "[" * 500 + "]" * 500]


@pytest.mark.parametrize("game", [g for g in hexarena.list_games() if g != "terranova"])  # own test
def test_deeply_nested_json_is_an_unreadable_reply(game):
    cls = hexarena.game_class(game)
    state = cls.new(seed=1, **cls.demo_params)
    for text in DEEP:
        with pytest.raises(MoveParseError) as err:  # not a RecursionError
            state.parse_move(text)
        if game == "smallworld":  # the one that reads JSON here (Terra Nova: its own test)
            assert "nests deeper than 32 levels" in str(err.value)
