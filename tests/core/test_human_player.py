"""A person at the terminal: commands never count, typos are caught on the spot, a warning comes
before the last attempt, ``quit`` resigns after confirmation, and a whole Small World game can be
played from scripted input through ``hexarena play`` without losing a move."""

import io
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

import hexarena
from hexarena.core.human import HumanPlayer, summary
from hexarena.core.manager import GameManager

ROOT = Path(__file__).resolve().parents[2]


def human_vs_script(answers: str, script: list[str], **manager):
    out = io.StringIO()
    human = HumanPlayer("me", stdin=io.StringIO(answers), stdout=out)
    cfg = {
        "game": {"name": "hex", "params": {"size": 3}},
        "players": [
            {"type": "human", "roles": ["red"]},
            {"type": "scripted", "moves": script, "roles": ["blue"]},
        ],
        "manager": manager,
    }
    return GameManager(cfg, players={"red": human}).start(), out.getvalue()


def play_in_a_pipe(cwd, args, answers):
    """``hexarena ARGS`` with the answers piped to stdin; it must exit 0."""
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "COLUMNS": "100"}
    proc = subprocess.run(
        [sys.executable, "-m", "hexarena", *args],
        input=answers,
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    return proc


def test_board_summary_and_numbers_typos_and_commands_cost_nothing():
    answers = "help\nmoves\nmoves b\nboard\nzz please\n99\n\n1\na2\na3\n"
    result, screen = human_vs_script(answers, ["b1", "b2"])
    assert result.outcome.winners == ("red",) and result.invalid["red"] == 0
    assert "Commands (never count as attempts)" in screen and "Moves in hex:" in screen
    assert "  1. a1" in screen and "Not a move (this does not count)" in screen
    assert "No move number 99" in screen and "Legal moves (9;" in screen
    assert screen.count("Hex 3x3") >= 3  # the board each turn, and on `board`


def test_warning_before_the_last_attempt_then_forfeit():
    result, screen = human_vs_script("a1\nb1\nb1\nb1\n", ["b1"], max_attempts_per_turn=3)
    assert result.outcome.kind.value == "forfeit" and result.outcome.role == "red"
    assert result.invalid["red"] == 3 and "already taken" in screen
    assert screen.count("Last attempt") == 1
    assert screen.index("Last attempt") > screen.rindex("already taken") - 200


def test_quit_asks_first_and_resigns():
    result, screen = human_vs_script("quit\nno\nquit\ny\n", ["b1"])
    assert "Not resigned" in screen and screen.count("Resign this game?") == 2
    assert result.outcome.kind.value == "forfeit" and "red resigned" in result.outcome.reason
    assert result.outcome.ranking[-1] == ("red",) and result.invalid["red"] == 0


def test_ctrl_d_asks_to_resign_and_never_costs_an_attempt():
    # Ctrl-D then "n": play on; Ctrl-D then "y": resign. A terminal keeps reading after a Ctrl-D.
    class Terminal(io.StringIO):
        def __init__(self, lines):
            super().__init__()
            self.lines = list(lines)

        def readline(self, *args):
            return self.lines.pop(0)

    human = HumanPlayer("me", stdin=Terminal(["", "n\n", "a1\n", "", "y\n"]), stdout=io.StringIO())
    cfg = {
        "game": {"name": "hex", "params": {"size": 3}},
        "players": [
            {"type": "human", "roles": ["red"]},
            {"type": "scripted", "moves": ["b1"], "roles": ["blue"]},
        ],
    }
    result = GameManager(cfg, players={"red": human}).start()
    screen = human._out.getvalue()
    assert screen.count("Resign this game?") == 2 and "Not resigned" in screen
    assert result.outcome.kind.value == "forfeit" and "red resigned" in result.outcome.reason
    assert result.invalid["red"] == 0 and result.moves == 2


def test_input_that_has_ended_resigns_without_counting_attempts():
    result, screen = human_vs_script("", ["b1"])
    assert "Resign this game?" in screen and result.invalid["red"] == 0
    assert result.outcome.kind.value == "forfeit" and result.outcome.ranking[-1] == ("red",)


def test_a_rejected_move_is_told_to_a_person_plainly():
    _, screen = human_vs_script("a1\nb1\nc1\nc2\nc3\n", ["b1", "a2"])
    assert "✗ Not accepted: b1 is already taken" in screen
    assert "Your previous move" not in screen


def test_cli_prints_the_final_position_and_no_speed_for_a_person(tmp_path):
    args = ["play", "hex", "-p", "size=3", "--players", "human,random", "--seed", "1", "--out", "rec"]
    proc = play_in_a_pipe(tmp_path, args, "a1\na2\na3\nb1\nb2\nb3\nc1\nc2\nc3\n" * 2)
    final = proc.stdout.split("final position (red)")[1]
    assert "Game over:" in final and "Hex 3x3" in final
    assert "moves/s" not in proc.stdout


@pytest.mark.parametrize("game", hexarena.list_games())
def test_no_game_lists_its_legal_moves_twice_and_the_summary_is_short(game):
    cls = hexarena.game_class(game)
    view = cls.new(seed=2, **cls.demo_params).query_game()
    moves = view.legal_moves()
    text = view.render_text(view.roles[0])
    listed = [view.format_move(m) for m in moves]
    assert sum(line.strip() in listed for line in text.splitlines()) <= 1, "the board lists the legal moves"
    short = summary(view, moves)
    assert len(short.splitlines()) <= 10 and all(len(line) <= 100 for line in short.splitlines())


def test_a_whole_small_world_game_as_a_person_through_the_cli(tmp_path):
    """Scripted stdin: every turn `help`, `moves`, a typo, then move number 1."""
    answers = "quit\nn\n" + "help\nmoves\nCONQUR 5\n1\n" * 400
    args = ["play", "smallworld", "--players", "human,heuristic", "-p", "players=2", "--out", "rec"]
    proc = play_in_a_pipe(tmp_path, args, answers)
    result = json.loads((tmp_path / "rec" / "result.json").read_text())
    assert result["outcome"]["kind"] == "win" and result["invalid"] == {"red": 0, "blue": 0}
    events = [json.loads(line) for line in (tmp_path / "rec" / "turns.jsonl").read_text().splitlines()]
    red = [e for e in events if e["event"] == "attempt" and e["role"] == "red"]
    assert len(red) > 20 and not any(e["error"] for e in red), "a typo or command cost a move"
    screen = proc.stdout
    assert screen.count("Not a move (this does not count)") == len(red)
    assert "Commands (never count as attempts)" in screen and "Not resigned" in screen
    assert "reply with one line exactly as written" not in screen  # no second listing of the moves
    assert "blue: " in screen  # the opponent's moves are shown as lines
    assert "\r" not in screen, "a progress line was drawn while a person was typing"


@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed (scripts/setup-system.sh)")
def test_small_world_in_a_real_terminal(tmp_path):
    """tmux: the board and the move summary fit on one screen, no progress line under the prompt,
    commands and a typo cost nothing; then `quit` resigns."""
    socket = f"hexarena-test-{os.getpid()}"
    tmux = ["tmux", "-L", socket]
    env = f"PYTHONPATH={ROOT / 'src'}"
    play = f"{sys.executable} -m hexarena play smallworld --players human,heuristic -p players=2 --out rec"
    shell = f"cd {tmp_path} && env {env} {play}; echo EXIT=$? > exit.txt; sleep 60"
    subprocess.run([*tmux, "new-session", "-d", "-s", "t", "-x", "110", "-y", "60", shell], check=True)

    def screen() -> str:
        return subprocess.run([*tmux, "capture-pane", "-p", "-t", "t"], capture_output=True, text=True).stdout

    def at_prompt() -> str | None:
        text = screen()
        lines = [line for line in text.splitlines() if line.strip()]
        return text if lines and lines[-1].strip() in ("red>", "Resign this game? [y/N]") else None

    answers = ["help", "moves", "CONQUR 5", "1", "board", "1", "1", "quit", "y"]
    boards = []
    try:
        for answer in answers:
            deadline = time.monotonic() + 60
            while (text := at_prompt()) is None:
                assert time.monotonic() < deadline, screen()
                time.sleep(0.05)
            if "Legal moves (" in text and "Small World, turn" in text:
                boards.append(text)
            assert "━" not in text, "a progress bar is drawn under the prompt"
            subprocess.run([*tmux, "send-keys", "-t", "t", answer, "Enter"], check=True)
            while at_prompt() == text:  # wait for the answer to be taken
                assert time.monotonic() < deadline, screen()
                time.sleep(0.02)
        deadline = time.monotonic() + 60
        while not (tmp_path / "exit.txt").is_file():
            assert time.monotonic() < deadline, screen()
            time.sleep(0.05)
    finally:
        subprocess.run([*tmux, "kill-server"], capture_output=True)
    assert boards, "the board and the move summary were never on screen together"
    result = json.loads((tmp_path / "rec" / "result.json").read_text())
    assert result["outcome"]["kind"] == "forfeit" and "red resigned" in result["outcome"]["reason"]
    assert result["invalid"]["red"] == 0 and result["moves"] >= 3


def test_help_gives_the_rules_with_every_small_world_race_and_power():
    out = io.StringIO()
    human = HumanPlayer("me", stdin=io.StringIO("help\n1\n"), stdout=out)
    human.act(hexarena.make("smallworld", seed=1, players=3).query_game("red"))
    screen = out.getvalue()
    assert "Amazons (6): Receive 4 extra tokens" in screen and "Wealthy (+4):" in screen
    assert "Commands (never count as attempts)" in screen


def test_a_games_own_look_commands_answer_without_spending_the_turn(monkeypatch):
    """GameState.look: a game's read-only commands (Terra Nova's maps) answered on the spot."""
    from hexarena.games.hex.state import HexState

    monkeypatch.setattr(HexState, "look", lambda self, text: "the land around" if text == "map" else None)
    result, screen = human_vs_script("map\na1\na2\na3\n", ["b1", "b2"])
    assert "the land around" in screen and result.invalid["red"] == 0
    assert "Not a move" not in screen
