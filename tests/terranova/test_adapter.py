"""The game-contract adapter: sparse and dense moves, feedback, views without hidden state."""

from __future__ import annotations

import json

import numpy as np
import pytest

import hexarena
from hexarena.games.terranova.adapter import TerraNovaState
from hexarena.games.terranova.contract.moves import expand_sparse, to_dense
from hexarena.games.terranova.engine.spaces import ACTION_SHAPES, map_shapes
from hexarena.games.terranova.engine.tables import load_tables


@pytest.fixture(scope="module")
def game():
    return TerraNovaState.new(seed=2, turn_cap=5)


def test_registered_and_six_roles(game):
    assert "terranova" in hexarena.list_games()
    assert isinstance(hexarena.make("terranova", seed=2, turn_cap=5), TerraNovaState)
    assert game.roles[0] == "red" and len(game.all_roles()) == 6


def test_sparse_move_settles_and_reports_executed(game):
    s = game.apply({"units": {"0": {"category": "settle"}}, "tech": ["pottery"]})
    assert s.message is None and s.roles[0] == "blue"
    executed = s.environment.executed
    assert executed[4][0][0] == 1  # slot 0 executed "settle"
    assert executed[3][0] == load_tables().tech("pottery")
    assert executed[1] == [-1, -1] and executed[2] == [-1, -1, -1]
    assert s.get_scores()["red"] > 0
    view = s.query_game("red")
    assert view.environment.state is None and view.environment.executed == executed
    assert "City 0" in view.render_text("red")


def test_views_hide_the_state_and_other_feedback(game):
    s = game.apply({})
    view = s.query_game("green")
    assert view.environment.state is None and view.environment.tracker is None
    assert view.environment.executed is None  # green did not move last
    assert view.legal_moves() and view.format_move(view.legal_moves()[0]) == "pass"


def test_dense_moves_and_rejections(game):
    dense = map_shapes(lambda shape: np.zeros(shape).tolist(), ACTION_SHAPES)
    assert game.apply(dense).message is None
    assert "nested action tuple" in game.apply([[[0]], 0, 0, 0, 0, 0]).message
    assert "unknown keys" in game.apply({"nope": 1}).message
    assert "unknown technology" in game.apply({"tech": ["warp drive"]}).message
    assert "out of range" in game.apply({"units": {"31": {"category": "move"}}}).message


def test_expand_sparse_ranks():
    dense = expand_sparse({"tech": ["writing", "pottery"], "build": {"2": ["worker", "monument"]}})
    tb = load_tables()
    assert dense[3][tb.tech("writing")] > dense[3][tb.tech("pottery")] > 0
    assert dense[5][1][2].argmax() == 148 + tb.unit("worker") - 1
    assert to_dense({})[4][1].shape == (30, 2772)


def test_game_ends_at_turn_cap_and_exports(game):
    s = game
    for _ in range(6 * 5):
        s = s.apply({})
    out = s.validate_game()
    assert out is not None and "turn cap" in out.reason and s.legal_moves() == ()
    data = json.loads(json.dumps(s.export()))
    back = TerraNovaState.from_export(data)
    assert back.environment_to_json() == s.environment_to_json()
    frame = s.frame()
    assert len(frame["cells"]) == 2772 and frame["layout"] == "pointy"


def test_rules_summary_states_the_score_as_scored():
    """Issue 24 item 17: what a model reads names every term of the score with its weight."""
    w = load_tables().rules["score_weights"]
    text = TerraNovaState.rules_summary
    for key, phrase in (
        ("cities", "per city"),
        ("world_wonders", "per world wonder"),
        ("policies", "per social policy"),
        ("tenets", "per religious tenet"),
        ("great_works", "per great work"),
    ):
        assert f"{w[key] / w['divisor']:g} {phrase}" in text
    assert "stage 1" not in (TerraNovaState.__doc__ or "")
