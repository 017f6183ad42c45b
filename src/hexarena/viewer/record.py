"""Read a match record into the data the replay page draws.

The page gets the frame *deltas* as written (see :mod:`hexarena.core.frames`) and decodes them
itself: only what changed travels, not 300 full maps of a 300-step record.

Records are read leniently, because people watch matches that are still running or crashed:
only the frames file is required (``frames.jsonl`` or Terra Nova's ``frames.jsonl.gz``); a
missing ``result.json``, ``turns.jsonl`` or ``config.json`` just leaves that part of the page
empty, and a truncated *last* line (a match being written) is skipped with a warning. A record
made without frames (``output.frames: false``) is replayed from ``final.json``'s setup and the
moves in ``turns.jsonl`` to draw it.
"""

from __future__ import annotations

import json
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from hexarena.core.errors import RecordError
from hexarena.core.frames import FrameEncoder, check_header, header
from hexarena.core.frozen import thaw
from hexarena.core.records import json_object, start_state

#: Frames files, in the order they are looked for inside a record directory.
FRAME_FILES = ("frames.jsonl", "frames.jsonl.gz", "frames.ndjson.gz")
#: turns.jsonl events shown in the move log (everything else is skipped).
LOG_EVENTS = ("attempt", "move", "exhausted", "end")


def _inside(directory: Path, name: str) -> Path:
    """``directory / name``, refused if it is a link that leads out of the record folder: a record
    from someone else must not make a page show (or an export embed) the reader's other files."""
    path = directory / name
    if path.exists() and not path.resolve().is_relative_to(directory.resolve()):
        raise RecordError(f"{path}: a link that leads out of the record folder; refused")
    return path


def find_frames(record: str | Path) -> Path | None:
    """The frames file of a record directory, or ``record`` itself when it is a frames file;
    None for a record directory without frames that can be replayed (it has ``final.json``)."""
    path = Path(record)
    if path.is_file():
        return path
    if not path.is_dir():
        raise RecordError(f"{path}: no such record directory or frames file")
    for name in FRAME_FILES:
        if _inside(path, name).is_file():
            return path / name
    if _inside(path, "final.json").is_file():
        return None
    raise RecordError(f"{path}: no frames file ({' or '.join(FRAME_FILES)}) and no final.json to replay")


def _text(path: Path) -> str:
    """A file's text; of a gzip file, all that is complete so far.

    A streaming recorder that is still writing (or crashed) leaves a gzip stream without its end:
    everything it flushed is read, and a last line cut in the middle is dropped by the caller.
    """
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise RecordError(f"{path}: unreadable ({exc})") from exc
    if not path.name.endswith(".gz"):
        return data.decode("utf-8", errors="replace")  # a character cut in two ends a truncated line
    out = bytearray()
    while data:  # one gzip member after another (appending writers may start new ones)
        unzip = zlib.decompressobj(wbits=31)
        try:
            out += unzip.decompress(data)
        except zlib.error as exc:
            if not out:
                raise RecordError(f"{path}: not a gzip file ({exc})") from exc
            break
        data = unzip.unused_data
    return out.decode("utf-8", errors="replace")


def _lines(path: Path, warnings: list[str]) -> Iterator[dict[str, Any]]:
    """JSON objects, one a line; a corrupt last line is a warning, a corrupt middle line an error."""
    text_lines = _text(path).splitlines()
    last = max((i for i, line in enumerate(text_lines) if line.strip()), default=-1)
    for n, line in enumerate(text_lines):
        if not line.strip():
            continue
        try:
            obj = json_object(line, f"{path}:{n + 1}")
        except json.JSONDecodeError as exc:
            if n == last:
                warnings.append(f"{path.name}:{n + 1}: truncated last line skipped (match still running?)")
                return
            raise RecordError(f"{path}:{n + 1}: corrupt line ({exc.msg})") from exc
        yield obj


