"""The Small World ES baseline (``python -m hexarena.rl.train smallworld``): a tiny run writes its
results, curve and policy; the policy enters a match from the command line as ``policy:PATH``;
its features read the mover's observation; bad policy files are refused with a clear error."""

import json
from pathlib import Path

import numpy as np
import pytest

from hexarena.core.errors import ConfigError
from hexarena.games.smallworld.engine import SmallWorldGame
from hexarena.games.smallworld.state import GameConfig
from hexarena.rl.sw_features import FEATURES, OFFSET, RankingPolicy, move_features
from hexarena.rl.train import main

SHIPPED = Path(__file__).resolve().parents[2] / "docs/rl/smallworld/policy.json"


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    pytest.importorskip("matplotlib")  # the run draws its curve (the train extra)
    out = tmp_path_factory.mktemp("rl")
    tiny = ["--generations", "1", "--pairs", "1", "--seeds-per-gen", "1", "--eval-every", "1"]
    tiny += ["--valid-games", "2", "--eval-games", "2", "--heuristic-games", "2", "--anchor-seconds", "0.1"]
    main(["smallworld", *tiny, "--jobs", "1", "--out", str(out)])
    return out / "smallworld"


def test_a_tiny_run_writes_results_curve_and_policy(run):
    from PIL import Image

    results = json.loads((run / "results.json").read_text())
    assert results["command"].startswith("python -m hexarena.rl.train smallworld --generations 1")
    assert results["games_vs_heuristic"] == 2 and 0 <= results["win_rate_vs_heuristic"] <= 1
    assert results["env_steps"] > 0 and results["bare_random_env_steps_per_s"] > 0
    assert len(results["curve"]["env_steps"]) == 1
    assert Image.open(run / "curve.png").size[0] >= 800
    assert RankingPolicy.load(run / "policy.json").weights.shape == (FEATURES,)


def test_the_policy_enters_a_match_from_the_command_line(tmp_path):
    """The shipped policy, as a user enters it."""
    from typer.testing import CliRunner

    from hexarena.cli import app

    args = ["play", "smallworld", "--players", f"policy:{SHIPPED},heuristic", "-p", "players=2"]
    done = CliRunner().invoke(app, [*args, "--seed", "5", "--out", str(tmp_path / "cli"), "--quiet"])
    assert done.exit_code == 0, done.output
    result = json.loads((tmp_path / "cli" / "result.json").read_text())
    assert result["players"][0]["name"] == "policy:policy.json"
    assert sum(result["invalid"].values()) == 0 and result["outcome"] is not None


def test_features_follow_the_legal_moves_and_weights_rank_them():
    game = SmallWorldGame(GameConfig(2, 3))
    obs = game.get_observation(0)
    phi = move_features(obs)
    assert phi.shape == (len(obs["legal_actions"]), FEATURES)
    w = np.zeros(FEATURES)
    w[OFFSET["pick"]] = 1.0  # the most tokens
    best = RankingPolicy(w).choose(obs)
    tokens = [c["total_tokens"] for c in obs["combo_row"]]
    assert tokens[best["index"]] == max(tokens)


def test_bad_policy_files_are_refused(tmp_path):
    from hexarena.rl.policies import PolicyPlayer

    (tmp_path / "p.json").write_text("{not json")
    with pytest.raises(ConfigError, match=r"p\.json"):
        PolicyPlayer(tmp_path / "p.json")
    (tmp_path / "q.json").write_text(json.dumps({"game": "hex", "kind": "move-ranking", "weights": {}}))
    with pytest.raises(ConfigError, match="not a Small World move-ranking policy"):
        PolicyPlayer(tmp_path / "q.json")
    (tmp_path / "r.json").write_text(
        json.dumps({"game": "smallworld", "kind": "move-ranking", "weights": {"pick": {"x": 1}}})
    )
    with pytest.raises(ConfigError, match=r"unknown feature pick\.x"):
        PolicyPlayer(tmp_path / "r.json")
