"""The JAX engine: pure ``init`` / ``step`` over a pytree of fixed-size arrays (pgx style).

:class:`CityOfGold` gives the pgx-style pair ``init(key)`` / ``step(state, action, key)``.
``State`` carries the pgx fields (``current_player``, ``observation``, ``legal_action_mask``,
``rewards``, ``terminated``, ``truncated``, ``step_count``) and the game. ``step`` applies one
action; a batch is stepped by :func:`batch_step` (``jit(vmap(step))`` plus auto-reset of the
finished envs to their next board of the pool schedule, only when some env finished) and rolled
out by :func:`rollout` (uniform random legal actions, fused with ``lax.scan``).

Deck shuffles reproduce the scalar engine's SplitMix64 draws exactly. That needs 64-bit
integers, which JAX enables only inside ``jax.enable_x64(True)``: every public function here
enters that context itself, so the global setting (shared with Terra Nova) is never touched.
The rules are the scalar engine's (:mod:`..engine`), written branch-free; there are no caves.
The observation is the scalar one as a dict of arrays; :func:`to_records` turns a batch of them
into ``OBS_DTYPE`` records (terminal observations are not kept: read ``rewards`` and the flags).
"""

from __future__ import annotations

import functools
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from hexarena.games.cityofgold import cards as C
from hexarena.games.cityofgold.actions import DISCARD, MOVE, N_ACTIONS, PASS, PLAY, REMOVE, SHOP, SPECIAL
from hexarena.games.cityofgold.board import GRID, N_CELLS, NEIGHBORS
from hexarena.games.cityofgold.engine import STAT_NAMES
from hexarena.games.cityofgold.fast.boards import STRIDE, BoardPool
from hexarena.games.cityofgold.fast.codes import (
    ACTIVE_Z,
    BUYING,
    DISCARD_Z,
    DONE,
    DRAW_Z,
    HAND_Z,
    MOVEMENT,
    NATIVE,
    PAY_DISCARD,
    PAY_REMOVE,
    PLAYED_Z,
    REMOVING,
    ST_ADDED,
    ST_BLOCKADES,
    ST_HEXES,
    ST_MACHETE,
    ST_REMOVED,
    ST_STEPS,
    ST_USES,
    TRANSMIT,
    card_table,
)
from hexarena.games.cityofgold.observe import HEADS, OBS_DTYPE

i32 = jnp.int32
Z8 = jnp.int8  # card counts of the zones (a deck holds at most 62 cards): a quarter of the traffic
_CARDS = card_table()
_RES = _CARDS[:, 0:3]
_MONEY2, _COST, _SU, _SPEC, _DRAWN, _REMOVES, _HASRES, _STARTER = (_CARDS[:, c] for c in range(3, 11))
_SHOP_CARDS = np.array(C.SHOP_CARDS)
_START_MARKET = np.array(C.START_MARKET)
_NBR = np.array(NEIGHBORS, np.int32)
_HEAD_SIZES = (C.N_CARDS, C.N_CARDS, C.N_CARDS, 12, C.N_SHOP)
_N_STATS = len(STAT_NAMES)


class Config(NamedTuple):
    """Static settings (part of the compiled function's identity)."""

    n_players: int = 4
    max_turns: int = 1000
    omniscient: bool = False

    @property
    def n_pawns(self) -> int:
        return 2 if self.n_players == 2 else 1


class Boards(NamedTuple):
    """The board pool on the device (see :mod:`.boards`)."""

    req_kind: jax.Array
    req_amount: jax.Array
    finish: jax.Array
    gate: jax.Array
    starts: jax.Array
    blk_kind: jax.Array
    blk_amount: jax.Array
    n_blockades: jax.Array
    static_map: jax.Array
    guard: jax.Array
    play_seed: jax.Array

    @staticmethod
    def from_pool(pool: BoardPool) -> Boards:
        arr = pool.arrays()
        with jax.enable_x64(True):
            return Boards(*(jnp.asarray(arr[name]) for name in Boards._fields))


class State(NamedTuple):
    current_player: jax.Array
    observation: dict[str, jax.Array]
    legal_action_mask: jax.Array
    rewards: jax.Array
    terminated: jax.Array
    truncated: jax.Array
    step_count: jax.Array
    # the game
    env: jax.Array
    episode: jax.Array
    board: jax.Array
    phase: jax.Array
    pending: jax.Array
    money2: jax.Array
    res: jax.Array
    zones: jax.Array
    removed: jax.Array
    shop: jax.Array
    market: jax.Array
    pawns: jax.Array
    holder: jax.Array
    turn: jax.Array
    turns_taken: jax.Array
    ending: jax.Array
    stats: jax.Array
    rng: jax.Array  # uint64 [2]: mix64(seed), counter


