"""The Ray path: a local Ray with 2 CPUs gives the same table as the process pool."""

import json

import pytest
from arena_doubles import arena_config

from hexarena.arena import parse_arena, run_arena

pytest.importorskip("ray")


def test_ray_gives_the_same_table_as_the_process_pool(tmp_path):
    config = arena_config(tmp_path, games=[{"name": "hex", "params": {"size": 4}}])  # 12 quick matches
    pool = run_arena(parse_arena(config), config, tmp_path / "pool", workers=2)
    on_ray = run_arena(parse_arena(config), config, tmp_path / "ray", workers=2, ray=True)
    assert on_ray.played == pool.played == 12
    assert on_ray.board == pool.board
    # the records were shipped back from the Ray workers into the arena folder
    for folder in ("pool", "ray"):
        records = sorted(p.name for p in (tmp_path / folder / "matches").iterdir())
        assert len(records) == 12
    first = records[0]
    pool_result = json.loads((tmp_path / "pool" / "matches" / first / "result.json").read_text())
    ray_result = json.loads((tmp_path / "ray" / "matches" / first / "result.json").read_text())
    assert {**pool_result, "time_s": 0} == {**ray_result, "time_s": 0}
