import itertools

from hypothesis import given
from hypothesis import strategies as st

from hexarena.core import hexgrid as hg
from hexarena.core.hexgrid import Hex, WrappedOffsetGrid

coord = st.integers(-50, 50)
hexes = st.builds(Hex, coord, coord)


@given(hexes)
def test_offset_conversions_round_trip(h):
    assert hg.oddr_to_axial(*hg.axial_to_oddr(h)) == h
    assert hg.evenq_to_axial(*hg.axial_to_evenq(h)) == h
    assert hg.cube_to_axial(*hg.axial_to_cube(h)) == h


@given(hexes, hexes, hexes)
def test_distance_is_a_metric(a, b, c):
    assert hg.distance(a, a) == 0
    assert hg.distance(a, b) == hg.distance(b, a)
    assert hg.distance(a, c) <= hg.distance(a, b) + hg.distance(b, c)


@given(hexes)
def test_neighbours_are_at_distance_one_and_distinct(h):
    nbs = h.neighbors()
    assert len(set(nbs)) == 6
    assert all(hg.distance(h, n) == 1 for n in nbs)


@given(hexes, st.integers(0, 8))
def test_ring_and_spiral_sizes(h, radius):
    ring = hg.ring(h, radius)
    assert len(ring) == (1 if radius == 0 else 6 * radius)
    assert all(hg.distance(h, x) == radius for x in ring)
    assert len(set(hg.spiral(h, radius))) == 1 + 3 * radius * (radius + 1)


@given(hexes, hexes)
def test_line_is_contiguous_and_shortest(a, b):
    pts = hg.line(a, b)
    assert pts[0] == a and pts[-1] == b
    assert len(pts) == hg.distance(a, b) + 1
    assert all(hg.distance(p, q) == 1 for p, q in itertools.pairwise(pts))


def test_cube_rejects_bad_sum():
    import pytest

    with pytest.raises(ValueError):
        hg.cube_to_axial(1, 1, 1)


@given(st.integers(0, 65), st.integers(0, 41))
def test_wrapped_grid_neighbours_are_symmetric_and_close(col, row):
    grid = WrappedOffsetGrid(66, 42)
    for nb in grid.neighbors(col, row):
        assert (col, row) in grid.neighbors(*nb)
        assert grid.distance((col, row), nb) == 1


def test_wrapped_grid_crosses_the_seam():
    grid = WrappedOffsetGrid(10, 6)
    assert (9, 2) in grid.neighbors(0, 2)
    assert grid.distance((0, 2), (9, 2)) == 1
    assert WrappedOffsetGrid(10, 6, wrap=False).distance((0, 2), (9, 2)) == 9
    assert len(grid.neighbors(3, 0)) == 4  # top row: two neighbours fall off the map


def test_neighbor_table_matches_neighbors():
    grid = WrappedOffsetGrid(8, 5)
    table = grid.neighbor_table()
    for idx, row in enumerate(table):
        expected = sorted(grid.index(*c) for c in grid.neighbors(*grid.cell(idx)))
        assert sorted(i for i in row if i >= 0) == expected