# ------------------------------------------------------------------------------- random ---
def _mix64(z: jax.Array) -> jax.Array:
    z = (z ^ (z >> jnp.uint64(30))) * jnp.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> jnp.uint64(27))) * jnp.uint64(0x94D049BB133111EB)
    return z ^ (z >> jnp.uint64(31))


def _randbelow(rng: jax.Array, n: jax.Array, active: jax.Array) -> tuple[jax.Array, jax.Array]:
    """``Rng.randbelow(n)``; the counter advances only where ``active``."""
    nn = jnp.maximum(n, 1).astype(jnp.uint64)
    rest = (jnp.uint64(0) - nn) % nn
    limit = jnp.uint64(0) - rest

    def draw(carry: tuple[jax.Array, jax.Array, jax.Array]) -> tuple[jax.Array, jax.Array, jax.Array]:
        c, _, _ = carry
        c = c + jnp.uint64(1)
        x = _mix64(rng[0] + c * jnp.uint64(0x9E3779B97F4A7C15))
        return c, x, (rest == 0) | (x < limit)

    c, x, _ = jax.lax.while_loop(lambda t: ~t[2], draw, (rng[1], jnp.uint64(0), jnp.bool_(False)))
    new = jnp.where(active, jnp.stack([rng[0], c]), rng)
    return new, (x % nn).astype(i32)


# ---------------------------------------------------------------------------- the rules ---
def _set(s: State, **fields: Any) -> State:
    return s._replace(**fields)


def _draw(s: State, p: jax.Array, n: jax.Array) -> State:
    """Draw ``n`` (at most 4) cards, shuffling the discard pile in when the draw pile is empty."""

    def one(i: int, s: State) -> State:
        z = s.zones
        want = i < n
        empty = z[p, DRAW_Z].sum() == 0
        refill = want & empty
        z = z.at[p, DRAW_Z].add(jnp.where(refill, z[p, DISCARD_Z], 0))
        z = z.at[p, DISCARD_Z].set(jnp.where(refill, 0, z[p, DISCARD_Z]))
        total = z[p, DRAW_Z].sum()
        active = want & (total > 0)
        rng, pick = _randbelow(s.rng, total, active)
        k = jnp.argmax(jnp.cumsum(z[p, DRAW_Z]) > pick)
        take = jnp.where(active, 1, 0)
        z = z.at[p, DRAW_Z, k].add(-take).at[p, HAND_Z, k].add(take)
        return _set(s, zones=z, rng=rng)

    return jax.lax.fori_loop(0, 4, one, s)


def _retire(s: State, used: jax.Array) -> State:
    p = s.current_player
    active = s.zones[p, ACTIVE_Z]
    nz = active > 0
    gone = nz & used & jnp.asarray(_SU, bool)
    z = s.zones.at[p, ACTIVE_Z].add(-nz.astype(Z8)).at[p, PLAYED_Z].add((nz & ~gone).astype(Z8))
    return _set(
        s,
        zones=z,
        removed=s.removed + gone,
        stats=s.stats.at[p, ST_REMOVED].add(gone.sum().astype(i32)),
    )


def _target(s: State, b: Boards, cell: jax.Array, d: jax.Array) -> tuple[jax.Array, ...]:
    """(target cell, blockade or -1, requirement kind, amount) of moves; kind 0 if impassable."""
    n = jnp.asarray(_NBR)[jnp.maximum(cell, 0), d]
    ok = (n >= 0) & (cell >= 0)
    nn = jnp.maximum(n, 0)
    kind = jnp.where(ok, b.req_kind[s.board, nn], 0).astype(i32)
    g = b.gate[s.board, jnp.maximum(cell, 0), d].astype(i32)
    standing = (g >= 0) & (s.holder[jnp.maximum(g, 0)] < 0) & (kind > 0)
    gg = jnp.maximum(g, 0)
    amount = jnp.where(standing, b.blk_amount[s.board, gg], b.req_amount[s.board, nn]).astype(i32)
    kind = jnp.where(standing, b.blk_kind[s.board, gg].astype(i32), kind)
    return nn, jnp.where(standing, g, -1), kind, amount


