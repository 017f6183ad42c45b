"""Contract properties checked on every registered game, with random legal play.

Each game's own tests go deeper; these make sure nothing registered breaks the shared promises:
immutability, rejected moves change nothing, views work for every role, export and pickling
round-trip,
and the same seed and moves give the same game.
"""

import json
import pickle

import pytest

import hexarena
from hexarena.core.frozen import canonical_json
from tests.helpers.play import random_play as play

MOVES = 40  # enough to cross several turns of every game, small enough for make test


def random_play(name, seed, moves=MOVES, check=None):
    cls = hexarena.game_class(name)
    return play(cls.new(seed=seed, **cls.demo_params), seed, moves, check)


@pytest.fixture(params=hexarena.list_games())
def game(request):
    return request.param


def test_old_state_is_untouched_by_updates(game):
    def check(old, new):
        before = canonical_json(old.export())
        old.apply(new.history[-1])
        assert canonical_json(old.export()) == before
        assert new is not old

    random_play(game, seed=1, moves=12, check=check)


def test_views_render_for_every_role_and_list_legal_moves(game):
    state = random_play(game, seed=2)
    for role in state.all_roles():
        view = state.query_game(role)
        assert view.viewer == role and isinstance(view.render_text(role), str)
    current = state.query_game()
    if not state.is_over():
        moves = current.legal_moves()
        assert moves is None or len(moves) > 0
        if moves:
            assert current.parse_move(current.format_move(moves[0])) == moves[0]


def test_rejected_move_changes_nothing(game):
    state = random_play(game, seed=3, moves=5)
    bad = state.apply({"definitely": "not a move"})
    assert bad.message and bad.environment is state.environment and bad.roles == state.roles
    assert bad.history == state.history


def test_export_round_trips_and_is_json(game):
    state = random_play(game, seed=4)
    data = json.loads(json.dumps(state.export()))
    back = type(state).from_export(data)
    assert canonical_json(back.export()) == canonical_json(data)


def test_state_pickles(game):
    """A state survives pickling (Ray ships states to workers; a saved position reloads)."""
    state = random_play(game, seed=4, moves=10)
    back = pickle.loads(pickle.dumps(state))
    assert canonical_json(back.export()) == canonical_json(state.export())


def test_same_seed_same_game(game):
    a, b = random_play(game, seed=5), random_play(game, seed=5)
    assert canonical_json(a.export()) == canonical_json(b.export())


def test_scores_cover_every_role(game):
    state = random_play(game, seed=6, moves=10)
    assert set(state.get_scores()) == set(state.all_roles())
    frame = state.frame()
    if frame is not None:
        json.dumps(frame)
        assert all("id" in c and "q" in c and "r" in c for c in frame["cells"])
