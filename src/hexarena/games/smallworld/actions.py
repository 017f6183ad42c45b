"""Action validation (raises, naming what is wrong) and legal-action enumeration.

An action is a dict ``{"type": <ActionType name>, ...payload}``. :func:`validate_action` returns
the normalised dict that the engine executes and logs; :func:`get_legal_actions` returns dicts
that :func:`validate_action` accepts unchanged.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from itertools import combinations
from math import comb
from typing import Any

from hexarena.games.smallworld.abilities import get_race_ability
from hexarena.games.smallworld.abilities.powers import diplomat_candidates, fortress_candidates
from hexarena.games.smallworld.conquest import (
    MAX_DIE,
    Attack,
    attack_for,
    berserk_roll,
    conquer_refusal,
    final_refusal,
    open_targets,
    sorcerer_refusal,
    target_refusal,
)
from hexarena.games.smallworld.enums import MARKER_SUPPLY, ActionType, Marker, Phase, RaceName
from hexarena.games.smallworld.errors import IllegalAction, InvalidPhase
from hexarena.games.smallworld.phase_machine import get_legal_action_types
from hexarena.games.smallworld.pools import ghoul_pool
from hexarena.games.smallworld.state import GameState

A = ActionType
#: Redeployments with at most this many distinct outcomes are listed in full; others compactly.
EXHAUSTIVE_LIMIT = 64
BIVOUACS = MARKER_SUPPLY[Marker.ENCAMPMENT]
HEROES = MARKER_SUPPLY[Marker.HERO]
_PAYLOAD_KEYS: dict[ActionType, frozenset[str]] = {
    A.PICK_COMBO: frozenset({"index"}),
    A.ABANDON: frozenset({"region_ids"}),
    A.CONQUER: frozenset({"region_id"}),
    A.FINAL_CONQUEST: frozenset({"region_id"}),
    A.USE_DRAGON: frozenset({"region_id"}),
    A.USE_SORCERER: frozenset({"region_id"}),
    A.REDEPLOY: frozenset({"placements"}),
    A.PLACE_BIVOUACS: frozenset({"placements"}),
    A.OPPONENT_REDEPLOY: frozenset({"placements"}),
    A.PLACE_FORTRESS: frozenset({"region_id"}),
    A.PLACE_HEROES: frozenset({"region_ids"}),
    A.CHOOSE_DIPLOMAT_ALLY: frozenset({"target_player"}),
    A.STOUT_DECLINE: frozenset({"decline"}),
}


# ---------------------------------------------------------------------------- parsing ---
def normalize_type(action: Any) -> ActionType:
    """The ActionType of ``action`` (the enum member or its name, any case)."""
    if not isinstance(action, Mapping):
        raise IllegalAction(f"an action is a dict with a 'type' key, got {type(action).__name__}")
    raw = action.get("type")
    if isinstance(raw, ActionType):
        return raw
    if isinstance(raw, str) and raw.strip().upper() in ActionType.__members__:
        return ActionType[raw.strip().upper()]
    raise IllegalAction(f"unknown action type {raw!r}; known types: {', '.join(ActionType.__members__)}")


def _int(value: Any, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        if isinstance(value, str) and value.strip().lstrip("-").isdigit():
            return int(value)
        raise IllegalAction(f"{what} must be an integer, got {value!r}")
    return value


def _int_list(value: Any, what: str) -> list[int]:
    if isinstance(value, (str, bytes, Mapping)) or not hasattr(value, "__iter__"):
        raise IllegalAction(f"{what} must be a list of region ids, got {value!r}")
    out = [_int(v, what) for v in value]
    if len(set(out)) != len(out):
        raise IllegalAction(f"{what} lists a region twice: {out}")
    return out


def _placements(value: Any) -> dict[int, int]:
    """{region_id: count}; also accepts [[region_id, count], ...] and string keys (from JSON)."""
    if isinstance(value, Mapping):
        items = list(value.items())
    elif isinstance(value, (list, tuple)) and all(
        isinstance(p, (list, tuple)) and len(p) == 2 for p in value
    ):
        items = [tuple(p) for p in value]
    else:
        raise IllegalAction(f"placements must be a {{region_id: count}} mapping, got {value!r}")
    out: dict[int, int] = {}
    for k, v in items:
        rid, n = _int(k, "placement region id"), _int(v, "placement count")
        if rid in out:
            raise IllegalAction(f"placements name region {rid} twice")
        if n < 0:
            raise IllegalAction(f"placement count for region {rid} is negative ({n})")
        out[rid] = n
    return dict(sorted(out.items()))


# ------------------------------------------------------------------------- validation ---
def validate_action(gs: GameState, player_id: int, action: Any) -> dict[str, Any]:
    """The normalised action if ``player_id`` may play it now; raises otherwise."""
    atype = normalize_type(action)
    if player_id != gs.acting_player:
        raise IllegalAction(f"it is player {gs.acting_player}'s move, not player {player_id}'s")
    if atype not in get_legal_action_types(gs):
        raise InvalidPhase(f"{atype.value} is not allowed in phase {gs.phase.value}")
    extra = set(action) - {"type"} - _PAYLOAD_KEYS.get(atype, frozenset())
    if extra:
        raise IllegalAction(f"{atype.value} does not take {', '.join(sorted(map(str, extra)))}")
    return _VALIDATORS[atype](gs, player_id, action)


def _v_pick(gs: GameState, pid: int, action: Mapping[str, Any]) -> dict[str, Any]:
    index = _int(action.get("index"), "index")
    visible = gs.combo_row.visible
    if not 0 <= index < len(visible):
        raise IllegalAction(f"combo index {index} is out of range (0..{len(visible) - 1})")
    if index > gs.players[pid].coins:
        raise IllegalAction(f"combo {index} costs {index} coins and you have {gs.players[pid].coins}")
    return {"type": A.PICK_COMBO.value, "index": index}


def _v_bare(atype: ActionType):  # EXPAND, DECLINE, SKIP_CONQUEST: no payload
    def check(gs: GameState, pid: int, action: Mapping[str, Any]) -> dict[str, Any]:
        return {"type": atype.value}

    return check


def _region_id(action: Mapping[str, Any]) -> int:
    return _int(action.get("region_id"), "region_id")


def conquest_pool(gs: GameState) -> RaceName:
    """The race attacking in the current phase (declined Ghouls in GHOUL_CONQUEST)."""
    if gs.phase is Phase.GHOUL_CONQUEST:
        ghouls = ghoul_pool(gs, gs.current_player)
        assert ghouls is not None
        return ghouls.race_name
    active = gs.players[gs.current_player].active
    assert active is not None
    return active.race_name


def _check(why: str | None) -> None:
    if why is not None:
        raise IllegalAction(why)


def _v_conquer(gs: GameState, pid: int, action: Mapping[str, Any]) -> dict[str, Any]:
    rid = _region_id(action)
    _check(conquer_refusal(attack_for(gs, pid, conquest_pool(gs)), rid))
    return {"type": A.CONQUER.value, "region_id": rid}


def _v_final(gs: GameState, pid: int, action: Mapping[str, Any]) -> dict[str, Any]:
    rid = _region_id(action)
    _check(final_refusal(attack_for(gs, pid, conquest_pool(gs)), rid))
    return {"type": A.FINAL_CONQUEST.value, "region_id": rid}


def _v_dragon(gs: GameState, pid: int, action: Mapping[str, Any]) -> dict[str, Any]:
    rid = _region_id(action)
    att = attack_for(gs, pid)
    _check(target_refusal(att, rid))
    if att.hand < 1:
        raise IllegalAction("the Dragon needs 1 token in hand")
    return {"type": A.USE_DRAGON.value, "region_id": rid}


def _v_sorcerer(gs: GameState, pid: int, action: Mapping[str, Any]) -> dict[str, Any]:
    rid = _region_id(action)
    _check(sorcerer_refusal(attack_for(gs, pid), rid))
    return {"type": A.USE_SORCERER.value, "region_id": rid}


def _v_abandon(gs: GameState, pid: int, action: Mapping[str, Any]) -> dict[str, Any]:
    rids = _int_list(action.get("region_ids"), "region_ids")
    if not rids:
        raise IllegalAction("ABANDON needs at least one region id")
    active = gs.players[pid].active
    assert active is not None
    for rid in rids:
        if not 0 <= rid < len(gs.regions) or gs.regions[rid].race != active.race_name:
            raise IllegalAction(f"region {rid} is not held by your active {active.race_name.value}")
    return {"type": A.ABANDON.value, "region_ids": sorted(rids)}


def redeploy_pools(gs: GameState, pid: int) -> list[tuple[RaceName, list[int], int]]:
    """(race, held regions, tokens to place) for each pool the REDEPLOY covers."""
    player = gs.players[pid]
    pools = []
    if player.active is not None:
        race = player.active.race_name
        held = gs.race_regions(race)
        if held:
            total = player.active.tokens_in_hand + gs.race_tokens_on_map(race)
            withheld = min(get_race_ability(race).tokens_withheld_at_redeploy(), total - len(held))
            pools.append((race, held, total - max(0, withheld)))
    ghouls = ghoul_pool(gs, pid) if gs.ghoul_turn else None
    if ghouls is not None:
        held = gs.race_regions(ghouls.race_name)
        if held:
            pools.append(
                (ghouls.race_name, held, ghouls.tokens_in_hand + gs.race_tokens_on_map(ghouls.race_name))
            )
    return pools


def opponent_redeploy_pools(gs: GameState, pid: int) -> list[tuple[RaceName, list[int], int]]:
    """(race, held regions, pending tokens) for each of ``pid``'s pools with tokens to put back."""
    pools = []
    for race, n in gs.pending.items():
        if n > 0 and gs.race_owner(race) == pid:
            held = gs.race_regions(race)
            if held:
                pools.append((race, held, n))
    return pools


