"""Run an arena: plan, skip what is stored, dispatch the rest, store results, report.

The loop keeps to the limits of the config: at most ``workers`` matches at once, at most a
provider's ``concurrency`` matches with its LLM players at once, no new match for a player or
provider whose token or cost budget is spent (those stay unplayed; rerun with a larger budget).
A match that ends in ``error`` is tried again up to ``max_error_retries`` times, then given up;
errors are never rated.

Ctrl-C, SIGTERM or SIGHUP stop the run: the first starts no new match and lets the running ones
end (a match played in this process is interrupted at once, with its record kept); an interrupted
match is not a try and is played again by the next run; then the report is written and
:attr:`RunSummary.stopped_by` names the signal. A second signal stops at once
(:class:`~hexarena.core.interrupt.MatchInterrupted` propagates; running workers are stopped).
"""

from __future__ import annotations

import os
import shutil
import signal
import time
from collections import deque
from collections.abc import Callable, Mapping
from concurrent.futures import FIRST_COMPLETED, Future, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import hexarena
from hexarena.arena.config import ArenaConfig, parse_arena
from hexarena.arena.execute import Backend
from hexarena.arena.ratings import bradley_terry
from hexarena.arena.report import default_anchor, leaderboard, rated_matches, write_reports
from hexarena.arena.schedule import Finished, MatchSpec, plan, total_matches
from hexarena.arena.store import ArenaStore
from hexarena.core.config import redact_secrets
from hexarena.core.interrupt import StopRequest

#: Called after each finished match with (matches finished, matches planned, the current top of
#: the combined table as (player, rating) pairs, best first; refreshed at most twice a second).
ProgressHook = Callable[[int, int, list[tuple[str, float]]], None]


@dataclass
class RunSummary:
    board: dict[str, Any]
    played: int = 0
    errors: int = 0
    unplayed_budget: list[str] = field(default_factory=list)
    #: the signal that stopped the run before its end (SIGINT, SIGTERM, ...), if one did
    stopped_by: str | None = None


def run_arena(
    config: ArenaConfig,
    raw: Mapping[str, Any],
    out: str | Path,
    *,
    workers: int = 1,
    ray: bool = False,
    ray_address: str | None = None,
    on_progress: ProgressHook | None = None,
) -> RunSummary:
    """Play every match of ``config`` not yet stored in ``out``; write and return the report."""
    folder = Path(out)
    store = ArenaStore.open(folder)
    store.save_config(config.name, redact_secrets(dict(raw)), hexarena.__version__)
    store.reopen_errors(config.max_error_retries + 1)
    used = {config.provider_of(p.name) for p in config.players}
    rates = {
        p: lim.requests_per_minute
        for p, lim in config.providers.items()
        if lim.requests_per_minute and p in used
    }
    backend = (
        Backend.ray(ray_address, workers if workers > 1 else None, rates)
        if ray
        else Backend.local(workers, rates)
    )
    summary = RunSummary(board={})
    planned = total_matches(config)
    with StopRequest() as stop:
        try:
            while not stop.requested:
                specs = plan(config, _finished(store))
                store.add_matches(specs)
                rows = {r["id"]: r for r in store.matches(m.id for m in specs)}
                todo = [m for m in specs if rows[m.id]["status"] == "pending"]
                done_before = sum(rows[m.id]["status"] != "pending" for m in specs)
                if not todo:
                    break
                played = _dispatch(
                    config,
                    store,
                    backend,
                    folder,
                    todo,
                    rows,
                    done_before,
                    planned,
                    on_progress,
                    summary,
                    stop,
                )
                if not played or summary.unplayed_budget:  # the rest is held back by a budget
                    break
        except KeyboardInterrupt:  # a second signal: stop the running matches, wait for nothing
            backend.abandon()
            raise
        finally:
            backend.close()
            shutil.rmtree(folder / "matches" / ".tmp", ignore_errors=True)
        summary.stopped_by = stop.signame
        summary.board = report(config, store, folder)[0]
    store.close()
    return summary


