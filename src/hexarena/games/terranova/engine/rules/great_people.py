"""Specialists, great people, great works, golden ages and tourism: the civic half of a turn after the
cities, as the original plays it (its ``step_tourism`` then ``step_specialists_great_people_and_golden_age``).

* **Specialists.** Every specialist slot a city's buildings provide holds a specialist (as in the
  original: slots are filled for free, no citizen leaves its tile): artists, musicians and writers
  yield 3 culture, engineers 2 production, merchants 2 gold, scientists 3 science (Secularism +2
  science each); each adds 3 great person points (GPP) of its kind per turn.
* **Great person points.** Per city: specialists x 3 x (1 + the city's GPP %) x (1 + the empire's
  GPP %), plus the buildings' and wonders' own points x (1 + the empire's GPP %); then x (1 + the
  kind's %) (Aesthetics, Commerce, Rationalism openers). The points of each kind add up empire-wide;
  **one threshold** for all kinds starts at 67 and **doubles** each turn a great person is born; a
  kind that reaches it is born and its points return to 0 (the others keep theirs). A great person
  granted for free (Louvre, Ethics, Commerce ...) adds one threshold of its kind's points, one per
  kind per turn, so it is born that turn (the original's rule; a second grant waits a turn instead
  of being lost).
* **What a great person does** (at once, no unit, as in the original): artist: a golden age;
  musician: 5 x this turn's tourism onto every met rival; writer: 5 x this turn's culture; engineer:
  5 x this turn's production in every city; scientist: 5 x this turn's science; merchant: gold by
  era (300 .. 650, doubled by the Commerce finisher) and +35 influence with the met city state the
  player has the least with (none if it has met none). Each birth pays the Mausoleum's gold.
* **Great works**: every great-work slot of a city's buildings (amphitheatres, opera houses,
  museums, broadcast towers, wonders) holds a great work of its kind, as the original counts its
  ``gw_slots`` (its great people create none, and its ``great_works`` field is never written): a
  work yields tourism and the policies' per-work yields from the turn its building stands.
* **Golden ages**: 10 turns (x 1.5 with Chichen Itza; production x 1.2, gold x 1.05, culture x 1.2,
  see ``effects.empire_multipliers``), from artists, Taj Mahal, Representation, Flourishing of Arts,
  and (Civ V's rule, which the original leaves out) from happiness: outside a golden age each turn's
  positive happiness fills a meter; at (500 + 250 x golden ages so far) x 2/3 (Quick speed) a golden
  age starts.
* **Tourism** (after Acoustics): the cities' tourism yields (x 2 with the Internet), 0.2 per great
  work (raised by hotels, airports, tourist centres) plus the policies' per-work tourism, and a share
  of the culture of wonders (hotels, airports, tourist centres; Fine Arts +10 %); x 1.2 with the
  Aesthetics finisher. It accumulates onto every met rival, x 1.25 onto a rival that one of the
  player's caravans trades with and x 1.25 onto one with a city following the player's religion
  (``rival_factors``): ``Players.tourism[i, j]`` is player i's tourism onto player j, which the
  culture victory compares with j's lifetime culture.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from hexarena.games.terranova.engine.effects import (
    city_modifiers,
    civic_rows,
    empire_modifiers,
    golden_age_length,
)
from hexarena.games.terranova.engine.rules.beliefs import majority
from hexarena.games.terranova.engine.rules.units import spawn_unit
from hexarena.games.terranova.engine.state import MAX_CITIES, MAX_UNITS, N_PLAYERS, GameState
from hexarena.games.terranova.engine.tables import (
    BUILDING_SLOTS,
    CULTURE,
    GOLD,
    MODIFIERS,
    PROD,
    SCIENCE,
    SPECIALISTS,
    TOURISM,
    load_tables,
)
from hexarena.games.terranova.engine.world import (
    const,
    gather,
    is_military,
    masked_argmax,
    neighbor_table,
    top_era,
)

MAX_FREE_UNITS = 4  # free units placed per grant (the largest grant is 2)


def specialists(state: GameState, p: jax.Array) -> jax.Array:
    """(10, 6) specialists in each city of ``p``: every slot of its buildings is filled."""
    c = state.cities
    built = c.buildings[p].astype(jnp.float32)
    return (built @ const(load_tables().building_specialists)) * c.exists[p][:, None]


def great_work_slots(state: GameState, p: jax.Array) -> jax.Array:
    """(10, 4) great-work slots of each city of ``p`` (writing, art, music, artifact)."""
    c = state.cities
    built = c.buildings[p].astype(jnp.float32)
    return (built @ const(load_tables().building_gw_slots)) * c.exists[p][:, None]


def specialist_yields(state: GameState, p: jax.Array) -> jax.Array:
    """(10, 8) flat yields of the specialists and great works of each city (before percent)."""
    tb = load_tables()
    mods = empire_modifiers(state, p)
    spec = specialists(state, p)
    works = great_work_slots(state, p).sum(-1)
    y = spec @ const(tb.specialist_yields)
    y = y.at[:, SCIENCE].add(mods[tb.modifier("science_per_specialist")] * spec.sum(-1))
    y = y.at[:, CULTURE].add(mods[tb.modifier("great_work_culture")] * works)
    return y.at[:, SCIENCE].add(mods[tb.modifier("great_work_science")] * works)


def _kind_pct(mods: jax.Array) -> jax.Array:
    """(6,) the empire's great-person-rate percent of each kind (there is no column for engineers)."""
    cols = [MODIFIERS.index(f"{k}_gp_pct") if f"{k}_gp_pct" in MODIFIERS else -1 for k in SPECIALISTS]
    return jnp.where(const(np.asarray(cols) >= 0), mods[const(np.maximum(cols, 0))], 0.0)


