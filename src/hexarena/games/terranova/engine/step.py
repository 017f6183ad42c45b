"""One player's turn in one game: trade, units, cities, empire, choices, fog, score, victory, reset.

The order inside a turn: trade deals (``trade``) -> the free policy and free tech granted last turn
-> units (scan over 30 slots; caravans: ``trade_routes``) -> cities (yields, growth, borders,
production) -> tourism, great people and golden ages (``great_people``) -> empire (gold, upkeep,
science and the tech it completes, happiness, culture and faith reserves, golden age) -> religion
(tenets, faith purchases, pressure) -> social policies bought with culture -> the next research ->
free units of this turn's wonders and policies -> spies' tech-steal roll -> healing -> fog of war
and contacts (``have_met``) for every player -> score-delta reward -> after the last player, the
city states' turn (``citystates``) and a World Congress session every 30 rounds -> next player,
round counter, turn cap and the four victories (``victory``) -> a finished game restarts from its
own map.

The original adds the culture, faith and science of its cities to the reserves at the start of the
next turn and then compares them with the thresholds, so a policy, a pantheon or the next research
comes the turn the reserve reaches its threshold. Here the reserves grow in the empire phase, so the
three choices come right after it: the same turn, with the same effects from the next city phase on.
A free policy or tech granted in a turn (a wonder, a spy's theft) is taken at the start of the next,
as in the original, where the grant comes after its policy and technology steps.
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp

from hexarena.games.terranova.engine import formulas
from hexarena.games.terranova.engine.effects import apply_grants, civic_rows, empire_modifiers
from hexarena.games.terranova.engine.geometry import lit_by
from hexarena.games.terranova.engine.rules import trade, trade_routes, victory
from hexarena.games.terranova.engine.rules.cities import city_phase, heal_cities, resources_owned
from hexarena.games.terranova.engine.rules.citystates import citystate_round
from hexarena.games.terranova.engine.rules.espionage import spy_phase
from hexarena.games.terranova.engine.rules.great_people import grant_free_units, great_people_phase
from hexarena.games.terranova.engine.rules.policies import adopt_policies
from hexarena.games.terranova.engine.rules.pressure import city_state_followers
from hexarena.games.terranova.engine.rules.religion import religion_phase
from hexarena.games.terranova.engine.rules.units import heal_units, unit_phase, unit_phase_games
from hexarena.games.terranova.engine.state import (
    N_CITY_STATES,
    N_PLAYERS,
    GameState,
    MapLayers,
    initial_state,
)
from hexarena.games.terranova.engine.tables import (
    CULTURE,
    FAITH,
    GOLD,
    HAPPY,
    SCIENCE,
    load_tables,
)
from hexarena.games.terranova.engine.world import (
    connected_to_capital,
    const,
    gather,
    masked_argmax,
    neighbor_table,
)

Actions = Any  # the spec's nested tuple for one game (see spaces.ACTION_SHAPES)


def choose_research(
    state: GameState, p: jax.Array, scores: jax.Array, pick: bool = True, free: bool = True
) -> tuple[GameState, jax.Array]:
    """An idle player starts its best legal tech (prerequisites known, not known yet); with a free
    tech pending (Great Library, Oxford University, a spy's theft) the best legal tech after that is
    learned at once, one per turn. ``pick`` / ``free`` (static) switch the two: the step takes the
    free tech at the start of the turn and the next research after the empire phase. Returns the
    state and the executed ``(normal, free)`` pair."""
    pl = state.players
    known = pl.techs[p]
    legal = ~known & jnp.all(~const(load_tables().tech_prereq) | known, axis=1)
    chosen = jnp.where((pl.researching[p] < 0) & pick, masked_argmax(scores, legal), -1)
    researching = jnp.where(chosen >= 0, chosen, pl.researching[p])
    n = legal.shape[0]
    free_ok = (pl.free_techs[p] > 0) & free
    free = jnp.where(free_ok, masked_argmax(scores, legal & (jnp.arange(n) != researching)), -1)
    players = pl._replace(
        researching=pl.researching.at[p].set(researching),
        techs=pl.techs.at[p].set(known | (jnp.arange(n) == free)),
        free_techs=pl.free_techs.at[p].add(-(free >= 0).astype(jnp.int32)),
    )
    return state._replace(players=players), jnp.stack([chosen, free]).astype(jnp.int32)


def road_gold(state: GameState, p: jax.Array) -> jax.Array:
    """City connections earn gold; roads inside the borders outside city tiles cost upkeep."""
    tb = load_tables()
    c, t = state.cities, state.tiles
    capital_pop = jnp.max(jnp.where(c.capital[p], c.pop[p], 0))
    income = jnp.where(
        connected_to_capital(state, p), formulas.connection_gold(c.pop[p], capital_pop), 0.0
    ).sum() * (1 + empire_modifiers(state, p)[tb.modifier("connection_gold_pct")] / 100.0)
    city_tiles = (
        jnp.zeros(t.road.shape[0] + 1, bool).at[jnp.where(c.exists, c.pos, t.road.shape[0])].set(True)
    )
    roads = (t.road & (t.owner == p) & ~city_tiles[:-1]).sum()
    return income - tb.rules["road_upkeep"] * roads


def trade_gold(state: GameState, p: jax.Array) -> jax.Array:
    """Gold per turn from trade deals (5 per gold-per-turn item, received minus given) and caravans
    (Trade Unions)."""
    return state.trade.gpt[p] + trade_routes.caravan_gold(state, p)


def empire_phase(state: GameState, p: jax.Array, empire: jax.Array, grants: jax.Array) -> GameState:
    """Gold, roads and upkeep (a deficit comes out of science), research, happiness, culture and faith
    reserves, the golden-age clock and the grants of buildings completed this turn.

    Happiness as the original: 8 + 4 per kind of luxury + the cities' happiness (+ per-policy
    happiness) minus the unhappiness of cities beyond the first and of citizens.
    """
    tb = load_tables()
    pl, c = state.players, state.cities
    mods = empire_modifiers(state, p)
    m = {name: mods[tb.modifier(name)] for name in ("free_units", "free_units_per_city", "upkeep_pct")}
    free_units = m["free_units"] + m["free_units_per_city"] * c.exists[p].sum()
    n_units = jnp.maximum((state.units.kind[p] > 0).sum() - free_units, 0)
    building_upkeep = (c.buildings[p] * const(tb.building_upkeep)).sum() * (1 + m["upkeep_pct"] / 100.0)
    upkeep = building_upkeep + formulas.unit_upkeep(n_units, state.turn)
    gold = pl.gold[p] + empire[GOLD] + road_gold(state, p) - upkeep + trade_gold(state, p)
    happy_bonus = jnp.where(pl.happiness[p] > 0, mods[tb.modifier("science_pct_when_happy")], 0.0)
    science = jnp.maximum(empire[SCIENCE] * (1 + happy_bonus / 100.0) + jnp.minimum(gold, 0.0), 0.0)
    gold = jnp.maximum(gold, 0.0)
    stock = pl.science[p] + science
    r = pl.researching[p]
    cost = const(tb.tech_cost)[jnp.maximum(r, 0)]
    learn = (r >= 0) & (stock >= cost)
    techs = pl.techs.at[p].set(pl.techs[p] | ((jnp.arange(tb.n_techs) == r) & learn))
    luxuries = (resources_owned(state, p) & const(tb.resource_kind == 3)).sum()
    rules = tb.rules
    per_luxury = rules["luxury_happiness"] + mods[tb.modifier("happiness_per_luxury")]
    happy = rules["start_happiness"] + per_luxury * luxuries + empire[HAPPY]
    happy = happy + mods[tb.modifier("happiness_per_policy")] * pl.policies[p].sum()
    unhappy = formulas.unhappiness(c.exists[p].sum(), c.pop[p].sum())
    happy = happy - unhappy * (1 + mods[tb.modifier("unhappiness_pct")] / 100.0)
    players = pl._replace(
        gold=pl.gold.at[p].set(gold),
        science=pl.science.at[p].set(jnp.where(learn, stock - cost, stock)),
        researching=pl.researching.at[p].set(jnp.where(learn, -1, r)),
        techs=techs,
        happiness=pl.happiness.at[p].set(happy),
        culture=pl.culture.at[p].add(empire[CULTURE]),
        culture_total=pl.culture_total.at[p].add(empire[CULTURE]),
        faith=pl.faith.at[p].add(empire[FAITH]),
        golden_age_turns=pl.golden_age_turns.at[p].set(jnp.maximum(pl.golden_age_turns[p] - 1, 0)),
    )
    return apply_grants(state._replace(players=players), p, grants)


def update_fog(state: GameState) -> GameState:
    """Every player sees 2 tiles around its units and cities, 1 beyond its borders, and the capital
    territory of players it has an embassy with (and meets whom it sees: :func:`update_contacts`).

    The sight of units and cities is scattered from their tiles (``geometry.lit_by``: 40 sources a
    player), not spread over the whole map; the borders spread once from a (H, 6) owner table."""
    sight = load_tables().rules["sight"]
    u, c, t = state.units, state.cities, state.tiles
    n = t.owner.shape[0]
    players = jnp.arange(N_PLAYERS)[:, None]
    sources = jnp.concatenate([jnp.where(u.kind > 0, u.pos, n), jnp.where(c.exists, c.pos, n)], axis=1)
    lit = const(lit_by(sight))[sources].reshape(N_PLAYERS, -1)  # (6, 40 x K), n where none
    seen = jnp.zeros((N_PLAYERS, n + 1), bool).at[jnp.broadcast_to(players, lit.shape), lit].set(True)
    nb = neighbor_table()
    owner = t.owner.astype(jnp.int32)
    nb_owner = jnp.where(nb >= 0, owner[jnp.maximum(nb, 0)], -1)  # (H, 6)
    border = (owner[None, :] == players) | (nb_owner[None] == players[..., None]).any(-1)
    visible = seen[:, :-1] | border | trade.embassy_sight(state)
    vis = jnp.where(visible, 2, jnp.minimum(t.visibility, 1)).astype(jnp.int8)
    return update_contacts(state._replace(tiles=t._replace(visibility=vis)))


def update_contacts(state: GameState) -> GameState:
    """``have_met`` after the fog update: a player meets another when one of its units or a tile
    it owns is in sight, and a city state when a tile of its territory is; once met, always met."""
    vis = state.tiles.visibility == 2  # (6, H)
    u, t = state.units, state.tiles
    units_seen = jax.vmap(lambda v: ((u.kind > 0) & gather(v, u.pos, False)).any(1))(vis)  # (6, 6)
    owner = t.owner.astype(jnp.int32)
    land = jnp.zeros((N_PLAYERS, N_PLAYERS + 1), bool).at[:, jnp.where(owner >= 0, owner, N_PLAYERS)].max(vis)
    cs = state.citystates.owner.astype(jnp.int32)  # their territory grows
    city_states = jnp.zeros((N_PLAYERS, N_CITY_STATES + 1), bool).at[:, cs].max(vis)[:, 1:]
    met = jnp.concatenate([units_seen | land[:, :N_PLAYERS], city_states], axis=1)
    pl = state.players
    return state._replace(players=pl._replace(have_met=pl.have_met | met))


def player_scores(state: GameState) -> jax.Array:
    """(6,) the score of every player."""
    tb = load_tables()
    c = state.cities
    world = const(tb.building_kind == 1)
    wonders = (c.buildings & world).sum((1, 2))
    tiles = (state.tiles.owner[None, :] == jnp.arange(N_PLAYERS)[:, None]).sum(1)
    pl = state.players
    return formulas.score(
        c.exists.sum(1),
        c.pop.sum(1),
        tiles,
        wonders,
        pl.techs.sum(1),
        pl.policies.sum(1),
        pl.tenets.sum(1),
        state.great.works.sum((1, 2)),
    )


def domination_winner(state: GameState) -> jax.Array:
    """A player who has sacked every rival capital still standing (or outlived every rival); else -1."""
    alive = state.cities.exists.any(1) | (state.units.kind > 0).any(1)
    beaten = state.players.has_sacked | ~alive[None, :] | jnp.eye(N_PLAYERS, dtype=bool)
    wins = alive & beaten.all(1) & state.players.ever_settled
    return jnp.where(wins.any(), jnp.argmax(wins), -1).astype(jnp.int32)


def new_game(
    layers: MapLayers, key: jax.Array, turn_cap: jax.Array | int = 300, auto_reset: jax.Array | bool = True
) -> GameState:
    """The first turn of a game on ``layers``, with every player's starting sight."""
    return update_fog(initial_state(layers, key, turn_cap, auto_reset))


