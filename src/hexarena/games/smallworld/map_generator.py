"""Procedural maps: one region per hex of an odd-r offset grid, seas on the edge, a lake inside.

Sizes follow the spec (land 26/34/40 for 3/4/5 players) plus a 2-player size. Every parameter is
a module constant so variants can tune them. Maps are drawn from their own RNG stream
(``map_seed``), and an attempt that fails validation is thrown away (up to 100 attempts).
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from functools import cache

from hexarena.core.hexgrid import Hex, oddr_to_axial
from hexarena.games.smallworld.enums import MARKER_SUPPLY, Feature, Marker, Terrain
from hexarena.games.smallworld.game_map import MapGraph, Region
from hexarena.games.smallworld.rng import SeededRNG


@dataclass(frozen=True, slots=True)
class MapSize:
    """Grid width and height, land regions, and the range of sea regions (one lake always)."""

    width: int
    height: int
    land: int
    seas: tuple[int, int]


MAP_SIZES: dict[int, MapSize] = {
    2: MapSize(5, 5, 20, (2, 3)),
    3: MapSize(7, 5, 26, (3, 4)),
    4: MapSize(7, 6, 34, (4, 5)),
    5: MapSize(7, 7, 40, (5, 6)),
}
TERRAIN_WEIGHTS: dict[Terrain, float] = {
    Terrain.FARMLAND: 0.22,
    Terrain.HILL: 0.22,
    Terrain.FOREST: 0.22,
    Terrain.SWAMP: 0.17,
    Terrain.MOUNTAIN: 0.17,
}
SYMBOLS = (Feature.MINE, Feature.MAGIC_SOURCE, Feature.CAVERN)
#: Each symbol targets this share of land regions, clamped to [FEATURE_MIN, FEATURE_MAX[players]].
FEATURE_SHARE = 0.15
FEATURE_MIN = 2
FEATURE_MAX: dict[int, int] = {2: 5, 3: 5, 4: 7, 5: 9}
LOST_TRIBE_FRACTION = 0.40
MAX_ATTEMPTS = 100
MIN_BORDER_REGIONS = 4


class MapGenerationError(RuntimeError):
    """No valid map after MAX_ATTEMPTS attempts (does not happen with the built-in sizes)."""


def generate_map(num_players: int, rng: SeededRNG) -> MapGraph:
    """A validated random map for ``num_players`` (2-5), drawn from ``rng``."""
    size = MAP_SIZES[num_players]
    for _ in range(MAX_ATTEMPTS):
        graph = _attempt(size, FEATURE_MAX[num_players], rng)
        if graph is not None:
            return graph
    raise MapGenerationError(f"no valid {num_players}-player map in {MAX_ATTEMPTS} attempts")


@cache
def _grid_neighbors(cell: tuple[int, int]) -> tuple[tuple[int, int], ...]:
    """The six grid neighbours of ``cell`` in odd-r offset coordinates (present or not)."""
    out = []
    for nb in oddr_to_axial(*cell).neighbors():
        out.append((nb.q + (nb.r - (nb.r & 1)) // 2, nb.r))
    return tuple(out)


def _attempt(size: MapSize, feature_max: int, rng: SeededRNG) -> MapGraph | None:
    full = {(c, r) for r in range(size.height) for c in range(size.width)}
    seas = rng.random_int(*size.seas)
    target = size.land + 1 + seas
    cells = set(full)
    while len(cells) > target:  # trim the outline into an irregular shape
        edge = sorted(c for c in cells if _on_edge(cells, c))
        cells.discard(rng.choice(edge))
    order = sorted(cells, key=lambda c: (c[1], c[0]))
    edge_cells = [c for c in order if _on_edge(cells, c)]
    sea_cells = set(rng.sample(edge_cells, seas))
    inner = [c for c in order if c not in sea_cells and not _on_edge(cells, c)]
    if not inner:
        return None
    lake = rng.choice(inner)
    land = [c for c in order if c not in sea_cells and c != lake]
    names, weights = list(TERRAIN_WEIGHTS), list(TERRAIN_WEIGHTS.values())
    terrain: dict[tuple[int, int], Terrain] = {c: Terrain.SEA for c in sea_cells}
    terrain[lake] = Terrain.LAKE
    for c in land:
        terrain[c] = _weighted(rng, names, weights)
    if sum(terrain[c] is Terrain.MOUNTAIN for c in land) > MARKER_SUPPLY[Marker.MOUNTAIN]:
        return None  # every mountain carries a Mountain marker, and the box has only 9
    per_symbol = max(FEATURE_MIN, min(feature_max, round(FEATURE_SHARE * len(land))))
    if 3 * per_symbol > len(land):
        return None
    symbol_cells = rng.sample(land, 3 * per_symbol)
    symbols = {c: SYMBOLS[i // per_symbol] for i, c in enumerate(symbol_cells)}
    tribes = set(rng.sample(land, round(LOST_TRIBE_FRACTION * len(land))))

    index = {c: i for i, c in enumerate(order)}
    regions, edges = [], set()
    for c in order:
        nbs = [n for n in _grid_neighbors(c) if n in cells]
        edges.update((min(index[c], index[n]), max(index[c], index[n])) for n in nbs)
        feats: set[Feature] = set()
        if c in symbols:
            feats.add(symbols[c])
        near_sea = any(n in sea_cells for n in nbs)
        if _on_edge(cells, c) or (terrain[c] not in (Terrain.SEA, Terrain.LAKE) and near_sea):
            feats.add(Feature.BORDER)
        if terrain[c] not in (Terrain.SEA, Terrain.LAKE) and (near_sea or lake in nbs):
            feats.add(Feature.COASTAL)
        h: Hex = oddr_to_axial(*c)
        regions.append(Region(index[c], terrain[c], frozenset(feats), c in tribes, h.q, h.r))
    graph = MapGraph.build(regions, sorted(edges))
    return graph if _valid(graph) else None


def _on_edge(cells: set[tuple[int, int]], cell: tuple[int, int]) -> bool:
    return any(n not in cells for n in _grid_neighbors(cell))


def _weighted(rng: SeededRNG, names: list[Terrain], weights: list[float]) -> Terrain:
    x = rng.random_float() * sum(weights)
    for name, w in zip(names, weights, strict=True):
        x -= w
        if x < 0:
            return name
    return names[-1]


def _valid(graph: MapGraph) -> bool:
    land = graph.land_regions()
    if sum(1 for r in land if graph.get_region(r).is_border) < MIN_BORDER_REGIONS:
        return False
    if any(len(graph.regions_with_feature(f)) < FEATURE_MIN for f in SYMBOLS):
        return False
    return is_land_connected(graph)


def is_land_connected(graph: MapGraph) -> bool:
    """Breadth-first search over land regions only."""
    land = set(graph.land_regions())
    if not land:
        return False
    start = min(land)
    seen, queue = {start}, deque([start])
    while queue:
        for nb in graph.neighbors(queue.popleft()):
            if nb in land and nb not in seen:
                seen.add(nb)
                queue.append(nb)
    return seen == land
