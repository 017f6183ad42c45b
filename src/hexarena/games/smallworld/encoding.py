"""Fixed-size encodings for reinforcement learning: a discrete action space and an array observation.

Actions are laid out in blocks: simple choices, one slot per region for region actions, and
"the k-th listed option" for placements (redeployments, Encampments, Heroes), whose meaning is
the k-th legal move of that type in the current position. Sizes are fixed for every map (regions
are numbered below ``MAX_REGIONS``), so one policy network fits every game.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from itertools import accumulate
from typing import Any

import numpy as np

from hexarena.games.smallworld.combo import VISIBLE_COMBOS, Combo
from hexarena.games.smallworld.enums import Marker, Phase, PowerName, RaceName, Terrain

MAX_REGIONS = 49  # the largest generated grid is 7 x 7
MAX_PLAYERS = 5
OPTION_SLOTS = 128
HERO_SLOTS = MAX_REGIONS * (MAX_REGIONS - 1) // 2

#: (action type, payload key, slots); the payload value of region and player blocks is the offset.
BLOCKS: tuple[tuple[str, str | None, int], ...] = (
    ("PICK_COMBO", "index", VISIBLE_COMBOS),
    ("EXPAND", None, 1),
    ("DECLINE", None, 1),
    ("SKIP_CONQUEST", None, 1),
    ("STOUT_DECLINE", "decline", 2),
    ("CHOOSE_DIPLOMAT_ALLY", "target_player", MAX_PLAYERS + 1),
    ("CONQUER", "region_id", MAX_REGIONS),
    ("FINAL_CONQUEST", "region_id", MAX_REGIONS),
    ("USE_DRAGON", "region_id", MAX_REGIONS),
    ("USE_SORCERER", "region_id", MAX_REGIONS),
    ("ABANDON", "region_ids", MAX_REGIONS),
    ("PLACE_FORTRESS", "region_id", MAX_REGIONS + 1),
    ("REDEPLOY", None, OPTION_SLOTS),
    ("OPPONENT_REDEPLOY", None, OPTION_SLOTS),
    ("PLACE_BIVOUACS", None, OPTION_SLOTS),
    ("PLACE_HEROES", None, HERO_SLOTS),
)
_START = dict(zip((b[0] for b in BLOCKS), accumulate([0] + [b[2] for b in BLOCKS]), strict=False))
ACTION_COUNT = sum(b[2] for b in BLOCKS)
_SIZES = {name: size for name, _, size in BLOCKS}
_KEYS = {name: key for name, key, _ in BLOCKS}
_OPTION_TYPES = {"REDEPLOY", "OPPONENT_REDEPLOY", "PLACE_BIVOUACS", "PLACE_HEROES"}


def _block_of(index: int) -> tuple[str, str | None, int]:
    for name, key, size in BLOCKS:
        if _START[name] <= index < _START[name] + size:
            return name, key, index - _START[name]
    raise IndexError(f"action {index} out of range 0..{ACTION_COUNT - 1}")


def action_to_move(index: int, legal: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The move of action ``index`` in a position whose legal moves are ``legal``."""
    name, key, offset = _block_of(index)
    if name in _OPTION_TYPES:
        options = [m for m in legal if m["type"] == name]
        if offset >= len(options):
            raise IndexError(f"{name} option {offset} does not exist here ({len(options)} listed)")
        return dict(options[offset])
    if key is None:
        return {"type": name}
    if name == "STOUT_DECLINE":
        return {"type": name, "decline": offset == 0}
    if name == "ABANDON":
        return {"type": name, "region_ids": [offset]}
    none_slot = name in ("CHOOSE_DIPLOMAT_ALLY", "PLACE_FORTRESS") and offset == _size(name) - 1
    return {"type": name, key: None if none_slot else offset}


