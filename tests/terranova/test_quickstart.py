"""The spec's quick start as a user runs it: the map generator writes ``.gamestate`` pickles, and the
script in docs/terranova.md (the spec's, with hexarena's import path) loads them and steps."""

from __future__ import annotations

import contextlib
import io
import os
import pickle
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from hexarena.games.terranova.engine.mapgen import GameMap, generate, write_pool

ROOT = Path(__file__).resolve().parents[2]


def _mapgen(*args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    cmd = [sys.executable, "-m", "hexarena.games.terranova.engine.mapgen", *args]
    return subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=300)


def quick_start_script() -> str:
    """The python block under "The spec's quick start" in docs/terranova.md."""
    text = (ROOT / "docs" / "terranova.md").read_text()
    section = text.split("## The spec's quick start", 1)[1].split("\n## ", 1)[0]
    return re.search(r"```python\n(.*?)```", section, re.S).group(1)


def test_mapgen_cli_writes_gamestate_pickles(tmp_path):
    out = _mapgen("--start_seed", "3", "--num_maps", "2", "--format", "gamestate", "--out", str(tmp_path))
    assert out.returncode == 0, out.stderr
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == ["map_3.gamestate", "map_4.gamestate"]
    with open(tmp_path / "map_4.gamestate", "rb") as f:
        loaded = pickle.load(f)
    fresh = generate(4)
    assert isinstance(loaded, GameMap) and loaded.seed == 4
    for name in ("elevation", "terrain", "resource", "cs_owner", "starts", "cs_sites"):
        np.testing.assert_array_equal(getattr(loaded, name), getattr(fresh, name))


@pytest.mark.parametrize(
    ("args", "message"),
    [(("--format", "pickle"), "invalid choice"), (("--num-maps", "0"), "at least 1")],
)
def test_mapgen_cli_refuses_bad_options(tmp_path, args, message):
    out = _mapgen("--out", str(tmp_path), *args)
    assert out.returncode == 2 and message in out.stderr
    assert not list(tmp_path.iterdir())


def test_write_pool_names_an_unknown_format(tmp_path):
    with pytest.raises(ValueError, match="format must be one of"):
        write_pool(0, 1, tmp_path, "pickle")


def test_the_documented_quick_start_runs_as_written(tmp_path, monkeypatch):
    write_pool(0, 1, tmp_path, "gamestate")
    (tmp_path / "notes.txt").write_text("not a map: the script skips it")
    argv = ["quickstart.py", "--seed", "0", "--num_steps", "1", "--map_folder", str(tmp_path)]
    monkeypatch.setattr(sys, "argv", [*argv, "--distributed_strategy", "duplicate"])
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(quick_start_script(), "quickstart.py", "exec"), {"__name__": "__main__"})
    assert printed.getvalue().strip() == "rounds played: 1"


@pytest.mark.slow
def test_the_quick_start_in_its_own_process(tmp_path):
    assert (
        _mapgen("--num-maps", "2", "--format", "gamestate", "--out", str(tmp_path / "maps")).returncode == 0
    )
    script = tmp_path / "quickstart.py"
    script.write_text(quick_start_script())
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT / "src"),
        "JAX_COMPILATION_CACHE_DIR": os.environ["HEXARENA_JAX_CACHE"],
    }
    args = [
        "--seed",
        "1",
        "--num_steps",
        "2",
        "--map_folder",
        str(tmp_path / "maps"),
        "--distributed_strategy",
        "split",
    ]
    out = subprocess.run(
        [sys.executable, str(script), *args], env=env, capture_output=True, text=True, timeout=900
    )
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip().splitlines()[-1] == "rounds played: 2"
