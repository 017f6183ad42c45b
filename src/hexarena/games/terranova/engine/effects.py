"""Effects as data: the modifier rows of buildings, policies and tenets turned into a player's numbers.

Every effect is a row of a table in ``tables`` (buildings: 148 rows; civic rows: the 54 policies,
the 9 tree finishers, then the 91 tenets), and a player's totals are matrix products of those rows
with what it owns: ``owned buildings @ building_empire_mods + active civic rows @
policy_empire_mods`` and so on.
No effect is a branch of code; the code here only says where each table applies (a city, the
capital, coastal cities, the empire) and applies one-time grants.
"""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from hexarena.games.terranova.engine.rules.beliefs import city_tenets, holy_city, tenet_counts
from hexarena.games.terranova.engine.state import MAX_CITIES, GameState
from hexarena.games.terranova.engine.tables import (
    BUILDING_SLOTS,
    CULTURE,
    GOLD,
    GRANTS,
    N_BUILDING_YIELDS,
    PROD,
    SCIENCE,
    SPECIALISTS,
    load_tables,
)
from hexarena.games.terranova.engine.world import (
    class_bonus,
    connected_to_capital,
    const,
    gather,
    neighbor_table,
    top_era,
    work_frames,
)


def civic_rows(state: GameState, p: jax.Array) -> jax.Array:
    """(154,) float: the civic effect rows active for ``p``: the policies it has adopted, the trees
    it has finished (all six), then the tenets it has taken."""
    tb = load_tables()
    pl = state.players
    adopted = pl.policies[p].astype(jnp.float32)
    onehot = const(tb.policy_tree_onehot)
    finished = (adopted @ onehot) >= onehot.sum(0)
    return jnp.concatenate([adopted, finished.astype(jnp.float32), pl.tenets[p].astype(jnp.float32)])


def city_civic_rows(state: GameState, p: jax.Array) -> jax.Array:
    """(10, 154) the civic rows acting in each city of ``p``: its policies and finished trees, then
    the tenets acting in that city (``beliefs.city_tenets``: its majority religion's)."""
    rows = civic_rows(state, p)
    n_tenets = state.players.tenets.shape[1]
    here = city_tenets(state, p).astype(jnp.float32)
    policies = jnp.broadcast_to(rows[:-n_tenets], (MAX_CITIES, rows.shape[0] - n_tenets))
    return jnp.concatenate([policies, here], 1)


def empire_modifiers(state: GameState, p: jax.Array) -> jax.Array:
    """(MODIFIERS,) empire-wide modifiers of ``p``: its buildings anywhere, its policies and the
    tenets it holds (a tenet's ``modifiers``; its ``city_modifiers`` act where it is followed)."""
    tb = load_tables()
    owned = state.cities.buildings[p].any(0).astype(jnp.float32)
    return owned @ const(tb.building_empire_mods) + civic_rows(state, p) @ const(tb.policy_empire_mods)


def empire_modifier_columns(state: GameState, p: jax.Array, names: tuple[str, ...]) -> jax.Array:
    """(len(names),) the named columns of :func:`empire_modifiers`, at the cost of those columns only
    (the combat step asks for one or a few, per attack)."""
    tb = load_tables()
    cols = np.array([tb.modifier(n) for n in names])
    owned = state.cities.buildings[p].any(0).astype(jnp.float32)
    return owned @ const(tb.building_empire_mods[:, cols]) + civic_rows(state, p) @ const(
        tb.policy_empire_mods[:, cols]
    )


def city_modifiers(state: GameState, p: jax.Array) -> jax.Array:
    """(10, MODIFIERS) modifiers of each city of ``p`` from its own buildings and the tenets acting there."""
    tb = load_tables()
    here = city_tenets(state, p).astype(jnp.float32)
    return state.cities.buildings[p].astype(jnp.float32) @ const(tb.building_city_mods) + here @ const(
        tb.tenet_city_mods
    )


KILL_MODIFIERS = {"gold_per_kill": GOLD, "culture_per_kill": CULTURE, "science_per_kill": SCIENCE}


