"""Players: anything that, shown a game state, replies with a move.

The manager gives a player the *view* of its role (``state.query_game(role)``): hidden parts
are already removed, and ``view.message`` carries the feedback of a rejected attempt. A player
returns a :class:`Reply`: bots fill ``move`` directly; text players (LLMs, people) fill ``raw``
and the manager parses it with the game's ``parse_move`` (so parse errors and illegal moves are
told apart).

Game-specific bots (heuristics) are :class:`Player` subclasses listed in the game's
``GameState.bots`` mapping and built by :func:`hexarena.core.player_factory.build_player`.
"""

from __future__ import annotations

import threading
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Mapping
from contextlib import suppress
from dataclasses import dataclass, field
from typing import Any

from hexarena.core.contract import GameState, Move
from hexarena.core.errors import MoveTimeoutError, PlayerError
from hexarena.core.rng import Rng, derive_seed


@dataclass(frozen=True, slots=True)
class Reply:
    """A player's answer: a parsed ``move``, or ``raw`` text for the game to parse, or both.

    ``meta`` carries anything worth recording (token counts, the prompt's size, reasoning).
    ``unreadable`` says why ``raw`` holds no move where the player itself can tell (an LLM's
    reply without the move field its reply mode requires): the manager records a parse error.
    """

    move: Move | None = None
    raw: str | None = None
    meta: Mapping[str, Any] = field(default_factory=dict)
    unreadable: str | None = None

    def __post_init__(self) -> None:
        if self.move is None and self.raw is None:
            raise ValueError("a Reply needs a move or raw text")


class Player(ABC):
    """Base class of all players. ``name`` identifies the player in records and summaries."""

    #: Short type name used in configs and on the command line (``random``, ``llm``, ...).
    kind: str = "player"

    def __init__(self, name: str | None = None, seed: int = 0) -> None:
        self.name = name or self.kind
        self.seed = seed

    def reset(self, roles: tuple[str, ...], seed: int) -> None:
        """Called once before a game with the roles this player holds and the game's seed."""

    @abstractmethod
    def act(self, view: GameState) -> Reply:
        """Choose a move for ``view.roles[0]`` from that role's view of the game."""

    def catch_up(self, view: GameState) -> None:
        """Called, when a match resumes, once per recorded attempt of this player (in order,
        with the view it was made from), so a player with internal state can get back to where
        it was. Stateless players (people, LLMs) need nothing."""

    def act_within(self, view: GameState, timeout_s: float) -> Reply:
        """:meth:`act` with a time limit; raises :class:`MoveTimeoutError` when it runs out.

        Python cannot stop a thread, so this default runs :meth:`act` in a daemon thread that is
        left to finish on its own after a timeout (it never keeps the process alive). Players
        whose work can be cancelled (network requests) override this and cancel it.
        """
        box: dict[str, Any] = {}

        def target() -> None:
            try:
                box["reply"] = self.act(view)
            except BaseException as exc:  # re-raised in the manager's thread
                box["error"] = exc

        thread = threading.Thread(target=target, name=f"hexarena-{self.name}", daemon=True)
        thread.start()
        thread.join(timeout_s)
        if thread.is_alive():
            raise MoveTimeoutError(f"no move within the per-move timeout of {timeout_s:g}s")
        if "error" in box:
            raise box["error"]
        return box["reply"]

    def close(self) -> None:
        """Release resources (connections, processes) after the game."""

    def describe(self) -> dict[str, Any]:
        """What records store about this player (never secrets)."""
        return {"name": self.name, "type": self.kind}


def legal_or_fail(view: GameState) -> tuple[Move, ...]:
    moves = view.legal_moves()
    if moves is None:
        raise PlayerError(f"{view.name} has an open move space; this player needs legal_moves()")
    if not moves:
        raise PlayerError("no legal moves in this position")
    return moves


class SeededPlayer(Player):
    """A player with its own random stream, derived anew for each game from the game's seed.

    Same game seed, same player seed and same roles give the same choices: matches replay.
    """

    def __init__(self, name: str | None = None, seed: int = 0) -> None:
        super().__init__(name, seed)
        self.rng = Rng(seed)

    def reset(self, roles: tuple[str, ...], seed: int) -> None:
        self.rng = Rng(derive_seed(seed, self.seed, self.kind, *roles))

    def catch_up(self, view: GameState) -> None:
        """Choose again (the same choice as then), so the random stream is where it was."""
        with suppress(PlayerError):
            self.act(view)


class RandomPlayer(SeededPlayer):
    """Uniform over the legal moves."""

    kind = "random"

    def act(self, view: GameState) -> Reply:
        return Reply(move=self.rng.choice(legal_or_fail(view)))


class ScriptedPlayer(Player):
    """Plays a fixed list of moves (raw text or moves), in order; fails when it runs out."""

    kind = "scripted"

    def __init__(self, moves: Iterable[Any], name: str | None = None, as_text: bool = False) -> None:
        super().__init__(name)
        self._moves = list(moves)
        self._as_text = as_text
        self._next = 0

    def reset(self, roles: tuple[str, ...], seed: int) -> None:
        self._next = 0

    def catch_up(self, view: GameState) -> None:
        self._next += 1

    def act(self, view: GameState) -> Reply:
        if self._next >= len(self._moves):
            raise PlayerError(f"scripted player {self.name!r} ran out of moves after {self._next}")
        move = self._moves[self._next]
        self._next += 1
        if move is None:
            raise PlayerError(f"scripted player {self.name!r}: move {self._next} is null, not a move")
        return Reply(raw=move) if self._as_text else Reply(move=move)


class ReplayPlayer(ScriptedPlayer):
    """Replays the accepted moves of one role from a match record."""

    kind = "replay"


class CallablePlayer(Player):
    """Wraps any function ``view -> move`` (or ``view -> Reply``)."""

    kind = "callable"

    def __init__(self, fn: Callable[[GameState], Any], name: str | None = None) -> None:
        super().__init__(name or getattr(fn, "__name__", "callable"))
        self._fn = fn

    def act(self, view: GameState) -> Reply:
        out = self._fn(view)
        return out if isinstance(out, Reply) else Reply(move=out)
