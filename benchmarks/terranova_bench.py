"""Terra Nova speed: map generation, step compile time, seconds per player turn, memory per game.

Run ``python -m benchmarks terranova`` (CPU unless JAX sees an accelerator). Compile times are
measured with the persistent compilation cache switched off, so they are cold numbers. Each
figure is printed next to the anchor's, measured in the same run: the simulator of commit
``ANCHOR_REF`` (or of each commit in ``TERRANOVA_ANCHOR_REF``, comma-separated; empty skips it),
exported from git into a temporary folder and measured by this same code in a subprocess. The
default anchor is main just before issue 24's rule fixes, whose cost they must keep within 5 %;
an anchor must have the package's rooms layout (``engine/...``), which this code imports.
``cpu_s_per_step`` (process CPU time, all threads) is the steadier figure on a shared machine.

Large batches alone (no anchor): ``python -m benchmarks.terranova_bench --sizes 256,1024,4096``,
which ``bash benchmarks/gpu.sh terranova`` runs on a GPU machine.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import jax
import numpy as np

from hexarena.games.terranova.engine.mapgen import generate
from hexarena.games.terranova.engine.simulator import build_simulator
from hexarena.games.terranova.engine.spaces import random_actions
from hexarena.games.terranova.engine.state import state_bytes

BATCHES = (1, 64)
STEPS = 60
MAP_POOL = 64  # distinct maps; larger batches cycle them (each game has its own key)
ANCHOR_REF = "905da78"  # the simulator before issue 24's rule fixes (engine/ rooms layout)
ENGINE = "src/hexarena/games/terranova/engine"
NEEDED = ("mapgen.py", "simulator.py", "spaces.py", "state.py")  # the modules imported above
ROOT = Path(__file__).resolve().parents[1]


def _nbytes(tree: object) -> int:
    return int(sum(np.asarray(x).nbytes for x in jax.tree_util.tree_leaves(tree)))


def bench_mapgen(n: int = 10) -> float:
    start = time.perf_counter()
    for seed in range(n):
        generate(seed)
    return (time.perf_counter() - start) / n


def bench_batch(batch: int, steps: int = STEPS) -> dict[str, float]:
    pool = [generate(s) for s in range(min(batch, MAP_POOL))]
    maps = [pool[i % len(pool)] for i in range(batch)]
    t0 = time.perf_counter()
    sim = build_simulator(maps, "duplicate", jax.random.PRNGKey(0))
    step, games, tracker, metrics, ids, obs, _mesh, _sh = sim
    built = time.perf_counter() - t0
    lead = games.turn.shape
    actions = [random_actions(jax.random.PRNGKey(i), lead) for i in range(8)]
    t0 = time.perf_counter()
    compiled = step.lower(games, actions[0], tracker, metrics, ids).compile()
    compile_s = time.perf_counter() - t0
    out = compiled(games, actions[0], tracker, metrics, ids)
    jax.block_until_ready(out)
    games, tracker, metrics, ids = out[:4]
    t0, c0 = time.perf_counter(), time.process_time()
    for i in range(steps):
        games, tracker, metrics, ids, obs, *_ = compiled(games, actions[i % 8], tracker, metrics, ids)
    jax.block_until_ready(games)
    per_step = (time.perf_counter() - t0) / steps
    cpu_per_step = (time.process_time() - c0) / steps
    one = jax.tree_util.tree_map(lambda x: np.asarray(x)[0, 0], games)
    peak = (jax.devices()[0].memory_stats() or {}).get("peak_bytes_in_use", 0)  # accelerators only
    return {
        "build_simulator_s": built,
        "compile_s": compile_s,
        "s_per_step": per_step,
        "cpu_s_per_step": cpu_per_step,
        "s_per_player_turn_per_game": per_step / batch,
        "player_turns_per_s": batch / per_step,
        "state_bytes_per_game": state_bytes(one),
        "tracker_bytes_per_game": _nbytes(tracker) // batch,
        "obs_bytes_per_game": _nbytes(obs) // batch,
        "action_bytes_per_game": _nbytes(actions[0]) // batch,
        "device_peak_bytes_per_game": peak / batch,
    }


def export_anchor(ref: str, into: str) -> None:
    """Writes commit ``ref``'s ``src`` into folder ``into``; a ref git does not know, or one without
    the modules this benchmark imports, exits with a one-line message before anything is timed."""
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", ref, "src"], capture_output=True)
    if archive.returncode:
        reason = archive.stderr.decode(errors="replace").strip().splitlines()[-1:] or ["git failed"]
        raise SystemExit(f"anchor {ref!r}: git archive failed: {reason[0]}")
    subprocess.run(["tar", "-x", "-C", into], input=archive.stdout, check=True)
    missing = [m for m in NEEDED if not (Path(into) / ENGINE / m).exists()]
    if missing:
        raise SystemExit(
            f"anchor {ref!r} lacks {ENGINE}/{', '.join(missing)} (it predates the engine/ layout);"
            " set TERRANOVA_ANCHOR_REF to a later commit, or to '' to skip the anchor"
        )


def anchor_batch(src: str, batch: int) -> dict[str, float]:
    """``bench_batch(batch)`` on the simulator exported into folder ``src``, in a subprocess."""
    env = {**os.environ, "PYTHONPATH": f"{src}/src{os.pathsep}{ROOT}"}
    code = (
        "import jax, json; jax.config.update('jax_enable_compilation_cache', False); "
        f"from benchmarks.terranova_bench import bench_batch; print(json.dumps(bench_batch({batch})))"
    )
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    if out.returncode:
        last = out.stderr.strip().splitlines()[-1:] or [f"exit status {out.returncode}"]
        raise SystemExit(f"anchor run failed at batch {batch}: {last[0]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    jax.config.update("jax_enable_compilation_cache", False)
    refs = [r.strip() for r in os.environ.get("TERRANOVA_ANCHOR_REF", ANCHOR_REF).split(",") if r.strip()]
    print(f"devices: {jax.devices()}; load average {os.getloadavg()[0]:.1f}; anchors: {refs or 'none'}")
    with tempfile.TemporaryDirectory() as tmp:
        folders = {ref: f"{tmp}/{i}" for i, ref in enumerate(refs)}
        for ref, folder in folders.items():
            os.mkdir(folder)
            export_anchor(ref, folder)
        print(f"map generation: {bench_mapgen():.3f} s per map")
        for batch in BATCHES:
            result = bench_batch(batch)
            anchors = {ref: anchor_batch(folder, batch) for ref, folder in folders.items()}
            print(f"batch {batch}:", flush=True)
            for k, v in result.items():
                line = f"  {k:28s} {v:12.4g}"
                for ref, anchor in anchors.items():
                    if anchor.get(k):
                        line += f"   {ref} {anchor[k]:10.4g} ratio {v / anchor[k]:.2f}"
                print(line, flush=True)
        print(f"load average at the end {os.getloadavg()[0]:.1f}")


def batched(argv: list[str] | None = None) -> None:
    """``python -m benchmarks.terranova_bench --sizes 256,1024,4096``: this build alone (no anchor) at
    the given batch sizes, one line per size (``benchmarks/gpu.sh terranova`` runs it on a GPU)."""
    parser = argparse.ArgumentParser(description="Terra Nova at large batches (GPU figures).")
    parser.add_argument("--sizes", default="256,1024,4096", help="comma-separated batch sizes")
    parser.add_argument("--steps", type=int, default=30, help="timed env steps per size")
    args = parser.parse_args(argv)
    sizes = [int(x) for x in args.sizes.split(",") if x.strip()]
    if not sizes or min(sizes) < 1 or args.steps < 1:
        parser.error("--sizes needs positive batch sizes and --steps a positive count")
    jax.config.update("jax_enable_compilation_cache", False)
    print(f"devices: {jax.devices()}", flush=True)
    for batch in sizes:
        r = bench_batch(batch, args.steps)
        memory = r["state_bytes_per_game"] + r["tracker_bytes_per_game"] + r["obs_bytes_per_game"]
        memory += r["action_bytes_per_game"]
        print(
            f"batch {batch:5d}: {r['player_turns_per_s']:10.1f} player turns/s  "
            f"compile {r['compile_s']:6.1f} s  build {r['build_simulator_s']:6.1f} s  "
            f"state+tracker+obs+action {memory / 1024:7.1f} KiB/game  "
            f"device peak {r['device_peak_bytes_per_game'] / 1024:7.1f} KiB/game",
            flush=True,
        )


if __name__ == "__main__":
    batched()
