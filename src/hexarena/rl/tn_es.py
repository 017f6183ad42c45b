"""OpenAI-style evolution strategies for Terra Nova on the batched simulator.

Each generation draws ``pairs`` antithetic perturbations ``mean +- sigma * eps`` of the
preference policy (:mod:`.tn_policy`) and plays one 60-round game per candidate against five
uniform random players (the spec's :func:`random_actions`), all in one batch. The two candidates
of a pair share common random numbers: the same map, seat and random stream, so their difference
is the perturbation's, not the draw's. A candidate's fitness is its score margin over the best
random player of its game (denser than win or loss); the mean moves along the centred-rank
estimate of the gradient with Adam. The batch also holds ``monitor`` games of the unperturbed
mean: the learning curve. Every game of a generation shares one compiled step (one batch shape),
as does the evaluation (:func:`evaluate`). The mean starts from ``theta0``: zeros (the uniform
random player) or the behaviour-cloned warm start of :mod:`.tn_bc`.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from hexarena.games.terranova.engine.mapgen import generate
from hexarena.games.terranova.engine.simulator import build_simulator
from hexarena.games.terranova.engine.spaces import random_actions
from hexarena.games.terranova.engine.state import N_PLAYERS, MapLayers, map_layers
from hexarena.games.terranova.engine.step import player_scores
from hexarena.rl.es import Adam, centred_ranks
from hexarena.rl.tn_policy import N_PARAMS, act

RANDOM = -1  # a seat of the seat table played by the uniform random player
VALID_SEED = 900_000  # map seeds of the held-out games that pick the generation kept


class ESConfig(NamedTuple):
    pairs: int = 28  # antithetic pairs a generation: 2 * pairs candidates and games
    monitor: int = 8  # extra games a generation: the mean against five random players
    turn_cap: int = 60  # rounds a game
    sigma: float = 0.3  # perturbation scale (the policy's logits; its noise is standard Gumbel)
    lr: float = 0.03  # Adam step
    map_pool: int = 256  # training maps: seeds 0 .. map_pool - 1
    warm_scale: float = 1.0  # the warm start's logits times this (> 1: sharper than the bot's mix)


def n_games(cfg: ESConfig) -> int:
    return 2 * cfg.pairs + cfg.monitor


def seat_table(cfg: ESConfig, generation: int) -> np.ndarray:
    """(games, 6) index of the candidate in each seat; ``2 * pairs`` is the mean, -1 random. Game
    ``g < 2 * pairs`` seats candidate ``g``; a pair's two games put it in the same seat."""
    p = 2 * cfg.pairs
    table = np.full((n_games(cfg), N_PLAYERS), RANDOM, np.int32)
    for g in range(p):
        table[g, (generation + g % cfg.pairs) % N_PLAYERS] = g
    for j in range(cfg.monitor):
        table[p + j, (generation * cfg.monitor + j) % N_PLAYERS] = p
    return table


def game_maps(cfg: ESConfig, generation: int) -> np.ndarray:
    """(games,) map seed of each game: a pair's two games share one, every game of a generation
    another, cycling through the pool."""
    distinct = cfg.pairs + cfg.monitor
    fresh = (generation * distinct + np.arange(distinct)) % cfg.map_pool
    return np.concatenate([fresh[: cfg.pairs], fresh[: cfg.pairs], fresh[cfg.pairs :]])


def streams(cfg: ESConfig) -> np.ndarray:
    """(games,) random stream of each game: a pair's two games share one (common random numbers)."""
    p = 2 * cfg.pairs
    return np.concatenate([np.arange(p) % cfg.pairs, cfg.pairs + np.arange(cfg.monitor)]).astype(np.int32)


