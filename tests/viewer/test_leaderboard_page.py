"""The arena leaderboard page (``hexarena view ARENA_DIR``) in headless Chromium."""

from __future__ import annotations

import pytest

from hexarena.arena import parse_arena, run_arena
from hexarena.viewer import export_html, serve


@pytest.fixture(scope="module")
def arena_dir(tmp_path_factory):
    config = {
        "name": "page-test",
        "players": [
            {"name": "random", "type": "random"},
            {"name": "heuristic", "type": "heuristic"},
            {"name": "crasher", "type": "callable", "function": "tests.arena.arena_doubles:crash"},
        ],
        "games": [{"name": "hex", "params": {"size": 4}}],
        "max_error_retries": 0,
        "ratings": {"bootstrap": 20},
    }
    folder = tmp_path_factory.mktemp("arena")
    run_arena(parse_arena(config), config, folder)
    return folder


def test_leaderboard_page_links_every_match_to_its_replay(page, arena_dir):
    url, server = serve(arena_dir)
    try:
        page.goto(url)
        page.wait_for_selector("body[data-ready='1']")
        assert page.text_content("#arena") == "page-test"
        assert "2 rated · 4 errors · 0 to play (of 6)" in page.text_content("#summary")
        rows = page.locator("table.board tr.player-row")
        assert rows.count() == 3 and rows.first.get_attribute("data-player") == "heuristic"
        crasher = page.locator("tr.player-row[data-player='crasher'] td")
        assert crasher.nth(5).text_content() == "0" and crasher.nth(9).text_content() == "4"  # games, errors
        assert "hex" in page.text_content("#first-seat")
        page.click("#sections button[data-section='hex']")
        assert page.get_attribute("table.board", "data-section") == "hex"
        assert page.locator("#matches tr.match").count() == 6
        assert page.locator("#matches tr.match.error").count() == 4
        page.select_option("#filter-player", "heuristic")
        assert page.text_content("#match-count") == "4 of 6 matches"
        page.select_option("#filter-player", "")
        done = page.locator("#matches tr.match.done").first
        assert "win:" in done.text_content()
        done.locator("a.replay").click()
        page.wait_for_selector("body[data-ready='1']")
        assert (
            "/match/" in page.url and page.locator("#map .hex").count() == 16 + 16
        )  # 4 x 4 and its labelled frame
        page.keyboard.press("End")
        assert page.locator("#map .own.stone").count() > 0
    finally:
        page.close()
        server.shutdown()
        server.server_close()


def test_exported_leaderboard_links_replay_files(page, arena_dir, tmp_path):
    out = export_html(arena_dir, arena_dir / "leaderboard.html")
    page.goto(out.as_uri())
    page.wait_for_selector("body[data-ready='1']")
    link = page.locator("#matches tr.match.done a.replay").first
    href = link.get_attribute("href")
    assert href.startswith("matches/") and href.endswith("/replay.html")
    link.click()
    page.wait_for_selector("body[data-ready='1']")
    assert page.locator("#map .hex").count() == 16 + 16  # 4 x 4 and its labelled frame
