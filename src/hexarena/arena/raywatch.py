"""Stops what a local Ray left behind when the arena that started it dies without stopping it.

Ray's own processes end with the driver, except its dashboard and runtime-env agents, which a
``kill -9`` of the driver leaves running (listening, holding memory). The arena starts this
script (as a file, so nothing of hexarena is imported) before ``ray.init``: it notes every
process started under the arena afterwards, and once the arena is gone it stops those still
alive (SIGTERM, then SIGKILL). A clean close stops the watcher first. Linux only (``/proc``).

Usage: ``python raywatch.py ARENA_PID`` (the watcher must be the arena's child).
"""

from __future__ import annotations

import os
import signal
import sys
import time
from contextlib import suppress
from pathlib import Path

POLL_S = 0.5
GRACE_S = 3.0


def _stat(pid: int) -> tuple[int, int] | None:
    """(parent pid, start time in clock ticks) of a process, or None if it is gone."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = text[text.rfind(")") + 2 :].split()  # the name may hold spaces and parentheses
    return int(fields[1]), int(fields[19])


def descendants(root: int) -> dict[int, int]:
    """Every process under ``root``, as pid -> start time."""
    children: dict[int, list[int]] = {}
    started: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and (stat := _stat(int(entry.name))) is not None:
            children.setdefault(stat[0], []).append(int(entry.name))
            started[int(entry.name)] = stat[1]
    found: dict[int, int] = {}
    todo = list(children.get(root, []))
    while todo:
        pid = todo.pop()
        if pid not in found:
            found[pid] = started[pid]
            todo += children.get(pid, [])
    return found


def _alive(known: dict[int, int]) -> list[int]:
    return [pid for pid, start in known.items() if (stat := _stat(pid)) is not None and stat[1] == start]


def stop(known: dict[int, int]) -> None:
    """SIGTERM to each process of ``known`` still alive (same pid and start time), then SIGKILL
    to those that outlive the grace period."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        for pid in _alive(known):
            with suppress(ProcessLookupError):
                os.kill(pid, sig)
        deadline = time.monotonic() + GRACE_S
        while _alive(known) and time.monotonic() < deadline:
            time.sleep(0.05)


def watch(arena: int) -> None:
    me = os.getpid()
    before = set(descendants(arena))
    known: dict[int, int] = {}
    while os.getppid() == arena:
        known.update({p: s for p, s in descendants(arena).items() if p not in before and p != me})
        time.sleep(POLL_S)
    stop(known)


if __name__ == "__main__":
    for ignored in (signal.SIGINT, signal.SIGHUP):  # Ctrl-C is for the arena; we outlive it
        signal.signal(ignored, signal.SIG_IGN)
    watch(int(sys.argv[1]))
