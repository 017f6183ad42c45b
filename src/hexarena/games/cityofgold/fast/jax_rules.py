"""The rules of the JAX engine: one env's state and transition, without loops or scatters.

The rules are the scalar engine's (:mod:`..engine`), written branch-free; there are no caves.
Two habits keep the compiled batch step small on an accelerator, where it is run under ``vmap``:

- every update of a state array is an elementwise select against a one-hot index
  (:func:`add_at`, :func:`set_at`), never ``x.at[i].add``: under ``vmap`` each of those is its
  own scatter kernel over the whole batch, while selects fuse with their neighbours;
- draws are unrolled (a hand is refilled with at most four cards, a candidate of the rejection
  sampler is rejected almost never), so the step has no while loop, whose every iteration waits
  on a GPU for the host to read its condition.

Deck shuffles reproduce the scalar engine's SplitMix64 draws (see :func:`randbelow`). That needs
64-bit integers: trace these functions inside ``jax.enable_x64(True)``.
"""

from __future__ import annotations

import functools
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from hexarena.games.cityofgold import cards as C
from hexarena.games.cityofgold.actions import DISCARD, MOVE, PASS, PLAY, REMOVE, SHOP, SPECIAL
from hexarena.games.cityofgold.board import NEIGHBORS
from hexarena.games.cityofgold.fast.boards import BoardPool
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

i32 = jnp.int32
Z8 = jnp.int8  # card counts of the zones (a deck holds at most 62 cards): a quarter of the traffic
_CARDS = card_table()
_RES = _CARDS[:, 0:3]
_MONEY2, _COST, _SU, _SPEC, _DRAWN, _REMOVES, _HASRES, _STARTER = (_CARDS[:, c] for c in range(3, 11))
_SHOP_CARDS = np.array(C.SHOP_CARDS)
_NBR = np.array(NEIGHBORS, np.int32)
_GOLDEN = 0x9E3779B97F4A7C15
_UPPER = np.triu(np.ones((C.N_CARDS, C.N_CARDS), bool))  # [j, k]: card j counts in card k's running total


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
    zones: jax.Array  # int8 [seat, zone, card]
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


# ------------------------------------------------------------------------ one-hot updates ---
def _hit(shape: tuple[int, ...], index: tuple[Any, ...]) -> jax.Array:
    """True where the leading axes equal ``index`` (an index out of range hits nothing)."""
    hit = jnp.bool_(True)
    for axis, i in enumerate(index):
        hit = hit & (jax.lax.broadcasted_iota(i32, shape, axis) == i)
    return hit


def add_at(x: jax.Array, index: tuple[Any, ...], amount: Any) -> jax.Array:
    """``x.at[index].add(amount)`` as a select (``amount`` broadcasts over the trailing axes)."""
    return x + jnp.where(_hit(x.shape, index), amount, 0).astype(x.dtype)


def set_at(x: jax.Array, index: tuple[Any, ...], value: Any) -> jax.Array:
    """``x.at[index].set(value)`` as a select."""
    return jnp.where(_hit(x.shape, index), jnp.asarray(value).astype(x.dtype), x)


def _onehot(k: jax.Array, n: int = C.N_CARDS) -> jax.Array:
    return jnp.arange(n) == k


# ------------------------------------------------------------------------------- random ---
def mix64(z: jax.Array) -> jax.Array:
    z = (z ^ (z >> jnp.uint64(30))) * jnp.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> jnp.uint64(27))) * jnp.uint64(0x94D049BB133111EB)
    return z ^ (z >> jnp.uint64(31))


