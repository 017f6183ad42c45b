"""Terra Nova's own streaming recorder (gzip NDJSON of bare deltas) read by the viewer: the real
42x66 map with terrain, rivers, resources, units and fog per player."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

pytest.importorskip("hexarena.games.terranova.view.recorder", reason="Terra Nova's recorder is not there yet")

import jax
import numpy as np

from hexarena.core.frames import decode_frames, fog_digits
from hexarena.games.terranova.engine.mapgen import generate
from hexarena.games.terranova.engine.simulator import build_simulator
from hexarena.games.terranova.view.recorder import Recorder
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
    assert all("fog" not in c for c in frame["cells"])  # fog is stored once per player, not per cell
    unseen = fog_digits(frame["fog"]["red"]).count("0")
    assert page.locator(".fog.unseen").count() == unseen > 0
    settler = next(i for i, c in enumerate(frame["cells"]) if "red:settler" in c.get("icons", []))
    page.hover(f".cell[data-i='{settler}']")
    assert f"({settler // 66}, {settler % 66})" in page.text_content("#tip .tip-head")  # as orders write it
    layers = page.eval_on_selector("#map-root", "root => [...root.children].map((layer) => layer.id)")
    assert layers.index("fog-layer") > layers.index("edges")  # rivers in the dark stay hidden
    page.screenshot(path=str(tmp_path / "terranova.png"))


@pytest.mark.slow
def test_thirty_random_rounds(open_record, tmp_path):
    """Cities, borders and improvements appear as the simulator plays (compiles the simulator)."""
    from hexarena.games.terranova.engine.spaces import random_actions

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


@pytest.fixture(scope="module")
def played_states() -> list:
    """Two rounds of six default (heuristic) players through the adapter, the state after each move."""
    import hexarena

    state = hexarena.make("terranova", seed=2, turn_cap=30)
    states = [state.environment.state]
    for _ in range(12):
        state = state.apply(state.parse_move("pass"))
        states.append(state.environment.state)
    return states


@pytest.fixture(scope="module")
def played_record(tmp_path_factory: pytest.TempPathFactory, played_states: list) -> Path:
    """The two rounds, recorded move by move."""
    out = tmp_path_factory.mktemp("terranova-played")
    with Recorder(out / "frames.jsonl.gz") as rec:
        for state in played_states:
            rec.record_state(state)
    return out


def test_screens_tech_tree_demographics_cities_victory(open_record, played_record, tmp_path):
    data = load_view_data(played_record)
    frames = list(decode_frames(s["delta"] for s in data["steps"]))
    last = frames[-1]
    page = open_record(played_record)
    page.keyboard.press("End")
    assert "round 2" in page.text_content("#status")  # recorder lines carry the step and round
    tabs = page.locator("#screen-tabs .tab").all_text_contents()
    assert tabs == [x["title"] for x in last["screens"]] and "City states" in tabs
    assert page.locator("svg.techtree .tech").count() == 81
    red = last["screen_technologies"]["players"]["red"]
    assert page.locator("svg.techtree .tech.known").count() == len(red["known"]) >= 1
    assert page.locator("svg.techtree .tech.researching").count() == (red["researching"] >= 0)
    assert page.locator("svg.techtree .tech.available").count() >= 1
    page.locator("#screens-sec").screenshot(path=str(tmp_path / "techtree.png"))
    page.select_option("#screen-role", "blue")
    assert page.locator("svg.techtree .tech.known").count() == len(
        last["screen_technologies"]["players"]["blue"]["known"]
    )
    page.click("#screen-tabs .tab:has-text('Demographics')")
    assert page.locator("svg.plot").count() == 6 and page.locator("svg.plot polyline").count() == 36
    page.locator("#screens-sec").screenshot(path=str(tmp_path / "demographics.png"))
    page.click("#screen-tabs .tab:has-text('Cities')")
    cities = last["screen_cities"]["rows"]
    assert len(cities) >= 6 and page.locator("#screen table tr").count() == len(cities) + 1
    page.click("#screen-tabs .tab:has-text('Victory')")
    assert "rival capitals sacked" in page.text_content("#screen")
    page.locator("#screens-sec").screenshot(path=str(tmp_path / "victory.png"))


def test_a_conquerors_long_victory_cell_wraps_and_every_column_stays_in_sight(
    open_record, played_states, tmp_path_factory
):
    """Five sacks with their rounds make a cell of over a hundred characters: in the wide screens
    it wraps (cells stay on one line otherwise) instead of pushing the last columns off screen."""
    out = tmp_path_factory.mktemp("terranova-sacks")
    last = jax.tree_util.tree_map(np.asarray, played_states[-1])
    sacked = np.zeros((6, 6), bool)
    sacked[3, [0, 1, 2, 4, 5]] = True
    conquered = last._replace(players=last.players._replace(has_sacked=sacked))
    with Recorder(out / "frames.jsonl.gz") as rec:
        rec.record_state(last)
        rec.record_state(conquered)
    page = open_record(out)
    page.keyboard.press("End")
    page.click("#screens-wide")
    page.click("#screen-tabs .tab:has-text('Victory')")
    long = page.locator("#screen td.long")
    assert long.count() == 1 and "5 of 5 rival capitals sacked; red's in round" in long.text_content()
    table, box = page.locator("#screen table").bounding_box(), page.locator("#screens-sec").bounding_box()
    assert table["x"] + table["width"] <= box["x"] + box["width"]
    assert page.locator("#screen th:has-text('in the game')").is_visible()


def test_social_policies_screen_shows_adopted_adoptable_and_locked_per_player(open_record, tmp_path):
    import hexarena
    from hexarena.games.terranova.engine.tables import load_tables

    tb = load_tables()
    state = hexarena.make("terranova", seed=2, turn_cap=30)
    for _ in range(6):
        state = state.apply(state.parse_move("pass"))
    sim = state.environment.state
    chosen = [tb.policy("tradition_opener"), tb.policy("legalism")]
    red_two = sim.players._replace(policies=sim.players.policies.at[0, np.array(chosen)].set(True))
    out = tmp_path / "record"
    out.mkdir()
    with Recorder(out / "frames.jsonl.gz") as rec:
        rec.record_state(sim)
        rec.record_state(sim._replace(players=red_two))
    page = open_record(out)
    page.keyboard.press("End")
    page.click("#screen-tabs .tab:has-text('Social policies')")
    assert page.locator("#screen .policy-tree").count() == 9
    assert page.locator("#screen .policy").count() == 54
    tradition = page.locator("#screen .policy-tree").first
    assert tradition.locator(".policy.adopted").all_text_contents() == ["tradition (opener)", "legalism"]
    # open now: Tradition's four other policies (their prerequisites adopted) and the other ancient openers
    assert page.locator("#screen .policy.adoptable").count() == 7
    assert page.locator("#screen .policy.locked").count() == 54 - 2 - 7
    title = page.locator("#screen [data-policy='legalism']").get_attribute("title")
    assert "free monument in the first 4 cities" in title
    page.locator("#screens-sec").screenshot(path=str(tmp_path / "policies.png"))
    page.select_option("#screen-role", "blue")
    assert page.locator("#screen .policy.adopted").count() == 0
    assert page.locator("#screen .policy.adoptable").count() == 4  # the four ancient openers


def test_rivers_across_the_seam_are_drawn(open_record, tmp_path):
    from hexarena.games.terranova.engine.geometry import COLS
    from hexarena.games.terranova.engine.state import map_layers
    from hexarena.games.terranova.engine.step import new_game
    from hexarena.games.terranova.view.recorder import river_edges

    layers = map_layers(generate(0))
    river = np.array(layers.river)
    east_edge = 20 * COLS + COLS - 1  # row 20, last column: its east side is the seam
    river[east_edge] |= 1
    layers = layers._replace(river=river)
    seam = [e for e in river_edges(river) if e["a"] == f"t{east_edge}" and e["side"] == 0]
    assert seam and seam[0]["b"] == f"t{20 * COLS}"
    state = jax.jit(new_game)(jax.tree_util.tree_map(jax.numpy.asarray, layers), jax.random.PRNGKey(0))
    with Recorder(tmp_path / "frames.jsonl.gz") as rec:
        rec.record_state(state)
    page = open_record(tmp_path)
    assert page.locator(".edge-river").count() == len(river_edges(river))
    paths = page.eval_on_selector_all(".edge-river", "els => els.map((e) => e.getAttribute('d'))")
    assert sum(d.count("M") == 2 for d in paths) == len(seam)  # one half on each side of the map


@pytest.fixture(scope="module")
def screens_record(tmp_path_factory: pytest.TempPathFactory, played_states: list) -> tuple[Path, object]:
    """The played position, then the same with content on every screen (screen_helpers)."""
    from tests.terranova.view.screen_helpers import screens_state

    out = tmp_path_factory.mktemp("terranova-screens")
    rich = jax.tree_util.tree_map(np.asarray, screens_state(played_states[-1]))
    with Recorder(out / "frames.jsonl.gz") as rec:
        rec.record_state(played_states[-1])
        rec.record_state(rich)
    return out, rich


def _rows(page, title: str) -> list[str]:
    """The text of each row of the titled section of the screen shown, cells joined by '|'."""
    return page.locator(f"#screen .section[data-title='{title}'] tr").evaluate_all(
        "trs => trs.slice(1).map((tr) => [...tr.cells].map((td) => td.textContent).join('|'))"
    )


def test_religion_trade_and_city_state_screens_name_everything(open_record, screens_record, tmp_path):
    from hexarena.games.terranova.view.screens import city_name

    record, s = screens_record
    page = open_record(record)
    page.keyboard.press("End")
    red_capital, blue_capital = city_name(s, 0, 0), city_name(s, 1, 0)

    page.click("#screen-tabs .tab:has-text('Religion')")
    assert page.locator("#screen .section").count() == 3
    religions = _rows(page, "Religions and pantheons")
    assert len(religions) == 6
    assert religions[0].split("|") == [
        "red",
        "151.5",
        "4 in 2 cities",
        red_capital,
        "god of the sea (pantheon), tithe (founder), choral music (follower), feed the world (follower)",
    ]
    assert religions[1] == "blue|20|1 in 1 city||ancestor worship (pantheon)"
    assert religions[2] == "green|0|none||none"
    beliefs = _rows(page, "Beliefs held")
    assert "tithe|founder|red|+1 gold per 4 followers" in beliefs and len(beliefs) == 5
    followers = _rows(page, "Followers by city")
    assert f"{blue_capital}|3|red 1, blue 1|none" in followers
    assert any(r.startswith("city state 5 (") and r.endswith("|red 2|red") for r in followers)
    page.locator("#screens-sec").screenshot(path=str(tmp_path / "religion.png"))

    page.click("#screen-tabs .tab:has-text('Trade')")
    assert _rows(page, "Deals") == ["red|embassy|blue|5 gold/turn|12 (blue: 11)"]
    assert _rows(page, "Offers awaiting an answer") == ["green|peace|yellow|silk"]
    assert _rows(page, "Net from deals") == ["red|+5|none", "blue|-5|none"]
    routes = _rows(page, "Trade routes")
    assert routes[0] == f"{red_capital}|{blue_capital}|foreign|+4 gold|+2 gold, +0.25 tourism|9"
    assert routes[1].startswith(f"{red_capital}|city state 3 (") and routes[1].endswith(
        "|city state|+1.5 gold|+1.5 influence|14"
    )
    page.locator("#screens-sec").screenshot(path=str(tmp_path / "trade.png"))

    page.click("#screen-tabs .tab:has-text('City states')")
    rows = page.locator("#screen table.citystates tr[data-citystate]")
    assert rows.count() == 12
    first = rows.first
    assert first.locator("td").nth(2).text_content().strip() == "red"
    red, blue = first.locator("rect[data-role='red']"), first.locator("rect[data-role='blue']")
    assert red.get_attribute("class") == "ally" and blue.get_attribute("class") == "friend"
    assert float(red.get_attribute("width")) > float(blue.get_attribute("width")) > 0
    assert first.locator("rect[data-role='green']").get_attribute("width") == "0"
    quest = rows.nth(3).locator("td").nth(1).text_content()
    assert quest == "cultureblue 40"  # the quest, then its leader and the leader's progress
    page.locator("#screens-sec").screenshot(path=str(tmp_path / "citystates.png"))


def test_city_panel_opens_from_the_cities_table_and_the_map(open_record, screens_record, tmp_path):
    from hexarena.games.terranova.view.screens import city_name

    record, s = screens_record
    page = open_record(record)
    page.keyboard.press("End")
    assert page.locator("#pick-sec").is_hidden()
    page.click("#screen-tabs .tab:has-text('Cities')")
    page.click(f"#screen tr[data-cell='t{int(s.cities.pos[0, 0])}']")
    panel = page.locator("#pick-sec")
    assert panel.is_visible()
    assert page.text_content("#pick-title").startswith(f"{city_name(s, 0, 0)}, capital")
    fields = dict(
        page.locator("#pick > table.kv > tr").evaluate_all(
            "trs => trs.map((tr) => [tr.cells[0].textContent, tr.cells[1].textContent])"
        )
    )
    assert fields["specialists"] == "2 scientists"
    assert fields["great works"] == "art 1 of 3 slots"
    assert "university" in fields["buildings"] and "museum" in fields["buildings"]
    assert fields["religion"] == "red 3" and fields["population"] == "4"
    assert page.locator("#screen tr.picked").count() == 1
    assert page.get_attribute("#picked", "d")  # the city is outlined on the map
    page.screenshot(path=str(tmp_path / "city-panel.png"))

    page.click("#pick-title .close")
    assert panel.is_hidden() and not page.get_attribute("#picked", "d")
    blue = int(s.cities.pos[1, 0])
    cell = page.locator(f"#cells .cell[data-i='{blue}']")  # cells are listed in tile order
    box = cell.bounding_box()
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    page.mouse.move(x, y)
    page.mouse.down()
    page.mouse.move(x + 60, y + 40, steps=4)
    page.mouse.up()
    assert panel.is_hidden()  # a drag pans the map, it picks nothing
    cell.click()
    assert panel.is_visible() and page.text_content("#pick-title").startswith(city_name(s, 1, 0))
    page.keyboard.press("Home")  # back to the position before the religion: the panel follows the step
    assert "blue 1" not in page.text_content("#pick")
    page.screenshot(path=str(tmp_path / "city-panel-map.png"))


def test_screens_open_wide_and_the_move_log_reads_as_orders(open_record, tmp_path):
    """Issue 26: a match played through `hexarena play` (a person's orders, a bot's preferences):
    the move log and the status line show orders with (row, col) places, never JSON; the 4X
    screens open wide over the map (the tech tree whole, the tables unwrapped), Esc closes them."""
    from typer.testing import CliRunner

    from hexarena.cli import app

    out = tmp_path / "rec"
    args = ["play", "terranova", "--players", "human" + ",heuristic" * 5, "--seed", "2", "--quiet"]
    answers = "research pottery; unit 0 settle; city 0 build warrior; accept purple\npass\n"
    result = CliRunner().invoke(app, [*args, "-p", "turn_cap=2", "--out", str(out)], input=answers)
    assert result.exit_code == 0, result.output[-2000:]
    page = open_record(out)
    moves = page.locator("#log .entry .move").all_text_contents()
    assert len(moves) >= 12 and not any("{" in m or '"' in m for m in moves), moves
    assert moves[0] == "research pottery; accept purple; unit 0 settle; city 0 build warrior"
    assert "city 0, 1, 2, 3, 4, 5, 6, 7, 8, 9 build " in moves[1]  # one ranking for every slot, said once
    assert re.search(r"unit \d+ (move|settle)", moves[1])  # a bot's preferences, summarised as orders
    page.locator("#log .entry[data-step='1']").click()
    assert "research pottery" in page.text_content("#status") and "{" not in page.text_content("#status")
    page.keyboard.press("End")
    narrow = page.locator("#screens-sec").bounding_box()
    page.click("#screens-wide")
    wide = page.locator("#screens-sec").bounding_box()
    assert "wide" in page.get_attribute("#screens-sec", "class") and wide["width"] > 3 * narrow["width"]
    tree, wrap = page.locator("svg.techtree").bounding_box(), page.locator(".techtree-wrap").bounding_box()
    assert wrap["height"] >= tree["height"]  # the whole tree, no inner scroll
    page.screenshot(path=str(tmp_path / "wide-techtree.png"))
    page.click("#screen-tabs .tab:has-text('Victory')")
    rows = page.locator("#screen table tr")
    heights = {round(rows.nth(i).bounding_box()["height"]) for i in range(rows.count())}
    assert max(heights) < 30  # one line a row: no cell wraps
    page.screenshot(path=str(tmp_path / "wide-victory.png"))
    page.click("#screen-tabs .tab:has-text('Demographics')")
    assert page.locator("svg.plot").first.bounding_box()["width"] > 400
    page.screenshot(path=str(tmp_path / "wide-demographics.png"))
    page.keyboard.press("Escape")
    assert "wide" not in (page.get_attribute("#screens-sec", "class") or "")
