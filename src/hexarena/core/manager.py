"""The GameManager: runs one match from a config, with retries, budgets and a record.

Three kinds of failure are kept apart in :meth:`GameManager.process_turn`:

* **transport** errors (network, HTTP 5xx) are retried with exponential backoff and do not count
  against the player;
* **parse** errors (a reply that is no move at all) and **illegal** moves (a move the rules
  reject) count as attempts; the rejection message goes back to the player on the retry;
* **timeouts** and other player failures count as attempts too.

When a player runs out of attempts for a turn, or of invalid moves for the game, the configured
policy applies: forfeit, a random legal move, or abort.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hexarena.core.config import Feedback, MatchConfig, OnExhausted, parse_config, redact_secrets
from hexarena.core.contract import GameState, Outcome, OutcomeKind
from hexarena.core.errors import ConfigError, MoveParseError, MoveTimeoutError, PlayerError, TransportError
from hexarena.core.players import Player, Reply
from hexarena.core.records import RecordWriter
from hexarena.core.registry import game_class
from hexarena.core.rng import Rng, derive_seed

#: Called after every accepted move with (state, role, move text); the CLI draws progress with it.
MoveHook = Callable[[GameState, str, str], None]


@dataclass
class Attempt:
    """One try of one player at one turn, as recorded in ``turns.jsonl``."""

    turn: int
    role: str
    player: str
    attempt: int
    raw: str | None = None
    move: Any = None
    error: str | None = None  # None, "transport", "parse", "illegal", "timeout", "player"
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

    def to_json(self, config: MatchConfig, players: Mapping[str, Player]) -> dict[str, Any]:
        state = self.final_state
        return {
            "game": state.name,
            "seed": state.seed,
            "params": dict(config.game.params),
            "players": [
                {**p.describe(), "roles": [r for r, q in players.items() if q is p]}
                for p in _unique(players.values())
            ],
            "roles": list(state.all_roles()),
            "outcome": self.outcome.to_json(),
            "scores": dict(self.outcome.scores),
            "invalid": self.invalid,
            "moves": self.moves,
            "rounds": state.rounds_played(),
            "time_s": round(self.time_s, 4),
        }


def _unique(players: Any) -> list[Player]:
    seen: list[Player] = []
    for p in players:
        if all(p is not q for q in seen):
            seen.append(p)
    return seen


class _Exhausted(Exception):
    """A player ran out of attempts (or time); carries the reason."""


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
        self._init_game()
        self._init_players()

    # -------------------------------------------------------------------------- set-up ---
    def _init_game(self) -> None:
        cfg = self.config.game
        cls = game_class(cfg.name)
        try:
            state = cls.new(seed=cfg.seed, **cfg.params)
        except TypeError as exc:
            raise ConfigError(f"game.params: {exc}") from exc
        except ValueError as exc:
            raise ConfigError(f"game.params: {exc}") from exc
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
        missing = [r for r in defined if r not in self.players]
        if missing:
            raise ConfigError(f"players: no player for role(s) {', '.join(missing)} of {state.name}")

    # ------------------------------------------------------------------------- running ---
    def start(self) -> MatchResult:
        """Run the match to its end and return the result (the record is written as it goes)."""
        state = self.games[-1]
        out_dir = self.config.output.dir
        self.record = RecordWriter(out_dir, frames=self.config.output.frames) if out_dir else None
        if self.record:
            self.record.write_config(redact_secrets(self.raw_config))
            self.record.frame(state)
        for player in _unique(self.players.values()):
            player.reset(tuple(r for r, p in self.players.items() if p is player), state.seed)
        self._invalid = {r: 0 for r in state.all_roles()}
        self._time_used = {r: 0.0 for r in state.all_roles()}
        self._fallback_rng = Rng(derive_seed(state.seed, "manager-fallback"))
        started = time.perf_counter()
        try:
            final, outcome = self.run_game_loop(state)
        finally:
            for player in _unique(self.players.values()):
                player.close()
        result = MatchResult(
            outcome,
            final,
            len(final.history),
            dict(self._invalid),
            time.perf_counter() - started,
            Path(out_dir) if out_dir else None,
            {role: p.name for role, p in self.players.items()},
        )
        if self.record:
            self.record.event("end", outcome=outcome.to_json())
            self.record.finish(result.to_json(self.config, self.players), final)
        return result

    def run_game_loop(self, game_state: GameState) -> tuple[GameState, Outcome]:
        """Turns until the game ends, a player is exhausted, or ``max_rounds`` is reached."""
        state = game_state
        max_rounds = self.config.manager.max_rounds
        while True:
            outcome = state.validate_game()
            if outcome is not None:
                return state, outcome
            if state.rounds_played() >= max_rounds:
                return state, Outcome.from_scores(
                    OutcomeKind.TRUNCATED, f"round limit of {max_rounds} reached", state.get_scores()
                )
            role = state.roles[0]
            try:
                state = self.process_turn(state, self.players[role])
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
                accepted = state.update_game(state.environment, attempt.move)
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
    def _attempt(self, state: GameState, player: Player, role: str, turn: int, number: int) -> Attempt:
        """Ask once (transport errors retried inside); parse the reply into a move."""
        cfg = self.config.manager
        attempt = Attempt(turn, role, player.name, number)
        view = self._view(state, role)
        reply: Reply | None = None
        for retry in range(cfg.transport_retries + 1):
            t0 = time.perf_counter()
            try:
                reply = self._ask(player, view)
                break
            except TransportError as exc:
                self._log_attempt(
                    Attempt(
                        turn,
                        role,
                        player.name,
                        number,
                        error="transport",
                        message=str(exc),
                        latency_ms=(time.perf_counter() - t0) * 1000,
                    )
                )
                if retry == cfg.transport_retries:
                    attempt.error, attempt.message = "transport", f"giving up after {retry + 1} tries: {exc}"
                    return attempt
                time.sleep(cfg.backoff_s * (2**retry))
            except MoveTimeoutError as exc:
                attempt.error, attempt.message = "timeout", str(exc)
                return self._timed(attempt, role, t0)
            except PlayerError as exc:
                attempt.error, attempt.message = "player", str(exc)
                return self._timed(attempt, role, t0)
            finally:
                attempt.latency_ms = (time.perf_counter() - t0) * 1000
        assert reply is not None
        self._time_used[role] += attempt.latency_ms / 1000
        attempt.raw, attempt.meta = reply.raw, reply.meta
        if reply.move is not None:
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
        if timeout is None:
            return player.act(view)
        pool = ThreadPoolExecutor(max_workers=1)
        try:
            return pool.submit(player.act, view).result(timeout=timeout)
        except FutureTimeout:
            raise MoveTimeoutError(f"no move within the per-move timeout of {timeout}s") from None
        finally:
            pool.shutdown(wait=False, cancel_futures=True)

    def _view(self, state: GameState, role: str) -> GameState:
        """The role's view, with the last rejection phrased at the configured feedback level."""
        view = state.query_game(role)
        if state.message is None:
            return view
        level = self.config.manager.feedback
        if level is Feedback.NONE:
            text = f"You play as {role}."
        elif level is Feedback.GENERIC:
            text = "Your previous move was not accepted. Try again."
        else:
            text = f"Your previous move was not accepted: {state.message}"
            moves = state.legal_moves() if level is Feedback.REASON_AND_LEGAL else None
            if moves:
                text += "\nLegal moves: " + ", ".join(state.format_move(m) for m in moves)
        return view.replace(context=view.context.set("message", text))

    def _accept(self, state: GameState, role: str, player: Player, move: Any, turn: int) -> None:
        text = state.format_move(move)
        if self.record:
            self.record.event("move", turn=turn, role=role, player=player.name, move=move, text=text)
            self.record.frame(state, role, text)
        if self.on_move:
            self.on_move(state, role, text)

    def _log_attempt(self, attempt: Attempt) -> None:
        if self.record:
            fields = dict(vars(attempt))
            fields["latency_ms"] = round(attempt.latency_ms, 3)
            fields["meta"] = dict(attempt.meta)
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
        scores = state.get_scores()
        others = {r: s for r, s in scores.items() if r != role}
        ranked = Outcome.from_scores(OutcomeKind.FORFEIT, f"{role} forfeits: {reason}", others, role=role)
        return Outcome(ranked.kind, ranked.reason, scores, (*ranked.ranking, (role,)), role)


def play_match(config: Mapping[str, Any] | MatchConfig, **kwargs: Any) -> MatchResult:
    """Convenience: build a manager and run it."""
    return GameManager(config, **kwargs).start()
