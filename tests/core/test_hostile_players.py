"""Players that raise, and games that raise on a move, never end a match: as a user meets it in
``hexarena play``, each is the player's failed attempt, recorded, and the match ends normally."""

import json

import yaml
from typer.testing import CliRunner

from hexarena.cli import app
from hexarena.games.hex.state import HexState


def explode(view):
    """A callable player whose own code fails."""
    return 1 / 0


def play(tmp_path, players, **manager):
    config = {
        "game": {"name": "hex", "seed": 3, "params": {"size": 3}},
        "players": players,
        "manager": {"max_attempts_per_turn": 2, **manager},
    }
    path = tmp_path / "match.yaml"
    path.write_text(yaml.safe_dump(config))
    out = tmp_path / "rec"
    result = CliRunner().invoke(app, ["play", str(path), "--out", str(out), "--quiet"])
    assert result.exit_code == 0, result.output
    attempts = [json.loads(line) for line in (out / "turns.jsonl").read_text().splitlines()]
    attempts = [e for e in attempts if e["event"] == "attempt" and e["error"]]
    return json.loads((out / "result.json").read_text()), attempts


def test_a_callable_that_raises_fails_its_attempts_and_forfeits(tmp_path):
    players = [
        {"type": "callable", "function": "tests.core.test_hostile_players:explode", "name": "boom"},
        {"type": "random"},
    ]
    result, failed = play(tmp_path, players)
    assert result["outcome"]["kind"] == "forfeit" and result["outcome"]["role"] == "red"
    assert result["invalid"]["red"] == 2
    assert [e["error"] for e in failed] == ["player", "player"]
    assert "boom failed: ZeroDivisionError" in failed[0]["message"]


def test_a_null_scripted_move_is_a_failed_attempt(tmp_path):
    players = [{"type": "scripted", "moves": [None, "a1", "b1", "c1"]}, {"type": "random", "seed": 4}]
    result, failed = play(tmp_path, players)
    assert result["invalid"]["red"] >= 1 and result["moves"] >= 2
    assert failed[0]["error"] == "player" and "move 1 is null" in failed[0]["message"]


def test_a_game_that_raises_on_a_move_rejects_it(tmp_path, monkeypatch):
    advance = HexState.advance

    def fragile(self, move):
        if move == "b2":
            raise RuntimeError("engine bug")
        return advance(self, move)

    monkeypatch.setattr(HexState, "advance", fragile)
    players = [
        {"type": "scripted", "moves": ["b2", "a1", "a2", "a3"]},
        {"type": "scripted", "moves": ["c1", "c2", "c3"]},
    ]
    result, failed = play(tmp_path, players)
    assert result["outcome"]["kind"] == "win" and result["invalid"] == {"red": 1, "blue": 0}
    assert failed[0]["error"] == "illegal"
    assert failed[0]["message"] == "hex could not apply this move: RuntimeError('engine bug')"
