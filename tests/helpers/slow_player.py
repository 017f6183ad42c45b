"""A deliberately slow, deterministic player for interruption tests (``callable`` players)."""

import time

from hexarena.core.contract import GameState


def slow_first_legal(view: GameState) -> object:
    """After 0.1 s, a legal move picked by the position (no random stream: nothing to catch up)."""
    time.sleep(0.1)
    moves = view.legal_moves()
    return moves[(7 * len(view.history)) % len(moves)]
