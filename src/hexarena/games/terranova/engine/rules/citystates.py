"""The city states' turn, once per round after the last player has moved (the original's order).

1. **Borders**: each city state claims, with chance 5 %, a random free tile next to its territory
   within 6 rows + columns of its city.
2. **Influence**: each player's influence on each city state gains the trade-route influence of the
   round and loses the decay (1, Philanthropy -25 %: ``cs_decay_pct``), never below 0 nor below the
   player's resting influence (Patronage +20). How players gain influence, as the original: trade
   routes (+1.5 a round each; ``trade_influence``), quests (+30), a great merchant (+35 with the
   met city state where its player has the least; ``great_people``). The original has no gold
   gifts (Philanthropy's "gold gifts +25 % influence" is only its docstring), so the influence a
   player sends round after round, its routes', is what
   ``cs_gift_influence_pct`` (Philanthropy +25) scales.
3. **Quests** (the 7 of ``citystates.json``) run 30 rounds; meanwhile each player's progress is
   tracked: culture and faith made, techs learned, trade routes to the city state (each live route
   counts once a round, as the original's ``trade_tracker``),
   rounds as a majority religion in some city state, rounds with the most world wonders and with
   the most resources. When they end, each city state gives +30 influence to the player with the
   most progress on its quest among those who have met it (none if nobody made progress), and a
   new quest is drawn.
4. **Relationships**: friend at 30, ally at 60 (the one player with the most influence).
5. **Militaristic** friends and allies: one random military unit of the player gains +2.5 %
   strength (+5 % from an ally) per militaristic city state, permanently; ``cs_strategic_pct``
   (Cultural Diplomacy +100: "strategic resources from city states doubled", which city states do
   not hand out here) scales this military help instead.

Trade routes (``trade_influence``, (6, 12) influence a round from each player's caravans to each
city state, ``trade_routes.trade_route_cs_influence(state)``, and ``route_counts``, the routes
themselves, ``trade_route_cs_counts``) and city-state religion (``religious_population``, (12, 6)
followers of each player's religion) are parameters that default to zeros; the step passes them.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from hexarena.games.terranova.engine.geometry import COLS, N_TILES
from hexarena.games.terranova.engine.rules.cities import resources_owned
from hexarena.games.terranova.engine.rules.cs_relations import empire_modifier, have_met, resting_influence
from hexarena.games.terranova.engine.state import MAX_UNITS, N_CITY_STATES, N_PLAYERS, CityStates, GameState
from hexarena.games.terranova.engine.tables import CULTURE, FAITH, citystate_rules, load_tables
from hexarena.games.terranova.engine.world import const, is_military, neighbor_table

QUESTS = tuple(citystate_rules()["quests"])


def quest_index(name: str) -> int:
    """The code of a quest in ``CityStates.quest`` (1-based; 0 = none)."""
    return QUESTS.index(name) + 1


def grow_borders(state: GameState, key: jax.Array) -> jax.Array:
    """(H,) the city states' territory after this round's border growth."""
    rules = citystate_rules()
    owner = state.citystates.owner.astype(jnp.int32)
    nb = neighbor_table()
    nb_owner = jnp.where(nb >= 0, owner[jnp.maximum(nb, 0)], 0)  # (H, 6)
    ids = jnp.arange(1, N_CITY_STATES + 1)
    touches = (nb_owner[None, :, :] == ids[:, None, None]).any(-1)  # (12, H)
    free = (owner == 0) & (state.tiles.owner < 0)  # land or water, as the original
    tiles = jnp.arange(N_TILES)
    sites = state.layers.cs_sites
    d_row = jnp.abs(tiles[None, :] // COLS - sites[:, None] // COLS)
    d_col = jnp.abs(tiles[None, :] % COLS - sites[:, None] % COLS)
    near = d_row + jnp.minimum(d_col, COLS - d_col) <= rules["border_reach"]
    cand = touches & free[None, :] & near
    pick_key, roll_key = jax.random.split(key)
    noise = jax.random.uniform(pick_key, cand.shape)
    pick = jnp.argmax(jnp.where(cand, noise, -1.0), axis=1)  # (12,)
    grows = cand.any(1) & (jax.random.uniform(roll_key, (N_CITY_STATES,)) < rules["border_growth_chance"])
    # Two city states picking one tile: the later one in index order keeps it.
    return owner.at[jnp.where(grows, pick, N_TILES)].set(ids, mode="drop").astype(jnp.int8)


def quest_progress(state: GameState, religious_population: jax.Array) -> tuple[CityStates, jax.Array]:
    """The trackers after this round, and each player's progress on each city state's quest (12, 6)."""
    tb = load_tables()
    cst, c = state.citystates, state.cities
    made = c.yields.sum(1)  # (6, 8) the cities' yields of each player's last turn
    wonders = (c.buildings & const(tb.building_kind == 1)).sum((1, 2))
    resources = jax.vmap(lambda q: resources_owned(state, q)[1:].sum())(jnp.arange(N_PLAYERS))
    religious = religious_population.sum(1) > 0  # (12,)
    majority = jnp.zeros(N_PLAYERS, bool).at[jnp.argmax(religious_population, 1)].max(religious)

    def lead(counts: jax.Array) -> jax.Array:
        return (jnp.arange(N_PLAYERS) == jnp.argmax(counts)) & (counts.max() > 0)

    cst = cst._replace(
        culture_tracker=cst.culture_tracker + made[:, CULTURE],
        faith_tracker=cst.faith_tracker + made[:, FAITH],
        religion_tracker=cst.religion_tracker + majority,
        wonder_tracker=cst.wonder_tracker + lead(wonders),
        resource_tracker=cst.resource_tracker + lead(resources),
    )
    general = jnp.stack(
        [
            jnp.zeros(N_PLAYERS),
            cst.culture_tracker,
            cst.faith_tracker,
            (state.players.techs.sum(1) - cst.tech_start).astype(jnp.float32),
            jnp.zeros(N_PLAYERS),  # trade routes: per city state, below
            cst.religion_tracker.astype(jnp.float32),
            cst.wonder_tracker.astype(jnp.float32),
            cst.resource_tracker.astype(jnp.float32),
        ]
    )  # (8, 6)
    quest = cst.quest.astype(jnp.int32)
    per_cs_trade = cst.trade_tracker.T.astype(jnp.float32)
    progress = jnp.where((quest == quest_index("trade_routes"))[:, None], per_cs_trade, general[quest])
    return cst, progress


def relationships(influence: jax.Array) -> jax.Array:
    """(12, 6) int8: 1 friend (influence >= 30), 2 ally (the most influence >= 60; ties: lowest id)."""
    rules = citystate_rules()
    friend = influence >= rules["friend_influence"]
    eligible = influence >= rules["ally_influence"]
    top = jnp.argmax(jnp.where(eligible, influence, -1.0), axis=1)
    ally = (jnp.arange(N_PLAYERS)[None, :] == top[:, None]) & eligible.any(1, keepdims=True)
    return (friend.astype(jnp.int8) + ally.astype(jnp.int8)).astype(jnp.int8)


def militaristic_bonus(state: GameState, relationship: jax.Array, key: jax.Array) -> jax.Array:
    """(6, 30) unit strength bonuses after this round's gifts from militaristic city states."""
    rules = citystate_rules()
    u = state.units
    militaristic = state.citystates.kind == rules["types"].index("militaristic")
    per_player = rules["militaristic_combat_bonus"] * (militaristic[:, None] * relationship).sum(0)  # (6,)
    per_player = per_player * (1 + empire_modifier(state, "cs_strategic_pct") / 100.0)
    soldiers = (u.kind > 0) & is_military(u.kind)
    pick = jnp.argmax(jnp.where(soldiers, jax.random.uniform(key, soldiers.shape), -1.0), axis=1)
    gift = (jnp.arange(MAX_UNITS)[None, :] == pick[:, None]) & soldiers.any(1, keepdims=True)
    kept = jnp.where(u.kind > 0, state.citystates.combat_bonus, 0.0)  # a dead unit's bonus goes with it
    return kept + gift * per_player[:, None]


