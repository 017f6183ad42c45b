"""The LLM player against a chat-completions server on loopback."""

import json
import re

import pytest
from tests.helpers.chat_server import ChatServer, chat_answer

from hexarena.core.errors import PlayerError, TransportError
from hexarena.core.llm import LLMPlayer
from hexarena.core.manager import play_match
from hexarena.core.records import Record


def legal_from_prompt(body):
    user = body["messages"][-1]["content"]
    return re.findall(r"^#\d+: (\S+)$", user, re.MULTILINE), user


def match(base_url, out, **manager):
    return {
        "game": {"name": "hex", "seed": 5, "params": {"size": 4}},
        "players": [
            {
                "type": "llm",
                "name": "model",
                "model": "test-model",
                "base_url": base_url,
                "api_key": "sk-test",
                "roles": ["red"],
            },
            {"type": "random", "seed": 3, "roles": ["blue"]},
        ],
        "manager": {"backoff_s": 0.0, **manager},
        "output": {"dir": str(out)},
    }


def test_llm_finishes_a_game_and_corrects_an_illegal_move_after_feedback(tmp_path):
    calls = {"n": 0}

    def model(body):
        calls["n"] += 1
        legal, user = legal_from_prompt(body)
        if calls["n"] == 2:  # second turn: answer an occupied cell first
            return chat_answer("I pick the centre.\nMOVE: a1")
        if calls["n"] == 3:
            assert "Your previous move was not accepted: a1 is already taken" in user
        return chat_answer(f"Thinking...\nMOVE: {legal[0]}")

    with ChatServer(model) as srv:
        result = play_match(match(srv.base_url, tmp_path))
    assert result.outcome.kind.value == "win"
    assert result.invalid == {"red": 1, "blue": 0}
    attempts = [e for e in Record.load(tmp_path).turns() if e["event"] == "attempt" and e["role"] == "red"]
    illegal = [a for a in attempts if a["error"] == "illegal"]
    assert len(illegal) == 1 and illegal[0]["raw"] == "a1" and "already taken" in illegal[0]["message"]
    assert illegal[0]["meta"]["reply"].startswith("I pick the centre.")
    assert srv.headers[0]["authorization"] == "Bearer sk-test"
    assert Record.load(tmp_path).replay().validate_game() == result.outcome


def test_numbered_answers_and_parse_errors_are_told_apart(tmp_path):
    answers = iter(["no idea at all", "MOVE: #2"] + ["MOVE: #1"] * 20)

    with ChatServer(lambda body: chat_answer(next(answers))) as srv:
        result = play_match(match(srv.base_url, tmp_path))
    first = next(e for e in Record.load(tmp_path).turns() if e["event"] == "attempt")
    assert first["error"] == "parse" and "no cell name" in first["message"]
    moves = Record.load(tmp_path).moves()
    assert moves[0]["move"] == "b1"  # "#2" in a1, b1, c1, ... order
    assert result.invalid["red"] == 1


def test_garbage_replies_exhaust_attempts_and_forfeit(tmp_path):
    with ChatServer(lambda body: chat_answer("¯\\_(ツ)_/¯")) as srv:
        result = play_match(match(srv.base_url, tmp_path, max_attempts_per_turn=3))
    assert result.outcome.kind.value == "forfeit" and result.outcome.role == "red"
    assert result.outcome.ranking[-1] == ("red",)
    assert len(srv.requests) == 3


def test_server_errors_are_retried_and_not_counted(tmp_path):
    state = {"n": 0}

    def flaky(body):
        state["n"] += 1
        if state["n"] <= 2:
            return 503, {"error": "overloaded"}
        if state["n"] == 3:
            return 200, "this is not json"
        legal, _ = legal_from_prompt(body)
        return chat_answer(f"MOVE: {legal[0]}")

    with ChatServer(flaky) as srv:
        result = play_match(match(srv.base_url, tmp_path, transport_retries=3))
    assert result.outcome.kind.value == "win" and result.invalid["red"] == 0
    transport = [e for e in Record.load(tmp_path).turns() if e.get("error") == "transport"]
    assert len(transport) == 3


def test_client_errors_and_unreachable_server():
    player = LLMPlayer("m", "http://127.0.0.1:9/v1", timeout_s=2)
    with pytest.raises(TransportError, match="cannot reach"):
        player.complete([{"role": "user", "content": "hi"}])
    with (
        ChatServer(lambda body: (401, {"error": "bad key"})) as srv,
        pytest.raises(PlayerError, match="HTTP 401"),
    ):
        LLMPlayer("m", srv.base_url).complete([{"role": "user", "content": "hi"}])


def test_prompt_has_rules_state_moves_and_feedback():
    import hexarena

    view = hexarena.make("hex", size=3).apply("a1").apply("a1").query_game()
    messages, listed = LLMPlayer("m").build_messages(view)
    assert "Red moves first" in messages[0]["content"]
    user = messages[1]["content"]
    assert "#1: b1" in user and "a1 is already taken" in user and len(listed) == 8
    assert "sk-" not in json.dumps(messages)