def _move_mask(s: State, b: Boards, cfg: Config, free: jax.Array) -> jax.Array:
    p = s.current_player
    cells = jnp.repeat(s.pawns[p, :2], 6)
    dirs = jnp.tile(jnp.arange(6), 2)
    n, g, kind, amount = _target(s, b, cells, dirs)
    occupied = (s.pawns[: cfg.n_players].reshape(-1)[None, :] == n[:, None]).any(axis=1)
    hand = s.zones[p, HAND_Z].sum()
    res_ok = s.res[jnp.clip(kind - 1, 0, 2)] >= amount
    can_pay = jnp.where(kind <= 3, res_ok, hand >= amount)
    ok = (kind > 0) & ((g >= 0) | ~occupied) & (free | can_pay) & (cells >= 0)
    return ok & (jnp.arange(12) < 6 * cfg.n_pawns)


def legal_mask(s: State, b: Boards, cfg: Config, done: jax.Array) -> jax.Array:
    """:func:`~..engine.legal_mask` as a bool [115] array."""
    p = s.current_player
    hand = s.zones[p, HAND_Z] > 0
    phase = s.phase
    mv, buy = phase == MOVEMENT, phase == BUYING
    in_market = s.market.sum()
    price_ok = 2 * jnp.asarray(_COST)[jnp.asarray(_SHOP_CARDS)] <= s.money2
    buyable = (s.shop > 0) & (s.market | (in_market < C.MARKET_SLOTS)) & price_ok
    moves = _move_mask(s, b, cfg, phase == NATIVE)
    removal = (phase == REMOVING) | (phase == PAY_REMOVE)
    play = hand & ((mv & jnp.asarray(_HASRES, bool)) | buy)
    special = hand & mv & (jnp.asarray(_SPEC) != 0)
    mask = jnp.concatenate(
        [
            play,
            special,
            moves & (mv | (phase == NATIVE)),
            (buy & buyable) | ((phase == TRANSMIT) & (s.shop > 0)),
            hand & removal,
            hand & (buy | (phase == PAY_DISCARD)),
            (mv | buy | (phase == TRANSMIT) | (phase == NATIVE) | (phase == REMOVING))[None],
        ]
    )
    return mask & ~done


def _end_turn(s: State, cfg: Config) -> tuple[State, jax.Array, jax.Array]:
    """End of turn; returns (state, done, truncated)."""
    p = s.current_player
    z = s.zones
    z = z.at[p, DISCARD_Z].add(z[p, ACTIVE_Z] + z[p, PLAYED_Z]).at[p, ACTIVE_Z].set(0).at[p, PLAYED_Z].set(0)
    s = _set(s, zones=z)
    s = _draw(s, p, jnp.maximum(0, C.HAND_SIZE - z[p, HAND_Z].sum()))
    nxt = (p + 1) % cfg.n_players
    s = _set(
        s,
        res=jnp.zeros(3, i32),
        money2=i32(0),
        pending=i32(0),
        turn=s.turn + 1,
        turns_taken=s.turns_taken.at[p].add(1),
        current_player=nxt.astype(i32),
        phase=i32(MOVEMENT),
    )
    arrived = (s.pawns[:, : cfg.n_pawns] < 0).all(axis=1) & (jnp.arange(4) < cfg.n_players)
    won_round = s.ending & (nxt == 0)
    best = jnp.max(jnp.where(arrived, s.stats[:, ST_BLOCKADES], -1))
    winners = arrived & (s.stats[:, ST_BLOCKADES] == best)
    k = winners.sum()
    rewards = jnp.where(winners, cfg.n_players - k, -k).astype(jnp.float32)
    rewards = jnp.where(jnp.arange(4) < cfg.n_players, rewards, 0.0)
    truncated = ~won_round & (s.turn >= cfg.max_turns) & ~s.ending
    done = won_round | truncated
    s = _set(
        s,
        rewards=jnp.where(won_round, rewards, s.rewards),
        phase=jnp.where(done, DONE, s.phase).astype(i32),
    )
    return s, done, truncated


