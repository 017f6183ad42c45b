"""Arena speed: its overhead per match over ``play_match`` alone, and 2 workers against 1.

1. *Overhead*: bot-vs-bot Hex matches played by an arena (``--workers 1``: in its own process;
   planning, SQLite, per-seat figures, the progress fit, the final report with 200 bootstrap
   fits) against the same matches played by ``play_match`` writing the same records. Goal: at
   most 10 % more time per match.
2. *Workers*: the same bot arena with ``--workers 2`` (a process pool) and ``--workers 1``.
   Goal: at least 1.7x on a 2-core machine. The load average is printed next to it: on a machine
   shared with other work the figure says more about the neighbours than about the arena.
"""

from __future__ import annotations

import os
import tempfile
import time
from pathlib import Path

from hexarena.arena import parse_arena, run_arena
from hexarena.arena.schedule import plan
from hexarena.core.manager import play_match


def hex_arena(size: int, games: int) -> dict:
    return {
        "name": "bench",
        "players": [
            {"name": "random", "type": "random"},
            {"name": "heuristic", "type": "heuristic"},
            {"name": "heuristic-b", "type": "heuristic", "seed": 1},
        ],
        "games": [{"name": "hex", "params": {"size": size}}],
        "schedule": {"games_per_pairing": games},
    }


def bare_matches(raw: dict, out: Path) -> float:
    """Seconds to play the arena's matches with play_match alone (records written as the arena does)."""
    config = parse_arena(raw)
    started = time.perf_counter()
    for spec in plan(config, {}):
        play_match(
            {
                "game": {"name": spec.game_name, "seed": spec.seed, "params": dict(spec.params)},
                "players": [config.player(n).player_config() for n in spec.seating],
                "manager": config.manager.model_dump(mode="json"),
                "output": {"dir": str(out / spec.id), "frames": True},
            }
        )
    return time.perf_counter() - started


def arena_run(raw: dict, out: Path, workers: int) -> float:
    started = time.perf_counter()
    run_arena(parse_arena(raw), raw, out, workers=workers, on_progress=lambda *a: None)
    return time.perf_counter() - started


def main(repeats: int = 3) -> None:
    raw = hex_arena(size=7, games=4)  # 24 matches
    n = len(plan(parse_arena(raw), {}))
    best_bare = best_arena = float("inf")
    with tempfile.TemporaryDirectory() as tmp:
        for r in range(repeats):  # interleaved, best of each: steadier on a shared machine
            best_bare = min(best_bare, bare_matches(raw, Path(tmp) / f"bare{r}"))
            best_arena = min(best_arena, arena_run(raw, Path(tmp) / f"arena{r}", workers=1))
    print(f"arena overhead: {n} bot-vs-bot Hex 7x7 matches, best of {repeats}")
    print(f"  play_match alone (anchor)  {best_bare / n * 1000:8.1f} ms/match")
    ratio = best_arena / best_bare
    print(f"  arena, 1 worker            {best_arena / n * 1000:8.1f} ms/match  ratio {ratio:5.3f}", end="")
    print(f"  overhead {100 * (ratio - 1):+.1f} % (goal <= +10 %)")

    raw = {**hex_arena(size=9, games=4), "ratings": {"bootstrap": 0}}  # 24 longer matches
    load = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as tmp:
        one = arena_run(raw, Path(tmp) / "one", workers=1)
        two = arena_run(raw, Path(tmp) / "two", workers=2)
    load_after = os.getloadavg()[0]
    cores = os.cpu_count()
    print(f"workers: 24 bot Hex 9x9 matches, {cores} cores, load average {load:.1f} -> {load_after:.1f}")
    print(f"  1 worker (anchor)          {one:8.2f} s")
    print(f"  2 workers                  {two:8.2f} s  speed-up {one / two:5.2f}x (goal >= 1.7x, idle cores)")


if __name__ == "__main__":
    main()