def randbelow(rng: jax.Array, n: jax.Array, active: jax.Array) -> tuple[jax.Array, jax.Array]:
    """``Rng.randbelow(n)``; the counter advances only where ``active``.

    The scalar engine rejects a 64-bit output in the top ``2**64 % n`` values and draws again.
    Here the rejection loop is unrolled to two candidates: with ``n`` at most 62, a candidate is
    rejected with probability below ``2**-58``, so the two engines differ only after two
    rejections in a row, with probability below ``2**-116`` per draw."""
    nn = jnp.maximum(n, 1).astype(jnp.uint64)
    rest = (jnp.uint64(0) - nn) % nn
    limit = jnp.uint64(0) - rest
    c1 = rng[1] + jnp.uint64(1)
    x1 = mix64(rng[0] + c1 * jnp.uint64(_GOLDEN))
    x2 = mix64(rng[0] + (c1 + jnp.uint64(1)) * jnp.uint64(_GOLDEN))
    first = (rest == 0) | (x1 < limit)
    counter = jnp.where(first, c1, c1 + jnp.uint64(1))
    new = jnp.where(active, jnp.stack([rng[0], counter]), rng)
    return new, (jnp.where(first, x1, x2) % nn).astype(i32)


# ---------------------------------------------------------------------------- the rules ---
def draw(zones: jax.Array, rng: jax.Array, p: jax.Array, n: jax.Array) -> tuple[jax.Array, jax.Array]:
    """Seat ``p`` draws ``n`` (at most 4) cards, shuffling its discard pile into the draw pile
    whenever that is empty; returns (zones, rng)."""
    pile, hand, discard = zones[p, DRAW_Z], zones[p, HAND_Z], zones[p, DISCARD_Z]
    for i in range(C.HAND_SIZE):
        want = i < n
        refill = want & (pile.sum() == 0)
        pile = jnp.where(refill, pile + discard, pile)
        discard = jnp.where(refill, Z8(0), discard)
        total = pile.sum()
        active = want & (total > 0)
        rng, pick = randbelow(rng, total, active)
        # The card drawn is the first whose running total passes ``pick``: the number of running
        # totals at or below it (a cumsum and an argmax lower to loops; this is elementwise).
        running = jnp.where(_UPPER, pile.astype(i32)[:, None], 0).sum(axis=0)
        take = (_onehot((running <= pick).sum()) & active).astype(Z8)
        pile, hand = pile - take, hand + take
    rows = {DRAW_Z: pile, HAND_Z: hand, DISCARD_Z: discard}
    mine = jnp.stack([rows[z] if z in rows else zones[p, z] for z in range(5)])
    return set_at(zones, (p,), mine), rng


