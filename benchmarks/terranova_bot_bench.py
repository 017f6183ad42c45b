"""Terra Nova's heuristic bot against random players: seeded 30-round games, one bot seat.

Run ``python -m benchmarks terranova_bot`` (50 games; ``TN_BOT_GAMES=n`` for fewer). The bot
plays red (seat 0 moves first: seat order matters little over 30 rounds), the five others are
uniform random players over the legal-move menu. A game is won when the bot's score beats every
random player's; the figure is the share of games won, next to the bot's mean city count and
the random players' best score (the anchor).
"""

from __future__ import annotations

import os
import time

import numpy as np

from hexarena.games.terranova.bots.heuristic import game_against_random

ROUNDS = 30


def play(seed: int) -> tuple[float, float, int]:
    """(bot score, best random score, bot cities) of one game."""
    state = game_against_random(seed, ROUNDS)
    roles = state.all_roles()
    scores = state.get_scores()
    cities = int(np.asarray(state.environment.state.cities.exists[0]).sum())
    return scores[roles[0]], max(scores[r] for r in roles[1:]), cities


def main() -> None:
    games = int(os.environ.get("TN_BOT_GAMES", "50"))
    start = time.perf_counter()
    results = [play(seed) for seed in range(games)]
    wins = sum(bot > best for bot, best, _ in results)
    bot_mean = np.mean([b for b, _, _ in results])
    rand_mean = np.mean([r for _, r, _ in results])
    cities = [c for _, _, c in results]
    print(
        f"heuristic vs 5 random, {games} seeded {ROUNDS}-round games: won {wins}/{games} "
        f"({100 * wins / games:.0f} %); mean score {bot_mean:.1f} vs best random {rand_mean:.1f} "
        f"(ratio {bot_mean / max(rand_mean, 1e-9):.2f}); bot cities mean {np.mean(cities):.1f}, "
        f">= 4 in {sum(c >= 4 for c in cities)}/{games}; {time.perf_counter() - start:.0f} s"
    )


if __name__ == "__main__":
    main()