def report(config: ArenaConfig, store: ArenaStore, folder: Path | None) -> tuple[dict[str, Any], list[dict]]:
    """The leaderboard of the current plan and its match rows; the report files are written
    into ``folder`` unless it is None."""
    specs = plan(config, _finished(store))
    rows = store.matches(m.id for m in specs)
    board = leaderboard(config, rows, total_matches(config))
    if folder is not None:
        write_reports(folder, board, rows)
    return board, rows


def load_report(folder: str | Path, write: bool = True) -> tuple[dict[str, Any], list[dict]]:
    """An arena folder's leaderboard and match rows, from its database (``hexarena leaderboard
    DIR`` rewrites the report files; the viewer only reads)."""
    store = ArenaStore.existing(folder)
    try:
        config = parse_arena(store.config(), f"{folder}/arena.sqlite (stored config)", expand=False)
        return report(config, store, Path(folder) if write else None)
    finally:
        store.close()


def _finished(store: ArenaStore) -> Finished:
    out: dict[str, Any] = {}
    for r in store.matches():
        if r["status"] == "done":
            out[r["id"]] = (r["game"], r["round"], tuple(r["seating"]), tuple(s["place"] for s in r["seats"]))
        elif r["status"] == "error":
            out[r["id"]] = (r["game"], r["round"], tuple(r["seating"]), None)
    return out


def _task(config: ArenaConfig, spec: MatchSpec, folder: Path, backend: Backend) -> dict[str, Any]:
    seats = []
    for name in spec.seating:
        p = config.player(name)
        seats.append(
            {
                "player": p.player_config(),
                "written": config.written_player(name),
                "provider": config.provider_of(name),
            }
        )
    return {
        "spec": spec.to_json(),
        "seats": seats,
        "manager": config.manager.model_dump(mode="json"),
        "frames": config.frames,
        "record_root": None if backend.ships_records else str(folder / "matches"),
        "parent_pid": os.getpid(),
    }


def _over_budget(config: ArenaConfig, store: ArenaStore, spec: MatchSpec) -> str | None:
    spend = store.spend()
    by_provider: dict[str, list[float]] = {}
    for player, (tokens, cost) in spend.items():
        if player in {p.name for p in config.players} and (prov := config.provider_of(player)):
            acc = by_provider.setdefault(prov, [0, 0.0])
            acc[0] += tokens
            acc[1] += cost
    for name in spec.seating:
        budget = config.player(name).budget
        tokens, cost = spend.get(name, (0, 0.0))
        if (budget.tokens is not None and tokens >= budget.tokens) or (
            budget.cost_usd is not None and cost >= budget.cost_usd
        ):
            return f"player {name}'s budget is spent"
        prov = config.provider_of(name)
        limits = config.providers.get(prov or "")
        if limits and prov in by_provider:
            t, c = by_provider[prov]
            if (limits.budget.tokens is not None and t >= limits.budget.tokens) or (
                limits.budget.cost_usd is not None and c >= limits.budget.cost_usd
            ):
                return f"provider {prov}'s budget is spent"
    return None


