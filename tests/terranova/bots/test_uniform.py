"""The ``uniform`` player: the spec's random player (uniform scores on every endpoint) through
the contract, the opponents a learnt Terra Nova policy is measured against."""

from __future__ import annotations

import json

import numpy as np
import pytest

from hexarena.core.frozen import thaw
from hexarena.core.players import Reply
from hexarena.games.terranova.adapter import TerraNovaState
from hexarena.games.terranova.bots.uniform import UniformPlayer
from hexarena.games.terranova.contract.moves import sparse_from_dense, to_dense
from hexarena.games.terranova.engine.spaces import map_shapes


@pytest.fixture(scope="module")
def state() -> TerraNovaState:
    return TerraNovaState.new(seed=5, turn_cap=30)


def _move(seed: int, state: TerraNovaState) -> dict:
    player = UniformPlayer(seed=seed)
    player.reset(state.all_roles(), 5)
    reply = player.act(state.query_game(state.roles[0]))
    assert isinstance(reply, Reply)
    return json.loads(json.dumps(thaw(reply.move)))


def test_its_move_is_accepted_ranks_every_endpoint_and_follows_its_seed(state):
    move = _move(0, state)
    assert set(move) == {"tech", "policy", "tenet", "units", "build", "work", "trade"}
    assert sorted(move["tech"]) == list(range(len(move["tech"])))  # a full ranking
    assert set(move["trade"]["accept"]) | set(move["trade"]["deny"]) == set(range(6))
    assert move == _move(0, state)
    assert move["tech"] != _move(1, state)["tech"]
    after = state.apply(move)
    assert after.message is None and after.environment is not state.environment


def test_a_sparse_move_from_scores_resolves_as_the_scores(state):
    """Every ranked endpoint's first choice, trade included, is the scores' argmax."""
    env = state.query_game(state.roles[0]).environment
    rng = np.random.default_rng(3)
    dense = map_shapes(lambda shape: rng.random(shape, dtype=np.float32))
    sparse = to_dense(sparse_from_dense(dense, env.view, env.options, trade=True))
    (accept, ask, offer, to), policy, tenet, tech = dense[0], dense[1], dense[2], dense[3]
    (s_accept, s_ask, s_offer, s_to), s_policy, s_tenet, s_tech = sparse[0], sparse[1], sparse[2], sparse[3]
    for got, want in ((s_tech, tech), (s_policy, policy), (s_tenet, tenet), (s_offer, offer), (s_to, to)):
        assert np.argmax(got) == np.argmax(want)
    assert (np.argmax(s_ask, axis=1) == np.argmax(ask, axis=1)).all()
    assert (np.argmax(s_accept, axis=1) == np.argmax(accept, axis=1)).all()