def margins(final: np.ndarray, table: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per game: the score of its learner (the one non-random seat) and the best random score."""
    seat = (table != RANDOM).argmax(1)
    mine = final[np.arange(len(final)), seat]
    return mine, np.where(table == RANDOM, final, -np.inf).max(1)


@jax.jit
def _choose(thetas: jax.Array, table: jax.Array, obs: dict, key: jax.Array, stream: jax.Array) -> tuple:
    """The batch's actions: each game's mover plays its seat's policy, or uniform random scores;
    game ``g`` draws from ``fold_in(key, stream[g])``."""

    def one(row: jax.Array, o: dict, k: jax.Array) -> tuple:
        idx = row[o["player_id"]]
        k1, k2 = jax.random.split(k)
        mine = act(thetas[jnp.maximum(idx, 0)], o, k1)
        rand = random_actions(k2)
        return jax.tree_util.tree_map(lambda a, b: jnp.where(idx >= 0, a, b), mine, rand)

    flat = jax.tree_util.tree_map(lambda x: x[0], obs)  # one device
    keys = jax.vmap(lambda i: jax.random.fold_in(key, i))(stream)
    out = jax.vmap(one)(table, flat, keys)
    return jax.tree_util.tree_map(lambda x: x[None], out)


_scores = jax.jit(jax.vmap(jax.vmap(player_scores)))


def play(
    layers: Sequence[MapLayers],
    key: jax.Array,
    thetas: jax.Array,
    table: np.ndarray,
    turn_cap: int,
    stream: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray, int]:
    """Play one batch of games to the end: (final scores (games, 6), winners (games,): the seat
    that won by score or victory, -1 on a tie for first; env steps taken). Games with the same
    ``stream`` (default: each its own) draw the same random numbers."""
    k_init, key = jax.random.split(key)
    step, games, tracker, metrics, ids, obs, _mesh, _sh = build_simulator(
        list(layers), "duplicate", k_init, turn_cap=turn_cap, auto_reset=False
    )
    n = len(layers)
    final = np.zeros((n, N_PLAYERS), np.float32)
    seen = np.zeros(n, bool)
    table_j = jnp.asarray(table)
    stream_j = jnp.asarray(np.arange(n) if stream is None else stream, jnp.int32)
    steps = 0
    while not seen.all():
        key, sub = jax.random.split(key)
        actions = _choose(thetas, table_j, obs, sub, stream_j)
        games, tracker, metrics, ids, obs, _r, done, _x = step(games, actions, tracker, metrics, ids)
        steps += 1
        fresh = np.asarray(done)[0] & ~seen
        if fresh.any():
            final[fresh] = np.asarray(_scores(games))[0][fresh]
            seen |= fresh
    victor = np.asarray(metrics["last_winner"])[0]
    top = final.max(1, keepdims=True)
    by_score = np.where((final == top).sum(1) == 1, final.argmax(1), -1)
    return final, np.where(victor >= 0, victor, by_score), steps * n


def pool_layers(seeds: Sequence[int]) -> list[MapLayers]:
    return [map_layers(generate(int(s))) for s in seeds]


def train(
    cfg: ESConfig,
    seed: int,
    minutes: float,
    generations: int | None = None,
    theta0: np.ndarray | None = None,
    log: Any = print,
    valid_games: int = 0,
    valid_every: int = 3,
) -> dict[str, Any]:
    """Run ES from ``theta0`` (default zeros) until ``minutes`` (or ``generations``) pass; returns
    the weights kept, the curve and timings. With ``valid_games``, the start and the mean every
    ``valid_every`` generations (and the last) play that many held-out games against random
    players (map seeds :data:`VALID_SEED` ..), and the best of them is kept: ES's mean wanders
    (14 generations from the cloned start ended at 84 % against random players, where one
    generation had given 89-92 %), and the 8 monitor games a generation are too few to tell."""
    rng = np.random.default_rng(seed)
    g_total, p = n_games(cfg), 2 * cfg.pairs
    stream = streams(cfg)
    start_at = np.zeros(N_PARAMS) if theta0 is None else cfg.warm_scale * np.asarray(theta0)
    mean = start_at.astype(np.float32)
    opt = Adam(N_PARAMS, cfg.lr)
    key = jax.random.PRNGKey(seed)
    names = ("generation", "env_steps", "wall_s", "mean_margin", "best_margin", "candidates_win_rate")
    curve: dict[str, list[float]] = {k: [] for k in names}
    curve |= {"mean_score_vs_random": [], "win_rate_vs_random": [], "best_random_score": []}
    start, steps, gen = time.perf_counter(), 0, 0
    first_done = None
    valid: list[dict[str, Any]] = []

    def validate() -> None:
        t = time.perf_counter()
        point = evaluate(mean, cfg, valid_games, VALID_SEED) | {"generation": gen, "theta": mean.copy()}
        point["wall_s"] = round(time.perf_counter() - t, 1)
        valid.append(point)
        log(f"held out, generation {gen}: won {point['win_rate']:.3f} of {point['games']}")

    if valid_games:
        validate()
    while generations is None or gen < generations:
        eps = rng.standard_normal((cfg.pairs, N_PARAMS)).astype(np.float32)
        cands = np.concatenate([mean + cfg.sigma * eps, mean - cfg.sigma * eps, mean[None]])
        table = seat_table(cfg, gen)
        layers = pool_layers(game_maps(cfg, gen))
        key, sub = jax.random.split(key)
        final, winner, n = play(layers, sub, jnp.asarray(cands), table, cfg.turn_cap, stream)
        steps += n
        mine, best_random = margins(final, table)
        won = winner == (table != RANDOM).argmax(1)
        fitness = (mine - best_random)[:p]
        w = centred_ranks(fitness)
        grad = (w[: cfg.pairs] - w[cfg.pairs :]) @ eps / (p * cfg.sigma)
        mean = (mean + opt.step(grad)).astype(np.float32)
        mon = slice(p, g_total)
        gen += 1
        elapsed = time.perf_counter() - start
        for name, value in (
            ("generation", gen),
            ("env_steps", steps),
            ("wall_s", round(elapsed, 1)),
            ("mean_margin", float(fitness.mean())),
            ("best_margin", float(fitness.max())),
            ("candidates_win_rate", float(won[:p].mean())),
            ("mean_score_vs_random", float(mine[mon].mean()) if cfg.monitor else float("nan")),
            ("win_rate_vs_random", float(won[mon].mean()) if cfg.monitor else float("nan")),
            ("best_random_score", float(best_random[mon].mean()) if cfg.monitor else float("nan")),
        ):
            curve[name].append(value)
        if first_done is None:
            first_done = (elapsed - sum(v["wall_s"] for v in valid), steps)
        log(
            f"generation {gen}: {steps:,} env steps, {elapsed:,.0f} s; candidates: margin over the "
            f"best random player {fitness.mean():+.2f} (best {fitness.max():+.2f}), won "
            f"{won[:p].mean():.2f}; the mean: won {curve['win_rate_vs_random'][-1]:.2f} of {cfg.monitor}"
        )
        out_of_time = elapsed > minutes * 60
        if valid_games and (out_of_time or gen == generations or gen % valid_every == 0):
            validate()
        if out_of_time:
            break
    wall = time.perf_counter() - start
    playing = wall - sum(v["wall_s"] for v in valid)  # the held-out games are not training
    later_s, later_steps = playing - first_done[0], steps - first_done[1]
    kept = max(
        valid, key=lambda v: (v["win_rate"], v["mean_score"] - v["mean_best_random_score"]), default=None
    )
    return {
        "theta": kept["theta"] if kept else mean,
        "kept_generation": kept["generation"] if kept else gen,
        "valid": [{k: v for k, v in point.items() if k != "theta"} for point in valid],
        "curve": curve,
        "generations": gen,
        "env_steps": steps,
        "wall_s": wall,
        "env_steps_per_s": later_steps / later_s if later_steps else steps / playing,
    }


def evaluate(
    theta: np.ndarray, cfg: ESConfig, games: int, seed: int, minutes: float | None = None
) -> dict[str, Any]:
    """``theta`` against five uniform random players in ``games`` games on map seeds ``seed ..``
    (batches of the training shape), game ``k`` in seat ``k % 6``; with ``minutes``, no new batch
    starts after that time (``games`` then counts the games played)."""
    g_total = n_games(cfg)
    deadline = None if minutes is None else time.perf_counter() + 60 * minutes
    thetas = jnp.asarray(np.asarray(theta, np.float32)[None])
    won, scores, best_other, done = 0, [], [], 0
    key = jax.random.PRNGKey(seed)
    while done < games and (deadline is None or time.perf_counter() < deadline):
        ks = np.arange(done, done + g_total)
        table = np.full((g_total, N_PLAYERS), RANDOM, np.int32)
        table[np.arange(g_total), ks % N_PLAYERS] = 0
        key, sub = jax.random.split(key)
        final, winner, _ = play(pool_layers(seed + ks), sub, thetas, table, cfg.turn_cap)
        take = min(g_total, games - done)
        seat = ks % N_PLAYERS
        rows = np.arange(g_total)
        won += int((winner == seat)[:take].sum())
        scores += final[rows, seat][:take].tolist()
        best_other += np.where(table == RANDOM, final, -np.inf).max(1)[:take].tolist()
        done += take
    return {
        "games": done,
        "games_asked": games,
        "wins": won,
        "win_rate": won / max(done, 1),
        "mean_score": float(np.mean(scores)),
        "mean_best_random_score": float(np.mean(best_other)),
        "map_seeds": f"{seed}..{seed + done - 1}",
    }


def bare_rate(cfg: ESConfig, seed: int, steps: int = 8) -> float:
    """Env steps per second of uniform random play on the simulator at the training batch: every
    seat random, through the training loop's own action function (the same compiled step)."""
    g_total = n_games(cfg)
    layers = pool_layers(range(g_total))
    step, games, tracker, metrics, ids, obs, _m, _s = build_simulator(
        layers, "duplicate", jax.random.PRNGKey(seed), turn_cap=cfg.turn_cap, auto_reset=False
    )
    thetas = jnp.zeros((1, N_PARAMS), jnp.float32)
    table = jnp.full((g_total, N_PLAYERS), RANDOM, jnp.int32)
    key = jax.random.PRNGKey(seed + 1)
    stream = jnp.arange(g_total, dtype=jnp.int32)
    out = step(games, _choose(thetas, table, obs, key, stream), tracker, metrics, ids)  # compiles
    jax.block_until_ready(out)
    games, tracker, metrics, ids, obs = out[:5]
    t0 = time.perf_counter()
    for i in range(steps):
        actions = _choose(thetas, table, obs, jax.random.fold_in(key, i), stream)
        games, tracker, metrics, ids, obs, *_ = step(games, actions, tracker, metrics, ids)
    jax.block_until_ready(games)
    return steps * g_total / (time.perf_counter() - t0)
