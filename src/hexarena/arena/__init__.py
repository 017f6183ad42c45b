"""Arenas: tournaments over a field of players, rated, resumable, local or on Ray.

``hexarena arena CONFIG`` plays a schedule (:mod:`~hexarena.arena.schedule`) of matches through
the ordinary :class:`~hexarena.core.manager.GameManager` (:mod:`~hexarena.arena.worker`), in a
process pool or on Ray (:mod:`~hexarena.arena.execute`), stores every result in SQLite
(:mod:`~hexarena.arena.store`) so that a rerun resumes, rates the field
(:mod:`~hexarena.arena.ratings`) and writes the leaderboard (:mod:`~hexarena.arena.report`).
The config is described in :mod:`~hexarena.arena.config` and ``examples/arena.yaml``.
"""

from hexarena.arena.config import ArenaConfig, load_arena, parse_arena
from hexarena.arena.runner import load_report, run_arena

__all__ = ["ArenaConfig", "load_arena", "load_report", "parse_arena", "run_arena"]
