"""The GameManager: players, retries, budgets, policies, records and secrets."""

import json
import time

import pytest

from hexarena.core.config import load_config
from hexarena.core.errors import ConfigError, PlayerError, RecordError, TransportError
from hexarena.core.manager import GameManager, play_match
from hexarena.core.players import CallablePlayer, Player, RandomPlayer, Reply, ScriptedPlayer
from hexarena.core.records import Record


def hex_config(out=None, players=None, **manager):
    return {
        "game": {"name": "hex", "seed": 11, "params": {"size": 4}},
        "players": players or [{"type": "random", "seed": 1}, {"type": "random", "seed": 2}],
        "manager": {"backoff_s": 0.0, **manager},
        "output": {"dir": str(out) if out else None},
    }


class Recorder(Player):
    """Wraps a player and keeps every view it was shown."""

    kind = "recorder"

    def __init__(self, inner):
        super().__init__("recorder")
        self.inner, self.views = inner, []

    def act(self, view):
        self.views.append(view)
        return self.inner.act(view)


def test_random_game_writes_a_replayable_record(tmp_path):
    result = play_match(hex_config(tmp_path))
    rec = Record.load(tmp_path)
    assert rec.outcome == result.outcome and result.outcome.kind.value == "win"
    assert rec.result["moves"] == result.moves == len(rec.moves())
    assert rec.replay().export() == result.final_state.export()
    frames = list(rec.frames())
    assert len(frames) == result.moves + 1 and frames[0]["step"] == 0
    assert json.loads((tmp_path / "final.json").read_text())["moves"] == [m["move"] for m in rec.moves()]


def test_same_config_same_record(tmp_path):
    play_match(hex_config(tmp_path / "a"))
    play_match(hex_config(tmp_path / "b"))
    strip = lambda p: [{k: v for k, v in e.items() if k != "latency_ms"} for e in Record.load(p).turns()]  # noqa: E731
    assert strip(tmp_path / "a") == strip(tmp_path / "b")
    assert (tmp_path / "a" / "final.json").read_text() == (tmp_path / "b" / "final.json").read_text()


def test_illegal_move_gets_feedback_then_is_corrected(tmp_path):
    red = Recorder(ScriptedPlayer(["a1", "a1", "b1", "c1", "d1", "a3", "b3", "c3", "d3"]))
    blue = ScriptedPlayer(["a2", "b2", "c2", "d2", "a4", "b4", "c4", "d4"])
    cfg = hex_config(
        tmp_path,
        players=[
            {"type": "scripted", "name": "recorder", "moves": []},
            {"type": "scripted", "name": "blue", "moves": []},
        ],
    )
    result = GameManager(cfg, players={"recorder": red, "blue": blue}).start()
    assert result.invalid == {"red": 1, "blue": 0}
    # red's second answer (a1 again) is illegal; its retry view carries the reason
    retry_view = red.views[2]
    assert retry_view.message == "Your previous move was not accepted: a1 is already taken by red"
    errors = [e["error"] for e in Record.load(tmp_path).turns() if e["event"] == "attempt"]
    assert errors.count("illegal") == 1


def test_feedback_levels():
    for level, expected in [
        ("none", "You play as red."),
        ("generic", "Your previous move was not accepted. Try again."),
        ("reason+legal", "Legal moves: b1, b2"),
    ]:
        red = Recorder(ScriptedPlayer(["a1", "a1", "b1", "c1"]))
        cfg = hex_config(None, feedback=level, max_rounds=2)
        cfg["game"]["params"]["size"] = 2
        GameManager(cfg, players={"red": red, "blue": ScriptedPlayer(["a2", "b2"])}).start()
        assert expected in red.views[2].message


