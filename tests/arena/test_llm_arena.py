"""An LLM player in an arena (a scripted OpenAI-compatible server on loopback): tokens, cost,
latency, provider limits and secrets."""

import csv
import json
import threading
import time
from concurrent.futures import ThreadPoolExecutor

from typer.testing import CliRunner

from hexarena.arena import load_report, parse_arena, run_arena
from hexarena.arena.execute import Backend
from hexarena.arena.worker import RateLimiter, play
from hexarena.cli import app
from hexarena.core.errors import ConfigError
from tests.helpers.chat_server import ChatServer, chat_answer

from .arena_doubles import arena_config


def test_llm_player_gets_tokens_cost_and_latency_columns(tmp_path, monkeypatch):
    monkeypatch.setenv("ARENA_TEST_KEY", "sk-secret-123")
    with ChatServer(lambda body: chat_answer("I take the first one.\nMOVE: #1")) as srv:
        llm = {
            "name": "model",
            "type": "llm",
            "model": "fake-1",
            "base_url": srv.base_url,
            "api_key": "${ARENA_TEST_KEY}",
            "provider": "local",
            "reply_mode": "text",
            "price": {"prompt": 1000.0, "completion": 2000.0},
        }
        config = arena_config(
            tmp_path,
            players=[{"name": "random", "type": "random"}, llm],
            games=[{"name": "hex", "params": {"size": 3}}],
            providers={"local": {"concurrency": 1, "requests_per_minute": 60000}},
        )
        path = tmp_path / "arena.json"
        path.write_text(json.dumps(config))
        out = tmp_path / "a"
        result = CliRunner().invoke(app, ["arena", str(path), "--out", str(out), "--quiet"])
        assert result.exit_code == 0, result.output
        assert "tokens" in result.output and "cost" in result.output
        requests = len(srv.requests)
    board = json.loads((out / "leaderboard.json").read_text())
    row = next(r for r in board["combined"]["players"] if r["player"] == "model")
    assert row["games"] == 4 and row["tokens"] == 13 * requests  # every move was one request
    assert row["cost_usd"] == round(requests * (10 * 1000.0 + 3 * 2000.0) / 1e6, 4)
    # one cost figure: the leaderboard's is the sum of the matches' result.json costs
    results = [json.loads(p.read_text()) for p in out.rglob("result.json")]
    recorded = sum(
        p["usage"].get("cost_usd", 0) for r in results for p in r["players"] if p["name"] == "model"
    )
    assert len(results) == 4 and round(recorded, 4) == row["cost_usd"]
    assert row["latency_ms_per_move"] > 0
    random_row = next(r for r in board["combined"]["players"] if r["player"] == "random")
    assert random_row["tokens"] is None and random_row["latency_ms_per_move"] is None
    with (out / "matches.csv").open() as fh:
        assert sum(int(m["tokens"]) for m in csv.DictReader(fh)) == 13 * requests
    # without the key in the environment, the leaderboard is still read back (same matches)
    monkeypatch.delenv("ARENA_TEST_KEY")
    assert load_report(out)[0] == board
    # the key was used, and is stored nowhere in the arena folder
    stored = [p.read_bytes() for p in out.rglob("*") if p.is_file()]
    assert not any(b"sk-secret-123" in data for data in stored)


def test_one_price_key_the_other_spellings_are_config_errors(tmp_path):
    llm = {"name": "model", "type": "llm", "model": "m"}
    wrong = [
        ({"pricing": {"input_per_1m": 1.0, "output_per_1m": 2.0}}, "'pricing' is not a key; write price:"),
        ({"price": {"input_per_1m": 1.0}}, "unknown key(s) input_per_1m; write price: {prompt:"),
    ]
    for extra, message in wrong:
        config = arena_config(tmp_path, players=[{"name": "random", "type": "random"}, {**llm, **extra}])
        path = tmp_path / "arena.yaml"
        path.write_text(json.dumps(config))
        result = CliRunner().invoke(app, ["arena", str(path), "--out", str(tmp_path / "a")])
        assert isinstance(result.exception, ConfigError) and message in str(result.exception)
        match = {"game": {"name": "hex"}, "players": [{**llm, **extra}, {"type": "random"}]}
        (tmp_path / "match.json").write_text(json.dumps(match))
        result = CliRunner().invoke(app, ["play", str(tmp_path / "match.json")])
        assert isinstance(result.exception, ConfigError) and message in str(result.exception)


def test_rate_limiter_spaces_requests_per_provider():
    limiter = RateLimiter({"slow": 60.0})  # one request a second
    first, second, third = (limiter.reserve("slow") for _ in range(3))
    assert first == 0.0 and 0.9 < second <= 1.0 and 1.9 < third <= 2.0
    assert limiter.reserve("unlimited") == 0.0


def test_budget_of_a_provider_is_shared_by_its_players(tmp_path):
    spend = {"type": "callable", "function": "tests.arena.arena_doubles:token_user", "provider": "p"}
    config = arena_config(
        tmp_path,
        players=[{"name": "random", "type": "random"}, {"name": "s1", **spend}, {"name": "s2", **spend}],
        providers={"p": {"budget": {"tokens": 1}}},
    )
    summary = run_arena(parse_arena(config), config, tmp_path / "a")
    assert summary.played == 1 and all("provider p's budget is spent" in u for u in summary.unplayed_budget)


class CountingBackend(Backend):
    """Plays in two threads and keeps the most matches that were in flight at once."""

    def __init__(self, workers, rates):
        super().__init__(2, ships_records=False)
        self.pool, self.lock, self.now, self.most = ThreadPoolExecutor(2), threading.Lock(), 0, 0

    def submit(self, task):
        def run():
            with self.lock:
                self.now += 1
                self.most = max(self.most, self.now)
            try:
                time.sleep(0.02)  # long enough for the dispatcher to start another if it may
                return play(task)
            finally:
                with self.lock:
                    self.now -= 1

        return self.pool.submit(run)


def test_provider_concurrency_limits_matches_in_flight(tmp_path, monkeypatch):
    backends = []

    def local(workers, rates):
        backends.append(CountingBackend(workers, rates))
        return backends[-1]

    monkeypatch.setattr(Backend, "local", staticmethod(local))
    bot = {"type": "random", "provider": "p"}
    field = [{"name": "a", **bot}, {"name": "b", **bot, "seed": 1}, {"name": "c", **bot, "seed": 2}]
    for limit, most in ((1, 1), (None, 2)):
        config = arena_config(tmp_path, players=field, providers={"p": {"concurrency": limit}})
        run_arena(parse_arena(config), config, tmp_path / f"limit-{limit}", workers=2)
        assert backends[-1].most == most
