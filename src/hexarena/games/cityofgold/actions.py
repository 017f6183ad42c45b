"""The flat discrete action space of City of Gold, the phases, and the 0.0.3 five-head form.

Flat layout (``N_ACTIONS = 115``); ``k`` is a card id 0-20, ``s`` a shop index 0-17::

    [  0,  21)  PLAY     + k        play card k for its resources (movement) or money (buying)
    [ 21,  42)  SPECIAL  + k        play card k's special action
    [ 42,  54)  MOVE     + 6p + d   move pawn p (0/1) one hex in direction d
                                    (hexgrid order E, NE, NW, W, SW, SE); across a standing
                                    blockade this opens it instead and the pawn stays
    [ 54,  72)  SHOP     + s        buy shop card s (buying) or take it free (transmitter)
    [ 72,  93)  REMOVE   + k        remove hand card k from the game (special or basecamp)
    [ 93, 114)  DISCARD  + k        discard hand card k (rubble payment or end-of-turn discard)
    114         PASS                end the phase or the pending special

The 0.0.3 five-head form has heads ``play``, ``play_special``, ``remove``, ``move`` and
``get_from_shop`` (0 = none, else index + 1), resolved with the precedence
play > play_special > move > get_from_shop > remove > null. Its ``remove`` head stands for the
flat DISCARD actions while a discard is what the phase asks for; ``move`` has 13 entries
(1-6 pawn 0, 7-12 pawn 1; the second pawn exists only in 2-player games) in 0.0.3's direction
order E, NE, NW, W, SW, SE = (+1,0), (0,+1), (-1,+1), (-1,0), (0,-1), (+1,-1), which is not
hexgrid's: ``MOVE_HEAD`` maps each head entry to its flat move, so a script written for 0.0.3
walks the same way here.
"""

from __future__ import annotations

from enum import IntEnum

from hexarena.games.cityofgold.cards import N_CARDS, N_SHOP

PLAY = 0
SPECIAL = PLAY + N_CARDS
MOVE = SPECIAL + N_CARDS
SHOP = MOVE + 12
REMOVE = SHOP + N_SHOP
DISCARD = REMOVE + N_CARDS
PASS = DISCARD + N_CARDS
N_ACTIONS = PASS + 1

#: 0.0.3's direction d (its head value d + 1) as a hexgrid direction: the same six offsets, the
#: second to sixth in reverse order (the order maps onto itself, so it also converts back).
DIRECTION_0_0_3 = (0, 5, 4, 3, 2, 1)
#: Flat move action of each ``move`` head entry 1-12 (index 0 here is head value 1).
MOVE_HEAD = tuple(MOVE + 6 * (j // 6) + DIRECTION_0_0_3[j % 6] for j in range(12))

HEADS = ("play", "play_special", "remove", "move", "get_from_shop")
HEAD_SIZES = {
    "play": N_CARDS + 1,
    "play_special": N_CARDS + 1,
    "remove": N_CARDS + 1,
    "move": 13,
    "get_from_shop": N_SHOP + 1,
}


class Phase(IntEnum):
    """What the player to act is doing. 0 is unused (0.0.3's INACTIVE)."""

    INACTIVE = 0
    MOVEMENT = 1
    BUYING = 2
    TRANSMIT = 3  # Transmitter: take one shop card free, or pass
    REMOVE = 4  # Scientist / Travel Log: remove hand cards, or pass
    NATIVE = 5  # Native: move a pawn ignoring the requirement, or pass
    PAY_DISCARD = 6  # rubble or a grey blockade: discard n hand cards (forced)
    PAY_REMOVE = 7  # basecamp or a red blockade: remove n hand cards (forced)
    DONE = 8


def action_kind(action: int) -> tuple[str, int]:
    """``(kind, argument)`` of a flat action, e.g. ``("move", 7)`` for pawn 1 going E."""
    if not 0 <= action < N_ACTIONS:
        raise ValueError(f"action {action!r} is outside 0..{N_ACTIONS - 1}")
    for kind, base, size in _RANGES:
        if base <= action < base + size:
            return kind, action - base
    return "pass", 0


_RANGES = (
    ("play", PLAY, N_CARDS),
    ("special", SPECIAL, N_CARDS),
    ("move", MOVE, 12),
    ("shop", SHOP, N_SHOP),
    ("remove", REMOVE, N_CARDS),
    ("discard", DISCARD, N_CARDS),
)


def flat_to_heads(action: int) -> dict[str, int]:
    """The five-head form of a flat action (all heads 0 means PASS)."""
    heads = dict.fromkeys(HEADS, 0)
    kind, arg = action_kind(action)
    key = {"play": "play", "special": "play_special", "shop": "get_from_shop"}.get(kind)
    if kind == "move":
        heads["move"] = MOVE_HEAD.index(action) + 1
    elif key is not None:
        heads[key] = arg + 1
    elif kind in ("remove", "discard"):
        heads["remove"] = arg + 1
    return heads


def heads_to_flat(heads: dict[str, int], phase: int) -> int:
    """The flat action of a five-head action, given the phase (precedence rule of 0.0.3)."""
    if heads.get("play", 0):
        return PLAY + heads["play"] - 1
    if heads.get("play_special", 0):
        return SPECIAL + heads["play_special"] - 1
    if heads.get("move", 0):  # out of 1..12: N_ACTIONS, which every step refuses
        return MOVE_HEAD[heads["move"] - 1] if 1 <= heads["move"] <= 12 else N_ACTIONS
    if heads.get("get_from_shop", 0):
        return SHOP + heads["get_from_shop"] - 1
    if heads.get("remove", 0):
        base = DISCARD if phase in (Phase.PAY_DISCARD, Phase.BUYING) else REMOVE
        return base + heads["remove"] - 1
    return PASS