def _check_pools(
    placements: dict[int, int], pools: list[tuple[RaceName, list[int], int]], minimum: int, what: str
) -> None:
    allowed = {rid: race for race, held, _ in pools for rid in held}
    for rid in placements:
        if rid not in allowed:
            raise IllegalAction(f"{what}: region {rid} is not one of your regions to place in")
    for race, held, total in pools:
        for rid in held:
            if placements.get(rid, 0) < minimum:
                raise IllegalAction(f"{what}: region {rid} needs at least {minimum} {race.value} token")
        placed = sum(placements.get(rid, 0) for rid in held)
        if placed != total:
            raise IllegalAction(f"{what}: place exactly {total} {race.value} tokens, not {placed}")


def _v_redeploy(gs: GameState, pid: int, action: Mapping[str, Any]) -> dict[str, Any]:
    placements = _placements(action.get("placements"))
    _check_pools(placements, redeploy_pools(gs, pid), 1, "REDEPLOY")
    return {"type": A.REDEPLOY.value, "placements": placements}


def _v_opponent_redeploy(gs: GameState, pid: int, action: Mapping[str, Any]) -> dict[str, Any]:
    placements = _placements(action.get("placements"))
    _check_pools(placements, opponent_redeploy_pools(gs, pid), 0, "OPPONENT_REDEPLOY")
    return {"type": A.OPPONENT_REDEPLOY.value, "placements": {k: v for k, v in placements.items() if v}}


