"""A PettingZoo AEC environment over any hexarena game with RL hooks.

Agents are the game's roles. Observations are ``{"observation", "action_mask"}``. Rewards come
at the end from the outcome (+1 first to -1 last). An illegal action either ends the game with
``illegal_reward`` for the offender (``illegal="terminate"``, PettingZoo's classic convention) or
leaves the same agent to act with the rejection in ``infos[agent]["feedback"]``
(``illegal="feedback"``).
"""

from __future__ import annotations

import secrets
from typing import Any, ClassVar, Literal

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from hexarena.core.contract import GameState
from hexarena.core.registry import make
from hexarena.rl.spaces import apply_action, observation_space, observe, outcome_rewards, probe_game


def new_episode(env: AECEnv) -> None:
    """An AEC environment's per-agent bookkeeping, fresh for a new episode (every agent in)."""
    env.agents = list(env.possible_agents)
    env.rewards = dict.fromkeys(env.agents, 0.0)
    env._cumulative_rewards = dict.fromkeys(env.agents, 0.0)
    env.terminations = dict.fromkeys(env.agents, False)
    env.truncations = dict.fromkeys(env.agents, False)
    env.infos = {a: {} for a in env.agents}


class HexarenaAECEnv(AECEnv):
    """``HexarenaAECEnv("hex", size=7)``: turn-based multi-agent play of a hexarena game."""

    metadata: ClassVar[dict[str, Any]] = {
        "name": "hexarena_aec_v0",
        "render_modes": ["ansi"],
        "is_parallelizable": False,
    }

    def __init__(
        self,
        game: str,
        *,
        render_mode: str | None = None,
        max_rounds: int | None = None,
        illegal: Literal["terminate", "feedback"] = "terminate",
        illegal_reward: float = -1.0,
        **params: Any,
    ) -> None:
        super().__init__()
        self.game, self.params = game, params
        self.render_mode = render_mode
        self.max_rounds, self.illegal, self.illegal_reward = max_rounds, illegal, illegal_reward
        probe = probe_game(game, params)
        self.possible_agents = list(probe.all_roles())
        self._obs_spaces = {a: observation_space(probe, a) for a in self.possible_agents}
        self._act_spaces = {a: spaces.Discrete(probe.action_count()) for a in self.possible_agents}
        self.state: GameState = probe

    def observation_space(self, agent: str) -> spaces.Space:
        return self._obs_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self._act_spaces[agent]

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        self.state = make(self.game, seed=secrets.randbits(63) if seed is None else seed, **self.params)
        new_episode(self)
        self.agent_selection = self.state.roles[0]

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        return observe(self.state, agent)

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self._cumulative_rewards[agent] = 0.0
        self._clear_rewards()
        self.infos = {a: {} for a in self.agents}
        new, message = apply_action(self.state, action)
        if message is not None:
            self._reject(agent, message)
        else:
            self.state = new
            self._settle()
        self._accumulate_rewards()

    def _reject(self, agent: str, message: str) -> None:
        if self.illegal == "feedback":
            self.infos[agent]["feedback"] = message
            return
        self.infos[agent]["illegal_move"] = message
        self.rewards[agent] = self.illegal_reward
        self.terminations = dict.fromkeys(self.agents, True)

    def _settle(self) -> None:
        """After an accepted move: end, truncate, or pass the turn."""
        outcome = self.state.validate_game()
        if outcome is not None:
            self.rewards.update(outcome_rewards(outcome, self.agents))
            self.terminations = dict.fromkeys(self.agents, True)
            for a in self.agents:
                self.infos[a]["outcome"] = str(outcome)
        elif self.max_rounds is not None and self.state.rounds_played() >= self.max_rounds:
            self.truncations = dict.fromkeys(self.agents, True)
        self.agent_selection = self.state.roles[0]

    def render(self) -> str | None:
        if self.render_mode == "ansi":
            return self.state.render_text()
        return None

    def close(self) -> None:
        pass
