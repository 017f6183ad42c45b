"""The GameManager: runs one match from a config, with retries, budgets and a record.

Three kinds of failure are kept apart in :meth:`GameManager.process_turn`:

* **transport** errors (connection refused, DNS, TLS, timeouts, HTTP 408/429/5xx, unreadable
  answers) are retried with exponential backoff and jitter (a server's ``Retry-After`` is
  honoured) and never count against the player. A request that keeps failing
  (``transport_retries``), failed tries and waits past the match's ``transport_budget_s``, or an
  API that refuses the request itself (HTTP 400/401/403/404: :class:`ApiRequestError`) end the
  match at once with ``Outcome.kind == "error"`` naming the cause: never a loss or a forfeit;
* **parse** errors (a reply that is no move at all) and **illegal** moves (a move the rules
  reject) count as attempts; the rejection message goes back to the player on the retry;
* **timeouts** and other player failures count as attempts too. A per-move timeout cancels an
  LLM's request (it is then a transport failure); other players run in a daemon thread that is
  abandoned on timeout (see :meth:`Player.act_within`), so nothing keeps the process alive.
  A player whose own code raises (anything but an :class:`InfrastructureError`) and a move the
  game raises on while applying it are failed attempts as well: never a crash of the match.

When a player runs out of attempts for a turn, or of invalid moves for the game, the configured
policy applies: leave (the default), forfeit, a random legal move, or abort. A player that
resigns (a person typing ``quit``) forfeits at once, leaving the game under ``leave``.

Leaving: a player that forfeits while two seats or more would still play on, in a game whose
rules let a seat stay without its player (:meth:`GameState.leave_move`), leaves the game: a
``left`` event is recorded, its seat plays the leave move from then on (``move`` events marked
``left: true``), and the others play to the natural end. The forfeiters are ranked last, the
first to leave lowest, and listed in the result's ``left``. Otherwise a forfeit ends the match.

A stop signal (Ctrl-C, SIGTERM, SIGHUP) ends the match as ``interrupted`` with every accepted move
in the record; :meth:`GameManager.resume` continues it from there.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from hexarena.core.config import (
    REDACTED,
    Feedback,
    MatchConfig,
    OnExhausted,
    as_written,
    parse_config,
    redact_secrets,
)
from hexarena.core.contract import GameState, Outcome, OutcomeKind
from hexarena.core.errors import (
    ApiRequestError,
    ConfigError,
    InfrastructureError,
    MoveParseError,
    MoveTimeoutError,
    PlayerError,
    RecordError,
    Resigned,
    TransportError,
)
from hexarena.core.frozen import FrozenMap
from hexarena.core.interrupt import InterruptGuard, MatchInterrupted
from hexarena.core.players import Player, Reply
from hexarena.core.records import CONFIG, Record, RecordWriter, read_json
from hexarena.core.registry import create_game, game_class
from hexarena.core.rng import Rng, derive_seed
from hexarena.core.untrusted import MASK

#: Called after every accepted move with (state, role, move text); the CLI draws progress with it.
MoveHook = Callable[[GameState, str, str], None]
#: The most "since your last turn" events a view carries (older ones are counted, not listed).
MAX_RECENT_EVENTS = 100
#: What a record says of a player (``Player.describe`` with the config's ``${VAR}`` as written).
Describe = Callable[[Player], dict[str, Any]]


@dataclass
class Attempt:
    """One try of one player at one turn, as recorded in ``turns.jsonl``."""

    turn: int
    role: str
    player: str
    attempt: int
    raw: str | None = None
    move: Any = None
    error: str | None = None  # None, "transport", "api", "parse", "illegal", "timeout", "player"
    message: str | None = None
    latency_ms: float = 0.0
    meta: Mapping[str, Any] = field(default_factory=dict)


@dataclass
class MatchResult:
    """What a finished match produced (also written to ``result.json``)."""

    outcome: Outcome
    final_state: GameState
    moves: int
    invalid: dict[str, int]
    time_s: float
    record_dir: Path | None
    #: role -> name of the player that held it
    players: dict[str, str] = field(default_factory=dict)
    #: role -> requests, latency_s, and for LLMs prompt/completion tokens and cost_usd
    usage: dict[str, dict[str, float]] = field(default_factory=dict)
    #: the infrastructure failure that ended the match ({role, player, cause}), if one did
    error: dict[str, str] | None = None
    #: the signal that interrupted the match (SIGINT, SIGTERM, ...), if one did
    interrupted_by: str | None = None
    #: the players that forfeited and left while the others played on ({role, player, turn, reason})
    left: list[dict[str, Any]] = field(default_factory=list)

    def to_json(
        self, config: MatchConfig, players: Mapping[str, Player], describe: Describe
    ) -> dict[str, Any]:
        state = self.final_state
        return {
            "game": state.name,
            "seed": state.seed,
            "params": dict(config.game.params),
            "players": [self._player_json(p, players, describe) for p in _unique(players.values())],
            "roles": list(state.all_roles()),
            "outcome": self.outcome.to_json(),
            "scores": dict(self.outcome.scores),
            "invalid": self.invalid,
            "moves": self.moves,
            "rounds": state.rounds_played(),
            "time_s": round(self.time_s, 4),
            "error": self.error,
            "left": self.left,
            "finished_at": datetime.now(UTC).isoformat(timespec="milliseconds"),
        }

    def _player_json(
        self, player: Player, players: Mapping[str, Player], describe: Describe
    ) -> dict[str, Any]:
        """What the record says of one player: its description, roles and usage (summed over
        its roles; latency rounded to the millisecond)."""
        roles = [r for r, q in players.items() if q is player]
        usage: dict[str, float] = {}
        for role in roles:
            for key, value in self.usage.get(role, {}).items():
                usage[key] = usage.get(key, 0) + value
        if "latency_s" in usage:
            usage["latency_s"] = round(usage["latency_s"], 3)
        return {**describe(player), "roles": roles, "usage": usage}


def players_json(players: Mapping[str, Player], describe: Describe) -> list[dict[str, Any]]:
    """Each distinct player's description with the roles it holds (for records)."""
    return [
        {**describe(p), "roles": [r for r, q in players.items() if q is p]} for p in _unique(players.values())
    ]