def _v_bivouacs(gs: GameState, pid: int, action: Mapping[str, Any]) -> dict[str, Any]:
    placements = _placements(action.get("placements"))
    held = set(gs.player_active_regions(pid))
    for rid in placements:
        if rid not in held:
            raise IllegalAction(f"PLACE_BIVOUACS: region {rid} is not held by your active race")
    if sum(placements.values()) != BIVOUACS:
        raise IllegalAction(
            f"PLACE_BIVOUACS: place all {BIVOUACS} Encampments, not {sum(placements.values())}"
        )
    return {"type": A.PLACE_BIVOUACS.value, "placements": {k: v for k, v in placements.items() if v}}


def _optional_choice(
    atype: ActionType, key: str, action: Mapping[str, Any], allowed: list[int], refusal: str
) -> dict[str, Any]:
    """A payload that is either null (no choice) or one of ``allowed``."""
    raw = action.get(key)
    if raw is None:
        return {"type": atype.value, key: None}
    value = _int(raw, key)
    if value not in allowed:
        raise IllegalAction(refusal.format(value))
    return {"type": atype.value, key: value}


def _v_fortress(gs: GameState, pid: int, action: Mapping[str, Any]) -> dict[str, Any]:
    refusal = "no Fortress may go on region {} (held, without one, box not empty)"
    return _optional_choice(A.PLACE_FORTRESS, "region_id", action, fortress_candidates(gs, pid), refusal)