def test_exhaustion_policies(tmp_path):
    bad = lambda view: "z9"  # noqa: E731
    forfeit = GameManager(hex_config(), players={"red": CallablePlayer(bad)}).start()
    assert forfeit.outcome.kind.value == "forfeit" and forfeit.outcome.role == "red"
    assert forfeit.outcome.ranking == (("blue",), ("red",)) and forfeit.invalid["red"] == 3
    fallback = GameManager(
        hex_config(on_exhausted="random_legal"), players={"red": CallablePlayer(bad)}
    ).start()
    assert fallback.outcome.kind.value == "win"
    assert fallback.final_state.validate_game() == fallback.outcome
    abort = GameManager(hex_config(on_exhausted="abort"), players={"red": CallablePlayer(bad)}).start()
    assert abort.outcome.kind.value == "error" and abort.outcome.reason.startswith("aborted")


def test_per_game_invalid_budget():
    flip = {"n": 0}

    def sometimes_bad(view):
        flip["n"] += 1
        return "z9" if flip["n"] % 2 else view.legal_moves()[0]

    result = GameManager(
        hex_config(max_invalid_per_game=2), players={"red": CallablePlayer(sometimes_bad)}
    ).start()
    assert result.outcome.kind.value == "forfeit" and "exceeded 2 invalid" in result.outcome.reason


def test_per_move_timeout_and_time_budget(tmp_path):
    def slow(view):
        time.sleep(0.3)
        return view.legal_moves()[0]

    timed = GameManager(
        hex_config(tmp_path, per_move_timeout_s=0.05), players={"red": CallablePlayer(slow)}
    ).start()
    assert timed.outcome.kind.value == "forfeit"
    errors = {
        e["error"] for e in Record.load(tmp_path).turns() if e["event"] == "attempt" and e["role"] == "red"
    }
    assert errors == {"timeout"}

    def sluggish(view):
        time.sleep(0.02)
        return view.legal_moves()[0]

    budget = GameManager(hex_config(per_player_time_budget_s=0.05), players={"red": CallablePlayer(sluggish)})
    result = budget.start()
    assert result.outcome.kind.value in ("forfeit", "win")
    if result.outcome.kind.value == "forfeit":
        assert "time budget" in result.outcome.reason


def test_transport_errors_are_retried_and_not_counted():
    class Flaky(RandomPlayer):
        fails = 0

        def act(self, view):
            if Flaky.fails < 2:
                Flaky.fails += 1
                raise TransportError("connection reset")
            return super().act(view)

    result = GameManager(hex_config(), players={"red": Flaky("red", 1)}).start()
    assert result.outcome.kind.value == "win" and result.invalid["red"] == 0


def test_player_errors_count_as_attempts():
    def broken(view):
        raise PlayerError("model refused")

    result = GameManager(hex_config(), players={"red": CallablePlayer(broken)}).start()
    assert result.outcome.kind.value == "forfeit" and result.invalid["red"] == 3


def test_max_rounds_truncates():
    result = play_match(hex_config(max_rounds=2))
    assert result.outcome.kind.value == "truncated" and result.moves == 4
    assert "round limit of 2" in result.outcome.reason


def test_init_players_errors():
    with pytest.raises(ConfigError, match="'green' is not a role of hex"):
        GameManager(hex_config(players=[{"type": "random", "roles": ["green"]}]))
    with pytest.raises(ConfigError, match="no player for role"):
        GameManager(hex_config(players=[{"type": "random", "roles": ["red"]}]))
    with pytest.raises(ConfigError, match="assigned twice"):
        GameManager(
            hex_config(players=[{"type": "random", "roles": ["red"]}, {"type": "random", "roles": ["red"]}])
        )
    with pytest.raises(ConfigError, match="unknown player type 'genius'"):
        GameManager(hex_config(players=[{"type": "genius"}, {"type": "random"}]))
    with pytest.raises(ConfigError, match=r"game\.params"):
        GameManager({**hex_config(), "game": {"name": "hex", "params": {"colour": "red"}}})


