"""PPO in JAX on the batched City of Gold engine, PureJaxRL-style: one jitted update.

The learner holds seat 0 of ``num_envs`` games; the other seats play uniform random legal
actions inside the same jitted step (a ``lax.while_loop`` runs them until seat 0 is to act again).
An update is a ``lax.scan`` rollout of ``num_steps`` learner actions, GAE, then ``epochs`` passes
of clipped-objective minibatch steps (optax Adam with global-norm clipping) — all one XLA program.

Observations are :mod:`.cog_features`; rewards are +1 for a win, -1 for a loss, 0 for a
truncation, plus ``shaping`` per hex the learner's pawns gain toward El Dorado (potential-based).
The engine's deck draws need 64-bit integers, so the update is traced with x64 on and the network
runs in float64 (saved policies load as float32). Train with
``python -m hexarena.rl.train cityofgold`` (``make train``).
"""

from __future__ import annotations

import functools
import itertools
import json
from pathlib import Path
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
import optax

from hexarena.games.cityofgold.actions import N_ACTIONS
from hexarena.games.cityofgold.fast import jax_engine as J
from hexarena.games.cityofgold.fast.boards import BoardPool
from hexarena.rl.cog_features import FEATURES, jax_features, pool_tables


class PPOConfig(NamedTuple):
    num_envs: int = 64
    num_steps: int = 64
    lr: float = 3e-4
    gamma: float = 0.99
    gae_lambda: float = 0.95
    clip: float = 0.2
    ent_coef: float = 0.01
    vf_coef: float = 0.5
    epochs: int = 4
    minibatches: int = 4
    max_grad_norm: float = 0.5
    hidden: int = 128
    n_players: int = 2
    n_pieces: int = 1
    max_turns: int = 100
    shaping: float = 0.02
    pool_size: int = 256


# ------------------------------------------------------------------------------ network ---
def init_params(key: jax.Array, hidden: int) -> dict[str, Any]:
    """Separate actor and critic MLPs (two tanh layers), orthogonal init as in PureJaxRL."""
    sizes = {"actor": (FEATURES, hidden, hidden, N_ACTIONS), "critic": (FEATURES, hidden, hidden, 1)}
    params: dict[str, Any] = {}
    for name, dims in sizes.items():
        layers = []
        for i, (a, b) in enumerate(itertools.pairwise(dims)):
            key, k = jax.random.split(key)
            last = i == len(dims) - 2
            scale = (0.01 if name == "actor" else 1.0) if last else np.sqrt(2)
            layers.append({"w": jax.nn.initializers.orthogonal(scale)(k, (a, b)), "b": jnp.zeros(b)})
        params[name] = layers
    return params


def _mlp(layers: list[dict[str, jax.Array]], x: jax.Array) -> jax.Array:
    for layer in layers[:-1]:
        x = jnp.tanh(x @ layer["w"] + layer["b"])
    return x @ layers[-1]["w"] + layers[-1]["b"]


def forward(params: dict[str, Any], obs: jax.Array) -> tuple[jax.Array, jax.Array]:
    """Masked logits (illegal actions at -1e9; the mask is the tail of the features) and value."""
    mask = obs[..., -N_ACTIONS:] > 0.5
    logits = jnp.where(mask, _mlp(params["actor"], obs), -1e9)
    return logits, _mlp(params["critic"], obs)[..., 0]


# --------------------------------------------------------------------------- the world ---
class World(NamedTuple):
    """Static device data: the board pool and its feature tables."""

    boards: J.Boards
    tables: dict[str, jax.Array]


def make_world(cfg: PPOConfig, seed: int) -> tuple[World, J.Config, int]:
    pool = BoardPool(seed, cfg.pool_size, n_pieces=cfg.n_pieces)
    return (
        World(J.Boards.from_pool(pool), pool_tables(pool.courses)),
        J.Config(cfg.n_players, cfg.max_turns),
        pool.size,
    )


def _potential(s: J.State, world: World) -> jax.Array:
    """Minus the hexes seat 0's pawns have left to El Dorado (arrived pawns count 0)."""
    dist = world.tables["dist"][s.board[:, None], jnp.maximum(s.pawns[:, 0], 0)]
    return -jnp.where(s.pawns[:, 0] >= 0, dist, 0).sum(axis=1).astype(jnp.float32)


