"""Religion, first step: the pantheon cost formula, the tenet endpoint as a masked preference
(executed tenets legal, each pantheon belief taken once in the game, invariant to rescaled scores),
every pantheon belief's effect in a position where it shows, and the observation fields it feeds."""

from __future__ import annotations

import json
from importlib import resources

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from hexarena.games.terranova.engine.effects import empire_modifiers
from hexarena.games.terranova.engine.geometry import work_area
from hexarena.games.terranova.engine.rules.cities import city_yields
from hexarena.games.terranova.engine.rules.religion import choose_tenets, pantheon_cost, tenet_mask
from hexarena.games.terranova.engine.rules.units import found_city
from hexarena.games.terranova.engine.spaces import zero_actions
from hexarena.games.terranova.engine.tables import MODIFIERS, load_tables

from ..tn_helpers import contract_observe, contract_step, fed, grassland_start
from .test_policies import _rich, _speed_jit

TB = load_tables()
P0 = jnp.int32(0)
N_TENETS = 91
TENETS = json.loads(resources.files("hexarena.games.terranova").joinpath("data", "tenets.json").read_text())
PANTHEONS = [t for t in TENETS["tenets"] if t["kind"] == "pantheon"]


@pytest.fixture(scope="module")
def start():
    """Player 0 with a 4-citizen capital on grassland, every tech; returns (state, the tile its
    citizens work with neutral preferences)."""
    s, centre = grassland_start()
    s = found_city(s, P0, jnp.int32(centre))
    c, pl = s.cities, s.players
    s = s._replace(
        cities=c._replace(pop=c.pop.at[0, 0].set(4)), players=pl._replace(techs=pl.techs.at[0].set(True))
    )
    return s, int(work_area()[centre, 1])


def _take(s, *names: str, player: int = 0):
    pl = s.players
    t = pl.tenets
    for n in names:
        t = t.at[player, TB.tenet(n)].set(True)
    return s._replace(players=pl._replace(tenets=t))


def _with_faith(s, faith):
    return s._replace(players=s.players._replace(faith=jnp.asarray(faith, jnp.float32)))


_choose = jax.jit(choose_tenets)
_mask = jax.jit(tenet_mask)
_yields = jax.jit(lambda s: city_yields(s, P0, jnp.zeros((10, 36, 36))).yields)
_mods = jax.jit(lambda s: empire_modifiers(s, P0))


@pytest.mark.parametrize(("taken", "cost"), [(0, 10), (1, 15), (2, 20), (5, 35)])
def test_pantheon_cost_is_10_plus_5_per_pantheon_taken(start, taken, cost):
    s, _ = start
    for p in range(taken):  # players 1.. each hold one belief
        s = _take(s, PANTHEONS[p]["name"], player=p + 1)
    assert float(jax.jit(pantheon_cost)(s)) == cost


def test_endpoint_takes_the_preferred_free_belief_and_spends_the_faith(start):
    s, _ = start
    scores = jnp.zeros(N_TENETS).at[TB.tenet("god_king")].set(2.0).at[TB.tenet("sun_god")].set(1.0)
    scores = scores.at[TB.tenet("dharma")].set(9.0)  # an enhancer: not yet legal
    poor = _with_faith(s, [9.9, 0, 0, 0, 0, 0])
    out, ex = _choose(poor, P0, scores)
    assert ex.tolist() == [-1, -1, -1] and not out.players.tenets.any()
    rich = _take(_with_faith(s, [30, 0, 0, 0, 0, 0]), "god_king", player=3)  # god_king is player 3's
    out, ex = _choose(rich, P0, scores)
    assert ex.tolist() == [TB.tenet("sun_god"), -1, -1]
    assert float(out.players.faith[0]) == 30 - 15  # the second pantheon of the game costs 15
    out2, ex2 = _choose(out, P0, scores)  # one pantheon per player
    assert ex2.tolist() == [-1, -1, -1] and float(out2.players.faith[0]) == 15


