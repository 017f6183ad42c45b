"""The heuristic bot and the renderings."""

from __future__ import annotations

import numpy as np
import pytest

import hexarena
from hexarena.core.players import RandomPlayer
from hexarena.core.rng import Rng
from hexarena.games.cityofgold.bot import HeuristicPlayer, choose_action
from hexarena.games.cityofgold.engine import legal_actions, legal_mask, new_game, step
from hexarena.games.cityofgold.render import ascii_map, render_rgb, save_png


def test_heuristic_wins_at_least_90_percent_of_200_four_player_games_against_random():
    wins = 0
    for seed in range(200):
        g = new_game(seed, n_players=4, n_pieces=3, difficulty="easy", max_turns=1000)
        hero, rng = seed % 4, Rng(seed)
        while not g.done:
            if g.player == hero:
                action = choose_action(g)
                assert legal_mask(g)[action]
            else:
                action = rng.choice(legal_actions(g))
            step(g, action)
        wins += hero in g.winners
    assert wins >= 180, wins


def test_heuristic_player_through_the_contract_with_two_pawns():
    state = hexarena.make("cityofgold", seed=3, n_players=2, n_pieces=2, max_turns=400)
    bot, rnd = HeuristicPlayer(), RandomPlayer(seed=1)
    rnd.reset(("blue",), 3)
    while not state.is_over():
        player = bot if state.roles[0] == "red" else rnd
        state = state.apply(player.act(state.query_game()).move)
        assert state.message is None, state.message
    assert state.validate_game().winners == ("red",)


def test_ascii_map_shows_every_hex_and_pawn():
    g = new_game(2, n_players=4)
    text = ascii_map(g)
    assert sum(text.count(f"P{p}") for p in range(1, 5)) == 4
    assert text.count("$") == 3
    header, *rows = text.splitlines()
    assert header.split()[:3] == ["col", "1", "2"]
    tokens = [t for row in rows for t in row.split()[1:]]  # each row starts with its number
    assert len(tokens) == len(g.course.cells())
    assert [int(row.split()[0]) for row in rows] == list(range(1, len(rows) + 1))


def test_rgb_and_png_rendering_headless(tmp_path):
    g = new_game(2, n_players=3, n_pieces=2, difficulty="medium")
    image = render_rgb(g)
    assert image.dtype == np.uint8 and image.ndim == 3 and image.shape[2] == 3
    assert len(np.unique(image.reshape(-1, 3), axis=0)) > 6
    save_png(g, tmp_path / "map.png")
    assert (tmp_path / "map.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.slow
@pytest.mark.parametrize("n_players", [2, 3])
def test_heuristic_wins_most_smaller_games(n_players):
    wins = 0
    for seed in range(100):
        g = new_game(seed, n_players=n_players, n_pieces=3, difficulty="medium")
        hero, rng = seed % n_players, Rng(seed)
        while not g.done:
            step(g, choose_action(g) if g.player == hero else rng.choice(legal_actions(g)))
        wins += hero in g.winners
    assert wins >= 90, wins
