"""An LLM server that answers too much: no answer is read past the limit (the player's failed
attempt, nothing of it kept), and what is kept is kept once."""

import json

import yaml

from hexarena.core.llm_client import MAX_ANSWER_BYTES
from hexarena.core.manager import play_match
from tests.core.test_cli import run_main
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


def test_the_openai_key_sent_elsewhere_is_said_out_loud(tmp_path, monkeypatch, capsys, caplog):
    """``hexarena play`` with an llm player naming no key: $OPENAI_API_KEY goes to its server, and
    the player warns on stderr (here: the log pytest captures) which host gets it."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-mine")
    with ChatServer(lambda body: chat_answer("MOVE: #1")) as srv:
        for key, warned in ((None, True), ("sk-for-this-server", False)):
            cfg = match(srv.base_url, tmp_path / str(key))
            cfg["players"][0]["api_key"] = key
            path = tmp_path / f"{key}.yaml"
            path.write_text(yaml.safe_dump(cfg))
            caplog.clear()
            code, output = run_main(monkeypatch, capsys, "play", str(path), "--quiet")
            assert code == 0, output
            assert ("sends your $OPENAI_API_KEY to 127.0.0.1" in caplog.text) == warned, caplog.text
            assert srv.headers[-1]["authorization"] == f"Bearer {key or 'sk-mine'}"
