"""The RL interface: observations, action forms, vectorised API, Gymnasium-style env, pgx State."""

from __future__ import annotations

import numpy as np
import pytest

from hexarena.games.cityofgold import Difficulty, cog_env, get_runner, get_vec_env, get_vec_sampler, vec
from hexarena.games.cityofgold.actions import (
    DISCARD,
    MOVE,
    N_ACTIONS,
    PASS,
    REMOVE,
    Phase,
    flat_to_heads,
    heads_to_flat,
)
from hexarena.games.cityofgold.board import GRID
from hexarena.games.cityofgold.engine import IllegalActionError, legal_mask, new_game, step
from hexarena.games.cityofgold.env import CityOfGoldEnv, init, step_state
from hexarena.games.cityofgold.observe import observe


def test_observation_layout():
    g = new_game(3, n_players=4)
    step(g, PASS)
    step(g, PASS)  # seat 1 to act
    rec = observe(g)
    occupancy = rec["shared"]["map"][..., 0]
    assert sorted(occupancy[occupancy > 0].tolist()) == [1, 2, 3, 4]
    x, y = divmod(g.pawns[1][0], GRID)
    assert occupancy[x, y] == 1  # the player to act is 1
    x, y = divmod(g.pawns[0][0], GRID)
    assert occupancy[x, y] == 4  # the previous player acts last
    finish = g.course.finishes[0]
    assert rec["shared"]["map"][finish // GRID, finish % GRID, 6] == 1
    assert rec["shared"]["phase"] == Phase.MOVEMENT
    pd = rec["player_data"]["obs"]
    assert pd["hand"][1].sum() == 4 and pd["hand"][0].sum() == 0 and pd["hand_size"][0] == 4
    assert pd["draw"][2].sum() == 0 and pd["draw_size"][2] == 4
    assert rec["action_mask"].tolist() == legal_mask(g)
    heads = rec["player_data"][1]["action_mask"]
    assert heads["play"][0] and heads["play"][1:].sum() == sum(legal_mask(g)[:21])
    assert observe(g, omniscient=True)["player_data"]["obs"]["hand"][0].sum() == 4


def test_five_head_form_round_trips():
    for a in range(N_ACTIONS):
        phase = Phase.PAY_DISCARD if DISCARD <= a < PASS else Phase.MOVEMENT
        assert heads_to_flat(flat_to_heads(a), phase) == a
    assert heads_to_flat({"play": 3, "move": 2}, Phase.MOVEMENT) == 2  # play wins (precedence)
    assert heads_to_flat({"remove": 1}, Phase.REMOVE) == REMOVE


def test_vec_api_spec_shape_auto_reset_and_cleared_rewards():
    n = 3
    envs = get_vec_env(n)()
    samplers = get_vec_sampler(n)(0)
    runner = get_runner(n)(envs, samplers, 1)
    envs.reset(0, 2, 1, Difficulty.EASY, 8, False)
    actions, dones, rewards = samplers.get_actions(), envs.dones, envs.rewards
    seen_done = 0
    for _ in range(600):
        runner.sample()
        assert all(envs.action_masks[i, actions[i]] for i in range(n))
        runner.step_sync()
        assert not envs.invalid.any()
        for i in np.flatnonzero(dones):
            seen_done += 1
            assert envs.infos[i]["truncated"] and envs.infos[i]["total_length"] == 8
            final = envs.final_observations[i]
            assert final["shared"]["phase"] == Phase.DONE and not final["action_mask"].any()
            assert envs.observations[i]["shared"]["phase"] == Phase.MOVEMENT  # already reset
        assert not rewards[~dones].any()
    assert seen_done >= n
    assert envs.agent_selection.dtype == np.int32 and envs.observations["player_data"][
        "action_mask"
    ].shape == (n, 4)


def test_vec_rewards_on_a_win():
    envs = get_vec_env(1)()
    envs.reset(0, 3, 1)
    g = envs.games[0]
    g.pawns[1][0] = -1
    g.ending = True
    g.player = 2
    envs._observe(0)
    envs.step(np.array([PASS]))
    envs.step(np.array([PASS]))
    assert envs.dones[0] and envs.rewards[0].tolist() == [-1.0, 2.0, -1.0, 0.0]
    envs.step(np.array([PASS]))
    assert not envs.dones[0] and not envs.rewards.any()


def test_vec_reports_illegal_actions_and_leaves_the_env_alone():
    envs = get_vec_env(2)()
    envs.reset(5, 4, 3)
    before = envs.games[0].to_json()
    envs.step(np.array([DISCARD, PASS]))
    assert envs.invalid.tolist() == [True, False]
    assert "not allowed in the movement phase" in envs.errors[0]
    assert envs.games[0].to_json() == before and envs.games[1].phase == Phase.BUYING


def test_compat_vec_runner_with_five_head_actions():
    runner = vec.get_runner(4)(1)
    runner.make_samplers(7)
    envs = runner.get_envs()
    envs.reset(7, 4, 3, Difficulty.EASY, 50, False)
    actions = runner.get_actions()
    assert actions.dtype.names == ("play", "play_special", "remove", "move", "get_from_shop")
    runner.start_workers()
    for _ in range(300):
        runner.sample()
        runner.step()
        assert not envs.invalid.any()
    runner.sync()
    assert envs.games[0].turn > 0


def test_same_seed_same_vec_run():
    def run() -> list:
        envs, samplers = get_vec_env(2)(), get_vec_sampler(2)(3)
        runner = get_runner(2)(envs, samplers, 1)
        envs.reset(3, 4, 3)
        for _ in range(200):
            runner.sample()
            runner.step_sync()
        return [g.to_json() for g in envs.games]

    assert run() == run()


def test_gymnasium_style_env():
    env = CityOfGoldEnv(n_players=2, n_pieces=1, max_turns=10)
    obs, info = env.reset(seed=3)
    assert obs["shared"]["map"].shape == (48, 48, 7) and info["current_player"] == 0
    assert env.action_space.n == N_ACTIONS and env.observation_space.contains(obs)
    rng = np.random.default_rng(0)
    terminated = truncated = False
    while not (terminated or truncated):
        a = int(rng.choice(np.flatnonzero(env.action_masks())))
        obs, reward, terminated, truncated, info = env.step(a)
    assert truncated and reward == 0.0
    with pytest.raises(IllegalActionError):
        env.reset(seed=3)
        env.step(DISCARD)
    assert isinstance(env.render(), str)


def test_pgx_style_state_is_functional():
    s0 = init(4, n_players=4)
    assert s0.current_player == 0 and s0.legal_action_mask.shape == (N_ACTIONS,)
    s1 = step_state(s0, PASS)
    assert s0.game.phase == Phase.MOVEMENT and s1.game.phase == Phase.BUYING
    s2 = step_state(s1, PASS)
    assert s2.current_player == 1 and not s2.terminated and not s2.truncated
    assert s2.rewards.shape == (4,)


def test_cog_env_compat():
    env = cog_env(1, 4, 3, Difficulty.EASY, 20, False)
    env.reset()
    while not env.get_done():
        mask = env.observation["action_mask"]
        env.step(int(np.flatnonzero(mask)[-1]))
    assert env.rewards == [0.0] * 4 and env.get_map().finishes
    assert "P1" in env.render()


def test_moves_use_the_second_pawn_only_with_two_players():
    g = new_game(1, n_players=2)
    g.res = [4, 4, 4]
    mask = legal_mask(g)
    assert any(mask[MOVE : MOVE + 6]) and any(mask[MOVE + 6 : MOVE + 12])
    g4 = new_game(1, n_players=4)
    g4.res = [4, 4, 4]
    assert not any(legal_mask(g4)[MOVE + 6 : MOVE + 12])


@pytest.mark.parametrize("n_players", [2, 4])
def test_incremental_vec_observations_equal_fresh_ones(n_players):
    n = 4
    envs, samplers = get_vec_env(n)(), get_vec_sampler(n)(2)
    runner = get_runner(n)(envs, samplers, 1)
    envs.reset(2, n_players, 1, Difficulty.EASY, 12, False)
    for _ in range(400):
        runner.sample()
        runner.step_sync()
        for i in range(n):
            assert envs.observations[i].tobytes() == observe(envs.games[i]).tobytes()


def test_per_head_sampler_of_0_0_3_gives_legal_actions():
    runner = vec.get_runner(3)(1)
    runner.make_samplers(4, per_head=True)
    envs = runner.get_envs()
    envs.reset(4, 3, 2, Difficulty.EASY, 30, False)
    for _ in range(300):
        runner.sample_seq()
        runner.step_seq()
        assert not envs.invalid.any(), envs.errors


def test_omniscient_view_trusted_path_and_max_steps_alias():
    envs = get_vec_env(2)(validate=False, omniscient=True)
    envs.reset(1, 4, 3, Difficulty.EASY, max_steps=7)
    assert all(g.max_turns == 7 for g in envs.games)
    assert (envs.observations["player_data"]["obs"]["hand"].sum(axis=2) == 4).all()
    envs.step(np.array([PASS, PASS]))
    assert not envs.invalid.any() and envs.games[0].phase == Phase.BUYING


def test_blockades_in_the_observation():
    g = new_game(3, n_players=4, n_pieces=3)
    rec = observe(g)
    rows = rec["shared"]["blockades"]
    assert [tuple(r[:3]) for r in rows[: len(g.course.blockades)]] == [
        (1, b.kind, b.amount) for b in g.course.blockades
    ]
    guard = rec["shared"]["blockade_map"].reshape(-1, 6)
    assert {int(guard[c, d]) for c, d, _ in g.course.gates} == {b + 1 for b in range(len(g.course.blockades))}
    g.blockade_holder[0] = 2
    row = observe(g)["shared"]["blockades"][0]
    assert row[0] == 0 and row[3] == 3  # opened, held by the seat two after the player to act
