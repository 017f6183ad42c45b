"""Evolution strategies for the Small World move-ranking policy (:mod:`.sw_features`).

Why not (only) MaskablePPO: on this shared 2-core CPU it trained at about 90 env steps a second
and reached 2 % against the heuristic after 100 k steps; its 1,641-number observation has to
rediscover conquest costs, region bonuses and decline timing from scratch. The ranking policy
is given those as move features (what the heuristic reads) and learns only how to weigh
them: a few dozen weights, which OpenAI-style ES (antithetic pairs, centred ranks, Adam) fits
from whole-game outcomes, needing no gradient through the game and no value function.

Every generation plays the same games for each perturbed policy (common seeds, so the ranks
compare policies, not luck): per seed the learner takes both seats; three seeds in four
against the heuristic bot, one against a league of the learner's past weights (random players
until the first snapshot). Fitness: a win (1, a tie 0.5) plus the final coin margin / 100.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from hexarena.rl import es
from hexarena.rl.sw_features import FEATURES, RankingPolicy

PLAYERS = 2
TRAIN_SEEDS = 1_000_000  # training games: TRAIN_SEEDS + 1000 * generation + j
VALID_SEEDS = 900_000  # the curve's held-out games (and the choice of the kept weights)
TEST_RANDOM, TEST_HEURISTIC = 50_000, 60_000  # results.json's evaluation: never trained on

Opp = Any  # "heuristic" | "random" | weights (np.ndarray)


def play(seed: int, seat: int, weights: np.ndarray, opponent: Opp) -> tuple[float, float, int]:
    """One 2-player game on the engine: the policy ``weights`` in ``seat``. Returns (win: 1,
    a tie 0.5, else 0; the coin margin; the moves played by both seats)."""
    from hexarena.core.rng import Rng
    from hexarena.games.smallworld.bot import choose_action
    from hexarena.games.smallworld.engine import SmallWorldGame
    from hexarena.games.smallworld.state import GameConfig

    game = SmallWorldGame(GameConfig(PLAYERS, seed))
    me = RankingPolicy(weights)
    rng = np.random.default_rng(seed)
    other: Callable[[dict], dict]
    if isinstance(opponent, str) and opponent == "heuristic":
        bot_rng = Rng(seed)
        other = lambda obs: choose_action(obs, bot_rng)  # noqa: E731
    elif isinstance(opponent, str) and opponent == "random":
        other = lambda obs: obs["legal_actions"][rng.integers(len(obs["legal_actions"]))]  # noqa: E731
    else:
        other = RankingPolicy(opponent).choose
    moves = 0
    while not game.is_game_over():
        pid = game.get_current_player()
        obs = game.get_observation(pid)
        game.submit_action(pid, me.choose(obs) if pid == seat else other(obs))
        moves += 1
    scores = game.get_results()["scores"]
    mine, theirs = scores[seat], scores[1 - seat]
    return (1.0 if mine > theirs else 0.5 if mine == theirs else 0.0), float(mine - theirs), moves


def _play_all(job: tuple[np.ndarray, Sequence[tuple[int, int, Opp]]]) -> tuple[float, float, int]:
    """(wins, fitness, moves) summed over one policy's games."""
    weights, games = job
    wins = fitness = moves = 0
    for seed, seat, opponent in games:
        win, margin, n = play(seed, seat, weights, opponent)
        wins += win
        fitness += win + margin / 100
        moves += n
    return wins, fitness, moves


