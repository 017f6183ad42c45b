"""Shared fixtures' building blocks: one compiled simulator per test module, host-side checks."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from hexarena.games.terranova.contract import compiled
from hexarena.games.terranova.engine.geometry import distance_np, work_area
from hexarena.games.terranova.engine.mapgen import generate
from hexarena.games.terranova.engine.observe import empty_tracker, update_tracker
from hexarena.games.terranova.engine.rules.units import found_city
from hexarena.games.terranova.engine.simulator import build_simulator
from hexarena.games.terranova.engine.state import map_layers
from hexarena.games.terranova.engine.step import new_game
from hexarena.games.terranova.engine.tables import BUILDING_SLOTS, load_tables


def one_game_simulator(seed: int = 0, turn_cap: int = 300):
    return build_simulator([generate(seed)], "duplicate", jax.random.PRNGKey(seed), turn_cap=turn_cap)


def contract_step(s, actions):
    """One turn through the game contract's compiled step, which wraps ``step_game`` and is
    compiled once for every Terra Nova test (``tests/conftest.py`` runs its callers in the contract
    group): ``(state, executed, done, winner)``."""
    out, _tracker, executed, done, winner, _scores = compiled.step(s, empty_tracker(), actions)
    return out, executed, done, winner


def contract_observe(s, player: int = 0):
    """Player ``player``'s observation of ``s`` through the contract's compiled view."""
    return compiled.view(s, update_tracker(empty_tracker(), s), player)[0]


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
    tr = s.trade
    assert ((tr.length >= 0) & (tr.length <= 15)).all() and (
        (tr.length > 0) == (tr.ledger > 0).any((1, 3))
    ).all()
    assert (tr.ledger[np.arange(6), np.arange(6)] == 0).all(), "a deal with oneself"
    routed = tr.route_to_player >= 0
    assert (s.units.kind[routed & (s.units.kind > 0)] == tb.unit("caravan")).all(), (
        "a route without a caravan"
    )
    pl = s.players
    assert (pl.faith >= 0).all() and (pl.culture >= 0).all() and (pl.culture_total >= 0).all()
    assert (pl.free_techs >= 0).all() and (pl.free_policies >= 0).all()
    check_great_people(s)
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
    check_religion(s, obs)


def check_religion(s, obs) -> None:
    """Each tenet one player's, stages in order; followers and pressure only in live cities, never
    negative; the observation's religion fields are the player's own."""
    tb = load_tables()
    held, rel = s.players.tenets, s.religion
    assert (held.sum(0) <= 1).all(), "a tenet held twice"
    per_kind = np.stack([held[:, tb.tenet_kind == k].sum(1) for k in range(5)], 1)  # (6, 5)
    assert (per_kind <= [1, 1, 2, 1, 1]).all() and ((per_kind[:, 1] == 0) == (per_kind[:, 2] == 0)).all()
    stages = per_kind[:, [0, 1, 3, 4]] > 0
    assert (stages[:, 1:] <= stages[:, :-1]).all(), "a religious stage before the one below it"
    assert (rel.followers >= 0).all() and (rel.pressure >= 0).all() and (rel.cs_pressure >= 0).all()
    assert not rel.followers[~s.cities.exists].any() and not rel.pressure[:, :, ~s.cities.exists].any()
    o = int(s.player)
    info = obs["player_cities"]["religion_info"]
    assert (info["religious_population"] == rel.followers[o]).all()
    assert (info["player_perturn_influence_cumulative"] == rel.pressure[o]).all()


def check_tenets(before, after, p: int, tenet) -> None:
    """Executed tenets: nobody held them, of the stage the player had reached (a pantheon; a founder
    and two followers, with a pantheon; an enhancer, having founded; a reformation tenet, having
    enhanced), with the faith for it."""
    tb = load_tables()
    kind, held = tb.tenet_kind, before.players.tenets
    picks = [int(t) for t in tenet if t >= 0]
    assert len(set(picks)) == len(picks) and not held[:, picks].any()
    assert (tenet[1:] == -1).all() or (kind[tenet[0]] == 1 and (kind[tenet[1:]] == 2).all())
    if picks:
        k = kind[picks[0]]
        assert held[p, kind == k - 1].any() if k > 0 else True, "a stage taken before the one below it"
        assert not held[p, kind == k].any(), "a stage taken twice"
        # paid from the reserve after this turn's faith (so never below zero), see step's docstring
        assert after.done or (after.players.tenets[p, picks].all() and after.players.faith[p] >= 0)


def check_great_people(s) -> None:
    """Points never negative; the threshold is 67 doubled at most once per birth; great works fit
    their city's slots; tourism accumulates, never onto oneself."""
    tb = load_tables()
    g, pl = s.great, s.players
    assert (g.points >= 0).all() and (g.born >= 0).all() and (pl.great_people >= 0).all()
    doublings = np.log2(g.threshold / 67.0)
    assert np.allclose(doublings, np.round(doublings)) and (doublings <= g.born.sum(1)).all()
    slots = s.cities.buildings.astype(np.float32) @ tb.building_gw_slots  # (6, 10, 4)
    assert (g.works >= 0).all() and (g.works <= slots).all(), "a great work without a slot"
    assert (pl.tourism >= 0).all() and (np.diag(pl.tourism) == 0).all()
    assert (g.golden_points >= 0).all() and (pl.golden_age_turns >= 0).all()


