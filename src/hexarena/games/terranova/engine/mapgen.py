"""Deterministic map generator: one continent on a 42 x 66 cylinder, ready for six players.

Pipeline: value-noise landmask with an elliptical falloff (largest landmass kept) -> elevation ->
terrain by latitude and moisture -> rivers on hex edges running to the sea -> lakes -> features ->
natural wonders -> six start positions (greedy farthest-point on fertile land, with a fairness
check) -> twelve city-state sites -> resources (regional luxuries near each start and city state,
extra luxuries, strategic and bonus resources by habitat).

Every draw comes from :class:`hexarena.core.rng.Rng`, so a seed always gives the same map. An
attempt that fails a check is retried with the next sub-seed; :func:`generate` never fails.
Run ``python -m hexarena.games.terranova.engine.mapgen --start-seed 0 --num-maps 8 --out maps/`` to
write a pool of maps (one ``.npz`` each; ``--format gamestate`` writes the pickled ``.gamestate``
files the spec's quick start loads).
"""

from __future__ import annotations

import argparse
import pickle
from dataclasses import dataclass, fields
from pathlib import Path

import numpy as np

from hexarena.core.rng import Rng, derive_seed
from hexarena.games.terranova.engine.geometry import COLS, N_TILES, ROWS, distance_np, neighbors, work_area
from hexarena.games.terranova.engine.tables import load_tables

OCEAN, GRASS, PLAINS, DESERT, TUNDRA, SNOW = range(6)
WATER, FLAT, HILL, MOUNTAIN = range(4)
NONE, FOREST, JUNGLE, MARSH, OASIS, FLOOD, ICE = range(7)
N_PLAYERS, N_CITY_STATES, N_NATURAL_WONDERS = 6, 12, 4
MAX_ATTEMPTS = 64


class MapGenerationError(RuntimeError):
    """Raised only if every attempt fails (never seen; the checks are loose enough)."""


@dataclass(frozen=True)
class GameMap:
    """A generated map: flat (2772,) layers plus start positions (tile indices)."""

    seed: int
    attempt: int
    elevation: np.ndarray  # int8 0 water, 1 flat, 2 hill, 3 mountain
    terrain: np.ndarray  # int8 0 ocean .. 5 snow
    feature: np.ndarray  # int8 0 none .. 6 ice
    river: np.ndarray  # uint8 bitmask of the six edges
    lake: np.ndarray  # bool
    natural_wonder: np.ndarray  # int8 0 none, 1..17
    resource: np.ndarray  # int8 0 none, 1..52
    cs_owner: np.ndarray  # int8 0 none, 1..12
    starts: np.ndarray  # (6,) int32 settler tiles
    warrior_starts: np.ndarray  # (6,) int32 warrior tiles (a passable neighbour)
    cs_sites: np.ndarray  # (12,) int32

    def save(self, path: str | Path) -> None:
        np.savez_compressed(path, **{f.name: getattr(self, f.name) for f in fields(self)})

    @classmethod
    def load(cls, path: str | Path) -> GameMap:
        with np.load(path) as data:
            values = {f.name: data[f.name] for f in fields(cls)}
        return cls(**{k: (v if v.ndim else int(v)) for k, v in values.items()})

    def passable(self) -> np.ndarray:
        """Land a unit may stand on (no mountain, ice, lake or natural wonder)."""
        return ((self.elevation == FLAT) | (self.elevation == HILL)) & (self.natural_wonder == 0)