def _apply(s: State, a: jax.Array, b: Boards, cfg: Config) -> tuple[State, jax.Array, jax.Array]:
    """:func:`~..engine.step` (no validation); returns (state, done, truncated). Each action
    branch returns its state and whether the turn ends; the end of turn (with its draws) runs
    once after the switch, where ``vmap`` would otherwise run it in three branches for every env."""
    p = s.current_player
    s = _set(s, stats=s.stats.at[p, ST_STEPS].add(1))
    false = jnp.bool_(False)

    def play(s: State) -> tuple[State, jax.Array]:
        k = a - PLAY
        s = _set(s, zones=s.zones.at[p, HAND_Z, k].add(-1), stats=s.stats.at[p, ST_USES].add(1))
        moving = s.phase == MOVEMENT
        r = _retire(s, false)
        r = _set(r, zones=r.zones.at[p, ACTIVE_Z, k].add(1), res=jnp.asarray(_RES, i32)[k])
        su = jnp.asarray(_SU, bool)[k]
        m = _set(
            s,
            money2=s.money2 + jnp.asarray(_MONEY2, i32)[k],
            removed=s.removed.at[k].add(su.astype(i32)),
            stats=s.stats.at[p, ST_REMOVED].add(su.astype(i32)),
            zones=s.zones.at[p, PLAYED_Z, k].add((~su).astype(Z8)),
        )
        return jax.tree.map(lambda x, y: jnp.where(moving, x, y), r, m), false

    def special(s: State) -> tuple[State, jax.Array]:
        k = a - SPECIAL
        s = _retire(s, false)
        su = jnp.asarray(_SU, bool)[k]
        s = _set(
            s,
            res=jnp.zeros(3, i32),
            zones=s.zones.at[p, HAND_Z, k].add(-1).at[p, PLAYED_Z, k].add((~su).astype(Z8)),
            removed=s.removed.at[k].add(su.astype(i32)),
            stats=s.stats.at[p, ST_USES].add(1).at[p, ST_REMOVED].add(su.astype(i32)),
        )
        kind = jnp.asarray(_SPEC)[k]
        drawing = kind == C.SPECIAL_DRAW
        d = _draw(s, p, jnp.where(drawing, jnp.asarray(_DRAWN, i32)[k], 0))
        removes = jnp.asarray(_REMOVES, i32)[k]
        to_remove = drawing & (removes > 0) & (d.zones[p, HAND_Z].sum() > 0)
        phase = jnp.select(
            [kind == C.SPECIAL_TRANSMIT, kind == C.SPECIAL_NATIVE, to_remove],
            [TRANSMIT, NATIVE, REMOVING],
            s.phase,
        )
        return _set(d, phase=phase.astype(i32), pending=jnp.where(to_remove, removes, d.pending)), false

    def move(s: State) -> tuple[State, jax.Array]:
        m = a - MOVE
        pawn, d = m // 6, m % 6
        free = s.phase == NATIVE
        n, g, kind, amount = _target(s, b, s.pawns[p, pawn], d)
        s = _set(s, phase=i32(MOVEMENT))
        symbol = ~free & (kind <= 3)
        cards = ~free & (kind > 3)
        used = s.zones[p, ACTIVE_Z].sum() > 0
        left = s.res[jnp.clip(kind - 1, 0, 2)] - amount
        paid = _retire(s, used & symbol)
        paid = _set(
            paid,
            res=jnp.where(symbol & (jnp.arange(3) == kind - 1), left, 0).astype(i32),
            stats=paid.stats.at[p, ST_MACHETE + jnp.clip(kind - 1, 0, 2)].add(symbol.astype(i32)),
            phase=jnp.where(cards, jnp.where(kind == 4, PAY_DISCARD, PAY_REMOVE), MOVEMENT).astype(i32),
            pending=jnp.where(cards, amount, s.pending),
        )
        s = jax.tree.map(lambda x, y: jnp.where(free, x, y), s, paid)
        opened = g >= 0
        arrive = ~opened & b.finish[s.board, n].astype(bool)
        cell = jnp.where(opened, s.pawns[p, pawn], jnp.where(arrive, -1, n))
        s = _set(
            s,
            holder=s.holder.at[jnp.maximum(g, 0)].set(jnp.where(opened, p, s.holder[jnp.maximum(g, 0)])),
            stats=s.stats.at[p, ST_BLOCKADES]
            .add(opened.astype(i32))
            .at[p, ST_HEXES]
            .add((~opened).astype(i32)),
            pawns=s.pawns.at[p, pawn].set(cell),
        )
        home = arrive & (s.pawns[p, : cfg.n_pawns] < 0).all()
        return _set(s, ending=s.ending | home), home

    def shop(s: State) -> tuple[State, jax.Array]:
        i = a - SHOP
        card = jnp.asarray(_SHOP_CARDS)[i]
        left = s.shop[i] - 1
        s = _set(
            s,
            shop=s.shop.at[i].set(left),
            zones=s.zones.at[p, DISCARD_Z, card].add(1),
            stats=s.stats.at[p, ST_ADDED].add(1),
        )
        transmit = s.phase == TRANSMIT
        t = _set(s, market=s.market.at[i].set(s.market[i] & (left > 0)), phase=i32(MOVEMENT))
        bought = _set(s, market=s.market.at[i].set(left > 0))
        return jax.tree.map(functools.partial(jnp.where, transmit), t, bought), ~transmit

    def _paid_one(s: State) -> State:
        pending = s.pending - 1
        over = (pending <= 0) | (s.zones[p, HAND_Z].sum() == 0)
        return _set(
            s, pending=jnp.where(over, 0, pending), phase=jnp.where(over, MOVEMENT, s.phase).astype(i32)
        )

    def remove(s: State) -> tuple[State, jax.Array]:
        k = a - REMOVE
        s = _set(
            s,
            zones=s.zones.at[p, HAND_Z, k].add(-1),
            removed=s.removed.at[k].add(1),
            stats=s.stats.at[p, ST_REMOVED].add(1),
        )
        return _paid_one(s), false

    def discard(s: State) -> tuple[State, jax.Array]:
        k = a - DISCARD
        s = _set(s, zones=s.zones.at[p, HAND_Z, k].add(-1).at[p, DISCARD_Z, k].add(1))
        paid = _paid_one(s)
        return jax.tree.map(functools.partial(jnp.where, s.phase == PAY_DISCARD), paid, s), false

    def pass_(s: State) -> tuple[State, jax.Array]:
        to_buy = _retire(s, false)
        to_buy = _set(to_buy, res=jnp.zeros(3, i32), money2=i32(0), phase=i32(BUYING))
        leave = _set(s, pending=i32(0), phase=i32(MOVEMENT))
        mv, buy = s.phase == MOVEMENT, s.phase == BUYING
        out = jax.tree.map(lambda x, y, z: jnp.where(mv, x, jnp.where(buy, y, z)), to_buy, s, leave)
        return out, buy

    bounds = jnp.array([SPECIAL, MOVE, SHOP, REMOVE, DISCARD, PASS])
    branch = jnp.searchsorted(bounds, a, side="right")
    s, ends = jax.lax.switch(branch, [play, special, move, shop, remove, discard, pass_], s)
    e, done, trunc = _end_turn(s, cfg)
    return jax.tree.map(functools.partial(jnp.where, ends), e, s), ends & done, ends & trunc


