"""Issue 18: registered Gymnasium envs, masks, opponents, rewards, fast cores against the contract."""

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import hexarena.rl
from hexarena.core.errors import ConfigError, IllegalMoveError
from hexarena.core.players import RandomPlayer, Reply
from hexarena.rl import HexarenaAECEnv, HexarenaGymEnv, SnapshotPool

SMALL = {
    "hexarena/Hex-v0": {"size": 4},
    "hexarena/SmallWorld-v0": {"players": 2},
    "hexarena/CityOfGold-v0": {"players": 2, "n_pieces": 1, "max_turns": 12},
}


def play_random(env, seed: int, limit: int = 5000):
    """Random legal actions from the env's own mask to the end; the rewards and the last info."""
    obs, info = env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    rewards = []
    for _ in range(limit):
        mask = env.unwrapped.action_masks()
        assert np.array_equal(mask, info["action_mask"].astype(bool))
        assert np.array_equal(mask, obs["action_mask"].astype(bool)) and mask.any()
        obs, reward, term, trunc, info = env.step(int(rng.choice(np.flatnonzero(mask))))
        rewards.append(reward)
        if term or trunc:
            return rewards, info
    raise AssertionError("the game did not end")


@pytest.mark.parametrize("env_id", list(SMALL))
def test_gymnasium_make_checks_and_plays_to_the_end(env_id):
    env = gymnasium.make(env_id, **SMALL[env_id])
    check_env(env.unwrapped, skip_render_check=True)
    rewards, info = play_random(env, seed=3)
    assert "outcome" in info and rewards[-1] == info["outcome_reward"]
    assert all(r == 0.0 for r in rewards[:-1])  # sparse by default


def test_registration_kwargs_and_errors():
    env = gymnasium.make("hexarena/SmallWorld-v0", players=3, opponents="heuristic", seed=5)
    assert env.unwrapped.roles == ["red", "blue", "green"]
    assert {type(o).__name__ for o in env.unwrapped.opponents.values()} == {"PlayerOpponent"}
    first = env.reset()[0]["observation"]
    again = gymnasium.make("hexarena/SmallWorld-v0", players=3, seed=5).reset()[0]["observation"]
    assert np.array_equal(first, again)  # the constructor's seed starts the sequence
    with pytest.raises(ConfigError, match="fixed number of players"):
        gymnasium.make("hexarena/Hex-v0", players=3)
    with pytest.raises(ConfigError, match=r"unknown opponent 'smart'.*random, heuristic"):
        gymnasium.make("hexarena/Hex-v0", opponents="smart")
    with pytest.raises(ConfigError, match="'sparse' or 'shaped'"):
        gymnasium.make("hexarena/Hex-v0", reward="dense")
    assert set(hexarena.rl.ENV_IDS) == {*SMALL, "hexarena/CityOfGold-Easy-v0"}


def test_city_of_gold_easy_id_gives_a_random_policy_a_signal():
    """The default game pays a random policy nothing in 1,000 turns; the easy id's defaults (one
    course piece, 600 turns, shaped reward) pay it progress at once, overridable as any kwarg."""
    env = gymnasium.make("hexarena/CityOfGold-Easy-v0", seed=1)
    env.reset(seed=4)
    g = env.unwrapped.state.game
    assert (g.n_players, g.n_pawns, g.max_turns, env.unwrapped.reward_mode) == (2, 2, 600, "shaped")
    rewards, info = play_random(env, seed=4)
    assert sum(r != 0 for r in rewards) > 5 and "outcome_reward" in info
    short = gymnasium.make("hexarena/CityOfGold-Easy-v0", max_turns=12, reward="sparse")
    short.reset(seed=4)
    assert short.unwrapped.state.game.max_turns == 12 and short.unwrapped.reward_mode == "sparse"


def test_docstring_example_and_aec_import():
    env = HexarenaGymEnv("hex", role="red", opponents="random", size=7)
    obs, _ = env.reset(seed=0)
    assert obs["action_mask"].sum() == 49
    aec = HexarenaAECEnv("smallworld", players=2)
    aec.reset(seed=1)
    assert aec.agent_selection == "red" and aec.observe("red")["action_mask"].any()


@pytest.mark.parametrize(
    ("game", "params", "actions"),
    [
        ("smallworld", {"players": 3}, 150),
        ("cityofgold", {"n_players": 2, "n_pieces": 1, "max_turns": 30}, 400),
    ],
)
def test_fast_core_equals_the_contract_path(game, params, actions):
    fast = HexarenaGymEnv(game, engine="fast", reward="shaped", **params)
    slow = HexarenaGymEnv(game, engine="contract", reward="shaped", **params)
    rng = np.random.default_rng(0)
    for seed in (1, 2):
        a, _ = fast.reset(seed=seed)
        b, _ = slow.reset(seed=seed)
        for _ in range(actions):
            assert np.array_equal(a["observation"], b["observation"])
            assert np.array_equal(a["action_mask"], b["action_mask"])
            action = int(rng.choice(np.flatnonzero(a["action_mask"])))
            a, ra, ta, ua, _ = fast.step(action)
            b, rb, tb, ub, _ = slow.step(action)
            assert (ra, ta, ua) == (rb, tb, ub)
            if ta or ua:
                break
        assert fast.state.environment_to_json() == slow.state.environment_to_json()


