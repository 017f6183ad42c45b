"""Text for players who read rather than look: the tiles around a player's units and cities.

Built from the player's own observation only (never the full state), so nothing the player has
not seen can appear: unexplored tiles say so, and other players' units are listed only where the
observation shows them.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from hexarena.games.terranova.geometry import COLS, neighbors
from hexarena.games.terranova.recorder import FEATURE_KEYS, ROLES, TERRAIN_KEYS
from hexarena.games.terranova.tables import Tables

DIRECTIONS = ("east", "north-east", "north-west", "west", "south-west", "south-east")


def _units_by_tile(obs: dict[str, Any], tb: Tables, me: int) -> dict[int, list[str]]:
    units = obs["units"]
    at: dict[int, list[str]] = {}
    for p in range(len(ROLES)):
        for slot in np.flatnonzero(units["unit_type"][p] > 0):
            row, col = units["unit_rowcol"][p, slot]
            owner = "your" if p == me else f"{ROLES[p]}'s"
            at.setdefault(int(row) * COLS + int(col), []).append(
                f"{owner} {tb.unit_names[units['unit_type'][p, slot]]}"
            )
    return at


def _owner(obs: dict[str, Any], row: int, col: int, me: int) -> str | None:
    owners = np.flatnonzero(obs["player_cities"]["ownership_map"][:, :, row, col].max(axis=1) > 0)
    if len(owners) == 0:
        return None
    return "yours" if owners[0] == me else f"{ROLES[owners[0]]}'s"


def describe_tile(obs: dict[str, Any], tb: Tables, tile: int, me: int, units_at: dict[int, list[str]]) -> str:
    """One tile as the player knows it: terrain, feature, resource, improvement, owner, units."""
    row, col = divmod(tile, COLS)
    if obs["visibility_map"][row, col] <= 0:
        return "unexplored"
    terrain = int(obs["terrain_map"][row, col])
    name = "lake" if obs["lake_map"][row, col] > 0 else TERRAIN_KEYS[terrain] if terrain >= 0 else "unknown"
    elevation = int(obs["elevation_map"][row, col])
    parts = [{2: f"{name} hill", 3: "mountain"}.get(elevation, name)]
    feature = int(obs["feature_map"][row, col])
    if feature > 0:
        parts.append(FEATURE_KEYS[feature])
    resource = int(obs["visible_resources_map_players"][row, col])
    if resource > 0:
        parts.append(tb.resource_names[resource])
    improvement = int(obs["improvement_map"][row, col])
    if improvement > 0:
        parts.append(tb.improvement_names[improvement])
    if obs["road_map"][row, col] > 0:
        parts.append("road")
    owner = _owner(obs, row, col, me)
    if owner:
        parts.append(f"{owner} land")
    if obs["visibility_map"][row, col] == 1:
        parts.append("(seen before, not in sight now)")
    elif tile in units_at:
        parts.append("units: " + ", ".join(units_at[tile]))
    return ", ".join(parts)


def surroundings(obs: dict[str, Any], tb: Tables, me: int) -> list[str]:
    """For each of the player's units and cities, its tile and the six around it."""
    nb = neighbors()
    units_at = _units_by_tile(obs, tb, me)
    centres: list[tuple[str, int]] = []
    units = obs["units"]
    for slot in np.flatnonzero(units["unit_type"][me] > 0):
        row, col = units["unit_rowcol"][me, slot]
        centres.append(
            (f"your {tb.unit_names[units['unit_type'][me, slot]]} (slot {slot})", int(row) * COLS + int(col))
        )
    pc = obs["player_cities"]
    for c in np.flatnonzero(pc["city_ids"][me] > 0):
        row, col = pc["city_rowcols"][me, c]
        centres.append((f"your city {c}", int(row) * COLS + int(col)))
    lines = []
    for label, tile in centres:
        lines.append(f"Around {label} at tile {tile}: {describe_tile(obs, tb, tile, me, units_at)}.")
        for d, other in enumerate(nb[tile]):
            if other >= 0:
                lines.append(
                    f"  {DIRECTIONS[d]}: tile {other}, {describe_tile(obs, tb, int(other), me, units_at)}"
                )
    return lines
