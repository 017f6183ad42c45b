"""Small World through the hexarena contract: an immutable :class:`SmallWorldState`.

The full environment wraps an engine snapshot that is never mutated (each move works on a
clone). A role's view (``query_game``) holds only that role's observation: opponents' coins,
the decks' order and the RNG are absent, and ``legal_moves`` / ``render_text`` read the view.
Moves are the engine's action dicts.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, ClassVar

from hexarena.core.contract import GameState, Move, Outcome, OutcomeKind, loads_move, new_setup
from hexarena.core.errors import IllegalMoveError, MoveParseError
from hexarena.core.frozen import FrozenMap, canonical_json, freeze, thaw
from hexarena.games.smallworld import encoding
from hexarena.games.smallworld.engine import SmallWorldGame
from hexarena.games.smallworld.errors import SmallWorldError
from hexarena.games.smallworld.state import GameConfig
from hexarena.games.smallworld.text import abilities_text, format_action, parse_action, render_observation

#: What a seat whose player left plays, the first kind that is legal (:meth:`SmallWorldState.leave_move`).
_LEAVE_ORDER = ("SKIP_CONQUEST", "EXPAND", "STOUT_DECLINE", "REDEPLOY", "OPPONENT_REDEPLOY", "PICK_COMBO")

ROLE_NAMES = ("red", "blue", "green", "yellow", "purple")


@dataclass(frozen=True, eq=False)
class SmallWorldEnv:
    """The full game. ``_game`` is private and never changed once the environment exists."""

    _game: SmallWorldGame = field(repr=False)

    @property
    def config(self) -> GameConfig:
        return self._game.config

    def observation(self, player_id: int) -> dict[str, Any]:
        return self._game.get_observation(player_id)

    def to_json(self) -> dict[str, Any]:
        return self._game._state.to_json()

    def __eq__(self, other: object) -> bool:
        return isinstance(other, SmallWorldEnv) and canonical_json(self.to_json()) == canonical_json(
            other.to_json()
        )

    def __hash__(self) -> int:
        return hash(canonical_json(self.to_json()))


@dataclass(frozen=True)
class SmallWorldView:
    """One role's information set: its frozen observation, nothing else."""

    player_id: int
    observation: FrozenMap[str, Any]

    def to_json(self) -> dict[str, Any]:
        return {"player_id": self.player_id, "observation": thaw(self.observation)}


def as_move(value: Any) -> Any:
    """Frozen in its JSON form (string keys), so moves compare equal after an export round trip."""
    return freeze(json.loads(json.dumps(value)))


def _players_of(env: SmallWorldEnv | SmallWorldView) -> int:
    if isinstance(env, SmallWorldEnv):
        return env.config.num_players
    return len(env.observation["opponents"]) + 1