def city_gpp(state: GameState, p: jax.Array) -> jax.Array:
    """(10, 6) great person points each city of ``p`` adds per turn (SPECIALISTS order)."""
    tb = load_tables()
    c = state.cities
    mods = empire_modifiers(state, p)
    city_pct = city_modifiers(state, p)[:, tb.modifier("great_person_pct")]
    empire = 1 + mods[tb.modifier("great_person_pct_all_cities")] / 100.0
    built = c.buildings[p].astype(jnp.float32)
    from_specialists = tb.rules["specialist_gpp"] * specialists(state, p) * (1 + city_pct / 100.0)[:, None]
    points = (from_specialists + built @ const(tb.building_gpp)) * empire
    return points * (1 + _kind_pct(mods) / 100.0) * c.exists[p][:, None]


def rivals_met(state: GameState, p: jax.Array) -> jax.Array:
    """(6,) the rivals ``p`` has met (``Players.have_met``; never ``p`` itself)."""
    return state.players.have_met[p, :N_PLAYERS] & (jnp.arange(N_PLAYERS) != p)


def rival_factors(state: GameState, p: jax.Array) -> jax.Array:
    """(6,) ``p``'s tourism factor onto each player, as the original's ``step_tourism``: x 1.25 when
    one of ``p``'s caravans runs a route to that player, x 1.25 more when ``p``'s religion is the
    majority in one of that player's cities."""
    caravans = (state.units.kind[p] == load_tables().unit("caravan"))[:, None]
    routed = (caravans & (state.trade.route_to_player[p][:, None] == jnp.arange(N_PLAYERS))).any(0)
    top, has = jax.vmap(lambda q: majority(state, q))(jnp.arange(N_PLAYERS))  # (6, 10) each
    converted = (state.cities.exists & has & (top == p)).any(1)
    bonus = load_tables().rules["tourism_rival_bonus"]
    return jnp.where(routed, bonus, 1.0) * jnp.where(converted, bonus, 1.0)


