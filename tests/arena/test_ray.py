"""The Ray path: a local Ray with 2 CPUs gives the same table as the process pool.

The local Ray listens on 127.0.0.1 only (checked in test_ray_loopback.py).
"""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("ray")

HERE = Path(__file__).parent
ROOT = HERE.parents[1]


def test_ray_gives_the_same_table_as_the_process_pool(tmp_path):
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), *sys.path])}
    run = subprocess.run(
        [sys.executable, str(HERE / "ray_vs_pool.py"), str(tmp_path)],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    result = json.loads(run.stdout.strip().splitlines()[-1])
    assert result["played"] == [12, 12]
    assert result["boards"][0] == result["boards"][1]
    # the records were shipped back from the Ray workers into the arena folder
    for folder in ("pool", "ray"):
        records = sorted(p.name for p in (tmp_path / folder / "matches").iterdir())
        assert len(records) == 12
    first = records[0]
    pool_result = json.loads((tmp_path / "pool" / "matches" / first / "result.json").read_text())
    ray_result = json.loads((tmp_path / "ray" / "matches" / first / "result.json").read_text())
    assert _without_clock(pool_result) == _without_clock(ray_result)


def _without_clock(result: dict) -> dict:
    """A match's result less when and how fast it ran (which differ between any two runs)."""
    players = [
        {**p, "usage": {k: v for k, v in p["usage"].items() if k != "latency_s"}} for p in result["players"]
    ]
    return {**result, "time_s": 0, "finished_at": 0, "players": players}
