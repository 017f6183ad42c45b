"""Where a bot's unit may step: its move options as the bot uses them.

In the original (and here) a unit's move options include the tile it stands on, where a move
holds it, and the tiles its own units of its class hold, where a move is blocked (also a stay).
The bots list the tiles they mean a unit to end on (:func:`free_reach`) and, on the way
somewhere, only steps that get nearer, then a stay (:func:`progress`): a unit that stepped back
whenever it could not go on jammed armies behind a pass.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from hexarena.games.terranova.engine.geometry import COLS, N_TILES, distance_np, work_area
from hexarena.games.terranova.engine.tables import BUILDING_SLOTS, load_tables

TOP = 12  # ranked targets per unit (keeps moves small)


def _tiles(rowcol: np.ndarray) -> np.ndarray:
    return rowcol[..., 0] * COLS + rowcol[..., 1]


def territory(obs: dict[str, Any], player: int) -> np.ndarray:
    """(H,) bool: the tiles inside ``player``'s borders (any of its cities' own)."""
    return np.asarray(obs["player_cities"]["ownership_map"])[player].reshape(-1, N_TILES).max(0) >= 2


def spawning(obs: dict[str, Any], me: int) -> tuple[np.ndarray, np.ndarray]:
    """(H,) bool twice: the tiles of ``me``'s cities finishing a military unit, and a civilian
    one, by the end of this turn (its stock and a turn's production cover the cost). A unit is
    placed on its city's tile only while no unit of its class stands there, so a garrison or a
    caravan holding its city would keep every unit of its class from being finished there."""
    tb = load_tables()
    pc = obs["player_cities"]
    ids = np.asarray(pc["city_ids"])[me]
    item = np.asarray(pc["is_constructing"])[: len(ids)]
    unit = np.where(item >= BUILDING_SLOTS, item - BUILDING_SLOTS + 1, 0)
    stock = np.asarray(pc["prod_reserves"])[: len(ids)] + np.asarray(pc["yields"])[: len(ids), 1]
    done = (ids > 0) & (unit > 0) & (stock >= tb.unit_cost[unit])
    tiles = _tiles(np.asarray(pc["city_rowcols"])[me])
    military = tb.unit_strength[unit] > 0
    out = np.zeros((2, N_TILES), bool)
    for c in np.flatnonzero(done):
        out[0 if military[c] else 1, tiles[c]] = True
    return out[0], out[1]


def free_reach(obs: dict[str, Any], me: int, slot: int, opts: dict[str, Any] | None) -> np.ndarray | None:
    """(H,) the tiles unit ``slot`` may end its move on: its move options less the tiles its own
    units of its class hold (a move there is blocked, a stay, as in the original) and the tiles
    of its cities finishing a unit of its class (:func:`spawning`); its own tile stays in unless
    it is one of those (a move onto it holds the unit). None without move options."""
    if opts is None or "reach" not in opts:
        return None
    kinds = np.asarray(obs["units"]["unit_type"])[me]
    where = _tiles(np.asarray(obs["units"]["unit_rowcol"])[me])
    military = load_tables().unit_strength[np.maximum(kinds, 0)] > 0
    held = where[(kinds > 0) & (military == military[slot]) & (np.arange(len(kinds)) != slot)]
    reach = np.asarray(opts["reach"][slot], bool).copy()
    reach[held[(held >= 0) & (held < N_TILES)]] = False
    return reach & ~spawning(obs, me)[0 if military[slot] else 1]


def progress(steps: np.ndarray, pos: int, goal: int, reach: np.ndarray) -> list[int]:
    """Tiles of ``reach`` nearer ``goal`` than ``pos`` by ``steps`` (H,: steps from each tile to
    the goal; inf where there is no way), nearest first and as the crow flies among equals, then
    ``pos`` itself where it may stay: a unit that cannot get nearer holds its tile."""
    tiles = np.flatnonzero(reach)
    tiles = tiles[tiles != pos]
    nb = work_area()[pos, 1:7]
    here = steps[pos] if np.isfinite(steps[pos]) else np.min(steps[nb[nb >= 0]], initial=np.inf) + 1
    crow = distance_np(tiles, goal)
    nearer = (steps[tiles] < here) | (~np.isfinite(here) & (crow < distance_np(pos, goal)))
    tiles, crow = tiles[nearer], crow[nearer]
    ranked = tiles[np.lexsort((crow, steps[tiles]))][: TOP - 1]
    return [*(int(t) for t in ranked), *([pos] if reach[pos] else [])]
