"""PPO in JAX on the batched City of Gold engine, PureJaxRL-style: one jitted update.

The learner holds one seat of each of ``num_envs`` games (seat 0, or with ``alternate`` env
``i``'s seat ``i % n_players``, so it learns to move first and second); the other seats play inside
the same jitted step (a ``lax.while_loop`` runs them until the learner is to act again): uniform
random legal actions in the first ``random_share`` of the envs, and in the others an opponent
policy passed to each update — self-play against the learner's own weights or, with ``league``,
against a league of its past snapshots (:class:`League`), so it cannot overfit one opponent.
An update is a ``lax.scan`` rollout of ``num_steps`` learner actions, GAE, then ``epochs`` passes
of clipped-objective minibatch steps (optax Adam with global-norm clipping) — all one XLA program.

Observations are :mod:`.cog_features`; rewards are +1 for a win, -1 for a loss, 0 for a
truncation, plus ``shaping`` per hex the learner's pawns gain toward El Dorado (potential-based).
The engine's deck draws need 64-bit integers, so the update is traced with x64 on; the network's
weights stay float32. Train with ``python -m hexarena.rl.train cityofgold`` (``make train``).
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
    alternate: bool = False
    random_share: float = 1.0
    league: int = 0
    snapshot_every: int = 10


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
            w = jax.nn.initializers.orthogonal(scale)(k, (a, b), jnp.float32)
            layers.append({"w": w, "b": jnp.zeros(b, jnp.float32)})
        params[name] = layers
    return params


def _mlp(layers: list[dict[str, jax.Array]], x: jax.Array) -> jax.Array:
    for layer in layers[:-1]:
        x = jnp.tanh(x @ layer["w"] + layer["b"])
    return x @ layers[-1]["w"] + layers[-1]["b"]


def forward(params: dict[str, Any], obs: jax.Array) -> tuple[jax.Array, jax.Array]:
    """Masked logits (illegal actions at -1e9; the mask is the tail of the features) and value."""
    obs = obs.astype(jnp.float32)
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


def _potential(s: J.State, world: World, seat: jax.Array) -> jax.Array:
    """Minus the hexes the learner's pawns have left to El Dorado (arrived pawns count 0)."""
    pawns = s.pawns[jnp.arange(seat.shape[0]), seat]
    dist = world.tables["dist"][s.board[:, None], jnp.maximum(pawns, 0)]
    return -jnp.where(pawns >= 0, dist, 0).sum(axis=1).astype(jnp.float32)


class Opponents(NamedTuple):
    """Who plays the other seats: the learner's seat per env, which envs play random actions, and
    the policy the others follow (sampled, as a player would be), or ``None``: all random."""

    seat: jax.Array
    random: jax.Array
    params: dict[str, Any] | None


def opponents_for(cfg: PPOConfig, n: int, params: dict[str, Any] | None = None) -> Opponents:
    seat = jnp.arange(n, dtype=jnp.int32) % cfg.n_players if cfg.alternate else jnp.zeros(n, jnp.int32)
    return Opponents(seat, jnp.arange(n) < round(cfg.random_share * n), params)


def env_step(
    s: J.State,
    action: jax.Array,
    key: jax.Array,
    world: World,
    jcfg: J.Config,
    size: int,
    opp: Opponents,
    max_turns: int,
) -> tuple[J.State, jax.Array, jax.Array, jax.Array]:
    """The learner plays ``action`` (-1: none), the other seats play until the learner is to act
    again (a finished game auto-resets to the next one). Returns state, done, win, loss."""
    rows = jnp.arange(action.shape[0])

    def outcome(s: J.State) -> tuple[jax.Array, jax.Array, jax.Array]:
        over = s.terminated & ~s.truncated
        mine = s.rewards[rows, opp.seat]
        return s.terminated | s.truncated, over & (mine > 0), over & (mine <= 0)

    action = jnp.where(s.current_player == opp.seat, action, -1)
    s, _ = J._step_batch(s, action, world.boards, jcfg, size)
    carry = (s, *outcome(s), key)

    def others_to_act(c: tuple) -> jax.Array:
        return (c[0].current_player != opp.seat).any()

    def other_seats(c: tuple) -> tuple:
        s, done, win, loss, key = c
        key, k_random, k_policy = jax.random.split(key, 3)
        a = J.random_legal_actions(k_random, s.legal_action_mask)
        if opp.params is not None:
            logits, _ = forward(opp.params, jax_features(s, world.tables, max_turns))
            a = jnp.where(opp.random, a, jax.random.categorical(k_policy, logits).astype(a.dtype))
        s, _ = J._step_batch(s, jnp.where(s.current_player != opp.seat, a, -1), world.boards, jcfg, size)
        d, w, lo = outcome(s)
        return s, done | d, win | w, loss | lo, key

    s, done, win, loss, _ = jax.lax.while_loop(others_to_act, other_seats, carry)
    return s, done, win, loss


