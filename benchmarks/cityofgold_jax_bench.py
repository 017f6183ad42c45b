"""City of Gold JAX backend: compile time, env-steps per second and memory per env, by batch size.

4 players, 3 pieces, EASY, a 1,000-turn cap; uniform random legal actions drawn on the device;
``--steps`` batch steps fused in one ``lax.scan`` (one jitted call), timed after a warm-up call.
Memory per env is the size of the state pytree (observation included) divided by the batch;
the board pool (at most 1,024 boards) is reported apart. Optionally runs ``city-of-gold`` 0.0.3
in the same command with all host cores (``--package-threads``), for the GPU comparison.

    python -m benchmarks.cityofgold_jax_bench --sizes 256,1024,4096 --steps 100
    python -m benchmarks.cityofgold_jax_bench --sizes 1024,4096,16384,65536 --package-threads 0
    python -m benchmarks.cityofgold_jax_bench --sizes 256,1024 --cost   # XLA's traffic estimate
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import re
import statistics
import time

import jax

from benchmarks.cityofgold_common import SETTING


def _cache() -> None:
    """Use the repo's persistent compilation cache unless told otherwise."""
    folder = os.environ.get("HEXARENA_JAX_CACHE", os.path.join(os.path.dirname(__file__), "..", ".jax_cache"))
    jax.config.update("jax_compilation_cache_dir", os.path.abspath(folder))


def report_jax(sizes: list[int], steps: int, repeats: int) -> None:
    from hexarena.games.cityofgold.fast import jax_engine as J
    from hexarena.games.cityofgold.fast.boards import BoardPool, default_pool_size

    print(f"jax {jax.__version__} on {jax.devices()[0].platform}: {jax.devices()}")
    for n in sizes:
        start = time.perf_counter()
        pool = BoardPool(0, default_pool_size(n), SETTING["n_pieces"], "easy")
        boards = J.Boards.from_pool(pool)
        made = time.perf_counter() - start
        cfg = J.Config(SETTING["n_players"], SETTING["max_turns"])
        start = time.perf_counter()
        state = J.batch_init(n, boards, cfg, pool.size)
        jax.block_until_ready(state)
        init_s = time.perf_counter() - start
        key = jax.random.PRNGKey(0)
        start = time.perf_counter()
        state, _ = J.rollout(state, key, boards, cfg, pool.size, steps)
        jax.block_until_ready(state)
        first = time.perf_counter() - start
        rates, finished = [], 0
        for r in range(repeats):
            key = jax.random.fold_in(key, r + 1)
            start = time.perf_counter()
            state, done = J.rollout(state, key, boards, cfg, pool.size, steps)
            jax.block_until_ready(state)
            rates.append(n * steps / (time.perf_counter() - start))
            finished += int(done)
        state_bytes = sum(x.nbytes for x in jax.tree.leaves(state))
        board_bytes = sum(x.nbytes for x in jax.tree.leaves(boards))
        print(
            f"n={n:6d}  {statistics.median(rates):12,.0f} env-steps/s (median of {repeats} x {steps} steps)"
            f"  first call (compile + run) {first:6.1f} s  init {init_s:5.1f} s  pool of {pool.size}"
            f" built in {made:5.1f} s  state {state_bytes / n / 1024:5.1f} KiB/env"
            f"  pool {board_bytes / 2**20:5.1f} MiB  games finished {finished}",
            flush=True,
        )


def report_cost(sizes: list[int]) -> None:
    """XLA's own estimate for the compiled batch step: bytes of memory traffic and flops per
    env-step, on this machine's backend, and its while loops (on a GPU each iteration waits for
    the host to read the loop's condition). A rough proxy for a GPU: fusion differs between
    backends, and XLA counts a gather's whole table and a scatter's whole operand (the batch
    step scatters the pawn marks into the carried map in place), so not a bound."""
    from hexarena.games.cityofgold.fast import jax_engine as J
    from hexarena.games.cityofgold.fast.boards import BoardPool, default_pool_size

    for n in sizes:
        pool = BoardPool(0, default_pool_size(n), SETTING["n_pieces"], "easy")
        boards, cfg = J.Boards.from_pool(pool), J.Config(SETTING["n_players"], SETTING["max_turns"])
        with jax.enable_x64(True):
            state = J.batch_init(n, boards, cfg, pool.size)
            actions = jax.numpy.zeros(n, jax.numpy.int32)
            compiled = J._batch_step.lower(state, actions, boards, cfg, pool.size).compile()
        cost, text = compiled.cost_analysis(), compiled.as_text()
        cost = cost[0] if isinstance(cost, list) else cost
        loops = len(re.findall(r" while\(", text))
        traffic, flops = cost.get("bytes accessed", 0.0) / n, cost.get("flops", 0.0) / n
        state_bytes = sum(x.nbytes for x in jax.tree.leaves(state)) / n
        print(
            f"n={n:6d}  XLA estimate per env-step: {traffic / 1024:8.1f} KiB of memory traffic"
            f" ({traffic / state_bytes:4.1f}x the state), {flops:10,.0f} flops;"
            f" 3.35 TB/s (an H100's bandwidth) over it: {3.35e12 / traffic:14,.0f} env-steps/s;"
            f" {loops} while loop(s)",
            flush=True,
        )


def package_all_cores(n: int, seconds: float, threads: int) -> tuple[float, float] | None:
    """0.0.3's runner with ``threads`` workers (1: sequential), for the GPU comparison; threaded
    runs in a child process (see :func:`.cityofgold_fast_bench.package_isolated`)."""
    from benchmarks.cityofgold_common import package, package_isolated

    return package(n, seconds) if threads <= 1 else package_isolated(n, seconds, threads)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="256,1024,4096")
    parser.add_argument("--steps", type=int, default=100)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--package-threads", type=int, default=-1, help="-1: skip 0.0.3; 0: all cores")
    parser.add_argument("--cost", action="store_true", help="XLA's traffic estimate instead of timing")
    args = parser.parse_args(argv or [])
    _cache()
    sizes = [int(n) for n in args.sizes.split(",")]
    if args.cost:
        report_cost(sizes)
        return
    print(f"setting: {SETTING}, EASY, uniform random legal actions on the device")
    report_jax(sizes, args.steps, args.repeats)
    if args.package_threads >= 0:
        threads = args.package_threads or os.cpu_count() or 1
        for workers in sorted({1, threads}):  # 0.0.3 compiles vector sizes up to 256
            got = package_all_cores(256, 3.0, workers)
            missing = "not installed" if importlib.util.find_spec("city_of_gold") is None else "no figure"
            rate = missing if got is None else f"{got[0]:,.0f} env-steps/s (wall)"
            print(f"city-of-gold 0.0.3, n=256, {workers} thread(s): {rate}")


if __name__ == "__main__":
    import sys

    main(sys.argv[1:])