def bare_capital():
    """Player 0's capital on bare grassland (palace removed, so only the buildings a test gives
    count), every tech known; returns (state, centre tile)."""
    s, centre = grassland_start()
    s = found_city(s, jnp.int32(0), jnp.int32(centre))
    c, pl = s.cities, s.players
    return s._replace(
        cities=c._replace(buildings=c.buildings.at[0, 0].set(False)),
        players=pl._replace(techs=pl.techs.at[0].set(True)),
    ), centre


def with_buildings(s, *names: str, p: int = 0, city: int = 0):
    """``s`` with the named buildings in city slot ``city`` of player ``p``."""
    b = s.cities.buildings
    for n in names:
        b = b.at[p, city, load_tables().building(n)].set(True)
    return s._replace(cities=s.cities._replace(buildings=b))


def fed(s, p: int = 0):
    """``s`` with last turn's food of ``p``'s cities what their citizens eat, so that a city neither
    grows nor starves in the next city phase (it grows on last turn's food, as the original)."""
    c = s.cities
    food = load_tables().rules["food_per_pop"] * c.pop[p].astype(jnp.float32)
    return s._replace(cities=c._replace(yields=c.yields.at[p, :, 0].set(food)))


def with_policies(s, *names: str, p: int = 0):
    """``s`` with the named policies adopted by player ``p`` (no grants applied)."""
    pol = s.players.policies
    for n in names:
        pol = pol.at[p, load_tables().policy(n)].set(True)
    return s._replace(players=s.players._replace(policies=pol))


def check_executed(before, after, ex) -> None:
    """Every executed action was legal in the state it was taken in."""
    tb = load_tables()
    p = int(before.player)
    known = before.players.techs[p]
    trade, policy, tenet, tech, (ucat, utgt), (worked, built) = ex
    decisions, ask, offer, to = trade
    assert set(np.asarray(decisions).tolist()) <= {-1, 0, 1} and decisions[p] == -1
    if to >= 0:  # an offer: to a met player with a free ledger slot, of real items
        assert to != p and ask > 0 and offer > 0 and after.players.have_met[p, to]
        assert (before.trade.length[to] <= 1).any() and (before.trade.length[p] <= 1).any()
        if before.players.at_war[p, to] and decisions[to] != 1:
            assert ask == offer == 3, "at war, the only deal is peace for peace"
    else:
        assert ask == offer == -1
    check_tenets(before, after, p, tenet)
    # the bought policy and the next research come after the empire phase: this turn's techs count
    chosen_with = known | after.players.techs[p] if not after.done else known
    era = tb.tech_era[chosen_with].max()
    adopted = before.players.policies[p]
    for pol, owned in ((policy[0], adopted), (policy[1], adopted | (np.arange(54) == policy[0]))):
        if pol >= 0:
            assert not adopted[pol] and tb.policy_era[pol] <= era, "policy adopted twice or before its era"
            assert owned[tb.policy_req[pol]].all(), "policy adopted before its prerequisites"
            assert after.done or after.players.policies[p, pol]
    if policy[0] >= 0:
        assert policy[0] != policy[1]
        gained = after.players.culture_total[p] - before.players.culture_total[p]
        # the cheapest policy: 15 x 0.57 (Cristo Redentor and Representation)
        assert before.players.culture[p] + gained >= after.players.culture[p] + 8 or after.done
    if policy[1] >= 0:
        assert before.players.free_policies[p] > 0
    for t in tech[tech >= 0]:
        assert not known[t] and chosen_with[tb.tech_prereq[t]].all()
    if tech[1] >= 0:
        assert before.players.free_techs[p] > 0
        assert after.done or after.players.techs[p, tech[1]]
    for slot in np.flatnonzero(ucat >= 0):
        kind, pos = before.units.kind[p, slot], before.units.pos[p, slot]
        cat, tgt = ucat[slot], utgt[slot]
        assert kind > 0 and tb.unit_categories[kind, cat] and tgt >= 0
        capital = before.cities.pos[p][before.cities.exists[p] & before.cities.capital[p]]
        peace = (decisions == 1) & before.players.at_war[p] & ~after.players.at_war[p]
        if len(capital) and peace[before.tiles.owner[pos]] and before.tiles.owner[pos] >= 0:
            continue  # peace this turn sent it home first, to a free tile near its capital
        d = distance_np(pos, tgt)
        if cat == 0:  # a move to its own tile holds it (the original's move map)
            assert 0 <= d <= 3 * tb.unit_moves[kind]
        elif cat == 18:  # move (up to 3 tiles a move on roads), then strike
            assert 1 <= d <= 3 * tb.unit_moves[kind] + tb.unit_range[kind]
        elif cat == 16:  # move caravan: to another of its owner's cities
            assert tgt in before.cities.pos[p][before.cities.exists[p]] and pos in before.cities.pos[p]
        elif cat == 17:  # send caravan: from its city to a city or city state in range
            cities = before.cities.pos[before.cities.exists]
            assert (tgt in cities or tgt in before.layers.cs_sites) and 1 <= d < 15 * 1.75
            assert after.done or after.trade.route_to_player[p, slot] >= 0
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
