"""The text view's trade section: offers to answer, running deals, what may be offered, caravans.

Built from a player's observation and options only (no hidden state), in the words of the trade
orders (:mod:`.orders`: ``offer blue: 5 gold/turn for peace``, ``accept blue``, ``unit 3 send R,C``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from hexarena.games.terranova.engine.rules.trade import GOLD_PER_TURN, item_names
from hexarena.games.terranova.engine.tables import ROLES, load_tables


def item_text(i: int) -> str:
    """A trade item as the orders write it."""
    return "5 gold/turn" if i == GOLD_PER_TURN else item_names()[i].replace("_", " ")


def trade_section(obs: dict[str, Any], opts: dict[str, Any] | None, me: int) -> list[str]:
    """Lines about trade for player ``me`` (none when there is nothing to say)."""
    lines = []
    offers = np.asarray(obs["trade_offers"])
    for q in np.flatnonzero(offers[:, 0] >= 0):
        ask, give = (int(x) for x in offers[q])
        lines.append(
            f"Offer from {ROLES[q]}: {item_text(give)} for your {item_text(ask)} "
            f"(answer 'accept {ROLES[q]}' or 'deny {ROLES[q]}'; unanswered offers are denied)."
        )
    ledger, left = np.asarray(obs["trade_ledger"]), np.asarray(obs["trade_length_ledger"])
    deals = []
    for q, j in zip(*np.nonzero(ledger[..., 0] >= 0), strict=True):
        give, get = item_text(ledger[q, j, 0]), item_text(ledger[q, j, 1])
        deals.append(f"with {ROLES[q]} you give {give}, get {get} ({left[j]} turns left)")
    if deals:
        gpt = float(obs["trade_gpt_adjustment"])
        res = np.asarray(obs["trade_resource_adjustment"])
        moved = ", ".join(f"{item_names()[4 + r]} {int(res[r]):+d}" for r in np.flatnonzero(res))
        lines.append(
            f"Deals ({len(deals)} of 10): "
            + "; ".join(deals)
            + f". Net {gpt:+.0f} gold per turn"
            + (f"; resources {moved}." if moved else ".")
        )
    partners = np.flatnonzero(opts["trade_partners"]) if opts is not None else []
    if len(partners):
        war = np.asarray(obs["at_war"])[me]
        names = ", ".join(f"{ROLES[q]}{' (at war: peace only)' if war[q] else ''}" for q in partners)
        q = partners[0]
        give = [i for i in np.flatnonzero(opts["trade_offer"][q]) if i > 0][:3] or [0]
        want = [i for i in np.flatnonzero(opts["trade_ask"][q]) if i > 0][:3] or [0]
        lines.append(
            f"You may offer a deal (one a turn) to {names}; to {ROLES[q]} you could give "
            f"{', '.join(item_text(i) for i in give)} and ask {', '.join(item_text(i) for i in want)} "
            f"(e.g. 'offer {ROLES[q]}: {item_text(give[0])} for {item_text(want[0])}')."
        )
    units = obs["units"]
    routes = np.asarray(units["trade_to_player_int"])
    caravans = int((np.asarray(units["unit_type"])[me] == load_tables().unit("caravan")).sum())
    if caravans or routes.max() >= 0:
        active = []
        for slot in np.flatnonzero(routes >= 0):
            to = int(routes[slot])
            where = (
                f"city state #{to - 6}"
                if to >= 6
                else f"{ROLES[to]} city {int(units['trade_to_city_int'][slot])}"
            )
            gain = np.asarray(units["trade_yields"])[slot, 0]
            active.append(f"unit {slot} to {where} (+{gain[2]:.1f} gold, +{gain[5]:.1f} science here)")
        lines.append(
            f"Caravans: {caravans} of {int(obs['num_trade_routes'])} allowed; routes: "
            + ("; ".join(active) if active else "none")
            + ". A caravan in a city can 'unit N send R,C' (a city within 15 tiles) or 'unit N relocate R,C'."
        )
    return lines
