"""The game contract: an immutable :class:`GameState` and the :class:`Outcome` of a game.

Every hexarena game is a subclass of :class:`GameState`. The manager, the players, the records,
the CLI and the RL adapters only ever talk to this interface.

A state has the three members of the contract:

``environment``
    the game proper (board, decks, map), in immutable types;
``roles``
    a non-empty tuple of roles in turn order; ``roles[0]`` is the role to move;
``context``
    a read-only mapping with the required key ``message`` (feedback from the last attempt; None
    when the last move was accepted) and ``history`` (the accepted moves, in order).

A game implements a handful of hooks (:meth:`new`, :meth:`advance`, :meth:`roles_for`,
:meth:`validate_game`, :meth:`get_scores`, :meth:`render_text`, and where it has hidden
information :meth:`redact`); the base class turns them into the contract's methods, keeps the
history, and guarantees that a rejected move leaves environment and roles untouched.
"""

from __future__ import annotations

import dataclasses
import json
import re
from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, ClassVar, Self

from hexarena.core.errors import (
    IllegalMoveError,
    MoveParseError,
    RecordError,
    StaleStateError,
)
from hexarena.core.frozen import FrozenMap, canonical_json, freeze, thaw

#: Version of the ``export()`` format; bumped on any incompatible change.
SCHEMA_VERSION = 1

Move = Any
"""A move: any JSON-safe value (str, int, list or mapping). Stored frozen in the history."""


class OutcomeKind(StrEnum):
    """How a game ended. A terminal *reason* is never mixed with error feedback."""

    WIN = "win"
    DRAW = "draw"
    LOSS = "loss"
    FORFEIT = "forfeit"
    TRUNCATED = "truncated"
    ERROR = "error"
    #: stopped by a signal (Ctrl-C, a kill) before the end; the record can be resumed
    INTERRUPTED = "interrupted"


@dataclass(frozen=True, slots=True)
class Outcome:
    """The end of a game: what kind of end, why, everyone's score and the final ranking.

    ``ranking`` lists groups of roles, best first; roles in one group are tied. ``role`` names the
    role an ending is about where there is one (the forfeiting role, say).
    """

    kind: OutcomeKind
    reason: str
    scores: FrozenMap[str, float] = field(default_factory=FrozenMap)
    ranking: tuple[tuple[str, ...], ...] = ()
    role: str | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "kind", OutcomeKind(self.kind))
        object.__setattr__(self, "scores", FrozenMap({str(k): float(v) for k, v in self.scores.items()}))
        object.__setattr__(self, "ranking", tuple(tuple(g) for g in self.ranking))

    @classmethod
    def from_scores(
        cls,
        kind: OutcomeKind | str,
        reason: str,
        scores: Mapping[str, float],
        *,
        tiebreak: Mapping[str, float] | None = None,
        role: str | None = None,
    ) -> Outcome:
        """Rank roles by score (higher is better), then by ``tiebreak``; equal keys share a place."""
        key = {r: (float(s), float((tiebreak or {}).get(r, 0.0))) for r, s in scores.items()}
        ranking: list[list[str]] = []
        for r in sorted(key, key=lambda x: key[x], reverse=True):
            if ranking and key[ranking[-1][0]] == key[r]:
                ranking[-1].append(r)
            else:
                ranking.append([r])
        return cls(OutcomeKind(kind), reason, FrozenMap(scores), tuple(tuple(g) for g in ranking), role)

    @property
    def winners(self) -> tuple[str, ...]:
        """The roles in first place for a win; nobody for any other kind of end."""
        if self.kind is OutcomeKind.WIN and self.ranking:
            return self.ranking[0]
        return ()

    def rank_of(self, role: str) -> int:
        """1-based place of ``role`` (ties share the better place); 0 if unranked."""
        place = 1
        for group in self.ranking:
            if role in group:
                return place
            place += len(group)
        return 0

    def __str__(self) -> str:
        return f"{self.kind.value}: {self.reason}"

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind.value,
            "reason": self.reason,
            "scores": dict(self.scores),
            "ranking": [list(g) for g in self.ranking],
            "role": self.role,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Outcome:
        try:
            return cls(
                OutcomeKind(data["kind"]),
                str(data["reason"]),
                FrozenMap(data.get("scores", {})),
                tuple(tuple(g) for g in data.get("ranking", ())),
                data.get("role"),
            )
        except (KeyError, ValueError, TypeError) as exc:
            raise RecordError(f"malformed outcome {data!r}: {exc}") from exc


