"""A single-agent Gymnasium environment: one role learns, the other roles are hexarena players.

``HexarenaGymEnv("hex", role="red", opponents="random", size=7)``. Observations carry the action
mask; ``info["action_mask"]`` repeats it for libraries that read masks from info. The reward is
the learner's outcome reward at the end (+1 first to -1 last); an illegal action ends the
episode with ``illegal_reward``.
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping
from typing import Any, ClassVar

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from hexarena.core.contract import GameState
from hexarena.core.errors import IllegalMoveError
from hexarena.core.players import Player, RandomPlayer
from hexarena.core.registry import make
from hexarena.rl.spaces import (
    action_mask,
    apply_action,
    observation_space,
    observe,
    outcome_rewards,
    probe_game,
)


class HexarenaGymEnv(gym.Env):
    """The learner holds ``role``; ``opponents`` is a player for all other roles or a role mapping."""

    metadata: ClassVar[dict[str, Any]] = {"render_modes": ["ansi"]}

    def __init__(
        self,
        game: str,
        *,
        role: str | None = None,
        opponents: Player | Mapping[str, Player] | None = None,
        max_rounds: int | None = None,
        illegal_reward: float = -1.0,
        render_mode: str | None = None,
        **params: Any,
    ) -> None:
        self.game, self.params = game, params
        probe = probe_game(game, params)
        self.roles = list(probe.all_roles())
        self.role = role or self.roles[0]
        if self.role not in self.roles:
            raise ValueError(f"unknown role {self.role!r}; {game} has {self.roles}")
        others = [r for r in self.roles if r != self.role]
        if isinstance(opponents, Mapping):
            self.opponents = dict(opponents)
        else:
            self.opponents = dict.fromkeys(others, opponents or RandomPlayer(seed=1))
        self.observation_space = observation_space(probe, self.role)
        self.action_space = spaces.Discrete(probe.action_count())
        self.max_rounds, self.illegal_reward, self.render_mode = max_rounds, illegal_reward, render_mode
        self.state: GameState = probe

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[dict, dict]:
        super().reset(seed=seed)
        game_seed = secrets.randbits(63) if seed is None else seed
        self.state = make(self.game, seed=game_seed, **self.params)
        for r, p in self.opponents.items():
            p.reset((r,), game_seed)
        self._opponents_move()
        return self._obs(), self._info()

    def step(self, action: int) -> tuple[dict, float, bool, bool, dict]:
        new, message = apply_action(self.state, action)
        if message is not None:
            return self._obs(), self.illegal_reward, True, False, {**self._info(), "illegal_move": message}
        self.state = new
        self._opponents_move()
        outcome = self.state.validate_game()
        if outcome is not None:
            reward = outcome_rewards(outcome, self.roles)[self.role]
            return self._obs(), reward, True, False, {**self._info(), "outcome": str(outcome)}
        truncated = self.max_rounds is not None and self.state.rounds_played() >= self.max_rounds
        return self._obs(), 0.0, False, truncated, self._info()

    def _opponents_move(self) -> None:
        while not self.state.is_over() and self.state.roles[0] != self.role:
            role = self.state.roles[0]
            reply = self.opponents[role].act(self.state.query_game(role))
            move = reply.move if reply.move is not None else self.state.parse_move(reply.raw or "")
            nxt = self.state.apply(move)
            if nxt.message is not None:
                raise IllegalMoveError(f"opponent {role} played an illegal move: {nxt.message}")
            self.state = nxt

    def _obs(self) -> dict[str, np.ndarray]:
        return observe(self.state, self.role)

    def _info(self) -> dict[str, Any]:
        return {"action_mask": action_mask(self.state, self.role), "to_move": self.state.roles[0]}

    def render(self) -> str | None:
        return self.state.render_text(self.role) if self.render_mode == "ansi" else None
