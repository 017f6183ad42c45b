"""Hostile text from outside (issue 28 items 1, 4, 7): secrets in any config field, credentials in
URLs, lone surrogates in replies, rich markup and terminal escapes in names and server messages.

Each case goes through ``hexarena play`` (in process, through typer) or the manager against a
loopback OpenAI-compatible server, as a user meets it.
"""

import asyncio
import importlib.util
import json
import os
import re
import signal

import pytest
import yaml
from typer.testing import CliRunner

from hexarena import viewer
from hexarena.cli import app
from hexarena.core.manager import play_match, resume_match
from hexarena.core.records import Record
from hexarena.core.untrusted import redact_urls, shown, visible
from tests.helpers.chat_server import HANG, ChatServer, chat_answer, error, script

runner = CliRunner()
FAST = {"backoff_s": 0.01, "backoff_max_s": 0.02, "transport_retries": 0, "transport_budget_s": 1.0}
ESCAPES = "\x1b]0;pwned\x07\x1b[2J"


def legal_move(body, prefix=""):
    """A text-mode answer with the first move the prompt lists (``prefix`` before it)."""
    legal = re.findall(r"^#\d+: (\S+)$", body["messages"][-1]["content"], re.MULTILINE)
    return chat_answer(f"{prefix}MOVE: {legal[0]}")


def llm_config(out, **player):
    llm = {"type": "llm", "model": "m", "reply_mode": "text", "timeout_s": 2, **player, "roles": ["red"]}
    return {
        "game": {"name": "hex", "seed": 5, "params": {"size": 3}},
        "players": [llm, {"type": "random", "seed": 3, "roles": ["blue"]}],
        "manager": FAST,
        "output": {"dir": str(out)},
    }


def play_cli(tmp_path, config, *args, env=None, monkeypatch=None):
    path = tmp_path / "match.yaml"
    path.write_text(yaml.safe_dump(config, allow_unicode=True))
    for key, value in (env or {}).items():
        monkeypatch.setenv(key, value)
    return runner.invoke(app, ["play", str(path), "--quiet", *args])


def record_text(folder):
    return "\n".join(p.read_text(encoding="utf-8") for p in folder.iterdir() if p.is_file())


# ------------------------------------------------------------------------- 1: secrets ---
def test_url_credentials_are_masked_as_pip_does():
    assert (
        redact_urls("cannot reach http://user:PASS@h:8/v1/chat")
        == "cannot reach http://user:****@h:8/v1/chat"
    )
    assert redact_urls("https://TOKEN@h/v1") == "https://****@h/v1"
    assert (
        redact_urls("http://h/v1?api_key=S&x=1&token=T&Key=K")
        == "http://h/v1?api_key=****&x=1&token=****&Key=****"
    )
    assert redact_urls("https://api.openai.com/v1 (no secret)") == "https://api.openai.com/v1 (no secret)"


def test_references_are_recorded_as_written_and_url_credentials_never(tmp_path, monkeypatch):
    """``${VAR}`` in base_url, model and name: the records, the exported page and the terminal
    show the reference; a password or key in the URL is nowhere, even in the error cause."""
    with ChatServer(script([error(401, "bad key for http://user:PASS@server/v1")])) as srv:
        url = srv.base_url.replace("http://", "http://user:PASS@") + "?api_key=QSECRET"
        env = {"LLM_URL": url, "LLM_MODEL": "secret-model-MSECRET", "LLM_NAME": "NSECRET"}
        cfg = llm_config(tmp_path / "rec", base_url="${LLM_URL}", model="${LLM_MODEL}", name="${LLM_NAME}")
        result = play_cli(tmp_path, cfg, env=env, monkeypatch=monkeypatch)
    assert srv.requests[0]["model"] == "secret-model-MSECRET"  # the expanded values were used
    assert result.exit_code == 3, result.output
    out = " ".join(result.output.split())
    assert "HTTP 401 from http://user:****@127.0.0.1:" in out and "bad key for http://user:****@server" in out
    rec = tmp_path / "rec"
    page = viewer.export_html(rec, tmp_path / "replay.html")
    for secret in ("PASS", "QSECRET", "MSECRET", "NSECRET"):
        assert secret not in result.output
        assert secret not in record_text(rec), secret
        assert secret not in page.read_text(encoding="utf-8")
    llm = Record.load(rec).result["players"][0]
    assert (llm["name"], llm["model"], llm["base_url"]) == ("${LLM_NAME}", "${LLM_MODEL}", "${LLM_URL}")
    start = next(Record.load(rec).turns())
    assert start["players"][0]["base_url"] == "${LLM_URL}" and start["players"][0]["name"] == "${LLM_NAME}"


def test_credentials_written_literally_are_masked_and_resume_says_why(tmp_path, monkeypatch):
    down = "http://user:PASS@127.0.0.1:9/v1?key=QSECRET"  # port 9: nothing listens
    result = play_cli(tmp_path, llm_config(tmp_path / "rec", base_url=down))
    assert result.exit_code == 3, result.output
    assert "cannot reach http://user:****@127.0.0.1:9/v1?key=****" in " ".join(result.output.split())
    assert "PASS" not in result.output + record_text(tmp_path / "rec")
    assert "QSECRET" not in result.output + record_text(tmp_path / "rec")
    resumed = runner.invoke(app, ["play", "--resume", str(tmp_path / "rec")])
    assert resumed.exit_code != 0 and "players[0].base_url was written literally" in str(resumed.exception)


