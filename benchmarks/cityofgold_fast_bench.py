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

    python -m benchmarks.cityofgold_fast_bench                       # CPU: 16 and 256 envs
    python -m benchmarks.cityofgold_fast_bench --workers 2 --envs 256,1024
    python -m benchmarks.cityofgold_fast_bench --jax 1024,4096        # also the JAX backend
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import statistics
import sys

from benchmarks.cityofgold_common import SETTING, hexarena_runner, package, package_isolated


def compare_cpu(sizes: list[int], seconds: float, repeats: int, workers: int = 1) -> None:
    print(f"load average before: {os.getloadavg()}, cpus: {os.cpu_count()}, workers: {workers}")
    for n in sizes:
        ours, theirs = [], []
        for _ in range(repeats):
            ours.append(hexarena_runner(n, seconds, "cpu", workers))
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
