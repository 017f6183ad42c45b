"""The compiled single-game functions behind the game-contract adapter, compiled once per machine.

The adapter steps one game at a time with the same :func:`~.step.step_game` as the batched
simulator (no device or game axes). Tracing and compiling these functions costs tens of seconds
on a CPU; :func:`hexarena.core.jaxcache.compiled` keeps the compiled functions on disk, so only
the first process on a machine (or after a rules change) pays, and a later one loads them in
under a second. Loading happens in a background thread as soon as the first position exists
(:func:`start`), while the caller renders it and its first player thinks.
``HEXARENA_JAX_CACHE=off`` turns the disk cache off (everything is then traced and compiled in
each process).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from importlib import resources
from pathlib import Path
from typing import Any

import jax
import numpy as np

from hexarena.core import hexgrid, jaxcache
from hexarena.games.terranova.contract.moves import to_dense
from hexarena.games.terranova.contract.options import options
from hexarena.games.terranova.engine.observe import Tracker, empty_tracker, observe, update_tracker
from hexarena.games.terranova.engine.state import GameState, MapLayers
from hexarena.games.terranova.engine.step import new_game, player_scores, step_game

# what the compiled functions trace besides the engine: editing any other module of the contract,
# the view or the bots (or any package's docstring-only __init__) keeps the compiled functions
TRACED = ("compiled.py", "moves.py", "options.py")


def _sources() -> list[Path]:
    """Every file that defines the rules: the engine's modules and data, the contract modules the
    functions trace, and the hex grid."""
    package = Path(str(resources.files("hexarena.games.terranova")))
    engine = [m for m in (package / "engine").rglob("*.py") if m.name != "__init__.py"]
    traced = [package / "contract" / name for name in TRACED]
    return [*engine, *traced, *package.glob("data/*.json"), Path(hexgrid.__file__)]


def _start(layers: MapLayers, key_seed: jax.Array, turn_cap: jax.Array) -> tuple:
    key = jax.random.split(jax.random.PRNGKey(key_seed), 1)[0]
    state = new_game(layers, key, turn_cap, False)
    return state, update_tracker(empty_tracker(), state), player_scores(state)


def _step(state: GameState, tracker: Tracker, actions: tuple) -> tuple:
    state, executed, _reward, done, winner = step_game(state, actions)
    return state, update_tracker(tracker, state), executed, done, winner, player_scores(state)


def _view(state: GameState, tracker: Tracker, player: jax.Array) -> tuple:
    return observe(state, tracker, player), options(state, player)


_FUNCTIONS: dict[str, Callable] = {"start": _start, "step": _step, "view": _view}
_LOADED: dict[tuple, Callable] = {}
_LOCKS: dict[tuple, threading.Lock] = {}  # one per function and shapes: a caller waits only for its own
_LOCKS_LOCK = threading.Lock()


def _lock(key: tuple) -> threading.Lock:
    with _LOCKS_LOCK:
        return _LOCKS.setdefault(key, threading.Lock())


def _key(name: str, args: tuple) -> tuple:
    """What a compiled function is specialised to: the pytree and each array's abstract value
    (every argument here is an array; cheaper than :func:`jaxcache.signature` on every step)."""
    leaves, treedef = jax.tree_util.tree_flatten(args)
    return name, treedef, tuple((x.shape, x.dtype, getattr(x, "weak_type", False)) for x in leaves)


def _compiled(name: str, args: tuple) -> Callable:
    """The compiled ``name`` for ``args``' shapes (the shapes never change within a process's
    games of one player count; another count compiles its own)."""
    key = _key(name, args)
    if key in _LOADED:  # the common case, without the lock
        return _LOADED[key]
    with _lock(key):
        if key not in _LOADED:
            options = jaxcache.compiler_options()
            _LOADED[key] = jaxcache.compiled(name, _FUNCTIONS[name], args, _sources(), options)
        return _LOADED[key]


def _prefetch(state: GameState, tracker: Tracker) -> None:
    """Load ``view`` and then ``step`` for this game's shapes from the disk cache, if they are
    there (a cold cache is left to the first call: a compile must not outlive a short process).
    One after the other: the caller wants the view first (side by side, on two busy cores, both
    came later)."""
    for name, later in (("view", np.int32(0)), ("step", to_dense({}))):
        args = (state, tracker, later)
        key = _key(name, args)
        with _lock(key):
            if key not in _LOADED:
                loaded = jaxcache.load(jaxcache.entry(name, args, _sources(), jaxcache.compiler_options()))
                if loaded is not None:
                    _LOADED[key] = loaded


def start(layers: MapLayers, key_seed: int, turn_cap: Any) -> tuple[GameState, Tracker, jax.Array]:
    """The first position of a game: ``(state, tracker, scores)``; its random key is
    ``split(PRNGKey(key_seed), 1)[0]``, made inside the compiled function (made eagerly, the
    key and the arrays' transfer cost a process about 0.4 s of small compiles)."""
    args = (jax.device_put(layers), np.int32(key_seed), np.int32(turn_cap))
    state, tracker, scores = _compiled("start", args)(*args)
    # not a daemon: the interpreter waits for the load (under a second) before it exits, as XLA
    # aborts the process when its client is torn down under a deserialization in flight
    threading.Thread(target=_prefetch, args=(state, tracker), name="terranova-load").start()
    return state, tracker, scores


def step(state: GameState, tracker: Tracker, actions: tuple) -> tuple:
    """One player's turn: ``(state, tracker, executed, done, winner, scores)``."""
    args = (state, tracker, actions)
    return _compiled("step", args)(*args)


def view(state: GameState, tracker: Tracker, player: int) -> tuple[dict[str, Any], dict[str, Any]]:
    """Player ``player``'s observation (the spec's layout, with fog) and its options this turn."""
    args = (state, tracker, np.int32(player))
    return _compiled("view", args)(*args)
