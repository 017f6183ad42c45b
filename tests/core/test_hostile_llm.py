"""An LLM server that answers too much: no answer is read past the limit (the player's failed
attempt, nothing of it kept), and what is kept is kept once."""

import json

from hexarena.core.llm_client import MAX_ANSWER_BYTES
from hexarena.core.manager import play_match
from tests.core.test_llm_player import match
from tests.helpers.chat_server import ChatServer, chat_answer, script


def test_a_huge_answer_is_a_failed_attempt_and_is_not_kept(tmp_path):
    huge = chat_answer("word " * (MAX_ANSWER_BYTES // 4))
    with ChatServer(
        script([huge], then=lambda body: chat_answer("MOVE: a1" if "a1" in str(body) else "b2"))
    ) as srv:
        result = play_match(match(srv.base_url, tmp_path))
    assert result.invalid["red"] >= 1 and result.outcome.kind.value in ("win", "forfeit")
    turns = tmp_path / "turns.jsonl"
    assert turns.stat().st_size < 100_000
    first = next(json.loads(line) for line in turns.read_text().splitlines() if '"attempt"' in line)
    assert first["error"] == "player" and "is longer than 4 MiB, the most hexarena reads" in first["message"]


def test_a_reply_is_stored_once(tmp_path):
    answers = iter(["a1", "I take the corner.\nMOVE: b1", *["MOVE: #1"] * 20])
    with ChatServer(lambda body: chat_answer(next(answers))) as srv:
        play_match(match(srv.base_url, tmp_path))
    lines = [json.loads(line) for line in (tmp_path / "turns.jsonl").read_text().splitlines()]
    red = [e for e in lines if e["event"] == "attempt" and e["role"] == "red"]
    assert red[0]["raw"] == "a1" and "reply" not in red[0]["meta"]  # the move is the whole reply
    assert red[1]["raw"] == "b1" and red[1]["meta"]["reply"] == "I take the corner.\nMOVE: b1"