@dataclass(frozen=True, slots=True, kw_only=True)
class SmallWorldState(GameState):
    """Small World for 2-5 players; roles are colours in seat order."""

    name: ClassVar[str] = "smallworld"
    rules_summary: ClassVar[str] = (
        "Small World. Each turn you either expand with your active race or put it into decline. "
        "Pick a race+power combo from the row (index i costs i coins). Conquer regions: the first "
        "one on the map border, later ones adjacent to your regions. A conquest costs 2 tokens, +1 "
        "per defending token, Lost Tribe, mountain, lair, fortress or encampment (discounts never "
        "below 1); the defender loses one token and keeps the rest. When short, one final attempt "
        "rolls a die (0,0,0,1,2,3). Then redeploy (at least 1 token per region). At the end of "
        "each turn score 1 coin per region you hold (active and declined) plus race and power "
        "bonuses. Decline: your race stays with 1 token per region and keeps scoring; next turn "
        "you pick a new combo. Most coins after the last turn wins.\n" + abilities_text()
    )
    bots: ClassVar[FrozenMap[str, str]] = FrozenMap(heuristic="hexarena.games.smallworld.bot:HeuristicPlayer")
    demo_params: ClassVar[FrozenMap[str, Any]] = FrozenMap(players=3)
    move_syntax: ClassVar[str] = (
        "one line 'TYPE arguments', e.g. PICK_COMBO 2, CONQUER 14, ABANDON 3 7, REDEPLOY 3:4 7:1 "
        "(region:tokens), DECLINE, SKIP_CONQUEST, STOUT_DECLINE yes (or the JSON action dict)"
    )

    @classmethod
    def new(cls, seed: int = 0, players: int = 4, map_seed: int | None = None) -> SmallWorldState:
        try:
            config = GameConfig(players, seed, map_seed)
        except SmallWorldError as exc:
            raise ValueError(str(exc)) from exc
        setup = new_setup(cls.name, seed, {"players": players, "map_seed": map_seed})
        return cls.start(SmallWorldEnv(SmallWorldGame(config)), setup)

    # -- rules -----------------------------------------------------------------------------
    def all_roles(self) -> tuple[str, ...]:
        return ROLE_NAMES[: _players_of(self.environment)]

    def _acting(self, env: SmallWorldEnv | SmallWorldView) -> int:
        if isinstance(env, SmallWorldEnv):
            return env._game.get_current_player()
        return int(env.observation["game"]["current_player"])

    def roles_for(self, environment: SmallWorldEnv | SmallWorldView) -> tuple[str, ...]:
        first = self._acting(environment)
        n = _players_of(environment)
        return tuple(ROLE_NAMES[(first + i) % n] for i in range(n))

    def advance(self, move: Move) -> SmallWorldEnv:
        game = self.environment._game.clone()
        try:
            game.submit_action(game.get_current_player(), thaw(move))
        except SmallWorldError as exc:
            raise IllegalMoveError(str(exc)) from exc
        return SmallWorldEnv(game)

    def legal_moves(self) -> tuple[Move, ...]:
        env = self.environment
        if isinstance(env, SmallWorldView):
            return tuple(env.observation["legal_actions"])
        return tuple(as_move(a) for a in env._game.get_legal_actions())

    def leave_move(self) -> Move | None:
        """A seat whose player left keeps what it holds and takes nothing more: it skips its
        conquests, keeps its race in play (no decline), redeploys and places as the first listed
        way, and takes the first combo offered when it has no race (the free one)."""
        moves = sorted(self.legal_moves(), key=lambda m: bool(m.get("decline")))  # STOUT_DECLINE no
        for kind in _LEAVE_ORDER:
            for move in moves:
                if move["type"] == kind:
                    return move
        return moves[0] if moves else None

    def validate_game(self) -> Outcome | None:
        env = self.environment
        if isinstance(env, SmallWorldView):
            if env.observation["game"]["phase"] != "GAME_OVER":
                return None
            return Outcome.from_scores(OutcomeKind.WIN, "most coins after the last turn", self.get_scores())
        if not env._game.is_game_over():
            return None
        res = env._game.get_results()
        n = env.config.num_players
        tiebreak = {ROLE_NAMES[p]: res["tokens_on_map"][p] * 10 + (n - p) / 10 for p in range(n)}
        return Outcome.from_scores(
            OutcomeKind.WIN, "most coins after the last turn", self.get_scores(), tiebreak=tiebreak
        )

    def get_scores(self) -> dict[str, float]:
        env = self.environment
        if isinstance(env, SmallWorldEnv):
            return {ROLE_NAMES[p.player_id]: float(p.coins) for p in env._game._state.players}
        obs = env.observation
        players = [obs["self"], *obs["opponents"]]
        return {
            ROLE_NAMES[p["player_id"]]: float(p["coins"]) if isinstance(p["coins"], int) else 0.0
            for p in players
        }

    def rounds_played(self) -> int:
        env = self.environment
        turn = env._game._state.turn if isinstance(env, SmallWorldEnv) else env.observation["game"]["turn"]
        return int(turn) - 1

    # -- views -----------------------------------------------------------------------------
    def redact(self, role: str) -> SmallWorldView:
        pid = ROLE_NAMES.index(role)
        return SmallWorldView(pid, as_move(self.environment.observation(pid)))

    def render_text(self, role: str | None = None) -> str:
        env = self.environment
        if isinstance(env, SmallWorldView):
            obs = thaw(env.observation)
        else:
            pid = self._acting(env) if role is None else ROLE_NAMES.index(role)
            obs = env.observation(pid)
            if role is None:  # the full state: nothing is hidden
                for o in obs["opponents"]:
                    o["coins"] = env._game._state.players[o["player_id"]].coins
        text = render_observation(obs, list(self.all_roles()))
        outcome = self.validate_game()
        if outcome is not None:
            text += f"\nGame over: {outcome.ranking[0][0]} wins with the most coins."
        return text

    def format_move(self, move: Move) -> str:
        return format_action(thaw(move)) if isinstance(move, FrozenMap | dict) else str(move)

    def parse_move(self, text: str) -> Move:
        """A legal move's text, one move ``TYPE args`` on one line, or a JSON action dict: the
        whole reply is the move (a move type named inside prose is not read)."""
        if not isinstance(text, str):
            raise self.unreadable(text)
        wanted = " ".join(text.strip().strip("`").split()).upper()
        for move in self.legal_moves():
            if self.format_move(move).upper() == wanted:
                return move
        action = parse_action(text)
        if action is not None:
            return as_move(action)
        try:
            action = loads_move(text)
        except MoveParseError as exc:
            raise self.unreadable(text, str(exc)) from None
        except ValueError:
            action = None
        if isinstance(action, dict):
            return as_move(action)
        raise self.unreadable(text, "a reply is one move, a type such as CONQUER and its arguments")

    # -- reinforcement learning hooks (see encoding.py) ---------------------------------------
    def action_count(self) -> int:
        return encoding.ACTION_COUNT

    def action_to_move(self, action: int) -> Move:
        try:
            return as_move(encoding.action_to_move(int(action), thaw(self.legal_moves())))
        except (IndexError, KeyError) as exc:
            raise IllegalMoveError(str(exc)) from exc

    def move_to_action(self, move: Move) -> int:
        return encoding.move_to_action(thaw(move), thaw(self.legal_moves()))

    def observation_array(self, role: str) -> Any:
        env = self.environment
        if isinstance(env, SmallWorldView):
            return encoding.observation_array(thaw(env.observation))
        return encoding.observation_array(env.observation(ROLE_NAMES.index(role)))

    def environment_to_json(self) -> Any:
        return self.environment.to_json()

    def frame(self) -> dict[str, Any]:
        from hexarena.games.smallworld.frame import build_frame

        return build_frame(self.environment._game, ROLE_NAMES)
