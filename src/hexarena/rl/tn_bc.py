"""Behaviour cloning of a bot into Terra Nova's preference policy (ES's warm start).

The bot (``easy`` by default, whose choices follow the game's age, the empire's size and the lie
of the land, which the policy sees; the ``heuristic`` bot's follow its treasury, happiness and
luxuries, and its clone won 45 of 64 held-out games against random players where the easy bot's
won 56, both with unit targets at random) plays every seat of a few games through the game
contract; at each of its turns the engine reports what it executed on every endpoint
(``executed``: the option index per endpoint, -1 where none), and the contract's options give
what was legal then. Each head of :mod:`.tn_policy` is then fitted as a conditional logit:
``softmax(x @ W)`` over the legal options, maximising the likelihood of the bot's executed choice;
so are the unit targets (per class of unit, over the tiles the unit could move to or attack, the
chosen one and up to :data:`MAX_CANDIDATES` others) and the worked tiles (the slot values
``yields @ w`` over each city's 36 slots). The policy adds Gumbel noise to these logits, so it
samples the fitted distribution; the result is a learnt policy (trained on the bot's choices),
not the bot: it sees only the features of :mod:`.tn_policy`.
"""

from __future__ import annotations

import time
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from hexarena.games.terranova.engine.geometry import COLS, N_TILES, distance_np
from hexarena.games.terranova.engine.rules.units import COMBAT, MOVE
from hexarena.games.terranova.engine.tables import N_YIELDS
from hexarena.rl.es import Adam
from hexarena.rl.tn_policy import (
    HEADS,
    N_PARAMS,
    STEP_SCALE,
    TARGET_FEATURES,
    UNIT_CLASSES,
    UNIT_HEAD,
    WORK_AREA,
    features,
    head_features,
    tile_features,
    unit_inputs,
)

MAX_CANDIDATES = 48  # a target decision keeps the chosen tile and at most this many others
# the contract's option mask of each head (unit categories and builds per unit / city slot)
MASKS = {
    "policy": "policies",
    "tenet": None,
    "tech": "techs",
    "unit_category": "categories",
    "build": "build",
}


def _executed(env: Any) -> dict[str, list[int]]:
    """The mover's executed option indices per head (every one >= 0 of that endpoint)."""
    _trade, policy, tenet, tech, (ucat, tgt), (worked, built) = env.executed
    flat = lambda x: [int(v) for v in np.ravel(x)]  # noqa: E731
    return {
        "policy": flat(policy),
        "tenet": flat(tenet),
        "tech": flat(tech),
        "unit_category": flat(ucat),
        "build": flat(built),
        "target": flat(tgt),
        "worked": np.asarray(worked, np.int64).tolist(),
    }


def collect(
    games: int, seed: int, turn_cap: int, minutes: float | None = None, log: Any = print, bot: str = "easy"
) -> dict:
    """Play ``games`` games of six ``bot`` players (a bot name of the game; map seeds ``seed ..``);
    returns, per head, the rows ``(features, legal mask, chosen)`` of every executed decision, per
    unit target chosen ``(unit class, candidates' features, valid candidates, chosen)`` and per
    worked citizen the city's 36 slot yields with the chosen slot."""
    from hexarena.core.config import PlayerConfig
    from hexarena.core.player_factory import build_player
    from hexarena.games.terranova.adapter import TerraNovaState
    from hexarena.games.terranova.contract import compiled

    rows: dict[str, list] = {name: [] for name, _ in HEADS} | {"worked": [], "target": []}
    rng = np.random.default_rng(seed)
    deadline = None if minutes is None else time.perf_counter() + 60 * minutes
    played = 0
    for g in range(games):
        if deadline is not None and time.perf_counter() > deadline:
            break
        state = TerraNovaState.new(seed=seed + g, turn_cap=turn_cap)
        roles = state.all_roles()
        bots = {r: build_player(PlayerConfig(type=bot), TerraNovaState) for r in roles}
        for r in roles:
            bots[r].reset(roles, seed + g)
        while state.validate_game() is None:
            env = state.environment
            me = env.player
            obs, opts = jax.tree_util.tree_map(np.asarray, compiled.view(env.state, env.tracker, me))
            role = state.roles[0]
            before = env
            state = state.apply(bots[role].act(state.query_game(role)).move)
            if state.environment is before:
                raise RuntimeError(f"the {bot} bot's move was refused: {state.message}")
            f = np.asarray(features(obs))
            tiles, pos, cls, x_unit = (np.asarray(a) for a in _inputs(obs))
            done = _executed(state.environment)
            for name, n in HEADS:
                mask_key = MASKS[name]
                legal = np.ones((1, n), bool) if mask_key is None else np.asarray(opts[mask_key], bool)
                legal = legal.reshape(-1, n)
                for slot, c in enumerate(done[name]):
                    mask = legal[slot % len(legal)] if name in ("unit_category", "build") else legal[0]
                    if 0 <= c < n and mask[c]:
                        rows[name].append((x_unit[slot] if name == UNIT_HEAD else f, mask, c))
            for slot, (c, t) in enumerate(zip(done[UNIT_HEAD], done["target"], strict=True)):
                if c in (MOVE, COMBAT) and t >= 0:
                    cands = np.asarray(opts["reach" if c == MOVE else "attack"][slot], bool)
                    row = _target_row(tiles, int(pos[slot]), cands, t, rng)
                    if row is not None:
                        rows["target"].append((int(cls[slot]), *row))
            rows["worked"] += _worked_rows(obs, done["worked"], me)
        played += 1
        log(f"behaviour cloning: game {played} of {games} played")
    return {"games": played, "rows": rows}


