"""Terra Nova as a PettingZoo AEC environment: one game, six agents taking turns.

Observations are the spec's dict (:mod:`.observe`), each field its own space: categorical fields
(terrain, features, unit types, visibility, techs known...) are ``MultiDiscrete`` starting at -1
(unknown), the rest ``Box``. The action is the spec's preference tuple without the device and
game axes (a ``Tuple`` of float ``Box`` spaces, see :mod:`.spaces`); the resolver executes the
best legal option of every endpoint, so every action is legal. The reward of the agent that
moved is the change of its score since its previous turn (the spec's reward); the game ends at
the turn cap or on a domination victory.

``flat=True`` gives every agent a flat float32 ``Box`` observation (every field, maps included, in
:func:`hexarena.rl.tn_gym.layout` order) and a flat ``Box`` action (the preference tuple's leaves
raveled one after the other, :func:`unflatten_action`): the types PettingZoo's ``api_test`` and
most learners expect.

This environment steps one game from Python, for compatibility with PettingZoo tooling. For
training at scale use the batched simulator (:func:`~.simulator.build_simulator`): thousands of
games per call, on any number of devices, in the same spaces.
"""

from __future__ import annotations

from typing import Any, ClassVar

import jax
import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from hexarena.games.terranova.adapter import TerraNovaState
from hexarena.games.terranova.contract import compiled
from hexarena.games.terranova.contract.moves import to_dense
from hexarena.games.terranova.engine.spaces import ACTION_SHAPES, map_shapes
from hexarena.games.terranova.engine.tables import N_BUILDABLES, ROLES, load_tables
from hexarena.rl.aec import new_episode
from hexarena.rl.tn_eval import apply_dense
from hexarena.rl.tn_gym import flat_box, flatten, layout


def _categories() -> dict[str, int]:
    """Field name -> number of categories (values -1 .. n - 1) of the categorical fields."""
    tb = load_tables()
    return {
        "elevation_map": 4,
        "terrain_map": 6,
        "feature_map": 7,
        "nw_map": 18,
        "cs_ownership_map": 13,
        "edge_river_map": 2,
        "lake_map": 2,
        "visibility_map": 3,
        "technologies": 2,
        "policies": 2,
        "improvement_map": len(tb.improvement_names),
        "road_map": 2,
        "visible_resources_map_players": len(tb.resource_names),
        "is_researching": tb.n_techs,
        "unit_type": len(tb.unit_names),
        "city_ids": 3,
        "ownership_map": 4,
        "is_constructing": N_BUILDABLES,
        "buildings_owned": 2,
        "resources_owned": 2,
        "worked_slots": 2,
        "is_coastal": 2,
        "have_met": 2,
        "at_war": 2,
        "has_sacked": 2,
        "player_id": len(ROLES),
    }


def _space(name: str, value: np.ndarray, categories: dict[str, int]) -> spaces.Space:
    value = np.asarray(value)
    if name in categories and np.issubdtype(value.dtype, np.integer):
        n = categories[name] + 1  # -1 (unknown) .. n - 2
        return spaces.MultiDiscrete(
            np.full(value.shape or (1,), n), dtype=np.int64, start=np.full(value.shape or (1,), -1)
        )
    if np.issubdtype(value.dtype, np.integer):
        info = np.iinfo(np.int32)
        return spaces.Box(-1, info.max, value.shape, np.int32)
    return spaces.Box(-np.inf, np.inf, value.shape, np.float32)


def observation_space_of(obs: dict[str, Any]) -> spaces.Dict:
    """The Dict space of an observation (nested dicts become nested Dict spaces)."""
    categories = _categories()

    def build(tree: dict[str, Any]) -> spaces.Dict:
        return spaces.Dict(
            {k: build(v) if isinstance(v, dict) else _space(k, v, categories) for k, v in tree.items()}
        )

    return build(obs)


def fit(obs: dict[str, Any], space: spaces.Dict) -> dict[str, Any]:
    """``obs`` with every field cast to its space's dtype and shape."""
    out = {}
    for k, sub in space.spaces.items():
        if isinstance(sub, spaces.Dict):
            out[k] = fit(obs[k], sub)
        else:
            out[k] = np.asarray(obs[k]).astype(sub.dtype).reshape(sub.shape)
    return out