def _v_heroes(gs: GameState, pid: int, action: Mapping[str, Any]) -> dict[str, Any]:
    rids = _int_list(action.get("region_ids"), "region_ids")
    held = gs.player_active_regions(pid)
    need = min(HEROES, len(held))
    if len(rids) != need:
        raise IllegalAction(f"PLACE_HEROES: name exactly {need} different held regions, not {len(rids)}")
    for rid in rids:
        if rid not in held:
            raise IllegalAction(f"PLACE_HEROES: region {rid} is not held by your active race")
    return {"type": A.PLACE_HEROES.value, "region_ids": sorted(rids)}


def _v_diplomat(gs: GameState, pid: int, action: Mapping[str, Any]) -> dict[str, Any]:
    refusal = "player {} is not an opponent you left in peace this turn"
    return _optional_choice(
        A.CHOOSE_DIPLOMAT_ALLY, "target_player", action, diplomat_candidates(gs, pid), refusal
    )


def _v_stout(gs: GameState, pid: int, action: Mapping[str, Any]) -> dict[str, Any]:
    decline = action.get("decline")
    if not isinstance(decline, bool):
        raise IllegalAction(f"STOUT_DECLINE needs decline: true or false, got {decline!r}")
    return {"type": A.STOUT_DECLINE.value, "decline": decline}


_VALIDATORS = {
    A.PICK_COMBO: _v_pick,
    A.EXPAND: _v_bare(A.EXPAND),
    A.DECLINE: _v_bare(A.DECLINE),
    A.SKIP_CONQUEST: _v_bare(A.SKIP_CONQUEST),
    A.ABANDON: _v_abandon,
    A.CONQUER: _v_conquer,
    A.FINAL_CONQUEST: _v_final,
    A.USE_DRAGON: _v_dragon,
    A.USE_SORCERER: _v_sorcerer,
    A.REDEPLOY: _v_redeploy,
    A.PLACE_BIVOUACS: _v_bivouacs,
    A.PLACE_FORTRESS: _v_fortress,
    A.PLACE_HEROES: _v_heroes,
    A.CHOOSE_DIPLOMAT_ALLY: _v_diplomat,
    A.STOUT_DECLINE: _v_stout,
    A.OPPONENT_REDEPLOY: _v_opponent_redeploy,
}


# ------------------------------------------------------------------------ enumeration ---
def _conquerable(att: Attack, targets: dict[int, int]) -> list[int]:
    roll = berserk_roll(att)
    return [rid for rid, cost in targets.items() if max(1, cost - roll) <= att.hand]


def _finals(att: Attack, targets: dict[int, int]) -> list[int]:
    if att.hand < 1:
        return []
    return [rid for rid, cost in targets.items() if 1 <= cost - att.hand <= MAX_DIE]


def get_conquerable_regions(gs: GameState, player_id: int, race: RaceName | None = None) -> list[int]:
    """Regions the pool (default: the active race) may CONQUER now with the tokens in hand."""
    att = attack_for(gs, player_id, race)
    return _conquerable(att, open_targets(att))


def get_final_targets(gs: GameState, player_id: int, race: RaceName | None = None) -> list[int]:
    """Regions the pool (default: the active race) may try with a die-backed final attempt."""
    att = attack_for(gs, player_id, race)
    return _finals(att, open_targets(att))


