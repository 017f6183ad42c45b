"""Terra Nova's bots: the 30-round check against random players, and full 300-round games.

Run ``python -m benchmarks terranova_bot``; ``TN_BOT_MODE`` picks what it plays (comma-separated;
default ``random``):

* ``random``: the ``heuristic`` bot (red) against five uniform random players, 30 rounds
  (``TN_BOT_GAMES`` games, default 50): won when its score beats every random player's.
* ``six``: six ``heuristic`` bots to the turn cap (``TN_BOT_ROUNDS``, default 300, the original's):
  victories by kind and round, games at the cap, techs, eras, cities, military units by era,
  median treasury and happiness over the six players at rounds 100 / 200 / 300, wars declared and
  peaces made, wall time a game and the bots' median time a move.
* ``versus``: one ``heuristic`` against five ``easy`` (the first bot), the new bot's seat rotating
  with the seed; ``reverse``: one ``easy`` against five ``heuristic``. A seat wins by a victory or,
  at the cap, the best score.

``TN_BOT_GAMES`` (default 50 for ``random``, 4 for the others) and ``TN_BOT_SEED`` (first seed,
default 0) choose the seeds. Each game prints a line as it ends, then each mode its summary.
"""

from __future__ import annotations

import os
import time
from collections import Counter
from dataclasses import dataclass, field

import numpy as np

from hexarena.core.players import Player
from hexarena.games.terranova.bots.heuristic import HeuristicPlayer, game_against_random
from hexarena.games.terranova.bots.planner import SPACESHIP, StrategicPlayer
from hexarena.games.terranova.engine.rules.victory import VICTORIES
from hexarena.games.terranova.engine.tables import load_tables

ROUNDS = 30
CHECKPOINTS = (100, 200, 300)


def play(seed: int) -> tuple[float, float, int]:
    """(bot score, best random score, bot cities) of one game."""
    state = game_against_random(seed, ROUNDS, StrategicPlayer)
    roles = state.all_roles()
    scores = state.get_scores()
    cities = int(np.asarray(state.environment.state.cities.exists[0]).sum())
    return scores[roles[0]], max(scores[r] for r in roles[1:]), cities


def against_random(games: int) -> None:
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


@dataclass
class Game:
    """What one long game showed."""

    seed: int
    victory: str
    winner: int  # the seat that won (victory, else best score)
    rounds: int
    wall_s: float
    move_ms: float
    techs: list[int]
    eras: list[int]
    cities: list[int]
    units_by_era: Counter = field(default_factory=Counter)
    treasury: dict[int, list[float]] = field(default_factory=dict)  # round -> each player's
    happiness: dict[int, list[float]] = field(default_factory=dict)
    science: dict[int, float] = field(default_factory=dict)  # round -> the best science a turn
    wars: int = 0
    peaces: int = 0
    sacked: list[int] = field(default_factory=list)  # rival capitals each player sacked
    research: list[int] = field(default_factory=list)  # science each player spent on known techs
    tourism: list[float] = field(default_factory=list)  # min over rivals of tourism / their culture
    culture: list[float] = field(default_factory=list)  # each player's lifetime culture
    votes: list[int] = field(default_factory=list)  # delegates + allied city states
    spaceship: list[int] = field(default_factory=list)  # Apollo Program and parts each player built
    plans: list[str] = field(default_factory=list)  # each strategic seat's plan at the end


def spaceship_items() -> list[int]:
    """The Apollo Program and the six parts (building ids): a science victory needs all seven."""
    return [load_tables().building(n) for n in SPACESHIP]


def unit_eras(kinds: np.ndarray) -> Counter:
    """Military units alive by the era of the tech that unlocks them."""
    tb = load_tables()
    out: Counter = Counter()
    for k in np.asarray(kinds).ravel():
        if k > 0 and max(tb.unit_strength[k], tb.unit_ranged[k]) > 0:
            techs = np.flatnonzero(tb.unit_tech[k])
            out[int(tb.tech_era[techs].max()) if len(techs) else 0] += 1
    return out


