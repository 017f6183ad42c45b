"""Plain-int codes shared by the batched engines (numba and JAX): card table columns, phases, zones,
requirement kinds, statistic columns, and the batch conversion of five-head actions. Nothing here
needs numba, so the JAX backend runs without it."""

from __future__ import annotations

import numpy as np

from hexarena.games.cityofgold import cards as C
from hexarena.games.cityofgold.actions import DISCARD, MOVE_HEAD, N_ACTIONS, PASS, PLAY, REMOVE, SHOP, SPECIAL

# Card table columns (one row per card id).
(M, P, COIN_, MONEY2, COST, SU, SPEC, DRAWN, REMOVES, HASRES, STARTER) = range(11)
# Phases (as :class:`..engine.Phase`), zones, requirement kinds and stat columns.
MOVEMENT, BUYING, TRANSMIT, REMOVING, NATIVE, PAY_DISCARD, PAY_REMOVE, DONE = range(1, 9)
DRAW_Z, HAND_Z, ACTIVE_Z, PLAYED_Z, DISCARD_Z = range(5)
NO_REQ, COIN, REQ_DISCARD = 0, 3, 4
ST_STEPS, ST_HEXES, ST_ADDED, ST_REMOVED, ST_USES, ST_MACHETE, _, _, ST_BLOCKADES, _ = range(10)
ARRIVED = -1


def card_table() -> np.ndarray:
    """The card data as an int64 [21, 11] table (columns named at the top of this module)."""
    columns = (C.MONEY2, C.COST, C.SINGLE_USE, C.SPECIAL, C.DRAW, C.REMOVE, C.HAS_RESOURCES, C.STARTER_DECK)
    return np.array([(*C.RESOURCES[k], *(col[k] for col in columns)) for k in range(C.N_CARDS)], np.int64)


def shop_table() -> np.ndarray:
    """int64 [18, 3]: card id, in the starting market, copies."""
    return np.array([(C.SHOP_CARDS[s], C.START_MARKET[s], C.COPIES) for s in range(C.N_SHOP)], np.int64)


def heads_to_flat_batch(actions: np.ndarray, phases: np.ndarray) -> np.ndarray:
    """:func:`..actions.heads_to_flat` over a batch of five-head records (vectorised)."""
    removal = np.where((phases == PAY_DISCARD) | (phases == BUYING), DISCARD, REMOVE)
    out = np.full(len(actions), PASS, np.int32)
    moves = np.array((PASS, *MOVE_HEAD, N_ACTIONS), np.int32)  # past 12: refused as out of range
    for head, base in (
        ("remove", removal),
        ("get_from_shop", SHOP),
        ("move", None),
        ("play_special", SPECIAL),
        ("play", PLAY),
    ):  # lowest precedence first, so higher heads overwrite
        v = actions[head].astype(np.int32)
        flat = moves[np.minimum(v, 13)] if base is None else base + v - 1
        out = np.where(v > 0, flat, out)
    return out.astype(np.int32)
