"""Shared fixtures: one headless Chromium for all viewer tests, pages that fail on console errors,
and the records the tests open (made once per session)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, sync_playwright

from hexarena.viewer import serve

from .viewer_records import hex_record, hex_record_with_rejection, write_synthetic

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


@pytest.fixture(scope="session")
def browser() -> Iterator[Browser]:
    if not Path(CHROMIUM).exists():
        pytest.skip(f"{CHROMIUM} missing: scripts/setup-system.sh (make test) installs Debian's chromium")
    with sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    """A fresh page; the test fails if the page logged any console error or threw."""
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    pg = context.new_page()
    errors: list[str] = []
    pg.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
    pg.on("pageerror", lambda exc: errors.append(str(exc)))
    yield pg
    context.close()
    assert not errors, f"console errors: {errors}"


@pytest.fixture(scope="session")
def records(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    base = tmp_path_factory.mktemp("records")
    return {
        "hex": hex_record(base / "hex"),
        "rejected": hex_record_with_rejection(base / "rejected"),
        "synthetic": write_synthetic(base / "synthetic"),
        "bare": write_synthetic(base / "bare", gz=True, bare=True),
        # Terra Nova's map size: 42 rows of 66 columns, 300 rounds, streamed as gzip NDJSON.
        "large": write_synthetic(base / "large", width=66, height=42, steps=301, gz=True),
    }


@pytest.fixture
def open_record(page: Page) -> Iterator[Callable[[Path], Page]]:
    """Serve a record and open it; returns the page once the viewer says it is ready."""
    servers = []

    def _open(record: Path) -> Page:
        url, server = serve(record)
        servers.append(server)
        page.goto(url)
        page.wait_for_selector("body[data-ready='1']")
        return page

    yield _open
    page.close()  # before the servers go: a page following a running match would log failed requests
    for server in servers:
        server.shutdown()
        server.server_close()
