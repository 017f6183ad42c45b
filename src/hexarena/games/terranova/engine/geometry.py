"""Map geometry as arrays: the 42 x 66 odd-r cylinder from :mod:`hexarena.core.hexgrid`.

Flat index = row * 66 + col. Directions follow ``hexgrid.DIRECTIONS`` (east first, counter-
clockwise); river bit ``d`` of a tile is the edge it shares with its neighbour in direction ``d``.
"""

from __future__ import annotations

from functools import cache

import numpy as np

from hexarena.core.hexgrid import DIRECTIONS, Hex, WrappedOffsetGrid, oddr_to_axial, spiral

ROWS, COLS = 42, 66
N_TILES = ROWS * COLS
GRID = WrappedOffsetGrid(COLS, ROWS)
WORK_RADIUS = 3
N_WORK = 37  # a city's centre plus the 36 tiles of rings 1-3
REACH_RADIUS = 12  # movement is searched in the 469 tiles within 12 of a unit: 4 moves on roads


def tile_text(tile: int) -> str:
    """A tile as players read and write it, ``(row, col)`` (text view, orders, news, screens)."""
    return f"({tile // COLS}, {tile % COLS})"


@cache
def neighbors() -> np.ndarray:
    """(2772, 6) int32 neighbour indices, -1 beyond the top and bottom rows."""
    return np.array(GRID.neighbor_table(), np.int32)


@cache
def lit_by(radius: int) -> np.ndarray:
    """(2773, K) int32: the tiles that ``radius`` rounds of spreading to the neighbours
    (``neighbors``) light from each source tile, padded with 2772; the last row, for "no source",
    is all 2772. Scattering these rows from a few sources gives the same mask as spreading a whole
    map of them, for a fraction of the work (fog of war: units and cities see 2 tiles)."""
    nb = neighbors()
    reach = np.eye(N_TILES, dtype=bool)  # reach[t, s]: spreading from s reaches t
    for _ in range(radius):
        reach = reach | np.where((nb >= 0)[:, :, None], reach[np.maximum(nb, 0)], False).any(1)
    rows = [np.flatnonzero(reach[:, s]) for s in range(N_TILES)]
    out = np.full((N_TILES + 1, max(len(r) for r in rows)), N_TILES, np.int32)
    for s, r in enumerate(rows):
        out[s, : len(r)] = r
    return out


@cache
def axial() -> tuple[np.ndarray, np.ndarray]:
    """Axial ``(q, r)`` of every tile."""
    q = np.zeros(N_TILES, np.int32)
    r = np.zeros(N_TILES, np.int32)
    for i in range(N_TILES):
        h = oddr_to_axial(*GRID.cell(i))
        q[i], r[i] = h.q, h.r
    return q, r


def distance_np(a: np.ndarray | int, b: np.ndarray | int) -> np.ndarray:
    """Hex distance between tiles (broadcasting), taking the short way round the cylinder."""
    q, r = axial()
    qa, ra, qb, rb = q[a], r[a], q[b], r[b]
    best = None
    for shift in (-COLS, 0, COLS):
        dq, dr = qa - (qb + shift), ra - rb
        d = (np.abs(dq) + np.abs(dr) + np.abs(dq + dr)) // 2
        best = d if best is None else np.minimum(best, d)
    return best


@cache
def work_area() -> np.ndarray:
    """(2772, 37) tiles within 3 of each tile, centre first then ring by ring; -1 off the map.

    The spiral of offsets around the origin, shifted to every tile at once (a loop over the tiles
    cost a person's first Terra Nova prompt about 0.3 s)."""
    offsets = spiral(Hex(0, 0), WORK_RADIUS)
    q, r = axial()
    nq = q[:, None] + np.array([h.q for h in offsets], np.int32)[None, :]
    nr = r[:, None] + np.array([h.r for h in offsets], np.int32)[None, :]
    col = (nq + (nr - (nr & 1)) // 2) % COLS  # odd-r offset columns, folded round the cylinder
    return np.where((nr >= 0) & (nr < ROWS), nr * COLS + col, -1).astype(np.int32)


def ring_of_slot() -> np.ndarray:
    """(37,) ring number (0..3) of each work-area slot."""
    return np.array([0] + [1] * 6 + [2] * 12 + [3] * 18, np.int32)


@cache
def window_offsets() -> np.ndarray:
    """(469, 2) axial offsets of the tiles within REACH_RADIUS, centre first (spiral order)."""
    return np.array([(h.q, h.r) for h in spiral(Hex(0, 0), REACH_RADIUS)], np.int32)


@cache
def window_neighbors() -> np.ndarray:
    """(469, 6) window index of each window tile's neighbour per direction, -1 outside the window.

    The hex grid looks the same around every tile (up to the map's top and bottom edges), so one
    table serves every unit; columns never wrap onto themselves at this radius.
    """
    index = {tuple(o): i for i, o in enumerate(window_offsets().tolist())}
    return np.array(
        [[index.get((q + d.q, r + d.r), -1) for d in DIRECTIONS] for q, r in window_offsets().tolist()],
        np.int32,
    )
