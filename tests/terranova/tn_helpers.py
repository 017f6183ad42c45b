"""Shared fixtures' building blocks: one compiled simulator per test module, host-side checks."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from hexarena.games.terranova.geometry import distance_np, work_area
from hexarena.games.terranova.mapgen import generate
from hexarena.games.terranova.religion import pantheon_cost
from hexarena.games.terranova.simulator import build_simulator
from hexarena.games.terranova.state import map_layers
from hexarena.games.terranova.step import new_game
from hexarena.games.terranova.tables import BUILDING_SLOTS, load_tables


def one_game_simulator(seed: int = 0, turn_cap: int = 300):
    return build_simulator([generate(seed)], "duplicate", jax.random.PRNGKey(seed), turn_cap=turn_cap)


def host(tree):
    """Game (0, 0) of a batched pytree, as numpy."""
    return jax.tree_util.tree_map(lambda x: np.asarray(x)[0, 0], tree)


def check_invariants(s, obs) -> None:
    """Caps, one city per tile, units on passable tiles, no foreign stacking, fog, yields."""
    tb = load_tables()
    units_alive = s.units.kind > 0
    cpos = s.cities.pos[s.cities.exists]
    assert len(np.unique(cpos)) == len(cpos), "two cities on one tile"
    for p in range(6):
        settlers = (s.units.kind[p] == tb.unit("settler")).sum()
        assert s.cities.exists[p].sum() + settlers <= 10
        for c in np.flatnonzero(s.cities.exists[p]):
            pos = s.cities.pos[p, c]
            assert s.tiles.owner[pos] == p and s.tiles.owner_city[pos] == c
    pos = s.units.pos[units_alive]
    owners = np.nonzero(units_alive)[0]
    kinds = s.units.kind[units_alive]
    assert (pos >= 0).all()
    elev, nw = s.layers.elevation[pos], s.layers.natural_wonder[pos]
    sailing = s.players.techs[owners, tb.tech("sailing")]
    assert ((elev == 1) | (elev == 2) | ((elev == 0) & sailing)).all(), "unit on an impassable tile"
    assert (nw == 0).all()
    military = tb.unit_strength[kinds] > 0
    for mask in (military, ~military):
        assert len(np.unique(pos[mask])) == mask.sum(), "two units of one class on a tile"
    for t in np.unique(pos):
        assert len(set(owners[pos == t])) == 1, "units of two players on a tile"
    assert ((s.units.hp[units_alive] > 0) & (s.units.hp[units_alive] <= 1)).all()
    assert (s.cities.hp[s.cities.exists] > 0).all()
    world = tb.building_kind == 1
    assert (s.cities.buildings[..., world].sum((0, 1)) <= 1).all(), "a world wonder stands twice"
    assert not s.cities.buildings[~s.cities.exists].any(), "a building in a city that does not exist"
    pl = s.players
    assert (pl.faith >= 0).all() and (pl.culture >= 0).all() and (pl.culture_total >= 0).all()
    assert (pl.free_techs >= 0).all() and (pl.free_policies >= 0).all()
    o = int(s.player)
    assert (obs["policies"] == pl.policies[o]).all() and obs["culture_reserves"] == pl.culture[o]
    assert obs["faith_reserves"] == pl.faith[o] and obs["culture_threshold"] >= 15
    # Fog: never-seen tiles stay unknown in the observation of the player to move.
    vis = obs["visibility_map"].reshape(-1)
    assert ((obs["elevation_map"].reshape(-1) == -1) == (vis == 0)).all()
    seen_units = obs["units"]["unit_type"] > 0
    rc = obs["units"]["unit_rowcol"][seen_units]
    assert (vis[rc[:, 0] * 66 + rc[:, 1]] == 2).all() or not len(rc)
    assert (obs["player_cities"]["yields"] >= 0).all()
    ym = obs["yield_map_players"].reshape(-1, 7)
    assert (ym[vis > 0] >= 0).all() and (ym[vis == 0] == -1).all()


def check_executed(before, after, ex) -> None:
    """Every executed action was legal in the state it was taken in."""
    tb = load_tables()
    p = int(before.player)
    known = before.players.techs[p]
    trade, policy, tenet, tech, (ucat, utgt), (worked, built) = ex
    assert (tenet[1:] == -1).all() and (trade[0] == -1).all()
    if tenet[0] >= 0:  # a pantheon belief nobody held, by a player without one, with the faith for it
        t = int(tenet[0])
        assert tb.tenet_kind[t] == 0 and not before.players.tenets[:, t].any()
        assert not before.players.tenets[p, tb.tenet_kind == 0].any()
        assert before.players.faith[p] >= float(pantheon_cost(before)) - 1e-3
        assert after.done or after.players.tenets[p, t]
    era = tb.tech_era[known].max()
    adopted = before.players.policies[p]
    for pol, owned in ((policy[0], adopted), (policy[1], adopted | (np.arange(54) == policy[0]))):
        if pol >= 0:
            assert not adopted[pol] and tb.policy_era[pol] <= era, "policy adopted twice or before its era"
            assert owned[tb.policy_req[pol]].all(), "policy adopted before its prerequisites"
            assert after.done or after.players.policies[p, pol]
    if policy[0] >= 0:
        assert policy[0] != policy[1]
        assert before.players.culture[p] >= after.players.culture[p] - 1e-3 or after.done
    if policy[1] >= 0:
        assert before.players.free_policies[p] > 0
    for t in tech[tech >= 0]:
        assert not known[t] and known[tb.tech_prereq[t]].all()
    if tech[1] >= 0:
        assert before.players.free_techs[p] > 0 and (after.done or after.players.techs[p, tech[1]])
    for slot in np.flatnonzero(ucat >= 0):
        kind, pos = before.units.kind[p, slot], before.units.pos[p, slot]
        cat, tgt = ucat[slot], utgt[slot]
        assert kind > 0 and tb.unit_categories[kind, cat] and tgt >= 0
        d = distance_np(pos, tgt)
        if cat == 0:
            assert 1 <= d <= 3 * tb.unit_moves[kind]
        elif cat == 18:  # move (up to 3 tiles a move on roads), then strike
            assert 1 <= d <= 3 * tb.unit_moves[kind] + tb.unit_range[kind]
        else:
            assert tgt == pos
        if cat == 1:
            assert after.done or tgt in after.cities.pos[p]
    for c in np.flatnonzero(built >= 0):
        b = built[c]
        if b < BUILDING_SLOTS:
            assert tb.buildable[b] and known[tb.building_tech[b]].all()
            assert not before.cities.buildings[p, c, b]
            assert before.cities.buildings[p, c][tb.building_req[b]].all()
            assert before.players.policies[p][tb.building_policy[b]].all()
            if tb.building_kind[b] == 1:
                assert not before.cities.buildings[..., b].any(), "world wonder started after it was built"
        else:
            kind = b - BUILDING_SLOTS + 1
            assert known[tb.unit_tech[kind]].all() and not known[tb.unit_obsolete[kind]].any()
    for c in range(10):
        if not after.cities.exists[p, c] or after.done:
            continue
        frame = work_area()[after.cities.pos[p, c]]
        for j in worked[c][worked[c] >= 0]:
            tile = frame[j + 1]
            assert after.tiles.owner[tile] == p and after.tiles.owner_city[tile] == c


def flatten(s, tiles):
    """Make ``tiles`` bare grassland flats (a controlled battlefield)."""
    idx = jnp.asarray(np.asarray(tiles))
    lay = s.layers._replace(
        elevation=s.layers.elevation.at[idx].set(1),
        terrain=s.layers.terrain.at[idx].set(1),
        resource=s.layers.resource.at[idx].set(0),
        natural_wonder=s.layers.natural_wonder.at[idx].set(0),
        lake=s.layers.lake.at[idx].set(False),
        cs_owner=s.layers.cs_owner.at[idx].set(0),
    )
    return s._replace(layers=lay, tiles=s.tiles._replace(feature=s.tiles.feature.at[idx].set(0)))


def grassland_start(seed: int = 1, radius: int = 6):
    """Player 0's start on ``generate(seed)`` made bare riverless grassland of ``radius``, no units;
    returns (state, start tile)."""
    m = generate(seed)
    s = new_game(jax.tree_util.tree_map(jnp.asarray, map_layers(m)), jax.random.PRNGKey(0))
    centre = int(m.starts[0])
    patch = jnp.asarray(np.flatnonzero(distance_np(np.arange(2772), centre) <= radius))
    s = clear_units(flatten(s, patch))
    return s._replace(layers=s.layers._replace(river=s.layers.river.at[patch].set(0))), centre


def place_unit(s, p: int, slot: int, kind: str, tile: int):
    u = s.units
    return s._replace(
        units=u._replace(
            kind=u.kind.at[p, slot].set(load_tables().unit(kind)),
            pos=u.pos.at[p, slot].set(tile),
            hp=u.hp.at[p, slot].set(1.0),
        )
    )


def attack_scores(target: int):
    types = jnp.full((30, 19), -1.0).at[:, 18].set(1.0)
    targets = jnp.zeros((30, 2772)).at[:, target].set(1.0)
    return types, targets


def clear_units(s):
    u = s.units
    return s._replace(units=u._replace(kind=jnp.zeros_like(u.kind), pos=jnp.full_like(u.pos, -1)))
