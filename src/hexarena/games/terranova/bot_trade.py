"""The heuristic bot's diplomacy: make peace rather than fight wars it is not clearly winning.

Kept apart from :mod:`.bot` (which only adds its result to the plan) so the bot's military and
economic play can change without touching this. Without it every war between bots would last to
the end of the game (stage-2 games ended with all fifteen pairs at war).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from hexarena.games.terranova.tables import load_tables
from hexarena.games.terranova.trade import PEACE

WINNING_RATIO = 2.0  # keep fighting only with this many times the enemy's units in sight


def peace_plan(obs: dict[str, Any], me: int) -> dict[str, Any]:
    """The sparse trade order: accept every offer of peace for peace; offer peace to the enemy with
    the most units in sight, unless we have ``WINNING_RATIO`` times its units in sight (or none
    of its units is in sight but ours are many: then we are not losing either)."""
    tb = load_tables()
    kinds = np.asarray(obs["units"]["unit_type"])
    military = (kinds > 0) & (tb.unit_strength[np.maximum(kinds, 0)] > 0)
    ours = int(military[me].sum())
    war = np.flatnonzero(np.asarray(obs["at_war"])[me])
    offers = np.asarray(obs["trade_offers"])  # (ask, offer) per sender, -1 none
    accept = [int(q) for q in np.flatnonzero((offers[:, 0] == PEACE) & (offers[:, 1] == PEACE))]
    plan: dict[str, Any] = {"accept": accept} if accept else {}
    seen = {int(q): int(military[q].sum()) for q in war if q not in accept}
    losing = [q for q, n in seen.items() if ours < WINNING_RATIO * max(n, 1)]
    if losing:
        plan.update(to=sorted(losing, key=lambda q: -seen[q]), ask=["peace"], offer=["peace"])
    return plan
