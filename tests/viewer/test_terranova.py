"""Terra Nova's own streaming recorder (gzip NDJSON of bare deltas) read by the viewer: the real
42x66 map with terrain, rivers, resources, units and fog per player."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("hexarena.games.terranova.recorder", reason="Terra Nova's recorder is not there yet")

import jax

from hexarena.core.frames import decode_frames
from hexarena.games.terranova.mapgen import generate
from hexarena.games.terranova.recorder import Recorder
from hexarena.games.terranova.simulator import build_simulator
from hexarena.viewer import load_view_data


@pytest.fixture(scope="module")
def start_record(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The opening position of a generated map, as the recorder writes it."""
    out = tmp_path_factory.mktemp("terranova")
    _step, games, *_ = build_simulator([generate(0)], "duplicate", jax.random.PRNGKey(0))
    with Recorder(out / "frames.jsonl.gz") as rec:
        rec.record(games)
    return out


def test_recorded_map_is_drawn_with_rivers_units_and_fog(open_record, start_record, tmp_path):
    data = load_view_data(start_record)
    (frame,) = decode_frames(s["delta"] for s in data["steps"])
    page = open_record(start_record)
    assert page.text_content("#game") == "Terra Nova"
    assert page.locator("#map .hex").count() == len(frame["cells"]) == 42 * 66
    assert page.locator(".edge-river").count() == len(frame["edges"]) > 0
    assert page.locator(".player").count() == 6
    units = [i for c in frame["cells"] for i in c.get("icons", []) if i.split(":")[0] in data["roles"]]
    assert units  # settlers and warriors, written "role:unit"
    drawn = page.eval_on_selector_all(
        ".cell .icon > :first-child", "els => els.map((e) => e.getAttribute('fill'))"
    )
    assert "#d64541" in drawn  # red's units in red

    roles = page.locator("#fog option").all_text_contents()[1:]
    assert roles == [f"fog: {r}" for r in data["roles"]]
    page.select_option("#fog", "red")
    unseen = sum(1 for c in frame["cells"] if c["fog"]["red"] == 0)
    assert page.locator(".fog.unseen").count() == unseen > 0
    layers = page.eval_on_selector("#map-root", "root => [...root.children].map((layer) => layer.id)")
    assert layers.index("fog-layer") > layers.index("edges")  # rivers in the dark stay hidden
    page.screenshot(path=str(tmp_path / "terranova.png"))


@pytest.mark.slow
def test_thirty_random_rounds(open_record, tmp_path):
    """Cities, borders and improvements appear as the simulator plays (compiles the simulator)."""
    from hexarena.games.terranova.spaces import random_actions

    step, games, tracker, metrics, ids, *_ = build_simulator(
        [generate(0)], "duplicate", jax.random.PRNGKey(0)
    )
    key = jax.random.PRNGKey(1)
    with Recorder(tmp_path / "frames.jsonl.gz") as rec:
        rec.record(games)
        for _ in range(30 * 6):
            key, k = jax.random.split(key)
            games, tracker, metrics, ids, *_ = step(
                games, random_actions(k, games.turn.shape), tracker, metrics, ids
            )
            if int(games.player.reshape(-1)[0]) == 0:
                rec.record(games)
    page = open_record(tmp_path)
    page.keyboard.press("End")
    assert page.locator("#borders .border").count() >= 1
    assert page.locator(".cell .label").count() >= 1  # city populations
    page.screenshot(path=str(tmp_path / "terranova-30.png"))