def play_long(seed: int, seats: list[Player], rounds: int) -> Game:
    """One seeded game of ``seats`` (one player per role, in role order) to ``rounds``."""
    import hexarena
    from hexarena.games.terranova.engine.rules.victory import diplomatic_votes
    from hexarena.games.terranova.engine.world import top_era

    state = hexarena.make("terranova", seed=seed, turn_cap=rounds)
    roles = state.all_roles()
    for role, player in zip(roles, seats, strict=True):
        player.reset((role,), seed)
    players = dict(zip(roles, seats, strict=True))
    start, times = time.perf_counter(), []
    war = np.zeros((len(roles), len(roles)), bool)
    wars = peaces = 0
    treasury: dict[int, list[float]] = {}
    happiness: dict[int, list[float]] = {}
    science: dict[int, float] = {}
    while not state.is_over():
        role = state.roles[0]
        view = state.query_game(role)
        t = time.perf_counter()
        move = players[role].act(view).move
        times.append(time.perf_counter() - t)
        state = state.apply(move)
        if state.message is not None:
            raise RuntimeError(f"the {role} player's move was refused: {state.message}")
        s = state.environment.state
        now = np.asarray(s.players.at_war) > 0
        wars += int((now & ~war).sum()) // 2
        peaces += int((war & ~now).sum()) // 2
        war = now
        done = int(state.environment.turn)
        for r in CHECKPOINTS:
            if r not in treasury and (done >= r or (state.is_over() and r == rounds)):
                treasury[r] = [round(float(x), 1) for x in np.asarray(s.players.gold)]
                happiness[r] = [round(float(x), 1) for x in np.asarray(s.players.happiness)]
                science[r] = round(float(np.asarray(s.cities.yields)[..., 5].sum(1).max()), 1)
    env = state.environment
    s = env.state
    scores = state.get_scores()
    winner = int(env.winner) if env.victory else -1
    if winner < 0:
        winner = int(np.argmax([scores[r] for r in roles]))
    techs = np.asarray(s.players.techs)
    tourism = np.asarray(s.players.tourism) / np.maximum(np.asarray(s.players.culture_total), 1.0)[None, :]
    np.fill_diagonal(tourism, np.inf)
    return Game(
        seed=seed,
        victory=VICTORIES[env.victory],
        winner=winner,
        rounds=int(env.turn),
        wall_s=time.perf_counter() - start,
        move_ms=1000 * float(np.median(times)),
        techs=[int(x) for x in techs.sum(-1)],
        eras=[int(top_era(techs[p])) for p in range(len(roles))],
        cities=[int(x) for x in np.asarray(s.cities.exists).sum(-1)],
        units_by_era=unit_eras(np.asarray(s.units.kind)),
        treasury=treasury,
        happiness=happiness,
        science=science,
        wars=wars,
        peaces=peaces,
        sacked=[int(x) for x in np.asarray(s.players.has_sacked).sum(1)],
        research=[int(x) for x in techs @ load_tables().tech_cost],
        tourism=[float(f"{x:.2e}") for x in tourism.min(1)],
        votes=[int(x) for x in np.asarray(diplomatic_votes(s))],
        spaceship=[int(x) for x in np.asarray(s.cities.buildings)[..., spaceship_items()].any(1).sum(-1)],
        culture=[round(float(x)) for x in np.asarray(s.players.culture_total)],
        plans=[getattr(p, "plan", None) or "-" for p in seats],
    )


