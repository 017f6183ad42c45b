"""The City of Gold ES baseline (``python -m hexarena.rl.train cityofgold``): a tiny run writes its
results, curve and policy; the policy enters a match from the command line as ``policy:PATH``;
its features follow the legal actions; bad policy files are refused with a clear error."""

import json
from pathlib import Path

import numpy as np
import pytest

from hexarena.core.errors import ConfigError
from hexarena.games.cityofgold.actions import PASS, PLAY
from hexarena.games.cityofgold.engine import legal_actions, new_game
from hexarena.rl.cog_rank import FEATURES, OFFSET, RankingPolicy, move_features
from hexarena.rl.train import main

SHIPPED = Path(__file__).resolve().parents[2] / "docs/rl/cityofgold/policy.json"


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    pytest.importorskip("matplotlib")  # the run draws its curve (the train extra)
    out = tmp_path_factory.mktemp("rl")
    tiny = ["--generations", "1", "--pairs", "1", "--seeds-per-gen", "1", "--eval-every", "1"]
    tiny += ["--bc-games", "1", "--bc-iters", "2", "--valid-games", "2", "--eval-games", "1"]
    tiny += ["--heuristic-games", "1", "--four-player-games", "0", "--anchor-seconds", "0.1"]
    main(["cityofgold", *tiny, "--jobs", "1", "--out", str(out)])
    return out / "cityofgold"


def test_a_tiny_run_writes_results_curve_and_policy(run):
    from PIL import Image

    results = json.loads((run / "results.json").read_text())
    assert results["command"].startswith("python -m hexarena.rl.train cityofgold --generations 1")
    assert results["games_vs_heuristic"] == 1 and 0 <= results["win_rate_vs_heuristic"] <= 1
    assert results["env_steps"] > 0 and results["bare_random_env_steps_per_s"] > 0
    assert len(results["curve"]["env_steps"]) == 1 and results["game_params"]["n_pieces"] == 3
    assert Image.open(run / "curve.png").size[0] >= 800
    assert RankingPolicy.load(run / "policy.json").weights.shape == (FEATURES,)


def test_the_policy_enters_a_match_from_the_command_line(tmp_path):
    """The shipped policy, as a user enters it."""
    from typer.testing import CliRunner

    from hexarena.cli import app

    args = ["play", "cityofgold", "--players", f"policy:{SHIPPED},heuristic", "-p", "players=2"]
    done = CliRunner().invoke(app, [*args, "--seed", "5", "--out", str(tmp_path / "cli"), "--quiet"])
    assert done.exit_code == 0, done.output
    result = json.loads((tmp_path / "cli" / "result.json").read_text())
    assert result["players"][0]["name"] == "policy:policy.json"
    assert sum(result["invalid"].values()) == 0 and result["outcome"] is not None


def test_features_follow_the_legal_actions_and_weights_rank_them():
    g = new_game(3, n_players=2)
    legal = legal_actions(g)
    assert move_features(g, legal).shape == (len(legal), FEATURES)
    w = np.zeros(FEATURES)
    w[OFFSET["end_move"]] = 1.0  # ending the movement phase outranks every other action
    assert RankingPolicy(w).choose(g) == PASS
    w[OFFSET["play"]] = 2.0  # unless a card can be played
    assert RankingPolicy(w).choose(g) < PLAY + 21


def test_bad_policy_files_are_refused(tmp_path):
    from hexarena.rl.policies import PolicyPlayer

    (tmp_path / "p.json").write_text(json.dumps({"game": "cityofgold", "kind": "ppo", "weights": {}}))
    with pytest.raises(ConfigError, match="not a City of Gold move-ranking policy"):
        PolicyPlayer(tmp_path / "p.json")
    (tmp_path / "q.json").write_text(
        json.dumps({"game": "cityofgold", "kind": "move-ranking", "weights": {"buy": {"x": 1}}})
    )
    with pytest.raises(ConfigError, match=r"unknown feature buy\.x"):
        PolicyPlayer(tmp_path / "q.json")
