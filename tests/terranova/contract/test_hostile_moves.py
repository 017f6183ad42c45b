"""Terra Nova replies that are JSON but no move (a list where an object belongs, null, a string,
an unknown name, a tile off the map, deep nesting) are refused whole by ``parse_move`` with a
message naming the part that is wrong, so a match records a parse error and goes on."""

import json

import pytest
import yaml
from typer.testing import CliRunner

import hexarena
from hexarena.cli import app
from hexarena.core.errors import MoveParseError

HOSTILE = {
    '{"units": [1, 2]}': "units must be an object",
    '{"units": null}': "units must be an object",
    '{"units": "abc"}': "units must be an object",
    '{"build": [1]}': "build must be an object",
    '{"work": {"0": 5}}': "work-area slot preferences must be a list",
    '{"units": {"x": {"category": "move"}}}': "unit slot must be a number",
    '{"units": {"0": {"target": ["a", 1]}}}': "two numbers",
    '{"units": {"0": {"target": [1, 500]}}}': "off the map",
    '{"tech": [true]}': "unknown technology True",
    '{"trade": {"to": null}}': "unknown player None",
    "[[1]]": "the spec's nested action tuple",
    '{"fill": "heuristic", "units": {"0": {}}}': "an order is",
    '{"fill": "heuristic", "units": {"0": {"category": "settle", "target": 3}}}': "settle takes no target",
    '{"fill": "heuristic", "trade": {"to": [1]}}': "'to', 'offer' and 'ask'",
    '{"fill": "heuristic", "work_tiles": {"0": [[1, "a"]]}}': "two numbers",
    '{"fill": "heuristic", "tech": [3]}': "tech orders name their items",
    "[" * 100_000: "nests deeper than",
    '{"a": ' * 40 + "1" + "}" * 40: "nests deeper than",
}


@pytest.fixture(scope="module")
def state():
    cls = hexarena.game_class("terranova")
    return cls.new(seed=0, turn_cap=1)


@pytest.mark.parametrize("reply", HOSTILE)
def test_parse_move_names_what_is_wrong(state, reply):
    with pytest.raises(MoveParseError) as err:
        state.parse_move(reply)
    assert HOSTILE[reply] in str(err.value) and "Write " in str(err.value)


def test_a_crashing_reply_in_a_match_is_a_parse_error(tmp_path):
    """The replies that used to raise inside the step (no result.json, a traceback) are now the
    player's failed attempts; its next, valid reply is played."""
    replies = ['{"units": [1, 2]}', '{"units": null}', '{"units": "abc"}', "{}"]
    config = {
        "game": {"name": "terranova", "seed": 1, "params": {"turn_cap": 1}},
        "players": [
            {"type": "scripted", "roles": ["red"], "moves": replies, "params": {"as_text": True}},
            *({"type": "random", "seed": i} for i in range(5)),
        ],
        "manager": {"max_attempts_per_turn": 4},
    }
    path = tmp_path / "tn.yaml"
    path.write_text(yaml.safe_dump(config))
    out = tmp_path / "rec"
    result = CliRunner().invoke(app, ["play", str(path), "--out", str(out), "--quiet"])
    assert result.exit_code == 0, result.output
    record = json.loads((out / "result.json").read_text())
    assert record["invalid"]["red"] == 3 and record["outcome"]["kind"] in ("win", "truncated")
    events = [json.loads(line) for line in (out / "turns.jsonl").read_text().splitlines()]
    errors = [e["error"] for e in events if e["event"] == "attempt" and e["role"] == "red"]
    assert errors == ["parse", "parse", "parse", None]
