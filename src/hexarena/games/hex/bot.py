"""A Hex bot that plays the move which best shortens its own path and lengthens the opponent's.

A colour's *distance* is the fewest empty cells it still needs to join its edges (own stones
cost nothing, the opponent's stones block), found with a 0-1 breadth-first search. The bot
scores each legal move by ``opponent distance - own distance`` after it and plays the best,
breaking ties with its seeded generator. Simple, but it beats random play nearly always.
"""

from __future__ import annotations

from collections import deque

from hexarena.core.hexgrid import Hex
from hexarena.core.players import Reply, SeededPlayer, legal_or_fail
from hexarena.games.hex.state import BLUE, EMPTY, RED, HexBoard, HexState

_BLOCKED = 10_000


def distance_to_connect(board: HexBoard, colour: int) -> int:
    """Empty cells ``colour`` still needs to join its edges (a large number when cut off)."""
    n = board.size
    best = [[_BLOCKED] * n for _ in range(n)]
    queue: deque[tuple[int, int, int]] = deque()
    for i in range(n):
        col, row = (i, 0) if colour == RED else (0, i)
        cell = board.at(col, row)
        if cell in (colour, EMPTY):
            cost = 0 if cell == colour else 1
            best[row][col] = cost
            (queue.appendleft if cost == 0 else queue.append)((cost, col, row))
    while queue:
        cost, col, row = queue.popleft()
        if cost > best[row][col]:
            continue
        if (row if colour == RED else col) == n - 1:
            return cost
        for nb in Hex(col, row).neighbors():
            if not (0 <= nb.q < n and 0 <= nb.r < n):
                continue
            cell = board.at(nb.q, nb.r)
            if cell not in (colour, EMPTY):
                continue
            step = 0 if cell == colour else 1
            if cost + step < best[nb.r][nb.q]:
                best[nb.r][nb.q] = cost + step
                (queue.appendleft if step == 0 else queue.append)((cost + step, nb.q, nb.r))
    return _BLOCKED


class HexBot(SeededPlayer):
    """Greedy two-distance player (see the module docstring)."""

    kind = "heuristic"

    def act(self, view: HexState) -> Reply:  # type: ignore[override]
        moves = legal_or_fail(view)
        me = RED if view.roles[0] == "red" else BLUE
        them = BLUE if me == RED else RED
        best, best_score = [], None
        for move in moves:
            if move == "swap":
                continue
            board = view.advance(move)  # a what-if on the view; the real game is untouched
            score = distance_to_connect(board, them) - distance_to_connect(board, me)
            if best_score is None or score > best_score:
                best, best_score = [move], score
            elif score == best_score:
                best.append(move)
        return Reply(move=self.rng.choice(best or list(moves)))
