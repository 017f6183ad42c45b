"""Arenas end to end: the CLI, resuming after SIGKILL, errors, budgets, Swiss, every game."""

import csv
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from hexarena.arena import load_report, parse_arena, run_arena
from hexarena.cli import app

from .arena_doubles import arena_config

runner = CliRunner()
SRC = Path(__file__).resolve().parents[2] / "src"


def write(tmp_path, config, name="arena.yaml"):
    path = tmp_path / name
    path.write_text(yaml.safe_dump(config))
    return path


def board_rows(board, section="combined"):
    rows = board["combined"] if section == "combined" else board["games"][section]
    return {r["player"]: r for r in rows["players"]}


def test_heuristic_beats_random_on_every_game_through_the_cli(tmp_path):
    config = arena_config(
        tmp_path,
        games=[
            {"name": "hex", "params": {"size": 5}},
            {"name": "cityofgold", "seats": 3, "params": {"n_pieces": 1, "max_turns": 90}},
            {"name": "smallworld", "seats": 3},
        ],
        schedule={"games_per_pairing": 1, "seed": 2},
    )
    out = tmp_path / "arena"
    result = runner.invoke(
        app, ["arena", str(write(tmp_path, config)), "--out", str(out), "--workers", "2", "--quiet"]
    )
    assert result.exit_code == 0, result.output
    assert "combined leaderboard" in result.output and "12 matches rated, 0 errors" in result.output
    board = json.loads((out / "leaderboard.json").read_text())
    for section in ("combined", "hex", "cityofgold", "smallworld"):
        rows = board_rows(board, section)
        assert rows["heuristic"]["rank"] == 1, (section, rows)
        assert rows["heuristic"]["rating"] > max(rows["random"]["rating"], rows["random-b"]["rating"])
    assert board["games"]["smallworld"]["model"] == "openskill plackett-luce"
    assert board_rows(board)["random"]["rating"] == 1000.0  # the anchor
    # every match left its usual record folder, linked from matches.csv
    with (out / "matches.csv").open() as fh:
        matches = list(csv.DictReader(fh))
    assert len(matches) == 12 and all((out / m["record"] / "result.json").is_file() for m in matches)
    db = sqlite3.connect(out / "arena.sqlite")  # the per-player totals view agrees with the board
    totals = dict(db.execute("SELECT player, SUM(games) FROM player_totals GROUP BY player").fetchall())
    db.close()
    assert totals == {p: r["games"] for p, r in board_rows(board).items()}
    again = runner.invoke(app, ["leaderboard", str(out)])
    assert again.exit_code == 0 and "heuristic" in again.output
    assert json.loads((out / "leaderboard.json").read_text()) == board


def db_counts(folder):
    db = sqlite3.connect(folder / "arena.sqlite")
    try:
        return {
            t: db.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0] for t in ("matches", "results", "seats")
        }
    finally:
        db.close()


def without_times(folder):
    with (folder / "matches.csv").open() as fh:
        return [{k: v for k, v in row.items() if k != "time_s"} for row in csv.DictReader(fh)]