def city_states_turn(state: GameState) -> GameState:
    """The city states' round, with the influence and routes trade brought, and their religions."""
    return citystate_round(
        state,
        trade_routes.trade_route_cs_influence(state),
        city_state_followers(state),
        trade_routes.trade_route_cs_counts(state),
    )


def _before_units(state: GameState, actions: Actions) -> tuple[GameState, tuple]:
    """Trade, then the free picks granted last turn (wonders, a spy's theft), as in the original;
    returns the state and what the rest of the turn needs of this part."""
    trade_scores, policy_scores, _, tech_scores, _, _ = actions
    p = state.player
    state, deals = trade.trade_phase(state, p, trade_scores)
    rows_before = civic_rows(state, p)
    state, free_policy = adopt_policies(state, p, policy_scores, buy=False)
    state, free_tech = choose_research(state, p, tech_scores, pick=False)
    return state, (deals, rows_before, free_policy, free_tech, state.players.at_war)


def _after_units(
    state: GameState, actions: Actions, before: tuple, ucat: jax.Array, utgt: jax.Array
) -> tuple[GameState, tuple, jax.Array]:
    """The rest of the acting player's turn after its units; returns (state, executed, reward)."""
    _, policy_scores, tenet_scores, tech_scores, _, (citizen_scores, build_scores) = actions
    deals, rows_before, free_policy, free_tech, at_war_before = before
    p = state.player
    # wars declared this turn end the deals and routes between the two (before any unit is built)
    state = trade_routes.clear_dead_routes(trade.after_wars(state, at_war_before))
    built_before = state.cities.buildings[p]
    state, worked, built, empire, grants = city_phase(state, p, citizen_scores, build_scores)
    state, empire = great_people_phase(state, p, empire)
    state = empire_phase(state, p, empire, grants)
    # the reserves hold this turn's faith, culture and science: choose with them (module docstring)
    state, tenet = religion_phase(state, p, tenet_scores)
    state, policy = adopt_policies(state, p, policy_scores, free=False)
    state, tech = choose_research(state, p, tech_scores, free=False)
    policy, tech = policy.at[1].set(free_policy[1]), tech.at[1].set(free_tech[1])
    state = spy_phase(grant_free_units(state, p, built_before, rows_before), p)
    state = heal_cities(heal_units(state, p), p)
    state = update_fog(state)
    scores = player_scores(state)
    reward = scores[p] - state.players.prev_score[p]
    pl = state.players
    state = state._replace(players=pl._replace(prev_score=pl.prev_score.at[p].set(scores[p])))
    executed = (tuple(deals), policy, tenet, tech, (ucat, utgt), (worked, built))
    return state, executed, reward


