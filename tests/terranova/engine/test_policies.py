"""Social policies: the cost formula, tree structure and era gates, the policy endpoint as a
masked preference (executed pairs legal, never twice, invariant to rescaled scores) and every
policy's effect in a position where it shows."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from hexarena.games.terranova.engine import formulas
from hexarena.games.terranova.engine.effects import civic_rows, empire_modifiers
from hexarena.games.terranova.engine.geometry import work_area
from hexarena.games.terranova.engine.rules.cities import city_yields, production_phase
from hexarena.games.terranova.engine.rules.policies import adopt_policies, next_policy_cost, policy_mask
from hexarena.games.terranova.engine.rules.units import found_city
from hexarena.games.terranova.engine.tables import (
    CULTURE,
    FAITH,
    FOOD,
    GRANTS,
    MODIFIERS,
    N_BUILDABLES,
    load_tables,
)

from ..tn_helpers import grassland_start

TB = load_tables()
P0 = jnp.int32(0)
N_POL = len(TB.policy_names)


@pytest.fixture(scope="module")
def empire():
    """Player 0 with a 4-citizen coastal capital on grassland, every tech, 100 culture."""
    s, centre = grassland_start()
    sea = int(work_area()[centre, 1])  # the first citizen's tile: bare ocean, so the capital is coastal
    lay = s.layers
    s = s._replace(
        layers=lay._replace(elevation=lay.elevation.at[sea].set(0), terrain=lay.terrain.at[sea].set(0))
    )
    s = found_city(s, P0, jnp.int32(centre))
    c, pl = s.cities, s.players
    return s._replace(
        cities=c._replace(pop=c.pop.at[0, 0].set(4)),
        players=pl._replace(techs=pl.techs.at[0].set(True), culture=pl.culture.at[0].set(100.0)),
    )


def _adopt(s, *names: str):
    pl = s.players
    pol = pl.policies
    for n in names:
        pol = pol.at[0, TB.policy(n)].set(True)
    return s._replace(players=pl._replace(policies=pol))


@pytest.mark.parametrize(
    ("n", "cities", "pct", "per_city", "cost"),
    [
        (0, 1, 0, 0, 15),  # 5 x floor(3.5)
        (1, 1, 0, 0, 20),  # 5 x floor(4.5)
        (2, 1, 0, 0, 40),  # 5 x floor(8)
        (3, 1, 0, 0, 70),  # 5 x floor(14)
        (4, 1, 0, 0, 110),  # 5 x floor(22.5)
        (3, 3, 0, 0, 85),  # 70 x 1.2 = 84 -> 85 (the original rounds to the nearest 5)
        (2, 2, 0, 0, 45),  # 40 x 1.1 = 44 -> 45
        (2, 3, 0, 0, 50),  # 40 x 1.2 = 48 -> 50
        (1, 2, -10, 0, 18),  # 20 x 1.1 = 22 -> 20, then x 0.9 unrounded (the original's multiplier)
        (3, 4, 0, -33, 85),  # 70 x (1 + 3 x 0.067) = 84.07 -> 85
    ],
)
def test_policy_cost(n, cities, pct, per_city, cost):
    assert float(formulas.policy_cost(np.array(n), np.array(cities), pct, per_city)) == pytest.approx(cost)


def test_trees_openers_prerequisites_and_eras(empire):
    s = empire
    pl = s.players
    early = s._replace(
        players=pl._replace(techs=jnp.zeros_like(pl.techs).at[0, TB.tech("agriculture")].set(True))
    )
    legal = {TB.policy_names[i] for i in np.flatnonzero(np.asarray(jax.jit(policy_mask)(early, P0)))}
    assert legal == {"tradition_opener", "liberty_opener", "honor_opener", "piety_opener"}
    legal = {TB.policy_names[i] for i in np.flatnonzero(np.asarray(jax.jit(policy_mask)(s, P0)))}
    assert len(legal) == 9 and all(n.endswith("_opener") for n in legal)  # all eras reached
    opened = _adopt(s, "tradition_opener")
    legal = {TB.policy_names[i] for i in np.flatnonzero(np.asarray(jax.jit(policy_mask)(opened, P0)))}
    assert {"aristocracy", "oligarchy", "legalism"} <= legal and "landed_elite" not in legal
    assert "tradition_opener" not in legal


_adopt_jit = jax.jit(adopt_policies)


def test_endpoint_buys_then_takes_the_free_policy(empire):
    s = empire
    pl = s.players
    s = s._replace(players=pl._replace(free_policies=pl.free_policies.at[0].set(1)))
    scores = jnp.zeros(N_POL).at[TB.policy("piety_opener")].set(5.0).at[TB.policy("honor_opener")].set(4.0)
    out, ex = _adopt_jit(s, P0, scores)
    assert ex.tolist() == [TB.policy("piety_opener"), TB.policy("honor_opener")]
    assert float(out.players.culture[0]) == 100.0 - 15.0 and int(out.players.free_policies[0]) == 0
    assert float(jax.jit(next_policy_cost)(out, P0)) == 40.0  # the third policy
    poor = s._replace(players=s.players._replace(culture=s.players.culture.at[0].set(14.0)))
    out, ex = _adopt_jit(poor, P0, scores)
    assert ex.tolist() == [-1, TB.policy("piety_opener")]  # only the free pick
    assert float(out.players.culture[0]) == 14.0


def test_endpoint_property_legal_once_and_scale_invariant(empire):
    """Random preferences for 40 turns of rich culture: every executed policy was legal, none twice,
    and rescaled or shifted scores execute the same policies."""
    s = empire
    key = jax.random.PRNGKey(3)
    for _ in range(40):
        key, k = jax.random.split(key)
        scores = jax.random.normal(k, (N_POL,))
        pl = s.players
        s = s._replace(
            players=pl._replace(
                culture=pl.culture.at[0].set(1e6), free_policies=pl.free_policies.at[0].set(1)
            )
        )
        legal = np.asarray(jax.jit(policy_mask)(s, P0))
        out, ex = _adopt_jit(s, P0, scores)
        _, ex2 = _adopt_jit(s, P0, scores * 3.5 + 2.0)
        assert ex.tolist() == ex2.tolist()
        ex = np.asarray(ex)
        for pick in ex[ex >= 0]:
            assert not s.players.policies[0, pick]
        if ex[0] >= 0:
            assert legal[ex[0]]
        s = out
    assert int(s.players.policies[0].sum()) == N_POL  # all 54, each once


def _rich(s):
    """The capital owns every building (so building effects show) and stands for all cities."""
    c = s.cities
    return s._replace(cities=c._replace(buildings=c.buildings.at[0, 0].set(True)))


_yields = jax.jit(lambda s: city_yields(s, P0, jnp.zeros((10, 36, 36))).yields[0])


def _speed(s):
    """Production toward each buildable in the capital for 100 base production."""
    c = s.cities
    s = s._replace(cities=c._replace(buildings=c.buildings.at[0, 0].set(False)))

    def one(item):
        st = s._replace(cities=s.cities._replace(constructing=s.cities.constructing.at[0, 0].set(item)))
        out, *_ = production_phase(st, P0, jnp.zeros((10, N_BUILDABLES)), jnp.full(10, 100.0), jnp.zeros(10))
        return out.cities.prod[0, 0]

    return jax.vmap(one)(jnp.arange(N_BUILDABLES))


_speed_jit = jax.jit(_speed)
_mods = jax.jit(lambda s: empire_modifiers(s, P0))

# Rows whose effects act only on systems of later stages (city states, kills and XP, trade routes,
# workers' speed, new cities): their modifier columns are set and act when those systems land.
LATER = {
    "honor_opener", "patronage_opener", "merchant_confederacy", "scholasticism", "cultural_diplomacy",
    "philanthropy", "consulates", "trade_unions", "merchant_navy", "patronage_finisher",
}  # fmt: skip
# Modifier columns the engine reads today.
APPLIED = [
    MODIFIERS.index(m)
    for m in (
        "border_cost_pct", "improvement_time_pct", "connection_gold_pct", "unhappiness_pct", "upkeep_pct", "happiness_per_luxury",
        "free_units", "free_units_per_city", "science_pct_when_happy", "policy_cost_pct",
        "policy_cost_per_city_pct", "golden_age_length_pct", "culture_pct_all_cities",
        "artist_gp_pct", "musician_gp_pct", "writer_gp_pct", "merchant_gp_pct", "scientist_gp_pct",
        "science_per_specialist", "great_work_culture", "great_work_science", "great_work_tourism",
        "culture_building_tourism_pct", "tourism_pct", "great_merchant_gold_pct",
    )
]  # fmt: skip
ROWS = [*TB.policy_names, *(f"{t}_finisher" for t in TB.tree_names)]


def _effect(s):
    return _yields(s), _speed_jit(s), _mods(s)


def _delta(after, before, columns=None):
    changed = [not np.allclose(a, b, atol=1e-4) for a, b in zip(after[:2], before[:2], strict=True)]
    mods = np.asarray(after[2]) - np.asarray(before[2])
    return any(changed) or bool(np.abs(mods if columns is None else mods[columns]).max() > 0)


@pytest.mark.parametrize("row", ROWS)
def test_every_policy_row_has_an_effect(empire, row):
    """Each policy (and tree finisher) changes the capital's yields or production speeds or an
    applied empire modifier, or grants something on adoption; a finisher does more than its tree's
    last policy alone. Rows acting on later systems at least set their modifier columns."""
    s = _rich(empire)
    i = ROWS.index(row)
    columns = None if row in LATER else APPLIED
    if TB.policy_grants[i].any() or TB.policy_free_buildings[i].any():
        return  # checked through the endpoint in test_adoption_grants_and_free_buildings
    if i < N_POL:
        after = _adopt(s, row)
        assert float(civic_rows(after, P0)[i]) == 1.0
        assert _delta(_effect(after), _effect(s), columns), f"{row} has no effect"
        return
    names = [n for j, n in enumerate(TB.policy_names) if TB.policy_tree[j] == i - N_POL]
    five, six = _adopt(s, *names[:-1]), _adopt(s, *names)
    assert float(civic_rows(six, P0)[i]) == 1.0 and float(civic_rows(five, P0)[i]) == 0.0
    last_alone = [
        np.asarray(a) - np.asarray(b) for a, b in zip(_effect(_adopt(s, names[-1])), _effect(s), strict=True)
    ]
    with_finisher = [np.asarray(a) - np.asarray(b) for a, b in zip(_effect(six), _effect(five), strict=True)]
    assert _delta(with_finisher, last_alone, columns), f"{row} has no effect"


def test_tradition_and_liberty_openers_hand_computed(empire):
    s = empire
    base = np.asarray(_yields(s))
    trad = np.asarray(_yields(_adopt(s, "tradition_opener")))
    assert trad[CULTURE] == pytest.approx(base[CULTURE] + 3)  # +3 culture in the capital
    lib = np.asarray(_yields(_adopt(s, "liberty_opener")))
    assert lib[CULTURE] == pytest.approx(base[CULTURE] + 1)  # +1 culture per city
    piety = np.asarray(_yields(_adopt(s, "piety_opener")))
    assert piety[FAITH] == pytest.approx(base[FAITH] + 1) and piety[CULTURE] == pytest.approx(
        base[CULTURE] + 1
    )
    elite = np.asarray(_yields(_adopt(s, "tradition_opener", "legalism", "landed_elite")))
    # +2 food in the capital, then +15 %: (base + 2) x 1.15
    assert elite[FOOD] == pytest.approx((base[FOOD] + 2) * 1.15, rel=1e-5)


def test_organized_religion_on_shrines(empire):
    c = empire.cities
    s = empire._replace(cities=c._replace(buildings=c.buildings.at[0, 0, TB.building("shrine")].set(True)))
    base = np.asarray(_yields(s))
    got = np.asarray(_yields(_adopt(s, "piety_opener", "organized_religion")))
    assert got[FAITH] == pytest.approx(base[FAITH] + 1 + 1)  # +1 capital (opener) +1 on the shrine
    assert got[CULTURE] == pytest.approx(base[CULTURE] + 1 + 1)


def test_humanism_speeds_libraries(empire):
    speed = np.asarray(_speed_jit(_adopt(empire, "rationalism_opener", "humanism")))
    base = np.asarray(_speed_jit(empire))
    lib = TB.building("library")
    assert speed[lib] == pytest.approx(base[lib] + 50.0)  # +50 % of 100 production


def test_adoption_grants_and_free_buildings(empire):
    s = _adopt(empire, "aesthetics_opener")
    scores = jnp.zeros(N_POL).at[TB.policy("cultural_centers")].set(1.0)
    out, ex = _adopt_jit(s, P0, scores)
    assert int(ex[0]) == TB.policy("cultural_centers")
    s = _adopt(empire, "tradition_opener")
    out, ex = _adopt_jit(s, P0, jnp.zeros(N_POL).at[TB.policy("legalism")].set(1.0))
    assert int(ex[0]) == TB.policy("legalism") and bool(out.cities.buildings[0, 0, TB.building("monument")])
    s = _adopt(empire, "rationalism_opener", "sovereignty", "free_thought")
    out, _ = _adopt_jit(s, P0, jnp.zeros(N_POL).at[TB.policy("scientific_revolution")].set(1.0))
    assert int(out.players.great_people[0, 5]) == 1  # a great scientist
    assert TB.policy_grants[TB.policy("representation"), GRANTS.index("golden_age")] == 1
    assert TB.policy_empire_mods[TB.policy("entrepreneurship"), MODIFIERS.index("upkeep_pct")] == -25
