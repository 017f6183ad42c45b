"""Match records: one directory per match, written as the match runs.

=================  ==========================================================================
``config.json``    the match config as given (``${ENV}`` references unexpanded, secrets redacted)
``turns.jsonl``    one line per event: every attempt (raw reply, parsed move, error kind, message,
                   latency), every accepted move, exhaustion events, and the end
``frames.jsonl``   the viewer's frames (see :mod:`hexarena.core.frames`): a header line, then one
                   delta per accepted move (step 0 = the initial position), with its step and round
``result.json``    players (with usage: requests, latency, tokens, cost), roles, seed, outcome, scores,
                   invalid counts, moves, time, ``finished_at``, and ``error`` ({role, player,
                   cause}) when an infrastructure failure ended the match (outcome ``error``)
``final.json``     the final state's ``export()`` (replayable)
=================  ==========================================================================

Lines are flushed as they are written, so a crashed match keeps everything up to the crash. A new
record never goes into an existing one: :func:`prepare_record_dir` refuses (or, forced, clears it
first) and :func:`unique_record_dir` names a fresh folder. A match stopped by a signal ends with
outcome ``interrupted``; one killed outright has no ``result.json`` and is read back from
``config.json`` and ``turns.jsonl`` as interrupted too. Either can be resumed.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from hexarena.core.contract import GameState, Outcome, OutcomeKind
from hexarena.core.errors import RecordError, UnknownGameError
from hexarena.core.frames import FrameEncoder, check_header, header
from hexarena.core.frozen import canonical_json, thaw
from hexarena.core.registry import game_class
from hexarena.core.untrusted import escape_surrogates

TURNS, FRAMES, RESULT, FINAL, CONFIG = (
    "turns.jsonl",
    "frames.jsonl",
    "result.json",
    "final.json",
    "config.json",
)


#: ``result.json`` and ``final.json`` are written beside themselves first, then renamed: a crash or
#: a full disk never leaves half of one (a kill may leave the temporary file).
TEMPORARY = tuple(f".{name}.tmp" for name in (RESULT, FINAL))
#: Every file a record directory may hold (``replay.html`` is the demo's offline page).
RECORD_FILES = (TURNS, FRAMES, RESULT, FINAL, CONFIG, "replay.html", *TEMPORARY)


def _dump(value: Any) -> str:
    """One JSON line, non-ASCII text kept readable (a lone surrogate escaped); reads back to the
    same value."""
    return escape_surrogates(json.dumps(thaw(value), ensure_ascii=False, separators=(",", ":")))


def prepare_record_dir(directory: str | Path, *, force: bool = False) -> Path:
    """An empty directory for a new record. An existing, non-empty one is refused unless
    ``force``, which clears it first, and only if it holds nothing but record files."""
    d = Path(directory)
    if d.exists() and not d.is_dir():
        raise RecordError(f"{d}: exists and is not a directory")
    present = sorted(d.iterdir()) if d.is_dir() else []
    others = [p.name for p in present if p.name not in RECORD_FILES or not p.is_file()]
    if others:
        listed = ", ".join(others[:4])
        raise RecordError(
            f"{d}: holds files that are no part of a match record ({listed}); choose another --out"
        )
    if present and not force:
        raise RecordError(f"{d}: already holds a match record; use --force to replace it, or another --out")
    for path in present:
        path.unlink()
    d.mkdir(parents=True, exist_ok=True)
    return d


def unique_record_dir(root: str | Path, game: str, config: Mapping[str, Any]) -> Path:
    """A free folder name ``root/GAME-YYYYmmdd-HHMMSS-HASH`` (HASH: 6 hex digits of the config);
    a run with the same config in the same second gets a ``-2`` suffix."""
    digest = hashlib.sha256(canonical_json(config).encode()).hexdigest()[:6]
    base = Path(root) / f"{game}-{time.strftime('%Y%m%d-%H%M%S')}-{digest}"
    n = 1
    while (d := base if n == 1 else base.with_name(f"{base.name}-{n}")).exists():
        n += 1
    return d


class RecordWriter:
    """Writes one match's record directory incrementally.

    ``resume=True`` continues an interrupted record: ``turns.jsonl`` is appended to (a line torn by
    a kill is cut off first) and ``frames.jsonl`` is written anew as the moves are replayed.
    """

    def __init__(
        self, directory: str | Path, *, frames: bool = True, force: bool = False, resume: bool = False
    ) -> None:
        self.dir = Path(directory)
        self._frames: IO[str] | None = None
        with self._writing():
            if not resume:
                prepare_record_dir(directory, force=force)
            else:  # unfinished again until the end: a kill now must not leave a stale end behind
                _cut_torn_tail(self.dir / TURNS)
                (self.dir / RESULT).unlink(missing_ok=True)
                (self.dir / FINAL).unlink(missing_ok=True)
            self._turns: IO[str] = (self.dir / TURNS).open("a" if resume else "w", encoding="utf-8")
            self._frames = (self.dir / FRAMES).open("w", encoding="utf-8") if frames else None
        self._encoder = FrameEncoder()
        self._step = 0

    @contextmanager
    def _writing(self) -> Iterator[None]:
        """A failed write (a full disk, a read-only folder) as one RecordError naming the record;
        the files are closed, and what was written before stays (a match can be resumed)."""
        try:
            yield
        except OSError as exc:
            for fh in (getattr(self, "_turns", None), self._frames):
                if fh is not None:
                    with suppress(OSError):  # closing flushes what could not be written: drop it
                        fh.close()
            raise RecordError(f"{self.dir}: cannot write the match record: {exc.strerror or exc}") from None

    def write_config(self, raw_config: Mapping[str, Any]) -> None:
        with self._writing():
            (self.dir / CONFIG).write_text(json.dumps(thaw(raw_config), indent=2) + "\n", encoding="utf-8")

    def event(self, kind: str, **fields: Any) -> None:
        with self._writing():
            self._turns.write(_dump({"event": kind, **fields}) + "\n")
            self._turns.flush()

    def frame(self, state: GameState, role: str | None = None, move: str | None = None) -> None:
        """Append the frame of ``state`` (called for the initial state and after each move)."""
        if self._frames is None:
            return
        snapshot = state.frame()
        if snapshot is None:
            return
        if self._step == 0:
            self._frames.write(_dump(header(state.name, roles=list(state.all_roles()))) + "\n")
        line = {
            "step": self._step,
            "round": state.rounds_played(),
            "role": role,
            "move": move,
            "delta": self._encoder.encode(snapshot),
        }
        with self._writing():
            self._frames.write(_dump(line) + "\n")
            self._frames.flush()
        self._step += 1

    def finish(self, result: Mapping[str, Any], final_state: GameState) -> None:
        with self._writing():
            _write_whole(self.dir / FINAL, json.dumps(final_state.export()) + "\n")
            _write_whole(self.dir / RESULT, json.dumps(thaw(result), indent=2) + "\n")
        self.close()

    def close(self) -> None:
        self._turns.close()
        if self._frames is not None:
            self._frames.close()


def read_json(path: Path) -> Any:
    """A record file's JSON; a missing, non-UTF-8, corrupt or absurdly nested one is a RecordError."""
    if not path.is_file():
        raise RecordError(f"{path}: missing (is this a hexarena match record?)")
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except UnicodeDecodeError as exc:
        raise RecordError(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    except json.JSONDecodeError as exc:
        raise RecordError(f"{path}: corrupt JSON ({exc})") from exc
    except RecursionError:
        raise RecordError(f"{path}: JSON nested too deeply to read") from None


def _object(path: Path) -> dict[str, Any]:
    data = read_json(path)
    if not isinstance(data, dict):
        raise RecordError(f"{path}: expected a JSON object, got {type(data).__name__}")
    return data


def start_state(setup: Any, where: str | Path) -> GameState:
    """The first state of a recorded setup (``{"game", "seed", "params"}``, as ``final.json`` and
    the start event hold it); a damaged setup is a RecordError naming ``where``."""
    if not isinstance(setup, Mapping):
        raise RecordError(f"{where}: no game setup")
    game, seed, params = setup.get("game"), setup.get("seed"), setup.get("params")
    if not isinstance(game, str):
        raise RecordError(f"{where}: the game must be a name, got {game!r}")
    if not isinstance(seed, int) or isinstance(seed, bool):
        raise RecordError(f"{where}: the seed must be an integer, got {seed!r}")
    if not isinstance(params, Mapping):
        raise RecordError(f"{where}: params must be an object, got {params!r}")
    try:
        return game_class(game).new(seed=seed, **params)
    except UnknownGameError as exc:
        raise RecordError(f"{where}: {exc}") from None
    except (TypeError, ValueError, OverflowError) as exc:
        raise RecordError(f"{where}: {game} cannot start from seed {seed} and these params: {exc}") from None


def _write_whole(path: Path, text: str) -> None:
    """Write ``path`` whole or not at all (see :data:`TEMPORARY`)."""
    temporary = path.with_name(f".{path.name}.tmp")
    try:
        temporary.write_text(text, encoding="utf-8")
        os.replace(temporary, path)
    finally:
        temporary.unlink(missing_ok=True)


def _cut_torn_tail(path: Path) -> None:
    """Drop a last line without its newline (written when the process was killed)."""
    data = path.read_bytes() if path.is_file() else b""
    if data and not data.endswith(b"\n"):
        path.write_bytes(data[: data.rfind(b"\n") + 1])


def json_object(line: str, where: str) -> dict[str, Any]:
    """One line of a JSON-lines file as an object; anything else raises naming ``where``. A line
    that is not JSON at all raises :class:`json.JSONDecodeError`, for the caller to judge (a torn
    last line of a running match is no error)."""
    try:
        obj = json.loads(line)
    except RecursionError:
        raise RecordError(f"{where}: JSON nested too deeply to read") from None
    if not isinstance(obj, dict):
        raise RecordError(f"{where}: expected a JSON object")
    return obj


def read_jsonl(path: Path, *, torn_tail_ok: bool = False) -> Iterator[dict[str, Any]]:
    """The lines of a JSONL file; a corrupt or truncated line raises naming the line number,
    except (with ``torn_tail_ok``) a last line without its newline, cut off by a kill."""
    if not path.is_file():
        raise RecordError(f"{path}: missing")
    with path.open("rb") as fh:
        for n, data in enumerate(fh, 1):
            try:
                line = data.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise RecordError(f"{path}:{n}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
            if not line.strip():
                continue
            try:
                obj = json_object(line, f"{path}:{n}")
            except json.JSONDecodeError as exc:
                if torn_tail_ok and not line.endswith("\n"):
                    return
                raise RecordError(f"{path}:{n}: corrupt or truncated line ({exc.msg})") from exc
            yield obj


@dataclass(frozen=True)
class Record:
    """A match record read back from disk."""

    dir: Path
    result: dict[str, Any]
    final: dict[str, Any]
    #: True for a record whose process was killed before it wrote its end
    unfinished: bool = False

    @classmethod
    def load(cls, directory: str | Path) -> Record:
        d = Path(directory)
        if not d.is_dir():
            raise RecordError(f"{d}: not a directory")
        if not (d / RESULT).is_file() and (d / TURNS).is_file():
            return cls._unfinished(d)
        result = _object(d / RESULT)
        final = _object(d / FINAL)
        for key in ("game", "outcome", "players"):
            if key not in result:
                raise RecordError(f"{d / RESULT}: missing key {key!r}")
        return cls(d, result, final)

    @classmethod
    def _unfinished(cls, d: Path) -> Record:
        """A killed match's record, rebuilt from its start event and accepted moves."""
        events = list(read_jsonl(d / TURNS, torn_tail_ok=True))
        start = next((e for e in events if e.get("event") == "start"), None)
        if start is None:
            raise RecordError(f"{d / TURNS}: no start event (is this a hexarena match record?)")
        moves = [e["move"] for e in _checked(events, d / TURNS) if e.get("event") == "move"]
        state = start_state(start, f"{d / TURNS}: the start event").replay(moves)
        outcome = Outcome(OutcomeKind.INTERRUPTED, f"killed after {len(moves)} moves", state.get_scores())
        result = {
            "game": start["game"],
            "seed": start["seed"],
            "params": start["params"],
            "players": start.get("players", []),
            "outcome": outcome.to_json(),
            "moves": len(moves),
        }
        return cls(d, result, state.export(), unfinished=True)

    @property
    def outcome(self) -> Outcome:
        return Outcome.from_json(self.result["outcome"])

    def turns(self) -> Iterator[dict[str, Any]]:
        return _checked(read_jsonl(self.dir / TURNS, torn_tail_ok=self.unfinished), self.dir / TURNS)

    def moves(self) -> list[dict[str, Any]]:
        """The accepted moves, in order, as ``{"role", "move"}`` events."""
        return [e for e in self.turns() if e.get("event") == "move"]

    def frames(self) -> Iterator[dict[str, Any]]:
        lines = read_jsonl(self.dir / FRAMES)
        first = next(lines, None)
        if first is None:
            raise RecordError(f"{self.dir / FRAMES}: empty")
        check_header(first)
        return lines

    def replay(self) -> GameState:
        """Rebuild the final state from the game's setup and the recorded moves, and check it.

        The moves come from ``turns.jsonl``; the result must equal ``final.json`` exactly.
        """
        state = start_state(self.final, self.dir / FINAL).replay(e["move"] for e in self.moves())
        if canonical_json(state.environment_to_json()) != canonical_json(self.final["environment"]):
            raise RecordError(f"{self.dir}: replaying turns.jsonl does not reproduce final.json")
        return state


def _checked(events: Iterable[dict[str, Any]], path: Path) -> Iterator[dict[str, Any]]:
    """``turns.jsonl``'s events, a move event without its move being a RecordError."""
    for n, event in enumerate(events, 1):
        if event.get("event") == "move" and "move" not in event:
            raise RecordError(f"{path}: event {n} is a move without 'move'")
        yield event
