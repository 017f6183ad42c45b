"""Trained policies as hexarena players (``--players policy:PATH``), and their evaluation.

* ``.npz``: a City of Gold PPO policy of :mod:`.jax_ppo` (reads :mod:`.cog_features`);
* ``.zip``: a MaskablePPO model of sb3-contrib over the game's ``observation_array`` and action
  mask (the ``train`` extra must be installed to load it).

A policy player takes the most probable legal action (``greedy``) or samples it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from hexarena.core.contract import GameState
from hexarena.core.errors import ConfigError
from hexarena.core.players import Player, Reply


class PolicyPlayer(Player):
    """A saved policy playing one seat of any game it was trained for."""

    kind = "policy"

    def __init__(self, path: str | Path, name: str | None = None, seed: int = 0, greedy: bool = True) -> None:
        super().__init__(name or f"policy:{Path(path).name}")
        self.path = Path(path)
        if not self.path.is_file():
            raise ConfigError(f"policy {str(self.path)!r}: no such file")
        self.greedy = greedy
        self._rng = np.random.default_rng(seed)
        self._act = _load(self.path)

    def reset(self, roles: tuple[str, ...], seed: int) -> None:
        self._rng = np.random.default_rng(seed)

    def choose(self, state: GameState, role: str) -> int:
        """The policy's action for ``role`` in ``state`` (a view or a full state)."""
        return self._act(state, role, self.greedy, self._rng)

    def act(self, view: GameState) -> Reply:
        action = self.choose(view, view.viewer or view.roles[0])
        return Reply(move=view.action_to_move(action), raw=f"action {action}")

    def describe(self) -> dict[str, Any]:
        return {**super().describe(), "path": str(self.path)}


def _load(path: Path) -> Any:
    if path.suffix == ".npz":
        return _jax_policy(path)
    if path.suffix == ".zip":
        return _sb3_policy(path)
    raise ConfigError(f"policy {str(path)!r}: expected a .npz (JAX PPO) or .zip (MaskablePPO) file")


def _mask_of(view: GameState) -> np.ndarray:
    mask = np.zeros(view.action_count(), bool)
    for move in view.legal_moves() or ():
        mask[view.move_to_action(move)] = True
    return mask


def _jax_policy(path: Path) -> Any:
    import jax

    from hexarena.games.cityofgold.engine import legal_mask
    from hexarena.rl.cog_features import game_features
    from hexarena.rl.jax_ppo import forward, load_policy

    params, _ = load_policy(path)
    logits_of = jax.jit(lambda x: forward(params, x)[0])

    def act(view: GameState, role: str, greedy: bool, rng: np.random.Generator) -> int:
        if view.name != "cityofgold":
            raise ConfigError(f"{path.name} is a City of Gold policy; this game is {view.name}")
        g = view.game
        logits = np.asarray(logits_of(game_features(g, np.array(legal_mask(g)))), np.float64)
        return _choose(logits, greedy, rng)

    return act


def _sb3_policy(path: Path) -> Any:
    try:
        from sb3_contrib import MaskablePPO
    except ImportError as exc:
        raise ConfigError(f"{path.name} needs sb3-contrib: pip install 'hexarena[train]'") from exc
    model = MaskablePPO.load(str(path), device="cpu")

    def act(view: GameState, role: str, greedy: bool, rng: np.random.Generator) -> int:
        mask = _mask_of(view)
        obs = {"observation": np.asarray(view.observation_array(role)), "action_mask": mask.astype(np.int8)}
        action, _ = model.predict(obs, action_masks=mask, deterministic=greedy)
        return int(action)

    return act


class MaskableSnapshot:
    """A MaskablePPO policy network as an opponent policy ``fn(observation, action_mask)``, for a
    :class:`~.opponents.SnapshotPool`: ``pool.add(MaskableSnapshot(model.policy))`` deep-copies
    the network, so the snapshot keeps today's weights while the model trains on (a plain
    function or lambda would be kept by reference, and follow the live model)."""

    def __init__(self, policy: Any, deterministic: bool = False) -> None:
        self.policy, self.deterministic = policy, deterministic

    def __call__(self, observation: np.ndarray, mask: np.ndarray) -> int:
        obs = {"observation": observation, "action_mask": mask}
        action, _ = self.policy.predict(obs, deterministic=self.deterministic, action_masks=mask.astype(bool))
        return int(action)


def _choose(logits: np.ndarray, greedy: bool, rng: np.random.Generator) -> int:
    if greedy:
        return int(np.argmax(logits))
    p = np.exp(logits - logits.max())
    return int(rng.choice(len(p), p=p / p.sum()))


def heuristic_win_rate(path: str | Path, games: int, seed: int, **params: Any) -> dict[str, float]:
    """A City of Gold policy in seat 0 against the heuristic bot (2 players, one-piece courses
    unless ``params`` say otherwise), one game per seed ``seed .. seed + games - 1``."""
    from hexarena.rl.gym import HexarenaGymEnv
    from hexarena.rl.jax_ppo import load_policy

    _, cfg = load_policy(path)
    settings = {"n_players": cfg.n_players, "n_pieces": cfg.n_pieces, "max_turns": cfg.max_turns, **params}
    env = HexarenaGymEnv("cityofgold", opponents="heuristic", **settings)
    player = PolicyPlayer(path)
    wins = 0
    for k in range(games):
        env.reset(seed=seed + k)
        done, reward = False, 0.0
        while not done:
            action = player.choose(env.state, env.role)
            _, reward, term, trunc, _ = env.step(action)
            done = term or trunc
        wins += reward > 0
    return {"games": games, "win_rate": wins / games}
