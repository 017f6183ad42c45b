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


def clocks() -> tuple[float, float]:
    """Wall-clock and this process's CPU seconds (the CPU figure is the steadier one on a shared
    machine: both sides of the overhead comparison run in this one process)."""
    return time.perf_counter(), time.process_time()


def since(start: tuple[float, float]) -> tuple[float, float]:
    now = clocks()
    return now[0] - start[0], now[1] - start[1]


def bare_matches(raw: dict, out: Path) -> tuple[float, float]:
    """Seconds to play the arena's matches with play_match alone (records written as the arena does)."""
    config = parse_arena(raw)
    started = clocks()
    for spec in plan(config, {}):
        play_match(
            {
                "game": {"name": spec.game_name, "seed": spec.seed, "params": dict(spec.params)},
                "players": [config.player(n).player_config() for n in spec.seating],
                "manager": config.manager.model_dump(mode="json"),
                "output": {"dir": str(out / spec.id), "frames": True},
            }
        )
    return since(started)


def arena_run(raw: dict, out: Path, workers: int) -> tuple[float, float]:
    started = clocks()
    run_arena(parse_arena(raw), raw, out, workers=workers, on_progress=lambda *a: None)
    return since(started)


def main(repeats: int = 5) -> None:
    raw = hex_arena(size=7, games=4)  # 24 matches
    n = len(plan(parse_arena(raw), {}))
    bare, arena = [float("inf")] * 2, [float("inf")] * 2
    with tempfile.TemporaryDirectory() as tmp:
        for r in range(repeats):  # interleaved, best of each: steadier on a shared machine
            bare = [min(a, b) for a, b in zip(bare, bare_matches(raw, Path(tmp) / f"bare{r}"), strict=True)]
            arena = [
                min(a, b) for a, b in zip(arena, arena_run(raw, Path(tmp) / f"arena{r}", 1), strict=True)
            ]
    print(f"arena overhead: {n} bot-vs-bot Hex 7x7 matches, best of {repeats}, ms per match (wall / CPU)")
    print(f"  play_match alone (anchor)  {bare[0] / n * 1e3:7.1f} / {bare[1] / n * 1e3:7.1f}")
    print(
        f"  arena, 1 worker            {arena[0] / n * 1e3:7.1f} / {arena[1] / n * 1e3:7.1f}"
        f"   overhead {100 * (arena[0] / bare[0] - 1):+.1f} % / {100 * (arena[1] / bare[1] - 1):+.1f} %"
        " (goal <= +10 %)"
    )

    raw = {**hex_arena(size=9, games=4), "ratings": {"bootstrap": 0}}  # 24 longer matches
    load = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as tmp:
        one = arena_run(raw, Path(tmp) / "one", workers=1)[0]
        two = arena_run(raw, Path(tmp) / "two", workers=2)[0]
    load_after = os.getloadavg()[0]
    cores = os.cpu_count()
    print(f"workers: 24 bot Hex 9x9 matches, {cores} cores, load average {load:.1f} -> {load_after:.1f}")
    print(f"  1 worker (anchor)          {one:8.2f} s")
    print(f"  2 workers                  {two:8.2f} s  speed-up {one / two:5.2f}x (goal >= 1.7x, idle cores)")


if __name__ == "__main__":
    main()
