"""Trained policies as hexarena players (``--players policy:PATH``), and their evaluation.

* ``.npz``: a City of Gold PPO policy of :mod:`.jax_ppo` (reads :mod:`.cog_features`), or a
  Terra Nova ES policy of :mod:`.tn_es` (its preferences sent as a sparse move, :mod:`.tn_eval`);
* ``.zip``: a MaskablePPO model of sb3-contrib over the game's ``observation_array`` and action
  mask (the ``train`` extra must be installed to load it);
* ``.json``: a move-ranking policy: Small World's of :mod:`.sw_es` (weights over
  :mod:`.sw_features`' move features, read from the role's own observation) or City of Gold's
  of :mod:`.cog_es` (weights over :mod:`.cog_rank`'s features of the flat actions).

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

    def __init__(
        self,
        path: str | Path,
        name: str | None = None,
        seed: int = 0,
        greedy: bool = True,
        game: str | None = None,
    ) -> None:
        """``game``: the match's game, checked against the one the file was trained for, so a
        wrong file is a config error before the match rather than a forfeit at its first move."""
        super().__init__(name or f"policy:{Path(path).name}")
        self.path = Path(path)
        if not self.path.is_file():
            raise ConfigError(f"policy {str(self.path)!r}: no such file")
        self.greedy = greedy
        self._rng = np.random.default_rng(seed)
        self._terranova = _terranova_policy(self.path)
        self._act = None if self._terranova else _load(self.path)
        self.trained_for = "terranova" if self._terranova else _trained_for(self.path)
        if game is not None:
            self._check(game)

    def _check(self, game: str) -> None:
        if self.trained_for is not None and game != self.trained_for:
            title = TITLES[self.trained_for]
            raise ConfigError(f"policy {str(self.path)!r} is a {title} policy; this game is {game}")

    def reset(self, roles: tuple[str, ...], seed: int) -> None:
        self._rng = np.random.default_rng(seed)

    def choose(self, state: GameState, role: str) -> int:
        """The policy's action for ``role`` in ``state`` (a view or a full state)."""
        return self._act(state, role, self.greedy, self._rng)

    def act(self, view: GameState) -> Reply:
        self._check(view.name)
        if self._terranova is not None:
            return self._terranova(view, self._rng)
        action = self.choose(view, view.viewer or view.roles[0])
        return Reply(move=view.action_to_move(action), raw=f"action {action}")

    def describe(self) -> dict[str, Any]:
        return {**super().describe(), "path": str(self.path)}


TITLES = {"smallworld": "Small World", "cityofgold": "City of Gold", "terranova": "Terra Nova"}


def _trained_for(path: Path) -> str | None:
    """The game a (non-Terra Nova) policy file was trained for; None where the file does not say
    (a MaskablePPO model reads any game's observation array)."""
    if path.suffix == ".npz":
        return "cityofgold"
    if path.suffix == ".json":
        import json

        return "cityofgold" if json.loads(path.read_text()).get("game") == "cityofgold" else "smallworld"
    return None


def _terranova_policy(path: Path) -> Any:
    """A Terra Nova ES policy's player function ``(view, rng) -> Reply``, or None for another file."""
    if path.suffix != ".npz":
        return None
    from hexarena.rl.tn_policy import load

    try:
        if load(path) is None:
            return None
    except (OSError, ValueError) as exc:
        raise ConfigError(f"policy {str(path)!r}: {exc}") from None
    from hexarena.core.frozen import freeze
    from hexarena.rl.tn_eval import TerraNovaPolicy

    policy = TerraNovaPolicy(path)

    def reply(view: GameState, rng: np.random.Generator) -> Reply:
        env = view.environment
        move = policy.move(env.view, env.options, int(rng.integers(2**31)))
        return Reply(move=freeze(move), raw="policy preferences")

    return reply


def _load(path: Path) -> Any:
    if path.suffix == ".npz":
        return _jax_policy(path)
    if path.suffix == ".zip":
        return _sb3_policy(path)
    if path.suffix == ".json":
        return _ranking_policy(path)
    raise ConfigError(
        f"policy {str(path)!r}: expected a .npz (JAX PPO), .zip (MaskablePPO) or .json (move-ranking) file"
    )


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