def _line(mode: str, g: Game, seats: list[int]) -> str:
    """One game's figures; treasury and happiness: the median over ``seats`` at each checkpoint."""
    treasury = {r: float(np.median([v[p] for p in seats])) for r, v in g.treasury.items()}
    happiness = {r: float(np.median([v[p] for p in seats])) for r, v in g.happiness.items()}
    return (
        f"{mode} seed {g.seed}: {g.victory} (seat {g.winner}) at round {g.rounds}; techs {g.techs}; "
        f"eras {g.eras}; cities {g.cities}; units by era {dict(sorted(g.units_by_era.items()))}; "
        f"treasury {treasury} happiness {happiness} (median of seats {seats}); "
        f"wars {g.wars} peaces {g.peaces}; capitals sacked {g.sacked}; science on techs "
        f"{g.research} (best a turn {g.science}); tourism/culture {g.tourism} "
        f"(lifetime culture {g.culture}); votes {g.votes}; spaceship (of 7) {g.spaceship}; "
        f"plans {g.plans}; {g.wall_s:.0f} s, {g.move_ms:.1f} ms a move"
    )


def six(seeds: range, rounds: int) -> None:
    """Six ``heuristic`` bots a game."""
    games = []
    for seed in seeds:
        g = play_long(seed, [StrategicPlayer(seed=seed * 6 + i) for i in range(6)], rounds)
        print(_line("six", g, list(range(6))), flush=True)
        games.append(g)
    kinds = Counter(g.victory for g in games)
    print(
        f"six heuristic bots, {len(games)} games of {rounds} rounds: victories {dict(kinds)} "
        f"(rounds {[g.rounds for g in games if g.victory != 'none']}), at the cap {kinds['none']}; "
        f"median techs {np.median([t for g in games for t in g.techs]):.0f}, "
        f"max {max(t for g in games for t in g.techs)}; "
        f"median treasury {_medians(games, 'treasury')}, happiness {_medians(games, 'happiness')}; "
        f"wars {sum(g.wars for g in games)}, peaces {sum(g.peaces for g in games)}; "
        f"{np.mean([g.wall_s for g in games]):.0f} s a game, "
        f"{np.median([g.move_ms for g in games]):.1f} ms a move"
    )


def _medians(games: list[Game], what: str) -> dict[int, float]:
    return {
        r: float(np.median([x for g in games if r in getattr(g, what) for x in getattr(g, what)[r]]))
        for r in CHECKPOINTS
    }


def versus(seeds: range, rounds: int, one_new: bool) -> None:
    """One bot of a kind against five of the other, its seat rotating with the seed."""
    wins = []
    for seed in seeds:
        seat = seed % 6

        def bot(i: int, seed: int = seed, seat: int = seat) -> Player:
            new = (i == seat) == one_new
            return (StrategicPlayer if new else HeuristicPlayer)(seed=seed * 6 + i)

        g = play_long(seed, [bot(i) for i in range(6)], rounds)
        wins.append(g.winner == seat)
        new_seats = [seat] if one_new else [i for i in range(6) if i != seat]
        print(_line("versus" if one_new else "reverse", g, new_seats) + f"; lone seat {seat}", flush=True)
    lone, rest = ("heuristic", "easy") if one_new else ("easy", "heuristic")
    print(
        f"one {lone} against five {rest}, {len(wins)} games of {rounds} rounds: the lone bot won "
        f"{sum(wins)}/{len(wins)} ({100 * sum(wins) / max(len(wins), 1):.0f} %)"
    )


def main() -> None:
    modes = os.environ.get("TN_BOT_MODE", "random").split(",")
    first = int(os.environ.get("TN_BOT_SEED", "0"))
    rounds = int(os.environ.get("TN_BOT_ROUNDS", "300"))
    for mode in modes:
        games = int(os.environ.get("TN_BOT_GAMES", "50" if mode == "random" else "4"))
        seeds = range(first, first + games)
        if mode == "random":
            against_random(games)
        elif mode == "six":
            six(seeds, rounds)
        elif mode in ("versus", "reverse"):
            versus(seeds, rounds, mode == "versus")
        else:
            raise SystemExit(f"unknown TN_BOT_MODE {mode!r}: random, six, versus or reverse")


if __name__ == "__main__":
    main()
