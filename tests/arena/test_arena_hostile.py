"""Arenas under hostile input and signals (issue 28 items 1, 5, 6, 7), through ``hexarena arena``.

* ``${VAR}`` in an LLM player's ``base_url`` and ``model``: no credential reaches the match files,
  ``arena.sqlite`` or ``matches.csv``, and ``leaderboard`` (which never expands) finds every match;
* names with rich markup and terminal escapes show as written;
* Ctrl-C / SIGTERM stop the run with 130 / 143 without counting the interrupted match.
"""

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

from hexarena.cli import app
from hexarena.viewer.arena import page_data
from tests.helpers.chat_server import ChatServer, chat_answer, error
from tests.helpers.slow_player import slow_first_legal  # noqa: F401  (the arena imports it by name)

from .arena_doubles import arena_config

runner = CliRunner()
ROOT = Path(__file__).resolve().parents[2]
SECRETS = ("PASS", "QSECRET", "MSECRET")


def write(tmp_path, config):
    path = tmp_path / "arena.yaml"
    path.write_text(yaml.safe_dump(config, allow_unicode=True))
    return path


def folder_bytes(folder: Path) -> bytes:
    return b"".join(p.read_bytes() for p in folder.rglob("*") if p.is_file())


def first_legal(body):
    import re

    legal = re.findall(r"^#\d+: (\S+)$", body["messages"][-1]["content"], re.MULTILINE)
    return chat_answer(f"MOVE: {legal[0]}")


def llm_arena(tmp_path, base_url, **overrides):
    llm = {"name": "llm", "type": "llm", "model": "${LLM_MODEL}", "base_url": base_url, "reply_mode": "text"}
    config = arena_config(
        tmp_path,
        players=[
            {"name": "random", "type": "random"},
            {"name": "random-b", "type": "random", "seed": 5},
            llm,
        ],
        games=[{"name": "hex", "params": {"size": 3}}],
        schedule={"games_per_pairing": 1, "seed": 3},
        manager={"transport_retries": 0, "transport_budget_s": 1.0, "backoff_s": 0.01},
    )
    config.update(overrides)
    return config


def test_references_stay_written_and_leaderboard_finds_every_match(tmp_path, monkeypatch):
    out = tmp_path / "arena"
    with ChatServer(first_legal) as srv:
        monkeypatch.setenv("LLM_URL", srv.base_url.replace("http://", "http://user:PASS@"))
        monkeypatch.setenv("LLM_MODEL", "model-MSECRET")
        result = runner.invoke(
            app,
            ["arena", str(write(tmp_path, llm_arena(tmp_path, "${LLM_URL}"))), "--out", str(out), "--quiet"],
        )
    assert result.exit_code == 0, result.output
    assert srv.requests and srv.requests[0]["model"] == "model-MSECRET"
    assert "6 matches rated, 0 errors, 0 unplayed" in " ".join(result.output.split())
    for secret in SECRETS:
        assert secret.encode() not in folder_bytes(out), secret
    llm_record = next(
        p for p in (out / "matches").iterdir() if b"${LLM_URL}" in (p / "result.json").read_bytes()
    )
    assert b'"model": "${LLM_MODEL}"' in (llm_record / "result.json").read_bytes()
    # the readers never expand (no key needed): the same ids, so the same six matches
    monkeypatch.delenv("LLM_URL")
    monkeypatch.delenv("LLM_MODEL")
    again = runner.invoke(app, ["leaderboard", str(out)])
    assert again.exit_code == 0, again.output
    assert "6 matches rated, 0 errors, 0 unplayed" in " ".join(again.output.split())
    shown = page_data(out, lambda row: row["record_dir"])  # what `hexarena view DIR` serves
    assert [m["status"] for m in shown["matches"]] == ["done"] * 6
    assert all(m["replay"] for m in shown["matches"])


def test_an_error_with_credentials_in_the_url_is_stored_masked(tmp_path, monkeypatch):
    monkeypatch.setenv("LLM_MODEL", "model-MSECRET")
    down = "http://user:PASS@127.0.0.1:9/v1?api_key=QSECRET"  # port 9: nothing listens
    out = tmp_path / "arena"
    config = llm_arena(tmp_path, down, max_error_retries=0)
    result = runner.invoke(app, ["arena", str(write(tmp_path, config)), "--out", str(out), "--quiet"])
    assert result.exit_code == 0, result.output
    assert "2 matches rated, 4 errors" in " ".join(result.output.split())
    db = sqlite3.connect(out / "arena.sqlite")
    errors = [e for (e,) in db.execute("SELECT last_error FROM matches WHERE status = 'error'")]
    db.close()
    assert len(errors) == 4 and all(
        "cannot reach http://user:****@127.0.0.1:9/v1?api_key=****" in e for e in errors
    )
    for secret in SECRETS:
        assert secret.encode() not in folder_bytes(out), secret
        assert secret not in result.output