def action_space() -> spaces.Tuple:
    """The preference tuple: float scores for every option of every endpoint."""

    def build(shapes: Any) -> spaces.Space:
        if isinstance(shapes, tuple) and all(isinstance(d, int) for d in shapes):
            return spaces.Box(-1.0, 1.0, shapes, np.float32)
        return spaces.Tuple(tuple(build(s) for s in shapes))

    return build(ACTION_SHAPES)


def _leaf_shapes() -> list[tuple[int, ...]]:
    shapes: list[tuple[int, ...]] = []
    map_shapes(shapes.append)
    return shapes


def unflatten_action(flat: np.ndarray) -> tuple:
    """The preference tuple of a flat action (the leaves of :data:`ACTION_SHAPES` in order)."""
    flat = np.asarray(flat, np.float32).ravel()
    size = sum(int(np.prod(s)) for s in _leaf_shapes())
    if flat.shape != (size,):
        raise ValueError(f"a flat action has {size} scores, got shape {flat.shape}")
    at = 0

    def take(shape: tuple[int, ...]) -> np.ndarray:
        nonlocal at
        n = int(np.prod(shape))
        at += n
        return flat[at - n : at].reshape(shape)

    return map_shapes(take)


class TerraNovaAECEnv(AECEnv):
    """``TerraNovaAECEnv(turn_cap=30, flat=False)``: six agents (``red`` .. ``orange``) play one game."""

    metadata: ClassVar[dict[str, Any]] = {
        "name": "terranova_aec_v0",
        "render_modes": ["ansi"],
        "is_parallelizable": False,
    }

    def __init__(self, turn_cap: int = 300, render_mode: str | None = None, flat: bool = False) -> None:
        super().__init__()
        self.turn_cap, self.render_mode, self.flat = turn_cap, render_mode, flat
        self.possible_agents = list(ROLES)
        self.game = TerraNovaState.new(seed=0, turn_cap=turn_cap)
        sample = self._raw_obs(0)
        self.layout = layout(sample, maps=True)
        if flat:
            obs_space: spaces.Space = flat_box(self.layout[-1][2])
            size = sum(int(np.prod(s)) for s in _leaf_shapes())
            act_space: spaces.Space = spaces.Box(-1.0, 1.0, (size,), np.float32)
        else:
            obs_space, act_space = observation_space_of(sample), action_space()
        self._obs_spaces = dict.fromkeys(self.possible_agents, obs_space)
        self._act_spaces = dict.fromkeys(self.possible_agents, act_space)

    def observation_space(self, agent: str) -> spaces.Space:
        return self._obs_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self._act_spaces[agent]

    def _raw_obs(self, player: int) -> dict[str, Any]:
        env = self.game.environment
        obs, _options = compiled.view(env.state, env.tracker, player)
        return jax.tree_util.tree_map(np.asarray, obs)

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        seed = int(np.random.SeedSequence(seed).generate_state(1)[0] % 2**31) if seed is None else seed
        self.game = TerraNovaState.new(seed=seed, turn_cap=self.turn_cap)
        new_episode(self)
        self._last_score = dict.fromkeys(self.agents, 0.0)
        self.agent_selection = ROLES[self.game.environment.player]

    def observe(self, agent: str) -> Any:
        raw = self._raw_obs(ROLES.index(agent))
        return flatten(raw, self.layout) if self.flat else fit(raw, self._obs_spaces[agent])

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self._cumulative_rewards[agent] = 0.0
        self._clear_rewards()
        if action is None:
            action = map_shapes(lambda s: np.zeros(s, np.float32))
        elif self.flat:
            action = unflatten_action(action)
        self.game = apply_dense(self.game, to_dense(_as_lists(action)))
        env = self.game.environment
        score = env.scores[ROLES.index(agent)]
        self.rewards[agent] = score - self._last_score[agent]
        self._last_score[agent] = score
        self.infos[agent] = {"executed": env.executed}
        if env.done:
            self.terminations = dict.fromkeys(self.agents, True)
        self.agent_selection = ROLES[env.player]
        self._accumulate_rewards()

    def render(self) -> str | None:
        if self.render_mode == "ansi":
            return self.game.render_text(self.agent_selection)
        return None

    def close(self) -> None:
        pass


def _as_lists(action: Any) -> Any:
    """Nested tuples of arrays as nested tuples (to_dense checks every shape)."""
    if isinstance(action, (tuple, list)) and not isinstance(action, np.ndarray):
        return tuple(_as_lists(a) for a in action)
    return np.asarray(action, np.float32)
