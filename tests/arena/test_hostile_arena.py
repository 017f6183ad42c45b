"""Two ``hexarena arena`` runs on one folder: the second is refused with a one-line message while
the first runs (they would reuse each other's match folders); a killed run leaves no stale lock."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from tests.core.test_cli import run_main

ROOT = Path(__file__).resolve().parents[2]
SLOW = "tests.helpers.slow_player:slow_first_legal"


def test_a_second_arena_on_a_running_folder_is_refused(tmp_path, monkeypatch, capsys):
    config = tmp_path / "arena.yaml"
    config.write_text(
        yaml.safe_dump(
            {
                "name": "locked",
                "players": [
                    {"name": "a", "type": "callable", "function": SLOW},
                    {"name": "b", "type": "random"},
                ],
                "games": [{"name": "hex", "params": {"size": 3}}],
                "schedule": {"games_per_pairing": 4},
                "ratings": {"bootstrap": 10},
            }
        )
    )
    out = tmp_path / "arena"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), str(ROOT)])}
    first = subprocess.Popen(
        [sys.executable, "-m", "hexarena", "arena", str(config), "--out", str(out), "--quiet"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        lock = out / "arena.lock"
        while not (lock.is_file() and lock.read_text().strip()):  # the first run has started
            assert first.poll() is None, "the first arena ended before the second started"
            time.sleep(0.05)
        code, output = run_main(monkeypatch, capsys, "arena", str(config), "--out", str(out), "--quiet")
        assert code == 2 and f"another arena is running on this folder (process {first.pid})" in output
    finally:
        first.send_signal(signal.SIGKILL)
        first.wait()
    code, output = run_main(monkeypatch, capsys, "arena", str(config), "--out", str(out), "--quiet")
    assert code == 0, output  # a killed run's lock went with it


def test_a_run_that_raised_does_not_lock_out_the_next_in_the_same_process(tmp_path, monkeypatch):
    """A notebook or a test: an arena run ends by an exception with its store unclosed; the next
    run in the same process goes on (the lock keeps only other processes out)."""
    from hexarena.arena import parse_arena, run_arena, runner

    config = {
        "name": "again",
        "players": [{"name": "a", "type": "random"}, {"name": "b", "type": "random", "seed": 2}],
        "games": [{"name": "hex", "params": {"size": 3}}],
        "ratings": {"bootstrap": 10},
    }

    def broken(*args, **kwargs):
        raise RuntimeError("reports cannot be written")

    with monkeypatch.context() as patch:
        patch.setattr(runner, "report", broken)
        with pytest.raises(RuntimeError) as kept:  # the traceback keeps the unclosed store alive
            run_arena(parse_arena(config), config, tmp_path / "arena")
    assert kept.value is not None
    assert run_arena(parse_arena(config), config, tmp_path / "arena").board
