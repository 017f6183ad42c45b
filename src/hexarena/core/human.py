"""A person at a terminal: the board, a compact summary of the legal moves, and commands.

Each turn shows the board once, then the legal moves grouped by kind on a few lines (``CONQUER:
3 4 7 9 ...``), never the whole list. Commands never count as attempts:

``help``            the game's rules (Small World: every race and power), the commands and the
                    move syntax with examples
``moves [WORD|N]``  the legal moves, numbered (stable for the turn), filtered by a word or paged
``board``           the board and the summary again
``quit``            resign (asks for confirmation); so does Ctrl-D (end of input), and where
                    the input has ended for good (a closed pipe), the player resigns

and the game's own read-only commands (:meth:`~hexarena.core.contract.GameState.look`: Terra
Nova's ``map 21,32`` or ``help beliefs``).

A move is typed as text or by its number in ``moves``. Text the game cannot read is answered on
the spot and asked again (a typo never costs an attempt); a readable move the rules reject goes
to the manager and counts, and the player is warned before the last attempt.
"""

from __future__ import annotations

import shutil
import sys
from collections.abc import Sequence
from typing import IO

from hexarena.core.contract import GameState, Move, move_kind
from hexarena.core.errors import MoveParseError, Resigned
from hexarena.core.players import Player, Reply
from hexarena.core.untrusted import visible

PAGE_LINES = 40
_EXHAUSTED = {
    "leave": "you forfeit and leave the game (with two others or more, they play on)",
    "forfeit": "you forfeit the game",
    "random_legal": "a random legal move is played for you",
    "abort": "the match is aborted",
}
HELP = """Commands (never count as attempts):
  help            the rules, and this text
  moves           the legal moves, numbered; moves WORD filters them, moves 2 shows page 2
  board           the board again
  quit            resign the game (asks first)
Type a move as text, or its number from `moves`."""


