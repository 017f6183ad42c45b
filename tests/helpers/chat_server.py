"""A tiny OpenAI-compatible chat-completions server on loopback, scripted by the test.

A responder gets the request body and returns ``(status, payload)`` or ``(status, payload,
headers)``; a str payload is sent as the raw body. It may also return :data:`HANG` (hold the
request until the server stops) or :data:`CLOSE` (drop the connection without answering).
Ready-made responders: :func:`chat_answer`, :func:`tool_answer`, :func:`error`, :func:`script`.
"""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Callable, Iterable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Responder = Callable[[dict[str, Any]], Any]
HANG = "hang"
CLOSE = "close"


def chat_answer(text: str, prompt_tokens: int = 10, completion_tokens: int = 3) -> tuple[int, dict[str, Any]]:
    """A normal text answer with token usage."""
    return 200, {
        "id": "x",
        "object": "chat.completion",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
        },
    }


def tool_answer(arguments: str) -> tuple[int, dict[str, Any]]:
    """An answer that calls ``make_move`` with these (JSON text) arguments."""
    status, body = chat_answer("")
    call = {"id": "c1", "type": "function", "function": {"name": "make_move", "arguments": arguments}}
    body["choices"][0]["message"] = {"role": "assistant", "content": None, "tool_calls": [call]}
    return status, body


def error(status: int, message: str, **headers: str) -> tuple[int, dict[str, Any], dict[str, str]]:
    """An OpenAI-style error body (``{"error": {"message": ...}}``) with optional headers."""
    return (
        status,
        {"error": {"message": message, "type": "test"}},
        {k.replace("_", "-"): v for k, v in headers.items()},
    )


def script(answers: Iterable[Any], then: Responder | None = None) -> Responder:
    """Answer from a list in order (each item a response or a responder), then ``then``."""
    queue = list(answers)

    def responder(body: dict[str, Any]) -> Any:
        item = queue.pop(0) if queue else then
        if item is None:
            raise AssertionError("the scripted server ran out of answers")
        return item(body) if callable(item) else item

    return responder


class ChatServer:
    """``with ChatServer(responder) as srv:`` serves at ``srv.base_url``.

    ``srv.requests`` logs the bodies and ``srv.headers`` the headers (names in lower case).
    """

    def __init__(self, responder: Responder) -> None:
        self.responder = responder
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self.stopping = threading.Event()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"  # keep-alive, as real servers

            def setup(self) -> None:
                super().setup()  # no Nagle delay between the header and the body writes
                self.request.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                outer.requests.append(body)
                outer.headers.append({k.lower(): v for k, v in self.headers.items()})
                answer = outer.responder(body)
                if answer == HANG:
                    outer.stopping.wait(60)
                    self.close_connection = True
                    return
                if answer == CLOSE:
                    self.close_connection = True
                    return
                status, payload, *extra = answer
                data = payload.encode() if isinstance(payload, str) else json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for key, value in (extra[0] if extra else {}).items():
                    self.send_header(key, value)
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: Any) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self.base_url = f"http://127.0.0.1:{self._server.server_address[1]}/v1"
        self.url = f"{self.base_url}/chat/completions"

    def __enter__(self) -> ChatServer:
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stopping.set()
        self._server.shutdown()
        self._server.server_close()
