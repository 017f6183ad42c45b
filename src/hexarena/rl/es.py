"""OpenAI-style evolution strategies on a linear move-ranking policy, shared by the Small World
(:mod:`.sw_es`) and City of Gold (:mod:`.cog_es`) trainers.

Each generation perturbs the weights with antithetic Gaussian noise, plays every perturbed copy
in the same games (common random numbers: the pair differs only by its noise), turns the summed
fitness into centred ranks (robust to its scale) and takes an Adam step along the rank-weighted
noise. Every ``eval_every`` generations the current weights play held-out games; the best of
them are what is saved, so a late dip of the noisy search is not what ships.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

Games = Sequence[tuple[int, int, Any]]  # (seed, seat, opponent) per game
PlayAll = Callable[[tuple[np.ndarray, Games]], tuple[float, float, int]]  # (wins, fitness, actions)
Evaluate = Callable[[np.ndarray, str, int, int, Any], float]  # (weights, opponent, games, seed, pool)


class Adam:
    def __init__(self, n: int, lr: float) -> None:
        self.lr, self.m, self.v, self.t = lr, np.zeros(n), np.zeros(n), 0

    def step(self, grad: np.ndarray) -> np.ndarray:
        self.t += 1
        self.m = 0.9 * self.m + 0.1 * grad
        self.v = 0.999 * self.v + 0.001 * grad**2
        m, v = self.m / (1 - 0.9**self.t), self.v / (1 - 0.999**self.t)
        return self.lr * m / (np.sqrt(v) + 1e-8)


def centred_ranks(x: np.ndarray) -> np.ndarray:
    ranks = np.empty(len(x))
    ranks[np.argsort(x, kind="stable")] = np.arange(len(x))
    return ranks / (len(x) - 1) - 0.5


def run(
    args: argparse.Namespace,
    theta: np.ndarray,
    pool: Any,
    play_all: PlayAll,
    evaluate: Evaluate,
    games_of: Callable[[int, np.random.Generator], Games],
    save: Callable[[np.ndarray, int], None],
    valid_seeds: int,
    best: tuple[float, np.ndarray, int] | None = None,
    random_share: int = 2,
    after_generation: Callable[[int, np.ndarray], None] | None = None,
) -> dict[str, Any]:
    """ES from ``theta`` for ``args.minutes`` (or ``args.generations``) with ``args``' pairs,
    sigma, lr, decay, eval_every and valid_games. ``games_of(gen, rng)`` lists a generation's
    games; held-out games use seeds ``valid_seeds..`` against the heuristic and
    ``valid_seeds + 50000..`` against random players (``valid_games // random_share`` of them).
    ``best`` is (held-out win rate, weights, generation) of the start, if it was measured."""
    pairs, sigma = args.pairs, args.sigma
    rng = np.random.default_rng(args.seed)
    adam = Adam(len(theta), args.lr)
    names = ("env_steps", "mean_return", "win_rate", "win_rate_vs_heuristic", "train_win_rate_vs_heuristic")
    curve: dict[str, list] = {k: [] for k in names}
    best = best or (-1.0, theta.copy(), 0)
    env_steps, train_s, acc_wins, acc_fit, acc_n, gen = 0, 0.0, 0.0, 0.0, 0, 0
    start = time.perf_counter()
    while True:
        t0 = time.perf_counter()
        games = games_of(gen, rng)
        eps = rng.standard_normal((pairs, len(theta)))
        members = np.concatenate([theta + sigma * eps, theta - sigma * eps])
        runs = pool.map(play_all, [(w, games) for w in members])
        fitness = np.array([r[1] for r in runs])
        acc_wins += sum(r[0] for r in runs) / (len(games) * len(members))
        acc_fit += fitness.mean() / len(games)
        acc_n += 1
        env_steps += sum(r[2] for r in runs)
        ranks = centred_ranks(fitness)
        grad = (ranks[:pairs] - ranks[pairs:]) @ eps / (pairs * sigma)
        theta = theta + adam.step(grad - args.decay * theta)
        gen += 1
        train_s += time.perf_counter() - t0
        if after_generation:
            after_generation(gen, theta)
        done = (args.generations and gen >= args.generations) or (
            not args.generations and time.perf_counter() - start > args.minutes * 60
        )
        if gen % args.eval_every == 0 or done:
            vh = evaluate(theta, "heuristic", args.valid_games, valid_seeds, pool)
            random_games = max(args.valid_games // random_share, 1)
            vr = evaluate(theta, "random", random_games, valid_seeds + 50_000, pool)
            curve["env_steps"].append(env_steps)
            curve["mean_return"].append(acc_fit / acc_n)
            curve["train_win_rate_vs_heuristic"].append(acc_wins / acc_n)
            curve["win_rate_vs_heuristic"].append(vh)
            curve["win_rate"].append(vr)
            acc_wins = acc_fit = acc_n = 0
            if vh >= best[0]:
                best = (vh, theta.copy(), gen)
            print(
                f"gen {gen}: {env_steps:,} env steps, {env_steps / train_s:,.0f}/s, train games "
                f"{curve['train_win_rate_vs_heuristic'][-1]:.2f} won, held-out vs heuristic {vh:.2f}, "
                f"vs random {vr:.2f}; |theta| {np.linalg.norm(theta):.2f}",
                flush=True,
            )
            save(best[1], best[2])
        if done:
            break
    return {
        "theta": best[1],
        "kept_generation": best[2],
        "kept_valid_win_rate": best[0],
        "generations": gen,
        "env_steps": env_steps,
        "train_s": train_s,
        "curve": curve,
    }
