"""City of Gold batched engines: the numba CPU backend next to ``city-of-gold`` 0.0.3, in one run.

Same setting for both: 4 players, 3 pieces, EASY, a 1,000-turn cap, uniform random legal actions
(hexarena: uniform over the legal flat actions; 0.0.3: its own per-head sampler), ``n`` envs
stepped sequentially from Python one env-step at a time (``sample`` + ``step`` per step, both
sides). Env-steps per second are summed over the envs, per wall-clock second and per CPU second
of the stepping thread (both sides are single-threaded, so CPU time is the fairer measure on a
machine shared with other work). Runs alternate between the two packages and the median of
``--repeats`` runs is reported; the load average is printed. ``--workers W`` (W > 1) steps
hexarena's envs in W runs on numba's threads and 0.0.3's with W worker threads (then only the
wall-clock figure means anything).

    python benchmarks/cityofgold_fast_bench.py                       # CPU: 16 and 256 envs
    python benchmarks/cityofgold_fast_bench.py --workers 2 --envs 256,1024
    python benchmarks/cityofgold_fast_bench.py --jax 1024,4096        # also the JAX backend
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import statistics
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


def hexarena_cpu(n: int, seconds: float, workers: int = 1) -> tuple[float, float]:
    from hexarena.games.cityofgold import get_runner, get_vec_env, get_vec_sampler

    envs, samplers = get_vec_env(n, "cpu")(validate=False), get_vec_sampler(n, "cpu")(0)
    runner = get_runner(n, "cpu")(envs, samplers, workers)
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
    code = "import json; from benchmarks.cityofgold_fast_bench import package; "
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


def compare_cpu(sizes: list[int], seconds: float, repeats: int, workers: int = 1) -> None:
    print(f"load average before: {os.getloadavg()}, cpus: {os.cpu_count()}, workers: {workers}")
    for n in sizes:
        ours, theirs = [], []
        for _ in range(repeats):
            ours.append(hexarena_cpu(n, seconds, workers))
            got = package(n, seconds) if workers == 1 else package_isolated(n, seconds, workers)
            if got is not None:
                theirs.append(got)
        for label, pick in (("wall", 0), ("cpu ", 1))[: 1 if workers > 1 else 2]:
            a = statistics.median(r[pick] for r in ours)
            line = f"n={n:4d} {label} hexarena cpu (numba): {a:12,.0f} env-steps/s"
            if theirs:
                b = statistics.median(r[pick] for r in theirs)
                line += f"   city-of-gold 0.0.3: {b:12,.0f} env-steps/s   ratio {a / b:.2f}"
            elif importlib.util.find_spec("city_of_gold") is None:
                line += "   city-of-gold 0.0.3: not installed (make bench installs it)"
            else:
                line += "   city-of-gold 0.0.3: no figure (see above)"
            print(line, flush=True)
    print(f"load average after: {os.getloadavg()}")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=2.0)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--envs", default="16,256", help="comma-separated CPU batch sizes")
    parser.add_argument("--workers", type=int, default=1, help="threads on both sides (1: sequential)")
    parser.add_argument("--jax", default="", help="comma-separated JAX batch sizes (empty: skip)")
    parser.add_argument("--jax-steps", type=int, default=100, help="steps per jitted lax.scan rollout")
    args = parser.parse_args(argv or [])
    stepping = "sequential stepping" if args.workers == 1 else f"{args.workers} threads on each side"
    print(f"setting: {SETTING}, EASY, uniform random legal actions, {stepping}")
    compare_cpu([int(n) for n in args.envs.split(",") if n], args.seconds, args.repeats, args.workers)
    if args.jax:
        from benchmarks.cityofgold_jax_bench import _cache, report_jax

        _cache()
        report_jax([int(n) for n in args.jax.split(",")], args.jax_steps, args.repeats)


if __name__ == "__main__":
    main(sys.argv[1:])
