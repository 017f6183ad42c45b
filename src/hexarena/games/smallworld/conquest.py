"""Conquest: what a region costs, who may attack it, and what happens to its defenders.

An attack is made by a *pool* (a race in play, named by its race): the active race in CONQUEST,
or declined Ghouls in GHOUL_CONQUEST. ``*_refusal`` functions return the reason an attack is not
allowed (None when it is), so validation can say exactly what was wrong.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from hexarena.games.smallworld.abilities import AbilityHook
from hexarena.games.smallworld.enums import DEFENSIVE_MARKERS, Marker, RaceName
from hexarena.games.smallworld.pools import pool_abilities, pool_state
from hexarena.games.smallworld.state import ActiveRaceState, GameState

BASE_COST = 2
#: The reinforcement die shows at most 3: a final conquest may be at most this many tokens short.
MAX_DIE = 3


@dataclass(slots=True)
class Attack:
    """Everything about an attacking pool that does not depend on the target (computed once)."""

    gs: GameState
    pid: int
    race: RaceName
    race_ab: AbilityHook
    power_ab: AbilityHook
    held: set[int]
    reach: set[int] | None  # None: any region (Flying); otherwise the reachable regions
    hand: int
    sea_ok: bool


def attack_for(gs: GameState, pid: int, race: RaceName | None = None) -> Attack:
    """The attack context of ``pid``'s pool ``race`` (default: the active race)."""
    if race is None:
        active = gs.players[pid].active
        if active is None:
            raise ValueError(f"player {pid} has no active race")
        race = active.race_name
    found = pool_state(gs, race)
    assert found is not None and found[0] == pid
    race_ab, power_ab = pool_abilities(gs, race)
    held = {r.region_id for r in gs.regions if r.race == race}
    reach: set[int] | None
    if race_ab.ignore_adjacency() or power_ab.ignore_adjacency():
        reach = None
    elif not held:
        reach = set()
        for region in gs.map.regions:
            rule = race_ab.is_valid_first_target(gs, region.id)
            if rule is None:
                rule = power_ab.is_valid_first_target(gs, region.id)
            if rule if rule is not None else region.is_border:
                reach.add(region.id)
    else:
        reach = set()
        for rid in held:
            reach |= gs.map.adjacency[rid]
        reach |= race_ab.get_extra_adjacency(gs, held) | power_ab.get_extra_adjacency(gs, held)
    sea_ok = race_ab.can_conquer_sea() or power_ab.can_conquer_sea()
    return Attack(gs, pid, race, race_ab, power_ab, held, reach, found[1].tokens_in_hand, sea_ok)


def compute_base_conquest_cost(region_id: int, gs: GameState) -> int:
    """2, +1 per defending token or Lost Tribe, +1 per Mountain, Lair, Fortress or Encampment."""
    st = gs.regions[region_id]
    cost = BASE_COST + st.tokens + int(st.has_lost_tribe)
    for m in st.markers:
        if m in DEFENSIVE_MARKERS:
            cost += 1
    return cost


def compute_conquest_cost(region_id: int, gs: GameState, player_id: int, race: RaceName | None = None) -> int:
    return _cost(attack_for(gs, player_id, race), region_id)


def _cost(att: Attack, region_id: int) -> int:
    if att.gs.map.regions[region_id].is_water:
        return BASE_COST  # Seafaring: water is conquered as an empty region, with no discount
    gs = att.gs
    discount = att.race_ab.modify_conquest_cost(gs, att.pid, region_id) + att.power_ab.modify_conquest_cost(
        gs, att.pid, region_id
    )
    return max(1, compute_base_conquest_cost(region_id, gs) - discount)


def is_immune(gs: GameState, region_id: int) -> bool:
    """Hero, Dragon or Hole-in-the-Ground: the defending race's or power's immunity."""
    st = gs.regions[region_id]
    if st.race is None or not st.markers:
        return False
    race_ab, power_ab = pool_abilities(gs, st.race)
    return race_ab.is_region_immune(gs, region_id) or power_ab.is_region_immune(gs, region_id)


