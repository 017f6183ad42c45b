"""The replay page in a real headless Chromium: what it draws, lists and does when stepped.

Every test fails on a console error (see the ``page`` fixture). Screenshots go to pytest's
temporary directory."""

from __future__ import annotations

import json
import time

from playwright.sync_api import Page

from hexarena.core.frames import FrameEncoder, header
from hexarena.viewer import export_html

from .viewer_records import REPLY_WITH_MARKUP, write_synthetic


def step_of(page: Page) -> int:
    return int(page.get_attribute("body", "data-step"))


def count(page: Page, selector: str) -> int:
    return page.locator(selector).count()


def test_hex_record_steps_forward_and_back(open_record, records, tmp_path):
    page = open_record(records["hex"])
    moves = [json.loads(line) for line in (records["hex"] / "turns.jsonl").read_text().splitlines()]
    moves = [e for e in moves if e["event"] == "move"]
    # 25 cells, framed by 4 x 5 labelled edge cells (a-e above and below, 1-5 left and right)
    assert count(page, "#map .hex") == 25 + 20 and count(page, "#map .own") == 0
    assert count(page, "#map .cell .label") == 20
    assert page.text_content("#status").startswith(f"Step 0 / {len(moves)}")
    assert page.locator(".player").all_text_contents()[0].startswith("red")

    page.keyboard.press("ArrowRight")
    assert step_of(page) == 1 and count(page, "#map .own.stone") == 1
    assert moves[0]["text"] in page.text_content("#status")
    page.click("#btn-next")
    page.click("#btn-next")
    assert step_of(page) == 3 and count(page, "#map .own.stone") == 3
    page.click("#btn-prev")
    assert step_of(page) == 2 and count(page, "#map .own.stone") == 2
    page.keyboard.press("ArrowLeft")
    assert step_of(page) == 1
    page.keyboard.press("End")
    last = len(moves)
    assert step_of(page) == last and count(page, "#map .own.stone") == last
    red = sum(1 for m in moves if m["role"] == "red")
    assert count(page, "#map .own.stone[fill='#d64541']") == red
    assert page.locator(".entry.current .move").text_content() == moves[-1]["text"]
    page.click("#btn-first")
    assert step_of(page) == 0 and count(page, "#map .own") == 0
    page.keyboard.press("Shift+ArrowRight")
    assert step_of(page) == min(10, last)
    page.locator(".entry[data-step='4']").click()
    assert step_of(page) == 4
    page.screenshot(path=str(tmp_path / "hex.png"))


def test_play_pause_and_speed(open_record, records):
    page = open_record(records["large"])  # 300 steps: playing never reaches the end here
    page.select_option("#speed", "32")
    page.keyboard.press("Space")
    page.wait_for_function("Number(document.body.dataset.step) >= 3")
    page.click("#btn-play")
    stopped = step_of(page)
    page.wait_for_timeout(150)
    assert step_of(page) == stopped and page.get_attribute("body", "data-playing") == ""
    page.keyboard.press("-")
    assert page.input_value("#speed") == "16"
    page.click("#btn-play")  # the button gives the keyboard back: Space pauses, it does not click again
    page.keyboard.press("Space")
    assert page.get_attribute("body", "data-playing") == ""


def test_move_log_shows_llm_replies_and_rejections(open_record, records):
    page = open_record(records["rejected"])
    first = page.locator(".entry[data-step='1']")
    rejected = first.locator(".attempt.rejected")
    assert rejected.count() == 1
    assert "illegal" in rejected.text_content() and "off the board" in rejected.text_content()
    rejected.locator("summary").click()
    assert "Let me play z9" in rejected.locator("pre").text_content()
    accepted = first.locator(".attempt.accepted")
    accepted.locator("summary").click()
    assert REPLY_WITH_MARKUP in accepted.locator("pre").text_content()
    assert "[tokens: 20]" in accepted.locator("pre").text_content()
    assert step_of(page) == 0  # opening a reply does not jump
    assert "Game over" in page.text_content(".entry:last-child")
    assert page.text_content("#log-summary") == "· 1 rejected (red 1)"
    page.check("#only-problems")
    assert page.locator(".entry:visible").count() == 1
    page.keyboard.press("ArrowRight")  # the checkbox gave the keyboard back
    assert step_of(page) == 1 and page.get_attribute(".player[data-role='red']", "class") == "player moved"