class League:
    """Opponents for self-play: the learner's current weights half the time, else one of up to
    ``size`` past snapshots (``add`` every ``snapshot_every`` updates; when full, a random one but
    the first is dropped, so the earliest, weakest style stays in the mix)."""

    def __init__(self, size: int, seed: int) -> None:
        self.size, self.snapshots = size, []
        self.rng = np.random.default_rng(seed)

    def add(self, params: dict[str, Any]) -> None:
        if self.size <= 0:
            return
        if len(self.snapshots) >= self.size:
            del self.snapshots[int(self.rng.integers(1, len(self.snapshots))) if self.size > 1 else 0]
        self.snapshots.append(params)  # jax arrays are immutable: the update makes new ones

    def draw(self, current: dict[str, Any]) -> dict[str, Any]:
        if not self.snapshots or self.rng.random() < 0.5:
            return current
        return self.snapshots[int(self.rng.integers(len(self.snapshots)))]


class Runner(NamedTuple):
    params: dict[str, Any]
    opt_state: Any
    env: J.State
    key: jax.Array
    ep_return: jax.Array


def learner_gae(
    values: jax.Array,
    rewards: jax.Array,
    dones: jax.Array,
    mine: jax.Array,
    last: jax.Array,
    last_mine: jax.Array,
    gamma: float,
    lam: float,
) -> jax.Array:
    """GAE over the learner's own steps of ``[T, n]`` rollouts in which other seats also move
    (0 on theirs). A step's reward is what came after it until the learner's next step; a
    finished game cuts the chain. After the last step, ``last`` bootstraps where the learner is
    to act (``last_mine``); elsewhere its last step's own value stands in for the next one."""

    def back(c: tuple, t: tuple) -> tuple:
        adv_next, v_next, acc, own = c
        v, rew, d, m = t
        adv_next, v_next = jnp.where(d, 0.0, adv_next), jnp.where(d, 0.0, v_next)
        acc, own = jnp.where(d, 0.0, acc) + rew, own & ~d
        adv = acc + gamma * jnp.where(own, v, v_next) - v + gamma * lam * adv_next
        adv_next, v_next = jnp.where(m, adv, adv_next), jnp.where(m, v, v_next)
        acc, own = jnp.where(m, 0.0, acc), own & ~m
        return (adv_next, v_next, acc, own), jnp.where(m, adv, 0.0)

    init = (jnp.zeros_like(last), jnp.where(last_mine, last, 0.0), jnp.zeros_like(last), ~last_mine)
    return jax.lax.scan(back, init, (values, rewards, dones, mine), reverse=True)[1]