@jax.jit
def _inputs(obs: dict) -> tuple[jax.Array, ...]:
    """The policy's view of one observation: tile features, then each unit's tile, class and features."""
    tiles = tile_features(obs)
    return (tiles, *unit_inputs(obs, tiles))


def _target_row(
    tiles: np.ndarray, pos: int, legal: np.ndarray, chosen: int, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray, int] | None:
    """One target decision: the :data:`TARGET_FEATURES` of the chosen tile (row 0) and of up to
    :data:`MAX_CANDIDATES` other legal ones, the valid rows, the chosen row (0); None where the
    chosen tile was not a legal one (or the only one: nothing was chosen)."""
    others = np.flatnonzero(legal & (np.arange(N_TILES) != chosen))
    if not legal[chosen] or not len(others):
        return None
    others = rng.permutation(others)[:MAX_CANDIDATES]
    cand = np.concatenate([[chosen], others])
    steps = distance_np(pos, cand) / STEP_SCALE
    x = np.zeros((MAX_CANDIDATES + 1, len(TARGET_FEATURES)), np.float32)
    x[: len(cand)] = np.column_stack([tiles[cand], steps])
    return x, np.arange(MAX_CANDIDATES + 1) < len(cand), 0


def _worked_rows(obs: dict, worked: list[list[int]], me: int) -> list[tuple[np.ndarray, np.ndarray, int]]:
    """(slot yields (36, 7), valid slots (36,), chosen slot) per worked citizen of the mover."""
    rowcol = np.asarray(obs["player_cities"]["city_rowcols"])[me]
    yields = np.asarray(obs["yield_map_players"], np.float32).reshape(N_TILES, N_YIELDS)
    out = []
    for city, citizens in enumerate(worked):
        if rowcol[city, 0] < 0:
            continue
        slots = WORK_AREA[rowcol[city, 0] * COLS + rowcol[city, 1], 1:]
        valid = slots >= 0
        y = yields[np.where(valid, slots, 0)]
        out += [(y, valid, s) for s in citizens if 0 <= s < len(slots) and valid[s]]
    return out


def _nll(w: jax.Array, x: jax.Array, mask: jax.Array, chosen: jax.Array) -> jax.Array:
    """Mean negative log-likelihood of ``chosen`` under ``softmax(x @ w)`` over ``mask``."""
    logits = jnp.where(mask, x @ w, -1e9)
    return -jnp.mean(jax.nn.log_softmax(logits)[jnp.arange(len(chosen)), chosen])


def _fit(loss: Any, w0: np.ndarray, steps: int, lr: float, l2: float) -> np.ndarray:
    grad = jax.jit(jax.value_and_grad(lambda w: loss(w) + l2 * jnp.sum(w**2)))
    w, opt = np.asarray(w0, np.float32), Adam(w0.size, lr)
    for _ in range(steps):
        _v, g = grad(jnp.asarray(w))
        w = w - opt.step(np.asarray(g).ravel()).reshape(w.shape).astype(np.float32)
    return w


def fit(data: dict, steps: int = 400, lr: float = 0.1, l2: float = 1e-3) -> tuple[np.ndarray, dict]:
    """The policy vector fitted to ``collect``'s rows, and the decisions each head was fitted on."""
    blocks, counts = [], {}
    for name, n in HEADS:
        rows, nf = data["rows"][name], len(head_features(name))
        counts[name] = len(rows)
        if not rows:
            blocks.append(np.zeros(nf * n, np.float32))
            continue
        f = jnp.asarray(np.stack([r[0] for r in rows]))
        mask = jnp.asarray(np.stack([r[1] for r in rows]))
        chosen = jnp.asarray([r[2] for r in rows])
        # logits f @ W: (rows, nf) @ (nf, n)
        w = _fit(lambda w, f=f, m=mask, c=chosen: _nll(w, f, m, c), np.zeros((nf, n)), steps, lr, l2)
        blocks.append(w.ravel())
    target = np.zeros((len(UNIT_CLASSES), len(TARGET_FEATURES)), np.float32)
    for k, cls in enumerate(UNIT_CLASSES):
        rows = [r[1:] for r in data["rows"]["target"] if r[0] == k]
        counts[f"target ({cls})"] = len(rows)
        if rows:
            x, valid = (jnp.asarray(np.stack([r[i] for r in rows])) for i in (0, 1))
            chosen = jnp.asarray([r[2] for r in rows])
            target[k] = _fit(lambda w, x=x, m=valid, c=chosen: _nll(w, x, m, c), target[k], steps, lr, l2)
    worked = data["rows"]["worked"]
    counts["worked"] = len(worked)
    w_yield = np.zeros(N_YIELDS, np.float32)
    if worked:
        y = jnp.asarray(np.stack([r[0] for r in worked]))  # (rows, 36, 7)
        valid = jnp.asarray(np.stack([r[1] for r in worked]))
        chosen = jnp.asarray([r[2] for r in worked])
        loss = lambda w: _nll(w, y, valid, chosen)  # noqa: E731  (y @ w: (rows, 36))
        w_yield = _fit(loss, w_yield, steps, lr, l2)
    theta = np.concatenate([*blocks, target.ravel(), w_yield]).astype(np.float32)
    assert theta.shape == (N_PARAMS,)
    return theta, counts
