"""Ratings from match results: Bradley–Terry with bootstrap intervals, and Plackett–Luce.

**Bradley–Terry** (2-player games, and the combined leaderboard): player *i* beats *j* with
probability σ(θᵢ − θⱼ + h·x), where *x* = 1 when *i* sits in the first seat (0 otherwise) and *h*
is the game's first-seat advantage. θ and h are the maximum of the likelihood times a weak
Gaussian prior (``prior_sd`` rating points; it only keeps a 100 % score finite); a draw counts
half a win each. Intervals come from a bootstrap over matches (resampled within each game).

**Multiplayer** (3–6 seats): OpenSkill's Plackett–Luce model (the maintained ``openskill``
package) over the full finishing order, matches taken in schedule order; its interval is
μ ± z·σ.

**Combined** (several games): one joint Bradley–Terry fit, not an average of per-game ratings.
Multiplayer finishes are reduced to their pairwise results (each weighted 1/(k−1), so one match
counts as one game per player), each game has its own first-seat advantage, and each game's
matches are weighted so that every game weighs the same however many matches it had.

Every rating is on the Elo scale (400 points = 10:1 odds) and anchored: the anchor player (by
default the first random player) is fixed at 1000; without one the field's mean is 1000.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import NormalDist

import numpy as np

ELO = 400 / math.log(10)  # rating points per unit of log-odds


@dataclass(frozen=True)
class Rated:
    """One rated match: the game, who sat where, and each seat's place (1 = best; equal = tied)."""

    game: str
    seating: tuple[str, ...]
    places: tuple[int, ...]


@dataclass(frozen=True)
class Rating:
    rating: float
    low: float
    high: float


@dataclass(frozen=True)
class Fit:
    """Ratings of players, and the first-seat advantage of each game (rating points)."""

    players: dict[str, Rating]
    first_seat: dict[str, Rating]
    model: str


@dataclass(frozen=True)
class _Pairs:
    """Pairwise comparisons as arrays: i beat j by s (1, 0.5, 0); x = 1 when i had the first seat."""

    i: np.ndarray
    j: np.ndarray
    s: np.ndarray
    x: np.ndarray
    game: np.ndarray
    match: np.ndarray
    weight: np.ndarray


def _pairs(matches: Sequence[Rated], players: list[str], games: list[str], normalise: bool) -> _Pairs:
    index = {p: n for n, p in enumerate(players)}
    gindex = {g: n for n, g in enumerate(games)}
    per_game = {g: sum(m.game == g for m in matches) for g in games}
    rows = []
    for mi, m in enumerate(matches):
        k = len(m.seating)
        gw = (len(matches) / len(games)) / per_game[m.game] if normalise else 1.0
        for a in range(k):
            for b in range(a + 1, k):
                pa, pb = m.places[a], m.places[b]
                s = 1.0 if pa < pb else 0.5 if pa == pb else 0.0
                rows.append(
                    (
                        index[m.seating[a]],
                        index[m.seating[b]],
                        s,
                        float(a == 0),
                        gindex[m.game],
                        mi,
                        gw / (k - 1),
                    )
                )
    if not rows:
        empty = np.zeros(0)
        return _Pairs(
            empty.astype(int), empty.astype(int), empty, empty, empty.astype(int), empty.astype(int), empty
        )
    arr = np.array(rows, dtype=float)
    as_int = arr[:, [0, 1, 4, 5]].astype(int)
    return _Pairs(as_int[:, 0], as_int[:, 1], arr[:, 2], arr[:, 3], as_int[:, 2], as_int[:, 3], arr[:, 6])


def _fit(
    pairs: _Pairs, weight: np.ndarray, n_players: int, n_games: int, prior_sd: float, start: np.ndarray
) -> np.ndarray:
    """MAP estimate of (θ, h) in log-odds units, by Newton's method (the objective is convex)."""
    size = n_players + n_games
    design = np.zeros((len(pairs.s), size))  # d = design @ v
    rows = np.arange(len(pairs.s))
    design[rows, pairs.i] += 1.0
    design[rows, pairs.j] -= 1.0
    design[rows, n_players + pairs.game] += pairs.x
    precision = (ELO / prior_sd) ** 2

    def loss(v: np.ndarray) -> float:
        d = design @ v
        return float(
            np.sum(weight * (pairs.s * np.logaddexp(0, -d) + (1 - pairs.s) * np.logaddexp(0, d)))
            + 0.5 * precision * v @ v
        )

    v = start.copy()
    current = loss(v)
    for _ in range(100):
        p = 1 / (1 + np.exp(-(design @ v)))
        grad = design.T @ (weight * (p - pairs.s)) + precision * v
        hess = (design.T * (weight * p * (1 - p))) @ design + precision * np.eye(size)
        step = np.linalg.solve(hess, grad)
        t = 1.0
        while (new := loss(v - t * step)) > current + 1e-12 and t > 1e-6:  # halve until it improves
            t /= 2
        v, improvement, current = v - t * step, current - new, new
        if improvement < 1e-10:
            break
    return v


