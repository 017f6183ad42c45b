"""What the City of Gold benchmarks share: the setting, the timer, hexarena's vec runner and the
``city-of-gold`` 0.0.3 package's runner (in process, or in a child process for its threads)."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
_MISSING_SIZES: set[int] = set()
SETTING = {"n_players": 4, "n_pieces": 3, "max_turns": 1000}


def timed(run_batch: Callable[[], int], seconds: float) -> tuple[float, float]:
    """Steps per wall-clock second and per CPU second of this thread (robust on a shared machine)
    of ``run_batch`` (which returns the steps it made), after a short warm-up."""
    end = time.perf_counter() + 0.3
    while time.perf_counter() < end:
        run_batch()
    steps, start, cpu = 0, time.perf_counter(), time.thread_time()
    while time.perf_counter() - start < seconds:
        steps += run_batch()
    return steps / (time.perf_counter() - start), steps / (time.thread_time() - cpu)


def hexarena_runner(
    n: int, seconds: float, backend: str = "cpu", workers: int = 1, validate: bool = False
) -> tuple[float, float]:
    """hexarena's vec runner on ``backend``: ``sample()`` + ``step_sync()`` per batch step."""
    from hexarena.games.cityofgold import get_runner, get_vec_env, get_vec_sampler

    envs, samplers = get_vec_env(n, backend)(validate=validate), get_vec_sampler(n, backend)(0)
    runner = get_runner(n, backend)(envs, samplers, workers)
    envs.reset(0, SETTING["n_players"], SETTING["n_pieces"], "easy", SETTING["max_turns"], False)

    def batch() -> int:
        for _ in range(100):
            runner.sample()
            runner.step_sync()
        return 100 * n

    return timed(batch, seconds)


def package(n: int, seconds: float, threads: int = 1) -> tuple[float, float] | None:
    """0.0.3's vec runner; sequential with one thread, its worker threads otherwise."""
    try:
        import city_of_gold
    except ImportError:
        return None
    try:
        make_runner = city_of_gold.vec.get_runner(n)
    except AttributeError:
        if n not in _MISSING_SIZES:
            print(f"  city-of-gold 0.0.3 has no vector of {n} envs (it compiles sizes up to 256)")
            _MISSING_SIZES.add(n)
        return None
    runner = make_runner(threads)
    runner.make_samplers(0)
    envs = runner.get_envs()
    difficulty = city_of_gold.Difficulty.EASY
    envs.reset(0, SETTING["n_players"], SETTING["n_pieces"], difficulty, SETTING["max_turns"], False)
    if threads > 1:
        runner.start_workers()
        sample, step = runner.sample, runner.step
    else:
        sample, step = runner.sample_seq, runner.step_seq

    def batch() -> int:
        for _ in range(100):
            sample()
            step()
        return 100 * n

    rates = timed(batch, seconds)
    if threads > 1:
        runner.sleep()  # release the busy-waiting workers before the runner goes
    return rates


def package_isolated(n: int, seconds: float, threads: int) -> tuple[float, float] | None:
    """:func:`package` in a child process: 0.0.3's worker threads corrupt its heap when a second
    threaded runner is made in the same process (seen here: "corrupted size vs. prev_size")."""
    code = "import json; from benchmarks.cityofgold_common import package; "
    code += f"print(json.dumps(package({n}, {seconds}, {threads})))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    if done.returncode != 0:
        why = f"signal {-done.returncode}" if done.returncode < 0 else done.stderr.strip().splitlines()[-1]
        print(f"  city-of-gold 0.0.3, {n} envs, {threads} threads: failed ({why})")
        return None
    *said, last = done.stdout.strip().splitlines()
    if said and n not in _MISSING_SIZES:
        print("\n".join(said))
        _MISSING_SIZES.add(n)
    got = json.loads(last)
    return None if got is None else (got[0], got[1])
