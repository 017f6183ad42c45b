"""Broken APIs end matches as errors, never as losses: through ``play_match`` and ``hexarena play``.

Each case drives a loopback OpenAI-compatible server (tests/helpers/chat_server.py) into one
failure and checks the outcome kind, the reason, the exit status, the record and a generous
wall-time bound (small budgets keep every case well under a few seconds).
"""

import json
import os
import re
import socket
import subprocess
import sys
import time
from datetime import datetime

import pytest

from hexarena.core.manager import play_match
from hexarena.core.records import Record
from tests.helpers.chat_server import CLOSE, HANG, ChatServer, chat_answer, error, script, tool_answer

FAST = {"backoff_s": 0.05, "backoff_max_s": 0.2, "transport_retries": 50, "transport_budget_s": 1.0}


def first_legal(body):
    """The first listed move, answered as the request's reply mode asks (tool call, JSON, text)."""
    legal = re.findall(r"^#\d+: (\S+)$", body["messages"][-1]["content"], re.MULTILINE)
    if "tools" in body:
        return tool_answer(json.dumps({"move": legal[0]}))
    if "response_format" in body:
        return chat_answer(json.dumps({"move": legal[0]}))
    return chat_answer(f"MOVE: {legal[0]}")


def config(base_url, out, player=None, **manager):
    llm = {"type": "llm", "name": "model", "model": "test-model", "base_url": base_url, "timeout_s": 0.5}
    return {
        "game": {"name": "hex", "seed": 5, "params": {"size": 3}},
        "players": [
            {**llm, **(player or {}), "roles": ["red"]},
            {"type": "random", "seed": 3, "roles": ["blue"]},
        ],
        "manager": {**FAST, **manager},
        "output": {"dir": str(out)},
    }


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def errored_record(out, cause, player="model"):
    """The record of an errored match: complete, marked, the cause named, nothing held against red."""
    rec = Record.load(out)
    assert rec.outcome.kind.value == "error" and cause in rec.outcome.reason
    assert rec.outcome.ranking == () and rec.outcome.role == "red"
    assert rec.result["error"]["cause"] == rec.outcome.reason and rec.result["error"]["player"] == player
    assert rec.result["invalid"] == {"red": 0, "blue": 0}
    events = [e["event"] for e in rec.turns()]
    assert events[-2:] == ["error", "end"] and "exhausted" not in events
    rec.replay()  # the accepted moves still replay
    return rec


BROKEN = pytest.mark.parametrize(
    ("answers", "cause", "kind"),
    [
        ([error(401, "invalid api key")], "HTTP 401 from {url}: invalid api key", "api"),
        (
            [error(404, "model 'test-model' not found")],
            "HTTP 404 from {url}: model 'test-model' not found",
            "api",
        ),
        ([error(500, "overloaded")] * 99, "HTTP 500 from {url}: overloaded", "transport"),
        ([(200, "this is not json")] * 99, "unreadable answer from {url}", "transport"),
        ([CLOSE] * 99, "cannot reach {url}", "transport"),
        ([HANG] * 99, "no answer from {url} within 0.5s", "transport"),
    ],
    ids=["401", "404", "500", "garbage-body", "closed", "hung"],
)


@BROKEN
def test_broken_api_ends_the_match_as_an_error(tmp_path, answers, cause, kind):
    with ChatServer(script(answers)) as srv:
        t0 = time.perf_counter()
        result = play_match(config(srv.base_url, tmp_path))
        wall = time.perf_counter() - t0
    assert result.outcome.kind.value == "error" and cause.format(url=srv.url) in result.outcome.reason
    rec = errored_record(tmp_path, cause.format(url=srv.url))
    failed = [e for e in rec.turns() if e.get("error") == kind]
    assert len(failed) == len(srv.requests) >= 1
    if kind == "api":  # fail fast: one request, no retry
        assert len(srv.requests) == 1 and wall < 5
    else:  # retried until the budget of 1 s was spent
        assert len(srv.requests) >= 2 and "transport budget of 1s per match spent" in result.outcome.reason
        assert wall < 1.0 + 0.5 + 5


def test_server_down_ends_within_the_budget(tmp_path):
    url = f"http://127.0.0.1:{free_port()}/v1"
    t0 = time.perf_counter()
    result = play_match(config(url, tmp_path, transport_budget_s=1.5))
    assert time.perf_counter() - t0 < 1.5 + 5
    assert result.outcome.kind.value == "error" and result.error["role"] == "red"
    assert f"cannot reach {url}/chat/completions" in result.outcome.reason
    errored_record(tmp_path, "transport budget of 1.5s per match spent")


def test_retries_in_a_row_are_capped(tmp_path):
    with ChatServer(script([error(503, "busy")] * 99)) as srv:
        result = play_match(config(srv.base_url, tmp_path, transport_retries=2, transport_budget_s=60))
    assert len(srv.requests) == 3 and "gave up after 3 tries in a row" in result.outcome.reason
    errored_record(tmp_path, "HTTP 503")


