"""Evolution strategies for the City of Gold move-ranking policy (:mod:`.cog_rank`).

Why not PPO here: on this shared 2-core CPU the JAX PPO baseline (:mod:`.jax_ppo`) reached
7.5 % against the heuristic in its budget; it has to rediscover paths, deck building and the
race from a flat observation. The ranking policy is given what the heuristic weighs as move
features and learns only how to weigh them: 69 weights.

Two stages, both from whole games on the scalar engine (:mod:`hexarena.games.cityofgold.engine`,
the bot and the policy's features take nine tenths of the time there, and the batched JAX
engine cannot run the bot, which is Python over the scalar ``Game``):

1. a start: the conditional-logit fit of the weights to the heuristic's own choices in
   heuristic self-play (``--bc-games`` games, under a minute here);
2. OpenAI-style ES from there (antithetic pairs, centred ranks, Adam): every generation plays
   the same games for each perturbed policy (common seeds), the learner in both seats against
   the heuristic bot (the opponent to beat; a game between two deterministic players is fixed by
   its seed, so every seed is a different test). Fitness: a win (1, a tie 0.5) plus the race
   margin (the opponent's remaining plan distance minus one's own) / 100.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from hexarena.rl import es
from hexarena.rl.cog_rank import FEATURES, RankingPolicy, move_features

SETTINGS = {"n_players": 2, "n_pieces": 3, "max_turns": 1000}  # the default 2-player game
BC_SEEDS = 2_000_000  # the heuristic self-play games of the start
TRAIN_SEEDS = 1_000_000  # training games: TRAIN_SEEDS + 1000 * generation + j
VALID_SEEDS = 900_000  # the curve's held-out games (and the choice of the kept weights)
TEST_RANDOM, TEST_HEURISTIC, TEST_FOUR = 50_000, 60_000, 70_000  # results.json's: never trained on


def _new(seed: int, **params: Any) -> Any:
    from hexarena.games.cityofgold.engine import new_game

    return new_game(seed, **{**SETTINGS, **params})


def _remaining(g: Any, p: int, dist: list[float]) -> float:
    return sum(dist[c] for c in g.pawns[p] if c >= 0)


def play(seed: int, seat: int, weights: np.ndarray, opponent: str = "heuristic") -> tuple[float, float, int]:
    """One 2-player game: the policy ``weights`` in ``seat`` against ``opponent`` (``"heuristic"``
    or ``"random"``, drawn from the seed). Returns (win: 1, a tie 0.5, else 0; the race margin;
    the actions of both seats)."""
    from hexarena.games.cityofgold.bot import choose_action, plan
    from hexarena.games.cityofgold.engine import legal_actions, step

    g = _new(seed)
    me = RankingPolicy(weights)
    rng = np.random.default_rng(seed)
    moves = 0
    while not g.done:
        if g.player == seat:
            a = me.choose(g)
        elif opponent == "heuristic":
            a = choose_action(g)
        else:
            legal = legal_actions(g)
            a = legal[rng.integers(len(legal))]
        step(g, a, validate=False)
        moves += 1
    dist = plan(g)
    margin = _remaining(g, 1 - seat, dist) - _remaining(g, seat, dist)
    win = 0.0 if seat not in g.winners else 1.0 / len(g.winners)
    return win, margin, moves


def _play_all(job: tuple[np.ndarray, Sequence[tuple[int, int, str]]]) -> tuple[float, float, int]:
    """(wins, fitness, actions) summed over one policy's games."""
    weights, games = job
    wins = fitness = moves = 0
    for seed, seat, opponent in games:
        win, margin, n = play(seed, seat, weights, opponent)
        wins += win
        fitness += win + margin / 100
        moves += n
    return wins, fitness, moves


def _decisions(seeds: Sequence[int]) -> list[tuple[np.ndarray, int]]:
    """(features of the legal actions, the heuristic's pick) at every choice of its self-play."""
    from hexarena.games.cityofgold.bot import choose_action
    from hexarena.games.cityofgold.engine import legal_actions, step

    out = []
    for seed in seeds:
        g = _new(seed)
        while not g.done:
            a = choose_action(g)
            legal = legal_actions(g)
            if len(legal) > 1:
                out.append((move_features(g, legal), legal.index(a)))
            step(g, a, validate=False)
    return out