def citystate_round(
    state: GameState,
    trade_influence: jax.Array | None = None,
    religious_population: jax.Array | None = None,
    route_counts: jax.Array | None = None,
) -> GameState:
    """The city states' turn (see the module docstring); ``state.turn`` is the round just played."""
    rules = citystate_rules()
    no_trade = jnp.zeros((N_PLAYERS, N_CITY_STATES))
    trade = no_trade if trade_influence is None else trade_influence
    trade = trade * (1 + empire_modifier(state, "cs_gift_influence_pct") / 100.0)[:, None]
    routes = no_trade if route_counts is None else route_counts
    religion = jnp.zeros((N_CITY_STATES, N_PLAYERS)) if religious_population is None else religious_population
    border_key, quest_key, unit_key = jax.random.split(jax.random.fold_in(state.key, 15), 3)
    cst = state.citystates
    decay = rules["influence_decay"] * (1 + empire_modifier(state, "cs_decay_pct") / 100.0)
    influence = jnp.maximum(cst.influence + trade.T - decay[None, :], 0.0)
    influence = jnp.maximum(influence, resting_influence(state)[None, :])
    perturn = influence - cst.influence
    cst = cst._replace(trade_tracker=cst.trade_tracker + routes.astype(cst.trade_tracker.dtype))
    cst, progress = quest_progress(state._replace(citystates=cst), religion)

    ends = (state.turn + 1) % rules["quest_rounds"] == 0
    progress = progress * have_met(state)[:, N_PLAYERS:].T  # only players who met the city state
    won = ends & (progress.max(1) > 0)  # (12,)
    winner = jnp.arange(N_PLAYERS)[None, :] == jnp.argmax(progress, 1)[:, None]
    influence = influence + rules["quest_influence"] * (winner & won[:, None])
    relationship = relationships(influence)
    new_quest = jax.random.randint(quest_key, (N_CITY_STATES,), 1, len(QUESTS) + 1).astype(jnp.int8)

    def restart(x: jax.Array) -> jax.Array:
        return jnp.where(ends, jnp.zeros_like(x), x)

    cst = cst._replace(
        owner=grow_borders(state, border_key),
        influence=influence,
        perturn=perturn,
        relationship=relationship,
        quest=jnp.where(ends, new_quest, cst.quest),
        culture_tracker=restart(cst.culture_tracker),
        faith_tracker=restart(cst.faith_tracker),
        tech_start=jnp.where(ends, state.players.techs.sum(1).astype(jnp.int32), cst.tech_start),
        trade_tracker=restart(cst.trade_tracker),
        religion_tracker=restart(cst.religion_tracker),
        wonder_tracker=restart(cst.wonder_tracker),
        resource_tracker=restart(cst.resource_tracker),
        combat_bonus=militaristic_bonus(state, relationship, unit_key),
    )
    return state._replace(citystates=cst)
