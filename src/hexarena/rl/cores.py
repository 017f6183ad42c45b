"""What a single-agent env steps: a game position it may mutate, with masks and observations.

The generic :class:`StateCore` walks the immutable contract (:class:`~hexarena.core.contract.GameState`):
every move builds a new state, which is what a referee wants and what RL does not need. The fast
cores drive a game's mutable engine in place and build a contract state only when asked
(:meth:`snapshot`: for opponents that read a view, for rendering, for an outcome the engine
cannot tell by itself):

* :class:`CityOfGoldNumbaCore`: the numba CPU engine, one game (:mod:`hexarena.games.cityofgold.
  fast.numba_single`), the default where numba is installed; :class:`CityOfGoldCore`: the scalar
  engine (:mod:`hexarena.games.cityofgold.engine`), the reference it is tested against, used
  without numba and for the caves variant;
* :class:`SmallWorldCore`: :class:`~hexarena.games.smallworld.engine.SmallWorldGame`, its legal
  actions read once per position and indexed in one pass, its observation written straight from
  the engine state.

``legal_actions()`` (what a random opponent draws from), ``outcome()`` and ``rounds_played()``
are read from the fast engine without building a contract state.

``progress(role)`` is the potential of the opt-in shaped reward (see :mod:`.rewards`).
"""

from __future__ import annotations

import functools
import importlib.util
from typing import Any

import numpy as np

from hexarena.core.contract import GameState, Move, Outcome, new_setup
from hexarena.core.errors import IllegalMoveError
from hexarena.core.registry import game_class, make


class StateCore:
    """Any game with RL hooks, through its immutable states."""

    def __init__(self, game: str, seed: int, params: dict[str, Any]) -> None:
        self.state: GameState = make(game, seed=seed, **params)
        self.roles = list(self.state.all_roles())
        self.n_actions = int(self.state.action_count())

    def to_move(self) -> str:
        return self.state.roles[0]

    def over(self) -> bool:
        return self.state.is_over()

    def mask(self) -> np.ndarray:
        """1 for each legal action of the role to move (zeros once the game is over)."""
        mask = np.zeros(self.n_actions, np.int8)
        if not self.over():
            legal = self.state.legal_moves() or ()
            for move in legal:
                mask[self.state.move_to_action(move)] = 1
        return mask

    def legal_actions(self) -> np.ndarray:
        """The legal actions of the role to move, increasing (what a random opponent draws from)."""
        return np.flatnonzero(self.mask())

    def observation(self, role: str) -> np.ndarray:
        return np.asarray(self.state.observation_array(role))

    def play(self, action: int) -> str | None:
        """Apply a discrete action; the rejection message (state unchanged) or None."""
        try:
            new = self.state.apply(self.state.action_to_move(int(action)))
        except IllegalMoveError as exc:
            return str(exc)
        if new.message is not None:
            return new.message
        self.state = new
        return None

    def play_move(self, move: Move) -> str | None:
        new = self.state.apply(move)
        if new.message is None:
            self.state = new
        return new.message

    def snapshot(self) -> GameState:
        return self.state

    def outcome(self) -> Outcome | None:
        """How the game ended (None while it goes on)."""
        return self.snapshot().validate_game()

    def rounds_played(self) -> int:
        return self.snapshot().rounds_played()

    def progress(self, role: str) -> float:
        """The shaped reward's potential (see :data:`PROGRESS`); 0 for games without one."""
        measure = PROGRESS.get(self.state.name)
        return measure(self.state, role) if measure else 0.0


class _EngineCore(StateCore):
    """A fast core: a mutable engine ``self.g``; contract states are built on demand."""

    game_name: str

    def __init__(self, game: str, seed: int, params: dict[str, Any]) -> None:
        self._cls = game_class(game)
        self._setup = new_setup(game, seed, params)
        self._snap: GameState | None = None
        first = self._cls.new(seed=seed, **params)
        self.roles = list(first.all_roles())
        self.n_actions = int(first.action_count())
        self.g = self._engine_of(first)

    def _engine_of(self, state: GameState) -> Any:
        raise NotImplementedError

    def _environment(self) -> Any:
        raise NotImplementedError

    def snapshot(self) -> GameState:
        if self._snap is None:
            self._snap = self._cls.start(self._environment(), self._setup)
        return self._snap

    def play_move(self, move: Move) -> str | None:
        snap = self.snapshot()
        try:
            action = snap.move_to_action(move)
        except (IllegalMoveError, ValueError, KeyError, IndexError) as exc:
            return f"{move!r}: {exc}"
        return self.play(action)


