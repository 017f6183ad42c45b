"""Hostile input that used to end in a traceback gets a one-line answer instead."""

import pytest

import hexarena
from hexarena.core.errors import MoveParseError
from tests.core.test_cli import run_main

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


def alias_bomb(levels: int = 9) -> str:
    """A few hundred bytes of YAML whose aliases write out to 9**levels values."""
    lines = ["anchors:", "  a0: &a0 [x, x, x, x, x, x, x, x, x]"]
    lines += [f"  a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 9) + "]" for i in range(1, levels)]
    return (
        "\n".join(lines)
        + f"\ngame: {{name: hex}}\nplayers: [{{type: random, params: {{x: *a{levels - 1}}}}}]\n"
    )


@pytest.mark.parametrize(
    "name, content, expected",
    [
        ("bomb.yaml", alias_bomb(), "the config expands past 100,000 values"),
        ("when.toml", "[game]\nname = 'hex'\nparams = {when = 1979-05-27T07:32:00Z}\n", "is a datetime"),
        ("when.yaml", "game: {name: hex, params: {day: 2002-12-14}}\nplayers: []\n", "is a date"),
        ("latin.yaml", b"game: {name: hex}\nplayers: [{type: random, name: caf\xe9}]\n", "not UTF-8 text"),
        ("deep.json", "[" * 100_000 + "]" * 100_000, "nested too deeply"),
    ],
    ids=["alias-bomb", "toml-datetime", "yaml-date", "latin-1", "deep-json"],
)
def test_hostile_config_files_are_one_line_errors(tmp_path, monkeypatch, capsys, name, content, expected):
    path = tmp_path / name
    path.write_bytes(content if isinstance(content, bytes) else content.encode())
    assert len(alias_bomb()) < 600
    for command in (["play", str(path)], ["arena", str(path), "--out", str(tmp_path / "a")]):
        code, output = run_main(monkeypatch, capsys, *command)
        assert code == 2 and expected in output and "Traceback" not in output, output