def _dispatch(
    config: ArenaConfig,
    store: ArenaStore,
    backend: Backend,
    folder: Path,
    todo: list[MatchSpec],
    rows: Mapping[str, Mapping[str, Any]],
    done: int,
    planned: int,
    on_progress: ProgressHook | None,
    summary: RunSummary,
    stop: StopRequest,
) -> int:
    """Run ``todo`` to the end (with retries) or until ``stop`` is requested; returns how many
    matches were stored."""
    queue = deque(todo)
    tries = {m.id: rows[m.id]["tries"] for m in todo}
    running: dict[Future[dict[str, Any]], MatchSpec] = {}
    busy: dict[str, int] = {}
    stored = 0
    held_back: list[MatchSpec] = []
    top = _Top()
    while queue or running:
        waiting: deque[MatchSpec] = deque()
        while queue and len(running) < backend.capacity and not stop.requested:
            spec = queue.popleft()
            if reason := _over_budget(config, store, spec):
                held_back.append(spec)
                summary.unplayed_budget.append(f"{spec.id}: {reason}")
                continue
            providers = {p for n in spec.seating if (p := config.provider_of(n))}
            if any(
                busy.get(p, 0) >= (config.providers[p].concurrency or 10**9)
                for p in providers
                if p in config.providers
            ):
                waiting.append(spec)
                continue
            for p in providers:
                busy[p] = busy.get(p, 0) + 1
            running[backend.submit(_task(config, spec, folder, backend))] = spec
        queue.extendleft(reversed(waiting))
        if not running:
            break
        finished, _ = wait(running, return_when=FIRST_COMPLETED)
        broken = False
        for fut in finished:
            spec = running.pop(fut)
            for p in {p for n in spec.seating if (p := config.provider_of(n))}:
                busy[p] -= 1
            try:
                result = fut.result()
            except BrokenProcessPool as exc:
                broken = True
                result = {"outcome": {"kind": "error", "reason": f"worker process died: {exc}"}, "seats": []}
            except Exception as exc:  # a Ray task that failed, say
                result = {"outcome": {"kind": "error", "reason": f"worker failed: {exc!r}"}, "seats": []}
            record = _place_record(folder, spec, result)
            kind = result["outcome"]["kind"]
            if kind == "interrupted" or (kind == "error" and stop.requested):
                # stopped by a signal, not the match's fault: no try counted, played by the next run
                stop.request(signal.Signals[result.get("interrupted_by") or "SIGINT"])
                continue
            tries[spec.id] += 1
            if kind == "error":  # unfinished: never rated
                give_up = tries[spec.id] > config.max_error_retries
                store.record_error(spec.id, result["outcome"]["reason"], record, give_up)
                if give_up:
                    summary.errors += 1
                    done += 1
                    stored += 1
                else:
                    queue.append(spec)
            elif store.record_result(spec.id, result, record or f"matches/{spec.id}"):
                done += 1
                stored += 1
                summary.played += 1
            if on_progress:
                on_progress(done, planned, top(config, store))
        if broken:
            backend.restart()
    return stored


class _Top:
    """The combined table's order so far (a point fit, no intervals), refit at most twice a second."""

    def __init__(self) -> None:
        self.at, self.top = -1.0, []

    def __call__(self, config: ArenaConfig, store: ArenaStore) -> list[tuple[str, float]]:
        now = time.monotonic()
        if now - self.at >= 0.5 or self.at < 0:
            fit = bradley_terry(
                rated_matches(store.matches()),
                [p.name for p in config.players],
                anchor=default_anchor(config),
                anchor_rating=config.ratings.anchor_rating,
                bootstrap=0,
                prior_sd=config.ratings.prior_sd,
            )
            ranked = sorted(fit.players.items(), key=lambda kv: -kv[1].rating)
            self.at, self.top = now, [(p, r.rating) for p, r in ranked]
        return self.top


def _place_record(folder: Path, spec: MatchSpec, result: dict[str, Any]) -> str | None:
    """Write a shipped record (Ray) into the arena folder; the record's path relative to it."""
    files = result.pop("record_files", None)
    target = folder / "matches" / spec.id
    if files is not None:
        tmp = folder / "matches" / ".tmp" / f"{spec.id}-driver"
        shutil.rmtree(tmp, ignore_errors=True)
        tmp.mkdir(parents=True)
        for name, data in files.items():
            (tmp / Path(name).name).write_bytes(data)
        shutil.rmtree(target, ignore_errors=True)
        tmp.rename(target)
    return f"matches/{spec.id}" if target.is_dir() else None
