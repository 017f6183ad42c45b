"""The JAX engine: pure ``init`` / ``step`` over a pytree of fixed-size arrays (pgx style).

:class:`CityOfGold` gives the pgx-style pair ``init(key)`` / ``step(state, action, key)``.
``State`` carries the pgx fields (``current_player``, ``observation``, ``legal_action_mask``,
``rewards``, ``terminated``, ``truncated``, ``step_count``) and the game. ``step`` applies one
action; a batch is stepped by :func:`batch_step` (``jit(vmap(step))`` plus auto-reset of the
finished envs to their next board of the pool schedule, only when some env finished) and rolled
out by :func:`rollout` (uniform random legal actions, fused with ``lax.scan``).

The state and the rules are in :mod:`.jax_rules`. Deck shuffles reproduce the scalar engine's
SplitMix64 draws, which needs 64-bit integers, and JAX enables those only inside
``jax.enable_x64(True)``: every public function here enters that context itself, so the global
setting (shared with Terra Nova) is never touched.
The observation is the scalar one as a dict of arrays; :func:`to_records` turns a batch of them
into ``OBS_DTYPE`` records (terminal observations are not kept: read ``rewards`` and the flags).
"""

from __future__ import annotations

import functools
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from hexarena.games.cityofgold import cards as C
from hexarena.games.cityofgold.actions import DISCARD, MOVE, MOVE_HEAD, N_ACTIONS, PLAY, REMOVE, SHOP, SPECIAL
from hexarena.games.cityofgold.board import GRID, N_CELLS
from hexarena.games.cityofgold.engine import STAT_NAMES
from hexarena.games.cityofgold.fast.boards import STRIDE, BoardPool
from hexarena.games.cityofgold.fast.codes import (
    ACTIVE_Z,
    BUYING,
    DRAW_Z,
    HAND_Z,
    MOVEMENT,
    PAY_DISCARD,
    PAY_REMOVE,
    STARTER,
    card_table,
)
from hexarena.games.cityofgold.fast.jax_rules import (
    Z8,
    Boards,
    Config,
    State,
    apply,
    draw,
    i32,
    legal_mask,
    mix64,
    randbelow,
)
from hexarena.games.cityofgold.observe import HEADS, OBS_DTYPE, SHARED_DTYPE

__all__ = [
    "Boards",
    "CityOfGold",
    "Config",
    "State",
    "batch_init",
    "batch_step",
    "random_legal_actions",
    "rollout",
    "to_records",
]

_HEAD_SIZES = (C.N_CARDS, C.N_CARDS, C.N_CARDS, 12, C.N_SHOP)
_N_STATS = len(STAT_NAMES)
_START_MARKET = np.array(C.START_MARKET)


# -------------------------------------------------------------------------- observation ---
def observe(s: State, b: Boards, cfg: Config, mask: jax.Array) -> dict[str, jax.Array]:
    """The scalar observation (:mod:`..observe`) of the seat to act, as a dict of arrays."""
    board_map = _mark_pawns(b.static_map[s.board].reshape(N_CELLS, 7), s, cfg)
    return _observation(s, b, cfg, mask, board_map, b.guard[s.board])


def _pawn_marks(s: State, cfg: Config) -> tuple[jax.Array, jax.Array]:
    """The map cells of the pawns (``N_CELLS`` for none) and their marks: the owner's seat
    relative to the seat to act, plus one, plus 4 for pawn 1."""
    rel = (jnp.arange(4) - s.current_player) % cfg.n_players + 1
    marks = (rel[:, None] + 4 * jnp.arange(2)[None, :]).astype(jnp.uint8)
    return jnp.where(s.pawns >= 0, s.pawns, N_CELLS).reshape(-1), marks.reshape(-1)


def _mark_pawns(board_map: jax.Array, s: State, cfg: Config) -> jax.Array:
    """Channel 0 of a ``[N_CELLS, 7]`` map at the pawns' cells set to their marks."""
    cells, values = _pawn_marks(s, cfg)
    return board_map.at[cells, 0].set(values, mode="drop")


def _clear_pawns(board_map: jax.Array, s: State, cfg: Config) -> jax.Array:
    return board_map.at[_pawn_marks(s, cfg)[0], 0].set(0, mode="drop")


