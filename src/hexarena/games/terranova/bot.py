"""A simple heuristic player: expand early, improve land, explore, attack what it can see.

It reads only its own observation and answers with a sparse preference move, so the resolver
still guarantees legality: a preference that cannot be executed falls through to the next one.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from hexarena.core.contract import GameState
from hexarena.core.players import Reply, SeededPlayer
from hexarena.games.terranova.geometry import COLS, N_TILES, distance_np, work_area
from hexarena.games.terranova.tables import load_tables

WORKER_BUILDS = ("farm", "mine", "pasture", "plantation", "camp", "quarry", "road", "move")
BUILD_ORDER = ("worker", "warrior", "monument", "granary", "shrine", "library", "walls", "market", "archer")
TOP = 12  # ranked targets per unit (keeps moves small)


def _tiles(rowcol: np.ndarray) -> np.ndarray:
    return rowcol[..., 0] * COLS + rowcol[..., 1]


class HeuristicPlayer(SeededPlayer):
    """Settles up to six cities, researches the cheapest open tech, works and defends."""

    kind = "heuristic"

    def act(self, view: GameState) -> Reply:
        env = view.environment
        obs, me = (
            (env.view, env.viewer) if env.view is not None else (view.redact(view.roles[0]).view, env.player)
        )
        return Reply(move=plan(obs, me, self.rng))

    @staticmethod
    def _builds(n_cities: int, my_kinds: np.ndarray) -> list[str]:
        """Worker and warrior first, then settlers up to six cities, then buildings."""
        tb = load_tables()
        have = {name: int((my_kinds == tb.unit(name)).sum()) for name in ("settler", "worker", "warrior")}
        order = [name for name in BUILD_ORDER if not (name in have and have[name] >= n_cities)]
        if n_cities + have["settler"] < 6:
            order.insert(2 if have["worker"] == 0 else 0, "settler")
        return order


def default_orders(obs: dict[str, Any], me: int, opts: dict[str, Any] | None = None) -> dict[str, Any]:
    """The default for every endpoint a text move leaves out: the bot's plan, with its random
    tie-breaks drawn from a generator seeded by the round and the player (so replays agree)."""
    return plan(obs, me, np.random.default_rng([int(obs["current_turn"]), me]))


def plan(obs: dict[str, Any], me: int, rng: np.random.Generator) -> dict[str, Any]:
    """The heuristic's sparse move for player ``me`` from its observation."""
    tb = load_tables()
    known = obs["technologies"] > 0
    legal = ~known & np.all(~tb.tech_prereq | known, axis=1)
    techs = [tb.tech_names[t] for t in np.flatnonzero(legal)[np.argsort(tb.tech_cost[legal], kind="stable")]]
    units = obs["units"]
    kinds, where = units["unit_type"], _tiles(units["unit_rowcol"])
    cities = obs["player_cities"]
    mine = np.flatnonzero(cities["city_ids"][me] > 0)
    city_tiles = _tiles(cities["city_rowcols"][me][mine])
    all_tiles = np.arange(N_TILES)
    vis = obs["visibility_map"].reshape(-1)
    land = obs["elevation_map"].reshape(-1)
    yields = obs["yield_map_players"].reshape(-1, 7)
    enemies = np.concatenate(
        [where[p][kinds[p] > 0] for p in range(len(kinds)) if p != me]
        + [_tiles(cities["city_rowcols"][p][cities["city_ids"][p] > 0]) for p in range(len(kinds)) if p != me]
    )
    orders: dict[str, Any] = {}
    for slot in np.flatnonzero(kinds[me] > 0):
        pos, name = int(where[me, slot]), tb.unit_names[kinds[me, slot]]
        d = distance_np(all_tiles, pos)
        if name == "settler":
            far = np.min(distance_np(all_tiles[:, None], city_tiles[None, :]), axis=1) if len(mine) else 9
            good = (vis > 0) & ((land == 1) | (land == 2)) & (far >= 4) & (d <= 6)
            value = yields[:, 0] * 2 + yields[:, 1] - 0.3 * d
            orders[str(slot)] = {"categories": ["settle", "move"], "targets": _best(value, good)}
        elif name == "worker":
            owned = obs["player_cities"]["ownership_map"][me].reshape(len(cities["city_ids"][me]), -1) >= 2
            bare = owned.any(0) & (obs["improvement_map"].reshape(-1) == 0)
            orders[str(slot)] = {
                "categories": list(WORKER_BUILDS),
                "targets": _best(-d.astype(float), bare),
            }
        else:
            near_enemy = np.isin(all_tiles, enemies) & (d <= 2)
            frontier = (vis == 0) & (d <= 8)
            value = np.where(near_enemy, 100.0, 0.0) - d + rng.random()
            # "combat" only with an enemy in sight: entering closed borders would declare war
            categories = ["combat", "move"] if near_enemy.any() else ["move"]
            orders[str(slot)] = {"categories": categories, "targets": _best(value, near_enemy | frontier)}
    builds = HeuristicPlayer._builds(len(mine), kinds[me])
    work = {}
    for c, tile in zip(mine, city_tiles, strict=True):
        ring = work_area()[tile, 1:]
        value = np.where(ring >= 0, yields[np.maximum(ring, 0)] @ np.array([3.0, 2, 1, 0, 0, 0, 0]), -1)
        work[str(c)] = [int(j) for j in np.argsort(-value, kind="stable")]
    return {"tech": techs, "units": orders, "build": {str(c): builds for c in mine}, "work": work}


def _best(value: np.ndarray, mask: np.ndarray) -> list[int]:
    idx = np.flatnonzero(mask)
    return [int(t) for t in idx[np.argsort(-value[idx], kind="stable")][:TOP]]