def imitation_start(games: int, iters: int, jobs: int, pool: Any = None) -> tuple[np.ndarray, float]:
    """The weights of a conditional-logit fit to the heuristic's choices over ``games`` games of
    heuristic self-play (Adam on the mean cross-entropy, a little L2), and their agreement with
    the heuristic on those choices."""
    seeds = [BC_SEEDS + k for k in range(games)]
    parts = [seeds[i :: max(jobs, 1)] for i in range(max(jobs, 1))]
    data = [d for part in (pool.map(_decisions, parts) if pool else map(_decisions, parts)) for d in part]
    x = np.concatenate([f for f, _ in data]).astype(np.float64)
    sizes = np.array([len(f) for f, _ in data])
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    picked = starts + np.array([y for _, y in data])
    w, adam = np.zeros(FEATURES), es.Adam(FEATURES, 0.1)
    for _ in range(iters):
        s = x @ w
        s -= np.repeat(np.maximum.reduceat(s, starts), sizes)
        e = np.exp(s)
        p = e / np.repeat(np.add.reduceat(e, starts), sizes)
        grad = (x.T @ p - x[picked].sum(0)) / len(data) + 1e-3 * w
        w -= adam.step(grad)
    s = x @ w
    best = np.array([starts[i] + np.argmax(s[starts[i] : starts[i] + sizes[i]]) for i in range(len(data))])
    return w, float(np.mean(best == picked))


def evaluate(weights: np.ndarray, opponent: str, games: int, seed: int, pool: Any = None) -> float:
    """The win rate of ``weights`` over games ``seed + k``, in seat ``k % 2`` (ties count half)."""
    jobs = [(weights, [(seed + k, k % 2, opponent)]) for k in range(games)]
    runs = pool.map(_play_all, jobs) if pool else map(_play_all, jobs)
    return sum(r[0] for r in runs) / games


def bare_rate(seconds: float, seed: int) -> dict[str, float]:
    """The anchors: actions/s of uniform random play (every seat random) on the scalar engine the
    trainer uses, and of the heuristic bot against itself there, each for about ``seconds``."""
    from hexarena.games.cityofgold.bot import choose_action
    from hexarena.games.cityofgold.engine import legal_actions, step

    rng = np.random.default_rng(seed)
    rates = {}
    for name in ("random", "heuristic"):
        steps, start, k = 0, time.perf_counter(), 0
        while time.perf_counter() - start < seconds:
            g = _new(seed + k, max_turns=200)
            k += 1
            while not g.done and time.perf_counter() - start < seconds:
                if name == "random":
                    legal = legal_actions(g)
                    step(g, legal[rng.integers(len(legal))], validate=False)
                else:
                    step(g, choose_action(g), validate=False)
                steps += 1
        rates[name] = steps / (time.perf_counter() - start)
    return rates


def train(args: argparse.Namespace, out: Path) -> dict[str, Any]:
    """The start, then ES for ``args.minutes`` (or ``args.generations``); writes ``out/policy.json``."""
    import multiprocessing

    def games_of(gen: int, rng: np.random.Generator) -> list[tuple[int, int, str]]:
        seeds = TRAIN_SEEDS + 1000 * gen + np.arange(args.seeds_per_gen)
        return [(int(s), seat, "heuristic") for s in seeds for seat in (0, 1)]

    def save(theta: np.ndarray, gen: int) -> None:
        RankingPolicy(theta).save(out / "policy.json", generation=gen)

    start = time.perf_counter()
    with multiprocessing.get_context("fork").Pool(args.jobs) as pool:
        theta, agreement = imitation_start(args.bc_games, args.bc_iters, args.jobs, pool)
        start_s = time.perf_counter() - start
        print(f"start: fit to the heuristic's choices, {agreement:.1%} agree ({start_s:.0f} s)", flush=True)
        vh = evaluate(theta, "heuristic", args.valid_games, VALID_SEEDS, pool)
        print(f"gen 0: held-out vs heuristic {vh:.2f}", flush=True)
        run = es.run(
            args, theta, pool, _play_all, evaluate, games_of, save, VALID_SEEDS,
            best=(vh, theta.copy(), 0), random_share=4,
        )  # fmt: skip
    return {
        **run,
        "start_agreement": agreement,
        "start_s": start_s,
        "start_valid_win_rate": vh,
        "wall_s": time.perf_counter() - start,
    }


