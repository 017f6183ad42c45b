"""Records are never clobbered or mixed, and an interrupted match stays valid and can be resumed.

The signal tests run ``hexarena play`` in a subprocess, stop it after a few accepted moves with
SIGINT (Ctrl-C), SIGTERM or SIGKILL, then replay and ``--resume`` the record: the finished match
must have exactly the moves of the same match played without a stop.
"""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from hexarena.cli import app
from hexarena.core.errors import RecordError
from hexarena.core.manager import play_match, resume_match
from hexarena.core.players import CallablePlayer
from hexarena.core.records import Record

ROOT = Path(__file__).resolve().parents[2]
runner = CliRunner()
SLOW = "tests.helpers.slow_player:slow_first_legal"


def hexarena_cli(*args: str, cwd: Path) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), str(ROOT)])}
    return subprocess.Popen(
        [sys.executable, "-m", "hexarena", *args],
        cwd=cwd,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )


def moves_of(record: Path) -> list:
    return [
        e["move"]
        for e in map(json.loads, (record / "turns.jsonl").read_text().splitlines())
        if e["event"] == "move"
    ]


def match_config(out: Path, *, frames: bool = True) -> dict:
    return {
        "game": {"name": "hex", "seed": 7, "params": {"size": 7}},
        "players": [{"type": "callable", "function": SLOW}, {"type": "random", "seed": 3}],
        "output": {"dir": str(out), "frames": frames},
    }


# --------------------------------------------------------------------------- clobbering ---
def test_two_runs_of_one_game_and_seed_leave_two_records(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for players in ("random,random", "heuristic,random"):
        result = runner.invoke(app, ["play", "hex", "--seed", "3", "--players", players, "--quiet"])
        assert result.exit_code == 0, result.output
    records = sorted((tmp_path / "runs").iterdir())
    assert len(records) == 2 and all(r.name.startswith("hex-") for r in records)
    kinds = {json.loads((r / "result.json").read_text())["players"][0]["type"] for r in records}
    assert kinds == {"random", "heuristic"}
    again = runner.invoke(app, ["play", "hex", "--seed", "3", "--quiet"])  # same config, same second
    assert again.exit_code == 0 and len(list((tmp_path / "runs").iterdir())) == 3


def test_out_to_an_existing_record_is_refused_unless_forced(tmp_path):
    out = tmp_path / "rec"
    first = runner.invoke(app, ["play", "hex", "--seed", "1", "--out", str(out), "--quiet"])
    assert first.exit_code == 0 and (out / "frames.jsonl").is_file()
    before = (out / "turns.jsonl").read_text()
    refused = runner.invoke(app, ["play", "hex", "--seed", "2", "--out", str(out), "--quiet"])
    assert refused.exit_code != 0 and "use --force" in str(refused.exception or refused.output)
    assert (out / "turns.jsonl").read_text() == before
    cfg = tmp_path / "noframes.json"
    cfg.write_text(json.dumps({**match_config(out, frames=False), "players": [{"type": "random"}] * 2}))
    forced = runner.invoke(app, ["play", str(cfg), "--force", "--quiet"])
    assert forced.exit_code == 0, forced.output
    assert not (out / "frames.jsonl").exists(), "a stale frames.jsonl survived a forced re-run"
    assert json.loads((out / "result.json").read_text())["seed"] == 7


def test_force_never_clears_a_folder_that_is_not_a_record(tmp_path):
    (tmp_path / "notes.txt").write_text("mine")
    result = runner.invoke(app, ["play", "hex", "--out", str(tmp_path), "--force", "--quiet"])
    assert result.exit_code != 0 and "no part of a match record" in str(result.exception)
    assert (tmp_path / "notes.txt").read_text() == "mine"


# --------------------------------------------------------------------------- interrupts ---
@pytest.mark.parametrize(("sig", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143), (signal.SIGKILL, -9)])
def test_a_stopped_match_keeps_its_moves_replays_and_resumes(tmp_path, sig, code):
    (tmp_path / "m.json").write_text(json.dumps(match_config(tmp_path / "rec")))
    proc = hexarena_cli("play", "m.json", "--quiet", cwd=tmp_path)
    turns = tmp_path / "rec" / "turns.jsonl"
    deadline = time.monotonic() + 60
    while not (turns.is_file() and turns.read_text().count('"event":"move"') >= 6):
        assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()[0]
        time.sleep(0.02)
    proc.send_signal(sig)
    output = proc.communicate(timeout=30)[0]
    assert proc.returncode == code, output
    record = Record.load(tmp_path / "rec")
    assert record.outcome.kind.value == "interrupted"
    kept = moves_of(tmp_path / "rec")
    assert len(kept) >= 6 and len(record.replay().history) == len(kept)
    if sig != signal.SIGKILL:
        assert "--resume" in output and f"after {len(kept)} moves" in record.outcome.reason

    replay = hexarena_cli("replay", "rec", cwd=tmp_path)
    assert replay.wait(timeout=60) == 0 and "interrupted" in replay.communicate()[0]
    resumed = hexarena_cli("play", "--resume", "rec", "--quiet", cwd=tmp_path)
    out = resumed.communicate(timeout=120)[0]
    assert resumed.returncode == 0 and "win" in out, out
    assert Record.load(tmp_path / "rec").outcome.kind.value == "win"
    assert Record.load(tmp_path / "rec").replay().is_over()

    reference = play_match(match_config(tmp_path / "reference"))  # the same match, never stopped
    assert moves_of(tmp_path / "rec") == moves_of(tmp_path / "reference")
    assert reference.outcome == Record.load(tmp_path / "rec").outcome


def test_interrupt_in_process_then_resume_through_the_api(tmp_path):
    def stop_at_move_4(view):
        if len(view.history) == 4:
            raise KeyboardInterrupt
        return view.legal_moves()[0]

    cfg = match_config(tmp_path / "rec")
    result = play_match(cfg, players={"red": CallablePlayer(stop_at_move_4)})
    assert result.outcome.kind.value == "interrupted" and result.moves == 4
    assert result.interrupted_by == "SIGINT"
    with (tmp_path / "rec" / "turns.jsonl").open("a") as fh:  # a line torn by a kill mid-write
        fh.write('{"event":"attempt","tur')

    class PowerCut(BaseException):
        """Not a player's failure (an Exception, its failed attempt) but the process dying."""

    def crash_at_move_8(view):  # a crash in the resumed run: like a kill, it writes no end
        if len(view.history) == 8:
            raise PowerCut
        return view.legal_moves()[0]

    with pytest.raises(PowerCut):
        resume_match(tmp_path / "rec", players={"red": CallablePlayer(crash_at_move_8)})
    crashed = Record.load(tmp_path / "rec")  # the first stop's result.json must not be read back
    assert crashed.unfinished and len(crashed.replay().history) == 8
    finished = resume_match(tmp_path / "rec", players={"red": CallablePlayer(lambda v: v.legal_moves()[0])})
    assert finished.outcome.kind.value == "win" and finished.moves > 8
    assert len(Record.load(tmp_path / "rec").replay().history) == finished.moves


def test_resume_refuses_a_finished_match_and_extra_options(tmp_path):
    out = tmp_path / "rec"
    assert runner.invoke(app, ["play", "hex", "--out", str(out), "--quiet"]).exit_code == 0
    with pytest.raises(RecordError, match="already ended"):
        resume_match(out)
    result = runner.invoke(app, ["play", "--resume", str(out), "--seed", "3"])
    assert result.exit_code != 0 and "--resume takes only" in str(result.exception)
    assert runner.invoke(app, ["play"]).exit_code != 0