# ---------------------------------------------------------------- 4: lone surrogates ---
def plainly(call):
    return call()


def in_a_running_loop(call):
    """``call()`` from inside a running asyncio loop, as in a notebook cell (or as it is already
    in a process where playwright's sync API runs, as the viewer tests leave it)."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:

        async def main():
            return call()

        return asyncio.run(main())
    return call()


@pytest.mark.parametrize("caller", [plainly, in_a_running_loop])
def test_a_reply_cut_mid_emoji_is_recorded_exported_and_resumed(tmp_path, caller):
    """``"\\ud83d"`` (half an emoji, valid JSON) in a reply: recorded, exported, resumable.

    The resume runs in the same process as the match that Ctrl-C cut mid-request: the LLM
    client's event loop, which still held that request, must not interrupt the resumed match,
    nor refuse it as "already running" (inside a running loop, the request ran on a helper
    thread that the Ctrl-C did not stop)."""
    cut = "thinking \ud83d\n"
    asked = []

    def answer(body):
        asked.append(1)
        if len(asked) == 2:  # Ctrl-C while the second request is out
            os.kill(os.getpid(), signal.SIGINT)
            return HANG
        return legal_move(body, cut)

    out = tmp_path / "rec"
    with ChatServer(answer) as srv:  # a first request can take seconds on a busy machine
        stopped = caller(lambda: play_match(llm_config(out, base_url=srv.base_url, timeout_s=30)))
        assert stopped.outcome.kind.value == "interrupted", stopped.outcome
        srv.responder = lambda body: legal_move(body, cut)
        finished = caller(lambda: resume_match(out))
    assert finished.outcome.kind.value == "win", finished.outcome
    attempts = [e for e in Record.load(out).turns() if e["event"] == "attempt" and e["role"] == "red"]
    assert len(attempts) > 2 and all("thinking \ud83d" in json.dumps(e, ensure_ascii=False) for e in attempts)
    assert "thinking \\ud83d" in (out / "turns.jsonl").read_text(encoding="utf-8")  # escaped on disk
    Record.load(out).replay()
    assert viewer.export_html(out, tmp_path / "replay.html").stat().st_size > 1000


# ------------------------------------------------------------ 7: markup and escapes ---
def test_shown_escapes_markup_and_makes_controls_visible():
    assert visible("a\x1b[2Jb\r\u202ec\ud800\n\t") == "a\\x1b[2Jb\\x0d\\u202ec\\ud800\n\t"
    assert shown("llama3 [q4] [/]") == "llama3 \\[q4] \\[/]"


def test_a_server_message_with_markup_and_escapes_exits_3_with_it_shown(tmp_path):
    with ChatServer(script([error(401, f"bad [/] key [b]{ESCAPES}")])) as srv:
        result = play_cli(tmp_path, llm_config(tmp_path / "rec", base_url=srv.base_url))
    assert result.exit_code == 3, result.output
    assert "bad [/] key [b]\\x1b]0;pwned\\x07\\x1b[2J" in result.output
    assert "\x1b" not in result.output


def test_player_names_with_markup_and_escapes_are_shown_as_written(tmp_path):
    cfg = {
        "game": {"name": "hex", "seed": 1, "params": {"size": 3}},
        "players": [
            {"type": "random", "name": "llama3 [q4]"},
            {"type": "random", "name": f"[/][b]bold{ESCAPES}"},
        ],
        "output": {"dir": str(tmp_path / "rec")},
    }
    result = play_cli(tmp_path, cfg)
    assert result.exit_code == 0, result.output
    assert "llama3 [q4]" in result.output and "[/][b]bold\\x1b]0;pwned" in result.output
    assert "\x1b" not in result.output
    replayed = runner.invoke(app, ["replay", str(tmp_path / "rec")])
    assert replayed.exit_code == 0, replayed.output


def test_error_messages_keep_their_brackets(monkeypatch, capsys, tmp_path):
    """Issue 27 item 7: ``pip install 'hexarena[train]'`` must not lose its ``[train]``."""
    from hexarena.cli import main

    missing = tmp_path / f"conf[train]{ESCAPES}.yaml"
    monkeypatch.setattr("sys.argv", ["hexarena", "play", str(missing)])
    try:
        main()
    except SystemExit as exc:
        code = exc.code
    out = capsys.readouterr().out
    assert code == 2 and "conf[train]\\x1b]0;pwned" in out and "no such config file" in out
    assert "\x1b" not in out and "Traceback" not in out
    if importlib.util.find_spec("sb3_contrib") is None:  # the message of the issue itself
        policy = tmp_path / "policy.zip"
        policy.write_bytes(b"")
        monkeypatch.setattr("sys.argv", ["hexarena", "play", "hex", "--players", f"policy:{policy},random"])
        with pytest.raises(SystemExit):
            main()
        assert "needs sb3-contrib: pip install 'hexarena[train]'" in capsys.readouterr().out


def test_records_stay_valid_json_after_hostile_names(tmp_path):
    """A name with quotes, escapes and a surrogate goes into every record file readably."""
    name = f'"quoted" \ud800 {ESCAPES}'
    cfg = {
        "game": {"name": "hex", "seed": 1, "params": {"size": 3}},
        "players": [{"type": "random", "name": name}, {"type": "random"}],
        "output": {"dir": str(tmp_path / "rec")},
    }
    play_match(cfg)
    assert Record.load(tmp_path / "rec").result["players"][0]["name"] == name
    assert json.loads((tmp_path / "rec" / "config.json").read_text())["players"][0]["name"] == name
