"""Unreadable replies never crash a match: every game answers them with a parse error that names
its move syntax, the manager feeds it back as a retry, and the record keeps every attempt."""

import json
import math

import pytest
from typer.testing import CliRunner

import hexarena
from hexarena.cli import app
from hexarena.core.contract import GameState
from hexarena.core.errors import MoveParseError
from hexarena.core.manager import play_match
from hexarena.core.players import Player, Reply

GARBAGE = [
    "",
    "   \n\t ",
    "I think the best plan is to wait and see what the others do.",
    '{"type": "CONQ',
    "x" * 100_000,
    "ŝ̷̢ 🐉 ход 手 \u202e",
    "null",
    "[]",
    "help",
]


class GarbageThenLegal(Player):
    """Odd calls reply with the next garbage text, even calls with a legal move's text."""

    kind = "garbage"

    def __init__(self) -> None:
        super().__init__("garbage")
        self.calls = 0

    def act(self, view: GameState) -> Reply:
        self.calls += 1
        if self.calls % 2:
            return Reply(raw=GARBAGE[(self.calls // 2) % len(GARBAGE)])
        return Reply(raw=view.format_move(view.legal_moves()[0]))


@pytest.fixture(params=hexarena.list_games())
def game(request):
    return request.param


def test_parse_move_raises_move_parse_error_naming_the_syntax(game):
    cls = hexarena.game_class(game)
    state = cls.new(seed=1, **cls.demo_params)
    for text in [*GARBAGE, "move north", "PICKUP 1", None, 42]:
        if text in ("[]",):  # a JSON list is a dense Terra Nova move; not garbage everywhere
            continue
        with pytest.raises(MoveParseError) as err:
            state.parse_move(text)
        message = str(err.value)
        assert cls.move_syntax in message and "Write " in message, message
        assert len(message) < 2000, "a long reply is quoted shortened, not echoed whole"


SLOW = {"terranova"}  # a JAX step per move: ~50 s for this match, so make test-all only


@pytest.mark.parametrize(
    "game", [pytest.param(g, marks=pytest.mark.slow) if g in SLOW else g for g in hexarena.list_games()]
)
def test_garbage_through_the_manager_is_retried_and_recorded(game, tmp_path):
    cls = hexarena.game_class(game)
    roles = cls.new(seed=1, **cls.demo_params).all_roles()
    player = GarbageThenLegal()
    config = {
        "game": {"name": game, "seed": 1, "params": dict(cls.demo_params)},
        "players": [{"type": "random", "roles": [r]} for r in roles],
        "manager": {"max_rounds": math.ceil(len(GARBAGE) / len(roles)), "max_invalid_per_game": 100},
        "output": {"dir": str(tmp_path / "rec")},
    }
    result = play_match(config, players=dict.fromkeys(roles, player))
    assert result.outcome.kind.value in ("truncated", "win"), result.outcome
    events = [json.loads(line) for line in (tmp_path / "rec" / "turns.jsonl").read_text().splitlines()]
    attempts = [e for e in events if e["event"] == "attempt"]
    failed = [a for a in attempts if a["error"]]
    moves = [e for e in events if e["event"] == "move"]
    assert len(moves) == result.moves >= len(GARBAGE) and len(failed) == len(moves)
    assert {a["error"] for a in failed} <= {"parse", "illegal"}
    assert sum(a["error"] == "parse" for a in failed) >= len(GARBAGE) - 1  # "[]" may be a Terra Nova move
    assert all(cls.move_syntax in a["message"] for a in failed if a["error"] == "parse")
    assert any(len(a["raw"]) == 100_000 for a in failed), "the raw reply is recorded whole"
    assert sum(result.invalid.values()) == len(failed)
    assert (tmp_path / "rec" / "result.json").is_file()


def test_garbage_from_the_command_line(tmp_path):
    moves = ["", "{not json", "x" * 100_000, "🐉", "null", "a1", "a2", "a3", "a4", "a5"]
    cfg = tmp_path / "garbage.json"
    cfg.write_text(
        json.dumps(
            {
                "game": {"name": "hex", "params": {"size": 5}},
                "players": [
                    {"type": "scripted", "moves": moves, "params": {"as_text": True}},
                    {"type": "scripted", "moves": ["b1", "b2", "b3", "b4", "b5"]},
                ],
                "manager": {"max_attempts_per_turn": 6},
                "output": {"dir": str(tmp_path / "rec")},
            }
        )
    )
    result = CliRunner().invoke(app, ["play", str(cfg), "--quiet"])
    assert result.exit_code == 0, result.output
    data = json.loads((tmp_path / "rec" / "result.json").read_text())
    assert data["outcome"]["kind"] == "win" and data["invalid"]["red"] == 5
