"""Terra Nova's PettingZoo AEC environment passes PettingZoo's API test."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("pettingzoo")

from gymnasium import spaces
from pettingzoo.test import api_test

from hexarena.games.terranova.pettingzoo_env import TerraNovaAECEnv


@pytest.fixture(scope="module")
def env():
    return TerraNovaAECEnv(turn_cap=2, render_mode="ansi")


@pytest.mark.filterwarnings("ignore:.*(NumPy array|probably should be|recommend agents):UserWarning")
def test_pettingzoo_api_test_passes(env):
    api_test(env, num_cycles=15)


def test_spaces_follow_the_spec(env):
    obs_space = env.observation_space("red")
    assert isinstance(obs_space["terrain_map"], spaces.MultiDiscrete) and obs_space["terrain_map"].shape == (
        42,
        66,
    )
    assert isinstance(obs_space["treasury"], spaces.Box)
    assert obs_space["units"]["unit_type"].shape == (6, 30)
    assert obs_space["player_cities"]["ownership_map"].shape == (6, 10, 42, 66)
    act = env.action_space("red")
    assert act[4][1].shape == (30, 2772) and act[5][1].shape == (10, 185)


def test_a_game_runs_to_its_end_with_score_rewards(env):
    env.reset(seed=3)
    total = dict.fromkeys(env.possible_agents, 0.0)
    steps = 0
    for agent in env.agent_iter():
        obs, reward, term, trunc, _info = env.last()
        total[agent] += reward
        assert env.observation_space(agent).contains(obs)
        env.step(None if term or trunc else env.action_space(agent).sample())
        steps += 1
    assert steps == 2 * 6 + 6  # two rounds, then each agent sees its end
    scores = env.game.get_scores()
    assert all(np.isclose(total[a], scores[a]) for a in env.possible_agents)
    assert "You are" in env.render()