def test_regions_icons_edges_panels_and_hover(open_record, records, tmp_path):
    page = open_record(records["synthetic"])
    assert count(page, "#map .hex") == 48
    assert page.get_attribute("#regions", "d").count("M") > 20
    assert count(page, ".edge-river") == 6 and count(page, ".edge-wall_of_fire") == 1
    first = page.locator(".cell[data-i='0']")
    assert first.locator(".icon").count() == 4 and first.locator(".more").text_content() == "+1"
    assert count(page, ".cell .label") == 0
    page.keyboard.press("End")
    assert count(page, ".cell .label") == 3 and count(page, ".cell .icon-t:text('w')") == 3
    assert count(page, "#map .own.ring") >= 3

    shop = page.locator("section.panel[data-title='Shop'] tr")
    assert shop.count() == 3 and "Pioneer" in shop.nth(2).text_content()
    assert "round11" in page.locator("section.panel[data-title='Market']").text_content().replace(" ", "")
    red = page.locator(".player[data-role='red']")
    assert "coins" in red.text_content() and "Elves, Trolls" in red.text_content()

    assert count(page, "#chart .series") == 3
    box = page.locator("#chart").bounding_box()
    page.mouse.click(box["x"] + box["width"] * 0.5, box["y"] + box["height"] / 2)
    assert 3 <= step_of(page) <= 8

    page.click("#key-sec summary")
    key = page.locator("#map-key .key-name").all_text_contents()
    assert {"mystery_bog", "forest", "troll_lair", "warrior", "river", "wall_of_fire"} <= set(key)

    page.hover(".cell[data-i='9']")
    tip = page.locator("#tip")
    assert tip.is_visible() and "cell 1,1" in tip.text_content() and "region" in tip.text_content()
    assert page.get_attribute("#hover", "d").count("M") >= 6  # the whole region is outlined
    page.screenshot(path=str(tmp_path / "synthetic.png"))
    page.mouse.move(1, 1)
    assert not tip.is_visible()


def test_fog_of_war_per_player(open_record, records):
    page = open_record(records["synthetic"])
    options = page.locator("#fog option").all_text_contents()
    assert options == ["fog: off (all visible)", "fog: red", "fog: blue", "fog: p3"]
    assert count(page, ".fog") == 0
    page.select_option("#fog", "red")
    assert count(page, ".fog.unseen") == 48
    page.keyboard.press("End")
    revealed = 48 - count(page, ".fog.unseen")
    assert 1 <= revealed <= 4  # red's unit stood on at most four cells
    page.keyboard.press("f")
    assert page.input_value("#fog") == "blue"
    page.keyboard.press("f")
    page.keyboard.press("f")
    assert page.input_value("#fog") == "" and count(page, ".fog") == 0


def test_large_streamed_record_opens_and_seeks(open_record, records, tmp_path):
    started = time.perf_counter()
    page = open_record(records["large"])
    opened = time.perf_counter() - started
    assert count(page, "#map .hex") == 66 * 42
    page.keyboard.press("End")
    assert page.text_content("#status").startswith("Step 300 / 300")
    page.fill("#slider", "150")
    assert step_of(page) == 150 and count(page, ".entry") == 300
    print(f"large record (2772 cells, 301 steps) opened in {opened:.2f}s")
    page.screenshot(path=str(tmp_path / "large.png"))


def test_exported_html_works_offline_from_a_file(page, records, tmp_path):
    out = export_html(records["rejected"], tmp_path / "replay.html")
    requested: list[str] = []

    def block(route):
        requested.append(route.request.url)
        if route.request.url.startswith("file://"):
            route.continue_()
        else:
            route.abort()

    page.route("**/*", block)
    page.goto(out.as_uri())
    page.wait_for_selector("body[data-ready='1']")
    assert requested == [out.as_uri()]
    assert count(page, "#map .hex") == 16 + 16  # 4 x 4 and its labelled frame
    page.keyboard.press("End")
    accepted = page.locator(".entry[data-step='1'] .attempt.accepted")
    accepted.locator("summary").click()
    assert REPLY_WITH_MARKUP in accepted.locator("pre").text_content()


