"""The spec's fixtures: a 3-player config with seed 42, a fresh game, and its GameState."""

from __future__ import annotations

import pytest

from hexarena.games.smallworld import GameConfig, SmallWorldGame
from hexarena.games.smallworld.state import GameState


@pytest.fixture
def game_config() -> GameConfig:
    return GameConfig(num_players=3, seed=42)


@pytest.fixture
def game(game_config: GameConfig) -> SmallWorldGame:
    return SmallWorldGame(game_config)


@pytest.fixture
def game_state(game: SmallWorldGame) -> GameState:
    return game._state
