"""A local Ray keeps to 127.0.0.1 and leaves nothing behind a killed arena (issue 28 item 2).

The watcher test is cheap (no Ray): an "arena" process starts the watcher, then a child, and is
killed with -9; the orphaned child must be stopped. The Ray test (slow: Ray takes ~10 s to start)
runs ``hexarena arena --ray``, lists the listening sockets of every process under it with
``ss -ltnp`` while a match runs on Ray, then kills the arena with -9 and waits for them all to go.
"""

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from hexarena.arena import raywatch

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").is_file(), reason="needs /proc (Linux)")


def spawn(code: str) -> tuple[subprocess.Popen, dict]:
    """Run ``code`` in a fresh interpreter; it prints one JSON line when ready."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), str(ROOT)])}
    proc = subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(code)],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    line = proc.stdout.readline()
    assert line, proc.stderr.read()
    return proc, json.loads(line)


def gone(pids, timeout: float = 30.0) -> list[int]:
    """The pids still alive after waiting up to ``timeout`` seconds for them to end."""
    deadline = time.monotonic() + timeout
    alive = list(pids)
    while alive and time.monotonic() < deadline:
        alive = [p for p in alive if Path(f"/proc/{p}").exists() and not _zombie(p)]
        time.sleep(0.1)
    return alive


def _zombie(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z"
    except OSError:
        return True


def test_the_watcher_stops_what_a_killed_arena_left_behind():
    arena, info = spawn(
        f"""
        import json, subprocess, sys, time
        watcher = subprocess.Popen([sys.executable, {str(Path(raywatch.__file__))!r}, str(__import__("os").getpid())])
        time.sleep(0.3)  # the watcher notes what was there before it (nothing of Ray's)
        agent = subprocess.Popen(["sleep", "600"], start_new_session=True)  # outlives its parent
        time.sleep(1.5)  # the watcher has seen it
        print(json.dumps({{"watcher": watcher.pid, "agent": agent.pid}}), flush=True)
        time.sleep(600)
        """
    )
    os.kill(arena.pid, signal.SIGKILL)
    arena.wait()
    assert gone([info["agent"], info["watcher"]]) == []


def comm(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/comm").read_text().strip()
    except OSError:
        return ""


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("ss") is None, reason="needs ss (iproute2)")
def test_arena_ray_listens_on_loopback_only_and_dies_with_the_arena(tmp_path):
    """``hexarena arena --ray`` while a match runs on a Ray worker: every socket that any process
    under the arena listens on is a loopback one; after ``kill -9`` of the arena none is left."""
    pytest.importorskip("ray")
    config = {
        "name": "ray",
        "players": [
            {"name": "slow", "type": "callable", "function": "tests.helpers.slow_player:slow_first_legal"},
            {"name": "random", "type": "random"},
        ],
        "games": [{"name": "hex", "params": {"size": 7}}],
        "schedule": {"games_per_pairing": 4},
    }
    path = tmp_path / "arena.json"
    path.write_text(json.dumps(config))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), str(ROOT)])}
    cli = [sys.executable, "-c", "from hexarena.cli import main; main()"]
    arena = subprocess.Popen(
        [*cli, "arena", str(path), "--out", str(tmp_path / "out"), "--ray", "--quiet"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 180
        under: dict[int, int] = {}
        while time.monotonic() < deadline and arena.poll() is None:  # until a match runs on Ray
            under = raywatch.descendants(arena.pid)
            if any(comm(p).startswith("ray::play") for p in under):
                break
            time.sleep(0.2)
        assert any(comm(p) == "raylet" for p in under), [comm(p) for p in under]
        ours = {arena.pid, *under}
        listening = subprocess.run(["ss", "-ltnpH"], capture_output=True, text=True, check=True).stdout
        sockets = []
        for line in listening.splitlines():
            pids = {int(p) for p in re.findall(r"pid=(\d+)", line)}
            if pids & ours:
                sockets.append(line.split()[3])
        assert len(sockets) >= 3, listening  # the GCS, the raylet, the workers' servers
        for address in sockets:
            host = address.rsplit(":", 1)[0]
            assert host in ("127.0.0.1", "[::ffff:127.0.0.1]", "[::1]"), (address, listening)
    finally:
        os.kill(arena.pid, signal.SIGKILL)
        arena.wait()
    assert gone(under) == []
