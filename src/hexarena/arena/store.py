"""The arena's SQLite file (``arena.sqlite`` in the arena folder): the one source of truth.

=============  =================================================================================
``arenas``     the arena's config (raw, secrets redacted) and the package version that ran it
``matches``    one row per scheduled match (id = hash of game, params, seed, seating, players):
               status ``pending`` / ``done`` / ``error`` (given up), tries, last error, record folder
``results``    one row per finished, rated match: outcome kind, reason, moves, time
``seats``      one row per seat of a finished match: player, place, score, invalid moves, forfeit,
               latency, tokens, cost
``player_totals``  a view: per player and game, games and W/D/L by seat, invalid moves, forfeits
=============  =================================================================================

Only the arena's main process writes, and a finished match goes in with one transaction (its
result, its seats and its status together), so a crash at any moment leaves each match either
wholly counted or not at all; ``matches.id`` being the primary key makes double counting
impossible. The file is in WAL mode, so readers (``hexarena leaderboard``, the viewer) never block
a running arena.
"""

from __future__ import annotations

import fcntl
import json
import os
import sqlite3
import time
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

from hexarena.arena.schedule import MatchSpec
from hexarena.core.errors import HexarenaError, RecordError
from hexarena.core.untrusted import escape_surrogates, redact_urls

DB_NAME = "arena.sqlite"
#: Held (``flock``) by the arena running on a folder; the system drops it when that process ends.
LOCK_NAME = "arena.lock"

SCHEMA = """
CREATE TABLE IF NOT EXISTS arenas (
    id INTEGER PRIMARY KEY CHECK (id = 1), name TEXT NOT NULL, config TEXT NOT NULL,
    version TEXT NOT NULL, updated TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS matches (
    id TEXT PRIMARY KEY, game TEXT NOT NULL, game_name TEXT NOT NULL, params TEXT NOT NULL,
    seed INTEGER NOT NULL, seating TEXT NOT NULL, round INTEGER NOT NULL, ord TEXT NOT NULL,
    status TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'done', 'error')),
    tries INTEGER NOT NULL DEFAULT 0, last_error TEXT, record_dir TEXT);
CREATE TABLE IF NOT EXISTS results (
    match_id TEXT PRIMARY KEY REFERENCES matches(id), kind TEXT NOT NULL, reason TEXT NOT NULL,
    outcome TEXT NOT NULL, moves INTEGER NOT NULL, rounds INTEGER NOT NULL, time_s REAL NOT NULL,
    finished TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS seats (
    match_id TEXT NOT NULL REFERENCES results(match_id), seat INTEGER NOT NULL, role TEXT NOT NULL,
    player TEXT NOT NULL, place INTEGER NOT NULL, score REAL NOT NULL, moves INTEGER NOT NULL,
    invalid INTEGER NOT NULL, forfeit INTEGER NOT NULL, latency_ms REAL NOT NULL,
    prompt_tokens INTEGER NOT NULL, completion_tokens INTEGER NOT NULL, cost_usd REAL NOT NULL,
    PRIMARY KEY (match_id, seat));
CREATE VIEW IF NOT EXISTS player_totals AS
    SELECT s.player, m.game, s.seat, COUNT(*) AS games,
           SUM(r.kind != 'draw' AND s.place = 1) AS wins,
           SUM(r.kind = 'draw') AS draws,
           SUM(r.kind != 'draw' AND s.place > 1) AS losses,
           SUM(s.invalid) AS invalid, SUM(s.moves) AS moves, SUM(s.forfeit) AS forfeits,
           SUM(s.latency_ms) AS latency_ms, SUM(s.prompt_tokens) AS prompt_tokens,
           SUM(s.completion_tokens) AS completion_tokens, SUM(s.cost_usd) AS cost_usd
    FROM seats s JOIN results r ON r.match_id = s.match_id JOIN matches m ON m.id = s.match_id
    GROUP BY s.player, m.game, s.seat;
"""

SEAT_FIELDS = (
    "seat",
    "role",
    "player",
    "place",
    "score",
    "moves",
    "invalid",
    "forfeit",
    "latency_ms",
    "prompt_tokens",
    "completion_tokens",
    "cost_usd",
)


