"""The arena leaderboard page: the ratings tables, and every match linked to its replay.

``hexarena view DIR`` on an arena folder (one with ``arena.sqlite``) serves this page at ``/``
and each match's replay at ``/match/<id>/``; the page follows a running arena. Exported
(``--export page.html``), the page links to a ``replay.html`` written into each match's folder.
"""

from __future__ import annotations

import json
import os
import threading
import webbrowser
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib.resources import files
from pathlib import Path
from typing import Any

from hexarena.core.errors import RecordError
from hexarena.viewer.page import data_json, export_replay, page_html
from hexarena.viewer.record import load_view_data

_STATIC = files("hexarena.viewer") / "static"


def is_arena(path: str | Path) -> bool:
    return (Path(path) / "arena.sqlite").is_file()


def page_data(folder: Path, link: Any) -> dict[str, Any]:
    """The page's data: the leaderboard and the matches; ``link(row)`` is a match's replay URL."""
    from hexarena.arena.runner import load_report

    board, rows = load_report(folder, write=False)
    matches = []
    for r in rows:
        res = r["result"] or {}
        matches.append(
            {
                "id": r["id"],
                "round": r["round"],
                "game": r["game"],
                "seed": r["seed"],
                "seating": r["seating"],
                "status": r["status"],
                "tries": r["tries"],
                "last_error": r["last_error"],
                "kind": res.get("kind"),
                "moves": res.get("moves"),
                "seats": [{"player": s["player"], "place": s["place"]} for s in r["seats"]],
                "replay": link(r) if r["record_dir"] and (folder / r["record_dir"]).is_dir() else None,
            }
        )
    players = [row["player"] for row in board["combined"]["players"]]
    return {"board": board, "matches": matches, "players": players}


#: What inlined JSON escapes (as Django's ``json_script``): no record text can end the script
#: element or open a comment that swallows the rest of the page.
_SCRIPT_SAFE = str.maketrans({"<": "\\u003c", ">": "\\u003e", "&": "\\u0026"})


def leaderboard_html(data: dict[str, Any]) -> str:
    text = json.dumps(data, ensure_ascii=False).translate(_SCRIPT_SAFE)
    html = (_STATIC / "leaderboard.html").read_text(encoding="utf-8")
    for marker, part in (
        ("/*__CSS__*/", (_STATIC / "leaderboard.css").read_text(encoding="utf-8")),
        ("/*__JS__*/", (_STATIC / "leaderboard.js").read_text(encoding="utf-8")),
        ("/*__DATA__*/", text),
    ):
        html = html.replace(marker, part, 1)
    return html


def export_arena(folder: str | Path, out_path: str | Path) -> Path:
    """Write the leaderboard page to ``out_path`` and a replay page into every match folder."""
    folder, out = Path(folder), Path(out_path)
    out.parent.mkdir(parents=True, exist_ok=True)

    def link(row: dict[str, Any]) -> str:
        page = folder / row["record_dir"] / "replay.html"
        if page.is_symlink():  # written anew, never through a link to some other file
            page.unlink()
        replay = export_replay(folder / row["record_dir"], page)
        return Path(os.path.relpath(replay.resolve(), out.parent.resolve())).as_posix()

    out.write_text(leaderboard_html(page_data(folder, link)), encoding="utf-8")
    return out


class ArenaServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, folder: Path, port: int) -> None:
        self.folder = folder
        super().__init__(("127.0.0.1", port), _Handler)

    @property
    def url(self) -> str:
        host, port = self.server_address[:2]
        return f"http://{host}:{port}/"

    def data(self) -> dict[str, Any]:
        return page_data(self.folder, lambda row: f"match/{row['id']}/")

    def handle_error(self, request: object, client_address: object) -> None:
        from hexarena.viewer.local import client_went_away

        if not client_went_away():  # a closed tab is no error worth a traceback
            super().handle_error(request, client_address)


#: The longest match id a request may name (ids are 20 hex digits; longer is no match).
MAX_MATCH_ID = 64


class _Handler(BaseHTTPRequestHandler):
    server: ArenaServer

    def do_GET(self) -> None:
        from hexarena.viewer.local import refuse_foreign_host

        if refuse_foreign_host(self):
            return
        path = self.path.split("?", 1)[0]
        try:
            if path in ("/", "/index.html"):
                self._send("text/html; charset=utf-8", leaderboard_html(self.server.data()).encode())
            elif path == "/leaderboard-data.json":
                self._send("application/json", data_json(self.server.data()))
            elif path.startswith("/match/") and path.count("/") == 3:
                match_id, leaf = path.split("/")[2:4]
                record = self.server.folder / "matches" / match_id
                if len(match_id) > MAX_MATCH_ID or not match_id.isalnum() or not record.is_dir():
                    self._send("text/plain", b"no such match", HTTPStatus.NOT_FOUND)
                elif leaf == "":
                    self._send("text/html; charset=utf-8", page_html().encode())
                elif leaf == "data.json":
                    self._send("application/json", data_json(load_view_data(record)))
                else:
                    self._send("text/plain", b"not found", HTTPStatus.NOT_FOUND)
            elif path == "/favicon.ico":
                self._send("image/x-icon", b"", HTTPStatus.NO_CONTENT)
            else:
                self._send("text/plain", b"not found", HTTPStatus.NOT_FOUND)
        except RecordError as exc:
            self._send("text/plain; charset=utf-8", str(exc).encode(), HTTPStatus.INTERNAL_SERVER_ERROR)

    def _send(self, content_type: str, body: bytes, status: HTTPStatus = HTTPStatus.OK) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        pass


def serve_arena(folder: str | Path, port: int = 0, open_browser: bool = False) -> tuple[str, ArenaServer]:
    """Serve an arena folder's leaderboard page on 127.0.0.1 in a thread; ``(url, server)``."""
    from hexarena.arena.store import ArenaStore

    ArenaStore.existing(folder).close()  # a broken folder fails here, not in the browser
    server = ArenaServer(Path(folder), port)
    threading.Thread(target=server.serve_forever, name="hexarena-arena-viewer", daemon=True).start()
    if open_browser:
        webbrowser.open(server.url)
    return server.url, server