@dataclass(frozen=True, slots=True)
class Setup:
    """What a game was created from: its name, seed and parameters (JSON-safe)."""

    game: str
    seed: int
    params: FrozenMap[str, Any] = field(default_factory=FrozenMap)

    def to_json(self) -> dict[str, Any]:
        return {"game": self.game, "seed": self.seed, "params": thaw(self.params)}


@dataclass(frozen=True, slots=True, kw_only=True)
class GameState(ABC):
    """An immutable game state. Subclass it (as a frozen dataclass or plainly) to add a game.

    Hooks a game must implement: :meth:`new`, :meth:`advance`, :meth:`roles_for`,
    :meth:`validate_game`, :meth:`get_scores`, :meth:`render_text`, :meth:`all_roles`.
    Optional hooks: :meth:`redact` (hidden information), :meth:`legal_moves`,
    :meth:`parse_move`, :meth:`format_move`, :meth:`describe_move`, :meth:`frame`,
    :meth:`rounds_played`.
    """

    environment: Any
    roles: tuple[str, ...]
    context: FrozenMap[str, Any]
    setup: Setup
    #: The role this state was queried for (a redacted view), or None for the full state.
    viewer: str | None = None

    #: Registry name of the game (``hexarena.make(name)``); set by each subclass.
    name: ClassVar[str] = ""
    #: A short rules summary in our own words, shown to LLM players.
    rules_summary: ClassVar[str] = ""
    #: Game-specific bots: player type name -> "module:Class" of a ``Player`` subclass.
    bots: ClassVar[Mapping[str, str]] = FrozenMap()
    #: Small, quick parameters for demos and generic contract tests.
    demo_params: ClassVar[Mapping[str, Any]] = FrozenMap()
    #: How a move is written, with examples: quoted whenever a reply cannot be read.
    move_syntax: ClassVar[str] = "a move as JSON"

    def __post_init__(self) -> None:
        if not self.roles:
            raise ValueError("roles must be a non-empty sequence")
        object.__setattr__(self, "roles", tuple(self.roles))
        ctx = self.context if isinstance(self.context, FrozenMap) else freeze(dict(self.context))
        if "message" not in ctx:
            raise ValueError("context needs the key 'message'")
        object.__setattr__(self, "context", ctx)

    # ------------------------------------------------------------------ hooks for games ---
    @classmethod
    @abstractmethod
    def new(cls, seed: int = 0, **params: Any) -> Self:
        """The initial state of a game (use :meth:`start` to build it)."""

    @abstractmethod
    def advance(self, move: Move) -> Any:
        """The environment after ``move``; raise :class:`IllegalMoveError` (with a reason) if the
        rules forbid it. Must not change ``self``."""

    @abstractmethod
    def roles_for(self, environment: Any) -> tuple[str, ...]:
        """The roles in turn order for an environment (current role first)."""

    @abstractmethod
    def validate_game(self) -> Outcome | None:
        """None while the game goes on; the :class:`Outcome` once it has ended."""

    @abstractmethod
    def get_scores(self) -> dict[str, float]:
        """Each role's current score (valid at any time, not only at the end)."""

    @abstractmethod
    def render_text(self, role: str | None = None) -> str:
        """The state as text for a person or an LLM, showing only what ``role`` may see."""

    @abstractmethod
    def all_roles(self) -> tuple[str, ...]:
        """Every role this game defines, in seating order (what players are assigned to)."""

    def redact(self, role: str) -> Any:
        """The environment as ``role`` may see it (default: everything is public)."""
        return self.environment

    def legal_moves(self) -> tuple[Move, ...] | None:
        """Every legal move of the role to move, or None where the move space is open."""
        return None

    def format_move(self, move: Move) -> str:
        """A move as the text a player would type (and :meth:`parse_move` reads back)."""
        if isinstance(move, str):
            return move
        return json.dumps(thaw(move), sort_keys=True, separators=(", ", ": "))

    def describe_move(self, move: Move) -> str:
        """What the other roles learn of ``move``, the move that led to this state, as one line.

        The manager shows these lines to players as what happened since their last turn. The
        default is the move's text; a game overrides it to tell more (what a conquest took) or
        less (a move with hidden parts).
        """
        return self.format_move(move)

    def parse_move(self, text: str) -> Move:
        """Read a move from a player's text; raise :class:`MoveParseError` if it is not one.

        The default matches the formatted legal moves (case and spacing ignored), then JSON.
        """
        if not isinstance(text, str):
            raise self.unreadable(text)
        wanted = " ".join(text.strip().strip("`").split()).lower()
        moves = self.legal_moves()
        if moves is not None:
            for move in moves:
                if " ".join(self.format_move(move).split()).lower() == wanted:
                    return move
        try:
            move = loads_move(text)
        except MoveParseError as exc:
            raise self.unreadable(text, str(exc)) from None
        except ValueError:
            move = None
        if move is not None:
            return freeze(move)
        raise self.unreadable(text, "neither a legal move's text nor JSON")

    def unreadable(self, text: Any, why: str = "") -> MoveParseError:
        """The error for a reply that is no move at all.

        It quotes the reply (shortened), says why, and names the accepted syntax with examples
        (one per kind of legal move now), so a person or a model can correct itself.
        """
        head = f"could not read a move from {quote_reply(text)}" + (f" ({why})" if why else "")
        text = f"{head}. Write {self.move_syntax}."
        examples = self.move_examples()
        if examples:
            text += " Legal now, for example: " + "; ".join(examples) + "."
        return MoveParseError(text)

    def leave_move(self) -> Move | None:
        """The move the role to move plays after its player has left the game, or None.

        A player that forfeits a game of three or more seats leaves it (see
        :mod:`hexarena.core.manager`): from then on its seat plays this move every turn, as a
        seat in civil disorder, and the others play on. The default, None, means the rules give
        a seat no way to stay without its player, so a forfeit ends the game for everyone.
        """
        return None

    def look(self, text: str) -> str | None:
        """The answer to one of the game's own read-only commands (a local map, a help topic), or
        None when ``text`` is no such command; looking never spends the turn (a person's
        terminal tries it before reading a move)."""
        return None

    def move_note(self, move: Move) -> str:
        """A short note on what a legal move would do (where it leads), shown after it in lists."""
        return ""

    def move_examples(self, limit: int = 4) -> list[str]:
        """Up to ``limit`` legal moves as text, one per kind (the first word of the move)."""
        if self.validate_game() is not None:
            return []
        examples: dict[str, str] = {}
        for move in self.legal_moves() or ():
            text = self.format_move(move)
            examples.setdefault(move_kind(text), text)
            if len(examples) == limit:
                break
        return list(examples.values())

    def frame(self) -> dict[str, Any] | None:
        """A renderable snapshot for the replay viewer (see :mod:`hexarena.core.frames`)."""
        return None

    # -- optional hooks for reinforcement learning (see hexarena.rl) --------------------------
    def action_count(self) -> int | None:
        """Size of a fixed discrete action space, or None where the game has none."""
        return None

    def action_to_move(self, action: int) -> Move:
        """The move of a discrete action index (games with :meth:`action_count`)."""
        raise NotImplementedError(f"{self.name} has no discrete action space")

    def move_to_action(self, move: Move) -> int:
        """The discrete action index of a move (inverse of :meth:`action_to_move`)."""
        raise NotImplementedError(f"{self.name} has no discrete action space")

    def observation_array(self, role: str) -> Any:
        """A numeric observation (a NumPy array) of what ``role`` may see, for RL policies."""
        raise NotImplementedError(f"{self.name} has no array observation")

    def rounds_played(self) -> int:
        """Completed rounds (default: accepted moves divided by the number of seats)."""
        return len(self.history) // max(1, len(self.all_roles()))

    def environment_to_json(self) -> Any:
        """The environment in JSON-safe form (used by :meth:`export`)."""
        return thaw(self.environment)

    # ------------------------------------------------------------- the contract proper ---
    @property
    def message(self) -> str | None:
        return self.context["message"]

    @property
    def history(self) -> tuple[Move, ...]:
        return self.context.get("history", ())

    @property
    def seed(self) -> int:
        return self.setup.seed

    @classmethod
    def start(cls, environment: Any, setup: Setup, **context: Any) -> Self:
        """Build the first state of a game from its initial environment."""
        probe = cls(
            environment=environment,
            roles=("?",),
            context=FrozenMap(message=None, history=()),
            setup=setup,
        )
        ctx = FrozenMap(message=None, history=(), **freeze(context))
        return dataclasses.replace(probe, roles=probe.roles_for(environment), context=ctx)

    def replace(self, **changes: Any) -> Self:
        """A new state with some members changed (this one is never touched)."""
        if "context" in changes and not isinstance(changes["context"], FrozenMap):
            changes["context"] = freeze(dict(changes["context"]))
        return dataclasses.replace(self, **changes)

    def update_game(self, environment: Any, move: Move) -> Self:
        """Advance the game by one move.

        Returns a new state. ``context["message"]`` is None when the move was accepted and the
        turn is done; otherwise it says why the move was rejected, and environment and roles are
        those of this state. ``environment`` must be this state's own (a stale or foreign one
        raises :class:`StaleStateError` rather than silently forking the game).
        """
        if environment is not self.environment:
            raise StaleStateError("update_game was given an environment that is not this state's own")
        if self.viewer is not None:
            raise StaleStateError(f"this is {self.viewer!r}'s redacted view; update the full state")
        if self.validate_game() is not None:
            return self._reject("the game is over; no more moves are accepted")
        try:
            move = freeze(move)
            new_env = self.advance(move)
        except (IllegalMoveError, MoveParseError) as exc:
            return self._reject(str(exc))
        ctx = self.context.update(message=None, history=(*self.history, move))
        return dataclasses.replace(self, environment=new_env, roles=self.roles_for(new_env), context=ctx)

    def apply(self, move: Move) -> Self:
        """Shorthand for ``update_game(self.environment, move)``."""
        return self.update_game(self.environment, move)

    def _reject(self, message: str) -> Self:
        return dataclasses.replace(self, context=self.context.set("message", message))

    def query_game(self, role: str | None = None) -> Self:
        """The information set of ``role`` (default: the role to move) as a state of its own.

        Hidden parts of the environment are removed by :meth:`redact`; a pending message is
        kept, otherwise the message tells the role who it plays.
        """
        role = self.roles[0] if role is None else role
        if role not in self.all_roles():
            raise ValueError(f"unknown role {role!r}; this game has {list(self.all_roles())}")
        message = self.message if self.message is not None else f"You play as {role}."
        return dataclasses.replace(
            self,
            environment=self.redact(role),
            context=self.context.set("message", message),
            viewer=role,
        )

    def get_next_roles(self) -> tuple[str, ...]:
        """The roles in turn order for the current environment."""
        return self.roles_for(self.environment)

    def is_over(self) -> bool:
        return self.validate_game() is not None

    # ------------------------------------------------------------------- serialisation ---
    def export(self) -> dict[str, Any]:
        """A complete JSON-safe description: setup, full move history, and the current state.

        ``from_export`` rebuilds the state by replaying the history from the setup, then checks
        the result against the stored environment, so a corrupt export is detected.
        """
        if self.viewer is not None:
            raise StaleStateError("a redacted view cannot be exported; export the full state")
        return {
            "schema_version": SCHEMA_VERSION,
            **self.setup.to_json(),
            "roles": list(self.roles),
            "moves": [thaw(m) for m in self.history],
            "message": self.message,
            "environment": self.environment_to_json(),
        }

    @classmethod
    def from_export(cls, data: Mapping[str, Any]) -> Self:
        """Rebuild a state from :meth:`export` output (raises :class:`RecordError` if corrupt)."""
        if not isinstance(data, Mapping):
            raise RecordError(f"an export must be a JSON object, got {type(data).__name__}")
        version = data.get("schema_version")
        if version != SCHEMA_VERSION:
            raise RecordError(f"unsupported schema_version {version!r} (expected {SCHEMA_VERSION})")
        missing = [k for k in ("game", "seed", "params", "moves", "environment") if k not in data]
        if missing:
            raise RecordError(f"export is missing {', '.join(missing)}")
        if cls.name and data["game"] != cls.name:
            raise RecordError(f"export is of game {data['game']!r}, not {cls.name!r}")
        try:
            state = cls.new(seed=int(data["seed"]), **dict(data["params"]))
        except (TypeError, ValueError) as exc:
            raise RecordError(f"export has bad seed or params: {exc}") from exc
        state = state.replay(data["moves"])
        if canonical_json(state.environment_to_json()) != canonical_json(data["environment"]):
            raise RecordError("export is inconsistent: replaying its moves gives another environment")
        if data.get("message") is not None:
            state = state._reject(str(data["message"]))
        return state

    def replay(self, moves: Iterable[Move]) -> Self:
        """Apply moves in order; raise :class:`RecordError` naming the first one rejected."""
        state = self
        for i, move in enumerate(moves):
            nxt = state.apply(move)
            if nxt.message is not None:
                raise RecordError(f"move {i} ({move!r}) was rejected on replay: {nxt.message}")
            state = nxt
        return state


