"""Terra Nova's RL pieces: the Gymnasium id (flat observation, masked action heads), the flat
PettingZoo env under ``api_test``, the ES policy and its ``policy:PATH`` player, and the trainer.

Every game here is one or two rounds and goes through the contract's compiled functions (cached
on disk: no new compile); the trainer's run on the batched simulator compiles a batch shape of
its own, so it is marked slow.
"""

from __future__ import annotations

import argparse
import json

import gymnasium
import jax
import numpy as np
import pytest

import hexarena.rl  # noqa: F401  (registers the ids)
from hexarena.games.terranova.contract.moves import to_dense
from hexarena.games.terranova.engine.spaces import ACTION_SHAPES, map_shapes
from hexarena.rl.es import Adam, centred_ranks
from hexarena.rl.tn_bc import fit
from hexarena.rl.tn_es import ESConfig, game_maps, margins, seat_table, streams
from hexarena.rl.tn_eval import TerraNovaPolicy, own_obs
from hexarena.rl.tn_gym import HEADS
from hexarena.rl.tn_policy import FEATURES, N_PARAMS, TARGET_FEATURES, load, save, split
from hexarena.rl.tn_policy import HEADS as POLICY_HEADS
from hexarena.rl.tn_train import es_config

SETTLE = 1  # units.json category


@pytest.fixture(scope="module")
def env():
    env = gymnasium.make("hexarena/TerraNova-v0", turn_cap=1)
    yield env
    env.close()