def _noise(rng: Rng, cells: tuple[int, int], weights: tuple[float, ...] = (1.0, 0.5, 0.25)) -> np.ndarray:
    """Smooth value noise in [0, 1] over the map, wrapping east-west (bilinear lattice)."""
    rows = np.arange(ROWS)[:, None] + 0.5 * (np.arange(ROWS)[:, None] % 2)
    cols = np.arange(COLS)[None, :] + 0.5 * (np.arange(ROWS)[:, None] % 2)
    total = np.zeros((ROWS, COLS))
    for k, w in enumerate(weights):
        nr, nc = cells[0] * 2**k, cells[1] * 2**k
        lattice = np.array([[rng.random() for _ in range(nc)] for _ in range(nr + 1)])
        y = rows / ROWS * nr
        x = (cols / COLS * nc) % nc
        y0, x0 = np.floor(y).astype(int), np.floor(x).astype(int)
        fy, fx = y - y0, x - x0
        fy, fx = fy * fy * (3 - 2 * fy), fx * fx * (3 - 2 * fx)
        y1, x1 = np.minimum(y0 + 1, nr), (x0 + 1) % nc
        a = lattice[y0, x0] * (1 - fx) + lattice[y0, x1] * fx
        b = lattice[y1, x0] * (1 - fx) + lattice[y1, x1] * fx
        total += w * (a * (1 - fy) + b * fy)
    total -= total.min()
    return (total / max(total.max(), 1e-9)).reshape(-1)


def _components(mask: np.ndarray) -> np.ndarray:
    """Connected-component labels (-1 outside ``mask``) over the hex neighbour graph."""
    nb = neighbors()
    label = np.full(N_TILES, -1, np.int32)
    current = 0
    for start in np.flatnonzero(mask):
        if label[start] >= 0:
            continue
        stack = [start]
        label[start] = current
        while stack:
            t = stack.pop()
            for n in nb[t]:
                if n >= 0 and mask[n] and label[n] < 0:
                    label[n] = current
                    stack.append(n)
        current += 1
    return label


def _bfs_distance(sources: np.ndarray, passable: np.ndarray) -> np.ndarray:
    """Steps from the nearest source through passable tiles (large where unreachable)."""
    nb = neighbors()
    dist = np.full(N_TILES, 10_000, np.int32)
    frontier = list(np.flatnonzero(sources))
    dist[frontier] = 0
    while frontier:
        nxt = []
        for t in frontier:
            for n in nb[t]:
                if n >= 0 and passable[n] and dist[n] > dist[t] + 1:
                    dist[n] = dist[t] + 1
                    nxt.append(n)
        frontier = nxt
    return dist