def play_turn(state: GameState, actions: Actions) -> tuple[GameState, tuple, jax.Array]:
    """The acting player's part of a turn (everything before the city states' round); returns
    (state, executed actions, reward)."""
    state, before = _before_units(state, actions)
    type_scores, target_scores = actions[4]
    state, ucat, utgt = unit_phase(state, state.player, type_scores, target_scores)
    return _after_units(state, actions, before, ucat, utgt)


def close_turn(state: GameState, round_ends: jax.Array) -> tuple[GameState, jax.Array, jax.Array, jax.Array]:
    """After the city states' round: the next player, the round counter, the turn cap and the
    victories; returns (state, done, winner, the key a restart would start from)."""
    session = round_ends & victory.congress_session(state)
    kind, winner = victory.decide(state, domination_winner(state), session)
    turn = state.turn + round_ends
    done = (turn >= state.turn_cap) | (winner >= 0)
    key, sub = jax.random.split(state.key)
    state = state._replace(
        turn=turn, player=(state.player + 1) % N_PLAYERS, done=done, winner=winner, victory=kind, key=key
    )
    return state, done, winner, sub


def restart(state: GameState, key: jax.Array) -> GameState:
    """A fresh game on the state's own map."""
    return new_game(state.layers, key, state.turn_cap, state.auto_reset)


