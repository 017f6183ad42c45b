"""The streaming recorder writes gzip NDJSON frames the viewer decodes."""

from __future__ import annotations

import gzip
import json

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from hexarena.core.frames import check_header, fog_digits
from hexarena.games.terranova.engine.mapgen import generate
from hexarena.games.terranova.engine.rules.units import found_city
from hexarena.games.terranova.engine.state import map_layers
from hexarena.games.terranova.engine.step import new_game
from hexarena.games.terranova.engine.tables import ROLES
from hexarena.games.terranova.view.recorder import Recorder, read_replay, river_edges, select_game


def test_record_and_read_back(tmp_path):
    m = generate(4)
    s = jax.jit(new_game)(jax.tree_util.tree_map(jnp.asarray, map_layers(m)), jax.random.PRNGKey(0))
    batched = jax.tree_util.tree_map(lambda x: jnp.asarray(x)[None, None], s)
    path = tmp_path / "game.ndjson.gz"
    with Recorder(path, seed=4) as rec:
        rec.record(batched)
        later = found_city(s, jnp.int32(2), jnp.int32(m.starts[2]))
        rec.record_state(jax.tree_util.tree_map(np.asarray, later))
        assert rec.frames == 2
    head, frames = read_replay(path)
    check_header(head)
    assert head["roles"] == list(ROLES) and head["seed"] == 4 and len(frames) == 2
    first, second = frames
    assert len(first["cells"]) == 2772 and first["layout"] == "pointy"
    cells = {c["id"]: c for c in second["cells"]}
    city = cells[f"t{m.starts[2]}"]
    assert city["owner"] == "green" and "capital" in city["icons"] and city["label"] == "1"
    assert any("warrior" in i for c in first["cells"] for i in c.get("icons", ()))
    assert set(first["fog"]) == set(ROLES) and all(len(fog_digits(f)) == 2772 for f in first["fog"].values())
    assert second["edges"] == river_edges(m.river) and len(second["edges"]) > 10
    assert select_game(batched).turn == 0


@pytest.mark.slow  # compiles build_simulator again; GameStateRecorder's API is tested below, the
# simulator's quick start by test_quickstart
def test_spec_recorder_snippet_runs_as_written(tmp_path):
    """The spec's GameStateRecorder loop, over the batched simulator, read back by the viewer."""
    from hexarena.games.terranova.engine.simulator import build_simulator
    from hexarena.games.terranova.engine.spaces import random_actions
    from hexarena.games.terranova.view.recorder import GameStateRecorder
    from hexarena.viewer import load_view_data

    env_step_fn, games, obs_spaces, episode_metrics, players_turn_id, _obs, _mesh, _sh = build_simulator(
        [generate(4), generate(5)], "duplicate", jax.random.PRNGKey(0)
    )
    device_idx, games_idx, num_steps = 0, 1, 2
    gamestate = jax.tree_util.tree_map(lambda x: x[device_idx][games_idx], games)
    recorder = GameStateRecorder.create(reference_gamestate=gamestate, num_steps=num_steps)
    recorder = recorder.record(gamestate)
    key = jax.random.PRNGKey(1)
    for _recording_int in range(num_steps):
        for _agent_step in range(6):
            key, sub = jax.random.split(key)
            actions = random_actions(sub, games.turn.shape)
            games, obs_spaces, episode_metrics, players_turn_id, *_ = env_step_fn(
                games, actions, obs_spaces, episode_metrics, players_turn_id
            )
            gamestate = jax.tree_util.tree_map(lambda x: x[device_idx][games_idx], games)
            recorder = recorder.record(gamestate)
    path = recorder.save_replay(tmp_path / "saved_games" / "game.jsonl.gz")
    head, frames = read_replay(path)
    assert head["num_steps"] == 2 and len(frames) == 1 + 6 * num_steps
    view = load_view_data(path)
    steps = view["steps"]
    assert [s["round"] for s in steps] == [0] * 6 + [1] * 6 + [2]  # the round ends after orange
    assert steps[0]["role"] is None and steps[1]["role"] == "red" and steps[6]["role"] == "orange"
    assert recorder.save_replay(tmp_path / "again.jsonl.gz").read_bytes()  # recording may go on
    with pytest.raises(ValueError, match="one game"):
        GameStateRecorder.create(reference_gamestate=games, num_steps=3)


