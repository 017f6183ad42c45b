"""Every stage-1 formula against hand-computed values."""

import numpy as np
import pytest

from hexarena.games.terranova.engine import formulas


def test_growth_threshold():
    # floor((15 + 8(n-1) + (n-1)^1.5) x 2/3)
    assert formulas.growth_threshold(np.array(1)) == 10
    assert formulas.growth_threshold(np.array(2)) == 16  # 24 x 2/3
    assert formulas.growth_threshold(np.array(5)) == 36  # (15 + 32 + 8) x 2/3 = 36.67


def test_border_cost():
    """6.87 x (tiles owned besides the centre - 5)^2.06; 0 at 5 and (not the original's NaN) below."""
    assert formulas.border_cost(np.array(6)) == pytest.approx(6.87)
    assert formulas.border_cost(np.array(7)) == pytest.approx(6.87 * 2**2.06)
    assert formulas.border_cost(np.array(5)) == 0.0 and formulas.border_cost(np.array(3)) == 0.0


def test_combat_damage_even_and_stronger():
    d, a = formulas.combat_damage(np.array(10.0), np.array(10.0), np.array(False))
    assert d == pytest.approx(0.3) and a == pytest.approx(0.3)
    d, a = formulas.combat_damage(np.array(20.0), np.array(10.0), np.array(False))
    f = (5 / 4) ** 4
    assert d == pytest.approx(0.3 * (f + 1) / 2) and a == pytest.approx(0.3 * 2 / (f + 1))
    d, a = formulas.combat_damage(np.array(7.0), np.array(8.0), np.array(True))
    assert a == 0 and 0 < d < 0.3


def test_city_strength():
    # 8 + hill 2 + 2 (pop 5) + capital 2.5 + ancient era 1 + walls 5
    s = formulas.city_strength(np.array(5), np.array(1), np.array(1), np.array(0), np.array(500.0))
    assert s == pytest.approx(20.5)
    assert formulas.city_strength(np.array(1), np.array(0), np.array(0), np.array(3), np.array(0.0)) == 26


def test_unit_upkeep():
    assert formulas.unit_upkeep(np.array(1), np.array(0)) == 0
    assert formulas.unit_upkeep(np.array(3), np.array(0)) == pytest.approx(1.0)
    assert formulas.unit_upkeep(np.array(3), np.array(330)) == pytest.approx(2 * 50 * 9 / 100 * (1 + 1 / 7))


def test_score():
    # one city of one citizen with seven tiles and one tech: (6 + 6 + 42) / 10
    assert formulas.score(np.array(1), np.array(1), np.array(7), np.array(0), np.array(1)) == pytest.approx(
        5.4
    )
    assert formulas.score(np.array(2), np.array(5), np.array(20), np.array(1), np.array(4)) == pytest.approx(
        20.2
    )


def test_score_counts_policies():
    # (6 + 6 + 6 x 7 + 8 x 3 + 10 x 0) / 10
    got = formulas.score(np.array(1), np.array(1), np.array(7), np.array(0), np.array(1), np.array(3))
    assert got == pytest.approx((6 + 6 + 42 + 24) / 10)


def test_score_counts_tenets():
    # (6 + 6 + 6 x 7 + 8 x 3 + 4 x 1 + 10 x 0) / 10: a pantheon belief is worth 4
    got = formulas.score(
        np.array(1), np.array(1), np.array(7), np.array(0), np.array(1), np.array(3), np.array(1)
    )
    assert got == pytest.approx((6 + 6 + 42 + 24 + 4) / 10)
