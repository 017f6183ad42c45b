"""The replay page: one HTML document with the viewer's CSS and JS inlined (no CDN, no build).

The exported file also inlines the record's data, gzipped and base64-encoded (a 300-round Terra
Nova record is 20 MB of JSON but under 2 MB packed; the page unpacks it with the browser's own
``DecompressionStream``), so it opens offline from a ``file://`` URL. The local server leaves the
data out and the page fetches ``data.json`` instead.
"""

from __future__ import annotations

import base64
import gzip
import json
from importlib.resources import files
from pathlib import Path
from typing import Any

from hexarena.viewer.record import load_view_data

_STATIC = files("hexarena.viewer") / "static"
#: The page's script, in order: the vocabulary, then the viewer's five parts.
SCRIPTS = ("palette.js", "model.js", "map.js", "panels.js", "screens.js", "app.js")


def _asset(name: str) -> str:
    return (_STATIC / name).read_text(encoding="utf-8")


def data_json(data: dict[str, Any]) -> bytes:
    """The page's data as compact UTF-8 JSON. A lone surrogate (a reply cut mid-emoji) can only
    sit inside a JSON string, so it is written as its ``\\uXXXX`` escape: the same string in JS."""
    return json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode("utf-8", "backslashreplace")


def pack(data: dict[str, Any]) -> str:
    """The data as the page inlines it: gzip, then base64 (which no record text can break out of)."""
    return base64.b64encode(gzip.compress(data_json(data), compresslevel=6)).decode("ascii")


def page_html(data: dict[str, Any] | None = None) -> str:
    """The viewer page; with ``data`` inlined when given (from :func:`load_view_data`)."""
    inline = "" if data is None else pack(data)
    # The data goes in last, so that nothing inside a record is ever taken for a marker.
    html = _asset("viewer.html")
    for marker, text in (
        ("/*__CSS__*/", _asset("viewer.css")),
        ("/*__JS__*/", "\n".join(_asset(name) for name in SCRIPTS)),
        ("/*__DATA__*/", inline),
    ):
        html = html.replace(marker, text, 1)
    return html


def export_replay(record_dir: str | Path, out_path: str | Path) -> Path:
    """Write one self-contained HTML replay of the match record ``record_dir`` to ``out_path``."""
    out = Path(out_path)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(page_html(load_view_data(record_dir)), encoding="utf-8")
    return out
