"""Play one arena match, in whatever process runs it (a pool worker, a Ray task, or inline).

The match runs through :func:`hexarena.core.manager.play_match` exactly as ``hexarena play``
runs it, writing its usual record folder; this module only adds what the arena needs around it:
LLM players throttled to their provider's request rate, per-seat figures read back from the
record (moves, invalid moves, latency, tokens, cost), and a record that appears in the arena
folder only once the match is over (written aside, then renamed), so a crash never leaves a
half-written folder where a finished one is expected.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import time
import traceback
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from hexarena.core.config import PlayerConfig
from hexarena.core.contract import GameState
from hexarena.core.manager import play_match
from hexarena.core.player_factory import build_player
from hexarena.core.players import Player, Reply
from hexarena.core.records import Record
from hexarena.core.registry import game_class
from hexarena.core.untrusted import redact_urls

#: ``limiter(provider)`` reserves one request slot and returns how long to wait for it (seconds).
Limiter = Callable[[str], float]


class RateLimiter:
    """Spaces requests per provider evenly at ``requests_per_minute`` (one shared instance serves
    every worker: a multiprocessing manager's object, or a Ray actor)."""

    def __init__(self, rates: Mapping[str, float]) -> None:
        self.interval = {p: 60.0 / r for p, r in rates.items()}
        self.next_free: dict[str, float] = {}

    def reserve(self, provider: str) -> float:
        if provider not in self.interval:
            return 0.0
        now = time.monotonic()
        slot = max(now, self.next_free.get(provider, now))
        self.next_free[provider] = slot + self.interval[provider]
        return slot - now


class Throttled(Player):
    """A player whose every move waits for a request slot of its provider."""

    def __init__(self, inner: Player, provider: str, limiter: Limiter) -> None:
        super().__init__(inner.name, inner.seed)
        self.kind = inner.kind
        self.inner, self.provider, self.limiter = inner, provider, limiter

    def reset(self, roles: tuple[str, ...], seed: int) -> None:
        self.inner.reset(roles, seed)

    def act(self, view: GameState) -> Reply:
        time.sleep(self.limiter(self.provider))
        return self.inner.act(view)

    def close(self) -> None:
        self.inner.close()

    def describe(self) -> dict[str, Any]:
        return self.inner.describe()


def play(task: Mapping[str, Any], limiter: Limiter | None = None) -> dict[str, Any]:
    """Play ``task`` (built by :mod:`hexarena.arena.runner`); return what the arena stores.

    Never raises for a failing match: an exception becomes an ``error`` outcome (infrastructure,
    retried and never rated), with its traceback's last lines as the reason.
    """
    spec = task["spec"]
    final_root = Path(task["record_root"]) if task.get("record_root") else None
    scratch = Path(tempfile.mkdtemp(prefix=f"match-{spec['id'][:8]}-", dir=_scratch_parent(final_root)))
    try:
        try:
            result = _play(task, scratch, limiter)
        except Exception as exc:  # anything else is infrastructure: retried, never rated
            tail = "".join(traceback.format_exception_only(exc)).strip()
            reason = f"match crashed: {redact_urls(tail)}"
            result = {"outcome": {"kind": "error", "reason": reason}, "seats": []}
        if final_root is None:  # ship the record back (Ray: the driver may be on another machine)
            result["record_files"] = {p.name: p.read_bytes() for p in scratch.iterdir() if p.is_file()}
        elif task.get("parent_pid") in (
            None,
            os.getppid(),
            os.getpid(),
        ):  # an orphan of a killed arena keeps out
            target = final_root / spec["id"]
            shutil.rmtree(target, ignore_errors=True)
            scratch.rename(target)
        return result
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def _scratch_parent(final_root: Path | None) -> str | None:
    if final_root is None:
        return None
    parent = final_root / ".tmp"
    parent.mkdir(parents=True, exist_ok=True)
    return str(parent)


def _play(task: Mapping[str, Any], out: Path, limiter: Limiter | None) -> dict[str, Any]:
    spec = task["spec"]
    seats: list[Mapping[str, Any]] = task["seats"]
    config = {
        "game": {"name": spec["game_name"], "seed": spec["seed"], "params": spec["params"]},
        "players": [dict(s["player"]) for s in seats],
        "manager": task["manager"],
        "output": {"dir": str(out), "frames": task["frames"]},
    }
    # the record keeps the players as the arena config has them (each ${VAR} as written)
    written = {**config, "players": [dict(s.get("written", s["player"])) for s in seats]}
    cls = game_class(spec["game_name"])
    prebuilt = {}
    for i, seat in enumerate(seats):
        if seat.get("provider") and limiter is not None:
            player = build_player(PlayerConfig.model_validate(seat["player"]), cls, index=i)
            prebuilt[player.name] = Throttled(player, seat["provider"], limiter)
    result = play_match(config, players=prebuilt, raw_config=written)
    stats = _seat_stats(out)
    outcome = result.outcome
    roles = result.final_state.all_roles()
    left = {entry["role"] for entry in result.left}  # forfeited and left; the others played on
    seat_rows = []
    for i, (role, seat) in enumerate(zip(roles, seats, strict=True)):
        s = stats.get(role, {})
        prompt, completion = s.get("prompt_tokens", 0), s.get("completion_tokens", 0)
        seat_rows.append(
            {
                "seat": i,
                "role": role,
                "player": seat["player"]["name"],
                "place": outcome.rank_of(role),
                "score": float(outcome.scores.get(role, 0.0)),
                "moves": s.get("moves", 0),
                "invalid": int(result.invalid.get(role, 0)),
                "forfeit": int((outcome.kind.value == "forfeit" and outcome.role == role) or role in left),
                "latency_ms": round(s.get("latency_ms", 0.0), 3),
                "prompt_tokens": prompt,
                "completion_tokens": completion,
                "cost_usd": s.get("cost_usd", 0.0),  # the record's own figure, from the player's price
            }
        )
    return {
        "outcome": outcome.to_json(),
        "moves": result.moves,
        "rounds": result.final_state.rounds_played(),
        "time_s": round(result.time_s, 4),
        "seats": seat_rows,
        "interrupted_by": result.interrupted_by,
    }


def _seat_stats(record_dir: Path) -> dict[str, dict[str, Any]]:
    """Per role: accepted moves, total latency of its attempts, and tokens, from ``turns.jsonl``."""
    stats: dict[str, dict[str, Any]] = {}
    for event in Record(record_dir, {}, {}).turns():
        role = event.get("role")
        if role is None:
            continue
        s = stats.setdefault(
            role, {"moves": 0, "latency_ms": 0.0, "prompt_tokens": 0, "completion_tokens": 0, "cost_usd": 0.0}
        )
        if event["event"] == "move" and not event.get("left"):  # not the moves played for a seat left
            s["moves"] += 1
        elif event["event"] == "attempt":
            s["latency_ms"] += float(event.get("latency_ms") or 0.0)
            usage = (event.get("meta") or {}).get("usage") or {}
            s["prompt_tokens"] += int(usage.get("prompt_tokens") or 0)
            s["completion_tokens"] += int(usage.get("completion_tokens") or 0)
            s["cost_usd"] += float(usage.get("cost_usd") or 0.0)
    return stats
