"""Smoke test of the JAX PPO baseline (self-play with a league, the learner in both seats):
updates run, the loss is finite, the saved policy plays a full game through the manager
(``policy:PATH``) and against the heuristic, and bad policy files are refused clearly."""

import json
import math

import jax
import numpy as np
import pytest

from hexarena.core.errors import ConfigError
from hexarena.core.manager import play_match
from hexarena.rl.jax_ppo import (
    League,
    PPOConfig,
    load_policy,
    make_train,
    make_world,
    opponents_for,
    save_policy,
)

TINY = PPOConfig(
    num_envs=4,
    num_steps=4,
    epochs=1,
    minibatches=1,
    hidden=8,
    pool_size=4,
    max_turns=20,
    alternate=True,
    random_share=0.5,
    league=2,
)


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    world, jcfg, size = make_world(TINY, 0)
    init, update = make_train(TINY, world, jcfg, size)
    runner = init(jax.random.PRNGKey(0))
    before = np.asarray(runner.params["actor"][0]["w"])
    league, losses = League(TINY.league, 0), []
    for _ in range(3):
        league.add(runner.params)
        runner, metrics = update(runner, league.draw(runner.params))
        losses.append(float(metrics["loss"]))
        assert 0 < int(metrics["learner_steps"]) < TINY.num_envs * TINY.num_steps  # both seats move
    assert len(league.snapshots) == 2
    assert opponents_for(TINY, 4).seat.tolist() == [0, 1, 0, 1]
    path = tmp_path_factory.mktemp("policy") / "policy.npz"
    save_policy(path, runner.params, TINY)
    return path, losses, before, runner


def test_learner_gae_skips_the_opponents_steps_and_credits_their_rewards():
    """Two envs, four steps, gamma 0.5, lambda 1. Env 0: learner, opponent (who wins: -1),
    learner in the next game, opponent; env 1: opponent, learner, learner, learner to act next."""
    import jax.numpy as jnp

    from hexarena.rl.jax_ppo import learner_gae

    values = jnp.array([[0.2, 9.0], [9.0, 0.4], [0.3, 0.6], [9.0, 0.8]])
    rewards = jnp.array([[0.1, 0.0], [-1.0, 0.1], [0.1, 0.1], [0.0, 0.1]])
    dones = jnp.array([[False, False], [True, False], [False, False], [False, False]])
    mine = jnp.array([[True, False], [False, True], [True, True], [False, True]])
    adv = learner_gae(values, rewards, dones, mine, jnp.array([9.0, 1.0]), jnp.array([False, True]), 0.5, 1.0)
    first = 0.1 - 1.0 - 0.2  # its reward and the loss on the opponent's move; the game ended
    second = 0.1 + 0.5 * 0.3 - 0.3  # the rollout ends on the opponent's turn: own value stands in
    e1_last = 0.1 + 0.5 * 1.0 - 0.8
    e1_mid = 0.1 + 0.5 * 0.8 - 0.6 + 0.5 * e1_last
    e1_first = 0.1 + 0.5 * 0.6 - 0.4 + 0.5 * e1_mid
    expected = [[first, 0.0], [0.0, e1_first], [second, e1_mid], [0.0, e1_last]]
    assert np.allclose(np.asarray(adv), expected)


def test_seat_alternated_games_against_the_heuristic(trained):
    from hexarena.rl.policies import heuristic_win_rate

    result = heuristic_win_rate(trained[0], games=2, seed=3, alternate=True, max_turns=8)
    assert result["games"] == 2 and 0 <= result["wins"] <= 2


def test_updates_run_with_a_finite_loss_and_learn_something(trained):
    _, losses, before, runner = trained
    assert all(math.isfinite(x) for x in losses)
    assert not np.array_equal(before, np.asarray(runner.params["actor"][0]["w"]))


def test_saved_policy_round_trips_and_plays_through_the_manager(trained, tmp_path):
    path, _, _, runner = trained
    params, cfg = load_policy(path)
    assert cfg == TINY
    assert np.allclose(params["critic"][1]["w"], runner.params["critic"][1]["w"], atol=1e-6)
    config = {
        "game": {"name": "cityofgold", "seed": 4, "params": {"n_players": 2, "n_pieces": 1, "max_turns": 12}},
        "players": [
            {"type": f"policy:{path}", "roles": ["red"]},
            {"type": "random", "roles": ["blue"]},
        ],
        "output": {"dir": str(tmp_path / "match")},
    }
    result = play_match(config)
    assert result.outcome is not None and result.invalid.get("red", 0) == 0
    assert result.moves > 10 and result.players["red"] == "policy:policy.npz"


def test_bad_policy_files_are_refused(tmp_path):
    from hexarena.rl.policies import PolicyPlayer

    with pytest.raises(ConfigError, match="no such file"):
        PolicyPlayer(tmp_path / "missing.npz")
    (tmp_path / "p.txt").write_text("x")
    with pytest.raises(ConfigError, match=r"expected a \.npz"):
        PolicyPlayer(tmp_path / "p.txt")


def test_a_saved_policy_enters_a_match_from_the_command_line(trained, tmp_path):
    """``hexarena play GAME --players policy:PATH,...``, as a user would enter a trained policy."""
    from typer.testing import CliRunner

    from hexarena.cli import app

    path = trained[0]
    args = [
        "play",
        "cityofgold",
        "--players",
        f"policy:{path},random",
        "-p",
        "players=2",
        "-p",
        "max_turns=12",
    ]
    run = CliRunner().invoke(app, [*args, "--seed", "4", "--out", str(tmp_path / "cli"), "--quiet"])
    assert run.exit_code == 0, run.output
    result = json.loads((tmp_path / "cli" / "result.json").read_text())
    assert result["players"][0]["name"] == "policy:policy.npz" and result["invalid"]["red"] == 0
    missing = CliRunner().invoke(
        app, ["play", "cityofgold", "--players", "policy:,random", "-p", "players=2"]
    )
    assert missing.exit_code != 0 and "needs a file: policy:PATH" in str(missing.exception)