def test_sigkill_mid_run_then_rerun_gives_the_same_table(tmp_path):
    config = arena_config(tmp_path, schedule={"games_per_pairing": 6, "seed": 4})  # 36 matches
    path = write(tmp_path, config)
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    killed = tmp_path / "killed"
    cli = "from hexarena.cli import main; main()"
    cmd = [sys.executable, "-c", cli, "arena", str(path), "--out", str(killed), "--quiet"]
    proc = subprocess.Popen(
        [*cmd, "--workers", "2"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    deadline = time.monotonic() + 120
    done = 0
    while time.monotonic() < deadline and proc.poll() is None:
        if (killed / "arena.sqlite").is_file():
            try:
                done = db_counts(killed)["results"]
            except sqlite3.OperationalError:  # the tables are being made
                done = 0
            if done >= 5:
                break
        time.sleep(0.05)
    assert proc.poll() is None, proc.stderr.read().decode()
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    at_kill = db_counts(killed)["results"]
    assert 5 <= at_kill < 36, at_kill
    subprocess.run([*cmd, "--workers", "2"], env=env, check=True, capture_output=True)
    clean = tmp_path / "clean"
    run_arena(parse_arena(config), config, clean, workers=1)
    assert db_counts(killed) == db_counts(clean) == {"matches": 36, "results": 36, "seats": 72}
    assert json.loads((killed / "leaderboard.json").read_text()) == json.loads(
        (clean / "leaderboard.json").read_text()
    )
    assert without_times(killed) == without_times(clean)
    records = [p for p in (killed / "matches").iterdir()]
    assert len(records) == 36 and all((p / "result.json").is_file() for p in records)


def test_errors_are_retried_up_to_the_limit_and_never_rated(tmp_path, monkeypatch):
    monkeypatch.setenv("ARENA_FLAKY_DIR", str(tmp_path))
    config = arena_config(
        tmp_path,
        players=[
            {"name": "random", "type": "random"},
            {"name": "crasher", "type": "callable", "function": "tests.arena.arena_doubles:crash"},
            {"name": "flaky", "type": "callable", "function": "tests.arena.arena_doubles:crash_once"},
        ],
        games=[{"name": "hex", "params": {"size": 3}}],
        schedule={"games_per_pairing": 1},
        max_error_retries=2,
    )
    out = tmp_path / "arena"
    summary = run_arena(parse_arena(config), config, out, workers=2)
    board = summary.board
    rows = board_rows(board)
    assert rows["crasher"]["games"] == 0 and rows["crasher"]["errors"] == 4
    # flaky crashed once per seed, then played; its errors are its two matches against the crasher
    assert rows["flaky"]["games"] == 2 and rows["flaky"]["errors"] == 2
    assert board["matches"] == {"planned": 6, "done": 2, "errors": 4, "pending": 0}
    with (out / "matches.csv").open() as fh:
        matches = list(csv.DictReader(fh))
    crashed = [m for m in matches if "crasher" in m["seating"]]
    assert {m["status"] for m in crashed} == {"error"} and {m["tries"] for m in crashed} == {"3"}
    assert all("the model server went away" in m["last_error"] for m in crashed)
    flaky = [m for m in matches if m["seating"] in ("random | flaky", "flaky | random")]
    assert {m["status"] for m in flaky} == {"done"} and {m["tries"] for m in flaky} <= {"1", "2"}
    # a rerun plays nothing again: errors given up stay given up, finished matches stay finished
    again = run_arena(parse_arena(config), config, out, workers=1)
    assert again.played == 0 and again.errors == 0
    # raising the limit gives the errors another try
    more = {**config, "max_error_retries": 3}
    assert run_arena(parse_arena(more), more, out).errors == 4


def test_a_manager_error_outcome_is_not_a_loss(tmp_path):
    """``on_exhausted: abort`` ends a match with outcome kind error: retried, then given up, unrated."""
    config = arena_config(
        tmp_path,
        players=[
            {"name": "random", "type": "random"},
            {"name": "broken", "type": "callable", "function": "tests.arena.arena_doubles:always_illegal"},
        ],
        games=[{"name": "hex", "params": {"size": 3}}],
        manager={"on_exhausted": "abort", "max_attempts_per_turn": 1},
        max_error_retries=1,
    )
    board = run_arena(parse_arena(config), config, tmp_path / "a").board
    rows = board_rows(board)
    assert rows["broken"]["games"] == rows["random"]["games"] == 0
    assert rows["broken"]["errors"] == 4 and board["matches"]["errors"] == 4


def test_token_budget_holds_matches_back_until_raised(tmp_path):
    spender = {
        "name": "spender",
        "type": "callable",
        "function": "tests.arena.arena_doubles:token_user",
        "budget": {"tokens": 1},
    }
    config = arena_config(tmp_path, players=[{"name": "random", "type": "random"}, spender])
    out = tmp_path / "arena"
    summary = run_arena(parse_arena(config), config, out)
    assert summary.played == 1 and len(summary.unplayed_budget) == 3
    assert "player spender's budget is spent" in summary.unplayed_budget[0]
    assert summary.board["matches"]["pending"] == 3
    raised = {**config, "players": [config["players"][0], {**spender, "budget": {"tokens": 10**6}}]}
    assert run_arena(parse_arena(raised), raised, out).played == 3


def test_swiss_rounds_pair_by_standing_without_rematches(tmp_path):
    config = arena_config(
        tmp_path,
        players=[{"name": f"r{i}", "type": "random", "seed": i} for i in range(4)]
        + [{"name": "h", "type": "heuristic"}],
        schedule={"kind": "swiss", "rounds": 3, "games_per_pairing": 1, "seed": 1},
    )
    out = tmp_path / "arena"
    summary = run_arena(parse_arena(config), config, out)
    assert summary.board["matches"] == {"planned": 12, "done": 12, "errors": 0, "pending": 0}
    with (out / "matches.csv").open() as fh:
        matches = list(csv.DictReader(fh))
    pods = {}
    for m in matches:
        pods.setdefault(m["round"], set()).add(frozenset(m["seating"].split(" | ")))
    assert sorted(pods) == ["0", "1", "2"] and all(len(p) == 2 for p in pods.values())
    assert len(set().union(*pods.values())) == 6  # no pairing twice in three rounds
    field = {"r0", "r1", "r2", "r3", "h"}
    sat_out = [field - set().union(*p) for p in pods.values()]
    assert all(len(s) == 1 for s in sat_out) and len(set().union(*sat_out)) == 3
    assert load_report(out)[0] == summary.board


@pytest.mark.slow
def test_heuristic_beats_random_at_terra_nova(tmp_path):
    config = arena_config(
        tmp_path,
        players=[{"name": "heuristic", "type": "heuristic"}]
        + [{"name": f"random-{i}", "type": "random", "seed": i} for i in range(5)],
        games=[{"name": "terranova", "params": {"turn_cap": 30}}],
        schedule={"games_per_pairing": 1},
    )
    rows = board_rows(run_arena(parse_arena(config), config, tmp_path / "a").board, "terranova")
    assert rows["heuristic"]["rank"] == 1
