"""Invariants after every action over 1,000 games, determinism and course properties."""

from __future__ import annotations

import pytest

from hexarena.core.rng import Rng
from hexarena.games.cityofgold import board
from hexarena.games.cityofgold.actions import MOVE, N_ACTIONS, PLAY, Phase
from hexarena.games.cityofgold.board import (
    GRID,
    NEIGHBORS,
    PIECES,
    CourseError,
    generate_course,
)
from hexarena.games.cityofgold.cards import N_CARDS
from hexarena.games.cityofgold.engine import Game, legal_actions, new_game, step
from hexarena.games.cityofgold.invariants import check_invariants


def racing_choice(g: Game, rng: Rng, dist: list[int]) -> int:
    """Mostly a move closer to El Dorado or a card to pay for one, else uniform (so games do end)."""
    actions = legal_actions(g)
    closer = [
        a
        for a in actions
        if MOVE <= a < MOVE + 12
        and dist[NEIGHBORS[g.pawns[g.player][(a - MOVE) // 6]][(a - MOVE) % 6]]
        < dist[g.pawns[g.player][(a - MOVE) // 6]]
    ]
    if closer and rng.random() < 0.9:
        return rng.choice(closer)
    plays = [a for a in actions if a < PLAY + N_CARDS and g.phase == Phase.MOVEMENT]
    if plays and rng.random() < 0.7:
        return rng.choice(plays)
    return rng.choice(actions)


def test_invariants_hold_after_every_action_in_1000_games():
    ends = {"won": 0, "truncated": 0}
    for seed in range(1000):
        g = new_game(
            seed,
            n_players=2 + seed % 3,
            n_pieces=1 + seed % 2,
            layout="tree" if seed % 4 == 3 else "linear",
            caves=seed % 5 == 0,
            max_turns=40,
        )
        rng = Rng(seed)
        dist = g.course.distance_to_finish()
        racing = seed % 2 == 0
        check_invariants(g)
        while not g.done:
            step(g, racing_choice(g, rng, dist) if racing else rng.choice(legal_actions(g)))
            check_invariants(g)
        ends["truncated" if g.truncated else "won"] += 1
    assert ends["won"] > 100 and ends["truncated"] > 100


def play_out(seed: int, **params) -> tuple[Game, list[int]]:
    g = new_game(seed, **params)
    rng = Rng(seed + 1)
    actions = []
    while not g.done:
        a = rng.choice(legal_actions(g))
        actions.append(a)
        step(g, a)
    return g, actions


def test_determinism_and_replay():
    g1, actions = play_out(11, n_players=3, max_turns=60)
    g2, actions2 = play_out(11, n_players=3, max_turns=60)
    assert actions == actions2 and g1.to_json() == g2.to_json()
    g3 = new_game(11, n_players=3, max_turns=60)
    for a in actions:
        step(g3, a)
    assert g3.to_json() == g1.to_json()
    assert new_game(12, n_players=3).to_json() != new_game(11, n_players=3).to_json()


def test_copy_is_independent():
    g = new_game(4)
    h = g.copy()
    step(h, legal_actions(h)[0])
    step(h, N_ACTIONS - 1)
    assert g.to_json() == new_game(4).to_json() and h.to_json() != g.to_json()


@pytest.mark.parametrize(
    ("layout", "difficulty", "n_pieces"),
    [
        ("linear", "easy", 3),
        ("linear", "medium", 5),
        ("linear", "hard", 8),
        ("tree", "easy", 3),
        ("tree", "hard", 8),
    ],
)
def test_courses_over_many_seeds(layout, difficulty, n_pieces):
    for seed in range(60):
        c = generate_course(seed, n_pieces, difficulty, layout, min_distance=8)
        assert c.start_distance() >= 8
        assert len(c.starts) == 4 and len(c.finishes) == 3
        xs = [cell // GRID for cell in c.cells()]
        ys = [cell % GRID for cell in c.cells()]
        assert min(xs) == 1 and min(ys) == 1 and max(xs) <= GRID - 2 and max(ys) <= GRID - 2
        names = [p[0] for p in c.pieces]
        assert len(set(names)) == len(names) == n_pieces + 2
        allowed = {"easy": {"easy"}, "medium": {"easy", "medium"}, "hard": {"easy", "medium", "hard"}}[
            difficulty
        ]
        assert all(PIECES[n].cls in allowed for n in names[1:-1])
        if layout == "linear":
            assert len(c.blockades) == min(n_pieces - 1, 6)
            assert {b for _, _, b in c.gates} == set(range(len(c.blockades)))
        else:
            assert not c.gates
    assert generate_course(3, n_pieces, difficulty, layout) == generate_course(
        3, n_pieces, difficulty, layout
    )


def test_tiles_are_distinct_and_well_formed():
    codes = [tuple(sorted(p.hexes)) for p in PIECES.values()]
    assert len(set(codes)) == len(codes)
    sizes = {p.shape: len(p.hexes) for p in PIECES.values()}
    assert sizes == {"large": 37, "strip": 16, "end": 3}


def test_bad_settings_give_clear_errors():
    with pytest.raises(CourseError, match=r"n_pieces must be 1\.\.3 for difficulty EASY"):
        generate_course(0, 4, "easy")
    with pytest.raises(CourseError, match="difficulty must be"):
        generate_course(0, 2, "impossible")
    with pytest.raises(CourseError, match="layout must be"):
        generate_course(0, 2, "easy", layout="ring")
    with pytest.raises(CourseError, match="min_distance"):
        generate_course(0, 1, "easy", min_distance=40)
    with pytest.raises(ValueError, match="n_players must be 2, 3 or 4"):
        new_game(0, n_players=5)


def test_courses_that_overflow_the_grid_are_refused_clearly(monkeypatch):
    for seed in range(5):
        c = generate_course(seed, 16, "hard", "linear")  # the chain search keeps within the grid
        assert max(cell // GRID for cell in c.cells()) <= GRID - 2
    monkeypatch.setattr(board, "_fits", lambda slots: True)
    with pytest.raises(CourseError, match=r"spans \d+ x \d+ hexes; max 46"):
        generate_course(0, 16, "hard", "linear")


@pytest.mark.slow
def test_invariants_in_full_length_four_player_random_games():
    for seed in range(50):
        g = new_game(seed, n_players=4, n_pieces=3, difficulty="easy", max_turns=1000)
        rng = Rng(seed)
        while not g.done:
            step(g, rng.choice(legal_actions(g)))
            check_invariants(g)
