"""Terra Nova's own streaming recorder (gzip NDJSON of bare deltas) read by the viewer: the real
42x66 map with terrain, rivers, resources, units and fog per player."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("hexarena.games.terranova.recorder", reason="Terra Nova's recorder is not there yet")

import jax
import numpy as np

from hexarena.core.frames import decode_frames, fog_digits
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
    assert all("fog" not in c for c in frame["cells"])  # fog is stored once per player, not per cell
    unseen = fog_digits(frame["fog"]["red"]).count("0")
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


@pytest.fixture(scope="module")
def played_record(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two rounds of six default (heuristic) players through the adapter, recorded move by move."""
    import hexarena

    out = tmp_path_factory.mktemp("terranova-played")
    state = hexarena.make("terranova", seed=2, turn_cap=30)
    with Recorder(out / "frames.jsonl.gz") as rec:
        rec.record_state(state.environment.state)
        for _ in range(12):
            state = state.apply(state.parse_move("pass"))
            rec.record_state(state.environment.state)
    return out


def test_screens_tech_tree_demographics_cities_victory(open_record, played_record, tmp_path):
    data = load_view_data(played_record)
    frames = list(decode_frames(s["delta"] for s in data["steps"]))
    last = frames[-1]
    page = open_record(played_record)
    page.keyboard.press("End")
    assert "round 2" in page.text_content("#status")  # recorder lines carry the step and round
    tabs = page.locator("#screen-tabs .tab").all_text_contents()
    assert tabs == ["Technologies", "Social policies", "Demographics", "Cities", "Victory"]
    assert page.locator("svg.techtree .tech").count() == 81
    red = last["screens"][0]["players"]["red"]
    assert page.locator("svg.techtree .tech.known").count() == len(red["known"]) >= 1
    assert page.locator("svg.techtree .tech.researching").count() == (red["researching"] >= 0)
    assert page.locator("svg.techtree .tech.available").count() >= 1
    page.locator("#screens-sec").screenshot(path=str(tmp_path / "techtree.png"))
    page.select_option("#screen-role", "blue")
    assert page.locator("svg.techtree .tech.known").count() == len(
        last["screens"][0]["players"]["blue"]["known"]
    )
    page.click("#screen-tabs .tab:has-text('Demographics')")
    assert page.locator("svg.plot").count() == 6 and page.locator("svg.plot polyline").count() == 36
    page.locator("#screens-sec").screenshot(path=str(tmp_path / "demographics.png"))
    page.click("#screen-tabs .tab:has-text('Cities')")
    cities = last["screens"][3]["rows"]
    assert len(cities) >= 6 and page.locator("#screen table tr").count() == len(cities) + 1
    page.click("#screen-tabs .tab:has-text('Victory')")
    assert "rival capitals sacked" in page.text_content("#screen")
    page.locator("#screens-sec").screenshot(path=str(tmp_path / "victory.png"))


def test_social_policies_screen_shows_adopted_adoptable_and_locked_per_player(open_record, tmp_path):
    import hexarena
    from hexarena.games.terranova.tables import load_tables

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
    from hexarena.games.terranova.geometry import COLS
    from hexarena.games.terranova.recorder import river_edges
    from hexarena.games.terranova.state import map_layers
    from hexarena.games.terranova.step import new_game

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
