"""Every registered game's real record in the browser: a random match through the manager, opened
from the local server, stepped to the end and back. Games that land later are covered by the
generic test as soon as they are registered; games with their own test are checked in detail."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import hexarena
from hexarena.core.frames import decode_frames
from hexarena.core.manager import play_match
from hexarena.core.registry import game_class
from hexarena.viewer import load_view_data

MAX_ROUNDS = 12
#: Games whose match through the manager takes half a minute (Terra Nova compiles its JAX simulator);
#: they run in `make test-all`. Terra Nova's recorder output is opened in test_terranova.py.
SLOW_GAMES = {"terranova"}


def game_record(name: str, out: Path, max_rounds: int = MAX_ROUNDS, **params: object) -> Path:
    """A short random match of ``name`` with its demo parameters (updated by ``params``)."""
    cls = game_class(name)
    params = {**cls.demo_params, **params}
    roles = cls.new(seed=1, **params).all_roles()
    play_match(
        {
            "game": {"name": name, "seed": 7, "params": params},
            "players": [{"type": "random", "seed": i} for i in range(len(roles))],
            "manager": {"max_rounds": max_rounds},
            "output": {"dir": str(out)},
        }
    )
    return out


@pytest.mark.parametrize(
    "name",
    [pytest.param(g, marks=[pytest.mark.slow] if g in SLOW_GAMES else []) for g in hexarena.list_games()],
)
def test_every_game_record_opens_and_steps(open_record, tmp_path, name):
    record = game_record(name, tmp_path / name)
    data = load_view_data(record)
    first = data["steps"][0]["delta"]
    page = open_record(record)
    assert page.locator("#map .hex").count() == len({c["id"] for c in first["cells"]})
    assert page.locator(".player").count() == len(first.get("players", []))
    last = len(data["steps"]) - 1
    page.keyboard.press("End")
    assert page.get_attribute("body", "data-step") == str(last)
    assert page.locator(".entry[data-step]").count() == last
    page.keyboard.press("Home")
    page.keyboard.press("ArrowRight")
    assert page.get_attribute("body", "data-step") == str(min(1, last))
    page.screenshot(path=str(tmp_path / f"{name}.png"))


@pytest.mark.skipif("cityofgold" not in hexarena.list_games(), reason="City of Gold is not registered yet")
def test_city_of_gold_tiles_pawns_blockades_and_shop(open_record, tmp_path):
    record = game_record("cityofgold", tmp_path / "cog", max_rounds=6, n_pieces=2)
    frame = load_view_data(record)["steps"][0]["delta"]
    page = open_record(record)
    pawns = [c for c in frame["cells"] if "pawn" in c.get("icons", [])]
    assert pawns and page.locator(".cell .icon").count() == sum(
        len(c.get("icons", [])) for c in frame["cells"]
    )
    # Pawns are drawn in their owner's colour, the owner's rim around the tile.
    colours = {p.get_attribute("fill") for p in page.locator(".cell:has(.own) .icon > :first-child").all()}
    assert len(colours) == len({c["owner"] for c in pawns})
    assert page.locator(".cell .label").count() == sum(1 for c in frame["cells"] if c.get("label"))
    assert page.get_attribute("#regions", "d")  # board pieces are outlined
    shop = page.locator("section.panel[data-title='Shop'] tr")
    assert shop.count() == len(frame["panels"]["Shop"]) + 1
    assert "cost" in page.locator("section.panel[data-title='Shop'] tr").first.text_content()
    blockades = page.locator("section.panel[data-title='Blockades'] tr")
    assert frame["panels"]["Blockades"] and blockades.count() == len(frame["panels"]["Blockades"]) + 1
    costly = next(i for i, c in enumerate(frame["cells"]) if c.get("info", {}).get("cost"))
    page.hover(f".cell[data-i='{costly}']")
    assert frame["cells"][costly]["info"]["cost"] in page.text_content("#tip")
    page.screenshot(path=str(tmp_path / "cityofgold.png"))
    assert json.loads((record / "result.json").read_text())["game"] == "cityofgold"


@pytest.mark.skipif("smallworld" not in hexarena.list_games(), reason="Small World is not registered yet")
def test_small_world_regions_tokens_markers_and_combo_row(open_record, tmp_path):
    record = game_record("smallworld", tmp_path / "sw", max_rounds=100)
    data = load_view_data(record)
    final = list(decode_frames(s["delta"] for s in data["steps"]))[-1]
    page = open_record(record)
    page.keyboard.press("End")
    cells = final["cells"]
    assert page.locator("#map .hex").count() == len(cells)
    assert page.locator(".cell .label").count() == sum(1 for c in cells if c.get("label"))
    assert page.locator(".cell .icon").count() == sum(min(4, len(c.get("icons", []))) for c in cells)
    assert page.locator(".cell .own").count() == sum(1 for c in cells if c.get("owner"))
    assert page.get_attribute("#regions", "d").count("M") >= len(cells)  # every region outlined
    combos = page.locator("section.panel[data-title='Combo row'] li")
    assert combos.count() == len(final["panels"]["Combo row"])
    assert page.locator("#chart .series").count() == len(final["players"])
    # decode_frames keeps cells in order of first appearance, as the page numbers them.
    owned = next(i for i, c in enumerate(cells) if c.get("owner"))
    page.hover(f".cell[data-i='{owned}']")
    assert cells[owned]["info"]["race"] in page.text_content("#tip")
    page.screenshot(path=str(tmp_path / "smallworld.png"))

    # [ and ] jump between players' turns: a turn starts where the mover changes.
    movers = [step["role"] for step in data["steps"]]
    starts = [s for s in range(1, len(movers)) if movers[s] != movers[s - 1]]
    long_turn = next(k for k in range(1, len(starts) - 1) if starts[k + 1] - starts[k] > 1)
    page.keyboard.press("Home")
    for expected in starts[: long_turn + 1]:
        page.keyboard.press("]")
        assert page.get_attribute("body", "data-step") == str(expected)
    page.keyboard.press("ArrowRight")  # inside the turn: [ goes back to its start, then to the one before
    page.keyboard.press("[")
    assert page.get_attribute("body", "data-step") == str(starts[long_turn])
    page.keyboard.press("[")
    assert page.get_attribute("body", "data-step") == str(starts[long_turn - 1])