def make_train(cfg: PPOConfig, world: World, jcfg: J.Config, size: int) -> tuple[Any, Any]:
    """``(init(key) -> Runner, update(Runner, opponent) -> (Runner, metrics))``, the update
    jitted; ``opponent`` holds the weights the non-random opponents follow in this update (the
    runner's own for self-play, a league snapshot; ignored when ``random_share`` is 1).

    Each rollout step is one batch step in which every env's player to act moves: the learner
    where it holds the turn, an opponent elsewhere (no loop waits for the slowest opponent
    turn of the batch). Only the learner's steps train; the rewards of the steps between two of
    them (the opponent's turn, a win or loss on its move) count toward the earlier one."""
    tx = optax.chain(optax.clip_by_global_norm(cfg.max_grad_norm), optax.adam(cfg.lr, eps=1e-5))
    self_play = cfg.random_share < 1.0
    opp = opponents_for(cfg, cfg.num_envs)
    rows = jnp.arange(cfg.num_envs)

    def init(key: jax.Array) -> Runner:
        key, k = jax.random.split(key)
        params = init_params(k, cfg.hidden)
        env = J.init(jnp.arange(cfg.num_envs, dtype=jnp.int32), world.boards, jcfg, size)
        return Runner(params, tx.init(params), env, key, jnp.zeros(cfg.num_envs))

    def rollout_step(r: Runner, opponent: Any) -> tuple[Runner, tuple]:
        obs = jax_features(r.env, world.tables, cfg.max_turns)  # the player to act's view
        logits, value = forward(r.params, obs)
        key, k_act, k_opp, k_random = jax.random.split(r.key, 4)
        mine = r.env.current_player == opp.seat
        action = jax.random.categorical(k_act, logits).astype(jnp.int32)
        other = J.random_legal_actions(k_random, r.env.legal_action_mask)
        if self_play:
            opp_logits, _ = forward(opponent, obs)
            policy = jax.random.categorical(k_opp, opp_logits).astype(jnp.int32)
            other = jnp.where(opp.random, other, policy)
        logp = jax.nn.log_softmax(logits)[rows, action]
        before = _potential(r.env, world, opp.seat)
        env, _ = J._step_batch(r.env, jnp.where(mine, action, other), world.boards, jcfg, size)
        done = env.terminated | env.truncated
        over = env.terminated & ~env.truncated
        win, loss = over & (env.rewards[rows, opp.seat] > 0), over & (env.rewards[rows, opp.seat] <= 0)
        shaped = jnp.where(done, 0.0, cfg.shaping * (_potential(env, world, opp.seat) - before))
        reward = win.astype(jnp.float32) - loss.astype(jnp.float32) + shaped
        ep_return = r.ep_return + reward
        info = (done, win, jnp.where(done, ep_return, 0.0), opp.random)
        r = r._replace(env=env, key=key, ep_return=jnp.where(done, 0.0, ep_return))
        return r, (obs, action, logp, value, reward, done, mine, info)

    def loss_fn(params: dict, batch: tuple) -> tuple[jax.Array, tuple]:
        obs, action, logp_old, adv, target, weight = batch
        logits, value = forward(params, obs)
        logp_all = jax.nn.log_softmax(logits)
        logp = jnp.take_along_axis(logp_all, action[:, None], axis=1)[:, 0]
        ratio = jnp.exp(logp - logp_old)
        n = jnp.maximum(weight.sum(), 1.0)

        def mean(x: jax.Array) -> jax.Array:
            return (weight * x).sum() / n

        adv = (adv - mean(adv)) / (jnp.sqrt(mean((adv - mean(adv)) ** 2)) + 1e-8)
        pg = -mean(jnp.minimum(ratio * adv, jnp.clip(ratio, 1 - cfg.clip, 1 + cfg.clip) * adv))
        vf = 0.5 * mean((value - target) ** 2)
        probs = jnp.exp(logp_all)
        entropy = mean(-jnp.sum(jnp.where(probs > 0, probs * logp_all, 0.0), axis=1))
        return pg + cfg.vf_coef * vf - cfg.ent_coef * entropy, (pg, vf, entropy)

    def update(r: Runner, opponent: Any = None) -> tuple[Runner, dict[str, jax.Array]]:
        with jax.enable_x64(True):
            return update_jit(r, r.params if opponent is None else opponent)

    def _update(r: Runner, opponent: Any) -> tuple[Runner, dict[str, jax.Array]]:
        r, (obs, action, logp, value, reward, done, mine, info) = jax.lax.scan(
            lambda r, _: rollout_step(r, opponent), r, None, cfg.num_steps
        )
        _, last = forward(r.params, jax_features(r.env, world.tables, cfg.max_turns))
        last_mine = r.env.current_player == opp.seat
        adv = learner_gae(value, reward, done, mine, last, last_mine, cfg.gamma, cfg.gae_lambda)
        weight = mine.astype(jnp.float32)
        batch = (obs, action, logp, adv, adv + value, weight)
        flat = jax.tree.map(lambda x: x.reshape((-1, *x.shape[2:])), batch)
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
        finished, won, returns, vs_random = info
        metrics = {
            "learner_steps": mine.sum(),
            "loss": losses[0].mean(),
            "entropy": losses[3].mean(),
            "episodes": finished.sum(),
            "wins": won.sum(),
            "return_sum": returns.sum(),
            "episodes_vs_random": (finished & vs_random).sum(),
            "wins_vs_random": (won & vs_random).sum(),
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
    """The policy plays one game in each of ``games`` envs on a held-out pool against random seats
    (seat alternated when ``cfg.alternate``); the win rate counts every env's first game (long
    games are not under-counted)."""
    world, jcfg, size = make_world(cfg._replace(pool_size=min(games, 1024)), seed)
    opp = opponents_for(cfg._replace(random_share=1.0), games)

    @functools.partial(jax.jit, static_argnames="steps")
    def run(env: J.State, key: jax.Array, first: jax.Array, steps: int) -> tuple:
        def body(c: tuple, _: Any) -> tuple:
            env, key, first_done, first_win = c
            key, k1, k2 = jax.random.split(key, 3)
            logits, _ = forward(params, jax_features(env, world.tables, cfg.max_turns))
            action = jnp.argmax(logits, axis=1) if greedy else jax.random.categorical(k1, logits)
            env, done, win, _ = env_step(
                env, action.astype(jnp.int32), k2, world, jcfg, size, opp, cfg.max_turns
            )
            first_win = first_win | (win & ~first_done)
            return (env, key, first_done | done, first_win), None

        return jax.lax.scan(body, (env, key, *first), None, steps)[0]

    with jax.enable_x64(True):
        env = J.init(jnp.arange(games, dtype=jnp.int32), world.boards, jcfg, size)
        key = jax.random.PRNGKey(seed)
        env, *_ = jax.jit(env_step, static_argnames=("jcfg", "size", "max_turns"))(
            env, jnp.full(games, -1, jnp.int32), key, world, jcfg, size, opp, cfg.max_turns
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
