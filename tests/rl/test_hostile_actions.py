"""Actions that are no actions: the Gymnasium envs refuse what their Discrete space refuses (and
booleans); City of Gold's batched backends agree on an action out of range (no wrapping round
to a legal one) and refuse an actions array of the wrong shape or kind with a clear message."""

import gymnasium
import numpy as np
import pytest

import hexarena.rl  # noqa: F401  (registers the hexarena/ environments)
from hexarena.games.cityofgold.env import CityOfGoldEnv
from hexarena.games.cityofgold.vec import get_vec_env, get_vec_sampler


@pytest.mark.parametrize("action", [1.5, "3", True, None, [1]])
def test_gymnasium_envs_refuse_what_is_no_action(action):
    env = gymnasium.make("hexarena/Hex-v0", size=3)
    env.reset(seed=1)
    with pytest.raises(ValueError, match="is not in Discrete"):
        env.step(action)
    cog = CityOfGoldEnv(n_players=2)
    cog.reset(seed=1)
    with pytest.raises(ValueError, match="an action is an integer"):
        cog.step(action)


@pytest.mark.parametrize("backend", ["python", "cpu", "jax"])
def test_vec_backends_agree_on_actions_out_of_range_and_refuse_wrong_arrays(backend):
    n = 3
    env = get_vec_env(n, backend)()
    env.reset(4, 2, 2, "easy", 30, False)
    legal = get_vec_sampler(n)(4).sample(env.action_masks).astype(np.int64)
    env.step(legal + 2**40)  # as an int32 this is the legal action itself
    assert env.invalid.all()
    for wrong, what in [
        (np.zeros(n + 1, np.int64), "shape (4,)"),
        (np.zeros((n, 1), np.int64), "shape (3, 1)"),
        (np.zeros(n, np.float32), "dtype float32"),
        ([0] * n, "got a list"),
    ]:
        with pytest.raises(ValueError, match=r"actions must be a NumPy array of shape \(3,\)") as err:
            env.step(wrong)
        assert what in str(err.value)