def test_secrets_never_reach_records(tmp_path, monkeypatch):
    monkeypatch.setenv("HEXARENA_TEST_KEY", "sk-very-secret-123")
    cfg_file = tmp_path / "match.yaml"
    cfg_file.write_text(
        "game: {name: hex, seed: 1, params: {size: 3}}\n"
        "players:\n"
        "  - {type: callable, function: 'tests.core.test_manager:first_legal', api_key: '${HEXARENA_TEST_KEY}'}\n"
        "  - {type: random, params: {token: 'sk-very-secret-123'}}\n"
        f"output: {{dir: '{tmp_path / 'rec'}'}}\n"
    )
    config, raw = load_config(cfg_file)
    assert config.players[0].api_key == "sk-very-secret-123"
    GameManager(config, raw_config=raw).start()
    for f in (tmp_path / "rec").iterdir():
        assert "sk-very-secret-123" not in f.read_text(), f.name
    assert "${HEXARENA_TEST_KEY}" in (tmp_path / "rec" / "config.json").read_text()


def first_legal(view):
    return view.legal_moves()[0]


@pytest.mark.parametrize(
    ("name", "text", "match"),
    [
        ("bad.yaml", "game: {name: hex}\nplayers: []\n", r"bad.yaml: players: List should have at least 1"),
        (
            "bad.toml",
            "[game]\nseed = 'x'\nname = 'hex'\n[[players]]\ntype = 'random'\n",
            r"bad.toml: game.seed",
        ),
        (
            "bad.json",
            '{"game": {"name": "hex"}, "players": [{"type": "random"}], "manager": {"max_rounds": 0}}',
            r"bad.json: manager.max_rounds: Input should be greater than or equal to 1",
        ),
        (
            "typo.yaml",
            "game: {name: hex}\nplayers: [{type: random}]\nmanager: {max_round: 3}\n",
            r"manager.max_round: Extra inputs are not permitted",
        ),
        (
            "env.yaml",
            "game: {name: hex}\nplayers: [{type: llm, model: m, api_key: '${HEXARENA_UNSET_VAR}'}]\n",
            r"environment variable HEXARENA_UNSET_VAR is not set",
        ),
        ("broken.yaml", "game: [unclosed\n", r"broken.yaml: not valid YAML"),
        ("x.ini", "a=1", r"unknown config format"),
    ],
)
def test_config_errors_name_file_and_key(tmp_path, name, text, match):
    (tmp_path / name).write_text(text)
    with pytest.raises(ConfigError, match=match):
        load_config(tmp_path / name)


def test_corrupt_records_give_clear_errors(tmp_path):
    play_match(hex_config(tmp_path))
    turns = tmp_path / "turns.jsonl"
    lines = turns.read_text().splitlines()
    turns.write_text("\n".join(lines[:5]) + "\n" + lines[5][:20] + "\n")
    with pytest.raises(RecordError, match=r"turns.jsonl:6: corrupt or truncated"):
        Record.load(tmp_path).replay()
    turns.write_text("\n".join(lines[:6]) + "\n")
    with pytest.raises(RecordError, match="does not reproduce"):
        Record.load(tmp_path).replay()
    (tmp_path / "result.json").write_text("{oops")
    with pytest.raises(RecordError, match=r"result\.json: corrupt JSON"):
        Record.load(tmp_path)
    with pytest.raises(RecordError, match="not a directory"):
        Record.load(tmp_path / "nope")


def test_replay_player_reproduces_a_record(tmp_path):
    first = play_match(hex_config(tmp_path / "orig"))
    cfg = hex_config(
        tmp_path / "again",
        players=[
            {"type": "replay", "record": str(tmp_path / "orig"), "roles": ["red"]},
            {"type": "replay", "record": str(tmp_path / "orig"), "roles": ["blue"]},
        ],
    )
    again = play_match(cfg)
    assert again.final_state.export() == first.final_state.export()


def test_reply_needs_content():
    with pytest.raises(ValueError):
        Reply()
