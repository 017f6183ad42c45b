"""The scalar City of Gold engine: the readable rules reference.

State is a mutable :class:`Game` of plain ints and lists (card zones are count vectors, pawns are
grid cells), stepped in place by :func:`step`; callers that need immutability copy first
(:meth:`Game.copy`). Every random draw comes from the game's :class:`~hexarena.core.rng.Rng`.

A player's turn is several actions (see :mod:`.actions`):

* **Movement.** Play a card: its resources replace the current ones (cards are never combined).
  Move a pawn one hex: pay the hex's amount of the matching resource (the other two are lost;
  the card's leftover carries on over further hexes of the same type), or for rubble / basecamp
  choose that many hand cards to discard / remove. Moving across a standing blockade pays the
  blockade's cost instead and opens it; the pawn stays and the player keeps the blockade.
  Specials: Transmitter (take any shop card free), Cartographer / Compass (draw), Scientist /
  Travel Log (draw, then remove hand cards), Native (move ignoring the cost).
* **Buying** (after PASS). Cards played add money (coins and jokers their value, others 1/2).
  Hand cards may be discarded. One purchase at price <= money ends the turn; so does PASS.
* **End of turn.** Active and played cards go to the discard pile; unplayed hand cards stay;
  draw up to 4, shuffling the discard pile into a new draw pile only when the draw pile is empty.

Caves variant (``caves=True``): up to nine mountains become caves with 4 tokens each; a pawn
that stops next to a cave takes the top token of one of them (each cave once per turn) and uses
it at once (a resource token replaces the current resources, a draw token draws cards).

Start hexes cannot be re-entered once left (as in 0.0.3). An arriving pawn leaves the board for
El Dorado, so later arrivers are never blocked.

A player whose pawns have all reached El Dorado leaves the board; the round is finished, then the
arrivers with most blockades win (ties share). ``max_turns`` player turns end the game as a
truncation (all rewards 0).
"""

from __future__ import annotations

from itertools import compress
from numbers import Integral
from typing import Any

from hexarena.core.errors import IllegalMoveError
from hexarena.core.rng import Rng, derive_seed
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
    CAVE_TOKENS,
    COIN,
    FINISH,
    NEIGHBORS,
    NO_REQ,
    REQ_NAMES,
    Course,
    Difficulty,
    generate_course,
)
from hexarena.games.cityofgold.board import (
    DISCARD as REQ_DISCARD,
)

DRAW_PILE, HAND, ACTIVE, PLAYED, DISCARD_PILE = range(5)
ZONE_NAMES = ("draw", "hand", "active", "played", "discard")
ARRIVED = -1
STAT_NAMES = (
    "steps_taken",
    "travelled_hexes",
    "cards_added",
    "cards_removed",
    "n_card_uses",
    "n_machete_uses",
    "n_paddle_uses",
    "n_coin_uses",
    "blockades",
    "cave_tokens",
)
_ST = {name: i for i, name in enumerate(STAT_NAMES)}


class IllegalActionError(IllegalMoveError):
    """An action the rules do not allow now; the game is left unchanged."""