def bare_rate(seconds: float, seed: int) -> dict[str, float]:
    """The anchors: env steps/s of uniform random play (every seat random) through the
    ``hexarena/SmallWorld-v0`` env (observation arrays and masks) and through the engine loop
    the trainer uses (observation dicts), each for about ``seconds``."""
    import gymnasium as gym

    import hexarena.rl  # noqa: F401  (registers the ids)
    from hexarena.rl.opponents import RandomOpponent

    class Counted(RandomOpponent):
        moves = 0

        def act(self, core: Any, role: str, rng: np.random.Generator) -> None:
            self.moves += 1
            super().act(core, role, rng)

    opponent = Counted()
    env = gym.make("hexarena/SmallWorld-v0", players=PLAYERS, opponents=opponent)
    rng = np.random.default_rng(seed)
    steps, start, k = 0, time.perf_counter(), 0
    while time.perf_counter() - start < seconds:
        _, info = env.reset(seed=seed + k)
        k += 1
        done = False
        while not done:
            legal = np.flatnonzero(info["action_mask"])
            _, _, term, trunc, info = env.step(int(legal[rng.integers(len(legal))]))
            steps += 1
            done = term or trunc
    steps += opponent.moves  # every seat's moves, as the trainer counts them
    gym_rate = steps / (time.perf_counter() - start)
    from hexarena.games.smallworld.engine import SmallWorldGame
    from hexarena.games.smallworld.state import GameConfig

    steps, start, k = 0, time.perf_counter(), 0
    while time.perf_counter() - start < seconds:
        game = SmallWorldGame(GameConfig(PLAYERS, seed + k))
        k += 1
        while not game.is_game_over():
            legal = game.get_observation(game.get_current_player())["legal_actions"]
            game.submit_action(game.get_current_player(), legal[rng.integers(len(legal))])
            steps += 1
    return {"gym_env": gym_rate, "engine_obs_loop": steps / (time.perf_counter() - start)}


def evaluate(weights: np.ndarray, opponent: str, games: int, seed: int, pool: Any = None) -> float:
    """The win rate of ``weights`` over games ``seed + k``, in seat ``k % 2`` (ties count half)."""
    jobs = [(weights, [(seed + k, k % 2, opponent)]) for k in range(games)]
    runs = pool.map(_play_all, jobs) if pool else map(_play_all, jobs)
    return sum(r[0] for r in runs) / games


def train(args: argparse.Namespace, out: Path) -> dict[str, Any]:
    """ES for ``args.minutes`` (or ``args.generations``); writes ``out/policy.json``."""
    import multiprocessing

    league: list[np.ndarray] = []

    def games_of(gen: int, rng: np.random.Generator) -> list[tuple[int, int, Opp]]:
        """Both seats of each seed; every fourth seed against a past self (random before any)."""
        games = []
        for j, s in enumerate(TRAIN_SEEDS + 1000 * gen + np.arange(args.seeds_per_gen)):
            vs_league = j % 4 == 3
            opp = (league[rng.integers(len(league))] if league else "random") if vs_league else "heuristic"
            games += [(int(s), 0, opp), (int(s), 1, opp)]
        return games

    def snapshot(gen: int, theta: np.ndarray) -> None:
        if gen % args.snapshot_every == 0:
            league[:] = [*league, theta.copy()][-args.league :]

    def save(theta: np.ndarray, gen: int) -> None:
        RankingPolicy(theta).save(out / "policy.json", generation=gen)

    start = time.perf_counter()
    with multiprocessing.get_context("fork").Pool(args.jobs) as pool:
        run = es.run(
            args, np.zeros(FEATURES), pool, _play_all, evaluate, games_of, save, VALID_SEEDS,
            after_generation=snapshot,
        )  # fmt: skip
    return {**run, "wall_s": time.perf_counter() - start}


def user_path_win_rate(path: Path, opponent: str, games: int, seed: int, jobs: int = 1) -> dict[str, Any]:
    """The saved policy as a user meets it: a ``policy:PATH`` player through
    :class:`~hexarena.rl.gym.HexarenaGymEnv` against ``opponent`` (``"heuristic"``: the bot
    itself; ``"random"``), in seat ``k % 2`` of game ``seed + k``."""
    import multiprocessing

    ks = list(range(games))
    parts = [ks[i::jobs] for i in range(jobs)]
    with multiprocessing.get_context("fork").Pool(jobs) as pool:
        runs = pool.starmap(_user_games, [(part, str(path), opponent, seed) for part in parts])
    results = [r for part in runs for r in part]
    wins, ties = results.count(1.0), results.count(0.5)
    return {"games": games, "wins": wins, "ties": ties, "win_rate": wins / games}


def _user_games(ks: list[int], path: str, opponent: str, seed: int) -> list[float]:
    from hexarena.games.smallworld.bot import HeuristicPlayer
    from hexarena.rl.gym import HexarenaGymEnv
    from hexarena.rl.policies import PolicyPlayer

    player = PolicyPlayer(path)
    opp = HeuristicPlayer() if opponent == "heuristic" else "random"
    roles = HexarenaGymEnv("smallworld", players=PLAYERS).roles
    out = []
    for k in ks:
        env = HexarenaGymEnv("smallworld", players=PLAYERS, role=roles[k % 2], opponents=opp)
        env.reset(seed=seed + k)
        done = False
        while not done:
            _, _, term, trunc, info = env.step(player.choose(env.state, env.role))
            done = term or trunc
        r = info.get("outcome_reward", 0.0)
        out.append(1.0 if r > 0 else 0.5 if r == 0 else 0.0)
    return out