def test_a_server_message_cut_mid_emoji_is_stored(tmp_path, monkeypatch):
    """Item 4 in the arena: a lone surrogate in an error cause reaches SQLite and matches.csv."""
    monkeypatch.setenv("LLM_MODEL", "m")
    out = tmp_path / "arena"
    with ChatServer(lambda body: error(401, "quota \ud83d")) as srv:
        config = llm_arena(tmp_path, srv.base_url, max_error_retries=0)
        result = runner.invoke(app, ["arena", str(write(tmp_path, config)), "--out", str(out), "--quiet"])
    assert result.exit_code == 0, result.output
    assert "2 matches rated, 4 errors" in " ".join(result.output.split())
    assert (out / "matches.csv").read_text(encoding="utf-8").count("quota \\ud83d") == 4


def test_names_with_markup_and_escapes_show_as_written(tmp_path):
    weird = ["llama3 [q4]", "[/][b]bold\x1b]0;pwned\x07\x1b[2J"]
    config = arena_config(
        tmp_path,
        players=[{"name": "random", "type": "random"}, *({"name": n, "type": "random"} for n in weird)],
        games=[{"name": "hex", "params": {"size": 3}}],
        schedule={"games_per_pairing": 1, "seed": 3},
    )
    out = tmp_path / "arena"
    for args in (
        ["arena", str(write(tmp_path, config)), "--out", str(out), "--quiet"],
        ["leaderboard", str(out)],
    ):
        result = runner.invoke(app, args, env={"COLUMNS": "250"})
        assert result.exit_code == 0, result.output
        assert "llama3 [q4]" in result.output and "[/][b]bold\\x1b]0;pwned\\x07\\x1b[2J" in result.output
        assert "\x1b" not in result.output


# -------------------------------------------------------------------------- 5: signals ---
def slow_arena(tmp_path):
    """Four matches of a slow player (0.1 s a move) on Hex 5x5; one failed try gives a match up."""
    return arena_config(
        tmp_path,
        players=[
            {"name": "slow", "type": "callable", "function": "tests.helpers.slow_player:slow_first_legal"},
            {"name": "random", "type": "random"},
        ],
        games=[{"name": "hex", "params": {"size": 5}}],
        schedule={"games_per_pairing": 2, "seed": 3},
        max_error_retries=0,
    )


def start_arena(tmp_path, out, *args):
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), str(ROOT)])}
    cmd = [sys.executable, "-c", "from hexarena.cli import main; main()", "arena"]
    return subprocess.Popen(
        [*cmd, str(write(tmp_path, slow_arena(tmp_path))), "--out", str(out), "--quiet", *args],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )


def wait_for_a_match_under_way(proc, out):
    """Until the first match has accepted a move (its record is written aside, in .tmp)."""
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and proc.poll() is None:
        if any(p.stat().st_size for p in (out / "matches" / ".tmp").glob("*/frames.jsonl")):
            return
        time.sleep(0.05)
    raise AssertionError(f"no match got under way: {proc.communicate()[0]}")


def statuses(out):
    db = sqlite3.connect(out / "arena.sqlite")
    try:
        return db.execute("SELECT status, tries FROM matches ORDER BY ord").fetchall()
    finally:
        db.close()


@pytest.mark.parametrize(("sig", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a_signal_stops_the_arena_without_counting_the_match(tmp_path, sig, code):
    out = tmp_path / "arena"
    proc = start_arena(tmp_path, out)
    wait_for_a_match_under_way(proc, out)
    proc.send_signal(sig)
    output = proc.communicate(timeout=60)[0]
    assert proc.returncode == code, output
    assert f"stopped by {signal.Signals(sig).name}" in output and "Traceback" not in output
    rows = statuses(out)
    assert ("error", 1) not in rows and all(tries == 0 for _, tries in rows), rows
    assert [s for s, _ in rows].count("pending") >= 1
    if sig == signal.SIGINT:  # the next run plays the rest, the interrupted match included
        rerun = start_arena(tmp_path, out)
        output = rerun.communicate(timeout=120)[0]
        assert rerun.returncode == 0, output
        assert [s for s, _ in statuses(out)] == ["done"] * 4


@pytest.mark.slow  # a process pool of two: ~20 s on a busy machine
def test_a_second_signal_stops_at_once(tmp_path):
    """With workers, a SIGTERM to the arena alone lets the running matches finish; a second one
    stops them and the arena at once, leaving no worker behind."""
    out = tmp_path / "arena"
    proc = start_arena(tmp_path, out, "--workers", "2")
    wait_for_a_match_under_way(proc, out)
    workers = subprocess.run(["pgrep", "-P", str(proc.pid)], capture_output=True, text=True).stdout.split()
    assert workers
    proc.send_signal(signal.SIGTERM)
    time.sleep(0.2)
    proc.send_signal(signal.SIGTERM)
    output = proc.communicate(timeout=60)[0]
    assert proc.returncode == 143, output
    assert "stopped at once by SIGTERM" in output and "Traceback" not in output
    assert all(tries == 0 for _, tries in statuses(out))
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and any(Path(f"/proc/{pid}").exists() for pid in workers):
        time.sleep(0.1)
    assert not [pid for pid in workers if Path(f"/proc/{pid}").exists()]
