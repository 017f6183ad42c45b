"""The Hex game state: environment, rules and text rendering through the game contract."""

from __future__ import annotations

import dataclasses
import re
import string
from collections import deque
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from hexarena.core.contract import GameState, Move, Outcome, OutcomeKind, new_setup
from hexarena.core.errors import IllegalMoveError
from hexarena.core.hexgrid import Hex

ROLES = ("red", "blue")
EMPTY, RED, BLUE = 0, 1, 2
_STONE = {EMPTY: ".", RED: "R", BLUE: "B"}
_CELL_RE = re.compile(r"^([a-z])\s*(\d{1,2})$")
#: A whole reply that is one move: a cell (or swap), maybe quoted or ending in a full stop.
_CELL = re.compile(r"[`'\"*]*\s*(swap|[a-z]\s?\d{1,2})\s*[`'\"*]*\.?")


@dataclass(frozen=True, slots=True)
class HexBoard:
    """The environment: a flat tuple of cells, row by row (``index = row * size + col``)."""

    size: int
    cells: tuple[int, ...]
    swap_rule: bool
    swapped: bool = False
    #: RED or BLUE once that colour has joined its edges (kept so checks are O(1)), else EMPTY.
    winner: int = EMPTY

    @property
    def stones(self) -> int:
        return sum(1 for c in self.cells if c != EMPTY)

    def at(self, col: int, row: int) -> int:
        return self.cells[row * self.size + col]

    def connected(self, colour: int) -> bool:
        """Whether ``colour`` has a chain of stones joining its two edges."""
        n = self.size
        # Red joins row 0 to row n-1; blue joins column 0 to column n-1.
        starts = [(c, 0) for c in range(n)] if colour == RED else [(0, r) for r in range(n)]
        frontier = deque(s for s in starts if self.at(*s) == colour)
        seen = set(frontier)
        while frontier:
            col, row = frontier.popleft()
            if (row if colour == RED else col) == n - 1:
                return True
            for nb in Hex(col, row).neighbors():
                if 0 <= nb.q < n and 0 <= nb.r < n and nb not in seen and self.at(nb.q, nb.r) == colour:
                    seen.add(nb)
                    frontier.append((nb.q, nb.r))
        return False

    def winning_chain(self) -> set[tuple[int, int]]:
        """The winner's stones on a chain joining its edges (``(col, row)``), empty before a win."""
        if self.winner == EMPTY:
            return set()
        n, colour = self.size, self.winner
        ends = [
            [(c, e) for c in range(n)] if colour == RED else [(e, r) for r in range(n)] for e in (0, n - 1)
        ]
        reached = []
        for edge in ends:
            frontier = deque(s for s in edge if self.at(*s) == colour)
            seen = set(frontier)
            while frontier:
                for nb in Hex(*frontier.popleft()).neighbors():
                    cell = (nb.q, nb.r)
                    if 0 <= nb.q < n and 0 <= nb.r < n and cell not in seen and self.at(*cell) == colour:
                        seen.add(cell)
                        frontier.append(cell)
            reached.append(seen)
        return reached[0] & reached[1]


def cell_name(col: int, row: int) -> str:
    """Column letter and 1-based row, as in the usual Hex notation: ``(2, 4)`` -> ``c5``."""
    return f"{string.ascii_lowercase[col]}{row + 1}"