class Game:
    """The complete mutable state of one game (see the module docstring for the rules)."""

    __slots__ = (
        "blockade_holder",
        "cave_tokens",
        "caves_used",
        "course",
        "done",
        "ending",
        "gate",
        "market",
        "max_turns",
        "money2",
        "n_pawns",
        "n_players",
        "pawns",
        "pending",
        "phase",
        "player",
        "removed",
        "res",
        "rewards",
        "rng",
        "shop",
        "stats",
        "truncated",
        "turn",
        "turns_taken",
        "winners",
        "zones",
    )

    course: Course
    gate: dict[int, int]
    n_players: int
    n_pawns: int
    max_turns: int
    rng: Rng
    player: int
    phase: int
    pending: int
    res: list[int]
    money2: int
    zones: list[list[list[int]]]
    removed: list[int]
    shop: list[int]
    market: list[bool]
    pawns: list[list[int]]
    blockade_holder: list[int]
    cave_tokens: list[list[tuple[int, int]]]
    caves_used: list[int]
    turn: int
    turns_taken: list[int]
    ending: bool
    done: bool
    truncated: bool
    winners: list[int]
    rewards: list[float]
    stats: list[list[int]]

    def copy(self) -> Game:
        g = Game.__new__(Game)
        for name in ("course", "gate", "n_players", "n_pawns", "max_turns", "player", "phase", "pending"):
            setattr(g, name, getattr(self, name))
        g.rng = self.rng.copy()
        g.money2, g.turn, g.ending, g.done, g.truncated = (
            self.money2,
            self.turn,
            self.ending,
            self.done,
            self.truncated,
        )
        g.res = self.res[:]
        g.zones = [[z[:] for z in zs] for zs in self.zones]
        g.removed, g.shop, g.market = self.removed[:], self.shop[:], self.market[:]
        g.pawns = [p[:] for p in self.pawns]
        g.blockade_holder, g.caves_used = self.blockade_holder[:], self.caves_used[:]
        g.cave_tokens = [t[:] for t in self.cave_tokens]
        g.turns_taken, g.winners, g.rewards = self.turns_taken[:], self.winners[:], self.rewards[:]
        g.stats = [s[:] for s in self.stats]
        return g

    def to_json(self) -> dict[str, Any]:
        """Everything but the course (which is rebuilt from the seed) in JSON-safe form."""
        return {
            "course": self.course.to_json(),
            "n_players": self.n_players,
            "max_turns": self.max_turns,
            "rng": list(self.rng.state),
            "player": self.player,
            "phase": Phase(self.phase).name,
            "pending": self.pending,
            "resources": self.res[:],
            "money2": self.money2,
            "zones": [{ZONE_NAMES[z]: zs[z][:] for z in range(5)} for zs in self.zones],
            "removed": self.removed[:],
            "shop": self.shop[:],
            "market": self.market[:],
            "pawns": [p[:] for p in self.pawns],
            "blockade_holder": self.blockade_holder[:],
            "cave_tokens": [[list(t) for t in pile] for pile in self.cave_tokens],
            "caves_used": self.caves_used[:],
            "turn": self.turn,
            "turns_taken": self.turns_taken[:],
            "ending": self.ending,
            "done": self.done,
            "truncated": self.truncated,
            "winners": self.winners[:],
            "rewards": self.rewards[:],
            "stats": [dict(zip(STAT_NAMES, s, strict=True)) for s in self.stats],
        }

    # -- convenient views ------------------------------------------------------------------
    def hand(self, player: int | None = None) -> list[int]:
        return self.zones[self.player if player is None else player][HAND]

    def occupied(self) -> set[int]:
        return {c for pawns in self.pawns for c in pawns if c != ARRIVED}

    def arrived(self, player: int) -> bool:
        return all(c == ARRIVED for c in self.pawns[player])


def new_game(
    seed: int,
    n_players: int = 4,
    n_pieces: int = 3,
    difficulty: Difficulty | int | str = Difficulty.EASY,
    max_turns: int = 1000,
    layout: str = "linear",
    caves: bool = False,
    min_distance: int = 8,
    course: Course | None = None,
    play_seed: int | None = None,
) -> Game:
    """A new game, deterministic from ``seed`` (the course too unless one is given). ``play_seed``,
    when given, seeds the play generator directly (the board pool's episodes use it)."""
    if not isinstance(n_players, int) or not 2 <= n_players <= 4:
        raise ValueError(f"n_players must be 2, 3 or 4, got {n_players!r}")
    if not isinstance(max_turns, int) or max_turns < 1:
        raise ValueError(f"max_turns must be a positive int, got {max_turns!r}")
    if course is None:
        course = generate_course(seed, n_pieces, difficulty, layout, min_distance, caves)
    g = Game.__new__(Game)
    g.course, g.gate = course, course.gate_map()
    g.n_players, g.n_pawns, g.max_turns = n_players, 2 if n_players == 2 else 1, max_turns
    g.rng = Rng(play_seed_of(seed) if play_seed is None else play_seed)
    g.player, g.phase, g.pending, g.res, g.money2 = 0, Phase.MOVEMENT, 0, [0, 0, 0], 0
    g.zones = [
        [list(C.STARTER_DECK), [0] * C.N_CARDS, [0] * C.N_CARDS, [0] * C.N_CARDS, [0] * C.N_CARDS]
        for _ in range(n_players)
    ]
    g.removed = [0] * C.N_CARDS
    g.shop = [C.COPIES] * C.N_SHOP
    g.market = list(C.START_MARKET)
    starts = course.starts
    g.pawns = [[starts[p * g.n_pawns + i] for i in range(g.n_pawns)] for p in range(n_players)]
    g.blockade_holder = [-1] * len(course.blockades)
    tokens = g.rng.shuffled(list(CAVE_TOKENS))
    g.cave_tokens = [tokens[4 * i : 4 * i + 4] for i in range(len(course.caves))]
    g.caves_used = []
    g.turn, g.turns_taken = 0, [0] * n_players
    g.ending = g.done = g.truncated = False
    g.winners, g.rewards = [], [0.0] * n_players
    g.stats = [[0] * len(STAT_NAMES) for _ in range(n_players)]
    for p in range(n_players):
        _draw(g, p, C.HAND_SIZE)
    return g


