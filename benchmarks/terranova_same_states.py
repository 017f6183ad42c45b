"""Differential check for speed work on Terra Nova's step: the same states, bit for bit.

``python -m benchmarks.terranova_same_states [--ref main]`` plays the same seeded random games with
the simulator of git commit ``ref`` (exported like the benchmark's anchor) and with this tree's,
each in a subprocess, and compares a digest of every leaf of the states, trackers, metrics,
observations, rewards, done flags and executed actions after every step. The games: maps 0 and 1
at batch 2 (turn cap 300), and map 2 alone at batch 1 with a turn cap of 3 rounds, so that games
finish and restart inside the run. A refactor that changes no rule prints ``same``; otherwise the
first step and leaves that differ, and it exits with status 1.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile

from benchmarks.terranova_bench import ROOT, export_anchor

GAMES = ((("0", "1"), 300, 40), (("2",), 3, 40))  # (map seeds, turn cap, steps)


def play(seeds: tuple[str, ...], turn_cap: int, steps: int) -> list[dict[str, str]]:
    """Per step, a sha256 of every output leaf by its path (runs in the tree on ``sys.path``)."""
    import jax
    import numpy as np

    from hexarena.games.terranova.engine.mapgen import generate
    from hexarena.games.terranova.engine.simulator import build_simulator
    from hexarena.games.terranova.engine.spaces import random_actions

    maps = [generate(int(s)) for s in seeds]
    step, games, tracker, metrics, ids, *_ = build_simulator(
        maps, "duplicate", jax.random.PRNGKey(7), turn_cap=turn_cap
    )
    digests = []
    for i in range(steps):
        actions = random_actions(jax.random.PRNGKey(1000 + i), games.turn.shape)
        out = step(games, actions, tracker, metrics, ids)
        games, tracker, metrics, ids = out[:4]
        leaves = jax.tree_util.tree_flatten_with_path(out)[0]
        digests.append(
            {
                jax.tree_util.keystr(path): hashlib.sha256(np.ascontiguousarray(leaf).tobytes()).hexdigest()
                for path, leaf in leaves
            }
        )
    return digests


def run_tree(src: str, game: tuple) -> list[dict[str, str]]:
    """:func:`play` on ``game`` with the package under folder ``src``, in a subprocess."""
    env = {**os.environ, "PYTHONPATH": f"{src}{os.pathsep}{ROOT}"}
    code = (
        "import jax, json, sys; jax.config.update('jax_compilation_cache_dir', sys.argv[1]); "
        "jax.config.update('jax_persistent_cache_min_compile_time_secs', 0); "
        "from benchmarks.terranova_same_states import play; "
        f"print(json.dumps(play(*{game!r})))"
    )
    # JAX's own cache, in the folder the Terra Nova tests use (tests/terranova/conftest.py)
    cache = os.environ.get("HEXARENA_JAX_CACHE") or os.path.join(tempfile.gettempdir(), "xla-same-states")
    out = subprocess.run([sys.executable, "-c", code, cache], env=env, capture_output=True, text=True)
    if out.returncode:
        last = out.stderr.strip().splitlines()[-1:] or [f"exit status {out.returncode}"]
        raise SystemExit(f"the run in {src} failed: {last[0]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def compare(ref_digests: list[dict[str, str]], ours: list[dict[str, str]]) -> str | None:
    """None when every step's digests agree, else where they first differ."""
    for i, (a, b) in enumerate(zip(ref_digests, ours, strict=True)):
        if a.keys() != b.keys():
            return f"step {i}: the outputs differ in structure ({sorted(set(a) ^ set(b))[:5]})"
        differ = [k for k in a if a[k] != b[k]]
        if differ:
            return f"step {i}: {len(differ)} leaves differ, e.g. {differ[:6]}"
    return None


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Terra Nova step: same states as another commit.")
    parser.add_argument("--ref", default="main", help="git commit to compare with (default main)")
    args = parser.parse_args(argv)
    failed = False
    with tempfile.TemporaryDirectory() as tmp:
        export_anchor(args.ref, tmp)
        for game in GAMES:
            ours, theirs = run_tree(str(ROOT / "src"), game), run_tree(f"{tmp}/src", game)
            verdict = compare(theirs, ours)
            leaves = len(ours[0])
            print(
                f"maps {','.join(game[0])} turn cap {game[1]}, {game[2]} steps, {leaves} leaves: "
                f"{verdict or 'same'}",
                flush=True,
            )
            failed |= verdict is not None
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
