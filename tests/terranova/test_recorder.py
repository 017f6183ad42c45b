"""The streaming recorder writes gzip NDJSON frames the viewer decodes."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from hexarena.core.frames import check_header
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
    assert set(first["cells"][0]["fog"]) == set(ROLES)
    assert second["edges"] == river_edges(m.river) and len(second["edges"]) > 10
    assert select_game(batched).turn == 0