def _retire(s: State, used: jax.Array) -> State:
    """The active card leaves play: to the played pile, or out of the game if single-use and
    ``used``."""
    p = s.current_player
    nz = s.zones[p, ACTIVE_Z] > 0
    gone = nz & used & jnp.asarray(_SU, bool)
    z = add_at(add_at(s.zones, (p, ACTIVE_Z), -nz.astype(Z8)), (p, PLAYED_Z), (nz & ~gone).astype(Z8))
    return s._replace(
        zones=z,
        removed=s.removed + gone,
        stats=add_at(s.stats, (p, ST_REMOVED), gone.sum(dtype=i32)),
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


def _next_turn(s: State, cfg: Config) -> tuple[State, jax.Array, jax.Array]:
    """The end of a turn after its clean-up and draw (see :func:`apply`): the next seat's turn,
    or the end of the game; returns (state, done, truncated)."""
    p = s.current_player
    nxt = (p + 1) % cfg.n_players
    s = s._replace(
        res=jnp.zeros(3, i32),
        money2=i32(0),
        pending=i32(0),
        turn=s.turn + 1,
        turns_taken=add_at(s.turns_taken, (p,), 1),
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
    s = s._replace(
        rewards=jnp.where(won_round, rewards, s.rewards),
        phase=jnp.where(done, DONE, s.phase).astype(i32),
    )
    return s, done, truncated


class _Then(NamedTuple):
    """What an action branch leaves to the rest of :func:`apply`."""

    ends: jax.Array  # the turn ends
    draws: jax.Array  # cards a special draws
    removes: jax.Array  # cards it then lets remove from the hand (if the hand is not empty)


def apply(s: State, a: jax.Array, b: Boards, cfg: Config) -> tuple[State, jax.Array, jax.Array]:
    """:func:`~..engine.step` (no validation); returns (state, done, truncated).

    Under ``vmap`` every branch of the action switch runs for every env, so the costly parts
    shared by several actions run once after it: each branch returns its state and its
    :class:`_Then` (whether the turn ends, the cards a special draws and then removes). The one
    draw serves a drawing special or the end of the turn (never both in one step)."""
    p = s.current_player
    s = s._replace(stats=add_at(s.stats, (p, ST_STEPS), 1))
    false = jnp.bool_(False)
    nothing = _Then(false, i32(0), i32(0))

    def play(s: State) -> tuple[State, _Then]:
        k = a - PLAY
        s = s._replace(zones=add_at(s.zones, (p, HAND_Z, k), -1), stats=add_at(s.stats, (p, ST_USES), 1))
        moving = s.phase == MOVEMENT
        r = _retire(s, false)
        r = r._replace(zones=add_at(r.zones, (p, ACTIVE_Z, k), 1), res=jnp.asarray(_RES, i32)[k])
        su = jnp.asarray(_SU, bool)[k]
        m = s._replace(
            money2=s.money2 + jnp.asarray(_MONEY2, i32)[k],
            removed=add_at(s.removed, (k,), su),
            stats=add_at(s.stats, (p, ST_REMOVED), su),
            zones=add_at(s.zones, (p, PLAYED_Z, k), ~su),
        )
        return jax.tree.map(functools.partial(jnp.where, moving), r, m), nothing

    def special(s: State) -> tuple[State, _Then]:
        k = a - SPECIAL
        s = _retire(s, false)
        su = jnp.asarray(_SU, bool)[k]
        s = s._replace(
            res=jnp.zeros(3, i32),
            zones=add_at(add_at(s.zones, (p, HAND_Z, k), -1), (p, PLAYED_Z, k), ~su),
            removed=add_at(s.removed, (k,), su),
            stats=add_at(add_at(s.stats, (p, ST_USES), 1), (p, ST_REMOVED), su),
        )
        kind = jnp.asarray(_SPEC)[k]
        drawing = kind == C.SPECIAL_DRAW
        phase = jnp.where(kind == C.SPECIAL_NATIVE, NATIVE, s.phase)
        phase = jnp.where(kind == C.SPECIAL_TRANSMIT, TRANSMIT, phase)
        then = _Then(
            false,
            jnp.where(drawing, jnp.asarray(_DRAWN, i32)[k], 0),
            jnp.where(drawing, jnp.asarray(_REMOVES, i32)[k], 0),
        )
        return s._replace(phase=phase.astype(i32)), then

    def move(s: State) -> tuple[State, _Then]:
        m = a - MOVE
        pawn, d = m // 6, m % 6
        free = s.phase == NATIVE
        n, g, kind, amount = _target(s, b, s.pawns[p, pawn], d)
        s = s._replace(phase=i32(MOVEMENT))
        symbol = ~free & (kind <= 3)
        cards = ~free & (kind > 3)
        used = s.zones[p, ACTIVE_Z].sum() > 0
        left = s.res[jnp.clip(kind - 1, 0, 2)] - amount
        paid = _retire(s, used & symbol)
        paid = paid._replace(
            res=jnp.where(symbol & (jnp.arange(3) == kind - 1), left, 0).astype(i32),
            stats=add_at(paid.stats, (p, ST_MACHETE + jnp.clip(kind - 1, 0, 2)), symbol),
            phase=jnp.where(cards, jnp.where(kind == 4, PAY_DISCARD, PAY_REMOVE), MOVEMENT).astype(i32),
            pending=jnp.where(cards, amount, s.pending),
        )
        s = jax.tree.map(functools.partial(jnp.where, free), s, paid)
        opened = g >= 0
        arrive = ~opened & b.finish[s.board, n].astype(bool)
        cell = jnp.where(opened, s.pawns[p, pawn], jnp.where(arrive, -1, n))
        s = s._replace(
            holder=set_at(s.holder, (g,), p),  # g is -1 (no blockade): nothing changes
            stats=add_at(add_at(s.stats, (p, ST_BLOCKADES), opened), (p, ST_HEXES), ~opened),
            pawns=set_at(s.pawns, (p, pawn), cell),
        )
        home = arrive & (s.pawns[p, : cfg.n_pawns] < 0).all()
        return s._replace(ending=s.ending | home), nothing._replace(ends=home)

    def shop(s: State) -> tuple[State, _Then]:
        i = a - SHOP
        left = s.shop[i] - 1
        s = s._replace(
            shop=set_at(s.shop, (i,), left),
            zones=add_at(s.zones, (p, DISCARD_Z, jnp.asarray(_SHOP_CARDS)[i]), 1),
            stats=add_at(s.stats, (p, ST_ADDED), 1),
        )
        transmit = s.phase == TRANSMIT
        # A transmitter leaves an emptied stack's market slot; a purchase fills it while stock lasts.
        market = set_at(s.market, (i,), jnp.where(transmit, s.market[i], True) & (left > 0))
        phase = jnp.where(transmit, MOVEMENT, s.phase).astype(i32)
        return s._replace(market=market, phase=phase), nothing._replace(ends=~transmit)

    def _paid_one(s: State) -> State:
        pending = s.pending - 1
        over = (pending <= 0) | (s.zones[p, HAND_Z].sum() == 0)
        phase = jnp.where(over, MOVEMENT, s.phase).astype(i32)
        return s._replace(pending=jnp.where(over, 0, pending), phase=phase)

    def remove(s: State) -> tuple[State, _Then]:
        k = a - REMOVE
        s = s._replace(
            zones=add_at(s.zones, (p, HAND_Z, k), -1),
            removed=add_at(s.removed, (k,), 1),
            stats=add_at(s.stats, (p, ST_REMOVED), 1),
        )
        return _paid_one(s), nothing

    def discard(s: State) -> tuple[State, _Then]:
        k = a - DISCARD
        s = s._replace(zones=add_at(add_at(s.zones, (p, HAND_Z, k), -1), (p, DISCARD_Z, k), 1))
        paid = _paid_one(s)
        return jax.tree.map(functools.partial(jnp.where, s.phase == PAY_DISCARD), paid, s), nothing

    def pass_(s: State) -> tuple[State, _Then]:
        to_buy = _retire(s, false)
        to_buy = to_buy._replace(res=jnp.zeros(3, i32), money2=i32(0), phase=i32(BUYING))
        leave = s._replace(pending=i32(0), phase=i32(MOVEMENT))
        mv, buy = s.phase == MOVEMENT, s.phase == BUYING
        out = jax.tree.map(lambda x, y, z: jnp.where(mv, x, jnp.where(buy, y, z)), to_buy, s, leave)
        return out, nothing._replace(ends=buy)

    bounds = jnp.array([SPECIAL, MOVE, SHOP, REMOVE, DISCARD, PASS])
    branch = (a >= bounds).sum()  # not jnp.searchsorted: that is a while loop
    s, then = jax.lax.switch(branch, [play, special, move, shop, remove, discard, pass_], s)
    ends = then.ends
    z = s.zones  # at the end of the turn the cards in play go to the discard pile, the hand refills
    cleaned = add_at(z, (p, DISCARD_Z), z[p, ACTIVE_Z] + z[p, PLAYED_Z])
    cleaned = set_at(set_at(cleaned, (p, ACTIVE_Z), 0), (p, PLAYED_Z), 0)
    z = jnp.where(ends, cleaned, z)
    n = jnp.where(ends, jnp.maximum(0, C.HAND_SIZE - z[p, HAND_Z].sum()), then.draws)
    zones, rng = draw(z, s.rng, p, n)
    s = s._replace(zones=zones, rng=rng)
    to_remove = (then.removes > 0) & (s.zones[p, HAND_Z].sum() > 0)
    s = s._replace(
        phase=jnp.where(to_remove, REMOVING, s.phase).astype(i32),
        pending=jnp.where(to_remove, then.removes, s.pending),
    )
    e, done, trunc = _next_turn(s, cfg)
    return jax.tree.map(functools.partial(jnp.where, ends), e, s), ends & done, ends & trunc