def _anchored(theta: np.ndarray, players: list[str], anchor: str | None, anchor_rating: float) -> np.ndarray:
    ref = theta[players.index(anchor)] if anchor in players else theta.mean()
    return anchor_rating + (theta - ref) * ELO


def bradley_terry(
    matches: Sequence[Rated],
    players: list[str],
    *,
    anchor: str | None = None,
    anchor_rating: float = 1000.0,
    bootstrap: int = 200,
    confidence: float = 0.95,
    prior_sd: float = 600.0,
    seed: int = 0,
) -> Fit:
    """A (joint, when there are several games) Bradley–Terry fit with bootstrap intervals."""
    games = sorted({m.game for m in matches})
    pairs = _pairs(matches, players, games, normalise=len(games) > 1)
    n, g = len(players), len(games)
    start = np.zeros(n + g)
    est = _fit(pairs, pairs.weight, n, g, prior_sd, start)
    point = _anchored(est[:n], players, anchor, anchor_rating)
    draws_r, draws_h = [], []
    rng = np.random.default_rng(seed)
    by_game = [np.flatnonzero([m.game == name for m in matches]) for name in games]
    for _ in range(bootstrap):
        counts = np.zeros(len(matches))
        for idx in by_game:  # resample matches within each game
            counts += np.bincount(rng.choice(idx, size=len(idx)), minlength=len(matches))
        rep = _fit(pairs, pairs.weight * counts[pairs.match], n, g, prior_sd, est)
        draws_r.append(_anchored(rep[:n], players, anchor, anchor_rating))
        draws_h.append(rep[n:] * ELO)
    lo_q, hi_q = 50 * (1 - confidence), 50 * (1 + confidence)

    def interval(values: np.ndarray, k: int, centre: float) -> tuple[float, float]:
        if not bootstrap:
            return centre, centre
        col = np.asarray(values)[:, k]
        return float(np.percentile(col, lo_q)), float(np.percentile(col, hi_q))

    ratings = {p: Rating(float(point[k]), *interval(draws_r, k, point[k])) for k, p in enumerate(players)}
    seat = {
        name: Rating(float(est[n + k] * ELO), *interval(draws_h, k, est[n + k] * ELO))
        for k, name in enumerate(games)
    }
    return Fit(ratings, seat, "bradley-terry" if g <= 1 else "bradley-terry (joint over games)")


def plackett_luce(
    matches: Sequence[Rated],
    players: list[str],
    *,
    anchor: str | None = None,
    anchor_rating: float = 1000.0,
    confidence: float = 0.95,
) -> dict[str, Rating]:
    """OpenSkill Plackett–Luce ratings over full finishing orders, on the anchored Elo scale.

    In a k-player match the model's log-odds between two players are (μᵢ − μⱼ)/c with
    c = √(Σ(σ² + β²)) ≈ β√k once σ has settled, which is how μ is put on the Elo scale (an
    approximation: the per-game table of a multiplayer game is a ranking first).
    """
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    current = {p: model.rating(name=p) for p in players}
    for m in matches:
        teams = model.rate([[current[p]] for p in m.seating], ranks=[float(r) for r in m.places])
        for p, team in zip(m.seating, teams, strict=True):
            current[p] = team[0]
    seats = max((len(m.seating) for m in matches), default=2)
    scale = ELO / (model.beta * math.sqrt(seats))
    z = NormalDist().inv_cdf(0.5 + confidence / 2)
    if anchor in current:
        ref, ref_sigma = current[anchor].mu, current[anchor].sigma
    else:
        ref, ref_sigma = float(np.mean([r.mu for r in current.values()])), 0.0
    out = {}
    for p, r in current.items():
        value = anchor_rating + (r.mu - ref) * scale
        half = 0.0 if p == anchor else z * math.hypot(r.sigma, ref_sigma) * scale
        out[p] = Rating(value, value - half, value + half)
    return out
