"""Forfeits (issue 27 item 1): with three seats or more the forfeiter leaves, the others play on."""

import json

import pytest

import hexarena
from hexarena.arena import parse_arena, run_arena
from hexarena.arena.store import ArenaStore
from hexarena.core.manager import play_match, resume_match
from hexarena.core.players import CallablePlayer, ScriptedPlayer
from hexarena.core.records import Record
from tests.arena.arena_doubles import arena_config

#: A short round limit for Terra Nova only (its full game is minutes long); the others end naturally.
ROUNDS = {"terranova": 2}


def match(game, out, policy=None, bad=lambda view: "no move here"):
    cls = hexarena.game_class(game)
    roles = cls.new(seed=0, **cls.demo_params).all_roles()
    others = [{"type": "random", "seed": i} for i in range(1, len(roles))]
    manager = {"max_rounds": ROUNDS.get(game, 1000), **({"on_exhausted": policy} if policy else {})}
    config = {
        "game": {"name": game, "seed": 3, "params": dict(cls.demo_params)},
        "players": [{"type": "callable", "function": "x:y", "name": "bad"}, *others],
        "manager": manager,
        "output": {"dir": str(out)},
    }
    return play_match(config, players={"bad": CallablePlayer(bad, name="bad")})


@pytest.mark.parametrize("game", ["smallworld", "cityofgold", "terranova"])
def test_a_forfeiter_leaves_and_the_others_play_to_the_end(game, tmp_path):
    result = match(game, tmp_path)
    assert result.outcome.kind.value in ("win", "truncated")  # the game's own end, not a forfeit
    if game not in ROUNDS:
        assert result.final_state.is_over()
    assert result.outcome.ranking[-1] == ("red",) and "red left the game" in result.outcome.reason
    assert [e["role"] for e in result.left] == ["red"] and result.left[0]["turn"] == 0
    record = Record.load(tmp_path)
    assert record.result["left"] == result.left and record.outcome == result.outcome
    events = list(record.turns())
    left = [e for e in events if e["event"] == "left"]
    assert len(left) == 1 and left[0]["role"] == "red" and left[0]["player"] == "bad"
    seat = [e for e in events if e["event"] == "move" and e["role"] == "red"]
    assert seat and all(e.get("left") for e in seat)  # every move of the seat is marked
    assert record.replay().export() == result.final_state.export()


def test_two_seat_games_and_the_forfeit_policy_end_at_once(tmp_path):
    hex_result = match("hex", tmp_path / "hex")
    assert hex_result.outcome.kind.value == "forfeit" and hex_result.moves == 0 and not hex_result.left
    ended = match("smallworld", tmp_path / "sw", policy="forfeit")
    assert ended.outcome.kind.value == "forfeit" and ended.moves == 0
    assert ended.outcome.ranking[-1] == ("red",) and not ended.left


def test_when_one_seat_would_be_left_the_match_ends_with_both_forfeiters_last(tmp_path):
    """Red leaves at once; when blue forfeits too, green would play alone: the match ends, green
    first, then blue (who left last), then red (who left first)."""
    blue = ScriptedPlayer(["PICK_COMBO 0"] + ["nonsense"] * 20, name="blue")
    cls = hexarena.game_class("smallworld")
    config = {
        "game": {"name": "smallworld", "seed": 3, "params": dict(cls.demo_params)},
        "players": [
            {"type": "callable", "function": "x:y", "name": "bad"},
            {"type": "scripted", "name": "blue", "moves": []},
            {"type": "random", "seed": 2},
        ],
        "output": {"dir": str(tmp_path)},
    }
    result = play_match(config, players={"bad": CallablePlayer(lambda v: "?", name="bad"), "blue": blue})
    assert result.outcome.kind.value == "forfeit" and result.outcome.role == "blue"
    assert result.outcome.ranking == (("green",), ("blue",), ("red",))
    assert json.loads((tmp_path / "result.json").read_text())["left"][0]["role"] == "red"


def test_the_arena_ranks_a_forfeiter_last_and_counts_the_forfeit(tmp_path):
    config = arena_config(
        tmp_path,
        players=[
            {"name": "broken", "type": "callable", "function": "tests.arena.arena_doubles:always_illegal"},
            {"name": "random", "type": "random"},
            {"name": "random-b", "type": "random", "seed": 5},
        ],
        games=[{"name": "cityofgold", "seats": 3, "params": {"n_pieces": 1, "max_turns": 30}}],
        schedule={"games_per_pairing": 1, "seed": 3},
    )
    summary = run_arena(parse_arena(config), config, tmp_path / "a")
    rows = {r["player"]: r for r in summary.board["combined"]["players"]}
    assert rows["broken"]["games"] > 0 and rows["broken"]["forfeits"] == rows["broken"]["games"]
    assert all(wdl["w"] == 0 for wdl in rows["broken"]["wdl_by_seat"].values())
    store = ArenaStore.open(tmp_path / "a")
    places = [s["place"] for m in store.matches() for s in m["seats"] if s["player"] == "broken"]
    assert places and set(places) == {3}
    own = [s["moves"] for m in store.matches() for s in m["seats"] if s["player"] == "broken"]
    assert set(own) == {0}, "the moves played for the seat it left are not its own"
    assert rows["random"]["forfeits"] == 0


def test_a_match_resumed_after_a_seat_left_keeps_it_out(tmp_path):
    """Red leaves at once; blue's player is stopped (Ctrl-C) at move 20; the resumed match still
    plays red's seat by its leave move and ranks red last."""

    def blue(view):
        if len(view.history) == 20:
            raise KeyboardInterrupt
        return view.legal_moves()[0]

    cls = hexarena.game_class("cityofgold")
    config = {
        "game": {"name": "cityofgold", "seed": 3, "params": dict(cls.demo_params)},
        "players": [
            {"type": "callable", "function": "x:y", "name": "bad"},
            {"type": "callable", "function": "x:y", "name": "blue"},
            {"type": "random", "seed": 2},
        ],
        "output": {"dir": str(tmp_path)},
    }
    bad = CallablePlayer(lambda view: "no move here", name="bad")
    stopped = play_match(config, players={"bad": bad, "blue": CallablePlayer(blue, name="blue")})
    assert stopped.outcome.kind.value == "interrupted" and [e["role"] for e in stopped.left] == ["red"]
    first = lambda view: view.legal_moves()[0]  # noqa: E731
    done = resume_match(tmp_path, players={"bad": bad, "blue": CallablePlayer(first, name="blue")})
    assert done.left == stopped.left and done.outcome.ranking[-1] == ("red",)
    assert done.outcome.kind.value in ("win", "truncated") and done.final_state.is_over()
    attempts = [e for e in Record.load(tmp_path).turns() if e["event"] == "attempt" and e["role"] == "red"]
    assert len(attempts) == 3, "the seat that left is never asked again"