def _observation(
    s: State, b: Boards, cfg: Config, mask: jax.Array, board_map: jax.Array, guard: jax.Array
) -> dict[str, jax.Array]:
    """:func:`observe` around a given map and blockade map (the batch step carries them)."""
    me = s.current_player
    n = cfg.n_players
    seats = jnp.arange(4)
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
        if HEADS[h] == "move":  # 0.0.3's direction order
            part = mask[jnp.array(MOVE_HEAD)]
        else:
            part = jax.lax.dynamic_slice(mask, (jnp.asarray(start, i32),), (size,))
        left_out = ~((HEADS[h] == "remove") & ((s.phase == PAY_DISCARD) | (s.phase == PAY_REMOVE)))
        head = jnp.concatenate([left_out[None], part])  # an owed payment cannot be left out
        heads[HEADS[h]] = head[None, :] & mine
    counts = s.zones.sum(axis=2)
    return {
        "map": board_map.reshape(GRID, GRID, 7),
        "phase": s.phase.astype(jnp.uint8),
        "current_resources": res,
        "shop": s.shop.astype(jnp.uint8),
        "market": s.market,
        "blockades": blockades,
        "blockade_map": guard.reshape(GRID, GRID, 6),
        "pending": s.pending.astype(jnp.uint8),
        "turn": s.turn.astype(i32),
        "max_turns": jnp.asarray(cfg.max_turns, i32),
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
    for name in SHARED_DTYPE.names:
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
    seed = jnp.where(u < size, seed, mix64(seed ^ u.astype(jnp.uint64)))
    n = cfg.n_players
    seats = jnp.arange(4)
    starts = b.starts[j].astype(i32)
    pawn_idx = seats[:, None] * cfg.n_pawns + jnp.arange(2)[None, :]
    pawns = jnp.where((seats[:, None] < n) & (jnp.arange(2)[None, :] < cfg.n_pawns), starts[pawn_idx % 8], -1)
    starter = jnp.where(seats[:, None] < n, jnp.asarray(card_table()[:, STARTER], i32), 0)
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
        rng=jnp.stack([mix64(seed), jnp.uint64(0)]),
    )
    zones, rng = s.zones, s.rng
    for i in range(35):  # the scalar engine's cave-token shuffle (unrolled: see .jax_rules)
        rng = randbelow(rng, jnp.int32(36 - i), jnp.bool_(True))[0]
    for p in range(n):
        zones, rng = draw(zones, rng, jnp.int32(p), jnp.int32(C.HAND_SIZE))
    s = s._replace(zones=zones, rng=rng)
    return s._replace(legal_action_mask=legal_mask(s, b, cfg, jnp.bool_(False)))


def _observe_state(s: State, b: Boards, cfg: Config) -> State:
    return s._replace(observation=observe(s, b, cfg, s.legal_action_mask))


def init(envs: jax.Array, b: Boards, cfg: Config, size: int) -> State:
    """First games of the envs numbered ``envs`` (vmapped)."""
    return jax.vmap(lambda e: _new_game(e, i32(0), b, cfg, size))(envs)


def step(s: State, action: jax.Array, b: Boards, cfg: Config) -> State:
    """One env's transition; on a finished game the state keeps its rewards and flags (the
    batch step resets it). ``rewards`` are cleared at every step."""
    return _observe_layers(_advance(s._replace(observation={}), action, b, cfg), b, cfg, _lift_layers(s, cfg))


def _lift_layers(s: State, cfg: Config) -> dict[str, jax.Array]:
    """The map layers of ``s``'s observation, carried to the next one rather than rebuilt from
    the board (18 KiB per env): the map ``[N_CELLS, 7]`` without its pawn marks, and the
    blockade map ``[N_CELLS * 6]``."""
    board_map = _clear_pawns(s.observation["map"].reshape(N_CELLS, 7), s, cfg)
    return {"map": board_map, "blockade_map": s.observation["blockade_map"].reshape(N_CELLS * 6)}


def _observe_layers(s: State, b: Boards, cfg: Config, layers: dict[str, jax.Array]) -> State:
    """``s`` observed around carried map layers (see :func:`_lift_layers`)."""
    board_map = _mark_pawns(layers["map"], s, cfg)
    obs = _observation(s, b, cfg, s.legal_action_mask, board_map, layers["blockade_map"])
    return s._replace(observation=obs)


def _advance(s: State, action: jax.Array, b: Boards, cfg: Config) -> State:
    """:func:`step` up to the legal mask; the observation is left as it was (the batch step
    observes once, after its selects and resets, rather than in every candidate state)."""
    s = s._replace(rewards=jnp.zeros(4, jnp.float32))
    s, done, truncated = apply(s, action, b, cfg)
    s = s._replace(step_count=s.step_count + 1, terminated=done & ~truncated, truncated=truncated)
    return s._replace(legal_action_mask=legal_mask(s, b, cfg, done))


_KEPT_AT_RESET = ("observation", "rewards", "terminated", "truncated")
"""Fields a reset leaves as they were: the finished game's outcome, and the observation (the batch
step observes afterwards) but for its static map layers."""


