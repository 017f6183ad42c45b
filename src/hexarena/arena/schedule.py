"""Which matches an arena plays: round-robin, gauntlet or Swiss, over balanced seatings.

A *pairing* is a set of players meeting in one game; it is played in every cyclic rotation of
its seats (two colours for 2-player games, each player once in each seat for k players), and
``games_per_pairing`` times, each time with its own seed shared by all the rotations (and by all
pairings): differences between seatings and opponents are then not differences of luck.

Round-robin and gauntlet schedules are known in advance. A Swiss schedule is built round by
round from the finished results of the earlier rounds (:func:`plan` is called again as rounds
finish), and deterministically, so a resumed arena pairs exactly as an uninterrupted one.
"""

from __future__ import annotations

import hashlib
import itertools
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from hexarena.arena.config import ArenaConfig, ArenaGame, ScheduleKind, game_field, seat_params
from hexarena.core.config import redact_secrets
from hexarena.core.rng import Rng, derive_seed
from hexarena.core.untrusted import is_secret_key


@dataclass(frozen=True)
class MatchSpec:
    """One match to play. ``id`` hashes everything that decides it (see :func:`match_id`)."""

    id: str
    game: str  # the game's key in the arena (its label, or its name)
    game_name: str
    params: Mapping[str, Any]
    seed: int
    seating: tuple[str, ...]  # player names, seat by seat
    round: int
    order: tuple[int, ...]  # a stable sort key: the schedule's own order

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "game": self.game,
            "game_name": self.game_name,
            "params": dict(self.params),
            "seed": self.seed,
            "seating": list(self.seating),
            "round": self.round,
            "order": list(self.order),
        }

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> MatchSpec:
        return cls(
            d["id"],
            d["game"],
            d["game_name"],
            dict(d["params"]),
            int(d["seed"]),
            tuple(d["seating"]),
            int(d["round"]),
            tuple(d["order"]),
        )


def match_id(
    config: ArenaConfig, game: str, params: Mapping[str, Any], seed: int, seating: tuple[str, ...]
) -> str:
    """Hash of game, params, seed, seating and the seated players' configs (secrets left out) and
    the manager settings: the same match always has the same id, a changed one a new id.

    The players are taken as written (``${VAR}`` unexpanded, a URL's credentials masked), so the
    arena that plays and the readers that never expand (``leaderboard``, ``view``) agree."""
    # Only what was set (not defaults): a new option in a later hexarena leaves old ids alone.
    players = [_without_secrets(config.written_player(n, exclude_defaults=True)) for n in seating]
    blob = {
        "game": game,
        "params": dict(params),
        "seed": seed,
        "seating": list(seating),
        "players": players,
        "manager": config.manager.model_dump(mode="json", exclude_defaults=True),
    }
    text = json.dumps(blob, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:20]


def _without_secrets(value: Any) -> Any:
    """A player config without its secret-looking keys (a key, or the ``${VAR}`` naming it, is
    not what decides a match, and must not change its id) and with URL credentials masked."""
    if isinstance(value, Mapping):
        return {k: _without_secrets(v) for k, v in value.items() if not is_secret_key(k)}
    if isinstance(value, list):
        return [_without_secrets(v) for v in value]
    return redact_secrets(value)


def game_seed(config: ArenaConfig, game: ArenaGame, index: int, rnd: int = 0) -> int:
    """The seed of the ``index``-th game of every pairing of ``game`` (of Swiss round ``rnd``: new
    seeds each round); 31 bits, which every engine takes."""
    labels = (index,) if rnd == 0 else (index, "round", rnd)
    return derive_seed(config.schedule.seed, game.key, *labels) % 2**31


def rotations(players: tuple[str, ...]) -> list[tuple[str, ...]]:
    """Every cyclic rotation: each player sits once in each seat."""
    return [players[i:] + players[:i] for i in range(len(players))]


def _pairing_matches(
    config: ArenaConfig, gi: int, game: ArenaGame, pairing: tuple[str, ...], pi: int, rnd: int
) -> list[MatchSpec]:
    params, _ = seat_params(game, f"games[{gi}]")
    out = []
    for g in range(config.schedule.games_per_pairing):
        seed = game_seed(config, game, g, rnd)
        for ri, seating in enumerate(rotations(pairing)):
            mid = match_id(config, game.name, params, seed, seating)
            out.append(MatchSpec(mid, game.key, game.name, params, seed, seating, rnd, (rnd, gi, pi, g, ri)))
    return out


