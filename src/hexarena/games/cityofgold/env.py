"""Single-game interfaces: a Gymnasium-style env, a pgx-style functional State, and 0.0.3's ``cog_env``.

All three drive the scalar engine with flat actions (:mod:`.actions`); observations are the
structured records of :mod:`.observe` (as nested dicts for the Gymnasium env).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from hexarena.games.cityofgold.actions import HEADS, N_ACTIONS, heads_to_flat
from hexarena.games.cityofgold.board import Difficulty
from hexarena.games.cityofgold.engine import Game, legal_mask, new_game, step
from hexarena.games.cityofgold.observe import MAX_PLAYERS, observe, to_dict

try:  # Gymnasium is optional (the ``rl`` extra); without it the env is a plain class.
    import gymnasium as _gym

    _EnvBase: type = _gym.Env
except ImportError:  # pragma: no cover - exercised only without the rl extra
    _gym = None
    _EnvBase = object


def _game_params(
    n_players: int, n_pieces: int, difficulty: Difficulty | int | str, max_turns: int, **extra: Any
) -> dict[str, Any]:
    return {
        "n_players": n_players,
        "n_pieces": n_pieces,
        "difficulty": difficulty,
        "max_turns": max_turns,
        **extra,
    }


def _flat(action: Any, g: Game) -> int:
    """A flat action from an int or a five-head record / mapping (nothing else: no float, bool or
    string is taken for an action)."""
    if isinstance(action, bool) or not isinstance(action, int | np.integer | np.ndarray | Mapping):
        raise ValueError(f"an action is an integer or a five-head record or mapping, got {action!r}")
    if isinstance(action, (int, np.integer)):
        return int(action)
    if isinstance(action, np.ndarray) and action.dtype.names:
        return heads_to_flat({h: int(action[h]) for h in HEADS}, g.phase)
    return heads_to_flat({h: int(action.get(h, 0)) for h in HEADS}, g.phase)


class CityOfGoldEnv(_EnvBase):  # type: ignore[misc]
    """Gymnasium-style env: ``reset(seed) -> (obs, info)``, ``step(a) -> (obs, r, term, trunc, info)``.

    One env step is one action of the player to act; ``reward`` is that player's terminal reward
    and ``info["rewards"]`` holds every seat's. Illegal actions raise ``IllegalActionError``.
    """

    metadata: dict[str, Any] = {"render_modes": ["ansi", "rgb_array"]}  # noqa: RUF012

    def __init__(
        self,
        n_players: int = 4,
        n_pieces: int = 3,
        difficulty: Difficulty | int | str = Difficulty.EASY,
        max_turns: int = 1000,
        render_mode: str | None = None,
        **extra: Any,
    ) -> None:
        self.params = _game_params(n_players, n_pieces, difficulty, max_turns, **extra)
        self.render_mode = render_mode
        self.game: Game | None = None
        if _gym is not None:
            from gymnasium import spaces

            self.action_space = spaces.Discrete(N_ACTIONS)
            self.observation_space = _observation_space(spaces)

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[dict, dict]:
        if seed is None:
            seed = int(np.random.SeedSequence().entropy % (1 << 62))
        self.game = new_game(seed, **{**self.params, **(options or {})})
        return to_dict(observe(self.game)), self._info()

    def step(self, action: Any) -> tuple[dict, float, bool, bool, dict]:
        g = self._require_game()
        mover = g.player
        step(g, _flat(action, g))
        reward = g.rewards[mover] if g.done else 0.0
        return to_dict(observe(g)), reward, g.done and not g.truncated, g.truncated, self._info()

    def _info(self) -> dict[str, Any]:
        g = self._require_game()
        return {"current_player": g.player, "rewards": list(g.rewards), "turn": g.turn, "phase": int(g.phase)}

    def _require_game(self) -> Game:
        if self.game is None:
            raise RuntimeError("call reset() first")
        return self.game

    def action_masks(self) -> np.ndarray:
        return np.array(legal_mask(self._require_game()), np.bool_)

    def render(self) -> Any:
        from hexarena.games.cityofgold.render import render_ascii, render_rgb

        g = self._require_game()
        return render_rgb(g) if self.render_mode == "rgb_array" else render_ascii(g, g.player)


def _observation_space(spaces: Any) -> Any:
    """A Dict space mirroring :func:`~.observe.to_dict` of an ``OBS_DTYPE`` record."""

    def build(dtype: np.dtype, shape: tuple[int, ...] = ()) -> Any:
        if dtype.names:
            fields = {n: dtype.fields[n][0] for n in dtype.names}
            return spaces.Dict({n: build(f.base, shape + f.shape) for n, f in fields.items()})
        if dtype == np.bool_:
            return spaces.Box(0, 1, shape, np.bool_)
        if dtype == np.float32:
            return spaces.Box(0.0, 255.0, shape, np.float32)
        info = np.iinfo(dtype)
        return spaces.Box(info.min, info.max, shape, dtype)

    return build(observe(new_game(0)).dtype)


@dataclass(frozen=True)
class State:
    """pgx-style state: ``init(seed)`` and ``step(state, action)`` return new states (never mutate)."""

    current_player: int
    observation: np.ndarray
    legal_action_mask: np.ndarray
    rewards: np.ndarray
    terminated: bool
    truncated: bool
    game: Game = field(repr=False, compare=False)


def init(seed: int, **params: Any) -> State:
    """The pgx-style initial state (params as for :func:`~.engine.new_game`)."""
    return _state(new_game(seed, **params))


def step_state(state: State, action: int) -> State:
    """The pgx-style transition; the given state is left unchanged."""
    g = state.game.copy()
    step(g, int(action))
    return _state(g)


def _state(g: Game) -> State:
    rewards = np.zeros(MAX_PLAYERS, np.float32)
    rewards[: g.n_players] = g.rewards
    rec = observe(g)
    return State(
        current_player=g.player,
        observation=rec,
        legal_action_mask=rec["action_mask"].copy(),
        rewards=rewards,
        terminated=g.done and not g.truncated,
        truncated=g.truncated,
        game=g,
    )


class cog_env:
    """0.0.3's single env: ``cog_env(seed, n_players, n_pieces, difficulty, max_steps, render)``."""

    def __init__(
        self,
        seed: int = 0,
        n_players: int = 4,
        n_pieces: int = 3,
        difficulty: Difficulty | int | str = Difficulty.EASY,
        max_steps: int = 1000,
        render: bool = False,
    ) -> None:
        self.seed = seed
        self.params = _game_params(n_players, n_pieces, difficulty, max_steps)
        self.render_enabled = render
        self.game = new_game(seed, **self.params)

    def reset(self) -> None:
        self.game = new_game(self.seed, **self.params)

    def step(self, action: Any) -> None:
        step(self.game, _flat(action, self.game))

    def get_done(self) -> bool:
        return self.game.done

    @property
    def agent_selection(self) -> int:
        return self.game.player

    @property
    def observation(self) -> np.ndarray:
        return observe(self.game)

    @property
    def rewards(self) -> list[float]:
        return list(self.game.rewards)

    def get_map(self) -> Any:
        return self.game.course

    def render(self) -> str:
        from hexarena.games.cityofgold.render import render_ascii

        return render_ascii(self.game, self.game.player)