def _ranking_policy(path: Path) -> Any:
    import json

    try:
        game = json.loads(path.read_text()).get("game")
    except (OSError, ValueError, AttributeError) as exc:  # json.JSONDecodeError is a ValueError
        raise ConfigError(f"policy {str(path)!r}: not a policy file ({exc})") from exc
    if game == "cityofgold":
        return _cog_ranking_policy(path)
    from hexarena.core.frozen import thaw
    from hexarena.games.smallworld.adapter import SmallWorldView
    from hexarena.rl.sw_features import RankingPolicy

    try:
        policy = RankingPolicy.load(path)
    except (ValueError, KeyError, TypeError) as exc:
        raise ConfigError(f"policy {str(path)!r}: {exc}") from exc

    def act(view: GameState, role: str, greedy: bool, rng: np.random.Generator) -> int:
        env = view.environment
        obs = (
            thaw(env.observation)
            if isinstance(env, SmallWorldView)
            else env.observation(view.all_roles().index(role))
        )
        move = policy.choose(obs, None if greedy else rng)
        return view.move_to_action(move)

    return act


def _cog_ranking_policy(path: Path) -> Any:
    from hexarena.rl.cog_rank import RankingPolicy

    try:
        policy = RankingPolicy.load(path)
    except (ValueError, KeyError, TypeError) as exc:
        raise ConfigError(f"policy {str(path)!r}: {exc}") from exc

    def act(view: GameState, role: str, greedy: bool, rng: np.random.Generator) -> int:
        return policy.choose(view.game, None if greedy else rng)

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


def heuristic_win_rate(
    path: str | Path, games: int, seed: int, alternate: bool = False, jobs: int = 1, **params: Any
) -> dict[str, float]:
    """A City of Gold PPO policy (``.npz``) against the heuristic bot (:func:`win_rate`), in the
    policy's training settings unless ``params`` say otherwise."""
    from hexarena.rl.jax_ppo import load_policy

    _, cfg = load_policy(path)
    settings = {"n_players": cfg.n_players, "n_pieces": cfg.n_pieces, "max_turns": cfg.max_turns, **params}
    return win_rate(path, games, seed, settings, alternate=alternate, jobs=jobs)


def win_rate(
    path: str | Path,
    games: int,
    seed: int,
    settings: dict[str, Any],
    opponent: str = "heuristic",
    alternate: bool = False,
    jobs: int = 1,
) -> dict[str, float]:
    """A City of Gold policy file against ``opponent`` (``"heuristic"``: the bot in every other
    seat; ``"random"``), one game per seed ``seed .. seed + games - 1`` of the game ``settings``.
    ``alternate``: game ``k`` puts the policy in seat ``k % n_players``, so it moves first as
    often as the others; ``jobs`` > 1 splits the games over that many CPU-only processes."""
    ks = list(range(games))
    if jobs <= 1:
        won = _games_vs(ks, str(path), seed, alternate, settings, opponent)
    else:
        import functools
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        parts = [ks[i::jobs] for i in range(jobs)]
        ctx = multiprocessing.get_context("spawn")
        with ProcessPoolExecutor(jobs, mp_context=ctx, initializer=_cpu_only) as pool:
            play = functools.partial(_games_vs, path=str(path), seed=seed, alternate=alternate)
            runs = pool.map(functools.partial(play, settings=settings, opponent=opponent), parts)
            won = [w for part in runs for w in part]
    return {"games": games, "win_rate": sum(won) / games, "wins": sum(won)}


def _cpu_only() -> None:
    import os

    os.environ["JAX_PLATFORMS"] = "cpu"  # one game at a time: a GPU only adds latency


def _games_vs(
    ks: list[int], path: str, seed: int, alternate: bool, settings: dict, opponent: str = "heuristic"
) -> list[int]:
    """1 for each game ``seed + k`` (``k`` in ``ks``) the policy wins (first place alone), else 0."""
    from hexarena.games.cityofgold.bot import HeuristicPlayer
    from hexarena.rl.gym import HexarenaGymEnv

    player = PolicyPlayer(path)
    roles = HexarenaGymEnv("cityofgold", **settings).roles
    won = []
    for k in ks:
        role = roles[k % len(roles)] if alternate else roles[0]
        # the bot itself, not its name: no player factory (nor its config parser) in the workers
        opp = HeuristicPlayer() if opponent == "heuristic" else opponent
        env = HexarenaGymEnv("cityofgold", role=role, opponents=opp, **settings)
        env.reset(seed=seed + k)
        done = False
        while not done:
            _, _, term, trunc, info = env.step(player.choose(env.state, env.role))
            done = term or trunc
        won.append(int(info.get("outcome_reward", 0.0) >= 1.0))  # first alone (+1/3 is 2nd of 4)
    return won
