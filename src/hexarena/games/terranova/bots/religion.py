"""The heuristic bot's religion: tenets ranked by what each would give its empire as it stands.

A tenet is a row of the civic tables (:mod:`.effects`: rows 63 on are the 91 tenets), so its
worth can be read off the same tables the engine applies: flat yields in every city, yields on
buildings the bot's cities own, yields per citizen and per follower, percent of the yields its
cities make now. Each yield is weighted by :data:`YIELD_WEIGHTS` (production and food grow an
empire; tourism matters least this early), and a tenet whose effects the bot cannot value from
its observation (faith purchases, empire modifiers) gets :data:`OTHER_VALUE`, so it ranks above
a tenet that would give the bot nothing today and below any that gives a yield.

The resolver takes the first tenet legal now (a pantheon until a religion is founded, then the
founder, follower, enhancer and reformation picks), so one ranking of all 91 serves every stage.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from hexarena.games.terranova.engine.state import MAX_CITIES
from hexarena.games.terranova.engine.tables import TENET_COUNTS, load_tables

# food, production, gold, faith, culture, science, happiness, tourism
YIELD_WEIGHTS = np.array([1.0, 1.2, 0.7, 0.6, 0.9, 1.0, 0.8, 0.3])
OTHER_VALUE = 0.2  # a tenet acting through something the yields do not show


def tenet_values(obs: dict[str, Any], me: int) -> np.ndarray:
    """(91,) the weighted yields per turn each tenet would add to player ``me``'s cities now,
    assuming its religion is theirs (a founder's followers: the bot's own citizens)."""
    tb = load_tables()
    pc = obs["player_cities"]
    mine = np.asarray(pc["city_ids"])[me] > 0
    n_cities = int(mine.sum())
    pop = np.where(mine, np.asarray(pc["population"])[me], 0)
    built = np.asarray(pc["buildings_owned"])[: len(mine)] * mine[:, None]  # (10, 148)
    made = np.asarray(pc["yields"])[: len(mine)] * mine[:, None]  # (10, 7)
    made = np.concatenate([made, np.zeros((MAX_CITIES, 8 - made.shape[1]))], 1)
    rows = slice(len(tb.policy_names) + len(tb.tree_names), None)  # the tenets' civic rows
    flat = tb.policy_city_yields[rows] * n_cities + tb.policy_capital_yields[rows] * (n_cities > 0)
    on_buildings = np.einsum("tby,b->ty", tb.policy_building_yields[rows], built.sum(0))
    per_pop = (tb.policy_city_per_pop[rows] + tb.policy_capital_per_pop[rows]) * pop.sum()
    percent = tb.policy_city_percent[rows] / 100.0 * made.sum(0)
    percent = percent + np.einsum("tby,cb,cy->ty", tb.policy_building_percent[rows], built, made) / 100.0
    big = (pop[None, :] >= tb.policy_pop_min[rows][:, None]) & mine[None, :]
    pop_yields = tb.policy_pop_yields[rows] * big.sum(1, keepdims=True)  # (91, 8)
    counts = np.zeros(len(TENET_COUNTS))
    counts[TENET_COUNTS.index("followers")] = pop.sum()
    counts[TENET_COUNTS.index("following_cities")] = n_cities
    units = np.minimum(counts[None, :] / tb.tenet_count_per, tb.tenet_count_max)  # (91, K)
    per_count = np.einsum("tk,tky->ty", np.floor(units), tb.tenet_count_yields)
    per_count_pct = np.einsum("tk,tky->ty", np.floor(units), tb.tenet_count_percent) / 100.0 * made.sum(0)
    gained = flat + on_buildings + per_pop + percent + pop_yields + per_count + per_count_pct
    value = gained @ YIELD_WEIGHTS
    acts = (
        tb.policy_empire_mods[rows].any(1)
        | tb.tenet_city_mods.any(1)
        | tb.tenet_purchase.any(1)
        | tb.policy_tile_bonus[rows].reshape(len(tb.tenet_names), -1).any(1)
        | tb.policy_production[rows].any(1)
    )
    return value + OTHER_VALUE * acts


def tenet_order(obs: dict[str, Any], me: int, favourites: tuple[str, ...] = ()) -> tuple[str, ...]:
    """All 91 tenets, ``favourites`` first (in their order), then the rest by :func:`tenet_values`
    (ties in table order)."""
    names = load_tables().tenet_names
    value = tenet_values(obs, me)
    ranked = [names[t] for t in np.argsort(-value, kind="stable")]
    return (*favourites, *(t for t in ranked if t not in favourites))
