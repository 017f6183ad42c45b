"""The text view's surroundings come from the player's own observation and reveal nothing unseen."""

import numpy as np

import hexarena
from hexarena.games.terranova.geometry import COLS
from hexarena.games.terranova.tables import load_tables
from hexarena.games.terranova.text import describe_tile


def test_surroundings_of_units_are_listed_by_direction():
    state = hexarena.make("terranova", seed=1)
    text = state.query_game("red").render_text("red")
    assert "Around your settler (slot 0)" in text and "Around your warrior (slot 1)" in text
    for direction in ("east", "north-east", "north-west", "west", "south-west", "south-east"):
        assert f"  {direction}: tile " in text
    assert "blue's" not in text  # no rival is in sight on the first turn


def test_unseen_tiles_are_unexplored_and_seen_ones_described():
    view = hexarena.make("terranova", seed=2).query_game("blue")
    obs, tb = view.environment.view, load_tables()
    visibility = np.asarray(obs["visibility_map"]).ravel()
    unseen, seen = int(np.flatnonzero(visibility == 0)[0]), int(np.flatnonzero(visibility == 2)[0])
    assert describe_tile(obs, tb, unseen, 1, {}) == "unexplored"
    row, col = divmod(seen, COLS)
    assert describe_tile(obs, tb, seen, 1, {}) != "unexplored" and obs["terrain_map"][row, col] >= 0
