"""Ratings recover known strengths from synthetic results, and their intervals cover the truth."""

import numpy as np

from hexarena.arena.ratings import ELO, Rated, bradley_terry, plackett_luce


def rank_correlation(a, b):
    """Spearman's rank correlation (no ties here)."""
    return float(np.corrcoef(np.argsort(np.argsort(a)), np.argsort(np.argsort(b)))[0, 1])


def two_player_results(truth, first_seat, games, rng):
    players = list(truth)
    out = []
    for a in players:
        for b in players:
            if a == b:
                continue
            for _ in range(games):
                logit = (truth[a] - truth[b] + first_seat) / ELO
                a_wins = rng.random() < 1 / (1 + np.exp(-logit))
                out.append(Rated("hex", (a, b), (1, 2) if a_wins else (2, 1)))
    return out


def plackett_luce_results(truth, seats, matches, rng, game="sw"):
    """Finishing orders drawn from the Plackett–Luce model: the next place goes to a remaining
    player with probability proportional to exp(strength)."""
    players = list(truth)
    out = []
    for _ in range(matches):
        pod = [str(p) for p in rng.choice(players, seats, replace=False)]
        weights = np.exp(np.array([truth[p] for p in pod]) / ELO)
        left, places = list(range(seats)), [0] * seats
        for place in range(1, seats + 1):
            k = rng.choice(len(left), p=weights[left] / weights[left].sum())
            places[left.pop(k)] = place
        out.append(Rated(game, tuple(pod), tuple(places)))
    return out


def test_bradley_terry_recovers_strengths_and_first_seat_advantage():
    truth = {f"p{i}": 120.0 * i for i in range(6)}
    matches = two_player_results(truth, first_seat=80.0, games=60, rng=np.random.default_rng(3))
    fit = bradley_terry(matches, list(truth), anchor="p0", bootstrap=50)
    for p, strength in truth.items():
        assert abs(fit.players[p].rating - (1000 + strength)) < 60, (p, fit.players[p])
    assert fit.players["p0"].rating == 1000.0  # anchored
    assert 40 < fit.first_seat["hex"].rating < 120
    assert fit.first_seat["hex"].low < 80 < fit.first_seat["hex"].high


def test_bootstrap_intervals_cover_the_truth_at_least_90_percent():
    truth = {"a": 0.0, "b": 100.0, "c": 200.0, "d": 350.0}
    covered = total = 0
    for trial in range(30):
        matches = two_player_results(truth, first_seat=50.0, games=15, rng=np.random.default_rng(100 + trial))
        fit = bradley_terry(matches, list(truth), anchor="a", bootstrap=100, seed=trial)
        for p in ("b", "c", "d"):
            total += 1
            covered += fit.players[p].low <= 1000 + truth[p] <= fit.players[p].high
    assert covered / total >= 0.90, f"{covered}/{total}"


def test_multiplayer_ratings_recover_the_order():
    truth = {f"q{i}": 90.0 * i for i in range(8)}
    matches = plackett_luce_results(truth, seats=4, matches=400, rng=np.random.default_rng(5))
    openskill = plackett_luce(matches, list(truth), anchor="q0")
    ratings = [openskill[p].rating for p in truth]
    assert rank_correlation(ratings, list(truth.values())) >= 0.9
    assert openskill["q7"].rating > openskill["q0"].rating + 300 and openskill["q0"].rating == 1000.0
    # the joint Bradley–Terry fit over the pairwise reduction agrees, on the right scale
    joint = bradley_terry(matches, list(truth), anchor="q0", bootstrap=0)
    for p, strength in truth.items():
        assert abs(joint.players[p].rating - (1000 + strength)) < 90, (p, joint.players[p])


def test_combined_fit_is_joint_over_games_with_a_seat_advantage_each():
    truth = {f"p{i}": 100.0 * i for i in range(5)}
    rng = np.random.default_rng(9)
    hex_matches = two_player_results(truth, first_seat=150.0, games=20, rng=rng)
    multi = plackett_luce_results(truth, seats=3, matches=200, rng=rng)
    fit = bradley_terry(hex_matches + multi, list(truth), anchor="p0", bootstrap=20)
    assert fit.model == "bradley-terry (joint over games)"
    assert set(fit.first_seat) == {"hex", "sw"}
    assert fit.first_seat["hex"].rating > 80 and abs(fit.first_seat["sw"].rating) < 80
    order = sorted(truth, key=lambda p: fit.players[p].rating)
    assert order == list(truth)


def test_unbeaten_player_gets_a_finite_rating():
    matches = [Rated("hex", ("h", "r"), (1, 2)), Rated("hex", ("r", "h"), (2, 1))] * 10
    fit = bradley_terry(matches, ["r", "h"], anchor="r", bootstrap=20)
    assert 1300 < fit.players["h"].rating < 2500 and np.isfinite(fit.players["h"].high)
