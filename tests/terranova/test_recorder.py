"""The streaming recorder writes gzip NDJSON frames the viewer decodes."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from hexarena.core.frames import check_header, fog_digits
from hexarena.games.terranova.mapgen import generate
from hexarena.games.terranova.recorder import ROLES, Recorder, read_replay, river_edges, select_game
from hexarena.games.terranova.state import map_layers
from hexarena.games.terranova.step import new_game
from hexarena.games.terranova.units import found_city


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


def test_spec_recorder_snippet_runs_as_written(tmp_path):
    """The spec's GameStateRecorder loop, over the batched simulator, read back by the viewer."""
    from hexarena.games.terranova.recorder import GameStateRecorder
    from hexarena.games.terranova.simulator import build_simulator
    from hexarena.games.terranova.spaces import random_actions
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
    from hexarena.games.terranova.recorder import GameStateRecorder

    s = jax.jit(new_game)(jax.tree_util.tree_map(jnp.asarray, map_layers(generate(4))), jax.random.PRNGKey(0))
    small = GameStateRecorder.create(reference_gamestate=s, num_steps=1)
    huge = GameStateRecorder.create(reference_gamestate=s, num_steps=10**9)  # would be terabytes preallocated
    assert small.record(s).frames == huge.record(s).frames == 1