class ArenaBusyError(HexarenaError):
    """Another arena is running on the folder."""


#: The folder locks this process holds. The lock keeps other processes out; a run that ended by
#: an exception may leave its store unclosed, and a later run in this process takes its lock over.
_HELD: dict[Path, IO[str]] = {}


def lock_folder(folder: Path) -> IO[str]:
    """Hold ``folder``'s lock for as long as the returned file stays open: a second arena on the
    same folder is refused (two writers would reuse each other's match folders). Readers (the
    leaderboard, the viewer) take no lock."""
    stale = _HELD.pop(folder.resolve(), None)
    if stale is not None:
        stale.close()
    fh = (folder / LOCK_NAME).open("a+", encoding="utf-8")
    try:
        fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        fh.seek(0)
        holder = fh.read().strip() or "?"
        fh.close()
        raise ArenaBusyError(
            f"{folder}: another arena is running on this folder (process {holder}); "
            "wait for it to end, or choose another --out"
        ) from None
    fh.seek(0)
    fh.truncate()
    fh.write(f"{os.getpid()}\n")
    fh.flush()
    _HELD[folder.resolve()] = fh
    return fh


class ArenaStore:
    """The arena database. Open with :meth:`open` (creates, and locks the folder while open) or
    :meth:`existing` (reads)."""

    _lock: IO[str] | None = None

    def __init__(self, path: Path) -> None:
        self.path = path
        self.db = sqlite3.connect(path, isolation_level=None, timeout=30)
        self.db.row_factory = sqlite3.Row
        self.db.execute("PRAGMA journal_mode=WAL")
        # WAL + NORMAL: a committed match survives the process being killed (kill -9); only a power
        # cut may lose the last few commits, which a rerun then plays again (never twice).
        self.db.execute("PRAGMA synchronous=NORMAL")
        self.db.execute("PRAGMA foreign_keys=ON")

    @classmethod
    def open(cls, folder: str | Path) -> ArenaStore:
        folder = Path(folder)
        folder.mkdir(parents=True, exist_ok=True)
        lock = lock_folder(folder)
        store = cls(folder / DB_NAME)
        store._lock = lock
        store.db.executescript(SCHEMA)
        return store

    @classmethod
    def existing(cls, folder: str | Path) -> ArenaStore:
        path = Path(folder) / DB_NAME
        if not path.is_file():
            raise RecordError(f"{folder}: no {DB_NAME} here (is this an arena folder? see `hexarena arena`)")
        try:
            store = cls(path)
            store.db.execute("SELECT 1 FROM matches LIMIT 1")
        except sqlite3.DatabaseError as exc:
            raise RecordError(f"{path}: not a readable arena database ({exc})") from None
        return store

    def close(self) -> None:
        self.db.close()
        if self._lock is not None:
            self._lock.close()
            self._lock = None

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        self.db.execute("BEGIN IMMEDIATE")
        try:
            yield self.db
        except BaseException:
            self.db.execute("ROLLBACK")
            raise
        self.db.execute("COMMIT")

    # ----------------------------------------------------------------------------- writes ---
    def save_config(self, name: str, raw: Mapping[str, Any], version: str) -> None:
        with self.transaction() as db:
            db.execute(
                "INSERT INTO arenas (id, name, config, version, updated) VALUES (1, ?, ?, ?, ?) "
                "ON CONFLICT(id) DO UPDATE SET name=excluded.name, config=excluded.config, "
                "version=excluded.version, updated=excluded.updated",
                (name, json.dumps(raw, sort_keys=True), version, _now()),
            )

    def add_matches(self, specs: Iterable[MatchSpec]) -> None:
        """Schedule matches; ones already known are left as they are."""
        rows = [
            (
                s.id,
                s.game,
                s.game_name,
                json.dumps(dict(s.params), sort_keys=True),
                s.seed,
                json.dumps(list(s.seating)),
                s.round,
                json.dumps(list(s.order)),
            )
            for s in specs
        ]
        with self.transaction() as db:
            db.executemany(
                "INSERT OR IGNORE INTO matches (id, game, game_name, params, seed, seating, round, ord) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                rows,
            )

    def record_result(self, match_id: str, result: Mapping[str, Any], record_dir: str) -> bool:
        """Store a finished match (result, seats and status in one transaction); False if it was
        already stored (then nothing changes)."""
        with self.transaction() as db:
            row = db.execute("SELECT status FROM matches WHERE id = ?", (match_id,)).fetchone()
            if row is None or row["status"] != "pending":
                return False
            db.execute(
                "INSERT INTO results (match_id, kind, reason, outcome, moves, rounds, time_s, finished) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    match_id,
                    result["outcome"]["kind"],
                    result["outcome"]["reason"],
                    json.dumps(result["outcome"], sort_keys=True),
                    result["moves"],
                    result["rounds"],
                    result["time_s"],
                    _now(),
                ),
            )
            columns, marks = ", ".join(SEAT_FIELDS), ", ?" * len(SEAT_FIELDS)
            db.executemany(
                f"INSERT INTO seats (match_id, {columns}) VALUES (?{marks})",
                [(match_id, *(seat[f] for f in SEAT_FIELDS)) for seat in result["seats"]],
            )
            db.execute(
                "UPDATE matches SET status = 'done', tries = tries + 1, record_dir = ? WHERE id = ?",
                (record_dir, match_id),
            )
        return True

    def record_error(self, match_id: str, message: str, record_dir: str | None, give_up: bool) -> None:
        """Count a failed try; the match stays pending (to be tried again) unless ``give_up``.
        A URL's credentials in ``message`` are masked (it reaches matches.csv and the viewer), and
        a lone surrogate (a server's message cut mid-emoji) escaped: SQLite text cannot hold it."""
        with self.transaction() as db:
            db.execute(
                "UPDATE matches SET tries = tries + 1, last_error = ?, record_dir = ?, "
                "status = CASE WHEN ? THEN 'error' ELSE status END WHERE id = ? AND status = 'pending'",
                (escape_surrogates(redact_urls(message)), record_dir, give_up, match_id),
            )

    def reopen_errors(self, max_tries: int) -> None:
        """Matches given up with fewer tries than a (raised) limit become pending again."""
        with self.transaction() as db:
            db.execute(
                "UPDATE matches SET status = 'pending' WHERE status = 'error' AND tries < ?", (max_tries,)
            )

    # ------------------------------------------------------------------------------ reads ---
    def config(self) -> dict[str, Any]:
        row = self.db.execute("SELECT config FROM arenas WHERE id = 1").fetchone()
        if row is None:
            raise RecordError(f"{self.path}: no arena config stored yet")
        return json.loads(row["config"])

    def matches(self, ids: Iterable[str] | None = None) -> list[dict[str, Any]]:
        """Match rows (with their result and seats when finished), in schedule order."""
        rows = [dict(r) for r in self.db.execute("SELECT * FROM matches")]
        if ids is not None:
            wanted = set(ids)
            rows = [r for r in rows if r["id"] in wanted]
        results = {r["match_id"]: dict(r) for r in self.db.execute("SELECT * FROM results")}
        seats: dict[str, list[dict[str, Any]]] = {}
        for s in self.db.execute("SELECT * FROM seats ORDER BY match_id, seat"):
            seats.setdefault(s["match_id"], []).append(dict(s))
        for r in rows:
            r["params"] = json.loads(r["params"])
            r["seating"] = json.loads(r["seating"])
            r["ord"] = json.loads(r["ord"])
            res = results.get(r["id"])
            r["result"] = res and {**res, "outcome": json.loads(res["outcome"])}
            r["seats"] = seats.get(r["id"], [])
        return sorted(rows, key=lambda r: r["ord"])

    def spend(self) -> dict[str, tuple[int, float]]:
        """Tokens and cost so far, per player."""
        q = "SELECT player, SUM(prompt_tokens + completion_tokens) t, SUM(cost_usd) c FROM seats GROUP BY 1"
        return {r["player"]: (int(r["t"] or 0), float(r["c"] or 0.0)) for r in self.db.execute(q)}


def _now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