def target_refusal(att: Attack, region_id: int) -> str | None:
    """Why ``region_id`` may not be attacked by this pool at all (tokens aside), or None."""
    gs = att.gs
    if not isinstance(region_id, int) or isinstance(region_id, bool) or not 0 <= region_id < len(gs.regions):
        return f"region {region_id!r} does not exist (regions are 0..{len(gs.regions) - 1})"
    return _refusal(att, region_id)


def _refusal(att: Attack, region_id: int) -> str | None:
    gs = att.gs
    st = gs.regions[region_id]
    region = gs.map.regions[region_id]
    if st.race == att.race:
        return f"region {region_id} is already held by your {att.race.value}"
    if region.is_water and not att.sea_ok:
        return f"region {region_id} is a {region.terrain.value.lower()}; only Seafaring may conquer water"
    if is_immune(gs, region_id):
        return f"region {region_id} is immune (Hero, Dragon or Hole-in-the-Ground)"
    if st.owner is not None and st.owner != att.pid and _protected(gs, st.owner, st.race, att.pid):
        return f"region {region_id} belongs to a Diplomat's active race that made peace with you"
    if att.reach is not None and region_id not in att.reach:
        if att.held:
            return f"region {region_id} is not adjacent to a region your {att.race.value} hold"
        return f"region {region_id} is not a border region (a race enters the map through the border)"
    if not (
        att.race_ab.can_conquer_target(gs, att.pid, region_id)
        and att.power_ab.can_conquer_target(gs, att.pid, region_id)
    ):
        return f"your {att.race.value} may not attack region {region_id}"
    return None


def open_targets(att: Attack) -> dict[int, int]:
    """Every region the pool may attack now (tokens aside), with its cost before any die roll."""
    ids = range(len(att.gs.regions)) if att.reach is None else sorted(att.reach)
    return {rid: _cost(att, rid) for rid in ids if rid not in att.held and _refusal(att, rid) is None}


def _protected(gs: GameState, defender: int, race: RaceName | None, attacker: int) -> bool:
    active = gs.players[defender].active
    return gs.diplomat_immunity.get(defender) == attacker and active is not None and active.race_name == race


def conquer_refusal(att: Attack, region_id: int) -> str | None:
    """Why a CONQUER of ``region_id`` is refused (tokens included), or None."""
    why = target_refusal(att, region_id)
    if why is not None:
        return why
    cost = _cost(att, region_id) - berserk_roll(att)
    cost = max(1, cost)
    if att.hand < cost:
        return f"region {region_id} costs {cost} tokens and you have {att.hand} in hand"
    return None


def berserk_roll(att: Attack) -> int:
    """The die already rolled for a Berserk race's next conquest (0 otherwise)."""
    active = att.gs.players[att.pid].active
    if (
        active is None
        or active.race_name != att.race
        or not att.power_ab.use_reinforcement_die_per_conquest()
    ):
        return 0
    return active.berserk_die_result or 0


def effective_cost(att: Attack, region_id: int) -> int:
    return max(1, _cost(att, region_id) - berserk_roll(att))


def final_refusal(att: Attack, region_id: int) -> str | None:
    """Why a die-backed final conquest of ``region_id`` is refused, or None."""
    why = target_refusal(att, region_id)
    if why is not None:
        return why
    short = _cost(att, region_id) - att.hand
    if att.hand < 1:
        return "a final conquest needs at least 1 token in hand"
    if not 1 <= short <= MAX_DIE:
        return f"a final conquest must be 1 to 3 tokens short; region {region_id} is {short} short"
    return None


def can_conquer_region(region_id: int, gs: GameState, player_id: int, race: RaceName | None = None) -> bool:
    return conquer_refusal(attack_for(gs, player_id, race), region_id) is None


def sorcerer_refusal(att: Attack, region_id: int) -> str | None:
    """Why the Sorcerers may not convert the lone token in ``region_id``, or None."""
    gs = att.gs
    why = target_refusal(att, region_id)
    if why is not None:
        return why
    st = gs.regions[region_id]
    active = gs.players[att.pid].active
    assert active is not None
    if st.owner is None or st.owner == att.pid or st.is_decline:
        return f"region {region_id} holds no opponent's active race"
    if st.tokens != 1:
        return f"region {region_id} holds {st.tokens} tokens; Sorcerers convert a lone token only"
    if Marker.ENCAMPMENT in st.markers:
        return f"region {region_id} has an Encampment, which protects it from the Sorcerers"
    if region_id not in _adjacent_to_held(att):
        return f"region {region_id} is not adjacent to your Sorcerers"
    if st.owner in active.sorcerer_targets_this_turn:
        return f"the Sorcerers already converted a token of player {st.owner} this turn"
    if gs.tray[RaceName.SORCERERS] <= 0:
        return "no Sorcerer token is left in the tray"
    return None