def move_to_action(move: Mapping[str, Any], legal: Sequence[Mapping[str, Any]]) -> int:
    """The action index of ``move`` (option moves are found among ``legal``)."""
    name = str(move["type"])
    start = _START[name]
    if name in _OPTION_TYPES:
        options = [m for m in legal if m["type"] == name]
        offset = options.index(move)
    elif name in ("EXPAND", "DECLINE", "SKIP_CONQUEST"):
        offset = 0
    elif name == "STOUT_DECLINE":
        offset = 0 if move["decline"] else 1
    elif name == "ABANDON":
        (offset,) = move["region_ids"]
    else:
        value = move[_KEYS[name]]
        offset = _size(name) - 1 if value is None else int(value)
    if not 0 <= offset < _size(name):
        raise IndexError(f"{name} payload out of the encoded range: {dict(move)!r}")
    return start + offset


def legal_action_indices(legal: Sequence[Mapping[str, Any]]) -> list[int]:
    """``move_to_action`` of every legal move in one pass (option moves numbered as listed)."""
    seen: dict[str, int] = {}
    out = []
    for move in legal:
        name = str(move["type"])
        if name in _OPTION_TYPES:
            offset = seen.get(name, 0)
            seen[name] = offset + 1
            if offset < _size(name):
                out.append(_START[name] + offset)
        else:
            out.append(move_to_action(move, ()))
    return out


def _size(name: str) -> int:
    return _SIZES[name]


_TERRAINS = list(Terrain)
_MARKERS = list(Marker)
_PHASES = list(Phase)
_RACES = list(RaceName)
_POWERS = list(PowerName)
REGION_FEATURES = len(_TERRAINS) + 5 + (MAX_PLAYERS + 1) + 2 + len(_MARKERS)


def observation_array(obs: Mapping[str, Any]) -> np.ndarray:
    """A float32 vector of a player's observation (only what that player may see).

    Per region: terrain, symbols, border/coastal, holder seat relative to the viewer, declined,
    tokens, markers. Then the turn, phase, own coins and hand, and the combo row.
    """
    me = obs["game"]["you"]
    n = obs["game"]["num_players"]
    regions = np.zeros((MAX_REGIONS, REGION_FEATURES), dtype=np.float32)
    for r in obs["map"]["regions"]:
        row = regions[r["id"]]
        row[_TERRAINS.index(Terrain(r["terrain"]))] = 1
        col = len(_TERRAINS)
        for j, feature in enumerate(("MINE", "MAGIC_SOURCE", "CAVERN", "BORDER", "COASTAL")):
            row[col + j] = feature in r["features"]
        col += 5
        seat = MAX_PLAYERS if r["owner"] is None else (r["owner"] - me) % n
        row[col + seat] = 1
        col += MAX_PLAYERS + 1
        row[col], row[col + 1] = r["is_decline"], r["tokens"] / 10
        col += 2
        for m in r["markers"]:
            row[col + _MARKERS.index(Marker(m))] += 1
        row[col + _MARKERS.index(Marker.LOST_TRIBE)] = r["lost_tribe"]
    g, mine = obs["game"], obs["self"]
    active = mine["active"] or {}
    head = np.zeros(4 + len(_PHASES) + len(_RACES) + len(_POWERS), dtype=np.float32)
    head[0] = g["turn"] / g["max_turns"]
    head[1] = mine["coins"] / 100 if isinstance(mine["coins"], int) else 0
    head[2] = active.get("tokens_in_hand", 0) / 20
    head[3] = (active.get("berserk_die_result") or 0) / 3
    head[4 + _PHASES.index(Phase(g["phase"]))] = 1
    if active:
        head[4 + len(_PHASES) + _RACES.index(RaceName(active["race"]))] = 1
        head[4 + len(_PHASES) + len(_RACES) + _POWERS.index(PowerName(active["power"]))] = 1
    combos = np.zeros((VISIBLE_COMBOS, len(_RACES) + len(_POWERS) + 2), dtype=np.float32)
    for i, c in enumerate(obs["combo_row"]):
        combos[i, _RACES.index(RaceName(c["race"]))] = 1
        combos[i, len(_RACES) + _POWERS.index(PowerName(c["power"]))] = 1
        combos[i, -2], combos[i, -1] = c["total_tokens"] / 20, c["coins"] / 10
    return np.concatenate([regions.ravel(), head, combos.ravel()])