def test_shaped_rewards_add_progress_to_the_outcome():
    env = HexarenaGymEnv("smallworld", reward="shaped", players=2)
    env.reset(seed=4)
    start = env.state.get_scores()["red"]  # the coins every player starts with
    rewards, info = play_random(env, seed=4)
    gained = env.state.get_scores()["red"] - start
    assert sum(rewards) - info["outcome_reward"] == pytest.approx(0.01 * gained) and gained > 0
    env = HexarenaGymEnv("cityofgold", reward="shaped", shaping_scale=1.0, n_players=2, n_pieces=1)
    env.reset(seed=2)
    start = env.core.progress("red")
    total = 0.0
    rng = np.random.default_rng(0)
    for _ in range(300):
        *_, reward, term, trunc, _ = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
        total += reward
        assert not (term or trunc)
    assert total == pytest.approx(env.core.progress("red") - start) and start < 0


class CountingPlayer(RandomPlayer):
    calls = 0

    def act(self, view) -> Reply:
        CountingPlayer.calls += 1
        assert view.viewer == "blue"  # a bot sees its role's view only
        return super().act(view)


def test_opponent_kinds():
    def last_legal(obs, mask):
        return int(np.flatnonzero(mask)[-1])

    env = HexarenaGymEnv("hex", opponents=last_legal, size=3)
    env.reset(seed=0)
    mask = env.step(0)[0]["action_mask"]
    assert mask[0] == 0 and mask[1:8].all() and mask[8] == 0  # blue took the last cell
    env = HexarenaGymEnv("cityofgold", opponents={"blue": CountingPlayer()}, n_players=2, n_pieces=1)
    env.reset(seed=1)
    for _ in range(50):
        env.step(int(np.flatnonzero(env.action_masks())[-1]))
    assert CountingPlayer.calls > 0
    with pytest.raises(ConfigError, match="no spec for role"):
        HexarenaGymEnv("smallworld", opponents={"blue": "random"}, players=3)


def test_an_opponent_playing_illegally_raises_clearly():
    env = HexarenaGymEnv("hex", opponents=lambda obs, mask: 0, size=3)
    env.reset(seed=0)
    with pytest.raises(IllegalMoveError, match="opponent blue played an illegal move"):
        env.step(0)


def test_snapshot_pool_self_play():
    pool = SnapshotPool(capacity=2)
    env = HexarenaGymEnv("hex", role="blue", opponents=pool, size=3)  # red opens
    env.reset(seed=0)  # empty pool: random
    seen = []

    class Policy:
        def __init__(self, tag):
            self.tag = tag

        def __call__(self, obs, mask):
            seen.append(self.tag)
            return int(np.flatnonzero(mask)[0])

    for tag in ("a", "b", "c"):
        pool.add(Policy(tag))
    assert [p.tag for p in pool.snapshots] == ["b", "c"]
    for seed in range(6):
        env.reset(seed=seed)
    assert set(seen) <= {"b", "c"} and seen


def test_maskable_ppo_runs_without_glue():
    sb3 = pytest.importorskip("sb3_contrib")
    env = gymnasium.make("hexarena/Hex-v0", size=3)
    model = sb3.MaskablePPO("MultiInputPolicy", env, n_steps=32, batch_size=16, n_epochs=1, seed=0)
    model.learn(64)
    assert isinstance(
        model.predict(env.reset(seed=0)[0], action_masks=env.unwrapped.action_masks())[0].item(), int
    )


def test_self_play_with_maskable_ppo_snapshots():
    sb3 = pytest.importorskip("sb3_contrib")
    from hexarena.rl.policies import MaskableSnapshot

    pool = SnapshotPool(capacity=3)
    env = gymnasium.make("hexarena/Hex-v0", size=3, opponents=pool)
    model = sb3.MaskablePPO("MultiInputPolicy", env, n_steps=32, batch_size=16, n_epochs=1, seed=0)
    pool.add(MaskableSnapshot(model.policy))
    frozen = [p.detach().clone() for p in pool.snapshots[0].policy.parameters()]
    model.learn(64)  # the env's blue seat plays the snapshot meanwhile
    kept = list(pool.snapshots[0].policy.parameters())
    assert all((a == b).all() for a, b in zip(frozen, kept, strict=True))
    assert any((a != b).any() for a, b in zip(kept, model.policy.parameters(), strict=True))