def step_game(state: GameState, actions: Actions) -> tuple[GameState, tuple, jax.Array, jax.Array, jax.Array]:
    """The turn of ``state.player``; returns (state, executed actions, reward, done, winner).

    With ``state.auto_reset`` a finished game is already restarted in the returned state (the
    batched simulator); without it the final position stays (the game-contract adapter).
    """
    round_ends = state.player == N_PLAYERS - 1
    state, executed, reward = play_turn(state, actions)
    state = jax.lax.cond(round_ends, city_states_turn, lambda s: s, state)
    state, done, winner, key = close_turn(state, round_ends)
    state = jax.lax.cond(done & state.auto_reset, restart, lambda s, _k: s, state, key)
    return state, executed, reward, done, winner


def _where_any(mask: jax.Array, fn: Any, tree: Any, *args: Any) -> Any:
    """``fn(tree, *args)`` for the games (leading axis) where ``mask``, the rest unchanged; computed
    only when some game needs it (under ``vmap`` a ``lax.cond`` on a per-game mask computes both
    branches for every game)."""

    def run(t: Any) -> Any:
        new = fn(t, *args)
        pick = lambda n, o: jnp.where(mask.reshape(mask.shape + (1,) * (o.ndim - 1)), n, o)  # noqa: E731
        return jax.tree_util.tree_map(pick, new, t)

    return jax.lax.cond(mask.any(), run, lambda t: t, tree)


def step_games(
    states: GameState, actions: Actions
) -> tuple[GameState, tuple, jax.Array, jax.Array, jax.Array]:
    """:func:`step_game` over a leading axis of games, with the same results: unit slots
    (``unit_phase_games``), the city states' round (one step in six) and restarts run only where
    some game has them."""
    round_ends = states.player == N_PLAYERS - 1
    states, before = jax.vmap(_before_units)(states, actions)
    states, ucat, utgt = unit_phase_games(states, *actions[4])
    states, executed, reward = jax.vmap(_after_units)(states, actions, before, ucat, utgt)
    states = _where_any(round_ends, jax.vmap(city_states_turn), states)
    states, done, winner, keys = jax.vmap(close_turn)(states, round_ends)
    states = _where_any(done & states.auto_reset, jax.vmap(restart), states, keys)
    return states, executed, reward, done, winner
