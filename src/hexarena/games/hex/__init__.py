"""Hex, the connection game: hexarena's reference game and the "how to add a game" example.

Two players take turns placing a stone on an empty cell of an ``n`` x ``n`` rhombus. Red moves
first and wants to join the top and bottom edges with a chain of red stones; blue wants to join
left and right. Ties are impossible. With the swap rule, blue's first move may be ``swap``: red's
first stone is replaced by a blue stone on the mirrored cell, which removes the first-move
advantage (the "pie rule").
"""

from hexarena.games.hex.state import HexBoard, HexState

__all__ = ["HexBoard", "HexState"]
