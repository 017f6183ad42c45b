"""Damaged match records, as ``replay``, ``play --resume`` and ``view --export`` meet them: each
kind of damage is a one-line error naming the file (or, for the lenient viewer, a warning), never
a traceback. And a record that cannot be written (a full disk) is a one-line error too, with
what was written before kept for ``--resume``."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from hexarena.core.records import Record
from tests.core.test_cli import run_main

ROOT = Path(__file__).resolve().parents[2]
DEEP = "[" * 100_000 + "]" * 100_000


def _events(d: Path) -> list[dict]:
    return [json.loads(line) for line in (d / "turns.jsonl").read_text().splitlines()]


def _write_events(d: Path, events: list) -> None:
    (d / "turns.jsonl").write_text("".join(json.dumps(e) + "\n" for e in events))


def setup(key: str, value: object):
    """The seed, params or game of the recorded setup (final.json and the start event) set to ``value``."""

    def damage(d: Path) -> None:
        if (d / "final.json").exists():
            (d / "final.json").write_text(
                json.dumps({**json.loads((d / "final.json").read_text()), key: value})
            )
        events = _events(d)
        events[0] = (
            {k: v for k, v in events[0].items() if k != key} if value is None else {**events[0], key: value}
        )
        _write_events(d, events)

    return damage


def first_move(change):
    def damage(d: Path) -> None:
        events = _events(d)
        i = next(i for i, e in enumerate(events) if e["event"] == "move")
        events[i] = change(events[i])
        _write_events(d, events)

    return damage


def turns_line(data: bytes):
    def damage(d: Path) -> None:
        lines = (d / "turns.jsonl").read_bytes().split(b"\n")
        (d / "turns.jsonl").write_bytes(b"\n".join([*lines[:2], data, *lines[2:]]))

    return damage


def file(name: str, data: bytes | str):
    def damage(d: Path) -> None:
        if (d / name).exists() or name == "config.json":
            (d / name).write_bytes(data if isinstance(data, bytes) else data.encode())

    return damage


def config(key: str, value: object):
    def damage(d: Path) -> None:
        (d / "config.json").write_text(
            json.dumps({**json.loads((d / "config.json").read_text()), key: value})
        )

    return damage


DAMAGE = {
    "seed-string": setup("seed", "abc"),
    "seed-float": setup("seed", 1.5),
    "seed-huge": setup("seed", 10**30),
    "params-list": setup("params", [1, 2]),
    "params-string": setup("params", "x"),
    "game-unknown": setup("game", "chess"),
    "game-list": setup("game", [1]),
    "start-without-seed": setup("seed", None),
    "start-without-params": setup("params", None),
    "move-without-move": first_move(lambda e: {k: v for k, v in e.items() if k != "move"}),
    "move-null": first_move(lambda e: {**e, "move": None}),
    "turns-not-utf8": turns_line(b'{"event": "note", "x": "\xff\xfe"}'),
    "turns-deep": turns_line(DEEP.encode()),
    "turns-a-list": turns_line(b"[1]"),
    "attempt-damaged": lambda d: _write_events(
        d, [{**e, "latency_ms": "x", "meta": [1]} if e["event"] == "attempt" else e for e in _events(d)]
    ),
    "final-deep": file("final.json", DEEP),
    "final-a-list": file("final.json", "[1]"),
    "result-deep": file("result.json", DEEP),
    "result-not-utf8": file("result.json", b'{"x": "\xff"}'),
    "result-a-list": file("result.json", "[1]"),
    "result-outcome-5": lambda d: (
        (d / "result.json").exists()
        and (d / "result.json").write_text(
            json.dumps({**json.loads((d / "result.json").read_text()), "outcome": 5})
        )
    ),
    "config-players-5": config("players", 5),
    "config-a-list": file("config.json", "[1]"),
    "config-deep": file("config.json", DEEP),
    "config-not-utf8": file("config.json", b'{"x": "\xff"}'),
    "frames-deep": lambda d: (d / "frames.jsonl").write_bytes(
        (d / "frames.jsonl").read_bytes() + DEEP.encode() + b"\n{}\n"
    ),
}


@pytest.fixture(scope="module")
def good(tmp_path_factory):
    base = tmp_path_factory.mktemp("good")
    finished = base / "finished"
    proc = subprocess.run(
        [sys.executable, "-m", "hexarena", "play", "hex", "-p", "size=3", "--out", str(finished), "--quiet"],
        env={**os.environ, "PYTHONPATH": str(ROOT / "src")},
        capture_output=True,
    )
    assert proc.returncode == 0, proc.stderr
    killed = base / "killed"  # as a kill -9 leaves it: no result.json or final.json, no end
    shutil.copytree(finished, killed)
    (killed / "result.json").unlink()
    (killed / "final.json").unlink()
    _write_events(killed, [e for e in _events(killed) if e["event"] != "end"][:-3])
    return {"finished": finished, "killed": killed}


@pytest.mark.parametrize("variant", ["finished", "killed"])
@pytest.mark.parametrize("kind", DAMAGE)
def test_damaged_records_are_one_line_errors(good, tmp_path, monkeypatch, capsys, kind, variant):
    record = tmp_path / "rec"
    shutil.copytree(good[variant], record)
    DAMAGE[kind](record)
    for command in (
        ["replay", str(record)],
        ["view", str(record), "--export", str(tmp_path / "page.html")],
        ["play", "--resume", str(record), "--quiet"],  # last: it may repair the record
    ):
        code, output = run_main(monkeypatch, capsys, *command)
        assert code in (0, 2) and "Traceback" not in output, (command, output)
        if code == 2:
            assert output.startswith("error: ") and output.count("\n") <= 2, output


FULL_DISK = """
import resource, signal, sys
from hexarena.cli import main
from hexarena.core.records import RecordWriter

