"""Issue 18: the City of Gold single-agent env on the CPU engine plays the scalar engine's games.

The numba core (:class:`~hexarena.rl.cores.CityOfGoldNumbaCore`) must give, seed for seed, the
observations, masks, rewards and outcomes of the scalar one (:class:`~hexarena.rl.cores.
CityOfGoldCore`, the reference), through the core and through the Gymnasium env.
"""

import copy
import pickle

import numpy as np
import pytest

import hexarena.rl.gym as rl_gym
from hexarena.games.cityofgold.bot import choose_action
from hexarena.rl import HexarenaGymEnv
from hexarena.rl.cores import CityOfGoldCore, CityOfGoldNumbaCore, new_core

pytest.importorskip("numba")


def assert_same_position(ref: CityOfGoldCore, fast: CityOfGoldNumbaCore, where: str) -> None:
    assert ref.over() == fast.over(), where
    for role in ref.roles:  # every seat's view, not only the one to act
        assert np.array_equal(ref.observation(role), fast.observation(role)), f"{where}: {role}"
        assert ref.progress(role) == fast.progress(role), where
    assert ref.rounds_played() == fast.rounds_played(), where
    if not ref.over():
        assert ref.to_move() == fast.to_move(), where
        assert np.array_equal(ref.mask(), fast.mask()), where
        assert np.array_equal(ref.legal_actions(), fast.legal_actions()), where


@pytest.mark.parametrize(("n_players", "seed"), [(2, 0), (3, 1), (4, 2)])
def test_numba_core_plays_the_scalar_game(n_players, seed):
    """Both cores, the same actions (the heuristic bot's, with random ones mixed in so every
    kind of action comes up) to the end: the same positions at every step, the same outcome."""
    params = {"n_players": n_players, "n_pieces": 1, "max_turns": 400}
    ref = CityOfGoldCore("cityofgold", seed, params)
    fast = new_core("cityofgold", seed, params)
    assert type(fast) is CityOfGoldNumbaCore
    rng = np.random.default_rng(seed)
    steps = 0
    while not ref.over():
        assert_same_position(ref, fast, f"step {steps}")
        legal = ref.legal_actions()
        action = choose_action(ref.g) if rng.random() < 0.7 else int(legal[rng.integers(len(legal))])
        assert ref.play(action) is None and fast.play(action) is None
        steps += 1
    assert_same_position(ref, fast, "the end")
    assert fast.outcome() == ref.outcome() and str(fast.outcome()) == str(ref.outcome())
    assert fast.outcome().winners, "the heuristic moves should win the race before the turn cap"
    assert fast.snapshot().environment_to_json() == ref.snapshot().environment_to_json()


def test_truncated_game_and_illegal_actions():
    params = {"n_players": 2, "n_pieces": 1, "max_turns": 6}
    ref, fast = CityOfGoldCore("cityofgold", 5, params), new_core("cityofgold", 5, params)
    rng = np.random.default_rng(5)
    while not ref.over():
        illegal = np.flatnonzero(ref.mask() == 0)
        for action in (int(illegal[0]), -1, 115):  # refused with the scalar engine's reason
            assert fast.play(action) == ref.play(action) is not None
        legal = ref.legal_actions()
        action = int(legal[rng.integers(len(legal))])
        assert ref.play(action) is None and fast.play(action) is None
        assert_same_position(ref, fast, "after a refused action")
    assert fast.outcome() == ref.outcome() and fast.outcome().kind.value == "truncated"
    assert fast.snapshot().environment_to_json() == ref.snapshot().environment_to_json()


def test_caves_variant_stays_on_the_scalar_engine():
    core = new_core("cityofgold", 1, {"n_players": 2, "caves": True})
    assert type(core) is CityOfGoldCore


def scalar_core(game, seed, params, fast=True):
    return CityOfGoldCore(game, seed, params) if fast else rl_gym.StateCore(game, seed, params)


@pytest.mark.parametrize(("opponents", "max_rounds"), [("random", 25), ("heuristic", None)])
def test_gym_env_on_numba_equals_the_scalar_env(monkeypatch, opponents, max_rounds):
    """Seeded episodes through the env (shaped reward; random opponents up to a round cap, or
    the heuristic bot, which wins): observations, masks, rewards, ends and infos equal those of
    the env on the scalar core."""
    params = {"n_players": 3, "n_pieces": 1, "max_turns": 240, "reward": "shaped"}
    fast = HexarenaGymEnv("cityofgold", opponents=opponents, max_rounds=max_rounds, **params)
    ref = HexarenaGymEnv("cityofgold", opponents=opponents, max_rounds=max_rounds, **params)
    rng = np.random.default_rng(0)
    for seed in (11, 12):
        a, ia = fast.reset(seed=seed)
        with monkeypatch.context() as patch:
            patch.setattr(rl_gym, "new_core", scalar_core)
            b, ib = ref.reset(seed=seed)
        assert type(fast.core) is CityOfGoldNumbaCore and type(ref.core) is CityOfGoldCore
        while True:
            assert np.array_equal(a["observation"], b["observation"])
            assert np.array_equal(a["action_mask"], b["action_mask"])
            assert ia.keys() == ib.keys() and ia["to_move"] == ib["to_move"]
            legal = np.flatnonzero(a["action_mask"])
            action = int(legal[rng.integers(len(legal))])
            a, ra, ta, ua, ia = fast.step(action)
            b, rb, tb, ub, ib = ref.step(action)
            assert (ra, ta, ua) == (rb, tb, ub)
            if ta or ua:
                assert ia.get("outcome") == ib.get("outcome") and ia.get("outcome_reward") == ib.get(
                    "outcome_reward"
                )
                assert ("outcome" in ia) == (max_rounds is None)
                assert np.array_equal(a["observation"], b["observation"])
                break
        assert fast.state.environment_to_json() == ref.state.environment_to_json()


def test_a_copied_or_pickled_game_plays_on_its_own_arrays():
    """The kernels reach the game through raw addresses: a copy must bind its own arrays."""
    core = new_core("cityofgold", 3, {"n_players": 2, "n_pieces": 1})
    rng = np.random.default_rng(3)
    for _ in range(40):
        core.play(int(rng.choice(core.legal_actions())))
    game = core.fast
    twins = [copy.deepcopy(game), pickle.loads(pickle.dumps(game))]
    for _ in range(60):
        action = int(rng.choice(game.legal()))
        game.play(action)
        for twin in twins:
            twin.play(action)
            assert np.array_equal(twin.observation(twin.player), game.observation(game.player))
            assert np.array_equal(twin.mask(), game.mask()) and twin.state is not game.state
    assert all(np.array_equal(twin.state, game.state) for twin in twins)
