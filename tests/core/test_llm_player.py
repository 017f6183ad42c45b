"""The LLM player against a chat-completions server on loopback."""

import json
import re

import pytest

import hexarena
from hexarena.core.config import parse_config
from hexarena.core.errors import ConfigError, PlayerError, TransportError
from hexarena.core.llm import LLMPlayer
from hexarena.core.manager import play_match
from hexarena.core.records import Record
from tests.helpers.chat_server import ChatServer, chat_answer, error, tool_answer


def legal_from_prompt(body):
    user = body["messages"][-1]["content"]
    return re.findall(r"^#\d+: (\S+)$", user, re.MULTILINE), user


def match(base_url, out, mode="text", **manager):
    return {
        "game": {"name": "hex", "seed": 5, "params": {"size": 4}},
        "players": [
            {
                "type": "llm",
                "name": "model",
                "model": "test-model",
                "base_url": base_url,
                "api_key": "sk-test",
                "reply_mode": mode,
                "roles": ["red"],
            },
            {"type": "random", "seed": 3, "roles": ["blue"]},
        ],
        "manager": {"backoff_s": 0.0, **manager},
        "output": {"dir": str(out) if out else None},
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
    assert first["error"] == "parse" and "one cell name and nothing else" in first["message"]
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

    view = hexarena.make("hex", size=3).apply("a1").apply("a1").query_game()
    messages, listed = LLMPlayer("m").build_messages(view)
    assert "Red moves first" in messages[0]["content"]
    user = messages[1]["content"]
    assert "#1: b1" in user and "a1 is already taken" in user and len(listed) == 8
    assert "sk-" not in json.dumps(messages)


def test_tool_mode_is_the_default_and_json_mode_is_asked_for():
    view = hexarena.make("hex", size=3).query_game()
    with ChatServer(lambda body: tool_answer('{"move": "#3", "reasoning": "centre-ish"}')) as srv:
        reply = LLMPlayer("m", srv.base_url).act(view)
        assert (
            reply.raw == "c1"
            and reply.meta["mode"] == "tool"
            and reply.meta["tool_arguments"].startswith("{")
        )
        assert srv.requests[0]["tool_choice"]["function"]["name"] == "make_move"
        assert "Call the function make_move" in srv.requests[0]["messages"][0]["content"]
    with ChatServer(lambda body: chat_answer('```json\n{"move": "b2"}\n```')) as srv:
        assert LLMPlayer("m", srv.base_url, reply_mode="json").act(view).raw == "b2"
        assert (
            srv.requests[0]["response_format"] == {"type": "json_object"} and "tools" not in srv.requests[0]
        )


def test_a_server_without_tools_falls_back_to_text_mode(tmp_path):
    def no_tools(body):
        if "tools" in body:
            return error(400, "this model does not support tools")
        legal, _ = legal_from_prompt(body)
        assert "MOVE: <your move>" in body["messages"][0]["content"]
        return chat_answer(f"MOVE: {legal[0]}")

    with ChatServer(no_tools) as srv:
        result = play_match(match(srv.base_url, tmp_path, mode="tool"))
    assert result.outcome.kind.value == "win" and result.invalid["red"] == 0
    assert sum("tools" in r for r in srv.requests) == 1  # asked once, then text for the rest of the match
    first = next(e for e in Record.load(tmp_path).turns() if e["event"] == "attempt" and e["role"] == "red")
    assert "does not support tools" in first["meta"]["fallback"]
    assert Record.load(tmp_path).result["players"][0]["reply_mode"] == "text"


def test_prompt_tells_the_opponents_moves_since_the_last_turn_and_templates_apply(tmp_path):
    def model(body):
        legal, _ = legal_from_prompt(body)
        return chat_answer(f"MOVE: {legal[0]}")

    with ChatServer(model) as srv:
        cfg = match(srv.base_url, tmp_path)
        cfg["players"][0].update(
            reply_mode="text",
            system_prompt="You are {role}, a careful player of {game}. {reply_instructions}",
            prompt_template='{state}\n{legal_moves}\n{since_last_turn}\nAnswer like {"move": "a1"}.',
        )
        play_match(cfg)
    blue_moves = [e["text"] for e in Record.load(tmp_path).moves() if e["role"] == "blue"]
    system, user = (m["content"] for m in srv.requests[1]["messages"])
    assert system.startswith("You are red, a careful player of hex. Think briefly")
    assert f"Since your last turn:\n- blue: {blue_moves[0]}" in user and 'Answer like {"move": "a1"}.' in user
    assert "Since your last turn" not in srv.requests[0]["messages"][1]["content"]  # red moves first


def test_unknown_placeholders_are_config_errors():
    cfg = match("http://127.0.0.1:9/v1", None)
    cfg["players"][0]["prompt_template"] = "{state} {board}"
    with pytest.raises(ConfigError, match=r"players.0.prompt_template.*unknown placeholder\(s\) \{board\}"):
        parse_config(cfg)
    cfg["players"][0].update(prompt_template=None, reply_mode="xml")
    with pytest.raises(ConfigError, match=r"players.0.reply_mode"):
        parse_config(cfg)
