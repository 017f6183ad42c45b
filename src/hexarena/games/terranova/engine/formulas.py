"""The stage-1 formulas (Civ V with LekMod balance, Quick speed), as small pure functions.

They accept numpy or JAX arrays alike (``xp`` is picked from the input), so tests check them
against hand-computed values and the simulator calls the same code inside ``jit``.
"""

from __future__ import annotations

from typing import Any

import jax.numpy as jnp
import numpy as np

from hexarena.games.terranova.engine.tables import load_tables

Array = Any


def _xp(x: Array) -> Any:
    return np if isinstance(x, (np.ndarray, int, float, np.number)) else jnp


def growth_threshold(pop: Array) -> Array:
    """Food needed to grow from ``pop`` to ``pop + 1``: floor((15 + 8(n-1) + (n-1)^1.5) x 2/3)."""
    r = load_tables().rules
    xp = _xp(pop)
    n = xp.maximum(xp.asarray(pop, dtype=xp.float32) - 1, 0)
    raw = r["growth_base"] + r["growth_linear"] * n + n ** r["growth_exponent"]
    return xp.floor(raw * r["speed_factor"] + 1e-4)


def border_cost(owned: Array) -> Array:
    """Culture for a city's next tile when it owns ``owned`` tiles besides its centre, as the
    original: 6.87 x (owned - 5)^2.06 (6 owned: 6.87; 5 owned: 0). Below 5 the original's power
    is NaN, which no culture reaches, so such a city never grew; here it costs 0, as at 5."""
    r = load_tables().rules
    xp = _xp(owned)
    n = xp.maximum(xp.asarray(owned, dtype=xp.float32) - r["border_cost_free_tiles"], 0.0)
    return r["border_cost_scale"] * n ** r["border_cost_exponent"]


def combat_damage(attacker: Array, defender: Array, ranged: Array) -> tuple[Array, Array]:
    """HP lost (defender, attacker) in one fight, HP in [0, 1]; ranged attackers take nothing.

    With r = attacker / defender strength and f = ((r + 3) / 4)^4: the defender loses
    0.3 (f + 1) / 2 and a melee attacker 0.3 x 2 / (f + 1).
    """
    xp = _xp(attacker)
    base = load_tables().rules["combat_damage"]
    r = attacker / xp.maximum(defender, 1e-3)
    f = ((r + 3) / 4) ** 4
    to_defender = base * (f + 1) / 2
    to_attacker = xp.where(ranged, 0.0, base * 2 / (f + 1))
    return to_defender, to_attacker


def city_strength(pop: Array, on_hill: Array, capital: Array, era: Array, defence: Array) -> Array:
    """8 + hill + 2 per 5 pop + 2.5 for a capital + era bonus of the owner's top era + defence / 100."""
    r = load_tables().rules
    xp = _xp(pop)
    era_bonus = xp.asarray(np.array(r["era_city_strength"], np.float32))[era]
    return (
        r["city_base_strength"]
        + r["city_hill_strength"] * on_hill
        + r["city_strength_per_5_pop"] * (pop // 5)
        + r["capital_strength"] * capital
        + era_bonus
        + defence / 100.0
    )


def unit_upkeep(n_units: Array, turn: Array) -> Array:
    """Gold per turn for ``n_units`` (one free): (n x 50 x (1 + 8g) / 100) x (1 + g / 7), g = turn / 330."""
    r = load_tables().rules
    xp = _xp(n_units)
    n = xp.maximum(n_units - r["free_units"], 0)
    g = turn / r["unit_upkeep_turn_scale"]
    return (n * r["unit_upkeep_base"] * (1 + r["unit_upkeep_growth"] * g) / 100) * (
        1 + g / r["unit_upkeep_era_divisor"]
    )


def connection_gold(pop: Array, capital_pop: Array) -> Array:
    """Gold a city joined to its capital by road earns: pop x 1.1 + capital pop x 0.15 - 1."""
    r = load_tables().rules
    return (
        r["connection_gold_per_pop"] * pop
        + r["connection_gold_per_capital_pop"] * capital_pop
        + r["connection_gold_base"]
    )


def score(
    cities: Array,
    pop: Array,
    tiles: Array,
    wonders: Array,
    techs: Array,
    policies: Array = 0,
    tenets: Array = 0,
    great_works: Array = 0,
) -> Array:
    """LekMod-style score: (6 x cities + 6 x citizens + 6 x tiles + 10 x world wonders + 8 x policies
    + 1 x great works + 4 x tenets + 10 x (techs - 1)) / 10."""
    w = load_tables().rules["score_weights"]
    total = w["cities"] * cities + w["population"] * pop + w["tiles"] * tiles
    total = total + w["world_wonders"] * wonders + w["techs"] * (techs - 1) + w["policies"] * policies
    total = total + w["tenets"] * tenets + w["great_works"] * great_works
    return total / w["divisor"]


def policy_cost(
    n_policies: Array, n_cities: Array, cost_pct: Array = 0.0, per_city_pct: Array = 0.0
) -> Array:
    """Culture for the next policy after ``n_policies``: 5 x floor(1.25 p^2 - 0.25 p + 3.5) (15, 20, 40,
    70, ...), + 10 % per city beyond the first (``per_city_pct`` % less of it: Representation -33),
    rounded to the nearest multiple of 5 (half to even, as the original's ``jnp.round``), then
    ``cost_pct`` % more (Cristo Redentor: -10), unrounded as the original's cost multiplier."""
    r = load_tables().rules
    xp = _xp(n_policies)
    n = xp.asarray(n_policies, dtype=xp.float32)
    raw = r["policy_cost_quadratic"] * n**2 + r["policy_cost_linear"] * n + r["policy_cost_base"]
    step = r["policy_cost_step"]
    base = step * xp.floor(raw + 1e-4)
    cities = xp.maximum(xp.asarray(n_cities, dtype=xp.float32) - 1, 0)
    per_city = r["policy_cost_per_city"] * (1 + per_city_pct / 100.0)
    scaled = base * (1 + per_city * cities)
    return step * xp.round(scaled / step) * (1 + cost_pct / 100.0)


def unhappiness(n_cities: Array, total_pop: Array) -> Array:
    """Unhappiness of an empire: 3 per city beyond the first plus 1 per citizen."""
    r = load_tables().rules
    xp = _xp(n_cities)
    extra = xp.maximum(n_cities - r["unhappiness_free_cities"], 0)
    return r["unhappiness_per_city"] * extra + r["unhappiness_per_pop"] * total_pop
