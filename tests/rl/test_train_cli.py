"""The training command's pieces that need no training: ``--ppo`` overrides, and the curve
redrawn from a results file (``python -m hexarena.rl.train plot``), at least 800 px wide."""

import json

import pytest

from hexarena.rl.train import cog_config, main, parse


def test_ppo_overrides_and_a_clear_error_for_an_unknown_setting():
    import argparse

    args = argparse.Namespace(envs=8, rollout=4, ppo=["league=2", "alternate=false", "lr=0.001"])
    cfg = cog_config(args)
    assert (cfg.num_envs, cfg.league, cfg.alternate, cfg.lr, cfg.n_pieces) == (8, 2, False, 0.001, 3)
    args.ppo = ["leage=2"]
    with pytest.raises(SystemExit, match="'leage=2': no such setting"):
        cog_config(args)


def test_plot_redraws_the_curve_from_results(tmp_path):
    pytest.importorskip("matplotlib")
    from PIL import Image

    folder = tmp_path / "cityofgold"
    folder.mkdir()
    curve = {"env_steps": [1000, 2000, 3000], "mean_return": [0.1, 0.5, 0.9]}
    curve |= {"win_rate": [0.2, 0.6, 1.0], "win_rate_vs_self": [0.5, 0.5, 0.6]}
    (folder / "results.json").write_text(json.dumps({"curve": curve}))
    main(["plot", "--out", str(tmp_path)])
    width, _ = Image.open(folder / "curve.png").size
    assert width >= 800


@pytest.mark.parametrize(
    ("argv", "bc_games"), [(["cityofgold"], 100), (["terranova"], 16), (["terranova", "--bc-games", "0"], 0)]
)
def test_every_game_s_options_parse_with_its_own_imitation_default(argv, bc_games):
    """One ``--bc-games`` for both ES trainers (two definitions made the whole command fail)."""
    assert parse(argv).bc_games == bc_games


def test_held_out_settings_default_by_game_and_a_zero_interval_is_refused(capsys):
    assert (parse(["terranova"]).eval_every, parse(["terranova"]).valid_games) == (3, 64)
    assert (parse(["smallworld"]).eval_every, parse(["smallworld"]).valid_games) == (10, 40)
    with pytest.raises(SystemExit):
        parse(["terranova", "--eval-every", "0"])
    assert "--eval-every must be at least 1" in capsys.readouterr().err


def test_terranova_clones_the_easy_bot_unless_told_and_names_only_its_bots(capsys):
    assert parse(["terranova"]).bc_bot == "easy"
    assert parse(["terranova", "--bc-bot", "heuristic"]).bc_bot == "heuristic"
    with pytest.raises(SystemExit):
        parse(["terranova", "--bc-bot", "uniform"])
    assert "invalid choice: 'uniform'" in capsys.readouterr().err
