"""The contract, proven on the reference game Hex."""

import json

import pytest

import hexarena
from hexarena.core.contract import Outcome, OutcomeKind
from hexarena.core.errors import RecordError, StaleStateError, UnknownGameError
from hexarena.core.frozen import canonical_json
from hexarena.games.hex import HexState


def play(state, moves):
    for m in moves:
        state = state.apply(m)
        assert state.message is None, state.message
    return state


def test_make_and_list():
    assert "hex" in hexarena.list_games()
    s = hexarena.make("hex", seed=3, size=5)
    assert isinstance(s, HexState) and s.roles == ("red", "blue")
    with pytest.raises(UnknownGameError, match="unknown game 'nope'"):
        hexarena.make("nope")


def test_state_is_frozen():
    s = hexarena.make("hex", size=3)
    with pytest.raises(AttributeError):
        s.roles = ("blue",)  # type: ignore[misc]
    with pytest.raises(TypeError):
        s.context["message"] = "x"  # type: ignore[index]


def test_update_returns_new_state_and_old_is_untouched():
    s0 = hexarena.make("hex", size=4)
    before = canonical_json(s0.export())
    s1 = s0.update_game(s0.environment, "b2")
    assert s1 is not s0 and s1.message is None and s1.roles[0] == "blue"
    assert canonical_json(s0.export()) == before
    s2 = s1.apply("c3")
    assert len(s1.history) == 1 and len(s2.history) == 2


def test_rejected_move_keeps_environment_and_roles():
    s1 = hexarena.make("hex", size=4).apply("b2")
    bad = s1.apply("b2")
    assert bad.message == "b2 is already taken by red"
    assert bad.environment is s1.environment and bad.roles == s1.roles and bad.history == s1.history
    assert "off the board" in s1.apply("z9").message
    good = bad.apply("a1")
    assert good.message is None


def test_stale_environment_is_refused():
    s0 = hexarena.make("hex", size=4)
    s1 = s0.apply("a1")
    with pytest.raises(StaleStateError):
        s1.update_game(s0.environment, "b1")


def test_red_wins_top_to_bottom():
    s = play(hexarena.make("hex", size=3), ["a1", "b1", "a2", "b2", "a3"])
    out = s.validate_game()
    assert isinstance(out, Outcome) and out.kind is OutcomeKind.WIN
    assert out.winners == ("red",) and out.scores["red"] == 1.0
    assert str(out) == "win: red connected top to bottom"
    assert s.apply("c3").message.startswith("the game is over")
    assert s.legal_moves() == ()


def test_blue_wins_left_to_right_along_the_diagonal_neighbours():
    # b2 touches a3 and c1 (the rhombus' long-diagonal neighbours), so a3-b2-c1 joins left to right.
    s = play(hexarena.make("hex", size=3), ["a1", "a3", "a2", "b2", "c3", "c1"])
    assert s.validate_game().winners == ("blue",)


def test_swap_rule():
    s = play(hexarena.make("hex", size=5, swap_rule=True), ["b1"])
    assert "swap" in s.legal_moves()
    s = s.apply("swap")
    assert s.message is None and s.roles[0] == "red"
    assert s.environment.at(0, 1) == 2 and s.environment.at(1, 0) == 0
    assert "swap" not in s.legal_moves()
    assert "only allowed" in s.apply("swap").message
    assert "swap" not in play(hexarena.make("hex", size=5), ["b1"]).legal_moves()


def test_export_round_trip_and_json_safe():
    s = play(hexarena.make("hex", seed=9, size=5, swap_rule=True), ["c3", "swap", "a1", "e5"])
    data = json.loads(json.dumps(s.export()))
    back = HexState.from_export(data)
    assert back == s and canonical_json(back.export()) == canonical_json(data)


def test_corrupt_export_is_detected():
    data = play(hexarena.make("hex", size=4), ["a1", "b1"]).export()
    tampered = dict(data, environment=dict(data["environment"], cells=[0] * 16))
    with pytest.raises(RecordError, match="inconsistent"):
        HexState.from_export(tampered)
    with pytest.raises(RecordError, match="schema_version"):
        HexState.from_export(dict(data, schema_version=99))
    with pytest.raises(RecordError, match="rejected on replay"):
        HexState.from_export(dict(data, moves=["a1", "a1"]))
    with pytest.raises(RecordError, match="missing moves"):
        HexState.from_export({k: v for k, v in data.items() if k != "moves"})


def test_query_game_is_a_view_that_cannot_be_advanced():
    s = hexarena.make("hex", size=3)
    view = s.query_game()
    assert view.viewer == "red" and view.message == "You play as red."
    with pytest.raises(StaleStateError):
        view.apply("a1")
    with pytest.raises(ValueError, match="unknown role"):
        s.query_game("green")


def test_parse_move_reads_a_reply_that_is_only_a_cell():
    s = hexarena.make("hex", size=5)
    assert s.parse_move(" C3.") == "c3" and s.parse_move("`swap`") == "swap"
    from hexarena.core.errors import MoveParseError

    for prose in ("no idea", "I will play C3.", "Legal now, for example: a1."):
        with pytest.raises(MoveParseError, match="one cell name and nothing else"):
            s.parse_move(prose)


def test_render_text_shows_board_and_turn():
    text = play(hexarena.make("hex", size=3), ["b2"]).render_text()
    assert " 2 . R . 2" in text and "To move: blue." in text


def test_bad_params_are_named():
    with pytest.raises(ValueError, match="size must be"):
        hexarena.make("hex", size=40)


def test_outcome_ranking_and_json():
    out = Outcome.from_scores("win", "most coins", {"a": 5, "b": 7, "c": 5}, tiebreak={"a": 1})
    assert out.ranking == (("b",), ("a",), ("c",))
    assert out.rank_of("c") == 3 and out.winners == ("b",)
    tie = Outcome.from_scores("draw", "equal", {"a": 1, "b": 1})
    assert tie.ranking == (("a", "b"),) and tie.winners == ()
    assert Outcome.from_json(json.loads(json.dumps(out.to_json()))) == out
    with pytest.raises(RecordError):
        Outcome.from_json({"kind": "victory", "reason": "x"})
