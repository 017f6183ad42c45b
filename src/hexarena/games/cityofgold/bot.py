"""A heuristic City of Gold player: races along the cheapest path, buys cards that fit the course.

It plans with a cost-weighted distance to El Dorado (bigger requirements, rubble, basecamps,
standing blockades and hexes held by other pawns cost more), plays the hand card that carries a
pawn furthest along that plan, uses draw and Native specials when they help, buys the card whose
resources best match the terrain still ahead, spends or discards cards that cannot move it next
turn (so its deck keeps cycling), and thins its deck a little when a special or basecamp lets it.
"""

from __future__ import annotations

import heapq

from hexarena.core.contract import GameState
from hexarena.core.players import Player, Reply
from hexarena.games.cityofgold import cards as C
from hexarena.games.cityofgold.actions import DISCARD, MOVE, PASS, PLAY, REMOVE, SHOP, SPECIAL, Phase
from hexarena.games.cityofgold.board import COIN, FINISH, N_CELLS, NEIGHBORS, Course
from hexarena.games.cityofgold.board import DISCARD as REQ_DISCARD
from hexarena.games.cityofgold.engine import ARRIVED, Game, buyable, legal_mask

_SPECIAL_VALUE = {"Native": 2.6, "Cartographer": 1.8, "Scientist": 1.7, "Compass": 1.4, "Travel Log": 1.4}
_THIN_ORDER = (C.card_id("Traveler"), C.card_id("Explorer"), C.card_id("Sailor"))
MIN_DECK = 8
OCCUPIED_PENALTY = 4.0
_PLANS: dict[int, tuple[Course, tuple, list[float]]] = {}
UNREACHABLE = float("inf")


def hex_cost(course: Course, cell: int) -> float:
    """What entering a hex is worth avoiding: big amounts need big cards, cards paid are lost."""
    kind, amount = course.req_kind[cell], course.req_amount[cell]
    if course.terrain[cell] == FINISH:
        return 1.0
    if kind <= COIN:
        return amount + 0.5 * (amount - 1)
    return 1.0 + amount * (1.0 if kind == REQ_DISCARD else 1.5)


def plan(g: Game) -> list[float]:
    """Cost-weighted distance to El Dorado from every cell for the player to act (cached per turn)."""
    own = set(g.pawns[g.player])
    others = frozenset(c for c in g.occupied() if c not in own)
    key = (others, tuple(h < 0 for h in g.blockade_holder))
    hit = _PLANS.get(id(g.course))
    if hit is not None and hit[0] is g.course and hit[1] == key:
        return hit[2]
    course = g.course
    dist = [UNREACHABLE] * N_CELLS
    heap = [(0.0, f) for f in course.finishes]
    for f in course.finishes:
        dist[f] = 0.0
    while heap:
        d, h = heapq.heappop(heap)
        if d > dist[h] or not course.passable(h):
            continue
        enter = hex_cost(course, h) + (OCCUPIED_PENALTY if h in others else 0.0)
        for direction, c in enumerate(NEIGHBORS[h]):
            if c < 0 or not (course.passable(c) or c in course.starts):
                continue
            b = g.gate.get(h * 6 + direction, -1)
            gate = course.blockades[b].amount + 1.0 if b >= 0 and g.blockade_holder[b] < 0 else 0.0
            cand = d + enter + gate
            if cand < dist[c]:
                dist[c] = cand
                heapq.heappush(heap, (cand, c))
    if len(_PLANS) > 64:
        _PLANS.clear()
    _PLANS[id(course)] = (course, key, dist)
    return dist


def _step_cost(g: Game, cell: int, d: int) -> tuple[int, int, int, bool]:
    """(target, requirement kind, amount, is a blockade) of a move."""
    n = NEIGHBORS[cell][d]
    b = g.gate.get(cell * 6 + d, -1)
    if b >= 0 and g.blockade_holder[b] < 0:
        blk = g.course.blockades[b]
        return n, blk.kind, blk.amount, True
    return n, g.course.req_kind[n], g.course.req_amount[n], False


def run_length(g: Game, cell: int, res: list[int], dist: list[float], occupied: set[int]) -> int:
    """How many steps closer a pawn gets by greedy moves paid from ``res`` alone."""
    res = res[:]
    gained = 0
    for _ in range(12):
        best = None
        for d, n in enumerate(NEIGHBORS[cell]):
            if n < 0 or dist[n] >= dist[cell] or n in occupied:
                continue
            _, kind, amount, blocked = _step_cost(g, cell, d)
            if kind and kind <= COIN and res[kind - 1] >= amount and (best is None or dist[n] < best[0]):
                best = (dist[n], n, kind, amount, blocked)
        if best is None:
            return gained
        _, n, kind, amount, blocked = best
        left = res[kind - 1] - amount
        res = [0, 0, 0]
        res[kind - 1] = left
        if not blocked:
            cell = n
        gained += 1
    return gained


def _terrain_ahead(g: Game, dist: list[float]) -> list[float]:
    """Share of machete / paddle / coin among the hexes still ahead of the trailing pawn."""
    mine = [c for c in g.pawns[g.player] if c != ARRIVED]
    limit = max((dist[c] for c in mine), default=0.0)
    counts = [1.0, 1.0, 1.0]
    for cell in g.course.cells():
        kind = g.course.req_kind[cell]
        if kind and kind <= COIN and dist[cell] < limit:
            counts[kind - 1] += g.course.req_amount[cell]
    total = sum(counts)
    return [c / total for c in counts]