def pairings(config: ArenaConfig, game: ArenaGame, seats: int) -> list[tuple[str, ...]]:
    """The pairings of a fixed (round-robin or gauntlet) schedule for one game."""
    field = game_field(config, game)
    if config.schedule.kind is ScheduleKind.GAUNTLET:
        anchors = [a for a in field if a in config.schedule.anchors]
        challengers = [p for p in field if p not in anchors]
        return [(c, *opp) for c in challengers for opp in itertools.combinations(anchors, seats - 1)]
    return list(itertools.combinations(field, seats))


#: A finished match as Swiss pairing sees it: its game, its round, its seating and each seat's
#: place (1 = best), or None for places when the match was given up as an error.
Finished = Mapping[str, tuple[str, int, tuple[str, ...], tuple[int, ...] | None]]


def plan(config: ArenaConfig, finished: Finished) -> list[MatchSpec]:
    """Every match known so far: all of a fixed schedule; a Swiss one's rounds up to the first
    round that is not finished yet (``finished`` maps match id -> seating and places)."""
    specs: list[MatchSpec] = []
    for gi, game in enumerate(config.games):
        _, seats = seat_params(game, f"games[{gi}]")
        if config.schedule.kind is not ScheduleKind.SWISS:
            for pi, pairing in enumerate(pairings(config, game, seats)):
                specs += _pairing_matches(config, gi, game, pairing, pi, 0)
            continue
        played: list[tuple[str, ...]] = []
        for rnd in range(config.schedule.rounds):
            pods = swiss_pods(config, game, seats, rnd, played, finished)
            round_specs = [
                m for pi, pod in enumerate(pods) for m in _pairing_matches(config, gi, game, pod, pi, rnd)
            ]
            specs += round_specs
            played += pods
            if not all(m.id in finished for m in round_specs):
                break
    return specs


def total_matches(config: ArenaConfig) -> int:
    """How many matches the whole schedule has (Swiss: every round, before its pairings are known)."""
    total = 0
    for gi, game in enumerate(config.games):
        _, seats = seat_params(game, f"games[{gi}]")
        per_pairing = config.schedule.games_per_pairing * seats
        if config.schedule.kind is ScheduleKind.SWISS:
            total += config.schedule.rounds * (len(game_field(config, game)) // seats) * per_pairing
        else:
            total += len(pairings(config, game, seats)) * per_pairing
    return total


def swiss_pods(
    config: ArenaConfig,
    game: ArenaGame,
    seats: int,
    rnd: int,
    played: list[tuple[str, ...]],
    finished: Finished,
) -> list[tuple[str, ...]]:
    """Round ``rnd``'s pods: players sorted by points (ties in a seeded order), each pod the best
    unplaced player and the next ones it has met least; leftover players sit the round out
    (the lowest-placed ones that have sat out least)."""
    field = game_field(config, game)
    points = {p: 0.0 for p in field}
    for _, (key, played_in, seating, places) in sorted(finished.items()):
        if key != game.key or played_in >= rnd or places is None or not set(seating) <= points.keys():
            continue
        for player, place in zip(seating, places, strict=True):
            points[player] += (seats - place) / max(1, seats - 1)
    tiebreak = {
        p: i
        for i, p in enumerate(Rng(derive_seed(config.schedule.seed, game.key, "swiss", rnd)).shuffled(field))
    }
    ranked = sorted(field, key=lambda p: (-points[p], tiebreak[p]))
    sat_out = {p: rnd - sum(p in pod for pod in played) for p in field} if rnd else dict.fromkeys(field, 0)
    n_out = len(field) % seats
    resting = set(sorted(reversed(ranked), key=lambda p: sat_out[p])[:n_out]) if n_out else set()
    met: dict[frozenset[str], int] = {}
    for pod in played:
        for a, b in itertools.combinations(pod, 2):
            met[frozenset((a, b))] = met.get(frozenset((a, b)), 0) + 1
    todo = [p for p in ranked if p not in resting]
    pods = []
    while todo:
        pod = [todo.pop(0)]
        while len(pod) < seats:
            best = min(todo, key=lambda q: (sum(met.get(frozenset((q, x)), 0) for x in pod), todo.index(q)))
            pod.append(best)
            todo.remove(best)
        pods.append(tuple(pod))
    return pods