limit, when = int(sys.argv[1]), sys.argv[2]


def fill_disk():  # a write past the limit fails (EFBIG), as on a full disk
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (limit, resource.RLIM_INFINITY))


if when == "at-the-end":
    finish = RecordWriter.finish
    RecordWriter.finish = lambda self, *args: (fill_disk(), finish(self, *args))
elif when == "now":
    fill_disk()
sys.argv = ["hexarena", *sys.argv[3:]]
main()
"""


def run_limited(limit: int, when: str, *args: str) -> subprocess.CompletedProcess:
    """``hexarena ARGS`` in a process that cannot write files past ``limit`` bytes from ``when`` on
    ("now", "at-the-end" of the match, or "never")."""
    return subprocess.run(
        [sys.executable, "-c", FULL_DISK, str(limit), when, *args],
        env={**os.environ, "PYTHONPATH": str(ROOT / "src")},
        capture_output=True,
        text=True,
    )


def test_a_full_disk_during_play_is_one_line_and_the_match_resumes(tmp_path):
    out = tmp_path / "rec"
    proc = run_limited(
        3000, "now", "play", "hex", "-p", "size=5", "--seed", "4", "--out", str(out), "--quiet"
    )
    assert proc.returncode == 2 and "Traceback" not in proc.stdout + proc.stderr, proc.stdout + proc.stderr
    assert "cannot write the match record: File too large" in proc.stdout and str(out) in proc.stdout
    assert not (out / "result.json").exists()
    assert run_limited(0, "never", "play", "--resume", str(out), "--quiet").returncode == 0
    assert Record.load(out).outcome.kind.value == "win"


def test_final_and_result_json_are_written_whole_or_not_at_all(tmp_path):
    """The disk fills as the match ends: no half final.json or result.json is left (nor a
    temporary file), so the record reads as unfinished and resumes."""
    out = tmp_path / "rec"
    proc = run_limited(100, "at-the-end", "play", "hex", "-p", "size=3", "--out", str(out), "--quiet")
    assert proc.returncode == 2 and "cannot write the match record" in proc.stdout, proc.stdout + proc.stderr
    assert sorted(p.name for p in out.iterdir()) == ["config.json", "frames.jsonl", "turns.jsonl"]
    assert Record.load(out).unfinished
    assert run_limited(0, "never", "play", "--resume", str(out), "--quiet").returncode == 0
    assert Record.load(out).outcome.kind.value == "win"
