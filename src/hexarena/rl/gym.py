"""A single-agent Gymnasium environment: one role learns, configured opponents play the others.

``HexarenaGymEnv("hex", role="red", opponents="random", size=7)``, or through the registry,
``gymnasium.make("hexarena/Hex-v0", opponents="heuristic")`` (see :mod:`hexarena.rl`).
Observations are ``{"observation": array, "action_mask": 0/1 array}``; :meth:`action_masks`
and ``info["action_mask"]`` give the same mask (sb3-contrib's MaskablePPO reads the method).

Rewards: ``reward="sparse"`` (default) pays the learner's outcome at the end (+1 first to -1
last, 0 on a draw or a truncation); ``reward="shaped"`` adds ``shaping_scale`` times the change
of the game's progress measure over each step (City of Gold: hexes gained toward El Dorado;
Small World: coins gained; Hex: none). An illegal action ends the episode with
``illegal_reward``. At the end, ``info["outcome"]`` and ``info["outcome_reward"]`` (the sparse
part) tell the result whatever the reward mode.
Opponents: see :mod:`.opponents`. ``engine="contract"`` steps the immutable contract states
instead of the game's mutable engine (:mod:`.cores`): the same games, slower; the reference the
fast path is tested and benchmarked against.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar, Literal

import gymnasium as gym
import numpy as np

from hexarena.core.errors import ConfigError
from hexarena.core.registry import game_class
from hexarena.rl.cores import StateCore, new_core
from hexarena.rl.opponents import Opponent, resolve
from hexarena.rl.spaces import observation_space, outcome_rewards, probe_game

SHAPING_SCALE = {"cityofgold": 0.02, "smallworld": 0.01}
"""Reward per unit of progress under ``reward="shaped"``: per hex toward El Dorado, per coin."""


class HexarenaGymEnv(gym.Env):
    """The learner holds ``role`` (default: the first); ``opponents`` is one spec for every other
    role or a mapping role -> spec (:mod:`.opponents`)."""

    metadata: ClassVar[dict[str, Any]] = {"render_modes": ["ansi"]}

    def __init__(
        self,
        game: str,
        *,
        role: str | None = None,
        opponents: Any = "random",
        reward: Literal["sparse", "shaped"] = "sparse",
        shaping_scale: float | None = None,
        seed: int | None = None,
        max_rounds: int | None = None,
        illegal_reward: float = -1.0,
        render_mode: str | None = None,
        engine: Literal["fast", "contract"] = "fast",
        **params: Any,
    ) -> None:
        self.game, self.params, self.engine = game, params, engine
        probe = probe_game(game, params)
        self.roles = list(probe.all_roles())
        self.role = role or self.roles[0]
        if self.role not in self.roles:
            raise ValueError(f"unknown role {self.role!r}; {game} has {self.roles}")
        if reward not in ("sparse", "shaped"):
            raise ConfigError(f"reward must be 'sparse' or 'shaped', got {reward!r}")
        self.reward_mode = reward
        self.shaping_scale = SHAPING_SCALE.get(game, 0.0) if shaping_scale is None else shaping_scale
        bots = dict(game_class(game).bots)
        others = [r for r in self.roles if r != self.role]
        specs = dict(opponents) if isinstance(opponents, Mapping) else dict.fromkeys(others, opponents)
        missing = set(others) - set(specs)
        if missing:
            raise ConfigError(f"opponents: no spec for role(s) {sorted(missing)}")
        self.opponents: dict[str, Opponent] = {
            r: resolve(specs[r], game, bots, seed=i) for i, r in enumerate(others)
        }
        self.observation_space = observation_space(probe, self.role)
        self.action_space = gym.spaces.Discrete(probe.action_count())
        self.max_rounds, self.illegal_reward, self.render_mode = max_rounds, illegal_reward, render_mode
        self._seed = seed
        self.core: StateCore | None = None
        self._mask = np.zeros(self.action_space.n, np.int8)

    @property
    def state(self) -> Any:
        """The position as a contract :class:`~hexarena.core.contract.GameState`."""
        return self._core().snapshot()

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[dict, dict]:
        if seed is None and self._seed is not None:
            seed, self._seed = self._seed, None  # the constructor's seed starts the sequence
        super().reset(seed=seed)
        game_seed = int(self.np_random.integers(2**62)) if seed is None else seed
        self.core = new_core(self.game, game_seed, self.params, fast=self.engine == "fast")
        for r, opponent in self.opponents.items():
            opponent.reset(r, game_seed, self.np_random)
        self._opponents_move()
        return self._obs(), self._info()

    def step(self, action: int) -> tuple[dict, float, bool, bool, dict]:
        if isinstance(action, bool) or not self.action_space.contains(action):  # no 1.5, "3" or True
            raise ValueError(f"action {action!r} is not in {self.action_space}")
        core = self._core()
        before = self._progress()
        message = core.play(int(action))
        if message is not None:
            return self._obs(), self.illegal_reward, True, False, {**self._info(), "illegal_move": message}
        self._opponents_move()
        reward = self._progress() - before
        if core.over():
            outcome = core.outcome()
            result = outcome_rewards(outcome, self.roles)[self.role] if outcome else 0.0
            info = {**self._info(), "outcome": str(outcome), "outcome_reward": result}
            return self._obs(), reward + result, True, False, info
        truncated = self.max_rounds is not None and core.rounds_played() >= self.max_rounds
        return self._obs(), reward, False, truncated, self._info()

    def action_masks(self) -> np.ndarray:
        """The legal actions of the learner now, as booleans (MaskablePPO's hook)."""
        return self._mask.astype(bool)

    def _core(self) -> StateCore:
        if self.core is None:
            raise RuntimeError("call reset() first")
        return self.core

    def _progress(self) -> float:
        if self.reward_mode == "sparse" or not self.shaping_scale:
            return 0.0
        return self.shaping_scale * self._core().progress(self.role)

    def _opponents_move(self) -> None:
        core = self._core()
        while not core.over() and core.to_move() != self.role:
            role = core.to_move()
            self.opponents[role].act(core, role, self.np_random)

    def _obs(self) -> dict[str, np.ndarray]:
        core = self._core()
        mine = not core.over() and core.to_move() == self.role
        self._mask = core.mask().copy() if mine else np.zeros(self.action_space.n, np.int8)
        return {"observation": core.observation(self.role), "action_mask": self._mask}

    def _info(self) -> dict[str, Any]:
        core = self._core()
        return {"action_mask": self._mask, "to_move": None if core.over() else core.to_move()}

    def render(self) -> str | None:
        return self.state.render_text(self.role) if self.render_mode == "ansi" else None


def _wrap(game: str, players_param: str | None) -> Any:
    def entry_point(players: int | None = None, **kwargs: Any) -> HexarenaGymEnv:
        if players is not None:
            if players_param is None:
                raise ConfigError(f"{game} has a fixed number of players")
            kwargs[players_param] = players
        return HexarenaGymEnv(game, **kwargs)

    return entry_point


EASY_COG = {"players": 2, "n_pieces": 1, "max_turns": 600, "reward": "shaped"}
"""``CityOfGold-Easy-v0``'s defaults: the default game (two players, two pawns, three course pieces,
1,000 turns) gives a random policy no outcome at all; on a one-piece course with a 600-turn cap
about one random game in six ends with an arrival, and the shaped reward pays every hex gained."""

ENV_IDS: dict[str, tuple[str, str | None, dict[str, Any]]] = {
    "hexarena/Hex-v0": ("hex", None, {}),
    "hexarena/SmallWorld-v0": ("smallworld", "players", {}),
    "hexarena/CityOfGold-v0": ("cityofgold", "n_players", {}),
    "hexarena/CityOfGold-Easy-v0": ("cityofgold", "n_players", EASY_COG),
}
"""id -> (game, the game parameter ``players`` sets, default kwargs: the caller's override them)."""


TERRANOVA_ID = "hexarena/TerraNova-v0"
"""Terra Nova's own env (:mod:`.tn_gym`): a flat observation and a Dict of masked action heads."""


def register_envs() -> None:
    """Register :data:`ENV_IDS` and :data:`TERRANOVA_ID` with Gymnasium (done on ``import hexarena.rl``)."""
    for env_id, (game, players_param, defaults) in ENV_IDS.items():
        if env_id not in gym.registry:
            entry = _wrap(game, players_param)
            gym.register(env_id, entry_point=entry, kwargs=dict(defaults), disable_env_checker=True)
    if TERRANOVA_ID not in gym.registry:  # imported when made: JAX loads only for Terra Nova
        gym.register(TERRANOVA_ID, entry_point="hexarena.rl.tn_gym:TerraNovaGymEnv", disable_env_checker=True)