@dataclass(frozen=True, slots=True, kw_only=True)
class HexState(GameState):
    """Hex through the hexarena contract. Moves are cell names (``"c5"``) or ``"swap"``."""

    name: ClassVar[str] = "hex"
    rules_summary: ClassVar[str] = (
        "Hex. Two players place one stone per turn on any empty cell of a rhombus of hexagons. "
        "Red moves first and wins by linking the top edge to the bottom edge with red stones; "
        "blue wins by linking the left edge to the right edge. Each cell touches six others "
        "(left and right in its row, the same and the next column in the row above, the same and the "
        "previous column in the row below). Draws are impossible. If the swap "
        "rule is on, blue may answer red's first stone with 'swap' to take it over (mirrored). "
        "Moves are written as column letter and row number, e.g. c5."
    )
    demo_params: ClassVar[dict[str, Any]] = {"size": 7, "swap_rule": True}
    bots: ClassVar[dict[str, str]] = {"heuristic": "hexarena.games.hex.bot:HexBot"}
    move_syntax: ClassVar[str] = "a cell as column letter and row number (a1, c5), or swap (second move only)"

    @classmethod
    def new(cls, seed: int = 0, size: int = 11, swap_rule: bool = False) -> HexState:
        if not isinstance(size, int) or not 2 <= size <= 26:
            raise ValueError(f"Hex size must be an int from 2 to 26, got {size!r}")
        setup = new_setup(cls.name, seed, {"size": size, "swap_rule": bool(swap_rule)})
        board = HexBoard(size=size, cells=(EMPTY,) * (size * size), swap_rule=bool(swap_rule))
        return cls.start(board, setup)

    # -- rules -----------------------------------------------------------------------------
    def all_roles(self) -> tuple[str, ...]:
        return ROLES

    def _mover(self, board: HexBoard) -> int:
        # One stone per move, and a swap keeps the count at one: moves made = stones + swapped.
        return RED if (board.stones + board.swapped) % 2 == 0 else BLUE

    def roles_for(self, environment: HexBoard) -> tuple[str, ...]:
        mover = self._mover(environment)
        return ROLES if mover == RED else (ROLES[1], ROLES[0])

    def _swap_allowed(self, board: HexBoard) -> bool:
        return board.swap_rule and not board.swapped and board.stones == 1

    def advance(self, move: Move) -> HexBoard:
        board: HexBoard = self.environment
        if not isinstance(move, str):
            raise IllegalMoveError(f"a Hex move is a cell name like 'c5' or 'swap', got {move!r}")
        text = move.strip().lower()
        if text == "swap":
            if not self._swap_allowed(board):
                raise IllegalMoveError("swap is only allowed as blue's first move, with the swap rule on")
            (idx,) = [i for i, c in enumerate(board.cells) if c != EMPTY]
            col, row = idx % board.size, idx // board.size
            cells = list(board.cells)
            cells[idx] = EMPTY
            cells[col * board.size + row] = BLUE  # mirror across the long diagonal
            return HexBoard(board.size, tuple(cells), board.swap_rule, swapped=True)  # one stone wins nothing
        col, row = self._cell(text, board.size)
        idx = row * board.size + col
        if board.cells[idx] != EMPTY:
            raise IllegalMoveError(f"{text} is already taken by {ROLES[board.cells[idx] - 1]}")
        cells = list(board.cells)
        mover = self._mover(board)
        cells[idx] = mover
        placed = HexBoard(board.size, tuple(cells), board.swap_rule, board.swapped)
        # Only the colour that just moved can have completed a chain.
        return dataclasses.replace(placed, winner=mover) if placed.connected(mover) else placed

    @staticmethod
    def _cell(text: str, size: int) -> tuple[int, int]:
        m = _CELL_RE.match(text)
        if not m:
            raise IllegalMoveError(f"{text!r} is not a cell name; write a column letter and a row, like 'c5'")
        col, row = string.ascii_lowercase.index(m.group(1)), int(m.group(2)) - 1
        if not (0 <= col < size and 0 <= row < size):
            last = cell_name(size - 1, size - 1)
            raise IllegalMoveError(f"{text} is off the board (cells run from a1 to {last})")
        return col, row

    def legal_moves(self) -> tuple[str, ...]:
        board: HexBoard = self.environment
        if self.validate_game() is not None:
            return ()
        moves = [cell_name(i % board.size, i // board.size) for i, c in enumerate(board.cells) if c == EMPTY]
        if self._swap_allowed(board):
            moves.append("swap")
        return tuple(moves)

    # -- RL hooks: action = cell index (row * size + col); the last index is "swap" ------------
    def action_count(self) -> int:
        return self.environment.size**2 + 1

    def action_to_move(self, action: int) -> str:
        n = self.environment.size
        if not 0 <= action <= n * n:
            raise IllegalMoveError(f"action {action} out of range 0..{n * n}")
        return "swap" if action == n * n else cell_name(action % n, action // n)

    def move_to_action(self, move: Move) -> int:
        n = self.environment.size
        if move == "swap":
            return n * n
        col, row = self._cell(str(move), n)
        return row * n + col

    def observation_array(self, role: str) -> np.ndarray:
        """Planes ``(2, size, size)``: the role's own stones, then the opponent's."""
        board: HexBoard = self.environment
        cells = np.asarray(board.cells, dtype=np.int8).reshape(board.size, board.size)
        own = RED if role == ROLES[0] else BLUE
        return np.stack([cells == own, (cells != own) & (cells != EMPTY)]).astype(np.int8)

    def parse_move(self, text: str) -> Move:
        if not isinstance(text, str):
            raise self.unreadable(text)
        found = _CELL.fullmatch(text.strip().lower())
        if not found:
            raise self.unreadable(text, "a reply is one cell name and nothing else")
        return found.group(1).replace(" ", "")

    def validate_game(self) -> Outcome | None:
        winner = self.environment.winner
        if winner == EMPTY:
            return None
        role = ROLES[winner - 1]
        direction = "top to bottom" if winner == RED else "left to right"
        return Outcome.from_scores(OutcomeKind.WIN, f"{role} connected {direction}", self.get_scores())

    def get_scores(self) -> dict[str, float]:
        winner = self.environment.winner
        return {r: (1.0 if winner == i + 1 else 0.0) for i, r in enumerate(ROLES)}

    # -- views -----------------------------------------------------------------------------
    def render_text(self, role: str | None = None) -> str:
        board: HexBoard = self.environment
        n = board.size
        lines = [f"Hex {n}x{n}; red (R) joins top-bottom, blue (B) joins left-right."]
        lines.append("   " + " ".join(string.ascii_lowercase[:n]))
        for row in range(n):
            cells = " ".join(_STONE[board.at(col, row)] for col in range(n))
            lines.append(f"{' ' * row}{row + 1:>2} {cells} {row + 1}")
        lines.append(" " * (n + 3) + " ".join(string.ascii_lowercase[:n]))
        outcome = self.validate_game()
        if outcome is not None:
            lines.append(f"Game over: {outcome.reason}.")
        else:
            lines.append(f"To move: {self.roles[0]}.")
        return "\n".join(lines)

    def frame(self) -> dict[str, Any]:
        """The board, framed by its edges in the colour that must join them and labelled as the
        moves name cells (columns a, b, ... above and below, rows 1, 2, ... left and right); the
        winning chain is starred."""
        board: HexBoard = self.environment
        n = board.size
        owners = {EMPTY: None, RED: "red", BLUE: "blue"}
        chain = board.winning_chain()
        cells: list[dict[str, Any]] = []
        for i, c in enumerate(board.cells):
            col, row = i % n, i // n
            cell = {"id": cell_name(col, row), "q": col, "r": row, "terrain": "board", "owner": owners[c]}
            if (col, row) in chain:
                cell["icons"] = ["chain"]
            cells.append(cell)
        letters = string.ascii_lowercase[:n]
        for k in range(n):
            for side, r in (("top", -1), ("bottom", n)):
                cells.append(
                    {"id": f"{side}-{letters[k]}", "q": k, "r": r, "terrain": "red_edge", "label": letters[k]}
                )
            for side, q in (("left", -1), ("right", n)):
                cells.append(
                    {"id": f"{side}-{k + 1}", "q": q, "r": k, "terrain": "blue_edge", "label": str(k + 1)}
                )
        return {
            "layout": "pointy",
            "cells": cells,
            "players": [{"role": r, "score": s} for r, s in self.get_scores().items()],
        }