_OWNER_COL = len(_TERRAINS) + 5
_DECLINE_COL = _OWNER_COL + MAX_PLAYERS + 1
_MARKER_COL = {m: _DECLINE_COL + 2 + i for i, m in enumerate(_MARKERS)}
_HEAD = 4 + len(_PHASES) + len(_RACES) + len(_POWERS)
_COMBO = len(_RACES) + len(_POWERS) + 2
_STATIC: dict[int, tuple[Any, np.ndarray]] = {}


def _static_regions(game_map: Any) -> np.ndarray:
    """The region rows' terrain and symbol columns of a map (they never change), cached per map."""
    hit = _STATIC.get(id(game_map))
    if hit is None or hit[0] is not game_map:
        rows = np.zeros((MAX_REGIONS, REGION_FEATURES), dtype=np.float32)
        for region in game_map.regions:
            rows[region.id, _TERRAINS.index(region.terrain)] = 1
            features = {f.value for f in region.features}
            for j, feature in enumerate(("MINE", "MAGIC_SOURCE", "CAVERN", "BORDER", "COASTAL")):
                rows[region.id, len(_TERRAINS) + j] = feature in features
        if len(_STATIC) > 64:
            _STATIC.clear()
        hit = _STATIC[id(game_map)] = (game_map, rows)
    return hit[1]


def state_observation_array(gs: Any, player_id: int) -> np.ndarray:
    """:func:`observation_array` of ``player_id``'s observation, written straight from the engine
    state (:class:`~.state.GameState`) without building the observation dict (the map's fixed
    columns come from a per-map cache): the RL envs' fast path, tested equal to the reference."""
    n = gs.config.num_players
    regions = _static_regions(gs.map).copy()
    states = gs.regions
    ids = np.arange(len(states))
    seats = [MAX_PLAYERS if st.owner is None else (st.owner - player_id) % n for st in states]
    regions[ids, _OWNER_COL + np.array(seats)] = 1
    regions[ids, _DECLINE_COL] = [st.is_decline for st in states]
    regions[ids, _DECLINE_COL + 1] = np.array([st.tokens for st in states]) / 10
    for rid, st in enumerate(states):
        for m in st.markers:
            regions[rid, _MARKER_COL[m]] += 1
    regions[ids, _MARKER_COL[Marker.LOST_TRIBE]] = [st.has_lost_tribe for st in states]
    me = gs.players[player_id]
    active = me.active
    head = np.zeros(_HEAD, dtype=np.float32)
    head[0] = gs.turn / gs.config.max_turns
    head[1] = me.coins / 100
    head[4 + _PHASES.index(gs.phase)] = 1
    if active is not None:
        head[2] = active.tokens_in_hand / 20
        head[3] = (active.berserk_die_result or 0) / 3
        head[4 + len(_PHASES) + _RACES.index(active.race_name)] = 1
        head[4 + len(_PHASES) + len(_RACES) + _POWERS.index(active.power_name)] = 1
    combos = np.zeros((VISIBLE_COMBOS, _COMBO), dtype=np.float32)
    for i, c in enumerate(gs.combo_row.visible):
        combos[i, _RACES.index(c.race)] = 1
        combos[i, len(_RACES) + _POWERS.index(c.power)] = 1
        combos[i, -2], combos[i, -1] = _combo_tokens(c.race, c.power) / 20, c.coins / 10
    return np.concatenate([regions.ravel(), head, combos.ravel()])


@functools.cache
def _combo_tokens(race: RaceName, power: PowerName) -> int:
    """A combo's tokens (race and power data only; a data lookup per combo per step otherwise)."""
    return Combo(race, power).total_tokens
