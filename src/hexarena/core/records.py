"""Match records: one directory per match, written as the match runs.

=================  ==========================================================================
``config.json``    the match config as given (``${ENV}`` references unexpanded, secrets redacted)
``turns.jsonl``    one line per event: every attempt (raw reply, parsed move, error kind, message,
                   latency), every accepted move, exhaustion events, and the end
``frames.jsonl``   the viewer's frames (see :mod:`hexarena.core.frames`): a header line, then one
                   delta per accepted move (step 0 = the initial position), with its step and round
``result.json``    players, roles, seed, outcome, scores, invalid counts, moves, time
``final.json``     the final state's ``export()`` (replayable)
=================  ==========================================================================

Lines are flushed as they are written, so a crashed match keeps everything up to the crash.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from hexarena.core.contract import GameState, Outcome
from hexarena.core.errors import RecordError
from hexarena.core.frames import FrameEncoder, check_header, header
from hexarena.core.frozen import canonical_json, thaw
from hexarena.core.registry import game_class

TURNS, FRAMES, RESULT, FINAL, CONFIG = (
    "turns.jsonl",
    "frames.jsonl",
    "result.json",
    "final.json",
    "config.json",
)


def _dump(value: Any) -> str:
    return json.dumps(thaw(value), ensure_ascii=False, separators=(",", ":"))


class RecordWriter:
    """Writes one match's record directory incrementally."""

    def __init__(self, directory: str | Path, *, frames: bool = True) -> None:
        self.dir = Path(directory)
        self.dir.mkdir(parents=True, exist_ok=True)
        self._turns: IO[str] = (self.dir / TURNS).open("w", encoding="utf-8")
        self._frames: IO[str] | None = (self.dir / FRAMES).open("w", encoding="utf-8") if frames else None
        self._encoder = FrameEncoder()
        self._step = 0

    def write_config(self, raw_config: Mapping[str, Any]) -> None:
        (self.dir / CONFIG).write_text(json.dumps(thaw(raw_config), indent=2) + "\n", encoding="utf-8")

    def event(self, kind: str, **fields: Any) -> None:
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
        self._frames.write(_dump(line) + "\n")
        self._frames.flush()
        self._step += 1

    def finish(self, result: Mapping[str, Any], final_state: GameState) -> None:
        (self.dir / FINAL).write_text(json.dumps(final_state.export()) + "\n", encoding="utf-8")
        (self.dir / RESULT).write_text(json.dumps(thaw(result), indent=2) + "\n", encoding="utf-8")
        self.close()

    def close(self) -> None:
        self._turns.close()
        if self._frames is not None:
            self._frames.close()


def _read_json(path: Path) -> Any:
    if not path.is_file():
        raise RecordError(f"{path}: missing (is this a hexarena match record?)")
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise RecordError(f"{path}: corrupt JSON ({exc})") from exc


def read_jsonl(path: Path) -> Iterator[dict[str, Any]]:
    """The lines of a JSONL file; a corrupt or truncated line raises naming the line number."""
    if not path.is_file():
        raise RecordError(f"{path}: missing")
    with path.open(encoding="utf-8") as fh:
        for n, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
            except json.JSONDecodeError as exc:
                raise RecordError(f"{path}:{n}: corrupt or truncated line ({exc.msg})") from exc
            if not isinstance(obj, dict):
                raise RecordError(f"{path}:{n}: expected a JSON object")
            yield obj


@dataclass(frozen=True)
class Record:
    """A match record read back from disk."""

    dir: Path
    result: dict[str, Any]
    final: dict[str, Any]

    @classmethod
    def load(cls, directory: str | Path) -> Record:
        d = Path(directory)
        if not d.is_dir():
            raise RecordError(f"{d}: not a directory")
        result = _read_json(d / RESULT)
        final = _read_json(d / FINAL)
        for key in ("game", "outcome", "players"):
            if key not in result:
                raise RecordError(f"{d / RESULT}: missing key {key!r}")
        return cls(d, result, final)

    @property
    def outcome(self) -> Outcome:
        return Outcome.from_json(self.result["outcome"])

    def turns(self) -> Iterator[dict[str, Any]]:
        return read_jsonl(self.dir / TURNS)

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
        cls = game_class(self.final.get("game", self.result["game"]))
        state = cls.new(seed=int(self.final["seed"]), **dict(self.final["params"]))
        state = state.replay(e["move"] for e in self.moves())
        if canonical_json(state.environment_to_json()) != canonical_json(self.final["environment"]):
            raise RecordError(f"{self.dir}: replaying turns.jsonl does not reproduce final.json")
        return state