# -------------------------------------------------------------------------- observation ---
def observe(s: State, b: Boards, cfg: Config, mask: jax.Array) -> dict[str, jax.Array]:
    """The scalar observation (:mod:`..observe`) of the seat to act, as a dict of arrays."""
    me = s.current_player
    n = cfg.n_players
    seats = jnp.arange(4)
    rel = ((seats - me) % n + 1).astype(jnp.uint8)
    cells = jnp.where(s.pawns >= 0, s.pawns, N_CELLS).reshape(-1)
    values = jnp.repeat(rel, 2)
    board_map = b.static_map[s.board].reshape(N_CELLS, 7)
    board_map = board_map.at[cells, 0].set(values, mode="drop")
    buying = s.phase == BUYING
    res = jnp.where(buying, jnp.array([0.0, 0.0, 1.0]) * s.money2 / 2, s.res).astype(jnp.float32)
    held_rel = jnp.where(s.holder < 0, 0, (s.holder - me) % n + 1)
    exists = jnp.arange(6) < b.n_blockades[s.board]
    blockades = jnp.stack(
        [s.holder < 0, b.blk_kind[s.board], b.blk_amount[s.board], held_rel], axis=1
    ).astype(jnp.int8) * exists[:, None].astype(jnp.int8)
    playing = seats < n
    visible = (seats == me) | cfg.omniscient
    zone_shown = playing[:, None] & (visible[:, None] | (jnp.arange(5)[None, :] >= ACTIVE_Z))
    zones = jnp.where(zone_shown[:, :, None], s.zones, 0).astype(jnp.uint8)
    mine = (seats == me)[:, None]
    removal = jnp.where((s.phase == PAY_DISCARD) | buying, DISCARD, REMOVE)
    starts = (PLAY, SPECIAL, removal, MOVE, SHOP)
    heads = {}
    for h, (start, size) in enumerate(zip(starts, _HEAD_SIZES, strict=True)):
        part = jax.lax.dynamic_slice(mask, (jnp.asarray(start, i32),), (size,))
        head = jnp.concatenate([jnp.ones(1, bool), part])
        heads[HEADS[h]] = head[None, :] & mine
    counts = s.zones.sum(axis=2)
    return {
        "map": board_map.reshape(GRID, GRID, 7),
        "phase": s.phase.astype(jnp.uint8),
        "current_resources": res,
        "shop": s.shop.astype(jnp.uint8),
        "market": s.market,
        "blockades": blockades,
        "blockade_map": b.guard[s.board].reshape(GRID, GRID),
        "zones": zones,
        "hand_size": jnp.where(playing, counts[:, HAND_Z], 0).astype(jnp.uint8),
        "draw_size": jnp.where(playing, counts[:, DRAW_Z], 0).astype(jnp.uint8),
        "arrived": jnp.where(playing, (s.pawns[:, : cfg.n_pawns] < 0).sum(axis=1), 0).astype(jnp.uint8),
        "blockades_held": jnp.where(playing, (s.holder[None, :] == seats[:, None]).sum(axis=1), 0).astype(
            jnp.uint8
        ),
        **{f"mask_{h}": v for h, v in heads.items()},
        "action_mask": mask,
    }