def env_step(
    s: J.State, action: jax.Array, key: jax.Array, world: World, jcfg: J.Config, size: int
) -> tuple[J.State, jax.Array, jax.Array, jax.Array]:
    """Seat 0 plays ``action``, random seats play until seat 0 is to act again (a finished game
    auto-resets to the next one, where seat 0 starts). Returns state, done, win, loss."""

    def outcome(s: J.State) -> tuple[jax.Array, jax.Array, jax.Array]:
        over = s.terminated & ~s.truncated
        return s.terminated | s.truncated, over & (s.rewards[:, 0] > 0), over & (s.rewards[:, 0] <= 0)

    s, _ = J._step_batch(s, action, world.boards, jcfg, size)
    carry = (s, *outcome(s), key)

    def others_to_act(c: tuple) -> jax.Array:
        return (c[0].current_player != 0).any()

    def random_seats(c: tuple) -> tuple:
        s, done, win, loss, key = c
        key, k = jax.random.split(key)
        a = jnp.where(s.current_player != 0, J.random_legal_actions(k, s.legal_action_mask), -1)
        s, _ = J._step_batch(s, a, world.boards, jcfg, size)
        d, w, lo = outcome(s)
        return s, done | d, win | w, loss | lo, key

    s, done, win, loss, _ = jax.lax.while_loop(others_to_act, random_seats, carry)
    return s, done, win, loss


class Runner(NamedTuple):
    params: dict[str, Any]
    opt_state: Any
    env: J.State
    key: jax.Array
    ep_return: jax.Array


def make_train(cfg: PPOConfig, world: World, jcfg: J.Config, size: int) -> tuple[Any, Any]:
    """``(init(key) -> Runner, update(Runner) -> (Runner, metrics))``, the update jitted."""
    tx = optax.chain(optax.clip_by_global_norm(cfg.max_grad_norm), optax.adam(cfg.lr, eps=1e-5))

    def init(key: jax.Array) -> Runner:
        key, k = jax.random.split(key)
        params = init_params(k, cfg.hidden)
        env = J.init(jnp.arange(cfg.num_envs, dtype=jnp.int32), world.boards, jcfg, size)
        key, k = jax.random.split(key)
        env, *_ = env_step(env, jnp.full(cfg.num_envs, -1, jnp.int32), k, world, jcfg, size)
        return Runner(params, tx.init(params), env, key, jnp.zeros(cfg.num_envs))

    def rollout_step(r: Runner, _: Any) -> tuple[Runner, tuple]:
        obs = jax_features(r.env, world.tables, cfg.max_turns)
        logits, value = forward(r.params, obs)
        key, k_act, k_env = jax.random.split(r.key, 3)
        action = jax.random.categorical(k_act, logits)
        logp = jax.nn.log_softmax(logits)[jnp.arange(cfg.num_envs), action]
        before = _potential(r.env, world)
        env, done, win, loss = env_step(r.env, action, k_env, world, jcfg, size)
        shaped = jnp.where(done, 0.0, cfg.shaping * (_potential(env, world) - before))
        reward = win.astype(jnp.float32) - loss.astype(jnp.float32) + shaped
        ep_return = r.ep_return + reward
        info = (done, win, jnp.where(done, ep_return, 0.0))
        r = r._replace(env=env, key=key, ep_return=jnp.where(done, 0.0, ep_return))
        return r, (obs, action, logp, value, reward, done, info)

    def gae(values: jax.Array, rewards: jax.Array, dones: jax.Array, last: jax.Array) -> jax.Array:
        def back(c: tuple, t: tuple) -> tuple:
            adv, nxt = c
            v, rew, d = t
            delta = rew + cfg.gamma * nxt * (1 - d) - v
            adv = delta + cfg.gamma * cfg.gae_lambda * (1 - d) * adv
            return (adv, v), adv

        _, adv = jax.lax.scan(back, (jnp.zeros_like(last), last), (values, rewards, dones), reverse=True)
        return adv

    def loss_fn(params: dict, batch: tuple) -> tuple[jax.Array, tuple]:
        obs, action, logp_old, adv, target = batch
        logits, value = forward(params, obs)
        logp_all = jax.nn.log_softmax(logits)
        logp = jnp.take_along_axis(logp_all, action[:, None], axis=1)[:, 0]
        ratio = jnp.exp(logp - logp_old)
        adv = (adv - adv.mean()) / (adv.std() + 1e-8)
        pg = -jnp.minimum(ratio * adv, jnp.clip(ratio, 1 - cfg.clip, 1 + cfg.clip) * adv).mean()
        vf = 0.5 * ((value - target) ** 2).mean()
        probs = jnp.exp(logp_all)
        entropy = -jnp.sum(jnp.where(probs > 0, probs * logp_all, 0.0), axis=1).mean()
        return pg + cfg.vf_coef * vf - cfg.ent_coef * entropy, (pg, vf, entropy)

    def update(r: Runner) -> tuple[Runner, dict[str, jax.Array]]:
        with jax.enable_x64(True):
            return update_jit(r)

    def _update(r: Runner) -> tuple[Runner, dict[str, jax.Array]]:
        r, (obs, action, logp, value, reward, done, info) = jax.lax.scan(rollout_step, r, None, cfg.num_steps)
        _, last = forward(r.params, jax_features(r.env, world.tables, cfg.max_turns))
        adv = gae(value, reward, done.astype(jnp.float32), last)
        flat = jax.tree.map(lambda x: x.reshape((-1, *x.shape[2:])), (obs, action, logp, adv, adv + value))
        n = cfg.num_envs * cfg.num_steps

        def epoch(c: tuple, _: Any) -> tuple:
            params, opt_state, key = c
            key, k = jax.random.split(key)
            order = jax.random.permutation(k, n).reshape(cfg.minibatches, -1)

            def minibatch(c: tuple, idx: jax.Array) -> tuple:
                params, opt_state = c
                batch = jax.tree.map(lambda x: x[idx], flat)
                (loss, parts), grads = jax.value_and_grad(loss_fn, has_aux=True)(params, batch)
                updates, opt_state = tx.update(grads, opt_state, params)
                return (optax.apply_updates(params, updates), opt_state), (loss, *parts)

            (params, opt_state), losses = jax.lax.scan(minibatch, (params, opt_state), order)
            return (params, opt_state, key), losses

        (params, opt_state, key), losses = jax.lax.scan(
            epoch, (r.params, r.opt_state, r.key), None, cfg.epochs
        )
        finished, won, returns = info
        metrics = {
            "loss": losses[0].mean(),
            "entropy": losses[3].mean(),
            "episodes": finished.sum(),
            "wins": won.sum(),
            "return_sum": returns.sum(),
        }
        return r._replace(params=params, opt_state=opt_state, key=key), metrics

    update_jit = jax.jit(_update)

    def init_x64(key: jax.Array) -> Runner:
        with jax.enable_x64(True):
            return jax.jit(init)(key)

    return init_x64, update


