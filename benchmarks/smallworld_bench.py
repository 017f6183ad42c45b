"""Small World: random full games per second, actions per second, and the cost of the queries.

For 2-5 players, uniform random legal actions through the engine's public API (legal-action
enumeration and sampling included). Then the average cost of ``get_legal_actions`` and
``get_observation`` over positions from random games, and the heuristic bot's win rate in
4-player games against three random players.

    python -m benchmarks smallworld
    python -m benchmarks.smallworld_bench --games 200 --bot-games 200
"""

from __future__ import annotations

import argparse
import random
import time

from hexarena.games.smallworld import GameConfig, SmallWorldGame
from hexarena.games.smallworld.bot import play_vs_random


def random_games(players: int, games: int, seed: int = 0) -> tuple[float, float]:
    """(games per CPU second, actions per CPU second) of uniform random play.

    CPU time (``process_time``) rather than wall time, so that other work on a shared machine
    does not distort the figures much.
    """
    actions, start = 0, time.process_time()
    for i in range(games):
        game = SmallWorldGame(GameConfig(players, seed + i))
        rnd = random.Random(seed + i)
        while not game.is_game_over():
            game.submit_action(game.get_current_player(), rnd.choice(game.get_legal_actions()))
            actions += 1
    elapsed = time.process_time() - start
    return games / elapsed, actions / elapsed


def query_costs(positions: int = 2000, seed: int = 0) -> tuple[float, float]:
    """Mean CPU microseconds of get_legal_actions and of get_observation (acting player)."""
    snaps: list[SmallWorldGame] = []
    i = 0
    while len(snaps) < positions:
        game = SmallWorldGame(GameConfig(4, seed + i))
        rnd = random.Random(seed + i)
        while not game.is_game_over() and len(snaps) < positions:
            snaps.append(game.clone())
            game.submit_action(game.get_current_player(), rnd.choice(game.get_legal_actions()))
        i += 1
    start = time.process_time()
    for g in snaps:
        g.get_legal_actions()
    legal = (time.process_time() - start) / len(snaps) * 1e6
    start = time.process_time()
    for g in snaps:
        g.get_observation(g.get_current_player())
    obs = (time.process_time() - start) / len(snaps) * 1e6
    return legal, obs


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100, help="random games per player count")
    parser.add_argument("--bot-games", type=int, default=200, help="4-player games for the bot's win rate")
    args = parser.parse_args(argv if argv is not None else [])
    print(f"{'players':>7} {'games/s':>9} {'actions/s':>10}   (per CPU second, one core)")
    for players in (2, 3, 4, 5):
        gps, aps = random_games(players, args.games)
        print(f"{players:>7} {gps:>9.1f} {aps:>10.0f}")
    legal, obs = query_costs()
    print(f"get_legal_actions: {legal:.0f} us per call; get_observation: {obs:.0f} us per call (4 players)")
    start = time.perf_counter()
    rate = play_vs_random(range(args.bot_games))
    print(
        f"heuristic bot vs 3 random players: {rate:.1%} wins over {args.bot_games} games "
        f"({time.perf_counter() - start:.1f} s)"
    )


if __name__ == "__main__":
    import sys

    main(sys.argv[1:])
