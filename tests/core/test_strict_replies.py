"""What counts as an LLM's move (issue 27 item 2): only the reply mode's own place for it.

A model that echoes the harness's feedback ("Legal now, for example: a1") or names moves in its
reasoning is never credited with them: every such reply is a parse error, in every game and mode.
"""

import json

import pytest

import hexarena
from hexarena.core.manager import play_match
from hexarena.core.records import Record
from tests.helpers.chat_server import ChatServer, chat_answer, tool_answer


def feedback_of(game):
    """The feedback the manager sends for an unreadable reply in this game's first position."""
    cls = hexarena.game_class(game)
    return str(cls.new(seed=4, **cls.demo_params).unreadable("??"))


def echoes(game):
    """Replies that only repeat the feedback (with its legal examples), one list per reply mode."""
    echo = feedback_of(game)
    assert "Legal now, for example:" in echo
    example = echo.rsplit("Legal now, for example: ", 1)[1].split("; ")[0].rstrip(".")
    return {
        "tool": [
            tool_answer('{"move": ' + echo[:40]),  # broken JSON that holds the feedback
            tool_answer(json.dumps({"reasoning": f"Legal now, for example: {example}"})),
            chat_answer(f"Your previous move was not accepted: {echo}"),  # prose, no tool call
        ],
        "json": [
            chat_answer(json.dumps({"reasoning": f"I could play {example}", "mov": example})),
            chat_answer(f"{echo}\n{example}"),
            chat_answer("{not json " + example),
        ],
        "text": [
            chat_answer(f"Your previous move was not accepted: {echo}"),
            chat_answer(f"Legal now, for example: {example}"),
            chat_answer(f"I think {example} is good, as the feedback said."),
        ],
    }


def config(game, base_url, mode, out):
    cls = hexarena.game_class(game)
    roles = cls.new(seed=4, **cls.demo_params).all_roles()
    llm = {"type": "llm", "name": "echo", "model": "m", "base_url": base_url, "reply_mode": mode}
    return {
        "game": {"name": game, "seed": 4, "params": dict(cls.demo_params)},
        "players": [llm, *({"type": "random", "seed": i} for i in range(1, len(roles)))],
        "manager": {"on_exhausted": "forfeit", "max_attempts_per_turn": 3, "backoff_s": 0},
        "output": {"dir": str(out)},
    }


@pytest.mark.parametrize("mode", ["tool", "json", "text"])
@pytest.mark.parametrize("game", hexarena.list_games())
def test_echoed_feedback_is_never_a_move(game, mode, tmp_path):
    replies = iter(echoes(game)[mode])
    with ChatServer(lambda body: next(replies)) as srv:
        result = play_match(config(game, srv.base_url, mode, tmp_path))
    assert result.moves == 0 and result.outcome.kind.value == "forfeit", result.outcome
    attempts = [e for e in Record.load(tmp_path).turns() if e["event"] == "attempt"]
    assert [a["error"] for a in attempts] == ["parse"] * 3, [a["message"] for a in attempts]


@pytest.mark.parametrize(
    ("mode", "answer", "move"),
    [
        ("tool", tool_answer('{"move": "b2", "reasoning": "not a1"}'), "b2"),
        ("json", chat_answer('```json\n{"reasoning": "a1 is taken", "move": "#2"}\n```'), "b1"),
        ("text", chat_answer("a1 looks weak.\nMOVE: c3"), "c3"),
        ("text", chat_answer(" `C3` "), "c3"),  # a reply that is only a move
    ],
)
def test_each_mode_reads_its_one_place(mode, answer, move, tmp_path):
    with ChatServer(lambda body: answer) as srv:
        cfg = config("hex", srv.base_url, mode, tmp_path)
        cfg["game"]["params"] = {"size": 3}
        cfg["manager"]["max_rounds"] = 1
        result = play_match(cfg)
    first = next(e for e in Record.load(tmp_path).turns() if e["event"] == "move")
    assert first["move"] == move and result.invalid["red"] == 0
