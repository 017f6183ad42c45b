"""What happened since a player's last turn: contacts, wars, peace, deals, cities founded or lost,
wonders.

After every move the adapter notes a few public facts (:class:`Facts`) for the player who moved;
when that player's turn comes again, :func:`news` compares them with the facts of now and says
what changed, limited to what the player can know: its own contacts and wars, cities on tiles it
has seen, and world wonders (announced to everyone, as in Civilization).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from hexarena.games.terranova.contract.text.trade import item_text
from hexarena.games.terranova.engine.geometry import tile_text
from hexarena.games.terranova.engine.state import GameState
from hexarena.games.terranova.engine.tables import ROLES, load_tables


class Facts(NamedTuple):
    met: np.ndarray  # (6, 18) bool: Players.have_met, players 0-5 then city states 0-11
    at_war: np.ndarray  # (6, 6) bool
    city_pos: np.ndarray  # (6, 10) int tile, -1 none
    wonders: np.ndarray  # (6, 148) bool: world wonders each player owns
    offers: np.ndarray | None = None  # (6, 6, 2) trade offers out: [from, to] = (offered, asked)
    deals: np.ndarray | None = None  # (6, 6) deals running in [p]'s ledger with [q]


def facts_of(state: GameState) -> Facts:
    """The public facts of ``state``; contacts are the engine's sticky ``have_met`` (the same
    contacts that trade, congress and city states go by)."""
    tb = load_tables()
    exists = np.asarray(state.cities.exists)
    world = tb.building_kind == 1
    return Facts(
        met=np.asarray(state.players.have_met).copy(),
        at_war=np.asarray(state.players.at_war).copy(),
        city_pos=np.where(exists, np.asarray(state.cities.pos), -1),
        wonders=np.asarray(state.cities.buildings).any(1) & world[None, :],
        offers=np.asarray(state.trade.offers).copy(),
        deals=(np.asarray(state.trade.ledger) > 0).any(-1).sum(-1),
    )


def news(before: Facts | None, now: Facts, me: int, seen: np.ndarray) -> list[str]:
    """Lines about what changed for player ``me`` between ``before`` and ``now``; ``seen`` (H,)
    is True where ``me`` has ever seen the tile."""
    if before is None:
        return []
    tb = load_tables()
    name = lambda q: "you" if q == me else ROLES[q]  # noqa: E731
    out = []
    for q in np.flatnonzero(now.met[me] & ~before.met[me]):
        who = ROLES[q] if q < len(ROLES) else f"city state #{q - len(ROLES)}"
        out.append(f"You met {who}.")
    for q in range(len(ROLES)):
        if q == me or not now.met[me, q]:
            continue
        if now.at_war[me, q] and not before.at_war[me, q]:
            # the facts were taken after this player's own move: the war began on another's turn
            out.append(
                f"War: {ROLES[q]} declared war on you on its turn (its units attacked you or "
                "entered your borders); your units may now attack its units and cities."
            )
        elif before.at_war[me, q] and not now.at_war[me, q]:
            out.append(f"Peace: you are at peace with {ROLES[q]} again.")
    for q in range(len(ROLES)):
        old, new = (
            set(before.city_pos[q][before.city_pos[q] >= 0]),
            set(now.city_pos[q][now.city_pos[q] >= 0]),
        )
        for tile in sorted(new - old):
            taken = [p for p in range(len(ROLES)) if tile in before.city_pos[p]]
            if q == me or seen[tile] or me in taken:
                whose = (
                    "your city"
                    if taken and taken[0] == me
                    else f"the city of {name(taken[0])}"
                    if taken
                    else ""
                )
                verb = f"took {whose}" if taken else "founded a city"
                out.append(f"{name(q).capitalize()} {verb} at {tile_text(tile)}.")
        for tile in sorted(old - new):
            if q == me and not any(tile in now.city_pos[p] for p in range(len(ROLES))):
                out.append(f"Your city at {tile_text(tile)} was destroyed.")
    out += trade_news(before, now, me)
    for q, b in zip(*np.nonzero(now.wonders & ~before.wonders), strict=True):
        if q != me:
            out.append(f"{ROLES[q].capitalize()} completed the world wonder {tb.building_names[b]}.")
    return out


def trade_news(before: Facts, now: Facts, me: int) -> list[str]:
    """Deals offered to ``me`` and deals agreed since its last turn."""
    if now.offers is None or before.deals is None:
        return []
    out = []
    for q in np.flatnonzero(now.offers[:, me, 0] > 0):
        give, ask = (int(x) for x in now.offers[q, me])
        out.append(
            f"Deal offered: {ROLES[q]} offers {item_text(give)} for your {item_text(ask)} "
            f"('accept {ROLES[q]}' or 'deny {ROLES[q]}')."
        )
    for q in np.flatnonzero(now.deals[me] > before.deals[me]):
        out.append(f"Deal agreed with {ROLES[q]} (15 turns; see Trade).")
    return out