def _legal_choice(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A legal option per row, an option rather than "no preference" wherever one is legal."""
    rows = mask.reshape(-1, mask.shape[-1])
    picks = [rng.choice(np.flatnonzero(r[:-1])) if r[:-1].any() else len(r) - 1 for r in rows]
    return np.asarray(picks).reshape(mask.shape[:-1])


def test_gym_id_flat_observation_masks_and_a_short_episode(env):
    obs, info = env.reset(seed=3)
    base = env.unwrapped
    assert env.observation_space.contains(obs) and obs.ndim == 1
    assert base.layout[-1][2] == obs.shape[0]
    masks = base.action_masks()
    assert set(masks) == set(HEADS) and masks is info["action_mask"]
    for name, dims in HEADS.items():
        assert masks[name].shape == (*((len(dims),) if len(dims) > 1 else ()), dims[0])
        assert masks[name][..., -1].all()  # "no preference" is always allowed
    # turn 0: a settler and a warrior; the settler may settle, no city builds yet
    cats = masks["unit_category"][:, :-1]
    assert cats[:, SETTLE].sum() == 1 and not masks["build"][:, :-1].any()
    rng = np.random.default_rng(0)
    action = {k: _legal_choice(m, rng) for k, m in masks.items()}
    action = {k: int(v) if v.ndim == 0 else v for k, v in action.items()}
    settler = int(np.flatnonzero(cats[:, SETTLE])[0])
    action["unit_category"][settler] = SETTLE
    obs, reward, term, trunc, info = env.step(action)
    assert term and not trunc and "outcome" in info  # one round: the learner's move ended it
    executed = base.state.environment.executed_by[0]
    assert executed[3][0] == action["tech"]  # the chosen legal tech is researched
    assert executed[4][0][settler] == SETTLE  # the settler settled where it stood
    assert reward > 0  # a city: score


def test_gym_refuses_an_action_outside_the_space(env):
    env.reset(seed=1)
    with pytest.raises(ValueError, match="not in"):
        env.step({"tech": 500})


def test_flat_pettingzoo_env_passes_api_test_without_type_warnings():
    pytest.importorskip("pettingzoo")
    import warnings

    from pettingzoo.test import api_test

    from hexarena.games.terranova.pettingzoo_env import TerraNovaAECEnv, unflatten_action

    env = TerraNovaAECEnv(turn_cap=1, flat=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        api_test(env, num_cycles=8)
    types = [
        str(w.message) for w in caught if "NumPy array" in str(w.message) or "probably" in str(w.message)
    ]
    assert types == []
    sample = env.action_space("red").sample()
    back = unflatten_action(sample)
    assert jax.tree_util.tree_map(np.shape, back) == map_shapes(lambda s: s, ACTION_SHAPES)


def test_policy_moves_follow_its_dense_preferences(tmp_path):
    """The sparse move a ``policy:PATH`` player sends resolves as the dense scores do."""
    from hexarena.games.terranova.adapter import TerraNovaState
    from hexarena.games.terranova.contract import compiled

    rng = np.random.default_rng(1)
    path = tmp_path / "p.npz"
    save(path, rng.normal(size=N_PARAMS), {"note": "test"})
    policy = TerraNovaPolicy(path)
    state = TerraNovaState.new(seed=5, turn_cap=2)
    env = state.environment
    obs, opts = jax.tree_util.tree_map(np.asarray, compiled.view(env.state, env.tracker, 0))
    dense = policy(own_obs(state), 7)
    sparse = to_dense(policy.move(obs, opts, 7))
    for got, want in ((sparse[1], dense[1]), (sparse[3], dense[3]), (sparse[2], dense[2])):
        assert np.argmax(got) == np.argmax(want)
    # no city yet: the settler's city (slot 0) starts the build the dense scores rank first
    assert np.argmax(sparse[5][1][0]) == np.argmax(dense[5][1][0])
    units = np.flatnonzero(obs["units"]["unit_type"][0] > 0)
    for u in units:
        assert np.argmax(sparse[4][0][u]) == np.argmax(dense[4][0][u])
        legal = np.flatnonzero(opts["reach"][u] | opts["attack"][u])
        if len(legal):  # the best legal target by the policy's scores leads the sparse ranking
            assert np.argmax(sparse[4][1][u][legal]) == np.argmax(dense[4][1][u][legal])


def test_a_policy_of_an_older_kind_is_refused_by_name(tmp_path):
    """A file of the first policy form (three features, random unit targets) says what it is."""
    path = tmp_path / "old.npz"
    meta = {"kind": "hexarena-terranova-es2", "game": "terranova"}
    np.savez(path, theta=np.zeros(1297, np.float32), meta=np.array(json.dumps(meta)))
    with pytest.raises(ValueError, match=r"old\.npz is a Terra Nova policy of kind hexarena-terranova-es2"):
        load(path)


def test_policy_player_through_hexarena_play(tmp_path):
    """``hexarena play terranova --players policy:PATH,...``: the policy's moves are all accepted."""
    from typer.testing import CliRunner

    from hexarena.cli import app

    path = tmp_path / "policy.npz"
    save(path, np.random.default_rng(2).normal(size=N_PARAMS), {})
    players = f"policy:{path},heuristic,random,random,random,random"
    args = ["play", "terranova", "--players", players, "-p", "turn_cap=1", "--out", str(tmp_path / "r")]
    run = CliRunner().invoke(app, [*args, "--quiet"])
    assert run.exit_code == 0, run.output
    result = json.loads((tmp_path / "r" / "result.json").read_text())
    assert result["players"][0]["name"] == "policy:policy.npz" and result["invalid"]["red"] == 0


def test_es_pairs_share_map_seat_and_stream_and_fitness_is_the_margin():
    cfg = ESConfig(pairs=6, monitor=4)
    p = 2 * cfg.pairs
    table, maps, stream = seat_table(cfg, generation=1), game_maps(cfg, 1), streams(cfg)
    assert ((table != -1).sum(1) == 1).all()  # one learner a game, five random players
    assert sorted(table[:p].max(1)) == list(range(p)) and (table[p:].max(1) == p).all()
    for j in range(cfg.pairs):  # candidate j and its antithetic twin j + pairs: common random numbers
        a, b = j, j + cfg.pairs
        assert (table[a] != -1).argmax() == (table[b] != -1).argmax()
        assert maps[a] == maps[b] and stream[a] == stream[b]
    assert len(set(maps[: cfg.pairs]) | set(maps[p:])) == cfg.pairs + cfg.monitor
    assert len(set(stream)) == cfg.pairs + cfg.monitor
    final = np.array([[5.0, 9.0, 1.0, 2.0, 3.0, 4.0]])
    learner = np.array([[-1, 0, -1, -1, -1, -1]])
    mine, best = margins(final, learner)
    assert mine[0] == 9.0 and best[0] == 5.0
    assert np.allclose(centred_ranks(np.array([3.0, 1.0, 2.0])), [0.5, -0.5, 0.0])
    adam = Adam(2, lr=0.1)
    assert np.allclose(adam.step(np.array([1.0, -2.0])), [0.1, -0.1])
    args = argparse.Namespace(es=["pairs=4", "sigma=0.2"])
    assert es_config(args)[:1] == (4,) and es_config(args).sigma == 0.2
    args.es = ["pears=4"]
    with pytest.raises(SystemExit, match="no such setting"):
        es_config(args)


def test_behaviour_cloning_fits_the_bots_choice_among_the_legal_options():
    """A bot that researches tech 5 early and tech 7 late, whenever legal: the fitted logits rank
    them so, and an option never legal when another was chosen gains nothing."""
    n_tech = dict(POLICY_HEADS)["tech"]
    rows = []
    for turn in range(60):
        legal = np.zeros(n_tech, bool)
        legal[[3, 5, 7]] = True
        f = np.array([1.0, turn / 60, 0.25], np.float32)
        rows.append((f, legal, 5 if turn < 30 else 7))
    # settlers walking to the best site among three tiles; workers to the nearest
    x = np.zeros((3, len(TARGET_FEATURES)), np.float32)
    x[:, 0], x[:, -1] = [0.9, 0.2, 0.5], [0.75, 0.25, 0.5]
    settlers = [(0, x, np.ones(3, bool), 0)] * 20
    workers = [(1, x, np.ones(3, bool), 1)] * 20
    data = {"rows": {name: [] for name, _ in POLICY_HEADS} | {"tech": rows, "worked": []}}
    data["rows"]["target"] = settlers + workers
    theta, counts = fit(data, steps=300)
    assert counts["tech"] == 60 and counts["build"] == 0 and counts["target (settler)"] == 20
    weights = split(theta)
    w = weights.heads["tech"]
    assert w.shape == (len(FEATURES), n_tech)
    early, late = np.array([1.0, 0.1, 0.25]) @ w, np.array([1.0, 0.9, 0.25]) @ w
    assert early[5] > max(early[7], early[3]) and late[7] > max(late[5], late[3])
    assert not weights.heads["build"].any()  # no decisions: the uniform random player's zeros
    assert np.argmax(x @ weights.target[0]) == 0 and np.argmax(x @ weights.target[1]) == 1
    assert not weights.target[2].any()


@pytest.mark.slow
def test_trainer_smoke_run_writes_its_files(tmp_path):
    """One cloned heuristic game and two ES generations of one-round games at batch 16 (a shape
    the other Terra Nova tests' cache already holds), held-out games after each, then both
    evaluations and the files."""
    from hexarena.rl.train import main

    args = ["terranova", "--out", str(tmp_path), "--generations", "2", "--minutes", "60"]
    args += ["--es", "turn_cap=1", "--es", "map_pool=4", "--eval-games", "16", "--heuristic-games", "1"]
    args += [
        "--bc-games",
        "1",
        "--es",
        "pairs=6",
        "--es",
        "monitor=4",
        "--valid-games",
        "16",
        "--eval-every",
        "1",
    ]
    main(args)
    out = tmp_path / "terranova"
    results = json.loads((out / "results.json").read_text())
    assert results["generations"] == 2 and results["games_vs_random"] == 16
    assert results["behaviour_cloning"]["games"] == 1 and results["behaviour_cloning"]["bot"] == "easy"
    assert results["games_vs_heuristic"] == 1 and results["notes"] == []
    assert results["bare_random_env_steps_per_s"] > 0 and results["training_env_steps_per_s"] > 0
    assert len(results["curve"]["win_rate_vs_random"]) == 2
    # the start and both generations played the held-out games; the best of them is the one saved
    assert [v["generation"] for v in results["held_out"]] == [0, 1, 2]
    kept = results["held_out"][results["kept_generation"]]
    assert kept["win_rate"] == max(v["win_rate"] for v in results["held_out"])
    assert (out / "policy.npz").is_file() and (out / "curve.png").is_file()


@pytest.mark.parametrize("jobs", [1, pytest.param(2, marks=pytest.mark.slow)])
def test_the_games_against_the_heuristic_again_update_the_results(tmp_path, jobs):
    """``python -m hexarena.rl.tn_eval POLICY --results FILE`` (after the bot changed): the same
    games in one process or several, written over the old figures and their note."""
    from hexarena.rl.tn_eval import main

    path = tmp_path / "policy.npz"
    save(path, np.random.default_rng(2).normal(size=N_PARAMS), {})
    results = tmp_path / "results.json"
    old = {"games_vs_heuristic": 18, "notes": ["18 of the 200 games asked against the heuristic fitted"]}
    results.write_text(json.dumps(old | {"win_rate_vs_random": 0.9}))
    main([str(path), "--games", "2", "--turn-cap", "1", "--jobs", str(jobs), "--results", str(results)])
    new = json.loads(results.read_text())
    assert new["games_vs_heuristic"] == new["vs_heuristic"]["games"] == 2 and new["notes"] == []
    assert new["win_rate_vs_random"] == 0.9 and 0 <= new["vs_heuristic"]["wins"] <= 2
