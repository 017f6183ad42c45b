"""PettingZoo and Gymnasium adapters, on Hex."""

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test, seed_test

from hexarena.core.contract import Outcome
from hexarena.core.errors import HexarenaError
from hexarena.rl import HexarenaAECEnv, HexarenaGymEnv
from hexarena.rl.spaces import outcome_rewards


def test_pettingzoo_api_test():
    api_test(HexarenaAECEnv("hex", size=4), num_cycles=200)


def test_pettingzoo_seed_test():
    seed_test(lambda: HexarenaAECEnv("hex", size=4), num_cycles=50)


def test_masked_random_play_ends_with_plus_minus_one():
    env = HexarenaAECEnv("hex", size=5)
    env.reset(seed=3)
    totals = dict.fromkeys(env.possible_agents, 0.0)
    rng = np.random.default_rng(3)
    for agent in env.agent_iter():
        obs, reward, term, trunc, _ = env.last()
        totals[agent] += reward
        env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert sorted(totals.values()) == [-1.0, 1.0]


def test_illegal_action_terminates_or_gives_feedback():
    env = HexarenaAECEnv("hex", size=3)
    env.reset(seed=0)
    env.step(0)
    env.step(0)  # blue plays red's cell
    assert env.terminations["blue"] and env.rewards["blue"] == -1.0
    assert "already taken" in env.infos["blue"]["illegal_move"]
    env = HexarenaAECEnv("hex", size=3, illegal="feedback")
    env.reset(seed=0)
    env.step(0)
    env.step(0)
    assert env.agent_selection == "blue" and "already taken" in env.infos["blue"]["feedback"]
    assert not any(env.terminations.values())


def test_truncation_by_rounds():
    env = HexarenaAECEnv("hex", size=6, max_rounds=2)
    env.reset(seed=0)
    for action in (0, 1, 2, 3):
        env.step(action)
    assert all(env.truncations.values())


def test_gymnasium_env_passes_the_checker_and_plays_to_the_end():
    env = HexarenaGymEnv("hex", role="blue", size=4)
    check_env(env, skip_render_check=True)
    obs, info = env.reset(seed=5)
    assert info["to_move"] == "blue" and obs["action_mask"].sum() == 15  # red has moved once
    done, reward = False, 0.0
    rng = np.random.default_rng(0)
    while not done:
        obs, reward, term, trunc, info = env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        done = term or trunc
    assert reward in (-1.0, 1.0) and "outcome" in info


def test_gymnasium_illegal_action_ends_the_episode():
    env = HexarenaGymEnv("hex", size=3)
    obs, _ = env.reset(seed=1)
    taken = int(np.flatnonzero(~obs["action_mask"].astype(bool))[0])  # in the space, not legal now
    _, reward, term, _, info = env.step(taken)
    assert term and reward == -1.0 and info["illegal_move"]
    with pytest.raises(ValueError, match="not in Discrete"):  # outside the space: refused (issue 28)
        env.step(99)


def test_outcome_rewards_rank_multi_player_games():
    out = Outcome.from_scores("win", "coins", {"a": 9, "b": 5, "c": 5, "d": 1})
    assert outcome_rewards(out, ["a", "b", "c", "d"]) == {"a": 1.0, "b": 0.0, "c": 0.0, "d": -1.0}
    assert outcome_rewards(Outcome.from_scores("draw", "x", {"a": 1, "b": 1}), ["a", "b"]) == {
        "a": 0.0,
        "b": 0.0,
    }


def test_games_without_rl_hooks_are_refused(monkeypatch):
    from hexarena.games.hex import HexState

    monkeypatch.setattr(HexState, "action_count", lambda self: None)
    with pytest.raises(HexarenaError, match="no discrete action space"):
        HexarenaAECEnv("hex")
