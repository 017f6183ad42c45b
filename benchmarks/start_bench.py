"""Start-up costs a user meets: ``hexarena list``, the first Terra Nova move, a 30-round replay.

Run ``python -m benchmarks start``. Every figure is a fresh process timed from the outside (wall
seconds, and CPU seconds of the child, which a loaded machine inflates less), next to its anchor
measured in the same run:

* ``list``: the command, against the old way of listing (importing every game and making its demo
  game, which compiles Terra Nova's JAX functions).
* first move of ``hexarena play terranova``: with a warm cache (the second run on a machine),
  against the same process with the caches switched off (``HEXARENA_JAX_CACHE=off``); and the
  command itself with a person as red, timed until its first ``red>`` prompt, warm.
* ``hexarena replay`` of a 30-round Terra Nova record, warm, against the caches switched off.

The caches go to a temporary folder, so the user's own cache is neither used nor touched.
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

FIRST_MOVE = """
import sys, time
from hexarena.core.config import parse_config
from hexarena.core.manager import GameManager
raw = {"game": {"name": "terranova", "seed": 0, "params": {"turn_cap": 2}},
       "players": [{"type": "random", "roles": [r], "seed": i}
                   for i, r in enumerate(("red", "blue", "green", "yellow", "purple", "orange"))],
       "manager": {"max_rounds": 1}, "output": {"dir": sys.argv[1]}}
def on_move(state, role, text):
    print(f"FIRST {time.time():.3f}", flush=True)
    raise SystemExit(0)
GameManager(parse_config(raw, "bench"), raw_config=raw, on_move=on_move).start()
"""

OLD_LIST = """
from hexarena.core.registry import game_class, list_games
for name in list_games():
    cls = game_class(name)
    cls.new(seed=0, **cls.demo_params).all_roles()
"""


def _run(args: list[str], env: dict[str, str]) -> tuple[float, float, str]:
    """(wall s, child CPU s, stdout) of one process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.time()
    out = subprocess.run(args, env=env, capture_output=True, text=True, check=True, timeout=900)
    wall = time.time() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, out.stdout


def _first_move(env: dict[str, str], folder: Path) -> float:
    start = time.time()
    _wall, _cpu, out = _run([sys.executable, "-c", FIRST_MOVE, str(folder)], env)
    stamp = next(line for line in out.splitlines() if line.startswith("FIRST "))
    return float(stamp.split()[1]) - start


def _first_prompt(hexarena: str, env: dict[str, str], folder: Path) -> float:
    """Seconds from launching ``hexarena play terranova`` with a person as red to its prompt."""
    humans = "human," + ",".join(["random"] * 5)
    args = [hexarena, "play", "terranova", "--players", humans, "--max-rounds", "1", "--out", str(folder)]
    start = time.time()
    pipe = subprocess.PIPE
    child = subprocess.Popen(args, env=env, stdin=pipe, stdout=pipe, stderr=subprocess.STDOUT)
    seen = b""
    while b"red>" not in seen:
        chunk = os.read(child.stdout.fileno(), 65536)  # type: ignore[union-attr]
        if not chunk:
            raise RuntimeError(f"no prompt: {seen[-500:]!r}")
        seen += chunk
    took = time.time() - start
    child.communicate(b"quit\n", timeout=120)
    return took


def main() -> None:
    hexarena = str(Path(sys.executable).with_name("hexarena"))
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        warm = {**os.environ, "HEXARENA_JAX_CACHE": str(root / "cache")}
        off = {**os.environ, "HEXARENA_JAX_CACHE": "off"}
        wall, cpu, _ = _run([hexarena, "list"], warm)
        old_wall, old_cpu, _ = _run([sys.executable, "-c", OLD_LIST], off)
        print(f"hexarena list: {wall:.2f} s wall ({cpu:.2f} s CPU); making every game: {old_wall:.2f} s")
        print(f"  ratio {old_wall / wall:.1f}x faster (CPU {old_cpu:.2f} s -> {cpu:.2f} s)")
        cold = _first_move(off, root / "r0")
        first = _first_move(warm, root / "r1")  # fills the cache
        second = _first_move(warm, root / "r2")
        print(
            f"terranova first move: {second:.2f} s with a warm cache; {first:.2f} s filling it; "
            f"{cold:.2f} s with caches off (ratio {cold / second:.1f}x)"
        )
        prompt = _first_prompt(hexarena, warm, root / "h1")
        print(f"hexarena play terranova, a person as red: first prompt after {prompt:.2f} s (warm cache)")
        record = root / "tn30"
        _run([hexarena, "play", "terranova", "--quiet", "--out", str(record)], warm)
        wall, cpu, _ = _run([hexarena, "replay", str(record)], warm)
        off_wall, off_cpu, _ = _run([hexarena, "replay", str(record)], off)
        print(
            f"replay of 30 rounds (180 moves): {wall:.2f} s wall ({cpu:.2f} s CPU) warm; "
            f"{off_wall:.2f} s ({off_cpu:.2f} s CPU) with caches off (ratio {off_wall / wall:.1f}x)"
        )


if __name__ == "__main__":
    main()
