"""Exported pages: a match record's replay, or an arena folder's leaderboard with its replays."""

from __future__ import annotations

from pathlib import Path

from hexarena.viewer.arena import export_arena, is_arena
from hexarena.viewer.page import export_replay


def export_html(record_dir: str | Path, out_path: str | Path) -> Path:
    """Write a self-contained HTML page of ``record_dir`` to ``out_path``; returns the path. An
    arena folder gives its leaderboard page, and a replay page in each match folder."""
    if is_arena(record_dir):
        return export_arena(record_dir, out_path)
    return export_replay(record_dir, out_path)
