"""The static map: regions (terrain, symbols, position) and their adjacency. Never changes in play."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from hexarena.games.smallworld.enums import WATER_TERRAINS, Feature, Terrain


@dataclass(frozen=True, slots=True)
class Region:
    """One map region. ``q, r`` are the axial coordinates of its hex (for drawing)."""

    id: int
    terrain: Terrain
    features: frozenset[Feature] = frozenset()
    lost_tribe: bool = False
    q: int = 0
    r: int = 0

    @property
    def is_border(self) -> bool:
        return Feature.BORDER in self.features

    @property
    def is_coastal(self) -> bool:
        return Feature.COASTAL in self.features

    @property
    def has_mine(self) -> bool:
        return Feature.MINE in self.features

    @property
    def has_magic_source(self) -> bool:
        return Feature.MAGIC_SOURCE in self.features

    @property
    def has_cavern(self) -> bool:
        return Feature.CAVERN in self.features

    @property
    def is_water(self) -> bool:
        return self.terrain in WATER_TERRAINS

    @property
    def is_land(self) -> bool:
        return self.terrain not in WATER_TERRAINS

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "terrain": self.terrain.value,
            "features": sorted(f.value for f in self.features),
            "lost_tribe": self.lost_tribe,
            "q": self.q,
            "r": self.r,
        }


@dataclass(frozen=True)
class MapGraph:
    """An undirected graph of regions; ids run 0..n-1 and index ``regions``."""

    regions: tuple[Region, ...]
    adjacency: tuple[frozenset[int], ...]
    _by_feature: Mapping[Feature, frozenset[int]] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        for i, region in enumerate(self.regions):
            if region.id != i:
                raise ValueError(f"region ids must run 0..n-1 in order; found {region.id} at {i}")
        for a, nbs in enumerate(self.adjacency):
            for b in nbs:
                if a not in self.adjacency[b] or a == b:
                    raise ValueError(f"adjacency must be symmetric and loop-free ({a}-{b})")
        by_feature = {f: frozenset(r.id for r in self.regions if f in r.features) for f in Feature}
        object.__setattr__(self, "_by_feature", by_feature)

    @classmethod
    def build(cls, regions: Iterable[Region], edges: Iterable[tuple[int, int]]) -> MapGraph:
        regions = tuple(regions)
        adj: list[set[int]] = [set() for _ in regions]
        for a, b in edges:
            adj[a].add(b)
            adj[b].add(a)
        return cls(regions, tuple(frozenset(s) for s in adj))

    def __len__(self) -> int:
        return len(self.regions)

    def get_region(self, region_id: int) -> Region:
        return self.regions[region_id]

    def neighbors(self, region_id: int) -> frozenset[int]:
        return self.adjacency[region_id]

    def border_regions(self) -> frozenset[int]:
        return self._by_feature[Feature.BORDER]

    def coastal_regions(self) -> frozenset[int]:
        return self._by_feature[Feature.COASTAL]

    def cavern_regions(self) -> frozenset[int]:
        return self._by_feature[Feature.CAVERN]

    def land_regions(self) -> list[int]:
        return [r.id for r in self.regions if r.is_land]

    def water_regions(self) -> list[int]:
        return [r.id for r in self.regions if r.is_water]

    def regions_by_terrain(self, terrain: Terrain) -> list[int]:
        return [r.id for r in self.regions if r.terrain == terrain]

    def regions_with_feature(self, feature: Feature) -> frozenset[int]:
        return self._by_feature[feature]

    def edges(self) -> list[tuple[int, int]]:
        return [(a, b) for a, nbs in enumerate(self.adjacency) for b in sorted(nbs) if a < b]

    def to_json(self) -> dict[str, Any]:
        return {"regions": [r.to_json() for r in self.regions], "edges": [list(e) for e in self.edges()]}
