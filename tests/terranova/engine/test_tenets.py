"""Every founder, follower, enhancer and reformation tenet (54) has its effect in a position where it
shows: player 0's capital follows player 0's religion (so the tenets it holds act there) and each
effect row of ``tenets.json`` is checked where it applies, counts and percents hand-computed. A
founder tenet works only for its founder; a follower tenet works in any city its religion leads."""

from __future__ import annotations

import json
from importlib import resources

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from hexarena.games.terranova.engine.effects import city_modifiers, empire_modifiers
from hexarena.games.terranova.engine.geometry import work_area
from hexarena.games.terranova.engine.rules.cities import city_yields
from hexarena.games.terranova.engine.rules.pressure import pressure_sent
from hexarena.games.terranova.engine.rules.religion import buy_with_faith, prophet_cost
from hexarena.games.terranova.engine.tables import MODIFIERS

from ..religion_helpers import TB, add_city, capital_start, follow, take, tile_at
from .test_policies import _rich
from .test_religion import _set_tile

P0, P1 = jnp.int32(0), jnp.int32(1)
TENETS = json.loads(resources.files("hexarena.games.terranova").joinpath("data", "tenets.json").read_text())
RELIGION = [t for t in TENETS["tenets"] if t["kind"] != "pantheon"]
FOOD, PROD, GOLD, FAITH, CULTURE, SCIENCE, HAPPY = range(7)
_yields = jax.jit(lambda s, p: city_yields(s, p, jnp.zeros((10, 36, 36))).yields)
_emods = jax.jit(lambda s: empire_modifiers(s, P0))
_cmods = jax.jit(lambda s: city_modifiers(s, P0))
_sent = jax.jit(pressure_sent)


@pytest.fixture(scope="module")
def home():
    """(state, worked tile): player 0's capital, all 4 citizens following player 0's religion
    (player 0 holds a pantheon; the tenets under test are added)."""
    s, centre = capital_start()
    s = follow(take(s, "dance_of_the_aurora"), 0, 0, 0, 4)
    return s, int(work_area()[centre, 1])


def _delta(s, name: str, player=P0) -> np.ndarray:
    return np.asarray(_yields(take(s, name), player) - _yields(s, player))


def _sign(v):
    return np.sign(np.round(np.asarray(v, np.float64), 4))


def _world(s):
    """Player 1's 9-citizen city, 8 tiles away, all following player 0's religion: religion 0 has
    13 followers in 2 cities, one of them foreign where it leads."""
    s, slot = add_city(s, 1, tile_at(int(s.cities.pos[0, 0]), 8), 9)
    return follow(s, 1, slot, 0, 9), slot


def _count_position(s, count: str):
    """A position for a count (with no percent in the capital, so the yields are exact), and the
    count's number of units there before ``per`` and ``max``."""
    if count in ("followers", "following_cities", "foreign_majority_cities"):
        s, _ = _world(s)
        return s, {"followers": 13, "following_cities": 2, "foreign_majority_cities": 1}[count]
    kind = "national_wonder" if count == "national_wonders" else "world_wonder"
    plain = [
        TB.building(b["name"])
        for b in json.loads(
            resources.files("hexarena.games.terranova").joinpath("data", "buildings.json").read_text()
        )["buildings"]
        if b["kind"] == kind and not any(b.get("percent", [0])) and not b.get("city_modifiers")
    ][:2]
    c = s.cities
    return s._replace(cities=c._replace(buildings=c.buildings.at[0, 0, jnp.asarray(plain)].set(True))), 2