class RecordFlattener:
    """``observe.flatten`` of records of one structured dtype, planned once: the leaves (every
    field but the masks, in field order) become a few contiguous byte runs copied by slice."""

    def __init__(self, dtype: np.dtype) -> None:
        from hexarena.games.cityofgold.observe import flatten_runs

        runs = flatten_runs(dtype)
        self.size = runs[-1][0] + runs[-1][2]
        big = [r for r in runs if r[2] >= 256 or r[3].itemsize != 1]  # the map layers; floats
        self.slices = big
        small = [r for r in runs if r not in big]
        self.gathers = []  # one gather per one-byte dtype for the small fields
        for dt in {r[3] for r in small}:
            mine = [r for r in small if r[3] == dt]
            dst = np.concatenate([np.arange(d, d + c) for d, _, c, _ in mine])
            src = np.concatenate([np.arange(o, o + c) for _, o, c, _ in mine])
            self.gathers.append((dst, src, dt))

    def __call__(self, raw: np.ndarray) -> np.ndarray:
        """``raw``: the record's bytes (uint8)."""
        out = np.empty(self.size, np.float32)
        for dst, src, count, dt in self.slices:
            out[dst : dst + count] = raw[src : src + count * dt.itemsize].view(dt)
        for dst, src, dt in self.gathers:
            out[dst] = raw.view(dt)[src]
        return out


class CityOfGoldCore(_EngineCore):
    """City of Gold on the scalar engine, stepped in place. The learner's observation record is
    kept between steps (its static map layers are copied once per course) and flattened by a
    :class:`RecordFlattener`."""

    def _engine_of(self, state: GameState) -> Any:
        from hexarena.games.cityofgold import engine
        from hexarena.games.cityofgold.observe import OBS_DTYPE, ObsWriter

        self._engine = engine
        self._mask: np.ndarray | None = None
        self._rec = np.zeros(1, OBS_DTYPE)
        self._writer = ObsWriter(self._rec)
        self._flatten = _flattener(OBS_DTYPE)
        return state.game.copy()

    def _environment(self) -> Any:
        from hexarena.games.cityofgold.state import CityOfGoldBoard

        return CityOfGoldBoard(self.g.copy())

    def to_move(self) -> str:
        return self.roles[self.g.player]

    def over(self) -> bool:
        return bool(self.g.done)

    def mask(self) -> np.ndarray:
        if self._mask is None:
            legal = () if self.g.done else self._engine.legal_mask(self.g)
            self._mask = np.zeros(self.n_actions, np.int8)
            self._mask[: len(legal)] = legal
        return self._mask

    def observation(self, role: str) -> np.ndarray:
        self._writer._viewer[0] = -1  # other seats acted since: rewrite every seat's zones
        self._writer.write(0, self.g, viewer=self.roles.index(role))
        return self._flatten(self._rec.view(np.uint8))

    def play(self, action: int) -> str | None:
        """Checked against the cached mask, then applied on the engine's trusted path."""
        action = int(action)
        if not 0 <= action < self.n_actions or not self.mask()[action]:
            return self._engine.why_illegal(self.g, action)
        self._engine.step(self.g, int(action), validate=False)
        self._snap = self._mask = None
        return None

    def progress(self, role: str) -> float:
        return hexes_to_go(self.g.course, self.g.pawns[self.roles.index(role)])


