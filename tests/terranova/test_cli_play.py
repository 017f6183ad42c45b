"""`hexarena play terranova` as a person types it: typos and an order refused by the rules cost
nothing recorded wrongly, and the other civilizations' moves are shown as the game describes them
to rivals (their choices are hidden), not as walls of preference JSON."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from hexarena.cli import app


def test_a_person_plays_three_rounds_through_the_cli(tmp_path):
    answers = "research potery\nunit 0 setle\nunit 0 settle; research pottery\npass\npass\n"
    args = ["play", "terranova", "--players", "human,heuristic,heuristic,random,random,random"]
    args += ["-p", "turn_cap=3", "--seed", "2", "--out", str(tmp_path / "rec")]
    result = CliRunner().invoke(app, args, input=answers)
    screen = result.output
    assert result.exit_code == 0, screen[-3000:]
    assert "did you mean pottery?" in screen and "unknown unit action 'setle'" in screen
    assert screen.count("Not a move (this does not count)") == 2
    assert "red: research pottery; unit 0 settle" in screen  # the person's own move, as orders
    assert "blue: took its turn" in screen and "blue: {" not in screen  # a bot's, as rivals see it
    record = json.loads((tmp_path / "rec" / "result.json").read_text())
    assert record["invalid"]["red"] == 0 and record["outcome"]["reason"].startswith("turn cap 3")
