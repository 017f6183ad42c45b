"""``build_simulator``: the spec's entry point, batched over games and devices.

Every array carries two leading axes (num_devices, num_games). One env step is one player's turn
in every game: ``vmap`` over games inside ``jit(shard_map(...))`` over a one-axis device mesh.
Strategies: ``"duplicate"`` gives every device every map (each game its own key); ``"split"``
divides the maps evenly between devices (their count must divide by the number of devices).

The step takes the actions as they come and checks nothing (checks would cost every step of
every game): a score that is NaN loses every comparison, so an endpoint whose scores are all NaN
resolves as if they were all zero (its first legal choice). A policy that may emit NaN should
check its outputs (``jnp.isfinite(x).all()``); the one-game adapter refuses non-finite scores.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import cache
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import Mesh, NamedSharding, PartitionSpec

from hexarena.core import jaxcache
from hexarena.games.terranova.engine.mapgen import GameMap
from hexarena.games.terranova.engine.observe import Tracker, empty_tracker, observe, update_tracker
from hexarena.games.terranova.engine.state import N_PLAYERS, GameState, MapLayers, map_layers
from hexarena.games.terranova.engine.step import new_game, step_game, step_games

AXIS = "devices"
STRATEGIES = ("duplicate", "split")

try:  # jax >= 0.6 exports shard_map at the top level
    from jax import shard_map as _shard_map
except ImportError:  # pragma: no cover - older jax
    from jax.experimental.shard_map import shard_map as _shard_map


def empty_metrics() -> dict[str, jax.Array]:
    """Per-game running episode statistics."""
    return {
        "episode_return": jnp.zeros(N_PLAYERS, jnp.float32),
        "episode_length": jnp.zeros((), jnp.int32),
        "episodes_done": jnp.zeros((), jnp.int32),
        "last_return": jnp.zeros(N_PLAYERS, jnp.float32),
        "last_length": jnp.zeros((), jnp.int32),
        "last_winner": jnp.full((), -1, jnp.int32),
    }


def _update_metrics(
    m: dict[str, jax.Array], player: jax.Array, reward: jax.Array, done: jax.Array, winner: jax.Array
) -> dict:
    ret = m["episode_return"].at[player].add(reward)
    length = m["episode_length"] + 1
    return {
        "episode_return": jnp.where(done, 0.0, ret),
        "episode_length": jnp.where(done, 0, length),
        "episodes_done": m["episodes_done"] + done,
        "last_return": jnp.where(done, ret, m["last_return"]),
        "last_length": jnp.where(done, length, m["last_length"]),
        "last_winner": jnp.where(done, winner, m["last_winner"]),
    }


def _after_step(
    state: GameState,
    tracker: Tracker,
    metrics: dict,
    player: jax.Array,
    reward: jax.Array,
    done: jax.Array,
    winner: jax.Array,
) -> tuple[Tracker, dict, dict]:
    """The tracker, metrics and the next player's observation after one game's step."""
    reset = done & state.auto_reset
    tracker = jax.tree_util.tree_map(lambda e, t: jnp.where(reset, e, t), empty_tracker(), tracker)
    tracker = update_tracker(tracker, state)
    metrics = _update_metrics(metrics, player, reward, done, winner)
    return tracker, metrics, observe(state, tracker, state.player)


def game_step(
    state: GameState, tracker: Tracker, metrics: dict, actions: tuple
) -> tuple[GameState, Tracker, dict, jax.Array, dict, jax.Array, jax.Array, tuple]:
    """One game, one player's turn, plus the tracker, metrics and the next player's observation."""
    player = state.player
    state, executed, reward, done, winner = step_game(state, actions)
    tracker, metrics, obs = _after_step(state, tracker, metrics, player, reward, done, winner)
    return state, tracker, metrics, state.player, obs, reward, done, executed


def games_step(
    states: GameState, tracker: Tracker, metrics: dict, actions: tuple
) -> tuple[GameState, Tracker, dict, jax.Array, dict, jax.Array, jax.Array, tuple]:
    """:func:`game_step` over a leading axis of games (:func:`~.step.step_games`: the same results,
    the city states' round and restarts computed only on the steps that have them)."""
    players = states.player
    states, executed, reward, done, winner = step_games(states, actions)
    tracker, metrics, obs = jax.vmap(_after_step)(states, tracker, metrics, players, reward, done, winner)
    return states, tracker, metrics, states.player, obs, reward, done, executed


@jax.jit
def _initial(layers: MapLayers, keys: jax.Array, turn_cap: jax.Array, auto_reset: jax.Array) -> tuple:
    states = jax.vmap(jax.vmap(new_game, in_axes=(0, 0, None, None)), in_axes=(0, 0, None, None))(
        layers, keys, turn_cap, auto_reset
    )
    lead = states.turn.shape
    tracker = jax.tree_util.tree_map(lambda x: jnp.broadcast_to(x, (*lead, *x.shape)), empty_tracker())
    tracker = jax.vmap(jax.vmap(update_tracker))(tracker, states)
    metrics = jax.tree_util.tree_map(lambda x: jnp.broadcast_to(x, (*lead, *x.shape)), empty_metrics())
    obs = jax.vmap(jax.vmap(observe))(states, tracker, states.player)
    return states, tracker, metrics, obs


def initial_games(
    maps: Sequence[GameMap | MapLayers],
    strategy: str,
    key: jax.Array,
    n_devices: int,
    turn_cap: int = 300,
    auto_reset: bool = True,
) -> tuple[GameState, Tracker, dict, dict]:
    """Initial states, trackers, metrics and observations laid out (num_devices, num_games, ...)."""
    if strategy not in STRATEGIES:
        raise ValueError(f"distributed_strategy must be one of {STRATEGIES}, got {strategy!r}")
    layers = [m if isinstance(m, MapLayers) else map_layers(m) for m in maps]
    if not layers:
        raise ValueError("build_simulator needs at least one map")
    stacked = jax.tree_util.tree_map(lambda *xs: np.stack(xs), *layers)
    if strategy == "duplicate":
        grid = jax.tree_util.tree_map(lambda x: np.broadcast_to(x, (n_devices, *x.shape)), stacked)
    else:
        if len(layers) % n_devices:
            raise ValueError(
                f"'split' needs the map count ({len(layers)}) to divide by the devices ({n_devices})"
            )
        grid = jax.tree_util.tree_map(lambda x: x.reshape(n_devices, -1, *x.shape[1:]), stacked)
    n_games = len(layers) if strategy == "duplicate" else len(layers) // n_devices
    keys = jax.random.split(key, n_devices * n_games).reshape(n_devices, n_games, -1)
    grid = jax.tree_util.tree_map(jnp.asarray, grid)
    return _initial(grid, keys, jnp.int32(turn_cap), jnp.asarray(auto_reset))


@cache
def env_step_for(devices: tuple[Any, ...]) -> tuple[Callable, Mesh, NamedSharding]:
    """The jitted env step over a mesh of ``devices`` (one per device set, shared by every game)."""
    mesh = Mesh(np.array(devices), (AXIS,))
    spec = PartitionSpec(AXIS)

    def local(
        states: GameState, actions: tuple, tracker: Tracker, metrics: dict, _turn_ids: jax.Array
    ) -> tuple:
        lead = states.turn.shape  # (1, games) on each device: one flat axis of games
        flat = lambda tree: jax.tree_util.tree_map(lambda x: x.reshape(-1, *x.shape[2:]), tree)  # noqa: E731
        out = games_step(flat(states), flat(tracker), flat(metrics), flat(actions))
        return jax.tree_util.tree_map(lambda x: x.reshape(*lead, *x.shape[1:]), out)

    shard = _shard_map(local, mesh=mesh, in_specs=spec, out_specs=spec, check_vma=False)
    env_step = jax.jit(shard, compiler_options=jaxcache.compiler_options())  # LLVM -O1 on CPU
    return env_step, mesh, NamedSharding(mesh, spec)


def build_simulator(
    games: Sequence[GameMap | MapLayers],
    distributed_strategy: str,
    key: jax.Array,
    turn_cap: int = 300,
    devices: Sequence[Any] | None = None,
    auto_reset: bool = True,
) -> tuple[Callable, GameState, Tracker, dict, jax.Array, dict, Mesh, NamedSharding]:
    """Returns ``(env_step_fn, games, obs_spaces, episode_metrics, players_turn_id, obs, mesh, sharding)``.

    ``env_step_fn(games, actions, obs_spaces, episode_metrics, players_turn_id)`` returns
    ``(games, obs_spaces, episode_metrics, players_turn_id, obs, rewards, done_flags,
    executed_actions)``; ``players_turn_id`` is advisory (each game knows whose turn it is).
    ``turn_cap`` and ``auto_reset`` live in the state, so they never cause a recompile.
    """
    devs = tuple(devices if devices is not None else jax.devices())
    states, tracker, metrics, obs = initial_games(
        games, distributed_strategy, key, len(devs), turn_cap, auto_reset
    )
    env_step, mesh, sharding = env_step_for(devs)
    put = lambda tree: jax.device_put(tree, sharding)  # noqa: E731
    return env_step, put(states), put(tracker), put(metrics), put(states.player), put(obs), mesh, sharding
