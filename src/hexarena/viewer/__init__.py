"""The browser replay viewer: serve a match record on localhost, or export it as one HTML file.

``serve(record)`` returns ``(url, server)`` with the server running in a thread until
``server.shutdown()``; ``export_html(record, "replay.html")`` writes a self-contained page that
works offline. See docs/viewer.md.
"""

from hexarena.viewer.export import export_html
from hexarena.viewer.page import page_html
from hexarena.viewer.record import load_view_data
from hexarena.viewer.server import serve

__all__ = ["export_html", "load_view_data", "page_html", "serve"]
