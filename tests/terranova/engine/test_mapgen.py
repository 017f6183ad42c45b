"""Map generator properties over many seeds."""

import numpy as np
import pytest

from hexarena.games.terranova.engine.geometry import N_TILES, distance_np, neighbors
from hexarena.games.terranova.engine.mapgen import GameMap, generate, main

SEEDS = range(12)


@pytest.fixture(scope="module")
def maps() -> list[GameMap]:
    return [generate(s) for s in SEEDS]


def test_deterministic():
    a, b = generate(5), generate(5)
    for name in ("terrain", "elevation", "feature", "river", "resource", "starts", "cs_sites"):
        assert np.array_equal(getattr(a, name), getattr(b, name))
    assert not np.array_equal(generate(6).terrain, a.terrain)


def test_layers_in_range(maps):
    for m in maps:
        assert m.terrain.shape == (N_TILES,)
        assert set(np.unique(m.terrain)) <= set(range(6))
        assert set(np.unique(m.elevation)) <= set(range(4))
        assert set(np.unique(m.feature)) <= set(range(7))
        assert m.natural_wonder.max() <= 17 and (m.natural_wonder > 0).sum() == 4
        assert m.resource.max() <= 52 and (m.resource > 0).sum() > 100
        land = m.elevation > 0
        assert 0.25 < land.mean() < 0.5
        assert (m.terrain[~land] == 0).all() and (m.elevation[m.lake] == 0).all()


def test_rivers_are_symmetric_edges(maps):
    nb = neighbors()
    for m in maps:
        for t in np.flatnonzero(m.river):
            for d in range(6):
                if m.river[t] >> d & 1:
                    other = nb[t, d]
                    assert other >= 0 and m.river[other] >> ((d + 3) % 6) & 1


def test_starts_fair_and_apart(maps):
    for m in maps:
        ok = m.passable()
        assert ok[m.starts].all() and ok[m.warrior_starts].all()
        assert (distance_np(m.starts, m.warrior_starts) == 1).all()
        d = distance_np(m.starts[:, None], m.starts[None, :])
        assert (d + 99 * np.eye(6, dtype=int)).min() >= 7
        assert len(m.cs_sites) == 12 and ok[m.cs_sites].all()
        assert (distance_np(m.cs_sites[:, None], m.starts[None, :]) >= 6).all()
        assert (m.resource[m.starts] == 0).all()


def test_pool_command(tmp_path):
    main(["--start-seed", "3", "--num-maps", "2", "--out", str(tmp_path)])
    back = GameMap.load(tmp_path / "map_3.npz")
    assert back.seed == 3 and np.array_equal(back.resource, generate(3).resource)