class _Attempt:
    """One try at a map; each stage fills arrays or raises ``_Retry``."""

    def __init__(self, rng: Rng) -> None:
        self.rng = rng
        self.tables = load_tables()
        self.row = np.arange(N_TILES) // COLS
        self.col = np.arange(N_TILES) % COLS

    def land(self) -> None:
        noise = _noise(self.rng, (3, 5))
        cy, cx = (ROWS - 1) / 2, (COLS - 1) / 2 + self.rng.random() * 6 - 3
        ey = (self.row - cy) / (ROWS * 0.42)
        dx = np.minimum(np.abs(self.col - cx), COLS - np.abs(self.col - cx))
        ex = dx / (COLS * 0.40)
        height = noise - 0.9 * (ex**2 + ey**2)
        height[(self.row < 2) | (self.row >= ROWS - 2)] = -9
        cut = np.quantile(height, 1 - (0.34 + 0.06 * self.rng.random()))
        labels = _components(height > cut)
        sizes = np.bincount(labels[labels >= 0])
        self.is_land = labels == int(np.argmax(sizes))
        self.height = height

    def relief(self) -> None:
        rough = _noise(self.rng, (4, 7))
        land_rough = rough[self.is_land]
        mount, hill = np.quantile(land_rough, 0.93), np.quantile(land_rough, 0.72)
        self.elevation = np.where(self.is_land, FLAT, WATER).astype(np.int8)
        self.elevation[self.is_land & (rough > hill)] = HILL
        self.elevation[self.is_land & (rough > mount)] = MOUNTAIN

    def climate(self) -> None:
        lat = np.abs(self.row - (ROWS - 1) / 2) / ((ROWS - 1) / 2)
        temp = 1 - lat + 0.25 * (_noise(self.rng, (3, 6)) - 0.5)
        self.moist = _noise(self.rng, (3, 6))
        t = np.full(N_TILES, GRASS, np.int8)
        t[self.moist < 0.45] = PLAINS
        t[(self.moist < 0.28) & (temp > 0.55)] = DESERT
        t[temp < 0.3] = TUNDRA
        t[temp < 0.15] = SNOW
        t[~self.is_land] = OCEAN
        self.terrain = t
        self.temp = temp

    def rivers(self) -> None:
        nb = neighbors()
        water = ~self.is_land
        to_sea = _bfs_distance(water, self.is_land)
        self.river = np.zeros(N_TILES, np.uint8)
        sources = np.flatnonzero(self.is_land & (self.elevation >= HILL) & (to_sea >= 4))
        n_rivers = min(len(sources), 10 + self.rng.randbelow(5))
        for src in self.rng.sample(list(sources), n_rivers):
            t = int(src)
            for _ in range(30):
                downhill = [d for d in range(6) if nb[t, d] >= 0 and to_sea[nb[t, d]] < to_sea[t]]
                if not downhill:
                    break
                d = downhill[self.rng.randbelow(len(downhill))]
                side = (d + 1) % 6
                other = nb[t, side]
                if other >= 0:
                    self.river[t] |= np.uint8(1 << side)
                    self.river[other] |= np.uint8(1 << ((side + 3) % 6))
                t = int(nb[t, d])
                if water[t]:
                    break

    def lakes(self) -> None:
        self.lake = np.zeros(N_TILES, bool)
        to_sea = _bfs_distance(~self.is_land, self.is_land)
        spots = np.flatnonzero(self.is_land & (self.elevation == FLAT) & (to_sea >= 4))
        for t in self.rng.sample(list(spots), min(len(spots), 3 + self.rng.randbelow(3))):
            self.lake[t] = True
        self.elevation[self.lake] = WATER
        self.terrain[self.lake] = OCEAN
        self.is_land &= ~self.lake

    def features(self) -> None:
        r = _noise(self.rng, (4, 8))
        f = np.zeros(N_TILES, np.int8)
        flatland = self.is_land & (self.elevation != MOUNTAIN)
        wet, hot = self.moist > 0.55, self.temp > 0.75
        f[flatland & wet & hot & (self.terrain != SNOW)] = JUNGLE
        f[flatland & wet & ~hot & (self.terrain != SNOW) & (self.terrain != DESERT)] = FOREST
        f[flatland & ~wet & (r > 0.7) & np.isin(self.terrain, (GRASS, PLAINS, TUNDRA))] = FOREST
        boggy = (self.terrain == GRASS) & (self.moist > 0.8) & (r < 0.35)
        f[flatland & (self.elevation == FLAT) & boggy] = MARSH
        desert_flat = self.is_land & (self.elevation == FLAT) & (self.terrain == DESERT)
        f[desert_flat & (self.river > 0)] = FLOOD
        f[desert_flat & (self.river == 0) & (r > 0.85)] = OASIS
        jungle = f == JUNGLE
        self.terrain[jungle & (self.terrain == GRASS)] = PLAINS
        f[(~self.is_land) & ~self.lake & ((self.row < 4) | (self.row >= ROWS - 4)) & (r > 0.5)] = ICE
        self.feature = f

    def _spread(self, candidates: np.ndarray, count: int, min_distance: int, what: str) -> list[int]:
        """``count`` random candidates at least ``min_distance`` apart (retry the map if impossible)."""
        chosen: list[int] = []
        for t in self.rng.shuffled(list(candidates)):
            if len(chosen) == count:
                break
            if all(distance_np(t, c) >= min_distance for c in chosen):
                chosen.append(int(t))
        if len(chosen) < count:
            raise _Retry(what)
        return chosen

    def natural_wonders(self) -> None:
        self.nw = np.zeros(N_TILES, np.int8)
        spots = np.flatnonzero(self.is_land & (self.elevation >= HILL))
        kinds = self.rng.sample(list(range(1, 18)), N_NATURAL_WONDERS)
        chosen = self._spread(spots, N_NATURAL_WONDERS, 8, "natural wonders")
        for t, k in zip(chosen, kinds, strict=True):
            self.nw[t] = k
            self.feature[t] = NONE

    def passable(self) -> np.ndarray:
        return self.is_land & (self.elevation != MOUNTAIN) & (self.nw == 0)

    def fertility(self) -> np.ndarray:
        """Food-weighted yield of the 19 tiles within 2 of each tile (a start's quality)."""
        tb = self.tables
        y = tb.terrain_yields[self.terrain].copy()
        for arr, vals, sets in ((self.elevation, tb.elevation_yields, tb.elevation_sets),
                                (self.feature, tb.feature_yields, tb.feature_sets)):  # fmt: skip
            y = np.where(sets[arr][:, None], vals[arr], y + np.where(sets[arr][:, None], 0, vals[arr]))
        y[self.lake] = tb.lake_yields
        score = 2 * y[:, 0] + y[:, 1] + 0.5 * y[:, 2] + (self.river > 0)
        area = work_area()[:, :19]
        return np.where(area >= 0, score[np.maximum(area, 0)], 0).sum(1)

    def starts(self) -> None:
        ok = self.passable() & (self.feature != MARSH)
        fert = self.fertility()
        cand = np.flatnonzero(ok & (fert >= np.quantile(fert[ok], 0.5)))
        if len(cand) < N_PLAYERS:
            raise _Retry("start candidates")
        first = int(cand[self.rng.randbelow(len(cand))])
        starts = [first]
        while len(starts) < N_PLAYERS:
            d = np.min(np.stack([distance_np(cand, s) for s in starts]), axis=0)
            best = int(cand[int(np.argmax(d + 0.01 * fert[cand]))])
            if d.max() < 7:
                raise _Retry("starts too close")
            starts.append(best)
        sf = fert[starts]
        if sf.min() < 0.7 * sf.max():
            raise _Retry("unfair starts")
        nb = neighbors()
        pas = self.passable()
        warriors = []
        for s in starts:
            options = [int(n) for n in nb[s] if n >= 0 and pas[n]]
            if not options:
                raise _Retry("boxed-in start")
            warriors.append(options[0])
        self.starts_ = np.array(starts, np.int32)
        self.warriors_ = np.array(warriors, np.int32)

    def city_states(self) -> None:
        pas = self.passable()
        far = np.min(np.stack([distance_np(np.arange(N_TILES), s) for s in self.starts_]), axis=0) >= 6
        sites = self._spread(np.flatnonzero(pas & far), N_CITY_STATES, 5, "city-state sites")
        self.cs_sites_ = np.array(sites, np.int32)
        self.cs_owner = np.zeros(N_TILES, np.int8)
        for k, s in enumerate(sites):
            ring1 = work_area()[s, :7]
            self.cs_owner[ring1[ring1 >= 0]] = k + 1

    def _habitat(self, name: str) -> np.ndarray:
        t, e, f = self.terrain, self.elevation, self.feature
        token = {
            "ocean": (~self.is_land) & ~self.lake & (f != ICE),
            "hill": self.is_land & (e == HILL),
            "forest": f == FOREST,
            "jungle": f == JUNGLE,
            "marsh": f == MARSH,
            "grassland": self.is_land & (t == GRASS) & (e == FLAT) & (f == NONE),
            "plains": self.is_land & (t == PLAINS) & (e == FLAT) & (f == NONE),
            "desert": self.is_land & (t == DESERT) & (e == FLAT) & (f == NONE),
            "tundra": self.is_land & (t == TUNDRA) & (e == FLAT) & (f == NONE),
        }
        ok = np.zeros(N_TILES, bool)
        for h in self.tables.resource_habitat[self.tables.resource(name)]:
            ok |= token[h]
        return ok & (self.nw == 0) & (e != MOUNTAIN)

    def _place(self, rid: int, tiles: np.ndarray, count: int) -> int:
        free = tiles[self.resource[tiles] == 0]
        picked = self.rng.sample(list(free), min(count, len(free)))
        self.resource[np.array(picked, np.int64)] = rid
        return len(picked)

    def resources(self) -> None:
        tb = self.tables
        self.resource = np.zeros(N_TILES, np.int8)
        lux = [i for i in range(1, len(tb.resource_names)) if tb.resource_kind[i] == 3]
        area = work_area()
        centres = list(self.starts_) + list(self.cs_sites_)
        kinds = self.rng.sample(lux, len(centres))
        for c, kind in zip(centres, kinds, strict=True):
            near = area[c, 7:]
            near = near[(near >= 0)]
            habitat = near[self._habitat(tb.resource_names[kind])[near]]
            if self._place(kind, habitat, 2) == 0:
                # LekMod-style normalisation: no habitat nearby, so the luxury goes on any land tile.
                self._place(kind, near[self.is_land[near] & (self.nw[near] == 0)], 1)
        for kind in self.rng.sample(lux, 12):
            self._place(kind, np.flatnonzero(self._habitat(tb.resource_names[kind])), 1)
        plan = {"iron": 14, "horses": 14, "coal": 8, "oil": 8, "aluminium": 6, "uranium": 5}
        for name, n in plan.items():
            self._place(tb.resource(name), np.flatnonzero(self._habitat(name)), n)
        bonus = [i for i in range(1, len(tb.resource_names)) if tb.resource_kind[i] == 1]
        for rid in bonus:
            self._place(rid, np.flatnonzero(self._habitat(tb.resource_names[rid])), 10)
        starts = np.array(centres)
        self.resource[starts] = 0  # a city centre never sits on a resource in the generated map

    def build(self, seed: int, attempt: int) -> GameMap:
        for stage in (self.land, self.relief, self.climate, self.rivers, self.lakes, self.features,
                      self.natural_wonders, self.starts, self.city_states, self.resources):  # fmt: skip
            stage()
        return GameMap(
            seed=seed,
            attempt=attempt,
            elevation=self.elevation.astype(np.int8),
            terrain=self.terrain.astype(np.int8),
            feature=self.feature.astype(np.int8),
            river=self.river,
            lake=self.lake,
            natural_wonder=self.nw,
            resource=self.resource,
            cs_owner=self.cs_owner,
            starts=self.starts_,
            warrior_starts=self.warriors_,
            cs_sites=self.cs_sites_,
        )


