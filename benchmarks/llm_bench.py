"""Per-move cost of the LLM player path against a loopback chat-completions server (no network).

An LLM player (red) plays Hex 7x7 against a random player through ``play_match``; the server
answers at once with the first listed legal move, so the figure is hexarena's own cost per LLM
request: prompt building, the HTTP client, answer parsing and the manager. The anchor is a bare
standard-library HTTP POST (``urllib``) of a request of the same size to the same server.

The server runs in a process of its own (in this one it would fight the client for the GIL),
and each figure is given as wall time and as this process's CPU time per request: on a busy
machine the CPU time is the steadier measure of what the client costs.

Run it with an older tree on ``PYTHONPATH`` to compare versions (the server and the anchor come
from this tree): ``PYTHONPATH=OLD/src:. python -m benchmarks.llm_bench``.
"""

from __future__ import annotations

import json
import multiprocessing
import re
import time
import urllib.request
from collections.abc import Callable

from tests.helpers.chat_server import ChatServer, chat_answer

import hexarena
from hexarena.core.llm import LLMPlayer
from hexarena.core.manager import play_match

GAMES = 20
SIZE = 7
_LISTED = re.compile(r"^#\d+: (\S+)$", re.MULTILINE)


def first_legal(body: dict) -> tuple[int, dict]:
    return chat_answer(f"MOVE: {_LISTED.findall(body['messages'][-1]['content'])[0]}")


def serve(queue: multiprocessing.Queue) -> None:
    """The loopback server, in its own process; sends its URL, then serves until killed."""
    with ChatServer(first_legal) as srv:
        queue.put(srv.base_url)
        time.sleep(3600)


def per_request_us(run: Callable[[], int]) -> tuple[float, float]:
    """(wall, CPU) microseconds per request of ``run`` (which returns its number of requests)."""
    wall, cpu = time.perf_counter(), time.process_time()
    n = run()
    return (time.perf_counter() - wall) / n * 1e6, (time.process_time() - cpu) / n * 1e6


def llm_matches(base_url: str) -> int:
    """GAMES matches of an LLM player against a random one; returns the LLM's requests."""
    requests = 0
    for seed in range(GAMES):
        result = play_match(
            {
                "game": {"name": "hex", "seed": seed, "params": {"size": SIZE}},
                "players": [
                    {"type": "llm", "model": "bench", "base_url": base_url, "api_key": "k", "roles": ["red"]},
                    {"type": "random", "seed": seed, "roles": ["blue"]},
                ],
            }
        )
        requests += (result.moves + 1) // 2  # red moves first; no invalid answers here
    return requests


def bare_posts(base_url: str, body: bytes, n: int = 200) -> int:
    """``n`` bare urllib POSTs of ``body`` (one connection per request, as urllib does)."""
    for _ in range(n):
        request = urllib.request.Request(
            f"{base_url}/chat/completions",
            data=body,
            headers={"Content-Type": "application/json", "Authorization": "Bearer k"},
        )
        with urllib.request.urlopen(request, timeout=10) as response:
            json.loads(response.read())
    return n


def main(repeats: int = 3) -> None:
    queue: multiprocessing.Queue = multiprocessing.Queue()
    server = multiprocessing.Process(target=serve, args=(queue,), daemon=True)
    server.start()
    base_url = queue.get(timeout=30)
    try:
        llm_matches(base_url)  # warm-up: imports, first connection
        view = hexarena.make("hex", seed=0, size=SIZE).query_game()
        body = json.dumps(
            {"model": "bench", "messages": LLMPlayer("bench").build_messages(view)[0], "temperature": 0.0}
        ).encode()
        best = {"llm": (float("inf"),) * 2, "bare": (float("inf"),) * 2}
        for _ in range(repeats):  # interleaved, best of each: steadier on a shared machine
            llm = per_request_us(lambda: llm_matches(base_url))
            bare = per_request_us(lambda: bare_posts(base_url, body))
            best = {"llm": min(best["llm"], llm), "bare": min(best["bare"], bare)}
    finally:
        server.kill()
    (bare_wall, bare_cpu), (llm_wall, llm_cpu) = best["bare"], best["llm"]
    print(f"hex {SIZE}x{SIZE}, LLM vs random, {GAMES} games per figure, best of {repeats}; loopback server")
    print(
        f"  bare urllib POST, same prompt (anchor) {bare_wall:7.0f} us wall {bare_cpu:7.0f} us CPU /request"
    )
    print(
        f"  LLM player through the manager         {llm_wall:7.0f} us wall {llm_cpu:7.0f} us CPU /request"
        f"  ratio {llm_wall / bare_wall:4.2f} wall {llm_cpu / bare_cpu:4.2f} CPU"
    )


if __name__ == "__main__":
    main()