def card_value(card: int, ahead: list[float]) -> float:
    """How much a card helps the race (about 1 for a starting card)."""
    name = C.NAMES[card]
    if name in _SPECIAL_VALUE:
        return _SPECIAL_VALUE[name]
    if C.IS_JOKER[card]:
        value = C.RESOURCES[card][0] * 1.1
    else:
        value = sum(r * 3 * share for r, share in zip(C.RESOURCES[card], ahead, strict=True))
    if C.RESOURCES[card][2] and not C.IS_JOKER[card]:
        value = max(value, 0.5 * C.RESOURCES[card][2])  # money to buy better cards
    return value * (0.6 if C.SINGLE_USE[card] else 1.0)


def choose_action(g: Game) -> int:
    """The heuristic's flat action for the player to act."""
    mask = legal_mask(g)
    dist = plan(g)
    phase = g.phase
    if phase == Phase.MOVEMENT:
        return _movement(g, mask, dist)
    if phase == Phase.NATIVE:
        return _best_move(g, mask, dist, free=True) or PASS
    if phase == Phase.BUYING:
        return _buying(g, mask, dist)
    ahead = _terrain_ahead(g, dist)
    if phase == Phase.TRANSMIT:
        options = [s for s in range(C.N_SHOP) if mask[SHOP + s]]
        return SHOP + max(options, key=lambda s: card_value(C.SHOP_CARDS[s], ahead)) if options else PASS
    worst = _worst_card(g.hand(), ahead)
    if phase == Phase.REMOVE and (worst is None or sum(sum(z) for z in g.zones[g.player]) <= MIN_DECK):
        return PASS
    return (DISCARD if phase == Phase.PAY_DISCARD else REMOVE) + worst if worst is not None else PASS


def _worst_card(hand: list[int], ahead: list[float]) -> int | None:
    held = [k for k in range(C.N_CARDS) if hand[k]]
    if not held:
        return None
    return min(held, key=lambda k: (card_value(k, ahead), _THIN_ORDER.index(k) if k in _THIN_ORDER else 9))


def _best_move(g: Game, mask: list[bool], dist: list[float], free: bool = False) -> int | None:
    """The legal move that gets closest to El Dorado by the plan, if any gets closer."""
    best, best_d = None, None
    for pawn, cell in enumerate(g.pawns[g.player]):
        if cell == ARRIVED:
            continue
        for d in range(6):
            a = MOVE + 6 * pawn + d
            n = NEIGHBORS[cell][d]
            if not mask[a] or dist[n] >= dist[cell]:
                continue
            kind = _step_cost(g, cell, d)[1]
            if not free and kind > COIN and sum(g.hand()) < 2:
                continue
            if best_d is None or dist[n] < best_d:
                best, best_d = a, dist[n]
    return best


def _movement(g: Game, mask: list[bool], dist: list[float]) -> int:
    for k in range(C.N_CARDS):  # draw specials first: more cards, more options
        if mask[SPECIAL + k] and C.SPECIAL[k] == C.SPECIAL_DRAW:
            return SPECIAL + k
    move = _best_move(g, mask, dist)
    if move is not None:
        return move
    occupied = g.occupied()
    pawns = [c for c in g.pawns[g.player] if c != ARRIVED]
    best, best_gain = None, 0
    for k in range(C.N_CARDS):
        if not mask[PLAY + k]:
            continue
        gain = max((run_length(g, c, list(C.RESOURCES[k]), dist, occupied - {c}) for c in pawns), default=0)
        # prefer the card that goes furthest, then the cheapest one for the distance
        if gain > best_gain or (gain == best_gain and gain and best is not None and C.COST[k] < C.COST[best]):
            best, best_gain = k, gain
    if best is not None:
        return PLAY + best
    for name in ("Native", "Transmitter"):
        k = C.card_id(name)
        if mask[SPECIAL + k]:
            return SPECIAL + k
    return PASS


def _buying(g: Game, mask: list[bool], dist: list[float]) -> int:
    """Spend cards that cannot move us next turn first (they cycle the deck), then buy or pass."""
    hand = g.hand()
    ahead = _terrain_ahead(g, dist)
    occupied = g.occupied()
    pawns = [c for c in g.pawns[g.player] if c != ARRIVED]
    useless = [
        k
        for k in range(C.N_CARDS)
        if hand[k]
        and C.HAS_RESOURCES[k]
        and not any(run_length(g, c, list(C.RESOURCES[k]), dist, occupied - {c}) for c in pawns)
    ]
    potential = g.money2 + sum(C.MONEY2[k] * hand[k] for k in range(C.N_CARDS) if C.HAS_RESOURCES[k])
    wanted = [
        s
        for s in range(C.N_SHOP)
        if buyable(g, s)
        and 2 * C.COST[C.SHOP_CARDS[s]] <= potential
        and card_value(C.SHOP_CARDS[s], ahead) >= 1.4
    ]
    if useless:
        return (PLAY if wanted else DISCARD) + max(useless, key=lambda k: C.MONEY2[k])
    if not wanted:
        return PASS
    target = max(wanted, key=lambda s: (card_value(C.SHOP_CARDS[s], ahead), -C.COST[C.SHOP_CARDS[s]]))
    if mask[SHOP + target]:
        return SHOP + target
    payers = [k for k in range(C.N_CARDS) if hand[k] and C.HAS_RESOURCES[k]]
    return PLAY + max(payers, key=lambda k: C.MONEY2[k]) if payers else PASS


class HeuristicPlayer(Player):
    """Plays :func:`choose_action` on its view of the game."""

    kind = "heuristic"

    def act(self, view: GameState) -> Reply:
        action = choose_action(view.environment.game)
        return Reply(move=view.format_move(action))