def to_records(obs: dict[str, np.ndarray]) -> np.ndarray:
    """A batch of JAX observations as ``OBS_DTYPE`` records (for comparison and the numpy API)."""
    obs = {k: np.asarray(v) for k, v in obs.items()}
    out = np.zeros(len(obs["phase"]), OBS_DTYPE)
    shared, players = out["shared"], out["player_data"]
    for name in ("map", "phase", "current_resources", "shop", "market", "blockades", "blockade_map"):
        shared[name] = obs[name]
    for z, name in enumerate(("draw", "hand", "active", "played", "discard")):
        players["obs"][name] = obs["zones"][:, :, z]
    for name in ("hand_size", "draw_size", "arrived"):
        players["obs"][name] = obs[name]
    players["obs"]["blockades"] = obs["blockades_held"]
    for h in HEADS:
        players["action_mask"][h] = obs[f"mask_{h}"]
    out["action_mask"] = obs["action_mask"]
    return out


# ------------------------------------------------------------------------ init and step ---
def _new_game(env: jax.Array, episode: jax.Array, b: Boards, cfg: Config, size: int) -> State:
    """Env ``env``'s ``episode``-th game of the pool schedule (see :mod:`.boards`), observed."""
    return _observe_state(_fresh_game(env, episode, b, cfg, size), b, cfg)


def _fresh_game(env: jax.Array, episode: jax.Array, b: Boards, cfg: Config, size: int) -> State:
    """:func:`_new_game` with its legal mask but without its observation (an empty dict)."""
    u = env.astype(jnp.int64) + episode.astype(jnp.int64) * STRIDE
    j = (u % size).astype(i32)
    seed = b.play_seed[j]
    seed = jnp.where(u < size, seed, _mix64(seed ^ u.astype(jnp.uint64)))
    n = cfg.n_players
    seats = jnp.arange(4)
    starts = b.starts[j].astype(i32)
    pawn_idx = seats[:, None] * cfg.n_pawns + jnp.arange(2)[None, :]
    pawns = jnp.where((seats[:, None] < n) & (jnp.arange(2)[None, :] < cfg.n_pawns), starts[pawn_idx % 8], -1)
    starter = jnp.where(seats[:, None] < n, jnp.asarray(_STARTER, i32), 0)
    zones = jnp.zeros((4, 5, C.N_CARDS), Z8).at[:, DRAW_Z].set(starter.astype(Z8))
    s = State(
        current_player=i32(0),
        observation={},
        legal_action_mask=jnp.zeros(N_ACTIONS, bool),
        rewards=jnp.zeros(4, jnp.float32),
        terminated=jnp.bool_(False),
        truncated=jnp.bool_(False),
        step_count=i32(0),
        env=env.astype(i32),
        episode=episode.astype(i32),
        board=j,
        phase=i32(MOVEMENT),
        pending=i32(0),
        money2=i32(0),
        res=jnp.zeros(3, i32),
        zones=zones,
        removed=jnp.zeros(C.N_CARDS, i32),
        shop=jnp.full(C.N_SHOP, C.COPIES, i32),
        market=jnp.asarray(_START_MARKET, bool),
        pawns=pawns.astype(i32),
        holder=jnp.full(6, -1, i32),
        turn=i32(0),
        turns_taken=jnp.zeros(4, i32),
        ending=jnp.bool_(False),
        stats=jnp.zeros((4, _N_STATS), i32),
        rng=jnp.stack([_mix64(seed), jnp.uint64(0)]),
    )

    def shuffle_draw(i: int, rng: jax.Array) -> jax.Array:  # the scalar cave-token shuffle
        return _randbelow(rng, 36 - i, jnp.bool_(True))[0]

    s = _set(s, rng=jax.lax.fori_loop(0, 35, shuffle_draw, s.rng))
    for p in range(n):
        s = _draw(s, jnp.int32(p), jnp.int32(C.HAND_SIZE))
    return _set(s, legal_action_mask=legal_mask(s, b, cfg, jnp.bool_(False)))


