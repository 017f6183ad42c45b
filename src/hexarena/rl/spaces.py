"""What the RL adapters share: spaces, observations with action masks, rewards from outcomes."""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces

from hexarena.core.contract import GameState, Outcome, OutcomeKind
from hexarena.core.errors import HexarenaError, IllegalMoveError
from hexarena.core.registry import make


def probe_game(game: str, params: dict[str, Any]) -> GameState:
    """A fresh state of ``game``, checked for the RL hooks."""
    state = make(game, seed=0, **params)
    if state.action_count() is None:
        raise HexarenaError(f"{game} has no discrete action space; the RL adapters need action_count()")
    return state


def observation_space(state: GameState, role: str) -> spaces.Dict:
    """``{"observation": Box, "action_mask": Box of 0/1}``, shaped after the game's arrays."""
    sample = np.asarray(state.observation_array(role))
    if np.issubdtype(sample.dtype, np.integer):
        info = np.iinfo(sample.dtype)
        low, high = info.min, info.max
    else:
        low, high = -np.inf, np.inf
    n = state.action_count()
    return spaces.Dict(
        {
            "observation": spaces.Box(low, high, sample.shape, sample.dtype),
            "action_mask": spaces.Box(0, 1, (n,), np.int8),
        }
    )


def action_mask(state: GameState, role: str) -> np.ndarray:
    """1 for each legal action of ``role`` now (all zeros when it is not that role's turn)."""
    mask = np.zeros(state.action_count(), dtype=np.int8)
    if state.roles[0] == role and not state.is_over():
        for move in state.legal_moves() or ():
            mask[state.move_to_action(move)] = 1
    return mask


def observe(state: GameState, role: str) -> dict[str, np.ndarray]:
    return {"observation": np.asarray(state.observation_array(role)), "action_mask": action_mask(state, role)}


def apply_action(state: GameState, action: int) -> tuple[GameState, str | None]:
    """The state after a discrete action, and the rejection message (None when accepted)."""
    try:
        new = state.apply(state.action_to_move(int(action)))
    except IllegalMoveError as exc:
        return state, str(exc)
    return new, new.message


def outcome_rewards(outcome: Outcome, roles: list[str]) -> dict[str, float]:
    """+1 for first place down to -1 for last (ties share the mean); 0 for all on draw or truncation."""
    if outcome.kind in (OutcomeKind.DRAW, OutcomeKind.TRUNCATED, OutcomeKind.ERROR) or len(roles) < 2:
        return dict.fromkeys(roles, 0.0)
    rewards, place = {}, 0
    for group in outcome.ranking:
        mean_place = place + (len(group) - 1) / 2
        rewards.update(dict.fromkeys(group, 1.0 - 2.0 * mean_place / (len(roles) - 1)))
        place += len(group)
    return {r: rewards.get(r, -1.0) for r in roles}