def play_seed_of(seed: int) -> int:
    """The seed of the play generator (deck shuffles) of the game started from ``seed``."""
    return derive_seed(seed, "cityofgold-play")


# --------------------------------------------------------------------------- legality ---
def _target(g: Game, cell: int, d: int) -> tuple[int, int, int, int]:
    """(target cell, blockade index or -1, requirement kind, amount) of a move; kind NO_REQ if impassable."""
    n = NEIGHBORS[cell][d]
    if n < 0 or g.course.req_kind[n] == NO_REQ:
        return n, -1, NO_REQ, 0
    b = g.gate.get(cell * 6 + d, -1)
    if b >= 0 and g.blockade_holder[b] < 0:
        blk = g.course.blockades[b]
        return n, b, blk.kind, blk.amount
    return n, -1, g.course.req_kind[n], g.course.req_amount[n]


def _can_pay(g: Game, kind: int, amount: int) -> bool:
    if kind == NO_REQ:
        return False
    if kind <= COIN:
        return g.res[kind - 1] >= amount
    return sum(g.hand()) >= amount


def move_reason(g: Game, pawn: int, d: int, free: bool = False) -> str | None:
    """None if pawn ``pawn`` of the player to act may move in direction ``d``, else why not."""
    if pawn >= g.n_pawns:
        return f"there is no pawn {pawn} with {g.n_players} players"
    cell = g.pawns[g.player][pawn]
    if cell == ARRIVED:
        return "that pawn has already reached El Dorado"
    n, b, kind, amount = _target(g, cell, d)
    if kind == NO_REQ:
        return "that hex cannot be entered (mountain, start or off the map)"
    if b < 0 and n in g.occupied():
        return "that hex is occupied"
    if not free and not _can_pay(g, kind, amount):
        what = "cards in hand" if kind >= REQ_DISCARD else REQ_NAMES[kind]
        return f"{'the blockade' if b >= 0 else 'that hex'} needs {amount} {what}"
    return None