def _observe_state(s: State, b: Boards, cfg: Config) -> State:
    return _set(s, observation=observe(s, b, cfg, s.legal_action_mask))


def init(envs: jax.Array, b: Boards, cfg: Config, size: int) -> State:
    """First games of the envs numbered ``envs`` (vmapped)."""
    return jax.vmap(lambda e: _new_game(e, i32(0), b, cfg, size))(envs)


def step(s: State, action: jax.Array, b: Boards, cfg: Config) -> State:
    """One env's transition; on a finished game the state keeps its rewards and flags (the
    batch step resets it). ``rewards`` are cleared at every step."""
    return _observe_state(_advance(s, action, b, cfg), b, cfg)


def _advance(s: State, action: jax.Array, b: Boards, cfg: Config) -> State:
    """:func:`step` up to the legal mask; the observation is left as it was (the batch step
    observes once, after its selects and resets, rather than in every candidate state)."""
    s = _set(s, rewards=jnp.zeros(4, jnp.float32))
    s, done, truncated = _apply(s, action, b, cfg)
    s = _set(s, step_count=s.step_count + 1, terminated=done & ~truncated, truncated=truncated)
    return _set(s, legal_action_mask=legal_mask(s, b, cfg, done))


_KEPT_AT_RESET = ("observation", "rewards", "terminated", "truncated")
"""Fields a reset leaves as they were: the finished game's outcome, and the observation (the batch
step observes afterwards)."""


