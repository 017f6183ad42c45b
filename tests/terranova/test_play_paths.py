"""Issue 26 through `hexarena play terranova`: a person at a terminal (scripted input, then a
whole game answered from the screen alone) and a model over an OpenAI-compatible loopback server
that picks numbered moves; the record's move log reads as orders, never JSON."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from hexarena.cli import app
from tests.helpers.chat_server import ChatServer, tool_answer
from tests.terranova.contract.test_text_player import orders_from_text

ROOT = Path(__file__).resolve().parents[2]
BOTS = ",heuristic" * 5
NUMBERED = re.compile(r"^#(\d+): (.+)$", re.MULTILINE)


def _turns(out: Path) -> list[dict]:
    return [json.loads(line) for line in (out / "turns.jsonl").read_text().splitlines() if line.strip()]


def _logged_moves(out: Path) -> list[str]:
    """The move texts the viewer's log and status line show (the frames' ``move``)."""
    frames = [json.loads(line) for line in (out / "frames.jsonl").read_text().splitlines() if line.strip()]
    return [f["move"] for f in frames if f.get("move") is not None]


def test_a_person_looks_orders_a_new_city_and_sees_a_refusal(tmp_path):
    answers = "map unit 0\nhelp beliefs\nunit 0 settle; city 0 build warrior; accept purple\npass\n"
    args = ["play", "terranova", "--players", "human" + BOTS, "-p", "turn_cap=2", "--seed", "1"]
    result = CliRunner().invoke(app, [*args, "--out", str(tmp_path / "rec")], input=answers)
    screen = result.output
    assert result.exit_code == 0, screen[-3000:]
    assert "Map around (" in screen and "your settler (unit 0)" in screen and "Legend:" in screen
    assert "god king: " in screen  # help beliefs, the effects one command away
    assert "Default orders (what 'pass' or {} does" in screen
    assert "city 0 started warrior" in screen
    assert "Refused: accept purple (purple has made you no offer)." in screen
    assert "red: accept purple; unit 0 settle; city 0 build warrior" in screen  # its own move, as orders
    record = json.loads((tmp_path / "rec" / "result.json").read_text())
    assert record["invalid"]["red"] == 0
    moves = _logged_moves(tmp_path / "rec")
    assert moves and not any("{" in m for m in moves), moves[:3]  # the viewer's log: orders, no JSON


def _model(body: dict) -> tuple[int, dict]:
    """A mediocre model: the numbered moves of the prompt, the first one that is not 'pass' whose
    number follows the turn (so it researches, moves, settles, builds in turn)."""
    prompt = body["messages"][-1]["content"]
    listed = NUMBERED.findall(prompt)
    assert listed and not any("{" in text for _n, text in listed), listed[:3]
    choices = [n for n, text in listed if text != "pass"] or [listed[0][0]]
    pick = choices[len(prompt) % len(choices)]
    return tool_answer(json.dumps({"move": f"#{pick}"}))  # the default reply mode: a make_move call


def _model_game(tmp_path: Path, rounds: int) -> tuple[Path, list[dict]]:
    with ChatServer(_model) as srv:
        args = ["play", "terranova", "--players", f"llm:fake@{srv.base_url}" + BOTS, "--seed", "3"]
        args += ["-p", f"turn_cap={rounds}", "--out", str(tmp_path / "rec"), "--quiet"]
        result = CliRunner().invoke(app, args, env={"OPENAI_API_KEY": "x"})
        assert result.exit_code == 0, result.output[-3000:]
        return tmp_path / "rec", srv.requests


def test_a_model_picks_numbered_orders(tmp_path):
    out, requests = _model_game(tmp_path, 2)
    assert len(requests) == 2
    attempts = [e for e in _turns(out) if e.get("event") == "attempt" and e.get("role") == "red"]
    assert attempts and all(e.get("error") is None for e in attempts)
    assert not any("{" in m for m in _logged_moves(out))


@pytest.mark.slow
def test_a_model_picking_numbered_moves_plays_30_rounds_without_a_failed_attempt(tmp_path):
    out, requests = _model_game(tmp_path, 30)
    assert len(requests) == 30
    record = json.loads((out / "result.json").read_text())
    assert record["invalid"]["red"] == 0 and record["outcome"]["reason"].startswith("turn cap 30")
    attempts = [e for e in _turns(out) if e.get("event") == "attempt" and e.get("role") == "red"]
    assert len(attempts) == 30 and all(e.get("error") is None for e in attempts)


@pytest.mark.slow
def test_a_person_plays_30_rounds_from_the_screen_alone(tmp_path):
    """`hexarena play` in a subprocess: the script reads each screen up to the prompt and answers
    with orders built only from what it lists; no order is ever refused."""
    cmd = [sys.executable, "-m", "hexarena", "play", "terranova", "--players", "human" + BOTS]
    cmd += ["-p", "turn_cap=30", "--seed", "5", "--out", str(tmp_path / "rec"), "--quiet"]
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "COLUMNS": "120"}
    proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env, cwd=ROOT)
    screen, turns, refused = "", 0, []
    assert proc.stdin and proc.stdout
    while True:
        ch = proc.stdout.read(1)
        if not ch:
            break
        screen += ch
        if screen.endswith("red> "):
            refused += [line for line in screen.splitlines() if "Refused:" in line or "Not a move" in line]
            proc.stdin.write(orders_from_text(screen) + "\n")
            proc.stdin.flush()
            screen, turns = "", turns + 1
    assert proc.wait(timeout=60) == 0, screen[-3000:]
    assert turns == 30 and not refused, refused
    record = json.loads((tmp_path / "rec" / "result.json").read_text())
    assert record["invalid"]["red"] == 0
