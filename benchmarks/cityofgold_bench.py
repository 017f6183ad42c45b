"""City of Gold: hexarena's engine next to the ``city-of-gold`` 0.0.3 package, in one run.

Same setting for both: 4 players, 3 pieces, EASY, uniform random agents, a 1,000-turn cap,
``n`` envs stepped sequentially; env-steps per second are summed over the envs and include
sampling. Also the scalar engine alone (no observations) and the heuristic bot's win rate.

    python -m benchmarks cityofgold
    python benchmarks/cityofgold_bench.py --seconds 3 --envs 16
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

from hexarena.core.rng import Rng
from hexarena.games.cityofgold import get_runner, get_vec_env, get_vec_sampler
from hexarena.games.cityofgold.bot import choose_action
from hexarena.games.cityofgold.engine import legal_actions, new_game, step

SETTING = {"n_players": 4, "n_pieces": 3, "max_turns": 1000}


def timed(run_batch: Callable[[], int], seconds: float) -> float:
    """Steps per second of ``run_batch`` (which returns the steps it made), after a short warm-up."""
    end = time.perf_counter() + 0.2
    while time.perf_counter() < end:
        run_batch()
    steps, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        steps += run_batch()
    return steps / (time.perf_counter() - start)


def hexarena_vec(n: int, seconds: float) -> float:
    envs, samplers = get_vec_env(n)(), get_vec_sampler(n)(0)
    runner = get_runner(n)(envs, samplers, 1)
    envs.reset(0, SETTING["n_players"], SETTING["n_pieces"], "easy", SETTING["max_turns"], False)

    def batch() -> int:
        for _ in range(20):
            runner.sample()
            runner.step_sync()
        return 20 * n

    return timed(batch, seconds)


def hexarena_engine(seconds: float) -> float:
    """The scalar engine alone: uniform random legal actions, no observations, no validation."""
    rng = Rng(0)
    state = {"game": new_game(0, difficulty="easy", **SETTING), "seed": 0}

    def batch() -> int:
        g = state["game"]
        for _ in range(200):
            if g.done:
                state["seed"] += 1
                g = state["game"] = new_game(state["seed"], difficulty="easy", **SETTING)
            step(g, rng.choice(legal_actions(g)), validate=False)
        return 200

    return timed(batch, seconds)


def package_vec(n: int, seconds: float) -> float | None:
    try:
        import city_of_gold
    except ImportError:
        return None
    runner = city_of_gold.vec.get_runner(n)(1)
    runner.make_samplers(0)
    envs = runner.get_envs()
    envs.reset(
        0,
        SETTING["n_players"],
        SETTING["n_pieces"],
        city_of_gold.Difficulty.EASY,
        SETTING["max_turns"],
        False,
    )

    def batch() -> int:
        for _ in range(100):
            runner.sample_seq()
            runner.step_seq()
        return 100 * n

    return timed(batch, seconds)


def bot_win_rate(games: int = 200) -> float:
    """Share of 4-player games the heuristic wins against three uniform random players."""
    wins = 0
    for seed in range(games):
        g = new_game(seed, difficulty="easy", **SETTING)
        hero, rng = seed % 4, Rng(seed)
        while not g.done:
            step(g, choose_action(g) if g.player == hero else rng.choice(legal_actions(g)), validate=False)
        wins += hero in g.winners
    return wins / games


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--envs", type=int, default=16)
    parser.add_argument("--bot-games", type=int, default=200)
    args = parser.parse_args(argv or [])
    n = args.envs
    print(f"setting: {SETTING}, EASY, uniform random agents, {n} envs sequential, {args.seconds:g} s per run")
    ours = hexarena_vec(n, args.seconds)
    print(f"hexarena vec env (observations + masks): {ours:12,.0f} env-steps/s")
    engine = hexarena_engine(args.seconds)
    print(f"hexarena scalar engine alone:            {engine:12,.0f} env-steps/s")
    theirs = package_vec(n, args.seconds)
    if theirs is None:
        print("city-of-gold 0.0.3: not installed, column skipped (pip install city-of-gold==0.0.3)")
    else:
        print(f"city-of-gold 0.0.3 vec runner:           {theirs:12,.0f} env-steps/s")
        print(f"ratio hexarena vec / 0.0.3:    {ours / theirs:.4f}  (0.0.3 is {theirs / ours:,.0f}x faster)")
        print(
            f"ratio hexarena engine / 0.0.3: {engine / theirs:.4f}  (0.0.3 is {theirs / engine:,.0f}x faster)"
        )
    if args.bot_games:
        rate = bot_win_rate(args.bot_games)
        print(
            f"heuristic bot vs 3 random players: {rate:.1%} wins over {args.bot_games} seeded 4-player games"
        )


if __name__ == "__main__":
    import sys

    main(sys.argv[1:])