def _unique(players: Any) -> list[Player]:
    seen: list[Player] = []
    for p in players:
        if all(p is not q for q in seen):
            seen.append(p)
    return seen


class _Exhausted(Exception):
    """A player ran out of attempts (or time); carries the reason."""


class _InfrastructureFailure(Exception):
    """A remote player's API failed for good: the match ends as an error (not the player's fault)."""

    def __init__(self, cause: str, role: str, player: str) -> None:
        super().__init__(cause)
        self.cause, self.role, self.player = cause, role, player


class GameManager:
    """Runs a match: ``GameManager(config).start()`` returns a :class:`MatchResult`.

    ``config`` is a :class:`MatchConfig` or a raw mapping; ``players`` may pre-build some players,
    keyed by the config entry's ``name`` or by role (for callables and tests); the rest are built
    from the config.
    """

    def __init__(
        self,
        config: MatchConfig | Mapping[str, Any],
        *,
        players: Mapping[str, Player] | None = None,
        raw_config: Mapping[str, Any] | None = None,
        on_move: MoveHook | None = None,
        force: bool = False,
    ) -> None:
        if isinstance(config, MatchConfig):
            self.config = config
            self.raw_config = dict(raw_config) if raw_config is not None else config.model_dump(mode="json")
        else:
            self.config = parse_config(config)
            self.raw_config = dict(raw_config if raw_config is not None else config)
        self._prebuilt = dict(players or {})
        self.on_move = on_move
        self.games: list[GameState] = []
        self.players: dict[str, Player] = {}
        self._written: dict[str, Any] = {}  # role -> its player's entry in the raw config
        self._force = force  # replace an existing record in output.dir
        self._resume: Record | None = None
        self._guard = InterruptGuard()
        self._invalid: dict[str, int] = {}
        self._init_game()
        self._init_players()
        self._state = self.games[-1]  # the last accepted position (what an interruption keeps)

    @classmethod
    def resume(
        cls,
        directory: str | Path,
        *,
        players: Mapping[str, Player] | None = None,
        on_move: MoveHook | None = None,
    ) -> GameManager:
        """A manager that continues the interrupted match recorded in ``directory`` from its last
        accepted move, with the recorded config (so the same players and seeds), appending to
        that record. Seeded players are brought to where they were by replaying their attempts."""
        record = Record.load(directory)
        if record.outcome.kind not in (OutcomeKind.INTERRUPTED, OutcomeKind.ERROR):
            raise RecordError(f"{directory}: this match already ended ({record.outcome}); nothing to resume")
        raw = read_json(Path(directory) / CONFIG)
        if not isinstance(raw, dict):
            raise RecordError(f"{Path(directory) / CONFIG}: expected a JSON object, got {type(raw).__name__}")
        entries = raw.get("players")
        for i, pcfg in enumerate(entries if isinstance(entries, list) else []):  # the rest: parse_config
            if not isinstance(pcfg, dict):
                continue
            hidden = [
                k
                for k, v in pcfg.items()
                if v == REDACTED or (isinstance(v, str) and "://" in v and MASK in v)
            ]
            if hidden:
                raise ConfigError(
                    f"players[{i}].{hidden[0]} was written literally in the config, so the record does not "
                    "keep it; write it as ${ENV_VAR} to make matches resumable"
                )
        run = {**raw, "output": {**raw.get("output", {}), "dir": str(directory)}}
        manager = cls(run, players=players, raw_config=raw, on_move=on_move)
        manager._resume = record
        return manager

    # -------------------------------------------------------------------------- set-up ---
    def _init_game(self) -> None:
        cfg = self.config.game
        try:
            state = create_game(game_class(cfg.name), cfg.seed, cfg.params)
        except ConfigError as exc:
            raise ConfigError(f"game.params: {exc}") from None
        self.games.append(state)

    def _init_players(self) -> None:
        from hexarena.core.player_factory import build_player

        state = self.games[-1]
        defined = state.all_roles()
        for i, pcfg in enumerate(self.config.players):
            for role in pcfg.roles:
                if role not in defined:
                    raise ConfigError(
                        f"players[{i}].roles: {role!r} is not a role of {state.name} (roles: {list(defined)})"
                    )
        # Players without explicit roles take the remaining seats in order.
        explicit = {r for p in self.config.players for r in p.roles}
        free = [r for r in defined if r not in explicit]
        written = self.raw_config.get("players") or []
        for i, pcfg in enumerate(self.config.players):
            roles = list(pcfg.roles)
            if not roles:
                if not free:
                    raise ConfigError(f"players[{i}]: no role left for this player (roles: {list(defined)})")
                roles = [free.pop(0)]
            player = self._prebuilt.get(pcfg.name) if pcfg.name else None
            player = player or next((self._prebuilt[r] for r in roles if r in self._prebuilt), None)
            if player is None:
                player = build_player(pcfg, type(state), index=i)
            for role in roles:
                if role in self.players:
                    raise ConfigError(f"players[{i}].roles: role {role!r} is assigned twice")
                self.players[role] = player
                self._written[role] = written[i] if i < len(written) else {}
        missing = [r for r in defined if r not in self.players]
        if missing:
            raise ConfigError(f"players: no player for role(s) {', '.join(missing)} of {state.name}")

    def describe(self, player: Player) -> dict[str, Any]:
        """What the record says of ``player``: its description with each ``${VAR}`` of its config
        entry as written and the credentials of any URL masked (never an expanded secret)."""
        role = next(r for r, p in self.players.items() if p is player)
        return redact_secrets(as_written(player.describe(), self._written.get(role)))

    # ------------------------------------------------------------------------- running ---
    def start(self) -> MatchResult:
        """Run the match to its end and return the result (the record is written as it goes).

        A stop signal ends it early with outcome ``interrupted``: the record stays valid and can
        be resumed (:meth:`resume`).
        """
        state = self.games[-1]
        self._invalid = {r: 0 for r in state.all_roles()}
        self._time_used = {r: 0.0 for r in state.all_roles()}
        self._fallback_rng = Rng(derive_seed(state.seed, "manager-fallback"))
        for player in _unique(self.players.values()):
            player.reset(tuple(r for r, p in self.players.items() if p is player), state.seed)
        self._init_transport(state)
        started = time.perf_counter()
        signame, outcome = None, None
        with self._guard:
            try:
                with self._guard.critical():
                    self.record = self._open_record(state)
                    if self._resume is not None:
                        self._state = self._catch_up(state, self._resume)
                final, outcome = self.run_game_loop(self._state)
            except KeyboardInterrupt as exc:
                signame = exc.signame if isinstance(exc, MatchInterrupted) else "SIGINT"
            finally:
                with self._guard.critical(deliver=False):  # a second Ctrl-C cannot cut the cleanup
                    for player in _unique(self.players.values()):
                        player.close()
            with self._guard.critical(deliver=False):
                if outcome is None:
                    final = self._state
                    reason = f"interrupted by {signame} after {len(final.history)} moves"
                    outcome = Outcome(OutcomeKind.INTERRUPTED, reason, final.get_scores())
                return self._finish(final, outcome, time.perf_counter() - started, signame)

    def _finish(self, final: GameState, outcome: Outcome, time_s: float, signame: str | None) -> MatchResult:
        out_dir = self.config.output.dir
        result = MatchResult(
            outcome,
            final,
            len(final.history),
            dict(self._invalid),
            time_s,
            Path(out_dir) if out_dir else None,
            {role: p.name for role, p in self.players.items()},
            {role: dict(u) for role, u in self._usage.items()},
            self._error,
            signame,
            list(self._left.values()),
        )
        if self.record:
            self.record.event("end", outcome=outcome.to_json())
            self.record.finish(result.to_json(self.config, self.players, self.describe), final)
        return result

    def _open_record(self, state: GameState) -> RecordWriter | None:
        out = self.config.output
        if not out.dir:
            return None
        resume = self._resume is not None
        record = RecordWriter(out.dir, frames=out.frames, force=self._force, resume=resume)
        if resume:
            record.event("resume", moves=len(self._resume.moves()))
        else:
            record.write_config(redact_secrets(self.raw_config))
            record.event("start", **state.setup.to_json(), players=players_json(self.players, self.describe))
        record.frame(state)
        return record

    def _catch_up(self, state: GameState, record: Record) -> GameState:
        """Replay a record's events: moves rebuild the position (and the frames), attempts restore
        the invalid counts and time used and move each player along its own random stream."""
        for n, event in enumerate(record.turns(), 1):
            kind, role = event.get("event"), event.get("role")
            error = event.get("error")
            if kind == "attempt" and role in self.players and error not in ("transport", "api"):
                latency_ms = event.get("latency_ms") or 0
                if not isinstance(latency_ms, int | float) or not isinstance(event.get("meta") or {}, dict):
                    where = record.dir / "turns.jsonl"
                    raise RecordError(f"{where}: event {n}, an attempt, has a damaged latency_ms or meta")
                self._invalid[role] += error is not None
                self._time_used[role] += latency_ms / 1000
                if error in (None, "parse", "illegal"):  # the player answered
                    self._count_usage(role, latency_ms, event.get("meta") or {})
                self.players[role].catch_up(state.query_game(role))
            elif kind == "left" and role in self.players:
                self._left[role] = {k: event.get(k) for k in ("role", "player", "turn", "reason")}
            elif kind == "exhausted" and event.get("policy") == OnExhausted.RANDOM_LEGAL.value:
                moves = state.legal_moves()
                if moves:
                    self._fallback_rng.choice(moves)
            elif kind == "move":
                nxt = state.apply(event["move"])
                if nxt.message is not None:
                    raise RecordError(
                        f"{record.dir}: recorded move {event['move']!r} is rejected: {nxt.message}"
                    )
                state = nxt
                self._note_move(state, role, event["move"])
                if self.record:
                    self.record.frame(state, role, event.get("text"))
        return state

    def run_game_loop(self, game_state: GameState) -> tuple[GameState, Outcome]:
        """Turns until the game ends, a player is exhausted, or ``max_rounds`` is reached."""
        state = game_state
        max_rounds = self.config.manager.max_rounds
        while True:
            outcome = state.validate_game()
            if outcome is not None:
                return state, self._departed_last(outcome)
            if state.rounds_played() >= max_rounds:
                return state, self._departed_last(
                    Outcome.from_scores(
                        OutcomeKind.TRUNCATED, f"round limit of {max_rounds} reached", state.get_scores()
                    )
                )
            role = state.roles[0]
            try:
                if role in self._left:
                    played = self._play_left(state, role)
                    if isinstance(played, Outcome):
                        return state, played
                    state = played
                else:
                    state = self.process_turn(state, self.players[role])
            except Resigned as exc:
                if self.record:
                    self.record.event("resigned", role=role, reason=str(exc))
                leave = self.config.manager.on_exhausted is OnExhausted.LEAVE
                left = self._leave(state, role, f"{role} resigned") if leave else None
                if left is None:
                    return state, self._forfeit(state, role, f"{role} resigned")
                if isinstance(left, Outcome):
                    return state, left
                state = left
            except _InfrastructureFailure as exc:
                return state, self._infrastructure_outcome(state, exc)
            except _Exhausted as exc:
                fallback = self._on_exhausted(state, role, str(exc))
                if isinstance(fallback, Outcome):
                    return state, fallback
                state = fallback

    def process_turn(self, game_state: GameState, player: Player) -> GameState:
        """One turn of ``game_state.roles[0]``: ask, parse, update; retry with feedback.

        Returns the state after the accepted move; raises ``_Exhausted`` when attempts run out.
        """
        cfg = self.config.manager
        role = game_state.roles[0]
        turn = len(game_state.history)
        state = game_state
        for attempt_no in range(1, cfg.max_attempts_per_turn + 1):
            attempt = self._attempt(state, player, role, turn, attempt_no)
            if attempt.error is None:
                accepted = self._apply(state, attempt.move)
                if accepted.message is None:
                    self._log_attempt(attempt)
                    self._accept(accepted, role, player, attempt.move, turn)
                    return accepted
                attempt.error, attempt.message = "illegal", accepted.message
            self._log_attempt(attempt)
            if attempt.error != "transport":  # the player is not to blame for a dead network
                self._invalid[role] += 1
            state = state.replace(context=state.context.set("message", attempt.message))
            if self._invalid[role] > cfg.max_invalid_per_game:
                raise _Exhausted(f"{role} exceeded {cfg.max_invalid_per_game} invalid moves in the game")
            if cfg.per_player_time_budget_s and self._time_used[role] > cfg.per_player_time_budget_s:
                raise _Exhausted(f"{role} used up its time budget of {cfg.per_player_time_budget_s}s")
        raise _Exhausted(f"{role} made {cfg.max_attempts_per_turn} failed attempts in one turn")

    # ------------------------------------------------------------------------- helpers ---
    @staticmethod
    def _apply(state: GameState, move: Any) -> GameState:
        """``state`` after a player's move; a game that raises on the move rejects it instead (a
        reply the game's checks let through is the player's invalid attempt, never a crash)."""
        try:
            return state.update_game(state.environment, move)
        except Exception as exc:
            return state.replace(
                context=state.context.set("message", f"{state.name} could not apply this move: {exc!r}")
            )

    def _attempt(self, state: GameState, player: Player, role: str, turn: int, number: int) -> Attempt:
        """Ask once (transport errors retried inside); parse the reply into a move."""
        attempt = Attempt(turn, role, player.name, number)
        view = self._with_recent(self._view(state, role, number), role)
        reply: Reply | None = None
        for retry in range(self.config.manager.transport_retries + 1):
            t0 = time.perf_counter()
            try:
                reply = self._ask(player, view)
                break
            except InfrastructureError as exc:
                self._transport_failed(attempt, exc, retry, time.perf_counter() - t0)
            except MoveTimeoutError as exc:
                attempt.error, attempt.message = "timeout", str(exc)
                return self._timed(attempt, role, t0)
            except PlayerError as exc:
                attempt.error, attempt.message = "player", str(exc)
                return self._timed(attempt, role, t0)
            except Resigned:  # the player gave up: not an attempt, the game's end for it
                raise
            except Exception as exc:  # a player's own code failed: its attempt, not the match
                attempt.error, attempt.message = "player", f"{player.name} failed: {exc!r}"
                return self._timed(attempt, role, t0)
        assert reply is not None  # the last failed retry raised _InfrastructureFailure
        self._timed(attempt, role, t0)
        self._count_usage(role, attempt.latency_ms, reply.meta)
        attempt.raw, attempt.meta = reply.raw, reply.meta
        if reply.unreadable is not None:
            attempt.error, attempt.message = "parse", str(state.unreadable(reply.raw, reply.unreadable))
        elif reply.move is not None:
            attempt.move = reply.move
        else:
            try:
                attempt.move = state.parse_move(reply.raw or "")
            except MoveParseError as exc:
                attempt.error, attempt.message = "parse", str(exc)
            except Exception as exc:  # a bug in a game's reader must not end the match
                failed = f"{state.name}'s move reader failed: {exc!r}"
                attempt.error = "parse"
                attempt.message = f"could not read a move ({failed}); write {state.move_syntax}"
        return attempt

    def _timed(self, attempt: Attempt, role: str, t0: float) -> Attempt:
        attempt.latency_ms = (time.perf_counter() - t0) * 1000
        self._time_used[role] += attempt.latency_ms / 1000
        return attempt

    def _ask(self, player: Player, view: GameState) -> Reply:
        timeout = self.config.manager.per_move_timeout_s
        return player.act(view) if timeout is None else player.act_within(view, timeout)

    # -------------------------------------------------------- transport failures ---
    def _init_transport(self, state: GameState) -> None:
        self._transport_spent = 0.0  # seconds of failed tries and backoff waits in this match
        self._jitter = random.Random(derive_seed(state.seed, "transport-jitter"))
        self._usage: dict[str, dict[str, float]] = {r: {} for r in state.all_roles()}
        self._error: dict[str, str] | None = None
        self._events: list[FrozenMap[str, str]] = []  # {role, text} of every accepted move
        self._last_moved: dict[str, int] = {}  # role -> len(self._events) after its last move
        self._left: dict[str, dict[str, Any]] = {}  # role -> {role, player, turn, reason}, in order

    def _transport_failed(self, attempt: Attempt, exc: InfrastructureError, retry: int, spent: float) -> None:
        """Record a failed request; wait before the next try, or end the match if none is left.

        The wait is ``backoff_s * 2**retry`` capped at ``backoff_max_s``, times a jitter in
        [0.5, 1); a server's ``Retry-After`` replaces it.
        """
        cfg = self.config.manager
        self._transport_spent += spent
        kind = "transport" if isinstance(exc, TransportError) else "api"
        self._log_attempt(
            Attempt(
                attempt.turn,
                attempt.role,
                attempt.player,
                attempt.attempt,
                error=kind,
                message=str(exc),
                latency_ms=spent * 1000,
            )
        )
        retry_after = getattr(exc, "retry_after", None)
        delay = min(cfg.backoff_max_s, cfg.backoff_s * 2**retry) * self._jitter.uniform(0.5, 1.0)
        delay = delay if retry_after is None else retry_after
        left = cfg.transport_budget_s - self._transport_spent
        if isinstance(exc, ApiRequestError):
            cause = str(exc)
        elif retry >= cfg.transport_retries:
            cause = f"{exc} (gave up after {retry + 1} tries in a row)"
        elif delay > left:
            asked = f"the server asked to wait {delay:g}s; " if retry_after is not None else ""
            cause = f"{exc} ({asked}transport budget of {cfg.transport_budget_s:g}s per match spent)"
        else:
            time.sleep(delay)
            self._transport_spent += delay
            return
        raise _InfrastructureFailure(cause, attempt.role, attempt.player)

    def _infrastructure_outcome(self, state: GameState, exc: _InfrastructureFailure) -> Outcome:
        """An error end: scores so far, no ranking (nobody won or lost), the cause as the reason."""
        self._error = {"role": exc.role, "player": exc.player, "cause": exc.cause}
        if self.record:
            self.record.event("error", **self._error)
        return Outcome(OutcomeKind.ERROR, exc.cause, state.get_scores(), (), exc.role)

    def _count_usage(self, role: str, latency_ms: float, meta: Mapping[str, Any]) -> None:
        usage = self._usage[role]
        usage["requests"] = usage.get("requests", 0) + 1
        usage["latency_s"] = usage.get("latency_s", 0.0) + latency_ms / 1000
        for key, value in (meta.get("usage") or {}).items():
            if isinstance(value, int | float):
                usage[key] = usage.get(key, 0) + value

    def _with_recent(self, view: GameState, role: str) -> GameState:
        """The view with the other roles' moves since ``role`` last moved (``since_last_turn``)."""
        recent = self._events[self._last_moved.get(role, 0) :]
        omitted = max(0, len(recent) - MAX_RECENT_EVENTS)
        context = view.context.update(
            since_last_turn=tuple(recent[omitted:]), since_last_turn_omitted=omitted
        )
        return view.replace(context=context)

    def _view(self, state: GameState, role: str, attempt: int = 1) -> GameState:
        """The role's view, with the last rejection phrased at the configured feedback level.

        Its context also says which ``attempt`` this is and how many are left (``attempts_left``,
        counting this one) before ``on_exhausted`` applies, so players can warn before the last.
        """
        cfg = self.config.manager
        left = (
            min(cfg.max_attempts_per_turn - attempt, cfg.max_invalid_per_game - self._invalid.get(role, 0))
            + 1
        )
        view = state.query_game(role)
        view = view.replace(
            context=view.context.update(
                attempt=attempt, attempts_left=left, on_exhausted=cfg.on_exhausted.value
            )
        )
        if state.message is None:
            return view
        level = cfg.feedback
        if level is Feedback.NONE:
            text = f"You play as {role}."
        elif level is Feedback.GENERIC:
            text = "Your previous move was not accepted. Try again."
        else:
            view = view.replace(context=view.context.set("rejected", state.message))  # for people
            text = f"Your previous move was not accepted: {state.message}"
            moves = state.legal_moves() if level is Feedback.REASON_AND_LEGAL else None
            if moves:
                text += "\nLegal moves: " + ", ".join(state.format_move(m) for m in moves)
        return view.replace(context=view.context.set("message", text))

    def _accept(
        self, state: GameState, role: str, player: Player, move: Any, turn: int, left: bool = False
    ) -> None:
        text = state.format_move(move)
        marks = {"left": True} if left else {}  # played for a seat whose player left
        with self._guard.critical():  # a signal now waits until the move is fully recorded
            self._state = state
            self._note_move(state, role, move)
            if self.record:
                self.record.event(
                    "move", turn=turn, role=role, player=player.name, move=move, text=text, **marks
                )
                self.record.frame(state, role, text)
        if self.on_move:
            self.on_move(state, role, text)

    def _note_move(self, state: GameState, role: str, move: Any) -> None:
        """Keep what the others learn of an accepted move (their ``since_last_turn``)."""
        self._events.append(FrozenMap(role=role, text=state.describe_move(move)))
        self._last_moved[role] = len(self._events)

    def _log_attempt(self, attempt: Attempt) -> None:
        if self.record:
            fields = dict(vars(attempt))
            fields["latency_ms"] = round(attempt.latency_ms, 3)
            fields["meta"] = dict(attempt.meta)
            with self._guard.critical():
                self.record.event("attempt", **fields)

    def _on_exhausted(self, state: GameState, role: str, reason: str) -> GameState | Outcome:
        policy = self.config.manager.on_exhausted
        if self.record:
            self.record.event("exhausted", role=role, reason=reason, policy=policy.value)
        if policy is OnExhausted.RANDOM_LEGAL:
            moves = state.legal_moves()
            if moves:
                move = self._fallback_rng.choice(moves)
                accepted = state.update_game(state.environment, move)
                if accepted.message is None:
                    self._accept(accepted, role, self.players[role], move, len(state.history))
                    return accepted
            policy = OnExhausted.FORFEIT  # nothing legal to fall back on
        if policy is OnExhausted.ABORT:
            return Outcome.from_scores(OutcomeKind.ERROR, f"aborted: {reason}", state.get_scores(), role=role)
        if policy is OnExhausted.LEAVE:
            left = self._leave(state, role, reason)
            if left is not None:
                return left
        return self._forfeit(state, role, f"{role} forfeits: {reason}")

    def _leave(self, state: GameState, role: str, reason: str) -> GameState | Outcome | None:
        """``role`` forfeits and leaves; its seat plays the leave move from now on (this turn
        included). None where it cannot: fewer than two seats would play on, or the game has no
        leave move (the caller then ends the match as a forfeit)."""
        playing = [r for r in state.all_roles() if r not in self._left and r != role]
        move = state.leave_move()
        if len(playing) < 2 or move is None:
            return None
        entry = {
            "role": role,
            "player": self.players[role].name,
            "turn": len(state.history),
            "reason": reason,
        }
        with self._guard.critical():
            self._left[role] = entry
            if self.record:
                self.record.event("left", **entry, leave_move=state.format_move(move))
        return self._play_left(state, role)

    def _play_left(self, state: GameState, role: str) -> GameState | Outcome:
        """The turn of a seat whose player left: the game's leave move, recorded as such. Should
        the game refuse it (a bug of the game's leave move), the match ends as ``role``'s forfeit."""
        move = state.leave_move()
        accepted = state.update_game(state.environment, move) if move is not None else None
        if accepted is None or accepted.message is not None:
            why = "the game has no leave move now" if accepted is None else accepted.message
            self._left.pop(role)
            return self._forfeit(state, role, f"{role} forfeits; its seat cannot play on: {why}")
        self._accept(accepted, role, self.players[role], move, len(state.history), left=True)
        return accepted

    def _departed_last(self, outcome: Outcome) -> Outcome:
        """The natural end re-ranked: the players that left go last, the first to leave lowest."""
        if not self._left:
            return outcome
        ranking = [tuple(r for r in group if r not in self._left) for group in outcome.ranking]
        ranking = [g for g in ranking if g] + [(r,) for r in reversed(self._left)]
        names = ", ".join(self._left)
        reason = f"{outcome.reason}; {names} left the game (forfeit) and rank last"
        return Outcome(outcome.kind, reason, outcome.scores, tuple(ranking), outcome.role)

    def _forfeit(self, state: GameState, role: str, reason: str) -> Outcome:
        """``role`` loses: the others ranked by score, then ``role``, then the players that left
        before it (the first to leave last)."""
        scores = state.get_scores()
        gone = {role, *self._left}
        others = {r: s for r, s in scores.items() if r not in gone}
        ranked = Outcome.from_scores(OutcomeKind.FORFEIT, reason, others, role=role)
        departed = tuple((r,) for r in reversed(self._left))
        return Outcome(ranked.kind, ranked.reason, scores, (*ranked.ranking, (role,), *departed), role)


def play_match(config: Mapping[str, Any] | MatchConfig, **kwargs: Any) -> MatchResult:
    """Convenience: build a manager and run it."""
    return GameManager(config, **kwargs).start()


def resume_match(directory: str | Path, **kwargs: Any) -> MatchResult:
    """Convenience: continue the interrupted match recorded in ``directory`` to its end."""
    return GameManager.resume(directory, **kwargs).start()