def tourism_yield(state: GameState, p: jax.Array) -> jax.Array:
    """``p``'s tourism this turn (before the per-rival factors): the cities' tourism yields (x 2 with
    the Internet), 0.2 per great work (+ the city's great-work tourism %) plus the policies' tourism
    per work, and the wonders' culture converted by hotels, airports and tourist centres; 0 before
    Acoustics."""
    tb = load_tables()
    r = tb.rules
    c = state.cities
    techs = state.players.techs[p]
    mods = empire_modifiers(state, p)
    cmods = city_modifiers(state, p)
    works = great_work_slots(state, p).sum(-1)
    per_work = r["great_work_tourism"] * (1 + cmods[:, tb.modifier("great_work_tourism_pct")] / 100.0)
    from_works = works * (per_work + mods[tb.modifier("great_work_tourism")])
    wonder_culture = const(tb.building_yields[:, CULTURE] * (tb.building_kind > 0))
    culture = c.buildings[p].astype(jnp.float32) @ wonder_culture
    converted = culture * cmods[:, tb.modifier("tourism_from_culture_pct")] / 100.0
    converted = converted * (1 + mods[tb.modifier("culture_building_tourism_pct")] / 100.0)
    doubled = jnp.where(techs[tb.tech(r["tourism_double_tech"])], 2.0, 1.0)
    total = ((c.yields[p][:, TOURISM] * doubled + from_works + converted) * c.exists[p]).sum()
    return jnp.where(techs[tb.tech(r["tourism_tech"])], total, 0.0)


def spawn_free_units(state: GameState, p: jax.Array, counts: jax.Array) -> GameState:
    """Units given by a wonder or a policy (``counts`` (38,) per type) appear at the capital, or on a
    land tile next to it (not a rival's) when its tile holds a unit of the same class or a rival's
    unit; a unit without room or beyond the 30-unit cap is lost, as in the original, and so is a
    settler beyond the city cap (cities, settlers and settlers being built: at most 10; the original
    checks its free city slots too)."""
    c, lay = state.cities, state.layers
    settler = load_tables().unit("settler")
    queued = (jnp.where(c.exists[p], c.constructing[p], -1) - BUILDING_SLOTS + 1 == settler).sum()
    home = jnp.where(c.capital[p].any(), jnp.argmax(c.capital[p]), jnp.argmax(c.exists[p]))
    centre = c.pos[p, home]
    spots = jnp.concatenate([centre[None], neighbor_table()[jnp.maximum(centre, 0)]])
    land = (gather(lay.elevation, spots, 0) == 1) | (gather(lay.elevation, spots, 0) == 2)
    owner = gather(state.tiles.owner, spots, -1)
    land = land & (gather(lay.cs_owner, spots, 1) == 0) & ((owner < 0) | (owner == p))
    land = land & (spots >= 0) & c.exists[p].any()
    mine = jnp.arange(N_PLAYERS)[:, None] == p
    counts = counts.astype(jnp.int32)
    for _ in range(MAX_FREE_UNITS):
        kind = jnp.argmax(counts > 0)
        u = state.units
        blocks = (u.kind > 0) & (~mine | (is_military(u.kind) == is_military(kind)))
        taken = (blocks[None] & (u.pos[None] == spots[:, None, None])).any((1, 2))
        ok = land & ~taken
        spot = spots[jnp.argmax(ok)]
        go = (counts[kind] > 0) & ok.any() & ((u.kind[p] > 0).sum() < MAX_UNITS)
        go &= (kind != settler) | (c.exists[p].sum() + (u.kind[p] == settler).sum() + queued < MAX_CITIES)
        state, _ = spawn_unit(state, p, kind.astype(jnp.int8), spot, go)
        counts = counts.at[kind].add(-(counts[kind] > 0).astype(jnp.int32))
    return state


def golden_age_meter(state: GameState, p: jax.Array) -> GameState:
    """Outside a golden age, positive happiness fills the meter; a full meter starts a golden age
    (Civ V: (500 + 250 x golden ages so far) x the speed factor)."""
    r = load_tables().rules
    g, pl = state.great, state.players
    calm = pl.golden_age_turns[p] <= 0
    meter = g.golden_points[p] + jnp.where(calm, jnp.maximum(pl.happiness[p], 0.0), 0.0)
    step = r["golden_age_happiness_step"] * g.golden_ages[p]
    need = (r["golden_age_happiness_base"] + step) * r["speed_factor"]
    start = calm & (meter >= need)
    turns = pl.golden_age_turns[p] + jnp.where(start, golden_age_length(state, p), 0).astype(jnp.int32)
    return state._replace(
        players=pl._replace(golden_age_turns=pl.golden_age_turns.at[p].set(turns)),
        great=g._replace(
            golden_points=g.golden_points.at[p].set(jnp.where(start, meter - need, meter)),
            golden_ages=g.golden_ages.at[p].add(start.astype(jnp.int32)),
        ),
    )