class _Retry(Exception):
    """An attempt failed a check; the generator moves on to the next sub-seed."""


def generate(seed: int) -> GameMap:
    """The map for ``seed`` (deterministic; retries internally until every check passes)."""
    for attempt in range(MAX_ATTEMPTS):
        try:
            return _Attempt(Rng(derive_seed(seed, "terranova-map", attempt))).build(seed, attempt)
        except _Retry:
            continue
    raise MapGenerationError(f"no valid map for seed {seed} in {MAX_ATTEMPTS} attempts")


FORMATS = ("npz", "gamestate")


def write_pool(start_seed: int, num_maps: int, out: str | Path, fmt: str = "npz") -> list[Path]:
    """Generate ``num_maps`` maps from consecutive seeds into ``out``: ``map_<seed>.npz``, or with
    ``fmt="gamestate"`` ``map_<seed>.gamestate``, a pickled :class:`GameMap` that the spec's quick
    start loads with ``pickle`` and hands to ``build_simulator``."""
    if fmt not in FORMATS:
        raise ValueError(f"format must be one of {FORMATS}, got {fmt!r}")
    folder = Path(out)
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for seed in range(start_seed, start_seed + num_maps):
        path = folder / f"map_{seed}.{fmt}"
        game_map = generate(seed)
        if fmt == "npz":
            game_map.save(path)
        else:
            path.write_bytes(pickle.dumps(game_map, protocol=pickle.HIGHEST_PROTOCOL))
        paths.append(path)
    return paths


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Write a pool of Terra Nova maps.")
    parser.add_argument("--start-seed", "--start_seed", dest="start_seed", type=int, default=0)
    parser.add_argument("--num-maps", "--num_maps", dest="num_maps", type=int, default=8)
    parser.add_argument("--out", "--map_folder", dest="out", type=str, default="maps")
    parser.add_argument(
        "--format",
        choices=FORMATS,
        default="npz",
        help="npz (GameMap.load) or gamestate (a pickle, as the spec's quick start reads)",
    )
    args = parser.parse_args(argv)
    if args.num_maps < 1:
        parser.error("--num-maps must be at least 1")
    for path in write_pool(args.start_seed, args.num_maps, args.out, args.format):
        print(path)


if __name__ == "__main__":
    # Run from the importable module, so a pickled GameMap names it (not ``__main__``).
    from hexarena.games.terranova.engine import mapgen

    mapgen.main()
