"""What the viewer's local servers share: they answer only requests addressed to this machine,
and a browser that closes the connection early is no error.

A page on another site can make the browser send requests to ``127.0.0.1`` under its own name (DNS
rebinding): such a request carries that site's name in its ``Host`` header, so a server that
answers only local host names (as Jupyter and Django's ``ALLOWED_HOSTS`` do) gives it nothing.
"""

from __future__ import annotations

import ipaddress
import sys
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler
from urllib.parse import urlsplit

#: Host names that mean this machine (besides the loopback addresses).
LOCAL_NAMES = ("localhost",)


def is_local_host(host: str | None) -> bool:
    """Whether a ``Host`` header names this machine (a missing one, from HTTP/1.0, does)."""
    if host is None:
        return True
    try:
        name = urlsplit(f"//{host}").hostname
    except ValueError:
        return False
    if not name:
        return False
    if name in LOCAL_NAMES or name.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def refuse_foreign_host(handler: BaseHTTPRequestHandler) -> bool:
    """Answer 403 to a request whose ``Host`` is not this machine; True if it was refused."""
    host = handler.headers.get("Host")
    if is_local_host(host):
        return False
    body = (
        f"refused: Host {host!r} is not this machine; the viewer answers only localhost and "
        "loopback addresses (a guard against DNS rebinding)"
    ).encode()
    handler.send_response(HTTPStatus.FORBIDDEN)
    handler.send_header("Content-Type", "text/plain; charset=utf-8")
    handler.send_header("Content-Length", str(len(body)))
    handler.end_headers()
    handler.wfile.write(body)
    return True


def client_went_away() -> bool:
    """Whether the exception being handled is a client that closed the connection early."""
    return isinstance(sys.exc_info()[1], ConnectionError)