def _steps(path: Path, warnings: list[str]) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The header and the steps ``{"step", "role", "move", "delta"}`` of a frames file (writers
    may add keys such as ``round``, which the page shows in its status line).

    Lines are either the manager's wrapped form or bare deltas (a streaming recorder may write
    ``{"cells": [...], ...}`` directly); both become the wrapped form.
    """
    lines = _lines(path, warnings)
    head = next(lines, None)
    if head is None:
        raise RecordError(f"{path}: empty frames file")
    check_header(head)
    steps: list[dict[str, Any]] = []
    for n, line in enumerate(lines):
        delta = line.get("delta", line)
        if not isinstance(delta, dict) or not isinstance(delta.get("cells"), list):
            raise RecordError(f"{path}: frame {n} is not a frame delta (needs a 'cells' list)")
        step = {k: v for k, v in line.items() if k != "delta"} if "delta" in line else {}
        step.setdefault("step", n)
        step["delta"] = delta
        steps.append(step)
    if not steps:
        raise RecordError(f"{path}: no frames after the header")
    return head, steps


def _replayed_steps(directory: Path, warnings: list[str]) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The steps of a record without frames: its game replayed from ``final.json``'s setup."""
    final = _optional_json(directory / "final.json", warnings)
    if not isinstance(final, dict) or not {"game", "seed", "params"} <= final.keys():
        raise RecordError(f"{directory / 'final.json'}: no game setup to replay (and no frames file)")
    state = start_state(final, directory / "final.json")
    encoder = FrameEncoder()
    steps: list[dict[str, Any]] = []

    def add(role: str | None, move: str | None) -> None:
        frame = state.frame()
        if frame is None:
            raise RecordError(f"{directory}: {state.name} draws no frames, so there is nothing to show")
        steps.append(
            {
                "step": len(steps),
                "round": state.rounds_played(),
                "role": role,
                "move": move,
                "delta": thaw(encoder.encode(frame)),
            }
        )

    add(None, None)
    turns = _inside(directory, "turns.jsonl")
    moves = [e for e in (_lines(turns, warnings) if turns.is_file() else ()) if e.get("event") == "move"]
    for n, event in enumerate(moves):
        if "move" not in event:
            raise RecordError(f"{turns}: move {n} has no 'move'")
        state = state.apply(event["move"])
        if state.message is not None:
            raise RecordError(f"{turns}: move {n} ({event['move']!r}) is rejected on replay: {state.message}")
        add(event.get("role"), event.get("text"))
    warnings.append("no frames file: the steps were rebuilt by replaying the moves in turns.jsonl")
    return header(state.name, roles=list(state.all_roles())), steps


def _optional_json(path: Path, warnings: list[str]) -> Any:
    if not path.is_file():
        return None
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        warnings.append(f"{path.name}: corrupt JSON ignored ({exc.msg})")
    except UnicodeDecodeError as exc:
        warnings.append(f"{path.name}: not UTF-8 text, ignored ({exc.reason} at byte {exc.start})")
    except RecursionError:
        warnings.append(f"{path.name}: JSON nested too deeply, ignored")
    return None


def _log(path: Path, warnings: list[str]) -> list[dict[str, Any]]:
    if not path.is_file():
        return []
    return [e for e in _lines(path, warnings) if e.get("event") in LOG_EVENTS]


def load_view_data(record: str | Path) -> dict[str, Any]:
    """Everything the page shows about one record, as a JSON-safe dict.

    ``record`` is a record directory, or a frames file on its own (then the log and result are
    taken from its directory when present).
    """
    frames_path = find_frames(record)
    directory = frames_path.parent if frames_path else Path(record)
    warnings: list[str] = []
    head, steps = _steps(frames_path, warnings) if frames_path else _replayed_steps(directory, warnings)
    result = _optional_json(_inside(directory, "result.json"), warnings)
    config = _optional_json(_inside(directory, "config.json"), warnings)
    roles = head.get("roles") or (result or {}).get("roles") or []
    return {
        "format": "hexarena-view",
        "version": 1,
        "game": head.get("game") or (result or {}).get("game") or "?",
        "title": frames_path.name if frames_path and frames_path.name not in FRAME_FILES else directory.name,
        "roles": list(roles),
        "header": head,
        "steps": steps,
        "log": _log(_inside(directory, "turns.jsonl"), warnings),
        "result": result,
        "config": config,
        "warnings": warnings,
    }