@pytest.mark.parametrize("tenet", RELIGION, ids=[t["name"] for t in RELIGION])
def test_every_religion_tenet_has_its_effect(home, tenet):
    s, tile = home
    name, e = tenet["name"], tenet["effects"]
    if not e:  # Just War: the original's code gives it nothing (its combat bonus is not written)
        assert name == "just_war" and not _delta(_rich(s), name).any()
        return
    if "building_yields" in e:
        rich = _rich(s)
        want = sum(np.asarray(x["yields"]) * len(x["buildings"]) for x in e["building_yields"])
        got = _delta(rich, name)[0]
        assert (_sign(got) == np.sign(want)).all(), f"{name}: {got} vs {want}"
    if "city_yields" in e:
        want = np.asarray(e["city_yields"]) + np.asarray(e.get("city_percent", np.zeros(8)))
        assert (_sign(_delta(s, name)[0]) == np.sign(want)).all()
    if "pop_yields" in e:
        need = e["pop_yields"]["min_pop"]
        for pop, shows in ((need, True), (need - 1, False)):
            st = follow(
                s._replace(cities=s.cities._replace(pop=s.cities.pop.at[0, 0].set(pop))), 0, 0, 0, pop
            )
            assert (_sign(_delta(st, name)[0]) == np.sign(e["pop_yields"]["yields"]) * shows).all()
    for entry in e.get("tile_yields", ()):
        for cls in entry["tiles"]:
            got = _delta(_set_tile(s, tile, cls), name)[0, :7]
            assert (_sign(got) == np.sign(entry["yields"])).all(), f"{name} on {cls}: {got}"
    for entry in e.get("count_yields", ()):
        st, n = _count_position(s, entry["count"])
        units = min(n // entry.get("per", 1), entry.get("max", 1e9))
        base = np.asarray(_yields(st, P0))[0]
        want = (
            units * np.asarray(entry.get("yields", np.zeros(8)))
            + base * units * np.asarray(entry.get("percent", np.zeros(8))) / 100.0
        )
        if name == "ceremonial_burial":
            want[HAPPY] += 1  # and +1 happiness from the palace
        assert _delta(st, name)[0] == pytest.approx(want, abs=1e-3), name
    if "site_yields" in e:
        river = s._replace(layers=s.layers._replace(river=s.layers.river.at[s.cities.pos[0, 0]].set(1)))
        assert _delta(river, name)[0, HAPPY] == pytest.approx(e["site_yields"]["river"][HAPPY])
        assert _delta(s, name)[0, HAPPY] == 0.0
    if "faith_purchase" in e:
        ready = take(s, "tithe", "choral_music", "disciples")  # with the tested one: five tenets
        ready = ready._replace(players=ready.players._replace(faith=ready.players.faith.at[0].set(500.0)))
        out = jax.jit(buy_with_faith)(take(ready, name), P0)
        got = np.flatnonzero(np.asarray(out.cities.buildings[0, 0] & ~ready.cities.buildings[0, 0]))
        want = sorted(TB.building(b) for b in e["faith_purchase"])
        assert got.tolist() == want and float(out.players.faith[0]) == pytest.approx(375.0)
    for key, value in e.get("modifiers", {}).items():
        assert float((_emods(take(s, name)) - _emods(s))[MODIFIERS.index(key)]) == value
    for key, value in e.get("city_modifiers", {}).items():
        assert float((_cmods(take(s, name)) - _cmods(s))[0, MODIFIERS.index(key)]) == value


def test_messiah_makes_prophets_a_quarter_cheaper(home):
    s, _ = home
    cost = jax.jit(prophet_cost, static_argnums=2)
    assert float(cost(s, P0, 0)) == 134.0 and float(cost(take(s, "messiah"), P0, 0)) == pytest.approx(100.5)


def test_promised_land_and_religious_unity_raise_pressure(home):
    """Founded (holy capital sends 27): Promised Land 27 x 1.25 onto the founder's own cities,
    Religious Unity 27 x 2 onto city states."""
    s, _ = home
    s, second = add_city(take(s, "tithe"), 0, tile_at(int(s.cities.pos[0, 0]), 6), 2)
    cities, cs = _sent(s, P0)
    assert float(cities[0, 0, second]) == 27.0
    assert float(_sent(take(s, "promised_land"), P0)[0][0, 0, second]) == pytest.approx(33.75)
    doubled = np.asarray(_sent(take(s, "religious_unity"), P0)[1][0])
    assert (doubled == 2 * np.asarray(cs[0])).all() and doubled.any()


def test_a_founder_tenet_works_only_for_its_founder(home):
    """Tithe (+1 gold per 4 followers): player 1's city follows religion 0 but gets nothing; player
    0's capital gets floor(13 / 4) = 3 gold."""
    s, _ = home
    s, slot = _world(s)
    assert _delta(s, "tithe")[0, GOLD] == pytest.approx(3.0)
    assert _delta(s, "tithe", P1)[slot, GOLD] == 0.0


def test_a_follower_tenet_works_wherever_its_religion_leads(home):
    """Guruship (+2 food +1 production +1 gold) of religion 0 acts in player 1's city that religion 0
    leads, and not once player 1's own religion leads there."""
    s, _ = home
    s, slot = _world(s)
    got = _delta(s, "guruship", P1)[slot]
    assert got[:3] == pytest.approx([2.0, 1.0, 1.0])
    theirs = follow(follow(s, 1, slot, 0, 2), 1, slot, 1, 7)
    assert not _delta(theirs, "guruship", P1)[slot].any()