def kill_yields(state: GameState, p: jax.Array) -> jax.Array:
    """(2, 8) yields ``p`` gains per enemy unit killed or city taken: from its buildings, policies
    and tenets, then from finished trees (Honor's finisher), each x (its era + 1) as the original
    scales them (the observation's ``yields_per_kill`` and ``honor_finisher_yields_per_kill``)."""
    tb = load_tables()
    rows = civic_rows(state, p)
    n_policies, n_trees = tb.policy_tree_onehot.shape
    i = jnp.arange(rows.shape[0])
    finisher = (i >= n_policies) & (i < n_policies + n_trees)
    cols = np.array([tb.modifier(m) for m in KILL_MODIFIERS])
    owned = state.cities.buildings[p].any(0).astype(jnp.float32)
    mods = const(tb.policy_empire_mods[:, cols])
    regular = owned @ const(tb.building_empire_mods[:, cols]) + jnp.where(finisher, 0.0, rows) @ mods
    finished = jnp.where(finisher, rows, 0.0) @ mods
    to_yield = np.zeros((len(KILL_MODIFIERS), N_BUILDING_YIELDS), np.float32)
    to_yield[np.arange(len(KILL_MODIFIERS)), list(KILL_MODIFIERS.values())] = 1.0
    era = top_era(state.players.techs[p]) + 1
    return jnp.stack([regular, finished]) @ const(to_yield) * era


def city_site(state: GameState, p: jax.Array, cs: jax.Array) -> jax.Array:
    """(SITE_NEEDS,) which site conditions city ``cs`` meets: coast, river, fresh water, mountain
    next to it, mountain in its work area, hill, flat, holy city."""
    lay = state.layers
    pos = jnp.maximum(state.cities.pos[p, cs], 0)
    nb = neighbor_table()[pos]
    ring1 = nb >= 0
    coastal = ((lay.elevation[jnp.maximum(nb, 0)] == 0) & ~lay.lake[jnp.maximum(nb, 0)] & ring1).any()
    river = lay.river[pos] > 0
    lake = (lay.lake[jnp.maximum(nb, 0)] & ring1).any()
    mountain = ((lay.elevation[jnp.maximum(nb, 0)] == 3) & ring1).any()
    nearby = (gather(lay.elevation, work_frames(pos), 0) == 3).any()
    elev = lay.elevation[pos]
    site = [coastal, river, river | lake, mountain, nearby, elev == 2, elev == 1, holy_city(state)[p, cs]]
    return jnp.stack(site)


class PolicyCityEffects(NamedTuple):
    """What ``p``'s policies and tenets add to each of its cities."""

    flat: jax.Array  # (10, 8) yields: per city, capital, coastal, big and connected cities, buildings
    per_pop: jax.Array  # (10, 8) per citizen
    percent: jax.Array  # (10, 8)
    tile_bonus: jax.Array  # (10, C, 7) on worked tiles of each tile class
    on_buildings: jax.Array  # (10, 8) the part of ``flat`` that comes from buildings (observation)


def civic_part(part: str) -> jax.Array:
    """(154,) 1 on the civic rows of ``part``: "policies" (policies and finishers) or "tenets"."""
    n_policy_rows = load_tables().policy_tree_onehot.shape[0] + load_tables().policy_tree_onehot.shape[1]
    is_policy = np.arange(n_policy_rows + len(load_tables().tenet_names)) < n_policy_rows
    return const((is_policy if part == "policies" else ~is_policy).astype(np.float32))


