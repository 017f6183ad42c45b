"""City of Gold through the hexarena contract: moves as text, hidden hands, text and frames.

A move is one action of the player to act, written as text (``play Explorer``, ``special
Scientist``, ``move NE``, ``move pawn 2 W``, ``buy Scout``, ``take Native``, ``remove Traveler``,
``discard Traveler``, ``pass``) or as a flat action index. A turn is several moves by the same
role; ``roles[0]`` changes only when the turn ends.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from hexarena.core.contract import GameState, Move, Outcome, OutcomeKind, new_setup, quote_reply
from hexarena.core.errors import IllegalMoveError
from hexarena.core.rng import Rng
from hexarena.games.cityofgold import cards as C
from hexarena.games.cityofgold.actions import (
    DISCARD,
    MOVE,
    N_ACTIONS,
    PASS,
    PLAY,
    REMOVE,
    SHOP,
    SPECIAL,
    Phase,
    action_kind,
)
from hexarena.games.cityofgold.board import (
    DIRECTION_NAMES,
    NEIGHBORS,
    REQ_NAMES,
    TERRAIN_NAMES,
    finish_distances,
    parse_difficulty,
)
from hexarena.games.cityofgold.engine import (
    ARRIVED,
    DRAW_PILE,
    HAND,
    Game,
    IllegalActionError,
    legal_actions,
    new_game,
    step,
)
from hexarena.games.cityofgold.frames import build_frame
from hexarena.games.cityofgold.observe import flatten, observe
from hexarena.games.cityofgold.render import LEGEND, ascii_map, hex_code, map_position, zone_text

ROLES = ("red", "blue", "white", "black")
_VERBS = {"play": PLAY, "special": SPECIAL, "remove": REMOVE, "discard": DISCARD}
_MOVE_RE = re.compile(r"^move\s+(?:pawn\s*([12])\s+)?(e|ne|nw|w|sw|se)\b")


@dataclass(frozen=True, slots=True)
class CityOfGoldBoard:
    """The environment: an engine game that is never mutated (every move steps a copy).

    In a redacted view ``viewer`` is the seat it was made for; other seats' hands, draw piles, the
    random stream and the cave piles' order are blanked, and their sizes are kept in ``sizes``.
    """

    game: Game
    viewer: int | None = None
    sizes: tuple[tuple[int, int], ...] = ()

    def to_json(self) -> dict[str, Any]:
        return self.game.to_json()


@dataclass(frozen=True, slots=True, kw_only=True)
class CityOfGoldState(GameState):
    """City of Gold on the contract (see the module docstring for the move syntax)."""

    name: ClassVar[str] = "cityofgold"
    rules_summary: ClassVar[str] = (
        "City of Gold, a race to El Dorado on a hex course. Each player has a deck (start: 3 Explorer = "
        "1 machete, 4 Traveler = 1 coin, 1 Sailor = 1 paddle) and a hand of 4. A turn is several moves: "
        "'play <card>' makes that card's resources current (replacing any others; cards never combine); "
        "'move <dir>' steps one hex (E, NE, NW, W, SW, SE) paying its cost from the current resources: "
        "J = machete, W = paddle, V = coin; what is left of the card carries on over further hexes of the "
        "same kind. R (rubble) makes you discard that many hand cards, B (basecamp) remove them from the "
        "game. Mountains and occupied hexes are closed. A blockade at a tile border must first be opened "
        "by paying its cost (you keep it: it breaks ties). 'special <card>' uses an action card. 'pass' "
        "ends movement; in the buying phase 'play <card>' adds money (coins, jokers; other cards 1/2), "
        "'discard <card>' drops a hand card, 'buy <card>' buys one card (price <= money) and ends the turn, "
        "'pass' ends it. Cards bought go to your discard pile; you draw back up to 4. The first to reach "
        "El Dorado ends the game at the end of that round."
    )
    bots: ClassVar[dict[str, str]] = {"heuristic": "hexarena.games.cityofgold.bot:HeuristicPlayer"}
    demo_params: ClassVar[dict[str, Any]] = {"n_players": 3, "n_pieces": 1, "max_turns": 90}
    move_syntax: ClassVar[str] = (
        "one move per reply: play <card>, special <card>, move <E|NE|NW|W|SW|SE> (move pawn 2 NE "
        "with two pawns), remove <card>, discard <card>, buy <card>, take <card>, or pass"
    )

    @classmethod
    def new(
        cls,
        seed: int = 0,
        n_players: int = 4,
        n_pieces: int = 3,
        difficulty: str = "easy",
        max_turns: int = 1000,
        layout: str = "linear",
        caves: bool = False,
    ) -> CityOfGoldState:
        params = {
            "n_players": n_players,
            "n_pieces": n_pieces,
            "difficulty": parse_difficulty(difficulty).name.lower(),
            "max_turns": max_turns,
            "layout": layout,
            "caves": bool(caves),
        }
        setup = new_setup(cls.name, seed, params)
        return cls.start(CityOfGoldBoard(new_game(seed, **params)), setup)

    # -- rules -----------------------------------------------------------------------------
    @property
    def game(self) -> Game:
        return self.environment.game

    def all_roles(self) -> tuple[str, ...]:
        return ROLES[: self.game.n_players]

    def roles_for(self, environment: CityOfGoldBoard) -> tuple[str, ...]:
        n, p = environment.game.n_players, environment.game.player
        return tuple(ROLES[(p + i) % n] for i in range(n))

    def advance(self, move: Move) -> CityOfGoldBoard:
        g = self.game.copy()
        try:
            action = self.action_of(move)
        except IllegalMoveError as exc:
            raise IllegalMoveError(f"cannot read {quote_reply(move)}: {exc}") from None
        try:
            step(g, action)
        except IllegalActionError as exc:
            raise IllegalMoveError(f"{self.format_move(move)}: {exc}") from None
        return CityOfGoldBoard(g)

    def action_of(self, move: Move) -> int:
        """The flat action of a move (text or index); raises IllegalMoveError if unreadable."""
        if isinstance(move, int) and not isinstance(move, bool):
            return move
        if not isinstance(move, str):
            raise IllegalMoveError(f"a move is text like 'play Explorer' or 'move NE', got {move!r}")
        text = " ".join(move.strip().strip("`'\".").lower().split())
        if text in ("pass", "end", "done", "end turn"):
            return PASS
        verb, _, rest = text.partition(" ")
        if verb == "move":
            m = _MOVE_RE.match(text)
            if not m:
                raise IllegalMoveError(
                    f"unknown direction {quote_reply(rest, 20)}; "
                    "write move E, NE, NW, W, SW or SE (move pawn 2 NE with two pawns)"
                )
            return MOVE + 6 * (int(m.group(1) or 1) - 1) + DIRECTION_NAMES.index(m.group(2).upper())
        if verb not in (*_VERBS, "buy", "take"):
            raise IllegalMoveError(
                f"unknown move {quote_reply(verb, 20)}; "
                "moves start with play, special, remove, discard, buy, take, move or pass"
            )
        try:
            card = C.card_id(rest)
        except ValueError:
            cards = ", ".join(C.NAMES)
            raise IllegalMoveError(f"unknown card {quote_reply(rest, 30)}; cards are: {cards}") from None
        if verb in _VERBS:
            return _VERBS[verb] + card
        if card not in C.SHOP_INDEX:
            raise IllegalMoveError(f"{C.NAMES[card]} is a starting card; the shop does not sell it")
        return SHOP + C.SHOP_INDEX[card]

    def format_move(self, move: Move) -> str:
        try:
            action = self.action_of(move)
        except IllegalMoveError:
            return str(move)
        if not isinstance(action, int) or not 0 <= action < N_ACTIONS:
            return str(move)
        kind, arg = action_kind(action)
        if kind == "pass":
            return "pass"
        if kind == "move":
            pawn = f"pawn {arg // 6 + 1} " if self.game.n_pawns > 1 else ""
            return f"move {pawn}{DIRECTION_NAMES[arg % 6]}"
        if kind == "shop":
            verb = "take" if self.game.phase == Phase.TRANSMIT else "buy"
            return f"{verb} {C.NAMES[C.SHOP_CARDS[arg]]}"
        return f"{kind} {C.NAMES[arg]}"

    def leave_move(self) -> Move | None:
        """A seat whose player left passes every turn (the first legal move where it cannot)."""
        moves = self.legal_moves()
        return "pass" if "pass" in moves else (moves[0] if moves else None)

    def legal_moves(self) -> tuple[str, ...]:
        if self.validate_game() is not None:
            return ()
        return tuple(self.format_move(a) for a in legal_actions(self.game))

    def parse_move(self, text: str) -> Move:
        """Read the reply as one move on one line (a move named inside prose is not read)."""
        if not isinstance(text, str):
            raise self.unreadable(text)
        lines = [ln for ln in text.strip().splitlines() if ln.strip()]
        if len(lines) != 1:
            raise self.unreadable(text, "a reply is one move on one line" if lines else "")
        try:
            return self.format_move(self.action_of(lines[0].strip("`").strip()))
        except IllegalMoveError as exc:
            raise self.unreadable(text, str(exc)) from None

    def validate_game(self) -> Outcome | None:
        g = self.game
        return game_outcome(g.truncated, g.max_turns, g.winners, g.rewards) if g.done else None

    def get_scores(self) -> dict[str, float]:
        return {ROLES[p]: float(r) for p, r in enumerate(self.game.rewards)}

    def rounds_played(self) -> int:
        return self.game.turn // self.game.n_players

    def redact(self, role: str) -> CityOfGoldBoard:
        seat = ROLES.index(role)
        g = self.game.copy()
        sizes = tuple((sum(z[HAND]), sum(z[DRAW_PILE])) for z in g.zones)
        for p, zones in enumerate(g.zones):
            if p != seat:
                zones[HAND] = [0] * C.N_CARDS
                zones[DRAW_PILE] = [0] * C.N_CARDS
        g.rng = Rng(0)
        g.cave_tokens = [[(0, 0)] * len(pile) for pile in g.cave_tokens]
        return CityOfGoldBoard(g, seat, sizes)

    def environment_to_json(self) -> Any:
        return self.environment.to_json()

    # -- views -----------------------------------------------------------------------------
    def render_text(self, role: str | None = None) -> str:
        g = self.game
        seat = ROLES.index(role) if role in ROLES else None
        if seat is None and self.environment.viewer is not None:
            seat = self.environment.viewer
        lines = [f"City of Gold, turn {g.turn + 1}, {g.n_players} players. Map (rows run west to east):"]
        lines += [ascii_map(g), LEGEND, self._blockade_text()]
        for p in range(g.n_players):
            lines.append(self._player_text(p, seat))
        lines.append(self._shop_text())
        outcome = self.validate_game()
        if outcome is not None:
            lines.append(f"Game over: {outcome}.")
            return "\n".join(lines)
        lines.append(f"To act: {ROLES[g.player]} (P{g.player + 1}), phase {Phase(g.phase).name}.")
        if seat == g.player or seat is None:
            lines.append(self._turn_text())
        return "\n".join(lines)

    def _blockade_text(self) -> str:
        g = self.game
        if not g.course.blockades:
            return "No blockades on this course."
        parts = []
        for b, blk in enumerate(g.course.blockades):
            holder = g.blockade_holder[b]
            state = "standing" if holder < 0 else f"opened by {ROLES[holder]}"
            parts.append(f"{blk.name} ({blk.amount} {REQ_NAMES[blk.kind]}, {state})")
        return "Blockades: " + "; ".join(parts)

    def _player_text(self, p: int, seat: int | None) -> str:
        g = self.game
        zones = g.zones[p]
        dist = finish_distances(g.course)
        where = ", ".join(
            "home" if c == ARRIVED else f"{map_position(g.course, c)} {dist[c]} hexes to go"
            for c in g.pawns[p]
        )
        head = f"P{p + 1} {ROLES[p]}: pawns {where}; blockades {sum(1 for h in g.blockade_holder if h == p)}"
        if seat is None or seat == p:
            private = f"hand [{zone_text(zones[HAND])}], draw pile [{zone_text(zones[DRAW_PILE])}]"
        else:
            hand, draw = (
                self.environment.sizes[p] if self.environment.sizes else (sum(zones[HAND]), sum(zones[0]))
            )
            private = f"hand {hand} cards, draw pile {draw} cards"
        in_play = [a + b for a, b in zip(zones[2], zones[3], strict=True)]
        return f"{head}; {private}; discard [{zone_text(zones[4])}]; in play [{zone_text(in_play)}]"

    def _shop_text(self) -> str:
        g = self.game
        market, reserve = [], []
        for s, card in enumerate(C.SHOP_CARDS):
            text = f"{C.describe(card)} x{g.shop[s]}"
            (market if g.market[s] else reserve).append(text)
        open_reserve = "open (a market stack ran out)" if sum(g.market) < C.MARKET_SLOTS else "closed"
        return f"Shop market: {'; '.join(market)}.\nReserve ({open_reserve}): {'; '.join(reserve)}."

    def _turn_text(self) -> str:
        g = self.game
        if g.phase == Phase.BUYING:
            status = f"Money: {g.money2 / 2:g}."
        else:
            status = f"Current resources: machete {g.res[0]}, paddle {g.res[1]}, coin {g.res[2]}."
        if g.pending:
            status += f" Still to pay/remove: {g.pending} card(s)."
        return status

    def move_note(self, move: Move) -> str:
        """Where a pawn move leads (terrain, position, distance to El Dorado) or what it opens."""
        try:
            action = self.action_of(move)
        except IllegalMoveError:
            return ""
        kind, arg = action_kind(action)
        g = self.game
        if kind != "move":
            return ""
        cell = g.pawns[g.player][arg // 6]
        target = NEIGHBORS[cell][arg % 6]
        gate = g.gate.get(cell * 6 + arg % 6, -1)
        if gate >= 0 and g.blockade_holder[gate] < 0:
            return f"  (opens blockade {g.course.blockades[gate].name})"
        terrain = TERRAIN_NAMES[g.course.terrain[target]]
        away = finish_distances(g.course)[target]
        where = map_position(g.course, target)
        return f"  (to {terrain} {hex_code(g.course, target)} at {where}, {away} hexes from El Dorado)"

    # -- RL hooks: the flat action space and a numeric observation ---------------------------
    def action_count(self) -> int:
        return N_ACTIONS

    def action_to_move(self, action: int) -> Move:
        return self.format_move(int(action))

    def move_to_action(self, move: Move) -> int:
        return self.action_of(move)

    def observation_array(self, role: str) -> np.ndarray:
        """:func:`~.observe.flatten` of ``role``'s observation (hidden cards are zeros)."""
        return flatten(observe(self.game, viewer=ROLES.index(role)))

    def frame(self) -> dict[str, Any]:
        return build_frame(self.game, ROLES)


def game_outcome(truncated: bool, max_turns: int, winners: list[int], rewards: list[float]) -> Outcome:
    """The outcome of a finished game: its rewards are the scores; a truncated game has no winner."""
    scores = {ROLES[p]: float(r) for p, r in enumerate(rewards)}
    if truncated:
        return Outcome.from_scores(OutcomeKind.TRUNCATED, f"turn cap of {max_turns} turns reached", scores)
    names = " and ".join(ROLES[p] for p in winners)
    return Outcome.from_scores(OutcomeKind.WIN, f"{names} reached El Dorado", scores)
