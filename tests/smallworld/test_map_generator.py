"""The procedural map generator keeps the spec's constraints for every player count."""

from __future__ import annotations

import pytest

from hexarena.games.smallworld.enums import Feature, Terrain
from hexarena.games.smallworld.map_generator import (
    FEATURE_MIN,
    LOST_TRIBE_FRACTION,
    MAP_SIZES,
    MIN_BORDER_REGIONS,
    generate_map,
    is_land_connected,
)
from hexarena.games.smallworld.rng import SeededRNG


@pytest.mark.parametrize("players", [2, 3, 4, 5])
@pytest.mark.parametrize("seed", range(15))
def test_generated_maps_meet_the_constraints(players, seed):
    gm = generate_map(players, SeededRNG(seed))
    size = MAP_SIZES[players]
    land = gm.land_regions()
    seas = gm.regions_by_terrain(Terrain.SEA)
    assert len(land) == size.land
    assert size.seas[0] <= len(seas) <= size.seas[1] and len(gm.regions_by_terrain(Terrain.LAKE)) == 1
    assert is_land_connected(gm)
    assert sum(1 for r in land if gm.get_region(r).is_border) >= MIN_BORDER_REGIONS
    for feature in (Feature.MINE, Feature.MAGIC_SOURCE, Feature.CAVERN):
        assert len(gm.regions_with_feature(feature)) >= FEATURE_MIN
    tribes = [r for r in gm.regions if r.lost_tribe]
    assert len(tribes) == round(LOST_TRIBE_FRACTION * len(land)) and all(r.is_land for r in tribes)
    for r in gm.regions:
        assert r.id not in gm.neighbors(r.id)
        assert all(r.id in gm.neighbors(n) for n in gm.neighbors(r.id))


def test_lake_is_inland_and_coastal_regions_touch_water():
    gm = generate_map(4, SeededRNG(8))
    water = set(gm.water_regions())
    for rid in gm.coastal_regions():
        assert gm.neighbors(rid) & water
    (lake,) = gm.regions_by_terrain(Terrain.LAKE)
    assert not gm.get_region(lake).is_border


def test_the_same_seed_gives_the_same_map():
    assert generate_map(5, SeededRNG(3)).to_json() == generate_map(5, SeededRNG(3)).to_json()
    assert generate_map(5, SeededRNG(3)).to_json() != generate_map(5, SeededRNG(4)).to_json()


def test_mountains_never_exceed_the_nine_markers_in_the_box():
    from hexarena.games.smallworld.enums import MARKER_SUPPLY, Marker, Terrain
    from hexarena.games.smallworld.map_generator import generate_map
    from hexarena.games.smallworld.rng import SeededRNG

    most = 0
    for seed in range(300):
        graph = generate_map(5, SeededRNG(seed))
        most = max(most, sum(r.terrain is Terrain.MOUNTAIN for r in graph.regions))
    assert most <= MARKER_SUPPLY[Marker.MOUNTAIN] == 9