class _Scan:
    """The attacking pool's open targets, computed at most once per enumeration."""

    def __init__(self, gs: GameState, pid: int) -> None:
        self.gs, self.pid = gs, pid
        self._value: tuple[Attack, dict[int, int]] | None = None

    def __call__(self) -> tuple[Attack, dict[int, int]]:
        if self._value is None:
            att = attack_for(self.gs, self.pid, conquest_pool(self.gs))
            self._value = (att, open_targets(att))
        return self._value


def _spread(regions: list[int], total: int, minimum: int) -> dict[int, int]:
    n = len(regions)
    extra = total - minimum * n
    return {rid: minimum + extra // n + (1 if i < extra % n else 0) for i, rid in enumerate(regions)}


def _compositions(n: int, extra: int) -> Iterator[tuple[int, ...]]:
    if n == 1:
        yield (extra,)
        return
    for first in range(extra, -1, -1):
        for rest in _compositions(n - 1, extra - first):
            yield (first, *rest)


def distributions(
    regions: list[int], total: int, minimum: int, exhaustive: bool | None
) -> list[dict[int, int]]:
    """Ways to put ``total`` tokens on ``regions`` (at least ``minimum`` each).

    Exhaustive lists every way; compact gives an even spread plus "all spare tokens on one
    region" for each region. ``None`` picks exhaustive when there are at most EXHAUSTIVE_LIMIT.
    """
    n, extra = len(regions), total - minimum * len(regions)
    if extra < 0 or n == 0:
        return []
    if exhaustive is None:
        exhaustive = comb(extra + n - 1, n - 1) <= EXHAUSTIVE_LIMIT
    if exhaustive:
        return [
            {rid: minimum + x for rid, x in zip(regions, combo, strict=True)}
            for combo in _compositions(n, extra)
        ]
    out = [_spread(regions, total, minimum)]
    for rid in regions:
        option = dict.fromkeys(regions, minimum)
        option[rid] += extra
        if option not in out:
            out.append(option)
    return out


def _pool_options(
    pools: list[tuple[RaceName, list[int], int]], minimum: int, exhaustive: bool | None
) -> list[dict[int, int]]:
    """Placements across pools: every option of one pool with the even spread of the others."""
    per_pool = [distributions(held, total, minimum, exhaustive) for _, held, total in pools]
    if not per_pool:
        return []
    base = [opts[0] for opts in per_pool]
    out: list[dict[int, int]] = []
    for i, opts in enumerate(per_pool):
        for opt in opts:
            merged: dict[int, int] = {}
            for j, chosen in enumerate(base):
                merged.update(opt if j == i else chosen)
            merged = dict(sorted(merged.items()))
            if merged not in out:
                out.append(merged)
    return out


def get_legal_actions(gs: GameState, exhaustive: bool | None = None) -> list[dict[str, Any]]:
    """Every legal action of the acting player (placements per ``exhaustive``, see distributions)."""
    if gs.phase is Phase.GAME_OVER:
        return []
    pid = gs.acting_player
    scan = _Scan(gs, pid)
    out: list[dict[str, Any]] = []
    for atype in get_legal_action_types(gs):
        out.extend(_ENUMERATORS[atype](gs, pid, exhaustive, scan))
    return out


def _e_pick(gs: GameState, pid: int, exhaustive: bool | None, scan: _Scan) -> list[dict[str, Any]]:
    coins = gs.players[pid].coins
    return [{"type": A.PICK_COMBO.value, "index": i} for i in range(len(gs.combo_row.visible)) if i <= coins]


def _e_bare(atype: ActionType):
    def enum(gs: GameState, pid: int, exhaustive: bool | None, scan: _Scan) -> list[dict[str, Any]]:
        return [{"type": atype.value}]

    return enum


def _e_conquer(gs: GameState, pid: int, exhaustive: bool | None, scan: _Scan) -> list[dict[str, Any]]:
    return [{"type": A.CONQUER.value, "region_id": rid} for rid in _conquerable(*scan())]


def _e_final(gs: GameState, pid: int, exhaustive: bool | None, scan: _Scan) -> list[dict[str, Any]]:
    return [{"type": A.FINAL_CONQUEST.value, "region_id": rid} for rid in _finals(*scan())]


def _e_dragon(gs: GameState, pid: int, exhaustive: bool | None, scan: _Scan) -> list[dict[str, Any]]:
    att, targets = scan()
    return [{"type": A.USE_DRAGON.value, "region_id": rid} for rid in targets] if att.hand >= 1 else []


def _e_sorcerer(gs: GameState, pid: int, exhaustive: bool | None, scan: _Scan) -> list[dict[str, Any]]:
    att, targets = scan()
    return [
        {"type": A.USE_SORCERER.value, "region_id": rid}
        for rid in targets
        if sorcerer_refusal(att, rid) is None
    ]


def _e_abandon(gs: GameState, pid: int, exhaustive: bool | None, scan: _Scan) -> list[dict[str, Any]]:
    active = gs.players[pid].active
    assert active is not None
    return [{"type": A.ABANDON.value, "region_ids": [rid]} for rid in gs.race_regions(active.race_name)]


def _e_redeploy(gs: GameState, pid: int, exhaustive: bool | None, scan: _Scan) -> list[dict[str, Any]]:
    opts = _pool_options(redeploy_pools(gs, pid), 1, exhaustive)
    return [{"type": A.REDEPLOY.value, "placements": p} for p in opts]


def _e_opponent_redeploy(
    gs: GameState, pid: int, exhaustive: bool | None, scan: _Scan
) -> list[dict[str, Any]]:
    opts = _pool_options(opponent_redeploy_pools(gs, pid), 0, exhaustive)
    return [
        {"type": A.OPPONENT_REDEPLOY.value, "placements": {k: v for k, v in p.items() if v}} for p in opts
    ]


def _e_bivouacs(gs: GameState, pid: int, exhaustive: bool | None, scan: _Scan) -> list[dict[str, Any]]:
    held = gs.player_active_regions(pid)
    opts = distributions(held, BIVOUACS, 0, exhaustive)
    return [{"type": A.PLACE_BIVOUACS.value, "placements": {k: v for k, v in p.items() if v}} for p in opts]


def _e_fortress(gs: GameState, pid: int, exhaustive: bool | None, scan: _Scan) -> list[dict[str, Any]]:
    return [
        {"type": A.PLACE_FORTRESS.value, "region_id": rid} for rid in [*fortress_candidates(gs, pid), None]
    ]


def _e_heroes(gs: GameState, pid: int, exhaustive: bool | None, scan: _Scan) -> list[dict[str, Any]]:
    held = gs.player_active_regions(pid)
    k = min(HEROES, len(held))
    return [{"type": A.PLACE_HEROES.value, "region_ids": list(c)} for c in combinations(held, k)]


def _e_diplomat(gs: GameState, pid: int, exhaustive: bool | None, scan: _Scan) -> list[dict[str, Any]]:
    targets: list[int | None] = [*diplomat_candidates(gs, pid), None]
    return [{"type": A.CHOOSE_DIPLOMAT_ALLY.value, "target_player": t} for t in targets]


def _e_stout(gs: GameState, pid: int, exhaustive: bool | None, scan: _Scan) -> list[dict[str, Any]]:
    return [{"type": A.STOUT_DECLINE.value, "decline": d} for d in (True, False)]


_ENUMERATORS = {
    A.PICK_COMBO: _e_pick,
    A.EXPAND: _e_bare(A.EXPAND),
    A.DECLINE: _e_bare(A.DECLINE),
    A.SKIP_CONQUEST: _e_bare(A.SKIP_CONQUEST),
    A.ABANDON: _e_abandon,
    A.CONQUER: _e_conquer,
    A.FINAL_CONQUEST: _e_final,
    A.USE_DRAGON: _e_dragon,
    A.USE_SORCERER: _e_sorcerer,
    A.REDEPLOY: _e_redeploy,
    A.PLACE_BIVOUACS: _e_bivouacs,
    A.PLACE_FORTRESS: _e_fortress,
    A.PLACE_HEROES: _e_heroes,
    A.CHOOSE_DIPLOMAT_ALLY: _e_diplomat,
    A.STOUT_DECLINE: _e_stout,
    A.OPPONENT_REDEPLOY: _e_opponent_redeploy,
}
