"""Token pools: each race on the map with its owner, its hand and the abilities that act for it.

A player has up to three pools: the active race and one or two declined races (Spirit). Helpers
here find a pool's state and its abilities so the rest of the engine never tests race names.
"""

from __future__ import annotations

from hexarena.games.smallworld.abilities import NULL_ABILITY, AbilityHook, get_power_ability, get_race_ability
from hexarena.games.smallworld.enums import RaceName
from hexarena.games.smallworld.state import ActiveRaceState, DeclineRaceState, GameState


def pool_state(gs: GameState, race: RaceName) -> tuple[int, ActiveRaceState | DeclineRaceState] | None:
    """(owner, active or declined race state) of ``race``, or None if it is not in play."""
    for p in gs.players:
        if p.active is not None and p.active.race_name == race:
            return p.player_id, p.active
        for d in (p.decline, p.decline_spirit):
            if d is not None and d.race_name == race:
                return p.player_id, d
    return None


def pool_abilities(gs: GameState, race: RaceName) -> tuple[AbilityHook, AbilityHook]:
    """The race and power abilities acting for ``race`` (declined ones only where they persist)."""
    found = pool_state(gs, race)
    if found is None:
        return NULL_ABILITY, NULL_ABILITY
    _, st = found
    race_ab, power_ab = get_race_ability(st.race_name), get_power_ability(st.power_name)
    if isinstance(st, DeclineRaceState):
        race_ab = race_ab if race_ab.persists_in_decline() else NULL_ABILITY
        power_ab = power_ab if power_ab.persists_in_decline() else NULL_ABILITY
    return race_ab, power_ab


def ghoul_pool(gs: GameState, pid: int) -> DeclineRaceState | None:
    """The player's declined race that keeps conquering (Ghouls), if any."""
    for d in gs.players[pid].declines():
        if get_race_ability(d.race_name).can_conquer_in_decline():
            return d
    return None
