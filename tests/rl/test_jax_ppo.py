"""Smoke test of the JAX PPO baseline: updates run, the loss is finite, the saved policy plays a
full game through the manager (``policy:PATH``) and bad policy files are refused clearly."""

import json
import math

import jax
import numpy as np
import pytest

from hexarena.core.errors import ConfigError
from hexarena.core.manager import play_match
from hexarena.rl.jax_ppo import PPOConfig, load_policy, make_train, make_world, save_policy

TINY = PPOConfig(num_envs=4, num_steps=4, epochs=1, minibatches=1, hidden=8, pool_size=4, max_turns=20)


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    world, jcfg, size = make_world(TINY, 0)
    init, update = make_train(TINY, world, jcfg, size)
    runner = init(jax.random.PRNGKey(0))
    before = np.asarray(runner.params["actor"][0]["w"])
    losses = []
    for _ in range(3):
        runner, metrics = update(runner)
        losses.append(float(metrics["loss"]))
    path = tmp_path_factory.mktemp("policy") / "policy.npz"
    save_policy(path, runner.params, TINY)
    return path, losses, before, runner


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