def grant_free_units(
    state: GameState, p: jax.Array, built_before: jax.Array, rows_before: jax.Array
) -> GameState:
    """The free units of the buildings ``p`` completed and the policies it adopted this turn
    (``built_before``: its city buildings before the city phase; ``rows_before``: its civic rows
    before the policy phase). They appear at the end of the turn, like units finished in a city."""
    tb = load_tables()
    new = (state.cities.buildings[p] & ~built_before).sum(0).astype(jnp.float32)
    adopted = civic_rows(state, p) - rows_before
    return spawn_free_units(
        state, p, new @ const(tb.building_free_units) + adopted @ const(tb.policy_free_units)
    )


def great_people_phase(state: GameState, p: jax.Array, empire: jax.Array) -> tuple[GameState, jax.Array]:
    """Tourism, great person points and births with their effects, great works, the golden-age
    meter. ``empire`` (8,) is the turn's empire yields; returns it with the writer's, scientist's
    and merchant's shares."""
    tb = load_tables()
    r = tb.rules
    c = state.cities
    mods = empire_modifiers(state, p)
    # Tourism (the original's step_tourism comes first).
    base = tourism_yield(state, p)
    onto = base * (1 + mods[tb.modifier("tourism_pct")] / 100.0) * rivals_met(state, p)
    onto = onto * rival_factors(state, p)
    # Great person points and births.
    g, pl = state.great, state.players
    pending = pl.great_people[p, : len(SPECIALISTS)]
    free_now = pending > 0
    threshold = g.threshold[p]
    points = g.points[p] + city_gpp(state, p).sum(0) + jnp.where(free_now, threshold, 0.0)
    born = points >= threshold
    burst = r["great_person_burst"]
    was = {k: born[SPECIALISTS.index(k)] for k in SPECIALISTS}
    onto = onto + jnp.where(was["musician"], burst * base, 0.0) * rivals_met(state, p)
    empire = empire.at[CULTURE].multiply(jnp.where(was["writer"], burst, 1.0))
    empire = empire.at[SCIENCE].multiply(jnp.where(was["scientist"], burst, 1.0))
    merchant_gold = const(np.asarray(r["great_merchant_gold"], np.float32))[top_era(pl.techs[p])]
    merchant_gold = merchant_gold * (1 + mods[tb.modifier("great_merchant_gold_pct")] / 100.0)
    gold = jnp.where(was["merchant"], merchant_gold, 0.0)
    gold = gold + mods[tb.modifier("gold_per_great_person")] * born.sum()
    empire = empire.at[GOLD].add(gold)
    cst = state.citystates
    courted = masked_argmax(-cst.influence[:, p], pl.have_met[p, N_PLAYERS:])  # -1: none met
    influence = jnp.where(was["merchant"] & (courted >= 0), r["great_merchant_influence"], 0.0)
    extra_prod = jnp.where(was["engineer"], (burst - 1) * c.yields[p][:, PROD], 0.0)
    golden = jnp.where(was["artist"], golden_age_length(state, p), 0).astype(jnp.int32)
    works = great_work_slots(state, p).astype(jnp.int8)  # every slot holds a work
    state = state._replace(
        cities=c._replace(prod=c.prod.at[p].add(extra_prod)),
        citystates=cst._replace(influence=cst.influence.at[jnp.maximum(courted, 0), p].add(influence)),
        players=pl._replace(
            great_people=pl.great_people.at[p, : len(SPECIALISTS)].add(-free_now.astype(jnp.int32)),
            golden_age_turns=pl.golden_age_turns.at[p].add(golden),
            tourism=pl.tourism.at[p].add(onto),
        ),
        great=g._replace(
            points=g.points.at[p].set(jnp.where(born, 0.0, points)),
            threshold=g.threshold.at[p].set(jnp.where(born.any(), threshold * 2, threshold)),
            born=g.born.at[p].add(born.astype(jnp.int32)),
            works=g.works.at[p].set(works),
            tourism_turn=g.tourism_turn.at[p].set(base),
        ),
    )
    return golden_age_meter(state, p), empire