#: How deep a move's JSON may nest. Moves nest a few levels; a deeper reply (hostile, or a model
#: gone astray) would exhaust Python's recursion when it is read, frozen or recorded.
MAX_MOVE_DEPTH = 32


def loads_move(text: str) -> Any:
    """``json.loads`` of a reply (ValueError where it is no JSON); nesting deeper than
    :data:`MAX_MOVE_DEPTH` raises :class:`MoveParseError` saying so."""
    too_deep = MoveParseError(f"its JSON nests deeper than {MAX_MOVE_DEPTH} levels")
    try:
        value = json.loads(text)
    except RecursionError:
        raise too_deep from None
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if depth > MAX_MOVE_DEPTH:
            raise too_deep
        if isinstance(item, dict | list):
            stack.extend((v, depth + 1) for v in (item.values() if isinstance(item, dict) else item))
    return value


def quote_reply(text: Any, limit: int = 60) -> str:
    """A player's reply quoted for an error message: shortened, whitespace collapsed."""
    if not isinstance(text, str):
        return f"a {type(text).__name__}"
    flat = " ".join(text.split())
    if not flat:
        return "an empty reply"
    if len(flat) <= limit:
        return repr(flat)
    return f"{flat[:limit]!r}... ({len(text):,} characters)"


def move_kind(text: str) -> str:
    """The kind of a move written as text: its first word (``CONQUER 14`` -> ``CONQUER``,
    ``{"tech": [...]}`` -> ``tech``), or "" where it has none (a cell such as ``c5``)."""
    first = text.split(maxsplit=1)[0].strip("{[\"':,") if text.strip() else ""
    return first if re.fullmatch(r"[^\W\d]+", first) else ""


def new_setup(game: str, seed: int, params: Mapping[str, Any] | None = None) -> Setup:
    """A :class:`Setup` with JSON-checked params (rejects values that cannot be recorded)."""
    params = dict(params or {})
    try:
        json.dumps(params)
    except TypeError as exc:
        raise ValueError(f"game params must be JSON-safe: {exc}") from exc
    if not isinstance(seed, int) or isinstance(seed, bool):
        raise ValueError(f"seed must be an int, got {seed!r}")
    return Setup(game, seed, freeze(params))
