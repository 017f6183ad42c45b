"""The RL encodings: every legal move has its own action index, and the RL adapters run."""

from __future__ import annotations

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import hexarena
from hexarena.games.smallworld import encoding
from hexarena.rl import HexarenaAECEnv, HexarenaGymEnv
from tests.helpers.play import random_play


@pytest.mark.parametrize("players", [2, 5])
def test_every_legal_move_maps_to_a_distinct_action_and_back(players):
    state = hexarena.make("smallworld", seed=players, players=players)
    for step in range(60):
        if state.is_over():
            break
        moves = state.legal_moves()
        indices = [state.move_to_action(m) for m in moves]
        assert len(set(indices)) == len(moves) and all(0 <= i < encoding.ACTION_COUNT for i in indices)
        assert [state.action_to_move(i) for i in indices] == list(moves)
        state = random_play(state, seed=step, moves=1)


def test_observation_array_has_a_fixed_shape_and_hides_coins():
    state = random_play(hexarena.make("smallworld", seed=3, players=3), moves=30)
    a = state.observation_array("red")
    b = random_play(hexarena.make("smallworld", seed=4, players=5), moves=10).observation_array("blue")
    assert a.shape == b.shape and a.dtype == np.float32
    gs = state.environment._game._state
    gs.players[1].coins += 50  # an opponent's secret changes nothing red sees
    assert np.array_equal(state.observation_array("red"), a)
    assert np.array_equal(state.query_game("red").observation_array("red"), a)


def test_gymnasium_env_check_and_masked_play():
    check_env(HexarenaGymEnv("smallworld", players=2).unwrapped, skip_render_check=True)
    env = HexarenaAECEnv("smallworld", players=3)
    env.reset(seed=1)
    rng = np.random.default_rng(1)
    for steps, agent in enumerate(env.agent_iter()):
        obs, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        assert steps < 5000 and agent in env.possible_agents


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_the_rl_fast_observation_equals_the_reference(players):
    """``state_observation_array`` (written from the engine state, the RL envs' path) equals
    ``observation_array`` of the observation dict, for every seat, at every step of a game."""
    from hexarena.games.smallworld.observation import build_observation
    from hexarena.rl.cores import SmallWorldCore

    core = SmallWorldCore("smallworld", players, {"players": players})
    rng = np.random.default_rng(players)
    markers = set()
    while True:
        gs = core.g._state
        for seat in range(players):
            ref = encoding.observation_array(build_observation(gs, seat))
            assert np.array_equal(encoding.state_observation_array(gs, seat), ref), f"turn {gs.turn}"
        markers |= {m for st in gs.regions for m in st.markers}
        if core.over():
            break
        legal = core.legal_actions()
        assert core.play(int(legal[rng.integers(len(legal))])) is None
    assert len(markers) >= 2  # mountains and what the races placed