def legal_mask(g: Game) -> list[bool]:
    """Which of the ``N_ACTIONS`` flat actions are legal now."""
    mask = [False] * N_ACTIONS
    if g.done:
        return mask
    hand = g.hand()
    phase = g.phase
    if phase == Phase.MOVEMENT:
        for k in range(C.N_CARDS):
            if hand[k]:
                mask[PLAY + k] = C.HAS_RESOURCES[k]
                mask[SPECIAL + k] = C.SPECIAL[k] != C.SPECIAL_NONE
        _mask_moves(g, mask, free=False)
        mask[PASS] = True
    elif phase == Phase.BUYING:
        money = g.money2
        for k in range(C.N_CARDS):
            if hand[k]:
                mask[PLAY + k] = mask[DISCARD + k] = True
        reserve_open = sum(g.market) < C.MARKET_SLOTS
        for s in range(C.N_SHOP):
            if g.shop[s] and (g.market[s] or reserve_open):
                mask[SHOP + s] = 2 * C.COST[C.SHOP_CARDS[s]] <= money
        mask[PASS] = True
    elif phase == Phase.TRANSMIT:
        for s in range(C.N_SHOP):
            mask[SHOP + s] = g.shop[s] > 0
        mask[PASS] = True
    elif phase == Phase.NATIVE:
        _mask_moves(g, mask, free=True)
        mask[PASS] = True
    elif phase in (Phase.REMOVE, Phase.PAY_REMOVE, Phase.PAY_DISCARD):
        base = DISCARD if phase == Phase.PAY_DISCARD else REMOVE
        for k in range(C.N_CARDS):
            mask[base + k] = hand[k] > 0
        mask[PASS] = phase == Phase.REMOVE
    return mask


def _mask_moves(g: Game, mask: list[bool], free: bool) -> None:
    occupied = g.occupied()
    for pawn, cell in enumerate(g.pawns[g.player]):
        if cell == ARRIVED:
            continue
        for d in range(6):
            n, b, kind, amount = _target(g, cell, d)
            if kind != NO_REQ and (b >= 0 or n not in occupied) and (free or _can_pay(g, kind, amount)):
                mask[MOVE + 6 * pawn + d] = True


def legal_actions(g: Game) -> list[int]:
    return list(compress(range(N_ACTIONS), legal_mask(g)))


def buyable(g: Game, s: int) -> bool:
    """Market cards while every market stack has copies; once one is empty, any card in stock."""
    if g.shop[s] == 0:
        return False
    return g.market[s] or sum(g.market) < C.MARKET_SLOTS


