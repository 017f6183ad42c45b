"""The compiled single-game functions behind the game-contract adapter, traced once per machine.

The adapter steps one game at a time with the same :func:`~.step.step_game` as the batched
simulator (no device or game axes). Tracing these functions costs seconds and compiling them
tens of seconds on a CPU; :func:`hexarena.core.jaxcache.exported` keeps both on disk, so only the
first process on a machine (or after a rules change) pays. ``HEXARENA_JAX_CACHE=off`` turns that
off (everything is then traced and compiled in each process).
"""

from __future__ import annotations

from collections.abc import Callable
from importlib import resources
from pathlib import Path
from typing import Any

import jax
import jax.numpy as jnp

from hexarena.core import hexgrid, jaxcache
from hexarena.games.terranova.observe import Tracker, empty_tracker, observe, update_tracker
from hexarena.games.terranova.options import options
from hexarena.games.terranova.state import GameState, MapLayers
from hexarena.games.terranova.step import new_game, player_scores, step_game


def _sources() -> list[Path]:
    """Every file that defines the rules: this package's modules and data, and the hex grid."""
    package = Path(str(resources.files("hexarena.games.terranova")))
    return [*package.glob("*.py"), *package.glob("data/*.json"), Path(hexgrid.__file__)]


def _start(layers: MapLayers, key: jax.Array, turn_cap: jax.Array) -> tuple:
    state = new_game(layers, key, turn_cap, False)
    return state, update_tracker(empty_tracker(), state), player_scores(state)


def _step(state: GameState, tracker: Tracker, actions: tuple) -> tuple:
    state, executed, _reward, done, winner = step_game(state, actions)
    return state, update_tracker(tracker, state), executed, done, winner, player_scores(state)


_LOADED: dict[str, Callable] = {}


def _call(name: str, fn: Callable, *args: Any) -> Any:
    """``fn(*args)`` jitted, exported on first use (the shapes never change within a game)."""
    if name not in _LOADED:
        _LOADED[name] = jaxcache.exported(name, fn, args, _sources(), "hexarena.games.terranova")
    return _LOADED[name](*args)


def start(layers: MapLayers, key: jax.Array, turn_cap: Any) -> tuple[GameState, Tracker, jax.Array]:
    """The first position of a game: ``(state, tracker, scores)``."""
    layers = jax.tree_util.tree_map(jnp.asarray, layers)
    return _call("start", _start, layers, key, jnp.int32(turn_cap))


def step(state: GameState, tracker: Tracker, actions: tuple) -> tuple:
    """One player's turn: ``(state, tracker, executed, done, winner, scores)``."""
    return _call("step", _step, state, tracker, actions)


def _view(state: GameState, tracker: Tracker, player: jax.Array) -> tuple:
    return observe(state, tracker, player), options(state, player)


def view(state: GameState, tracker: Tracker, player: int) -> tuple[dict[str, Any], dict[str, Any]]:
    """Player ``player``'s observation (the spec's layout, with fog) and its options this turn."""
    return _call("view", _view, state, tracker, jnp.int32(player))