def draw_curve(path: Path, c: dict[str, list], plot_curve: Any) -> None:
    """The run's curve: training games' mean fitness, held-out win rates (``plot_curve`` of
    :mod:`.train`)."""
    plot_curve(
        path,
        c["env_steps"],
        c["mean_return"],
        c["win_rate"],
        "ES, move-ranking policy (started from a fit to the heuristic's choices), City of Gold, "
        "2 players x 2 pawns.\nLeft: training games' fitness (win + race margin / 100), population "
        "mean. Right: held-out games of the current weights (seeds never trained on)",
        {
            "vs the heuristic bot": c["win_rate_vs_heuristic"],
            "training games vs the heuristic (population)": c["train_win_rate_vs_heuristic"],
        },
        ylabel="mean fitness per game",
    )


def train_cityofgold_es(args: argparse.Namespace, plot_curve: Any) -> dict[str, Any]:
    """``python -m hexarena.rl.train cityofgold``: the start and ES, then the evaluation of the
    saved policy as a ``policy:PATH`` player on fresh seeds."""
    from hexarena.rl.policies import win_rate

    out = Path(args.out) / "cityofgold"
    out.mkdir(parents=True, exist_ok=True)
    anchor = bare_rate(args.anchor_seconds, args.seed)
    print(
        f"bare play on the scalar engine: {anchor['random']:,.0f} actions/s random, "
        f"{anchor['heuristic']:,.0f} heuristic vs heuristic",
        flush=True,
    )
    run = train(args, out)
    policy = out / "policy.json"
    evals = {
        "vs_random": win_rate(policy, args.eval_games, TEST_RANDOM, SETTINGS, "random", True, args.jobs),
        "vs_heuristic": win_rate(
            policy, args.heuristic_games, TEST_HEURISTIC, SETTINGS, "heuristic", True, args.jobs
        ),
    }
    if args.four_player_games:
        four = {**SETTINGS, "n_players": 4}
        evals["four_player"] = win_rate(
            policy, args.four_player_games, TEST_FOUR, four, "heuristic", True, args.jobs
        )
    draw_curve(out / "curve.png", run["curve"], plot_curve)
    settings = ("minutes", "generations", "pairs", "sigma", "lr", "decay", "seeds_per_gen", "bc_games")
    settings += ("bc_iters", "eval_every", "valid_games", "jobs", "seed", "anchor_seconds")
    results = {
        "game": "cityofgold",
        "algorithm": "a conditional-logit fit of a linear move-ranking policy (hexarena.rl.cog_rank) to "
        "the heuristic's choices, then OpenAI-style ES (antithetic, centred ranks, Adam) on games "
        "against the heuristic bot, the learner in both seats (hexarena.rl.cog_es)",
        "device": "cpu (scalar engine, multiprocessing)",
        "game_params": SETTINGS,
        "settings": {k: getattr(args, k) for k in settings},
        "features": FEATURES,
        "start_agreement_with_heuristic": round(run["start_agreement"], 4),
        "start_s": round(run["start_s"], 1),
        "start_valid_win_rate": run["start_valid_win_rate"],
        "generations": run["generations"],
        "kept_generation": run["kept_generation"],
        "kept_note": "the weights with the best held-out win rate vs the heuristic (seeds 900000.., "
        "generation 0 is the start), evaluated below on other seeds",
        "kept_valid_win_rate": run["kept_valid_win_rate"],
    }
    for name, e in evals.items():
        results[f"win_rate_{name}"] = e["win_rate"]
        results[f"games_{name}"] = e["games"]
    results |= {
        "evaluation": f"policy:PATH player through HexarenaGymEnv, seat k % n_players of game seed + k, "
        f"a win is first place alone (ties count as losses); seeds {TEST_RANDOM}.. vs random, "
        f"{TEST_HEURISTIC}.. vs the heuristic, {TEST_FOUR}.. 4 players (1 pawn each) vs three "
        f"heuristics (25 % is chance); training used {TRAIN_SEEDS}.., the start {BC_SEEDS}.. and "
        f"the curve {VALID_SEEDS}..",
        "env_steps": run["env_steps"],
        "env_steps_note": "every seat's actions in the ES games (the start and held-out games not counted)",
        "wall_s": round(run["wall_s"], 1),
        "training_env_steps_per_s": round(run["env_steps"] / run["train_s"]),
        "bare_random_env_steps_per_s": round(anchor["random"]),
        "bare_heuristic_env_steps_per_s": round(anchor["heuristic"]),
        "anchor_note": "one process on the scalar engine, measured in the same run: uniform random play "
        "and the heuristic bot against itself; the trainer runs jobs processes and every ES game "
        "has the heuristic in one seat",
        "weights": policy.name,
        "curve": run["curve"],
    }
    return results
