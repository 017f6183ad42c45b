"""A small local server for the replay page (standard library only, bound to 127.0.0.1).

``GET /`` is the page, ``GET /data.json`` the record, read again whenever one of its files has
changed and sent gzipped to browsers. While a record has no result yet (the match is running),
the page asks again every two seconds with the last ETag and follows the new moves.
"""

from __future__ import annotations

import gzip
import hashlib
import threading
import webbrowser
from contextlib import suppress
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from hexarena.core.errors import RecordError
from hexarena.viewer.local import client_went_away, refuse_foreign_host
from hexarena.viewer.page import data_json, page_html
from hexarena.viewer.record import find_frames, load_view_data


class ViewerServer(ThreadingHTTPServer):
    """Serves one record; ``serve_forever()`` runs until ``shutdown()``."""

    daemon_threads = True

    def __init__(self, record_dir: Path, port: int) -> None:
        self.record_dir = record_dir
        self._cache: tuple[object, str, bytes] | None = None
        self._lock = threading.Lock()
        super().__init__(("127.0.0.1", port), _Handler)

    def warm_up(self) -> None:
        with suppress(RecordError):  # reported to the page when it asks for the data
            self.data()

    def data(self) -> tuple[str, bytes]:
        """The record's data as JSON and its ETag, rebuilt only when a file of the record changed."""
        key = self._files_key()
        with self._lock:
            if self._cache is None or self._cache[0] != key:
                etag = '"' + hashlib.sha1(repr(key).encode()).hexdigest()[:16] + '"'
                self._cache = (key, etag, data_json(load_view_data(self.record_dir)))
            return self._cache[1], self._cache[2]

    def _files_key(self) -> list[tuple[str, int, int]]:
        """Name, modification time and size of the record's files (a file that vanishes is skipped)."""
        folder = self.record_dir if self.record_dir.is_dir() else self.record_dir.parent
        key = []
        for path in folder.iterdir():
            with suppress(OSError):
                st = path.stat()
                key.append((path.name, st.st_mtime_ns, st.st_size))
        return sorted(key)

    @property
    def url(self) -> str:
        host, port = self.server_address[:2]
        return f"http://{host}:{port}/"

    def handle_error(self, request: object, client_address: object) -> None:
        if not client_went_away():  # a closed tab is no error worth a traceback
            super().handle_error(request, client_address)


class _Handler(BaseHTTPRequestHandler):
    server: ViewerServer

    def do_GET(self) -> None:
        if refuse_foreign_host(self):
            return
        path = self.path.split("?", 1)[0]
        if path in ("/", "/index.html"):
            self._send(HTTPStatus.OK, "text/html; charset=utf-8", page_html().encode())
        elif path == "/data.json":
            try:
                etag, body = self.server.data()
            except RecordError as exc:
                self._send(HTTPStatus.INTERNAL_SERVER_ERROR, "text/plain; charset=utf-8", str(exc).encode())
                return
            if self.headers.get("If-None-Match") == etag:
                self._send(HTTPStatus.NOT_MODIFIED, "application/json", b"", etag=etag)
                return
            zipped = "gzip" in self.headers.get("Accept-Encoding", "")
            body = gzip.compress(body, 1) if zipped else body
            self._send(HTTPStatus.OK, "application/json", body, etag=etag, zipped=zipped)
        elif path == "/favicon.ico":
            self._send(HTTPStatus.NO_CONTENT, "image/x-icon", b"")
        else:
            self._send(HTTPStatus.NOT_FOUND, "text/plain; charset=utf-8", b"not found")

    def _send(
        self,
        status: HTTPStatus,
        content_type: str,
        body: bytes,
        etag: str | None = None,
        zipped: bool = False,
    ) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        if etag:
            self.send_header("ETag", etag)
        if zipped:
            self.send_header("Content-Encoding", "gzip")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:  # quiet: the CLI prints the URL only
        pass


def serve(
    record_dir: str | Path, port: int = 0, open_browser: bool = False
) -> tuple[str, ThreadingHTTPServer]:
    """Serve the replay of ``record_dir`` on 127.0.0.1 (``port=0``: any free port) in a thread.

    Returns ``(url, server)``; the server runs until ``server.shutdown()``. The record is checked
    first, so a wrong path fails here rather than in the browser.
    """
    record = Path(record_dir)
    from hexarena.viewer.arena import is_arena, serve_arena

    if is_arena(record):  # an arena folder: its leaderboard page, linking every match's replay
        return serve_arena(record, port, open_browser)
    find_frames(record)
    server = ViewerServer(record, port)
    threading.Thread(target=server.serve_forever, name="hexarena-viewer", daemon=True).start()
    # Read the record now, while the user opens the URL (a 300-round record takes a second or two).
    threading.Thread(target=server.warm_up, name="hexarena-viewer-warm-up", daemon=True).start()
    if open_browser:
        webbrowser.open(server.url)
    return server.url, server