def stamped_transients():
    """A server script: closed, garbage, 500, 429 with Retry-After: 1, then answers; and its stamps."""
    stamps = []

    def stamped(item):
        def responder(body):
            stamps.append(time.perf_counter())
            return item(body) if callable(item) else item

        return responder

    answers = [CLOSE, (200, "{oops"), error(500, "x"), error(429, "slow down", retry_after="1"), first_legal]
    return script([stamped(a) for a in answers], then=first_legal), stamps


def retried_record(out, stamps):
    rec = Record.load(out)
    assert rec.outcome.kind.value == "win" and rec.result["invalid"] == {"red": 0, "blue": 0}
    assert rec.result["error"] is None
    assert stamps[4] - stamps[3] >= 0.95  # Retry-After: 1 was honoured (the backoff cap is 0.2 s)
    attempts = [e for e in rec.turns() if e["event"] == "attempt"]
    assert [a["error"] for a in attempts[:4]] == ["transport"] * 4
    assert "HTTP 429" in attempts[3]["message"] and "slow down" in attempts[3]["message"]
    assert "exhausted" not in [e["event"] for e in rec.turns()]


def test_transient_failures_are_retried_and_never_counted(tmp_path):
    responder, stamps = stamped_transients()
    with ChatServer(responder) as srv:
        t0 = time.perf_counter()
        play_match(config(srv.base_url, tmp_path, transport_budget_s=5))
    assert time.perf_counter() - t0 < 1 + 5 + 5
    retried_record(tmp_path, stamps)


def test_retry_after_beyond_the_budget_gives_up_at_once(tmp_path):
    with ChatServer(script([error(429, "quota", retry_after="30")])) as srv:
        t0 = time.perf_counter()
        result = play_match(config(srv.base_url, tmp_path))
    assert time.perf_counter() - t0 < 5 and len(srv.requests) == 1
    assert "HTTP 429" in result.outcome.reason and "the server asked to wait 30s" in result.outcome.reason
    errored_record(tmp_path, "quota")


def test_garbage_answers_are_the_players_mistakes_not_errors(tmp_path):
    with ChatServer(lambda body: chat_answer("I would rather not say. {]")) as srv:
        result = play_match(config(srv.base_url, tmp_path, max_attempts_per_turn=2))
    assert result.outcome.kind.value == "forfeit" and result.outcome.role == "red" and result.error is None
    assert result.invalid["red"] == 2 and len(srv.requests) == 2