def _auto_reset(s: State, b: Boards, cfg: Config, size: int) -> State:
    """Finished envs start their next game. Fresh games are built for a few envs at a time
    (gathered by index, scattered back) until every finished env has one: building them for the
    whole batch whenever any env finished cost as much as the step itself at large batches."""
    n = s.env.shape[0]
    chunk = max(1, n // 256)  # static; a game lasts thousands of steps, so one round is the rule

    def one_round(carry: tuple[State, jax.Array]) -> tuple[State, jax.Array]:
        t, left = carry
        idx = jnp.nonzero(left, size=chunk, fill_value=n)[0]  # up to ``chunk`` envs; n: no env
        at = jnp.minimum(idx, n - 1)
        fresh = jax.vmap(lambda e, k: _fresh_game(e, k, b, cfg, size))(t.env[at], t.episode[at] + 1)
        t = t._replace(
            **{
                f: getattr(t, f).at[idx].set(getattr(fresh, f), mode="drop")
                for f in State._fields
                if f not in _KEPT_AT_RESET
            }
        )
        return t, left.at[idx].set(False, mode="drop")

    done = s.terminated | s.truncated
    return jax.lax.while_loop(lambda c: c[1].any(), one_round, (s, done))[0]


@functools.partial(jax.jit, static_argnames=("cfg", "size"))
def _batch_step(s: State, actions: jax.Array, b: Boards, cfg: Config, size: int) -> tuple[State, jax.Array]:
    inside = (actions >= 0) & (actions < N_ACTIONS)
    valid = (
        inside
        & jnp.take_along_axis(s.legal_action_mask, jnp.clip(actions, 0, N_ACTIONS - 1)[:, None], 1)[:, 0]
    )
    stepped = jax.vmap(lambda x, a: _advance(x, a, b, cfg))(s, jnp.clip(actions, 0, N_ACTIONS - 1))
    n = actions.shape[0]
    idle = _set(
        s, rewards=jnp.zeros((n, 4), jnp.float32), terminated=jnp.zeros(n, bool), truncated=jnp.zeros(n, bool)
    )
    s = _select(valid, stepped, idle)  # both carry the old observation: nothing to select there
    s = _auto_reset(s, b, cfg, size)
    return jax.vmap(lambda x: _observe_state(x, b, cfg))(s), ~valid


def _select(where: jax.Array, x: State, y: State) -> State:
    """Per env: ``x`` where ``where`` else ``y``."""

    def pick(u: jax.Array, v: jax.Array) -> jax.Array:
        return jnp.where(where.reshape(where.shape + (1,) * (u.ndim - 1)), u, v)

    return jax.tree.map(pick, x, y)


def batch_step(s: State, actions: Any, b: Boards, cfg: Config, size: int) -> tuple[State, jax.Array]:
    """``jit(vmap(step))`` with auto-reset: finished envs start their next game of the pool
    schedule; their ``rewards``, ``terminated`` and ``truncated`` still describe the finished one.
    An illegal action leaves its env as it was (rewards and flags cleared); returns (state, invalid)."""
    with jax.enable_x64(True):
        return _batch_step(s, jnp.asarray(actions, i32), b, cfg, size)


@functools.partial(jax.jit, static_argnames=("cfg", "size"))
def _batch_init(envs: jax.Array, b: Boards, cfg: Config, size: int) -> State:
    return init(envs, b, cfg, size)


def batch_init(n: int, b: Boards, cfg: Config, size: int) -> State:
    with jax.enable_x64(True):
        return _batch_init(jnp.arange(n, dtype=i32), b, cfg, size)


@functools.partial(jax.jit, static_argnames=("cfg", "size", "steps"))
def _rollout(
    s: State, key: jax.Array, b: Boards, cfg: Config, size: int, steps: int
) -> tuple[State, jax.Array]:
    def body(s: State, key: jax.Array) -> tuple[State, jax.Array]:
        logits = jnp.where(s.legal_action_mask, 0.0, -jnp.inf)
        actions = jax.random.categorical(key, logits, axis=-1).astype(i32)
        s, _ = _batch_step(s, actions, b, cfg, size)
        return s, (s.terminated | s.truncated).sum()

    s, finished = jax.lax.scan(body, s, jax.random.split(key, steps))
    return s, finished.sum()


def rollout(
    s: State, key: jax.Array, b: Boards, cfg: Config, size: int, steps: int
) -> tuple[State, jax.Array]:
    """``steps`` batch steps with uniform random legal actions, fused with ``lax.scan``; returns
    the state and the number of games finished."""
    with jax.enable_x64(True):
        return _rollout(s, key, b, cfg, size, steps)


class CityOfGold:
    """pgx-style single-env API over a board pool: ``init(key)`` and ``step(state, action, key)``,
    pure functions to ``jax.jit(jax.vmap(...))``. Trace and call them inside
    ``jax.enable_x64(True)`` (the deck draws are 64-bit), e.g.::

        env = CityOfGold(BoardPool(0, 256))
        with jax.enable_x64(True):
            state = jax.jit(jax.vmap(env.init))(jax.random.split(key, 1024))
            state = jax.jit(jax.vmap(env.step))(state, actions, keys)
    """

    def __init__(self, pool: BoardPool, n_players: int = 4, max_turns: int = 1000, omniscient: bool = False):
        self.pool = pool
        self.boards = Boards.from_pool(pool)
        self.cfg = Config(n_players, max_turns, omniscient)

    def init(self, key: jax.Array) -> State:
        """The game the key picks: schedule number ``u`` drawn from the key, the same game as the
        scalar ``pool.new_game(u, 0, ...)`` (board ``u % pool size``)."""
        u = jax.random.randint(key, (), 0, 2**31 - 1, dtype=i32)
        return _new_game(u, i32(0), self.boards, self.cfg, self.pool.size)

    def step(self, state: State, action: jax.Array, key: jax.Array | None = None) -> State:
        """One transition with auto-reset to the env's next game of the schedule (the finished
        game's rewards and flags stay readable). ``key`` is unused: draws come from the state."""
        s = step(state, action, self.boards, self.cfg)
        fresh = _new_game(s.env, s.episode + 1, self.boards, self.cfg, self.pool.size)
        keep = _set(fresh, rewards=s.rewards, terminated=s.terminated, truncated=s.truncated)
        done = s.terminated | s.truncated
        return jax.tree.map(lambda x, y: jnp.where(done, x, y), keep, s)