class CityOfGoldNumbaCore(CityOfGoldCore):
    """City of Gold on the CPU engine's one-game kernels (:class:`~hexarena.games.cityofgold.fast.
    numba_single.SingleGame`, the same game from the same seed). The scalar engine stays behind
    as the reference: it replays the actions it missed only when a contract state or a
    rejection message is asked for (bots, rendering, an illegal action)."""

    def _engine_of(self, state: GameState) -> Any:
        from hexarena.games.cityofgold import engine
        from hexarena.games.cityofgold.fast.numba_single import SingleGame

        self._engine = engine
        g = state.game.copy()
        self.fast = SingleGame(g.course, self._setup.seed, g.n_players, g.max_turns)
        self._behind: list[int] = []  # actions the scalar game has not replayed yet
        self._seats = {role: seat for seat, role in enumerate(self.roles)}
        return g

    def _synced(self) -> Any:
        """The scalar game, caught up."""
        for action in self._behind:
            self._engine.step(self.g, action, validate=False)
        self._behind.clear()
        return self.g

    def _environment(self) -> Any:
        self._synced()
        return super()._environment()

    def to_move(self) -> str:
        seat = self.fast.player
        return self.roles[seat if seat >= 0 else self._synced().player]

    def over(self) -> bool:
        return self.fast.done

    def mask(self) -> np.ndarray:
        return self.fast.mask()

    def legal_actions(self) -> np.ndarray:
        return self.fast.legal()

    def observation(self, role: str) -> np.ndarray:
        return self.fast.observation(self._seats[role])

    def play(self, action: int) -> str | None:
        action = int(action)
        if not self.fast.is_legal(action):
            return self._engine.why_illegal(self._synced(), action)
        self.fast.play(action)
        self._behind.append(action)
        self._snap = None
        return None

    def outcome(self) -> Outcome | None:
        from hexarena.games.cityofgold.state import game_outcome

        if not self.fast.done:
            return None
        n = len(self.roles)
        rewards = [float(r) for r in self.fast.field("rewards")[:n]]
        truncated = bool(self.fast.field("truncated"))
        winners = [] if truncated else [p for p in range(n) if rewards[p] == max(rewards)]
        return game_outcome(truncated, self.g.max_turns, winners, rewards)

    def rounds_played(self) -> int:
        return int(self.fast.field("turn")) // len(self.roles)

    def progress(self, role: str) -> float:
        return hexes_to_go(self.g.course, self.fast.field("pawns")[self._seats[role]].tolist())


class SmallWorldCore(_EngineCore):
    """Small World on its mutable engine; legal actions are read once per position."""

    def _engine_of(self, state: GameState) -> Any:
        from hexarena.games.smallworld import encoding

        self._encoding = encoding
        self._legal: list[dict[str, Any]] | None = None
        return state.environment._game.clone()

    def _environment(self) -> Any:
        from hexarena.games.smallworld.adapter import SmallWorldEnv

        return SmallWorldEnv(self.g.clone())

    def _legal_now(self) -> list[dict[str, Any]]:
        if self._legal is None:
            self._legal = [] if self.g.is_game_over() else self.g.get_legal_actions()
        return self._legal

    def to_move(self) -> str:
        return self.roles[self.g.get_current_player()]

    def over(self) -> bool:
        return self.g.is_game_over()

    def mask(self) -> np.ndarray:
        mask = np.zeros(self.n_actions, np.int8)
        mask[self._encoding.legal_action_indices(self._legal_now())] = 1
        return mask

    def observation(self, role: str) -> np.ndarray:
        return self._encoding.state_observation_array(self.g._state, self.roles.index(role))

    def play(self, action: int) -> str | None:
        from hexarena.games.smallworld.errors import SmallWorldError

        try:
            move = self._encoding.action_to_move(int(action), self._legal_now())
            self.g.submit_action(self.g.get_current_player(), move)
        except (IndexError, KeyError, SmallWorldError) as exc:
            return str(exc)
        self._legal, self._snap = None, None
        return None

    def progress(self, role: str) -> float:
        return float(self.g._state.players[self.roles.index(role)].coins)


@functools.cache
def _flattener(dtype: np.dtype) -> RecordFlattener:
    return RecordFlattener(dtype)


def hexes_to_go(course: Any, pawns: list[int]) -> float:
    """Minus the hexes a seat's ``pawns`` (cells; -1: arrived) have left to El Dorado, summed."""
    from hexarena.games.cityofgold.board import finish_distances

    away = finish_distances(course)
    return -float(sum(away[c] for c in pawns if c >= 0))


PROGRESS = {
    "cityofgold": lambda state, role: hexes_to_go(
        state.game.course, state.game.pawns[state.all_roles().index(role)]
    ),
    "smallworld": lambda state, role: state.get_scores()[role],
}
"""The potential of the shaped reward per game: City of Gold, minus the hexes left to El Dorado;
Small World, the coins held (scored at the end of each turn)."""

FAST_CORES: dict[str, type[StateCore]] = {"cityofgold": CityOfGoldCore, "smallworld": SmallWorldCore}


def new_core(game: str, seed: int, params: dict[str, Any], fast: bool = True) -> StateCore:
    """The fastest core for ``game`` (the generic one without a fast core, or if not ``fast``):
    City of Gold on the CPU engine where numba is installed and the variant has no caves."""
    if not fast:
        return StateCore(game, seed, params)
    if game == "cityofgold" and not params.get("caves") and _has_numba():
        return CityOfGoldNumbaCore(game, seed, params)
    return FAST_CORES.get(game, StateCore)(game, seed, params)


@functools.cache
def _has_numba() -> bool:
    return importlib.util.find_spec("numba") is not None