def test_endpoint_property_legal_once_and_scale_invariant(start):
    """Six players with faith take pantheons in turns under random scores: every executed tenet was
    legal, no belief is taken twice, a rescaled score vector picks the same."""
    s, _ = start
    c = s.cities
    s = s._replace(cities=c._replace(exists=c.exists.at[:, 0].set(True)))
    key = jax.random.PRNGKey(7)
    taken = []
    for rnd in range(3):
        for p in range(6):
            key, sub = jax.random.split(key)
            scores = jax.random.normal(sub, (N_TENETS,))
            s = _with_faith(s, s.players.faith.at[p].add(12.0 * (rnd + 1)))
            legal = np.asarray(_mask(s, jnp.int32(p)))
            out, ex = _choose(s, jnp.int32(p), scores)
            _, ex2 = _choose(s, jnp.int32(p), scores * 3.5 + 2.0)
            assert ex.tolist() == ex2.tolist()
            if ex[0] >= 0:
                assert legal[ex[0]] and int(ex[0]) not in taken
                taken.append(int(ex[0]))
            else:
                assert not legal.any()
            s = out
    assert len(taken) == 6 and (np.asarray(s.players.tenets).sum(0) <= 1).all()
    assert (np.asarray(s.players.faith) >= 0).all()


def _set_tile(s, tile: int, cls: str):
    """Make ``tile`` a plain grassland tile of tile class ``cls`` (or a bare ocean one for sea classes)."""
    lay, t = s.layers, s.tiles
    sea = cls in ("fish", "whales", "crabs", "pearls", "coral", "fishing_boat", "lake")
    elevation = lay.elevation.at[tile].set(0 if sea else 1)
    terrain = lay.terrain.at[tile].set({"tundra": 4, "desert": 3}.get(cls, 1))
    lake, resource = lay.lake.at[tile].set(cls == "lake"), lay.resource
    feature, improvement, wonder = t.feature, t.improvement, lay.natural_wonder
    if cls in TB.resource_names:
        resource = resource.at[tile].set(TB.resource_names.index(cls))
    elif cls in TB.improvement_names:
        improvement = improvement.at[tile].set(TB.improvement_names.index(cls))
    elif cls in ("forest", "jungle", "oasis"):
        feature = feature.at[tile].set({"forest": 1, "jungle": 2, "oasis": 4}[cls])
    elif cls == "natural_wonder":
        wonder = wonder.at[tile].set(1)
    lay = lay._replace(
        elevation=elevation, terrain=terrain, lake=lake, resource=resource, natural_wonder=wonder
    )
    return s._replace(layers=lay, tiles=t._replace(feature=feature, improvement=improvement))


def _connected_pair(s):
    """A second city four tiles away, joined to the capital by roads on every tile."""
    centre = int(s.cities.pos[0, 0])
    other = int(np.flatnonzero(work_area()[centre] >= 0)[-1])
    s = found_city(s, P0, jnp.int32(work_area()[centre][other]))
    return s._replace(tiles=s.tiles._replace(road=jnp.ones_like(s.tiles.road)))


def _sign(v):
    return np.sign(np.round(np.asarray(v, np.float64), 4))