def _adjacent_to_held(att: Attack) -> set[int]:
    out: set[int] = set()
    for rid in att.held:
        out |= att.gs.map.adjacency[rid]
    return out


def execute_conquest(
    region_id: int, gs: GameState, player_id: int, tokens_used: int, race: RaceName
) -> dict[str, Any]:
    """Take ``region_id`` with ``tokens_used`` tokens of ``race`` from its owner's hand.

    Returns the public account of it (for the event log): who took what from whom, with how many.
    """
    st = gs.regions[region_id]
    non_empty = st.has_lost_tribe or st.tokens > 0
    defender, defender_race, tokens = st.owner, st.race, st.tokens
    account: dict[str, Any] = {
        "race": race.value,
        "region": region_id,
        "tokens": tokens_used,
        "defender": defender,
        "defender_race": defender_race.value if defender_race else None,
        "defender_tokens": tokens,
        "defender_lost": 0,
        "lost_tribe": st.has_lost_tribe,
    }
    active = gs.players[player_id].active
    is_active_pool = active is not None and active.race_name == race
    if (
        defender is not None
        and defender != player_id
        and is_active_pool
        and is_active_race(gs, defender, defender_race)
    ):
        active.opponents_attacked_this_turn.add(defender)
    st.clear()
    st.has_lost_tribe = False
    if defender_race is not None:
        account["defender_lost"] = handle_displacement(gs, defender_race, tokens)
    found = pool_state(gs, race)
    assert found is not None
    found[1].tokens_in_hand -= tokens_used
    st.owner, st.race, st.tokens, st.is_decline = player_id, race, tokens_used, not is_active_pool
    if is_active_pool:
        assert isinstance(active, ActiveRaceState)
        active.regions_conquered_this_turn.append(region_id)
        active.non_empty_conquests_this_turn += int(non_empty)
    race_ab, power_ab = pool_abilities(gs, race)
    race_ab.on_region_conquered(gs, player_id, region_id, non_empty)
    power_ab.on_region_conquered(gs, player_id, region_id, non_empty)
    return account


def is_active_race(gs: GameState, player: int, race: RaceName | None) -> bool:
    """True if ``race`` is ``player``'s active race."""
    active = gs.players[player].active
    return active is not None and active.race_name == race


def handle_displacement(gs: GameState, race: RaceName, tokens: int) -> int:
    """The defender discards 1 token (Elves none) and keeps the rest; returns the discarded count.

    Tokens of a pool that redeploys this very turn (the turn player's own races) go straight to
    its hand; others wait in ``gs.pending`` until the end of the attacker's turn.
    """
    race_ab, _ = pool_abilities(gs, race)
    loss = min(tokens, race_ab.modify_tokens_lost_on_defeat(1))
    gs.return_to_tray(race, loss)
    back = tokens - loss
    if back <= 0:
        return loss
    found = pool_state(gs, race)
    assert found is not None
    owner, pool = found
    turn_pool = owner == gs.current_player and (
        isinstance(pool, ActiveRaceState) or (gs.ghoul_turn and race_ab.can_conquer_in_decline())
    )
    if turn_pool:
        pool.tokens_in_hand += back
    else:
        gs.pending[race] = gs.pending.get(race, 0) + back
    return loss


def convert_with_sorcerer(gs: GameState, player_id: int, region_id: int) -> dict[str, Any]:
    """Replace the lone enemy token with a Sorcerer from the tray."""
    st = gs.regions[region_id]
    active = gs.players[player_id].active
    assert active is not None and st.owner is not None and st.race is not None
    active.sorcerer_targets_this_turn.add(st.owner)
    gs.tray[RaceName.SORCERERS] -= 1
    active.tokens_in_hand += 1
    return execute_conquest(region_id, gs, player_id, 1, active.race_name)
