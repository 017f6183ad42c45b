"""The spec's action and executed-action shapes for one game, and random preference scores.

Actions are a nested tuple, in the spec's order::

    ((accept_deny (6, 2), ask (6, 56), offer (56,), counterparty (6,)),   # trade (see trade.py)
     policy (54,),
     tenet (91,),                                                           # every religious stage
     tech (81,),
     (unit_action_type (30, 19), unit_target_hex (30, 2772)),
     (worked_tiles (10, 36, 36), build_choice (10, 185)))

The simulator takes them with two extra leading axes (num_devices, num_games).

Index conventions: a tile is ``row * 66 + col``; a worked-tile slot ``j`` (0..35) is tile
``geometry.work_area()[city_tile, 1 + j]`` (rings 1 to 3 around the city, in walking order); a
buildable ``b`` is building ``b`` for ``b < 148`` and unit type ``b - 147`` otherwise; unit action
categories follow ``units.json`` (0 move, 1 settle, 2-15 worker builds, 16-17 caravans, 18 combat).
Executed actions use the same indices, -1 where nothing was executed. Trade items: 0 none,
1 embassy, 2 gold per turn, 3 peace, 3 + r resource r; accept/deny scores are ``(deny, accept)``
as in the original (all zeros deny); the executed trade is (per sender 1 accepted / 0 denied /
-1 no offer, ask, offer, counterparty).
"""

from __future__ import annotations

import functools
from typing import Any

import jax
import jax.numpy as jnp

from hexarena.games.terranova.engine.geometry import N_TILES
from hexarena.games.terranova.engine.state import MAX_CITIES, MAX_UNITS, N_PLAYERS
from hexarena.games.terranova.engine.tables import N_BUILDABLES, N_CATEGORIES

N_TRADEABLES, N_POLICIES, N_TENETS, N_TECHS, N_CITIZENS = 56, 54, 91, 81, 36

ACTION_SHAPES: tuple = (
    ((N_PLAYERS, 2), (N_PLAYERS, N_TRADEABLES), (N_TRADEABLES,), (N_PLAYERS,)),
    (N_POLICIES,),
    (N_TENETS,),
    (N_TECHS,),
    ((MAX_UNITS, N_CATEGORIES), (MAX_UNITS, N_TILES)),
    ((MAX_CITIES, N_CITIZENS, N_CITIZENS), (MAX_CITIES, N_BUILDABLES)),
)

EXECUTED_SHAPES: tuple = (
    ((N_PLAYERS,), (), (), ()),
    (2,),
    (3,),
    (2,),
    ((MAX_UNITS,), (MAX_UNITS,)),
    ((MAX_CITIES, N_CITIZENS), (MAX_CITIES,)),
)


def _is_shape(x: Any) -> bool:
    return isinstance(x, tuple) and all(isinstance(d, int) for d in x)


def map_shapes(fn: Any, shapes: tuple = ACTION_SHAPES) -> Any:
    """Apply ``fn(shape)`` to every leaf shape of a shape tree, keeping the nesting."""
    if _is_shape(shapes):
        return fn(shapes)
    return tuple(map_shapes(fn, s) for s in shapes)


@functools.partial(jax.jit, static_argnums=1, static_argnames="lead")
def random_actions(key: jax.Array, lead: tuple[int, ...] = ()) -> tuple:
    """Uniform random scores for every endpoint, with extra leading axes ``lead`` (a tuple).

    Compiled as one program: called eagerly, each endpoint's draw compiled on its own (twenty
    small compiles, seconds, for every new ``lead``)."""
    leaves: list[tuple[int, ...]] = []
    map_shapes(leaves.append)
    keys = iter(jax.random.split(key, len(leaves)))
    return map_shapes(lambda s: jax.random.uniform(next(keys), (*lead, *s)))


def zero_actions(lead: tuple[int, ...] = ()) -> tuple:
    return map_shapes(lambda s: jnp.zeros((*lead, *s), jnp.float32))
