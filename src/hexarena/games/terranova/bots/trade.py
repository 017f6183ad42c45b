"""The heuristic bot's diplomacy: make peace rather than fight wars it is not clearly winning,
take fair deals, and swap embassies with the players it has met.

Kept apart from :mod:`.bot` (which only adds its result to the plan) so the bot's military and
economic play can change without touching this. Without it every war between bots would last to
the end of the game (stage-2 games ended with all fifteen pairs at war).

Deals are judged item by item (:func:`item_worth`): what the bot receives against what it gives,
for the 15 turns a deal runs. Peace is worth the most to a bot that does not plan wars; a luxury
it lacks is worth more than one it has (happiness counts once per luxury) and more than 5 gold a
turn; 5 gold a turn is worth as much as it costs, unless the treasury is thin.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from hexarena.games.terranova.engine.rules.trade import (
    EMBASSY,
    FIRST_RESOURCE,
    GOLD_PER_TURN,
    PEACE,
    item_names,
)
from hexarena.games.terranova.engine.tables import load_tables

WINNING_RATIO = 2.0  # keep fighting only with this many times the enemy's units in sight
PEACE_WORTH = 10.0  # peace received while at war (the bot's wars are ones it did not plan)
EMBASSY_WORTH = 1.0
GOLD_WORTH, THIN_TREASURY = 5.0, 30.0  # 5 gold a turn; giving it from less than 30 gold costs double
# a resource by kind (bonus, strategic, luxury) received when the bot has none of it / has it;
# given: what it costs the bot to hand over a source of it. A luxury is its happiness either way,
# worth more than 5 gold a turn to an empire near zero happiness (each unhappy point slows
# production and growth), so luxuries go for luxuries, not for gold
RESOURCE_NEW = (0.5, 2.0, 6.0)
RESOURCE_HAVE = (0.2, 0.5, 0.5)
RESOURCE_GIVE = (0.3, 1.5, 6.0)


def item_worth(item: int, receiving: bool, obs: dict[str, Any], me: int, at_war: bool) -> float:
    """What ``item`` is worth to ``me`` received (``receiving``) or given, for one deal."""
    if item == PEACE:
        return PEACE_WORTH if at_war else 0.5  # given at peace: it only binds the bot not to attack
    if item == EMBASSY:
        return EMBASSY_WORTH
    if item == GOLD_PER_TURN:
        thin = not receiving and float(np.asarray(obs["treasury"])) < THIN_TREASURY
        return GOLD_WORTH * (2.0 if thin else 1.0)
    if item >= FIRST_RESOURCE:
        kind = int(load_tables().resource_kind[item - FIRST_RESOURCE + 1]) - 1
        if not receiving:
            return RESOURCE_GIVE[kind]
        owned = np.asarray(obs["player_cities"]["resources_owned"])[:, item - FIRST_RESOURCE].any()
        return (RESOURCE_HAVE if owned else RESOURCE_NEW)[kind]
    return 0.0


def is_fair(obs: dict[str, Any], me: int, sender: int) -> bool:
    """Whether the offer ``sender`` made to ``me`` gives at least as much as it asks."""
    ask, give = (int(x) for x in np.asarray(obs["trade_offers"])[sender])
    war = bool(np.asarray(obs["at_war"])[me, sender])
    return item_worth(give, True, obs, me, war) >= item_worth(ask, False, obs, me, war)


def peace_plan(obs: dict[str, Any], me: int, opts: dict[str, Any] | None = None) -> dict[str, Any]:
    """The sparse trade order: accept every fair offer (:func:`is_fair`: peace for peace always;
    an offer not accepted is denied); offer peace to the enemy with the most units in sight, unless we have
    ``WINNING_RATIO`` times its units in sight (or none of its units is in sight but ours are many:
    then we are not losing either); at peace with everyone, offer an embassy for an embassy to
    the first player who may take one (with ``opts``, :mod:`.options`, only where both may)."""
    tb = load_tables()
    kinds = np.asarray(obs["units"]["unit_type"])
    military = (kinds > 0) & (tb.unit_strength[np.maximum(kinds, 0)] > 0)
    ours = int(military[me].sum())
    war = np.flatnonzero(np.asarray(obs["at_war"])[me])
    offers = np.asarray(obs["trade_offers"])  # (ask, offer) per sender, -1 none
    senders = [int(q) for q in np.flatnonzero(offers[:, 0] >= 0)]
    accept = [q for q in senders if is_fair(obs, me, q)]
    plan: dict[str, Any] = {"accept": accept} if accept else {}  # the others are denied
    peace_made = [q for q in accept if offers[q, 1] == PEACE]
    seen = {int(q): int(military[q].sum()) for q in war if q not in peace_made}
    losing = [q for q, n in seen.items() if ours < WINNING_RATIO * max(n, 1)]
    if losing:
        plan.update(to=sorted(losing, key=lambda q: -seen[q]), ask=["peace"], offer=["peace"])
    elif opts is not None:
        ask, give = np.asarray(opts["trade_ask"]), np.asarray(opts["trade_offer"])
        partners = np.flatnonzero(np.asarray(opts["trade_partners"]) & ask[:, EMBASSY] & give[:, EMBASSY])
        if len(partners):
            plan.update(
                to=[int(q) for q in partners], ask=[item_names()[EMBASSY]], offer=[item_names()[EMBASSY]]
            )
    return plan