# ------------------------------------------------------------------ through `hexarena play` ---
def hexarena(*args, env=None, timeout=60):
    """Run the CLI in a subprocess (PYTHONPATH inherited); returns (exit code, output, exit time)."""
    proc = subprocess.run(
        [sys.executable, "-c", "from hexarena.cli import main; main()", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env={**os.environ, "COLUMNS": "200", **(env or {})},
    )
    return proc.returncode, proc.stdout + proc.stderr, time.time()


def write_config(tmp_path, cfg):
    path = tmp_path / "match.json"
    path.write_text(json.dumps(cfg))
    return str(path)


def test_cli_exits_non_zero_with_the_cause_when_the_server_is_down(tmp_path):
    url = f"http://127.0.0.1:{free_port()}/v1"
    code, out, _ = hexarena("play", write_config(tmp_path, config(url, tmp_path / "rec")), "--quiet")
    assert code == 3, out
    assert f"match error: cannot reach {url}/chat/completions" in " ".join(out.split())
    assert "Traceback" not in out
    errored_record(tmp_path / "rec", "transport budget of 1s per match spent")


@BROKEN
def test_cli_broken_api_exits_3_with_the_cause(tmp_path, answers, cause, kind):
    with ChatServer(script(answers)) as srv:
        t0 = time.perf_counter()
        code, out, _ = hexarena(
            "play", write_config(tmp_path, config(srv.base_url, tmp_path / "rec")), "--quiet"
        )
        wall = time.perf_counter() - t0
    assert code == 3 and "Traceback" not in out, out
    assert f"match error: {cause.format(url=srv.url)}" in " ".join(out.split())
    assert wall < 1.0 + 0.5 + 20  # budget, one request timeout, and the interpreter's start
    errored_record(tmp_path / "rec", cause.format(url=srv.url))


def test_cli_transient_failures_are_retried_and_the_match_finishes(tmp_path):
    responder, stamps = stamped_transients()
    with ChatServer(responder) as srv:
        cfg = config(srv.base_url, tmp_path / "rec", transport_budget_s=5)
        code, out, _ = hexarena("play", write_config(tmp_path, cfg), "--quiet")
    assert code == 0 and "win" in out, out
    retried_record(tmp_path / "rec", stamps)


def test_cli_exits_soon_after_a_match_against_a_hung_server(tmp_path):
    with ChatServer(lambda body: HANG) as srv:
        cfg = config(srv.base_url, tmp_path / "rec", per_move_timeout_s=0.3)
        code, out, exited = hexarena("play", write_config(tmp_path, cfg), "--quiet")
    assert code == 3 and "no answer from" in out and "within 0.3s" in out, out
    finished = datetime.fromisoformat(Record.load(tmp_path / "rec").result["finished_at"]).timestamp()
    assert exited - finished < 2.0  # no abandoned request keeps the process alive
    errored_record(tmp_path / "rec", "transport budget of 1s per match spent")


def test_cli_quick_llm_match_reads_the_key_from_the_environment(tmp_path):
    with ChatServer(script([error(401, "invalid api key [check it]")])) as srv:
        code, out, _ = hexarena(
            "play", "hex", "-p", "size=3", "--players", f"llm:test-model@{srv.base_url},random",
            "--out", str(tmp_path / "rec"), "--quiet", "--api-key-env", "HEXARENA_TEST_KEY",
            env={"HEXARENA_TEST_KEY": "sk-cli-secret"},
        )  # fmt: skip
    assert code == 3 and f"HTTP 401 from {srv.url}: invalid api key [check it]" in " ".join(out.split()), out
    assert srv.headers[0]["authorization"] == "Bearer sk-cli-secret"
    assert srv.requests[0]["model"] == "test-model"
    for f in (tmp_path / "rec").iterdir():
        assert "sk-cli-secret" not in f.read_text(), f.name
    assert "${HEXARENA_TEST_KEY}" in (tmp_path / "rec" / "config.json").read_text()
    errored_record(tmp_path / "rec", "invalid api key", player="test-model")


def test_cli_quick_llm_match_shows_tokens_latency_and_cost(tmp_path):
    with ChatServer(first_legal) as srv:
        cfg = config(srv.base_url, tmp_path / "rec", player={"price": {"prompt": 1.0, "completion": 2.0}})
        code, out, _ = hexarena("play", write_config(tmp_path, cfg), "--quiet")
    assert code == 0, out
    assert "tokens in/out" in out and "cost $" in out
    usage = Record.load(tmp_path / "rec").result["players"][0]["usage"]
    moves = usage["requests"]
    assert moves >= 2 and usage["prompt_tokens"] == 10 * moves and usage["completion_tokens"] == 3 * moves
    assert usage["cost_usd"] == pytest.approx(moves * (10 * 1.0 + 3 * 2.0) / 1e6)
    assert f"{10 * moves}/{3 * moves}" in out


def test_cli_llm_options_are_checked(tmp_path):
    for args, expected in [
        (["hex", "--players", "llm,random"], "needs a model: llm:MODEL, llm:MODEL@BASE_URL or --model MODEL"),
        (["hex", "--players", "random:x,random"], "only llm and policy take a value"),
        ([write_config(tmp_path, config("http://x/v1", tmp_path)), "--model", "m"], "apply to a game name"),
    ]:
        code, out, _ = hexarena("play", *args, "--out", str(tmp_path / "r"))
        assert code == 2 and expected in " ".join(out.split()) and "Traceback" not in out, out


def test_llm_players_in_threads_and_inside_a_running_event_loop(tmp_path):
    """Each thread has its own loop and clients; from inside a running loop (a notebook) the
    request runs on a joined helper thread."""
    import asyncio
    import threading

    with ChatServer(first_legal) as srv:
        results = {}

        def run(name):
            results[name] = play_match(config(srv.base_url, tmp_path / name))

        threads = [threading.Thread(target=run, args=(f"t{i}",)) for i in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)

        async def notebook():
            return play_match(config(srv.base_url, tmp_path / "nb"))

        # its own thread: another test's browser session may already run a loop in this one
        nb = threading.Thread(target=lambda: results.__setitem__("nb", asyncio.run(notebook())))
        nb.start()
        nb.join(60)
    assert {r.outcome.kind.value for r in results.values()} == {"win"} and len(results) == 3
    assert all(r.usage["red"]["requests"] >= 2 for r in results.values())


def test_a_hung_bot_does_not_keep_the_process_alive(tmp_path):
    code = (
        "import time\n"
        "from hexarena.core.manager import play_match\n"
        "from hexarena.core.players import CallablePlayer\n"
        "cfg = {'game': {'name': 'hex', 'params': {'size': 3}}, 'players': [{'type': 'random'}] * 2,\n"
        "       'manager': {'per_move_timeout_s': 0.2, 'max_attempts_per_turn': 1}}\n"
        "r = play_match(cfg, players={'red': CallablePlayer(lambda view: time.sleep(60))})\n"
        "print(r.outcome.kind.value, time.time())\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    kind, ended = proc.stdout.split()
    assert proc.returncode == 0 and kind == "forfeit", proc.stderr
    assert time.time() - float(ended) < 2.0  # the sleeping daemon thread is abandoned, not joined