# -------------------------------------------------------------------------- evaluation ---
def evaluate(
    params: dict[str, Any], cfg: PPOConfig, games: int, seed: int, greedy: bool = True
) -> dict[str, float]:
    """Seat 0 plays one game in each of ``games`` envs on a held-out pool against random seats;
    the win rate counts every env's first game (long games are not under-counted)."""
    world, jcfg, size = make_world(cfg._replace(pool_size=min(games, 1024)), seed)

    @functools.partial(jax.jit, static_argnames="steps")
    def run(env: J.State, key: jax.Array, first: jax.Array, steps: int) -> tuple:
        def body(c: tuple, _: Any) -> tuple:
            env, key, first_done, first_win = c
            key, k1, k2 = jax.random.split(key, 3)
            logits, _ = forward(params, jax_features(env, world.tables, cfg.max_turns))
            action = jnp.argmax(logits, axis=1) if greedy else jax.random.categorical(k1, logits)
            env, done, win, _ = env_step(env, action.astype(jnp.int32), k2, world, jcfg, size)
            first_win = first_win | (win & ~first_done)
            return (env, key, first_done | done, first_win), None

        return jax.lax.scan(body, (env, key, *first), None, steps)[0]

    with jax.enable_x64(True):
        env = J.init(jnp.arange(games, dtype=jnp.int32), world.boards, jcfg, size)
        key = jax.random.PRNGKey(seed)
        env, *_ = jax.jit(env_step, static_argnames=("jcfg", "size"))(
            env, jnp.full(games, -1, jnp.int32), key, world, jcfg, size
        )
        c = (env, key, jnp.zeros(games, bool), jnp.zeros(games, bool))
        for _ in range(64):  # up to 64 x 128 learner actions per game; max_turns ends them sooner
            c = run(c[0], c[1], (c[2], c[3]), 128)
            if bool(c[2].all()):
                break
    done, won = np.asarray(c[2]), np.asarray(c[3])
    return {"games": int(done.sum()), "win_rate": float(won[done].mean()) if done.any() else 0.0}


# --------------------------------------------------------------------------- save/load ---
def save_policy(path: str | Path, params: dict[str, Any], cfg: PPOConfig) -> None:
    """An ``.npz`` of the actor and critic weights with the config as JSON (``meta``)."""
    flat = {
        f"{net}/{i}/{k}": np.asarray(v)
        for net in params
        for i, layer in enumerate(params[net])
        for k, v in layer.items()
    }
    meta = json.dumps({"kind": "hexarena-jax-ppo", "game": "cityofgold", "config": cfg._asdict()})
    np.savez(Path(path), meta=np.array(meta), **flat)


def load_policy(path: str | Path) -> tuple[dict[str, Any], PPOConfig]:
    data = np.load(Path(path))
    meta = json.loads(str(data["meta"]))
    params: dict[str, list[dict[str, jax.Array]]] = {}
    for name in sorted(k for k in data.files if k != "meta"):
        net, i, k = name.split("/")
        layers = params.setdefault(net, [])
        while len(layers) <= int(i):
            layers.append({})
        layers[int(i)][k] = jnp.asarray(data[name])
    return params, PPOConfig(**meta["config"])