def policy_city_effects(state: GameState, p: jax.Array, only: jax.Array | None = None) -> PolicyCityEffects:
    """What the civic rows acting in each city of ``p`` add to it (``city_civic_rows``); ``only``
    (154,) keeps a part of the rows (``civic_part``), for the observation's policy and religion fields.

    Tenets add, besides the policies' columns, yields per unit of a count (followers, following
    cities, wonders: ``beliefs.tenet_counts``) and yields in cities meeting a site condition.
    """
    tb = load_tables()
    c = state.cities
    rows = city_civic_rows(state, p) if only is None else city_civic_rows(state, p) * only  # (10, 154)
    capital = c.capital[p][:, None].astype(jnp.float32)
    sites = jax.vmap(lambda cs: city_site(state, p, cs))(jnp.arange(MAX_CITIES)).astype(jnp.float32)
    coastal = sites[:, :1]
    built = c.buildings[p].astype(jnp.float32)

    def per_row(table: np.ndarray) -> jax.Array:
        return rows @ const(table.reshape(table.shape[0], -1))

    def per_building(table: np.ndarray) -> jax.Array:
        return jnp.einsum("fb,fby->fy", built, per_row(table).reshape(MAX_CITIES, BUILDING_SLOTS, -1))

    on_buildings = per_building(tb.policy_building_yields)
    flat = per_row(tb.policy_city_yields) + capital * per_row(tb.policy_capital_yields)
    flat = flat + coastal * per_row(tb.policy_coastal_yields) + on_buildings
    big = (c.pop[p][:, None] >= const(tb.policy_pop_min)[None, :]) * rows  # (10, 154)
    flat = flat + big @ const(tb.policy_pop_yields)
    connected = connected_to_capital(state, p)[:, None]
    flat = flat + connected * per_row(tb.policy_connected_yields)
    per_pop = per_row(tb.policy_city_per_pop) + capital * per_row(tb.policy_capital_per_pop)
    percent = per_row(tb.policy_city_percent) + capital * per_row(tb.policy_capital_percent)
    percent = percent + per_building(tb.policy_building_percent)
    tenets = rows[:, -len(tb.tenet_names) :]  # (10, 91)
    counts = jnp.floor(tenet_counts(state, p) / const(tb.tenet_count_per))
    counts = jnp.minimum(counts, const(tb.tenet_count_max))
    units = counts * tenets[..., None]  # (10, 91, K)
    flat = flat + jnp.einsum("ftk,tky->fy", units, const(tb.tenet_count_yields))
    flat = flat + jnp.einsum("fs,ft,tsy->fy", sites, tenets, const(tb.tenet_site_yields))
    percent = percent + jnp.einsum("ftk,tky->fy", units, const(tb.tenet_count_percent))
    tile_bonus = class_bonus(rows, tb.policy_tile_bonus)
    exists = c.exists[p][:, None]
    return PolicyCityEffects(
        flat * exists, per_pop * exists, percent * exists, tile_bonus, on_buildings * exists
    )


def empire_multipliers(state: GameState, p: jax.Array) -> jax.Array:
    """(8,) yield factors for the whole empire: golden age, and each unhappy point's cost.

    A golden age multiplies production, gold and culture (rules ``golden_age_yields``); each point of
    unhappiness (happiness below 0) takes ``unhappy_yield_penalty`` of production and gold.
    """
    r = load_tables().rules
    pl = state.players
    golden = jnp.where(pl.golden_age_turns[p] > 0, jnp.asarray(r["golden_age_yields"], jnp.float32), 1.0)
    unhappy = jnp.minimum(pl.happiness[p], 0.0)
    penalty = jnp.maximum(1.0 + r["unhappy_yield_penalty"] * unhappy, 0.0)
    hit = jnp.zeros(N_BUILDING_YIELDS).at[PROD].set(1.0).at[GOLD].set(1.0)
    return golden * jnp.where(hit > 0, penalty, 1.0)


def golden_age_length(state: GameState, p: jax.Array) -> jax.Array:
    """Turns of a golden age of ``p``: 10, raised by ``golden_age_length_pct`` (Chichen Itza +50 %)."""
    tb = load_tables()
    return tb.rules["golden_age_turns"] * (
        1 + empire_modifiers(state, p)[tb.modifier("golden_age_length_pct")] / 100.0
    )


def apply_grants(state: GameState, p: jax.Array, grants: jax.Array) -> GameState:
    """One-time grants (GRANTS,) to ``p``: free techs and policies, a golden age, great people (born
    by ``great_people``; a great person "of choice", the Aesthetics finisher's, is of the kind with
    the most points). Population grants are applied where the building stands
    (``cities.production_phase``)."""
    pl = state.players
    g = {name: grants[i] for i, name in enumerate(GRANTS)}
    length = golden_age_length(state, p)
    people = jnp.stack([g[f"great_person_{k}"] for k in (*SPECIALISTS, "prophet")]).astype(jnp.int32)
    choice = jnp.arange(len(SPECIALISTS) + 1) == jnp.argmax(state.great.points[p])
    people = people + choice * g["free_great_people"].astype(jnp.int32)
    players = pl._replace(
        free_techs=pl.free_techs.at[p].add(g["free_techs"].astype(jnp.int32)),
        free_policies=pl.free_policies.at[p].add(g["free_policies"].astype(jnp.int32)),
        golden_age_turns=pl.golden_age_turns.at[p].add((g["golden_age"] * length).astype(jnp.int32)),
        great_people=pl.great_people.at[p].add(people),
    )
    return state._replace(players=players)
