"""Terra Nova as a single-agent Gymnasium env: ``gymnasium.make("hexarena/TerraNova-v0")``.

One role learns (``role``, default ``red``); the five others are played by ``opponents``: one spec
for all or a mapping role -> spec, each ``"random"`` (uniform random preference scores, the
spec's random player), a bot name of the game (``"heuristic"``, ``"easy"``) or any
:class:`~hexarena.core.players.Player`.

Observation: a flat float32 ``Box``, the fields of the spec's observation dict flattened one
after the other in :func:`layout` order (``env.layout`` gives each field's slice and shape). The
per-tile maps (42 x 66 x ...) are left out unless ``maps=True``: the summary keeps the player's
own empire, units, cities, research and diplomacy (8,434 numbers instead of about 369,000).

Action: a ``Dict`` of heads, each index one option and the last index "no preference" (the
resolver's default: the first legal option). Heads ``tech`` (81 + 1), ``policy`` (54 + 1),
``tenet`` (91 + 1), and per slot ``unit_category`` (30 x (19 + 1)), ``unit_target`` (30 x (2772
+ 1)), ``build`` (10 x (185 + 1)), ``work_focus`` (10 x 4: each city's citizens work the tiles
richest in food, production, gold, or all yields). :meth:`~TerraNovaGymEnv.action_masks` and
``info["action_mask"]`` give, per head, a boolean mask of shape ``(..., n)``: the options the
game lists as legal this turn (``contract/options.py``), always with "no preference". ``tenet``
and ``work_focus`` are not masked (the resolver skips a tenet that cannot be taken). Any action
is executed: the chosen option of each head is preferred, an illegal one falls through to the
first legal option. Trade is never offered or accepted.

Reward: the change of the learner's score since its previous turn (as the PettingZoo env);
``info["outcome"]`` and ``info["outcome_reward"]`` (+1 first .. -1 last) at the end.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import gymnasium as gym
import jax
import numpy as np

from hexarena.core.errors import ConfigError
from hexarena.core.players import Player
from hexarena.core.registry import game_class
from hexarena.games.terranova.engine.geometry import COLS, N_TILES, ROWS
from hexarena.games.terranova.engine.spaces import (
    N_POLICIES,
    N_TECHS,
    N_TENETS,
    map_shapes,
)
from hexarena.games.terranova.engine.state import MAX_CITIES, MAX_UNITS
from hexarena.games.terranova.engine.tables import N_BUILDABLES, N_CATEGORIES, N_YIELDS, ROLES
from hexarena.rl.tn_eval import apply_dense, random_move
from hexarena.rl.tn_policy import WORK_AREA, spread

FOCUS = np.zeros((4, N_YIELDS), np.float32)
FOCUS[0, 0] = FOCUS[1, 1] = FOCUS[2, 2] = 1.0
FOCUS[3, :3] = 1.0  # food, production and gold together
FOCUS_NAMES = ("food", "production", "gold", "all")

HEADS: dict[str, tuple[int, ...]] = {
    "tech": (N_TECHS + 1,),
    "policy": (N_POLICIES + 1,),
    "tenet": (N_TENETS + 1,),
    "unit_category": (N_CATEGORIES + 1,) * MAX_UNITS,
    "unit_target": (N_TILES + 1,) * MAX_UNITS,
    "build": (N_BUILDABLES + 1,) * MAX_CITIES,
    "work_focus": (len(FOCUS_NAMES),) * MAX_CITIES,
}


def flat_box(size: int) -> gym.spaces.Box:
    """A flat float32 observation space, bounded by the largest finite float32 (every value fits;
    infinite bounds make PettingZoo's ``api_test`` warn)."""
    big = float(np.finfo(np.float32).max)
    return gym.spaces.Box(-big, big, (size,), np.float32)


def _is_map(shape: tuple[int, ...]) -> bool:
    return any(shape[i : i + 2] == (ROWS, COLS) for i in range(len(shape) - 1))


def layout(obs: Mapping[str, Any], maps: bool = False) -> list[tuple[str, int, int, tuple[int, ...]]]:
    """``(field, start, stop, shape)`` of every flattened field, nested names joined by ``/``."""
    rows, at = [], 0

    def walk(tree: Mapping[str, Any], prefix: str) -> None:
        nonlocal at
        for name in sorted(tree):
            value = tree[name]
            if isinstance(value, Mapping):
                walk(value, f"{prefix}{name}/")
                continue
            shape = tuple(np.shape(value))
            if not maps and _is_map(shape):
                continue
            size = int(np.prod(shape))
            rows.append((prefix + name, at, at + size, shape))
            at += size

    walk(obs, "")
    return rows


def flatten(obs: Mapping[str, Any], rows: list[tuple[str, int, int, tuple[int, ...]]]) -> np.ndarray:
    out = np.empty(rows[-1][2] if rows else 0, np.float32)
    for name, start, stop, _shape in rows:
        value: Any = obs
        for part in name.split("/"):
            value = value[part]
        out[start:stop] = np.asarray(value, np.float32).ravel()
    return out


def _work_scores(obs: Mapping[str, Any], focus: np.ndarray) -> np.ndarray:
    """(10, 36, 36) citizen scores: each city's slots ranked by its focus's yields, spread."""
    me = int(obs["player_id"])
    rowcol = np.asarray(obs["player_cities"]["city_rowcols"])[me]
    tile = np.where(rowcol[:, 0] >= 0, rowcol[:, 0] * COLS + rowcol[:, 1], 0)
    slots = WORK_AREA[tile, 1:]
    yields = np.asarray(obs["yield_map_players"], np.float32).reshape(N_TILES, N_YIELDS)
    value = np.einsum("csy,cy->cs", yields[np.where(slots >= 0, slots, 0)], FOCUS[np.asarray(focus)])
    return np.asarray(spread(value))


def to_dense(action: Mapping[str, Any], obs: Mapping[str, Any]) -> tuple:
    """The preference tuple of a Dict action: 1 on each chosen option, 0 elsewhere."""
    dense = map_shapes(lambda s: np.zeros(s, np.float32))

    def pick(arr: np.ndarray, choice: Any) -> None:
        rows = arr.reshape(-1, arr.shape[-1])  # a view: writes go to arr
        for i, c in enumerate(np.asarray(choice).reshape(-1)):
            if c < arr.shape[-1]:  # the last index of a head is "no preference"
                rows[i, c] = 1.0

    pick(dense[3], action["tech"])
    pick(dense[1], action["policy"])
    pick(dense[2], action["tenet"])
    pick(dense[4][0], action["unit_category"])
    pick(dense[4][1], action["unit_target"])
    pick(dense[5][1], action["build"])
    worked = _work_scores(obs, np.asarray(action["work_focus"]).reshape(MAX_CITIES))
    return (*dense[:5], (worked, dense[5][1]))


def masks(opts: Mapping[str, Any]) -> dict[str, np.ndarray]:
    """Per head, the legal options (the game's own option lists) plus "no preference"."""

    def with_none(legal: np.ndarray) -> np.ndarray:
        legal = np.asarray(legal, bool)
        return np.concatenate([legal, np.ones((*legal.shape[:-1], 1), bool)], axis=-1)

    targets = np.zeros((MAX_UNITS, N_TILES), bool)
    for key in ("reach", "attack", "relocate", "send"):
        part = np.asarray(opts[key], bool)
        targets[:, : part.shape[1]] |= part
    return {
        "tech": with_none(opts["techs"]),
        "policy": with_none(opts["policies"]),
        "tenet": np.ones(N_TENETS + 1, bool),
        "unit_category": with_none(opts["categories"]),
        "unit_target": with_none(targets),
        "build": with_none(opts["build"]),
        "work_focus": np.ones((MAX_CITIES, len(FOCUS_NAMES)), bool),
    }


class TerraNovaGymEnv(gym.Env):
    """``TerraNovaGymEnv(role="red", opponents="random", turn_cap=60, maps=False)``."""

    metadata: ClassVar[dict[str, Any]] = {"render_modes": ["ansi"]}

    def __init__(
        self,
        *,
        role: str = "red",
        opponents: Any = "random",
        turn_cap: int = 60,
        maps: bool = False,
        seed: int | None = None,
        render_mode: str | None = None,
    ) -> None:
        from hexarena.games.terranova.adapter import TerraNovaState

        self._new = TerraNovaState.new
        self.roles = list(ROLES)
        if role not in self.roles:
            raise ConfigError(f"unknown role {role!r}; Terra Nova has {self.roles}")
        self.role, self.turn_cap, self.render_mode, self._seed = role, turn_cap, render_mode, seed
        others = [r for r in self.roles if r != role]
        specs = dict(opponents) if isinstance(opponents, Mapping) else dict.fromkeys(others, opponents)
        missing = set(others) - set(specs)
        if missing:
            raise ConfigError(f"opponents: no spec for role(s) {sorted(missing)}")
        self.opponents = {r: _opponent(specs[r], i) for i, r in enumerate(others)}
        self.state: Any = self._new(seed=0, turn_cap=turn_cap)
        obs, _opts = self._view()
        self.layout = layout(obs, maps)
        size = self.layout[-1][2]
        self.observation_space = flat_box(size)
        self.action_space = gym.spaces.Dict(
            {
                name: gym.spaces.Discrete(dims[0]) if len(dims) == 1 else gym.spaces.MultiDiscrete(dims)
                for name, dims in HEADS.items()
            }
        )
        self._mask: dict[str, np.ndarray] = masks(_opts)
        self._obs: dict[str, Any] = obs
        self._score = 0.0

    def _view(self) -> tuple[dict[str, Any], dict[str, Any]]:
        env = self.state.environment
        from hexarena.games.terranova.contract import compiled

        obs, opts = compiled.view(env.state, env.tracker, self.roles.index(self.role))
        return jax.tree_util.tree_map(np.asarray, obs), jax.tree_util.tree_map(np.asarray, opts)

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[np.ndarray, dict]:
        if seed is None and self._seed is not None:
            seed, self._seed = self._seed, None
        super().reset(seed=seed)
        game_seed = int(self.np_random.integers(2**31)) if seed is None else seed
        self.state = self._new(seed=game_seed, turn_cap=self.turn_cap)
        for opponent in self.opponents.values():
            if isinstance(opponent, Player):
                opponent.reset(tuple(self.roles), game_seed)
        self._score = 0.0
        self._opponents_move()
        return self._observe(), self._info()

    def step(self, action: Mapping[str, Any]) -> tuple[np.ndarray, float, bool, bool, dict]:
        if self.state.validate_game() is not None:
            raise RuntimeError("the game is over: call reset()")
        if not isinstance(action, Mapping) or not self.action_space.contains(
            {k: np.asarray(v, np.int64) if k in HEADS and len(HEADS[k]) > 1 else v for k, v in action.items()}
        ):
            raise ValueError(f"action is not in {self.action_space}")
        self._apply(to_dense(action, self._obs))
        self._opponents_move()
        score = self.state.get_scores()[self.role]
        reward, self._score = score - self._score, score
        outcome = self.state.validate_game()
        obs = self._observe() if outcome is None else flatten(self._view()[0], self.layout)
        info = self._info()
        if outcome is not None:
            ranks = [r for group in outcome.ranking for r in group]
            place = next(i for i, group in enumerate(outcome.ranking) if self.role in group)
            info |= {"outcome": outcome.reason, "outcome_reward": 1.0 - 2.0 * place / max(len(ranks) - 1, 1)}
        return obs, float(reward), outcome is not None, False, info

    def action_masks(self) -> dict[str, np.ndarray]:
        """Per head, the legal options now (sb3-contrib's hook name)."""
        return self._mask

    def _apply(self, dense: tuple) -> None:
        self.state = apply_dense(self.state, dense)

    def _opponents_move(self) -> None:
        while self.state.validate_game() is None and self.state.roles[0] != self.role:
            role = self.state.roles[0]
            opponent = self.opponents[role]
            if opponent == "random":
                self._apply(random_move(int(self.np_random.integers(2**31))))
            else:
                before = self.state.environment
                self.state = self.state.apply(opponent.act(self.state.query_game(role)).move)
                if self.state.environment is before:
                    raise RuntimeError(f"{role}'s move was refused: {self.state.message}")

    def _observe(self) -> np.ndarray:
        self._obs, opts = self._view()
        self._mask = masks(opts)
        return flatten(self._obs, self.layout)

    def _info(self) -> dict[str, Any]:
        over = self.state.validate_game() is not None
        return {"action_mask": self._mask, "to_move": None if over else self.state.roles[0]}

    def render(self) -> str | None:
        return self.state.render_text(self.role) if self.render_mode == "ansi" else None


def _opponent(spec: Any, seed: int) -> Any:
    """``"random"`` itself, or the :class:`Player` a spec names."""
    if spec == "random" or isinstance(spec, Player):
        return spec
    cls = game_class("terranova")
    if isinstance(spec, str) and spec in cls.bots:
        from hexarena.core.config import PlayerConfig
        from hexarena.core.player_factory import build_player

        return build_player(PlayerConfig(type=spec, seed=seed), cls)
    raise ConfigError(f"opponent {spec!r}: expected 'random', one of {sorted(cls.bots)} or a Player")