def why_illegal(g: Game, action: int) -> str:
    """A clear reason an illegal action is refused."""
    action = int(action) if isinstance(action, Integral) else action
    if not isinstance(action, int) or not 0 <= action < N_ACTIONS:
        return f"action must be an int in 0..{N_ACTIONS - 1}, got {action!r}"
    if g.done:
        return "the game is over"
    kind, arg = action_kind(action)
    phase = Phase(g.phase).name.lower()
    name = C.NAMES[arg] if kind in ("play", "special", "remove", "discard") else ""
    if kind in ("play", "special", "remove", "discard") and not g.hand()[arg]:
        return f"no {name} in hand"
    if kind == "move" and g.phase in (Phase.MOVEMENT, Phase.NATIVE):
        reason = move_reason(g, arg // 6, arg % 6, free=g.phase == Phase.NATIVE)
        if reason:
            return reason
    if kind == "shop":
        card = C.NAMES[C.SHOP_CARDS[arg]]
        if g.shop[arg] == 0:
            return f"no {card} left in the shop"
        if g.phase == Phase.BUYING and not buyable(g, arg):
            return f"{card} is in the reserve; it can be bought only once a market stack is empty"
        if g.phase == Phase.BUYING:
            return f"{card} costs {C.COST[C.SHOP_CARDS[arg]]}, you have {g.money2 / 2:g}"
    if kind == "play" and g.phase == Phase.MOVEMENT:
        return f"{name} has no resources to move with (play its special action instead)"
    if kind == "special" and C.SPECIAL[arg] == C.SPECIAL_NONE:
        return f"{name} has no special action"
    return f"{kind} is not allowed in the {phase} phase"


# ---------------------------------------------------------------------------- stepping ---
def step(g: Game, action: int, validate: bool = True) -> None:
    """Apply one flat action in place. With ``validate`` (the default) an illegal action raises
    :class:`IllegalActionError` and changes nothing; ``validate=False`` is the trusted fast path.
    Numpy integers are accepted like ints (what samplers and array code hand over)."""
    if isinstance(action, Integral):
        action = int(action)
    if validate and (not isinstance(action, int) or not 0 <= action < N_ACTIONS or not legal_mask(g)[action]):
        raise IllegalActionError(why_illegal(g, action))
    p = g.player
    g.stats[p][_ST["steps_taken"]] += 1
    zones = g.zones[p]
    hand = zones[HAND]
    if action < SPECIAL:
        _play(g, action - PLAY)
    elif action < MOVE:
        _special(g, action - SPECIAL)
    elif action < SHOP:
        a = action - MOVE
        _move(g, a // 6, a % 6, free=g.phase == Phase.NATIVE)
    elif action < REMOVE:
        _take_from_shop(g, action - SHOP)
    elif action < DISCARD:
        k = action - REMOVE
        hand[k] -= 1
        g.removed[k] += 1
        g.stats[p][_ST["cards_removed"]] += 1
        _paid_one(g)
    elif action < PASS:
        k = action - DISCARD
        hand[k] -= 1
        zones[DISCARD_PILE][k] += 1
        if g.phase == Phase.PAY_DISCARD:
            _paid_one(g)
    else:
        _pass(g)


def _retire_active(g: Game, used: bool) -> None:
    """Move the card whose resources are current out of the active zone (removed if single use)."""
    zones = g.zones[g.player]
    for k, n in enumerate(zones[ACTIVE]):
        if n:
            zones[ACTIVE][k] -= 1
            if used and C.SINGLE_USE[k]:
                g.removed[k] += 1
                g.stats[g.player][_ST["cards_removed"]] += 1
            else:
                zones[PLAYED][k] += 1


def _play(g: Game, k: int) -> None:
    zones = g.zones[g.player]
    zones[HAND][k] -= 1
    g.stats[g.player][_ST["n_card_uses"]] += 1
    if g.phase == Phase.MOVEMENT:
        _retire_active(g, used=False)
        zones[ACTIVE][k] += 1
        g.res = list(C.RESOURCES[k])
    else:  # buying: money
        g.money2 += C.MONEY2[k]
        if C.SINGLE_USE[k]:
            g.removed[k] += 1
            g.stats[g.player][_ST["cards_removed"]] += 1
        else:
            zones[PLAYED][k] += 1


def _special(g: Game, k: int) -> None:
    p = g.player
    zones = g.zones[p]
    _retire_active(g, used=False)
    g.res = [0, 0, 0]
    zones[HAND][k] -= 1
    g.stats[p][_ST["n_card_uses"]] += 1
    if C.SINGLE_USE[k]:
        g.removed[k] += 1
        g.stats[p][_ST["cards_removed"]] += 1
    else:
        zones[PLAYED][k] += 1
    kind = C.SPECIAL[k]
    if kind == C.SPECIAL_TRANSMIT:
        g.phase = Phase.TRANSMIT
    elif kind == C.SPECIAL_NATIVE:
        g.phase = Phase.NATIVE
    else:
        _draw(g, p, C.DRAW[k])
        if C.REMOVE[k] and sum(zones[HAND]):
            g.phase, g.pending = Phase.REMOVE, C.REMOVE[k]


def _move(g: Game, pawn: int, d: int, free: bool) -> None:
    p = g.player
    cell = g.pawns[p][pawn]
    n, b, kind, amount = _target(g, cell, d)
    g.phase = Phase.MOVEMENT
    if not free and kind <= COIN:
        used_card = sum(g.zones[p][ACTIVE]) > 0
        left = g.res[kind - 1] - amount
        g.res = [0, 0, 0]
        g.res[kind - 1] = left
        _retire_active(g, used=used_card)
        g.stats[p][_ST["n_machete_uses"] + kind - 1] += 1
    elif not free:  # rubble / basecamp / grey or red blockade: pay with hand cards next
        _retire_active(g, used=False)
        g.res = [0, 0, 0]
        g.phase = Phase.PAY_DISCARD if kind == REQ_DISCARD else Phase.PAY_REMOVE
        g.pending = amount
    if b >= 0:
        g.blockade_holder[b] = p
        g.stats[p][_ST["blockades"]] += 1
        return
    g.stats[p][_ST["travelled_hexes"]] += 1
    if g.course.terrain[n] == FINISH:
        g.pawns[p][pawn] = ARRIVED
        if g.arrived(p):
            g.ending = True
            _end_turn(g)
        return
    g.pawns[p][pawn] = n
    if g.course.caves:
        _visit_caves(g, n)


def _visit_caves(g: Game, cell: int) -> None:
    """Caves variant: a pawn stopping next to a cave takes the top token of one such cave (each cave
    at most once per turn). Resource tokens replace the current resources; draw tokens draw."""
    for i, cave in enumerate(g.course.caves):
        if cave in NEIGHBORS[cell] and g.cave_tokens[i] and i not in g.caves_used:
            g.caves_used.append(i)
            kind, amount = g.cave_tokens[i].pop()
            g.stats[g.player][_ST["cave_tokens"]] += 1
            if kind < 0:
                _draw(g, g.player, amount)
            else:
                _retire_active(g, used=False)
                g.res = [0, 0, 0]
                g.res[kind - 1] = amount
            return


def _take_from_shop(g: Game, s: int) -> None:
    p = g.player
    card = C.SHOP_CARDS[s]
    g.shop[s] -= 1
    g.zones[p][DISCARD_PILE][card] += 1
    g.stats[p][_ST["cards_added"]] += 1
    if g.phase == Phase.TRANSMIT:
        if g.shop[s] == 0:
            g.market[s] = False
        g.phase = Phase.MOVEMENT
        return
    if not g.market[s]:
        g.market[s] = True  # a reserve card fills the free market slot
    if g.shop[s] == 0:
        g.market[s] = False
    _end_turn(g)


def _paid_one(g: Game) -> None:
    g.pending -= 1
    if g.pending <= 0 or not sum(g.hand()):
        g.pending = 0
        g.phase = Phase.MOVEMENT


def _pass(g: Game) -> None:
    if g.phase == Phase.MOVEMENT:
        _retire_active(g, used=False)
        g.res = [0, 0, 0]
        g.money2 = 0
        g.phase = Phase.BUYING
    elif g.phase == Phase.BUYING:
        _end_turn(g)
    else:  # leave a special early
        g.pending = 0
        g.phase = Phase.MOVEMENT


def _draw(g: Game, p: int, n: int) -> None:
    """Draw ``n`` cards; an empty draw pile is refilled by shuffling in the discard pile."""
    zones = g.zones[p]
    draw, hand = zones[DRAW_PILE], zones[HAND]
    for _ in range(n):
        total = sum(draw)
        if total == 0:
            discard = zones[DISCARD_PILE]
            total = sum(discard)
            if total == 0:
                return
            for k in range(C.N_CARDS):
                draw[k] += discard[k]
                discard[k] = 0
        pick = g.rng.randbelow(total)
        for k in range(C.N_CARDS):
            pick -= draw[k]
            if pick < 0:
                draw[k] -= 1
                hand[k] += 1
                break


def _end_turn(g: Game) -> None:
    p = g.player
    zones = g.zones[p]
    for z in (ACTIVE, PLAYED):
        for k in range(C.N_CARDS):
            zones[DISCARD_PILE][k] += zones[z][k]
            zones[z][k] = 0
    _draw(g, p, max(0, C.HAND_SIZE - sum(zones[HAND])))
    g.res, g.money2, g.pending, g.caves_used = [0, 0, 0], 0, 0, []
    g.turn += 1
    g.turns_taken[p] += 1
    g.player = (p + 1) % g.n_players
    g.phase = Phase.MOVEMENT
    if g.ending and g.player == 0:
        _finish(g)
    elif g.turn >= g.max_turns and not g.ending:
        g.done = g.truncated = True
        g.phase = Phase.DONE


def _finish(g: Game) -> None:
    """End of the final round: arrivers with most blockades win; zero-sum rewards n - k / -k."""
    arrivers = [p for p in range(g.n_players) if g.arrived(p)]
    best = max(g.stats[p][_ST["blockades"]] for p in arrivers)
    g.winners = [p for p in arrivers if g.stats[p][_ST["blockades"]] == best]
    k = len(g.winners)
    g.rewards = [float(g.n_players - k if p in g.winners else -k) for p in range(g.n_players)]
    g.done = True
    g.phase = Phase.DONE
