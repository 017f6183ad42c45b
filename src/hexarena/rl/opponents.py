"""Who plays the seats a single-agent env does not learn: random, a bot, a policy, or past selves.

An opponent spec is one of

* ``"random"``: a uniform legal action (drawn from the env's seeded generator, no view built);
* a bot name of the game (``"heuristic"``: see ``hexarena games``), or any
  :class:`~hexarena.core.players.Player`: it acts on its role's view, as in a match;
* a callable policy ``fn(observation, action_mask) -> action`` over the env's arrays;
* a :class:`SnapshotPool` of earlier policies of the learner (self-play): at every reset each
  seat it holds plays one snapshot drawn from the pool.

:func:`resolve` turns a spec into an :class:`Opponent`, the object the env asks for an action.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import numpy as np

from hexarena.core.errors import ConfigError, IllegalMoveError
from hexarena.core.players import Player
from hexarena.rl.cores import StateCore

Policy = Callable[[np.ndarray, np.ndarray], int]


class Opponent:
    """Plays one seat: :meth:`act` makes one move in ``core`` for ``role``."""

    def reset(self, role: str, seed: int, rng: np.random.Generator) -> None:
        """Called at every env reset."""

    def act(self, core: StateCore, role: str, rng: np.random.Generator) -> None:
        raise NotImplementedError


class RandomOpponent(Opponent):
    def act(self, core: StateCore, role: str, rng: np.random.Generator) -> None:
        legal = core.legal_actions()
        _must_accept(core.play(int(legal[rng.integers(len(legal))])), role)


class PlayerOpponent(Opponent):
    """A hexarena player (bot, LLM, scripted...) acting on its role's view."""

    def __init__(self, player: Player) -> None:
        self.player = player

    def reset(self, role: str, seed: int, rng: np.random.Generator) -> None:
        self.player.reset((role,), seed)

    def act(self, core: StateCore, role: str, rng: np.random.Generator) -> None:
        state = core.snapshot()
        reply = self.player.act(state.query_game(role))
        move = reply.move if reply.move is not None else state.parse_move(reply.raw or "")
        _must_accept(core.play_move(move), role)


class PolicyOpponent(Opponent):
    """A callable ``fn(observation, action_mask) -> action`` seeing ``role``'s arrays."""

    def __init__(self, policy: Policy) -> None:
        self.policy = policy

    def act(self, core: StateCore, role: str, rng: np.random.Generator) -> None:
        mask = core.mask()
        _must_accept(core.play(int(self.policy(core.observation(role), mask))), role)


class SnapshotPool(Opponent):
    """Self-play: earlier policies of the learner, one drawn per seat at each reset.

    ``pool.add(policy)`` stores a snapshot (``copy.deepcopy`` by default, so later training does
    not change it); the newest ``capacity`` are kept. With an empty pool the seat plays randomly.
    Share one pool between the env and the training loop, e.g. add the learner every N updates.
    """

    def __init__(self, capacity: int = 8, copy_policies: bool = True) -> None:
        self.capacity, self.copy_policies = capacity, copy_policies
        self.snapshots: list[Policy] = []
        self._chosen: dict[str, Policy | None] = {}

    def add(self, policy: Policy) -> None:
        self.snapshots.append(copy.deepcopy(policy) if self.copy_policies else policy)
        del self.snapshots[: -self.capacity]

    def reset(self, role: str, seed: int, rng: np.random.Generator) -> None:
        pick = self.snapshots[rng.integers(len(self.snapshots))] if self.snapshots else None
        self._chosen[role] = pick

    def act(self, core: StateCore, role: str, rng: np.random.Generator) -> None:
        policy = self._chosen.get(role)
        if policy is None:
            RandomOpponent().act(core, role, rng)
        else:
            PolicyOpponent(policy).act(core, role, rng)


def resolve(spec: Any, game: str, bots: dict[str, str], seed: int = 0) -> Opponent:
    """The :class:`Opponent` for one spec (see the module docstring)."""
    if isinstance(spec, Opponent):
        return spec
    if spec is None or spec == "random":
        return RandomOpponent()
    if isinstance(spec, Player):
        return PlayerOpponent(spec)
    if isinstance(spec, str):
        if spec not in bots:
            known = ", ".join(["random", *sorted(bots)])
            raise ConfigError(f"unknown opponent {spec!r} for {game} (known: {known}, a Player or a policy)")
        from hexarena.core.config import PlayerConfig
        from hexarena.core.player_factory import build_player
        from hexarena.core.registry import game_class

        return PlayerOpponent(build_player(PlayerConfig(type=spec, seed=seed), game_class(game)))
    if callable(spec):
        return PolicyOpponent(spec)
    raise ConfigError(
        f"opponent {spec!r}: expected 'random', a bot name, a Player, a policy or a SnapshotPool"
    )


def _must_accept(message: str | None, role: str) -> None:
    if message is not None:
        raise IllegalMoveError(f"opponent {role} played an illegal move: {message}")
