"""A compact City of Gold observation for small policy networks, from the JAX or the scalar engine.

The full observation (48 x 48 x 7 map, 48 x 48 x 6 blockade map and more, 30,455 numbers) is
what a convolutional policy would read; a two-layer MLP on a CPU learns faster from what is near
the seat's pawns. Per player to act (``FEATURES`` numbers, float32):

* ``[0, 21)`` hand card counts / 4, ``[21, 42)`` whole deck counts / 4 (all five zones);
* ``[42, 51)`` phase one-hot (:class:`~hexarena.games.cityofgold.actions.Phase`);
* ``[51, 55)`` current machete, paddle, coin / 4 and money / 8;
* per pawn (two slots; the second is empty outside 2-player games), 62 numbers: arrived, hexes
  left to El Dorado / 40, then per direction (E, NE, NW, W, SW, SE) the neighbour's requirement
  kind one-hot (6: none/closed, machete, paddle, coin, discard, remove), its amount / 4, the
  change of the distance to El Dorado (clipped to +-2, / 2), whether it is a finish hex and
  whether a pawn stands there;
* ``[179, 180)`` the turn / ``max_turns``; ``[180, 295)`` the legal action mask.

:func:`jax_features` reads a batch of :class:`~..games.cityofgold.fast.jax_rules.State`;
:func:`game_features` one scalar :class:`~..games.cityofgold.engine.Game` (what a trained
policy sees in a match). Both go through :func:`features`, so they cannot drift apart.
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from hexarena.games.cityofgold.actions import N_ACTIONS
from hexarena.games.cityofgold.board import N_CELLS, NEIGHBORS, Course, finish_distances

FEATURES = 42 + 9 + 4 + 2 * 62 + 1 + N_ACTIONS
_NBR = np.array(NEIGHBORS, np.int32)
_MAX_DIST = 60


def course_tables(course: Course) -> dict[str, np.ndarray]:
    """The per-cell tables :func:`features` reads: requirement kind and amount, finish, distance."""
    dist = np.array(finish_distances(course), np.int32)
    finish = np.zeros(N_CELLS, np.int8)
    finish[list(course.finishes)] = 1
    return {
        "req_kind": np.asarray(course.req_kind, np.int8),
        "req_amount": np.asarray(course.req_amount, np.int8),
        "finish": finish,
        "dist": np.where(dist < 0, _MAX_DIST, np.minimum(dist, _MAX_DIST)).astype(np.int32),
    }


def features(x: dict[str, Any], t: dict[str, Any]) -> jax.Array:
    """One seat's features; ``x``: ``hand``/``deck`` [21], ``phase``, ``res`` [3], ``money2``,
    ``pawns`` [2] (-1: arrived, or no second pawn), ``others`` [k] (other pawns'
    cells), ``turn``, ``max_turns``, ``mask`` [N_ACTIONS]; ``t``: :func:`course_tables`."""
    head = [
        x["hand"] / 4.0,
        x["deck"] / 4.0,
        jax.nn.one_hot(x["phase"], 9),
        jnp.concatenate([x["res"] / 4.0, jnp.atleast_1d(x["money2"] / 8.0)]),
    ]
    pawns = []
    for p in range(2):
        cell = x["pawns"][p]
        at = jnp.maximum(cell, 0)
        nbr = jnp.asarray(_NBR)[at]
        nn = jnp.maximum(nbr, 0)
        ok = (nbr >= 0) & (cell >= 0)
        kind = jnp.where(ok, t["req_kind"][nn], 0)
        here = t["dist"][at]
        delta = jnp.clip(t["dist"][nn] - here, -2, 2) / 2.0
        occupied = (nn[:, None] == x["others"][None, :]).any(axis=1)
        per_dir = jnp.concatenate(
            [
                jax.nn.one_hot(kind, 6),
                (jnp.where(ok, t["req_amount"][nn], 0) / 4.0)[:, None],
                jnp.where(ok, delta, 0.0)[:, None],
                jnp.where(ok, t["finish"][nn], 0)[:, None],
                (ok & occupied)[:, None],
            ],
            axis=1,
        )
        pawn = jnp.concatenate(
            [jnp.stack([cell == -1, jnp.where(cell >= 0, here / 40.0, 0.0)]), per_dir.reshape(-1)]
        )
        pawns.append(pawn)
    tail = [jnp.atleast_1d(x["turn"] / x["max_turns"]), x["mask"]]
    return jnp.concatenate([v.astype(jnp.float32) for v in head + pawns + tail])


def jax_features(s: Any, tables: dict[str, jax.Array], max_turns: int) -> jax.Array:
    """``[n, FEATURES]`` for a batch of JAX states (the seat to act; ``tables`` stacked per board)."""

    def one(s: Any) -> jax.Array:
        me = s.current_player
        pawns = s.pawns[me]
        others = jnp.where(jnp.arange(4)[:, None] == me, -3, s.pawns).reshape(-1)
        x = {
            "hand": s.zones[me, 1],
            "deck": s.zones[me].sum(axis=0),
            "phase": s.phase,
            "res": s.res,
            "money2": s.money2,
            "pawns": pawns,
            "others": others,
            "turn": s.turn,
            "max_turns": max_turns,
            "mask": s.legal_action_mask,
        }
        return features(x, {k: v[s.board] for k, v in tables.items()})

    return jax.vmap(one)(s)


def pool_tables(courses: list[Course]) -> dict[str, jax.Array]:
    """:func:`course_tables` of a board pool, stacked (indexed by board number)."""
    rows = [course_tables(c) for c in courses]
    return {k: jnp.asarray(np.stack([r[k] for r in rows])) for k in rows[0]}


def game_features(g: Any, mask: np.ndarray) -> np.ndarray:
    """The features of the seat to act in a scalar game (for policy players)."""
    me = g.player
    pawns = list(g.pawns[me]) + [-1] * (2 - len(g.pawns[me]))  # as the JAX state pads
    others = [c for p, ps in enumerate(g.pawns) for c in ps if p != me] or [-3]
    x = {
        "hand": np.array(g.zones[me][1], np.float32),
        "deck": np.array(g.zones[me], np.float32).sum(axis=0),
        "phase": int(g.phase),
        "res": np.array(g.res, np.float32),
        "money2": float(g.money2),
        "pawns": np.array(pawns, np.int32),
        "others": np.array(others, np.int32),
        "turn": float(g.turn),
        "max_turns": float(g.max_turns),
        "mask": np.asarray(mask, np.float32),
    }
    return np.asarray(_features_jit(x, course_tables(g.course)))


_features_jit = jax.jit(features)