def test_bare_gzip_record_in_an_exported_page(page, records, tmp_path):
    out = export_html(records["bare"], tmp_path / "bare.html")
    page.goto(out.as_uri())
    page.wait_for_selector("body[data-ready='1']")
    page.keyboard.press("End")
    assert step_of(page) == 11 and count(page, ".entry") == 0
    assert page.text_content("#outcome") == "frames only (no moves log, no result)"


def test_territory_borders_in_the_terra_nova_style(open_record, tmp_path):
    record = write_synthetic(tmp_path / "tn", width=10, height=8, steps=20, game="terranova")
    page = open_record(record)
    assert page.text_content("#game") == "Terra Nova"
    assert count(page, "#borders .border") == 0
    page.keyboard.press("End")
    owners = page.eval_on_selector_all("#borders .border", "paths => paths.map((p) => p.dataset.owner)")
    assert sorted(owners) == ["blue", "p3", "red"]
    assert count(page, ".cell .own.tint") == count(page, ".cell:has(.own)") >= 3
    assert count(page, ".cell .own.ring") == 0


def test_odd_frames_are_drawn_without_errors(open_record, tmp_path):
    """Flat layout, a cell without coordinates, icon objects, dangling edges, sparse panels."""
    cells = [
        {
            "id": "a",
            "q": 0,
            "r": 0,
            "terrain": "volcano",
            "label": 0,
            "icons": [{"name": "city", "owner": "blue", "label": "3"}],
        },
        {
            "id": "b",
            "q": 1,
            "r": 0,
            "terrain": None,
            "owner": "green",
            "fog": {"blue": 1},
            "info": {"units": [{"kind": "tank"}]},
        },
        {"id": "c", "terrain": "plains"},
    ]
    frame = {
        "layout": "flat",
        "cells": cells,
        "edges": [{"a": "a", "b": "b", "kind": "canal"}, {"a": "a", "b": "zz", "kind": "river"}],
        "players": [{"role": "blue"}, {"role": "green", "score": 2}],
        "panels": {"Empty": [], "Note": "hello", "Mixed": [1, "two", {"three": 3}]},
    }
    frames = [{"step": 0, "delta": FrameEncoder().encode(frame)}]
    record = tmp_path / "odd"
    record.mkdir()
    lines = [header("odd", roles=["blue", "green"]), *frames]
    (record / "frames.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))
    page = open_record(record)
    assert count(page, "#map .hex") == 2 and count(page, ".edge-canal") == 1
    assert "without numeric q and r" in page.text_content("#warnings")
    assert page.text_content(".cell[data-i='0'] .label") == "0"
    assert page.text_content(".cell[data-i='0'] .icon-t") == "3"
    assert page.text_content("section.panel[data-title='Empty']") == "Emptynone"
    page.hover(".cell[data-i='1']")
    assert "tank" in page.text_content("#tip") and "blue: seen" in page.text_content("#tip")


def test_a_running_match_is_followed(open_record, tmp_path):
    record = write_synthetic(tmp_path / "live", steps=3)  # no result.json: still running

    def play_on(steps: int) -> None:
        """The record grows (replaced whole, so the server never reads a half-written file)."""
        grown = write_synthetic(tmp_path / f"grown{steps}", steps=steps) / "frames.jsonl"
        grown.replace(record / "frames.jsonl")

    page = open_record(record)
    page.keyboard.press("End")
    assert page.text_content("#status").startswith("Step 2 / 2")
    play_on(6)
    page.wait_for_function("document.body.dataset.step === '5'", timeout=10_000)
    assert page.text_content("#status").startswith("Step 5 / 5") and count(page, ".entry") == 5
    page.keyboard.press("Home")
    play_on(8)
    page.wait_for_function("document.getElementById('slider').max === '7'", timeout=10_000)
    assert step_of(page) == 0  # a viewer looking back is left where it is