def _auto_reset(s: State, b: Boards, cfg: Config, size: int) -> State:
    """Finished envs start their next game. Fresh games are built for a few envs at a time
    (gathered by index, scattered back) until every finished env has one: building them for the
    whole batch whenever any env finished cost as much as the step itself at large batches.
    ``s.observation`` holds at least the ``map`` and ``blockade_map`` of the batch; the envs that
    start a game get their new board's static layers there."""
    n = s.env.shape[0]
    chunk = max(1, n // 256)  # static; a game lasts thousands of steps, so one round is the rule

    def one_round(carry: tuple[State, jax.Array]) -> tuple[State, jax.Array]:
        t, left = carry
        idx = jnp.nonzero(left, size=chunk, fill_value=n)[0]  # up to ``chunk`` envs; n: no env
        at = jnp.minimum(idx, n - 1)
        fresh = jax.vmap(lambda e, k: _fresh_game(e, k, b, cfg, size))(t.env[at], t.episode[at] + 1)
        t = t._replace(
            observation=_with_static_layers(t.observation, idx, fresh.board, b),
            **{
                f: getattr(t, f).at[idx].set(getattr(fresh, f), mode="drop")
                for f in State._fields
                if f not in _KEPT_AT_RESET
            },
        )
        return t, left.at[idx].set(False, mode="drop")

    done = s.terminated | s.truncated
    return jax.lax.while_loop(lambda c: c[1].any(), one_round, (s, done))[0]


def _with_static_layers(obs: dict[str, jax.Array], idx: jax.Array, board: jax.Array, b: Boards) -> dict:
    """``obs`` with the map and blockade map of the envs ``idx`` (``n``: none) set to the static
    layers of the boards ``board`` (channel 0, the pawns, left empty)."""
    out = dict(obs)
    for key, table in (("map", b.static_map), ("blockade_map", b.guard)):
        rows = obs[key].reshape(obs[key].shape[0], -1)
        out[key] = rows.at[idx].set(table[board], mode="drop").reshape(obs[key].shape)
    return out


def _step_batch(
    s: State, actions: jax.Array, b: Boards, cfg: Config, size: int, reset: bool = True
) -> tuple[State, jax.Array]:
    inside = (actions >= 0) & (actions < N_ACTIONS)
    valid = (
        inside
        & jnp.take_along_axis(s.legal_action_mask, jnp.clip(actions, 0, N_ACTIONS - 1)[:, None], 1)[:, 0]
    )
    n = actions.shape[0]
    layers = jax.vmap(lambda x: _lift_layers(x, cfg))(s)  # a reset env gets its new board's below
    s = s._replace(observation={})
    stepped = jax.vmap(lambda x, a: _advance(x, a, b, cfg))(s, jnp.clip(actions, 0, N_ACTIONS - 1))
    cleared = jnp.zeros(n, bool)
    idle = s._replace(rewards=jnp.zeros((n, 4), jnp.float32), terminated=cleared, truncated=cleared)
    s = _select(valid, stepped, idle)._replace(observation=layers)
    return _observe_batch(_auto_reset(s, b, cfg, size) if reset else s, b, cfg), ~valid


def _observe_batch(s: State, b: Boards, cfg: Config) -> State:
    """Every env observed around the map layers its ``observation`` carries."""
    return jax.vmap(lambda x: _observe_layers(x._replace(observation={}), b, cfg, x.observation))(s)


@functools.partial(jax.jit, static_argnames=("cfg", "size"), donate_argnames="s")
def _reset_batch(s: State, b: Boards, cfg: Config, size: int) -> State:
    layers = jax.vmap(lambda x: _lift_layers(x, cfg))(s)
    return _observe_batch(_auto_reset(s._replace(observation=layers), b, cfg, size), b, cfg)


def batch_reset_finished(s: State, b: Boards, cfg: Config, size: int) -> State:
    """The finished envs of a ``batch_step(..., auto_reset=False)`` start their next game, as
    ``batch_step`` would have done (their rewards and flags stay); ``s`` is donated."""
    with jax.enable_x64(True):
        return _reset_batch(s, b, cfg, size)


def _select(where: jax.Array, x: State, y: State) -> State:
    """Per env: ``x`` where ``where`` else ``y``."""

    def pick(u: jax.Array, v: jax.Array) -> jax.Array:
        return jnp.where(where.reshape(where.shape + (1,) * (u.ndim - 1)), u, v)

    return jax.tree.map(pick, x, y)


_batch_step = jax.jit(_step_batch, static_argnames=("cfg", "size", "reset"))
_batch_step_donating = jax.jit(_step_batch, static_argnames=("cfg", "size", "reset"), donate_argnames="s")


def batch_step(
    s: State, actions: Any, b: Boards, cfg: Config, size: int, donate: bool = False, auto_reset: bool = True
) -> tuple[State, jax.Array]:
    """``jit(vmap(step))`` with auto-reset: finished envs start their next game of the pool
    schedule; their ``rewards``, ``terminated`` and ``truncated`` still describe the finished one.
    An illegal action leaves its env as it was (rewards and flags cleared); returns (state, invalid).

    ``donate=True`` hands the state's buffers to the step, which updates them in place (the
    observation's 18 KiB of map layers among them); ``s`` is then unusable. Without it, XLA copies
    the state into the step's buffers first, which costs more than the step itself.

    ``auto_reset=False`` leaves finished envs in their terminal state, observed (what the numpy
    API copies to ``final_observations``); :func:`batch_reset_finished` then starts their next game."""
    with jax.enable_x64(True):
        run = _batch_step_donating if donate else _batch_step
        return run(s, jnp.asarray(actions, i32), b, cfg, size, auto_reset)


@functools.partial(jax.jit, static_argnames=("cfg", "size"))
def _batch_init(envs: jax.Array, b: Boards, cfg: Config, size: int) -> State:
    return init(envs, b, cfg, size)


def batch_init(n: int, b: Boards, cfg: Config, size: int) -> State:
    with jax.enable_x64(True):
        return _batch_init(jnp.arange(n, dtype=i32), b, cfg, size)


def _hash32(x: jax.Array) -> jax.Array:
    """A 32-bit integer finaliser (xor-shift-multiply rounds): every input bit flips about half
    the output bits, so hashes of nearby inputs look independent."""
    x = (x ^ (x >> 16)) * jnp.uint32(0x7FEB352D)
    x = (x ^ (x >> 15)) * jnp.uint32(0x846CA68B)
    return x ^ (x >> 16)


def random_legal_actions(key: jax.Array, mask: jax.Array) -> jax.Array:
    """One uniform random legal action per row of ``mask`` (bool ``[n, N_ACTIONS]``; a row with
    none gives 0): the legal action with the largest of ``N_ACTIONS`` random words. The key gives
    one word per row, hashed with each action's number for the rest; ``jax.random.categorical``
    would draw all 115 from Threefry, which costs more than the game's step."""
    seed = jax.random.bits(key, (mask.shape[0], 1), jnp.uint32)
    words = _hash32(seed + jnp.arange(N_ACTIONS, dtype=jnp.uint32) * jnp.uint32(0x9E3779B9))
    return jnp.argmax(jnp.where(mask, words | jnp.uint32(1), jnp.uint32(0)), axis=1).astype(i32)


@functools.partial(jax.jit, static_argnames=("cfg", "size", "steps"))
def _rollout(
    s: State, key: jax.Array, b: Boards, cfg: Config, size: int, steps: int
) -> tuple[State, jax.Array]:
    def body(s: State, key: jax.Array) -> tuple[State, jax.Array]:
        s, _ = _batch_step(s, random_legal_actions(key, s.legal_action_mask), b, cfg, size)
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

    def __init__(
        self,
        pool: BoardPool,
        n_players: int = 4,
        max_turns: int = 1000,
        omniscient: bool = False,
        auto_reset: bool = True,
    ):
        self.pool = pool
        self.boards = Boards.from_pool(pool)
        self.cfg = Config(n_players, max_turns, omniscient)
        self.auto_reset = auto_reset

    def init(self, key: jax.Array) -> State:
        """The game the key picks: schedule number ``u`` drawn from the key, the same game as the
        scalar ``pool.new_game(u, 0, ...)`` (board ``u % pool size``)."""
        u = jax.random.randint(key, (), 0, 2**31 - 1, dtype=i32)
        return _new_game(u, i32(0), self.boards, self.cfg, self.pool.size)

    def step(self, state: State, action: jax.Array, key: jax.Array | None = None) -> State:
        """One transition. With ``auto_reset`` a finished game is followed by the env's next game
        of the schedule (the finished game's rewards and flags stay readable); without it, the
        finished state stays (rewards zero), as pgx's ``step`` leaves it. ``key`` is unused: draws come from
        the state.

        Under ``vmap`` the auto-reset builds the next game for every env at every step (a
        ``where``, not a branch), several times the cost of the step; :func:`batch_step` and
        :func:`rollout` build next games only for the envs that finished."""
        s = step(state, action, self.boards, self.cfg)
        if not self.auto_reset:  # a finished game stays as it ended, its rewards paid once
            over = state.terminated | state.truncated
            return jax.tree.map(functools.partial(jnp.where, over), state._replace(rewards=0 * s.rewards), s)
        fresh = _new_game(s.env, s.episode + 1, self.boards, self.cfg, self.pool.size)
        keep = fresh._replace(rewards=s.rewards, terminated=s.terminated, truncated=s.truncated)
        done = s.terminated | s.truncated
        return jax.tree.map(lambda x, y: jnp.where(done, x, y), keep, s)
