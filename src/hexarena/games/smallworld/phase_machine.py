"""The turn's phase machine as pure functions: they read the state and never change it.

The engine executes an action, asks :func:`advance_phase` where to go, then enters that phase
(running automatic phases and skipping ones with nothing to decide).
"""

from __future__ import annotations

from hexarena.games.smallworld.abilities import get_power_ability, get_race_ability
from hexarena.games.smallworld.enums import ActionType, Phase, PowerName, RaceName
from hexarena.games.smallworld.pools import ghoul_pool
from hexarena.games.smallworld.state import GameState

A = ActionType

_PHASE_ACTIONS: dict[Phase, tuple[ActionType, ...]] = {
    Phase.PICK_COMBO: (A.PICK_COMBO,),
    Phase.CHOOSE_EXPAND_OR_DECLINE: (A.EXPAND, A.DECLINE),
    Phase.GHOUL_CONQUEST: (A.CONQUER, A.FINAL_CONQUEST, A.SKIP_CONQUEST),
    Phase.FINAL_CONQUEST: (A.FINAL_CONQUEST, A.SKIP_CONQUEST),
    Phase.REDEPLOY: (A.REDEPLOY,),
    Phase.PLACE_BIVOUACS: (A.PLACE_BIVOUACS,),
    Phase.PLACE_FORTRESS: (A.PLACE_FORTRESS,),
    Phase.PLACE_HEROES: (A.PLACE_HEROES,),
    Phase.CHOOSE_DIPLOMAT_ALLY: (A.CHOOSE_DIPLOMAT_ALLY,),
    Phase.STOUT_DECLINE: (A.STOUT_DECLINE,),
    Phase.OPPONENT_REDEPLOY: (A.OPPONENT_REDEPLOY,),
}


def get_legal_action_types(gs: GameState) -> list[ActionType]:
    """Action types the acting player may submit now."""
    if gs.phase is not Phase.CONQUEST:
        return list(_PHASE_ACTIONS.get(gs.phase, ()))
    active = gs.players[gs.current_player].active
    assert active is not None
    race_ab, power_ab = get_race_ability(active.race_name), get_power_ability(active.power_name)
    types = [A.CONQUER, A.SKIP_CONQUEST]
    if not gs.conquests_started and any(r.race == active.race_name for r in gs.regions):
        types.append(A.ABANDON)
    if not power_ab.use_reinforcement_die_per_conquest():
        types.append(A.FINAL_CONQUEST)
    if power_ab.name is PowerName.DRAGON_MASTER and not active.dragon_used_this_turn:
        types.append(A.USE_DRAGON)
    if race_ab.name is RaceName.SORCERERS:
        types.append(A.USE_SORCERER)
    return types


def get_post_redeploy_phases(gs: GameState, player_id: int) -> list[Phase]:
    """Phases the active race and power add between REDEPLOY and SCORE this turn."""
    active = gs.players[player_id].active
    if active is None:
        return []
    race_ab, power_ab = get_race_ability(active.race_name), get_power_ability(active.power_name)
    return race_ab.get_post_redeploy_phases(gs, player_id) + power_ab.get_post_redeploy_phases(gs, player_id)


def conquest_entry_phase(gs: GameState) -> Phase:
    """After PICK_COMBO or EXPAND: declined Ghouls attack first, then the active race."""
    return Phase.GHOUL_CONQUEST if ghoul_pool(gs, gs.current_player) is not None else Phase.CONQUEST


def phase_after_score(gs: GameState) -> Phase:
    active = gs.players[gs.current_player].active
    if active is not None and get_power_ability(active.power_name).can_stout_decline():
        return Phase.STOUT_DECLINE
    return Phase.OPPONENT_REDEPLOY


def advance_phase(gs: GameState, action_type: ActionType) -> Phase:
    """The phase to enter after ``action_type`` was executed in ``gs.phase``."""
    phase = gs.phase
    if action_type in (A.PICK_COMBO, A.EXPAND):
        return conquest_entry_phase(gs)
    if action_type is A.DECLINE:
        return Phase.SCORE
    if action_type is A.SKIP_CONQUEST:
        return {
            Phase.GHOUL_CONQUEST: Phase.CONQUEST,
            Phase.CONQUEST: Phase.FINAL_CONQUEST,
        }.get(phase, Phase.REDEPLOY)
    if action_type is A.FINAL_CONQUEST:
        return Phase.CONQUEST if phase is Phase.GHOUL_CONQUEST else Phase.REDEPLOY
    if action_type in (A.CONQUER, A.ABANDON, A.USE_DRAGON, A.USE_SORCERER):
        return phase
    if action_type is A.STOUT_DECLINE:
        return Phase.OPPONENT_REDEPLOY
    if action_type is A.OPPONENT_REDEPLOY:
        return Phase.OPPONENT_REDEPLOY
    # REDEPLOY and the power phases run the queue, then scoring.
    return gs.phase_queue[0] if gs.phase_queue else Phase.SCORE


def advance_to_next_player(gs: GameState) -> tuple[int, int, bool]:
    """(next player, turn number, game over) once the current player's turn has ended."""
    nxt = (gs.current_player + 1) % gs.config.num_players
    turn = gs.turn + 1 if nxt == 0 else gs.turn
    return nxt, turn, turn > gs.config.max_turns