class HumanPlayer(Player):
    """A person at a terminal (see the module docstring for what the screen shows)."""

    kind = "human"

    def __init__(self, name: str | None = None, stdin: IO[str] | None = None, stdout: IO[str] | None = None):
        super().__init__(name)
        self._in = stdin or sys.stdin
        self._out = stdout or sys.stdout

    def act(self, view: GameState) -> Reply:
        role = view.viewer or view.roles[0]
        moves = tuple(view.legal_moves() or ())
        attempt = int(view.context.get("attempt", 1))
        if attempt == 1:
            self._board(view, role, moves)
        elif view.message:  # the rules' reason, not the manager's phrasing for models
            self._say(f"✗ Not accepted: {view.context.get('rejected') or view.message}")
        left = view.context.get("attempts_left")
        if left == 1:
            policy = _EXHAUSTED.get(str(view.context.get("on_exhausted")), "your turn ends")
            self._say(f"⚠ Last attempt: if this move is not accepted, {policy}.")
        while True:
            line = self._read(f"{role}> ")
            if line is None:  # Ctrl-D, as in Python's REPL: quit (after asking)
                self._say("")
                self._resign_if_confirmed(role, "ended the input (Ctrl-D)")
                continue
            text = line.strip()
            command, _, arg = text.partition(" ")
            command = command.lower()
            if not text:
                continue
            answer = view.look(text)
            if answer is not None:  # the game's own commands: a map, a help topic
                self._say(answer)
            elif command in ("help", "?", "h"):
                self._say(f"{view.rules_summary}\n\n{HELP}\nMoves in {view.name}: {view.move_syntax}.")
                examples = view.move_examples()
                if examples:
                    self._say("For example, now: " + "; ".join(examples))
            elif command == "moves":
                self._list(view, moves, arg.strip())
            elif command == "board":
                self._board(view, role, moves)
            elif command in ("quit", "resign", "exit"):
                self._resign_if_confirmed(role, "typed quit")
            elif text.isdigit():
                if moves and 1 <= int(text) <= len(moves):
                    return Reply(move=moves[int(text) - 1], raw=text)
                self._say(f"No move number {text}: type `moves` for the numbered list (1-{len(moves)}).")
            else:
                try:
                    return Reply(move=view.parse_move(text), raw=text)
                except MoveParseError as exc:
                    self._say(f"Not a move (this does not count): {exc}")

    def _resign_if_confirmed(self, role: str, how: str) -> None:
        """Ask; ``y`` (or an input that has ended for good) resigns, anything else goes on."""
        answer = self._read("Resign this game? [y/N] ")
        if answer is None or answer.strip().lower() in ("y", "yes"):
            raise Resigned(f"{role} {how}" if answer is not None else f"{role}'s input has ended")
        self._say("Not resigned; your move.")

    # -------------------------------------------------------------------------- screen ---
    def _say(self, text: str) -> None:
        print(visible(text), file=self._out, flush=True)  # names, replies: escapes show, not act

    def _read(self, prompt: str) -> str | None:
        """A line, or None at the end of the input (Ctrl-D)."""
        print(prompt, end="", file=self._out, flush=True)
        return self._in.readline() or None

    def _board(self, view: GameState, role: str, moves: Sequence[Move]) -> None:
        width = _width()
        self._say("─" * width + "\n" + view.render_text(role))
        if moves:
            self._say(summary(view, moves, width))
        self._say("Type a move (or its number), or: help · moves · board · quit")

    def _list(self, view: GameState, moves: Sequence[Move], arg: str) -> None:
        numbered = [(i, view.format_move(m)) for i, m in enumerate(moves, 1)]
        page = int(arg) if arg.isdigit() else 1
        if arg and not arg.isdigit():
            numbered = [(i, t) for i, t in numbered if arg.lower() in t.lower()]
            if not numbered:
                self._say(f"No legal move contains {arg!r}.")
                return
        cells = [f"{i:>3}. {t}{view.move_note(moves[i - 1])}" for i, t in numbered]
        lines = _columns(cells, _width())
        pages = max(1, -(-len(lines) // PAGE_LINES))
        page = min(max(page, 1), pages)
        self._say("\n".join(lines[(page - 1) * PAGE_LINES : page * PAGE_LINES]))
        if pages > 1:
            self._say(
                f"(page {page} of {pages}: `moves {page % pages + 1}` for the next, `moves WORD` to filter)"
            )


def summary(view: GameState, moves: Sequence[Move], width: int = 100) -> str:
    """The legal moves grouped by kind, one short line per kind (``CONQUER: 3 4 7 ... (+12)``)."""
    groups: dict[str, list[str]] = {}
    for move in moves:
        text = view.format_move(move)
        groups.setdefault(move_kind(text), []).append(text)
    lines = [f"Legal moves ({len(moves)}; `moves` numbers them):"]
    if len(groups) > 8:  # no useful kinds (cells of a board): one line of moves
        groups = {"": [view.format_move(m) for m in moves]}
    for kind, texts in groups.items():
        rests = [t[len(kind) :].strip() if t.startswith(kind) else t for t in texts]
        if len(texts) == 1 and not rests[0]:
            lines.append(f"  {kind}")
        elif all(len(r) <= 12 for r in rests):
            lines.append(_fit(f"  {kind}: " if kind else "  ", rests, width))
        else:
            lines.append(f"  {kind}: {len(texts)} ways, e.g. {texts[0]}"[:width])
    return "\n".join(lines)


def _fit(head: str, items: Sequence[str], width: int) -> str:
    """``head`` and as many items as fit in ``width``, then how many more there are."""
    line = head
    for shown, item in enumerate(items):
        more = f" … (+{len(items) - shown})"
        if len(line) + len(item) + 1 + len(more) > width and shown < len(items) - 1:
            return line + more
        line += ("" if line.endswith((": ", "  ")) else " ") + item
    return line


def _columns(cells: Sequence[str], width: int) -> list[str]:
    size = max((len(c) for c in cells), default=0) + 2
    per = max(1, width // size)
    return ["".join(c.ljust(size) for c in cells[i : i + per]).rstrip() for i in range(0, len(cells), per)]


def _width() -> int:
    return max(60, min(120, shutil.get_terminal_size((100, 40)).columns))