def test_recorder_memory_does_not_grow_with_num_steps():
    from hexarena.games.terranova.view.recorder import GameStateRecorder

    s = jax.jit(new_game)(jax.tree_util.tree_map(jnp.asarray, map_layers(generate(4))), jax.random.PRNGKey(0))
    small = GameStateRecorder.create(reference_gamestate=s, num_steps=1)
    huge = GameStateRecorder.create(reference_gamestate=s, num_steps=10**9)  # would be terabytes preallocated
    assert small.record(s).frames == huge.record(s).frames == 1


def test_screen_bodies_are_separate_keys_sent_when_they_change(tmp_path):
    """Religion, trade, city states and the city panels in the frames, by name; a step re-sends only
    the screen bodies (and city cells) that changed."""
    from hexarena.games.terranova.view.screens import city_name

    from ..religion_helpers import add_city, capital_start, tile_at
    from .screen_helpers import BLUE, RED, screens_state

    s, centre = capital_start()
    s, _ = add_city(s, BLUE, tile_at(centre, 5), 3)
    rich = jax.tree_util.tree_map(np.asarray, screens_state(s))
    path = tmp_path / "game.jsonl.gz"
    with Recorder(path) as rec:
        rec.record_state(s)
        rec.record_state(rich)
        rec.record_state(rich)
    _, (before, after, same) = read_replay(path)
    with gzip.open(path, "rt") as f:
        lines = [json.loads(line) for line in f][1:]
    titles = [x["title"] for x in after["screens"]]
    assert titles == [
        "Technologies",
        "Social policies",
        "Religion",
        "Trade",
        "City states",
        "Demographics",
        "Cities",
        "Victory",
    ]
    assert all(after[k] for x in after["screens"] for k in x.get("data", []))
    assert after["screens"][1]["data"] == ["screen_social_policies", "screen_policy_culture"]

    religions, beliefs, followers = (sec["rows"] for sec in after["screen_religion"]["sections"])
    assert religions[RED]["holy city"] == city_name(rich, RED, 0) == "red city 0 " + at_text(centre)
    assert city_name(rich, BLUE, 5) == "blue city 5 (gone)"  # a route may outlive its city
    assert religions[RED]["faith"] == 151.5 and religions[BLUE]["holy city"] == ""  # a pantheon only
    assert {b["belief"]: b["held by"] for b in beliefs} == {
        "ancestor worship": "blue",
        "god of the sea": "red",
        "tithe": "red",
        "choral music": "red",
        "feed the world": "red",
    }
    assert [(f["followers"], f["majority"]) for f in followers] == [
        ("red 3", "red"),
        ("red 1, blue 1", "none"),
        ("red 2", "red"),
    ]
    deals, offers, net, routes = (sec["rows"] for sec in after["screen_trade"]["sections"])
    assert deals == [
        {
            "player": "red",
            "gives": "embassy",
            "to": "blue",
            "for": "5 gold/turn",
            "turns left": "12 (blue: 11)",
        }
    ]
    assert offers == [{"player": "green", "offers": "peace", "to": "yellow", "for": "silk"}]
    assert [(n["player"], n["gold per turn"]) for n in net] == [("red", "+5"), ("blue", "-5")]
    assert [r["kind"] for r in routes] == ["foreign", "city state"] and routes[0]["turns left"] == 9
    assert before["screen_trade"]["sections"][0]["rows"] == []
    states = after["screen_city_states"]["states"]
    assert len(states) == 12 and states[0]["ally"] == "red" and states[0]["status"] == [2, 1, -1, -1, -1, -1]
    assert (
        after["citystate_sites"][0]["name"] == "city state 0" and "citystate_sites" not in lines[1]["delta"]
    )
    assert states[3]["quest"] == "culture" and states[3]["leader"] == "blue" and states[3]["lead"] == 40.0

    cells = {c["id"]: c for c in after["cells"]}
    panel = cells[f"t{centre}"]["panel"]
    assert panel["title"] == f"{city_name(rich, RED, 0)}, capital" and panel["population"] == 4
    assert panel["specialists"] == "2 scientists" and panel["great works"] == "art 1 of 3 slots"
    assert "university" in panel["buildings"] and panel["religion"] == "red 3"

    changed = {k for k in lines[1]["delta"] if k.startswith("screen")}
    assert changed == {
        "screen_religion",
        "screen_trade",
        "screen_city_states",
        "screen_cities",
        "screen_victory",
    }  # not the list of screens, technologies or policies: they did not change
    assert {k for k in lines[2]["delta"] if k != "cells"} <= {"fog"} and not lines[2]["delta"]["cells"]
    assert same == after


def at_text(tile: int) -> str:
    from hexarena.games.terranova.engine.geometry import COLS

    return f"({tile // COLS}, {tile % COLS})"