def draw_curve(path: Path, c: dict[str, list], plot_curve: Any) -> None:
    """The run's curve: training games' mean return, held-out win rates (``plot_curve`` of
    :mod:`.train`)."""
    plot_curve(
        path,
        c["env_steps"],
        c["mean_return"],
        c["win_rate"],
        f"ES, move-ranking policy, Small World ({PLAYERS} players). Left: training games' return "
        "(win + coin margin / 100), population mean.\nRight: held-out games of the current weights "
        "(seeds never trained on)",
        {
            "vs the heuristic bot": c["win_rate_vs_heuristic"],
            "training games (population; heuristic + league)": c["train_win_rate_vs_heuristic"],
        },
    )


def train_smallworld_es(args: argparse.Namespace, plot_curve: Any) -> dict[str, Any]:
    """``python -m hexarena.rl.train smallworld``: ES, then the evaluation on fresh seeds."""
    out = Path(args.out) / "smallworld"
    out.mkdir(parents=True, exist_ok=True)
    anchor = bare_rate(args.anchor_seconds, args.seed)
    print(
        f"bare random play: {anchor['gym_env']:,.0f} env steps/s (gym env), "
        f"{anchor['engine_obs_loop']:,.0f} (engine + observation dicts)",
        flush=True,
    )
    run = train(args, out)
    policy = out / "policy.json"
    vs_random = user_path_win_rate(policy, "random", args.eval_games, TEST_RANDOM, args.jobs)
    vs_heuristic = user_path_win_rate(policy, "heuristic", args.heuristic_games, TEST_HEURISTIC, args.jobs)
    draw_curve(out / "curve.png", run["curve"], plot_curve)
    return {
        "game": "smallworld",
        "algorithm": "OpenAI-style ES (antithetic, centred ranks, Adam) on a linear move-ranking policy "
        "(hexarena.rl.sw_features); 3/4 of the games against the heuristic bot, 1/4 against a league "
        "of past weights, the learner in both seats",
        "players": PLAYERS,
        "settings": {
            k: getattr(args, k)
            for k in (
                "minutes",
                "generations",
                "pairs",
                "sigma",
                "lr",
                "decay",
                "seeds_per_gen",
                "snapshot_every",
                "league",
                "eval_every",
                "valid_games",
                "jobs",
                "seed",
                "anchor_seconds",
            )
        },
        "features": FEATURES,
        "generations": run["generations"],
        "kept_generation": run["kept_generation"],
        "kept_note": "the weights with the best held-out win rate vs the heuristic (seeds 900000..), "
        "evaluated below on other seeds",
        "kept_valid_win_rate": run["kept_valid_win_rate"],
        "win_rate_vs_random": vs_random["win_rate"],
        "games_vs_random": vs_random["games"],
        "ties_vs_random": vs_random["ties"],
        "win_rate_vs_heuristic": vs_heuristic["win_rate"],
        "games_vs_heuristic": vs_heuristic["games"],
        "ties_vs_heuristic": vs_heuristic["ties"],
        "evaluation": f"policy:PATH player through HexarenaGymEnv, seat k % 2 of game seed + k; seeds "
        f"{TEST_RANDOM}.. vs random, {TEST_HEURISTIC}.. vs the heuristic; training used "
        f"{TRAIN_SEEDS}.. and the curve {VALID_SEEDS}..",
        "env_steps": run["env_steps"],
        "env_steps_note": "every seat's moves in the training games (the held-out games not counted)",
        "wall_s": round(run["wall_s"], 1),
        "training_env_steps_per_s": round(run["env_steps"] / run["train_s"]),
        "bare_random_env_steps_per_s": round(anchor["gym_env"]),
        "bare_random_engine_obs_loop_steps_per_s": round(anchor["engine_obs_loop"]),
        "anchor_note": "uniform random play measured in the same run: through hexarena/SmallWorld-v0 "
        "(arrays and masks), and through the engine loop the trainer uses (observation dicts); the "
        "trainer runs jobs processes",
        "weights": policy.name,
        "curve": run["curve"],
    }
