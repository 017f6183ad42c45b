"""City of Gold: hexarena's engine next to the ``city-of-gold`` 0.0.3 package, in one run.

Same setting for both: 4 players, 3 pieces, EASY, uniform random agents, a 1,000-turn cap,
``n`` envs stepped sequentially; env-steps per second are summed over the envs and include
sampling. Also the scalar engine alone (no observations) and the heuristic bot's win rate.

    python -m benchmarks cityofgold
    python -m benchmarks.cityofgold_bench --seconds 3 --envs 16
"""

from __future__ import annotations

import argparse

from benchmarks.cityofgold_common import SETTING, hexarena_runner, package, timed
from hexarena.core.rng import Rng
from hexarena.games.cityofgold.bot import choose_action
from hexarena.games.cityofgold.engine import legal_actions, new_game, step


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

    return timed(batch, seconds)[0]


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
    ours = hexarena_runner(n, args.seconds, "python", validate=True)[0]
    print(f"hexarena vec env (observations + masks): {ours:12,.0f} env-steps/s")
    engine = hexarena_engine(args.seconds)
    print(f"hexarena scalar engine alone:            {engine:12,.0f} env-steps/s")
    theirs = package(n, args.seconds)
    if theirs is None:
        print("city-of-gold 0.0.3: not installed, column skipped (pip install city-of-gold==0.0.3)")
    else:
        theirs = theirs[0]
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
