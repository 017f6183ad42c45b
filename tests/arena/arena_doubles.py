"""Test doubles for arenas: players that break the infrastructure, or report token usage.

Imported by name (``callable`` players, ``tests.arena.arena_doubles:crash``) in the arena's worker processes.
"""

import os
from pathlib import Path

from hexarena.core.errors import ApiRequestError
from hexarena.core.players import Reply


def crash(view):
    """Not a bad move but a broken model server: the match ends in error (never rated). (A player
    whose code raises anything but an infrastructure error fails its attempt instead.)"""
    raise ApiRequestError("the model server went away")


def crash_once(view):
    """Crashes the first time it is asked in each game seed, then plays: a retry succeeds."""
    marker = Path(os.environ["ARENA_FLAKY_DIR"]) / f"seed-{view.seed}"
    if not marker.exists():
        marker.write_text("crashed once")
        raise ApiRequestError("transient failure")
    return view.legal_moves()[0]


def always_illegal(view):
    """An illegal move every time: with on_exhausted=abort the manager ends the match in error."""
    return "z99"


def token_user(view):
    """Plays the first legal move and reports 100 tokens per move (for budgets)."""
    return Reply(move=view.legal_moves()[0], meta={"usage": {"prompt_tokens": 80, "completion_tokens": 20}})


def arena_config(tmp_path, **overrides):
    """A small, fast arena: three players on Hex 5x5."""
    config = {
        "name": "t",
        "players": [
            {"name": "random", "type": "random"},
            {"name": "random-b", "type": "random", "seed": 5},
            {"name": "heuristic", "type": "heuristic"},
        ],
        "games": [{"name": "hex", "params": {"size": 5}}],
        "schedule": {"games_per_pairing": 2, "seed": 3},
        "ratings": {"bootstrap": 30},
    }
    config.update(overrides)
    return config
