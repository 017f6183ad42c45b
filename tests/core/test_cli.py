"""The hexarena command line."""

import json

from typer.testing import CliRunner

from hexarena import __version__
from hexarena.cli import app, main

runner = CliRunner()


def test_version_and_list():
    assert __version__ in runner.invoke(app, ["--version"]).output
    out = runner.invoke(app, ["list"]).output
    assert "hex" in out and "red, blue" in out


def test_play_writes_a_record_and_replay_checks_it(tmp_path):
    out = tmp_path / "rec"
    result = runner.invoke(app, ["play", "hex", "--seed", "4", "--out", str(out), "-p", "size=5", "--quiet"])
    assert result.exit_code == 0, result.output
    assert "win" in result.output and f"record:{out}" in "".join(result.output.split())  # wrapped path
    assert json.loads((out / "result.json").read_text())["params"]["size"] == 5
    replay = runner.invoke(app, ["replay", str(out), "--show"])
    assert replay.exit_code == 0 and "ok:" in replay.output and "Game over" in replay.output


def test_play_from_a_config_file(tmp_path):
    cfg = tmp_path / "m.toml"
    cfg.write_text(
        f'[game]\nname = "hex"\nseed = 3\nparams = {{size = 4}}\n[[players]]\ntype = "random"\n'
        f'name = "alice"\n[[players]]\ntype = "random"\nname = "bob"\n[output]\ndir = "{tmp_path / "r"}"\n'
    )
    result = runner.invoke(app, ["play", str(cfg), "--quiet"])
    assert result.exit_code == 0, result.output
    assert "alice" in result.output and "bob" in result.output


def test_demo_plays_every_game(tmp_path, monkeypatch):
    from hexarena.games.terranova.adapter import TerraNovaState

    monkeypatch.setattr(TerraNovaState, "demo_params", {"turn_cap": 4})  # its 30 rounds: make demo
    result = runner.invoke(app, ["demo", "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert (tmp_path / "hex" / "result.json").is_file()
    unwrapped = "".join(result.output.split())  # the console wraps a long temporary path anywhere
    assert (tmp_path / "hex" / "replay.html").stat().st_size > 1000 and "replay.html" in unwrapped


def run_main(monkeypatch, capsys, *args):
    monkeypatch.setattr("sys.argv", ["hexarena", *args])
    try:
        main()
    except SystemExit as exc:
        return exc.code, capsys.readouterr().out
    return 0, capsys.readouterr().out


def test_bad_arguments_are_one_line_errors(monkeypatch, capsys, tmp_path):
    negative_timeout = tmp_path / "neg.yaml"
    negative_timeout.write_text(
        "game: {name: hex}\nplayers: [{type: llm, model: m, timeout_s: -1}, {type: random}]\n"
    )
    for args, expected in [
        (["play", "chess"], "unknown game 'chess'"),
        (["play", "hex", "-p", "size=99"], "size must be an int from 2 to 26"),
        (["play", "hex", "--players", "random"], "--players lists 1"),
        (["play", "hex", "-p", "size"], "--param expects key=value"),
        (["replay", str(tmp_path / "missing")], "not a directory"),
        (["play", str(tmp_path / "none.yaml")], "no such config file"),
        (["play", "hex", "-p", "players=3"], "hex is always played by 2 players"),
        (["play", "cityofgold", "-p", "players=2", "-p", "n_players=3"], "as 'players'"),
        (["play", str(negative_timeout)], "players.0.timeout_s: Input should be greater than 0"),
        (["play", "--resume", str(tmp_path / "missing")], "not a directory"),
        (["play"], "play needs a game name"),
        (
            ["play", "hex", "-p", "sise=5"],
            "hex has no parameter 'sise' (did you mean 'size'?); its parameters: size",
        ),
        (["play", "smallworld", "-p", "players=9"], "players must be 2, 3, 4 or 5, got 9"),
        (["play", "cityofgold", "-p", "players=9"], "players must be 2, 3 or 4, got 9"),
        (
            ["play", "hex", "--players", "random,random,random"],
            "hex has 2 roles (red, blue); --players lists 3",
        ),
        (["play", "smallworld", "--players", ",".join(["random"] * 6)], "--players lists 6, and smallworld"),
        (["play", "smallworld", "-p", "players=3", "--players", "random,random"], "--players lists 2"),
    ]:
        code, out = run_main(monkeypatch, capsys, *args)
        assert code == 2, args
        assert expected in out and "Traceback" not in out
        assert len(out.strip().splitlines()) == 1, out


def test_list_names_every_player_type():
    out = runner.invoke(app, ["list"]).output
    for kind in ("policy:PATH", "scripted", "callable", "replay", "llm:MODEL@BASE_URL", "heuristic"):
        assert kind in out, kind


def test_players_names_set_the_number_of_players(tmp_path):
    for game, seats in [("smallworld", 4), ("cityofgold", 2), ("smallworld", 2)]:
        out = tmp_path / f"{game}-{seats}"
        kinds = ",".join(["random"] * seats)
        args = ["play", game, "--players", kinds, "--max-rounds", "1", "--out", str(out), "--quiet"]
        result = runner.invoke(app, args)
        assert result.exit_code == 0, result.output
        assert len(json.loads((out / "result.json").read_text())["roles"]) == seats


def test_one_name_for_the_player_count_with_aliases(tmp_path):
    for game, key, seats in [
        ("cityofgold", "players", 2),
        ("cityofgold", "num_players", 4),
        ("smallworld", "n_players", 2),
    ]:
        out = tmp_path / f"{game}-{key}"
        args = ["play", game, "-p", f"{key}={seats}", "--max-rounds", "1", "--out", str(out), "--quiet"]
        result = runner.invoke(app, args)
        assert result.exit_code == 0, result.output
        assert len(json.loads((out / "result.json").read_text())["roles"]) == seats