@pytest.mark.parametrize("tenet", PANTHEONS, ids=[t["name"] for t in PANTHEONS])
def test_every_pantheon_belief_has_its_effect(start, tenet):
    """Each effect row of the belief shows where it applies (and only with the belief)."""
    s, tile = start
    name, e = tenet["name"], tenet["effects"]
    assert e, f"{name} has no effect rows"
    for entry_tiles in [x["tiles"] for x in e.get("tile_yields", ())]:
        for cls in entry_tiles:
            base = _set_tile(s, tile, cls)
            want = sum(np.asarray(x["yields"]) for x in e["tile_yields"] if cls in x["tiles"])
            delta = np.asarray(_yields(_take(base, name)) - _yields(base))[0, :7]
            assert (_sign(delta) == np.sign(want)).all(), f"{name} on {cls}: {delta} vs {want}"
    if "building_yields" in e:
        rich = _rich(s)
        want = sum(np.asarray(x["yields"]) * len(x["buildings"]) for x in e["building_yields"])
        delta = np.asarray(_yields(_take(rich, name)) - _yields(rich))[0]
        assert (_sign(delta) == np.sign(want)).all(), f"{name}: {delta} vs {want}"
    if "city_yields" in e:
        delta = np.asarray(_yields(_take(s, name)) - _yields(s))[0]
        assert (_sign(delta) == np.sign(e["city_yields"])).all()
    if "pop_yields" in e:
        need = e["pop_yields"]["min_pop"]
        for pop, shows in ((need, True), (need - 1, False)):
            st = s._replace(cities=s.cities._replace(pop=s.cities.pop.at[0, 0].set(pop)))
            delta = np.asarray(_yields(_take(st, name)) - _yields(st))[0]
            assert (_sign(delta) == np.sign(e["pop_yields"]["yields"]) * shows).all()
    if "connected_city_yields" in e:
        pair = _connected_pair(s)
        delta = np.asarray(_yields(_take(pair, name)) - _yields(pair))
        assert (_sign(delta[1]) == np.sign(e["connected_city_yields"])).all()  # the connected city
        assert not _sign(delta[0]).any()  # the capital is not "connected to the capital"
    if "production_pct" in e:
        speed = np.asarray(_speed_jit(_take(s, name)) - _speed_jit(s))
        assert speed[TB.building("stonehenge")] > 0 and speed[TB.building("great_library")] > 0
        assert speed[TB.building("sistine_chapel")] == 0 and speed[TB.building("shrine")] == 0  # renaissance
    for key, value in e.get("modifiers", {}).items():
        assert float((_mods(_take(s, name)) - _mods(s))[MODIFIERS.index(key)]) == value


def test_god_of_craftsmen_hand_computed(start):
    """+1 production in the capital: 1 (centre) + 0 (the worked grassland) ... + 1."""
    s, _ = start
    before, after = np.asarray(_yields(s))[0], np.asarray(_yields(_take(s, "god_of_craftsmen")))[0]
    assert after[1] - before[1] == pytest.approx(1.0)
    assert np.allclose(np.delete(after, 1), np.delete(before, 1))


def test_step_takes_a_pantheon_and_the_observation_shows_it(start):
    """Through the step: the executed (3,) names the pantheon; the observation's religious_tenets
    and religion_info carry it (tenets in each city, yields on buildings and on worked tiles)."""
    s, tile = start
    s = _set_tile(s, tile, "wheat")
    s = fed(_with_faith(s._replace(player=jnp.int32(0), auto_reset=jnp.bool_(False)), [10, 0, 0, 0, 0, 0]))
    c = s.cities
    s = s._replace(cities=c._replace(buildings=c.buildings.at[0, 0, TB.building("palace")].set(True)))
    actions = zero_actions()
    want = TB.tenet("harvest_festival")
    actions = (actions[0], actions[1], jnp.zeros(N_TENETS).at[want].set(1.0), *actions[3:])
    out, executed, *_ = contract_step(s, actions)
    assert np.asarray(executed[2]).tolist() == [want, -1, -1]
    assert bool(out.players.tenets[0, want])
    obs = contract_observe(out)
    assert np.asarray(obs["religious_tenets"])[0].tolist() == np.eye(N_TENETS, dtype=int)[want].tolist()
    info = obs["player_cities"]["religion_info"]
    assert np.asarray(info["religious_tenets_per_city"])[0, want] == 1
    assert not np.asarray(info["religious_tenets_per_city"])[1:].any()  # no other city
    assert np.asarray(info["additional_yield_map"]).reshape(10, -1, 7)[0, tile].tolist() == [
        1,
        0,
        0,
        0,
        0,
        0,
        0,
    ]
    assert not np.asarray(info["building_yields"]).any()  # harvest festival adds nothing on buildings
    followers = np.asarray(info["religious_population"])  # a pantheon: all citizens follow it
    assert followers[0].tolist() == [4, 0, 0, 0, 0, 0] and not followers[1:].any()
