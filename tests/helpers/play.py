"""Random legal play through the contract, shared by every game's tests."""

from __future__ import annotations

from collections.abc import Callable

from hexarena.core.contract import GameState
from hexarena.core.players import RandomPlayer


def random_play(
    state: GameState,
    seed: int = 0,
    moves: int = 100_000,
    check: Callable[[GameState, GameState], None] | None = None,
) -> GameState:
    """Up to ``moves`` uniformly random legal moves (fewer if the game ends), each one accepted.

    ``check(old, new)`` runs after every move, for invariants.
    """
    player = RandomPlayer(seed=seed)
    player.reset(state.all_roles(), seed)
    for _ in range(moves):
        if state.is_over():
            break
        nxt = state.apply(player.act(state.query_game()).move)
        assert nxt.message is None, f"a legal move was rejected: {nxt.message}"
        if check:
            check(state, nxt)
        state = nxt
    return state
