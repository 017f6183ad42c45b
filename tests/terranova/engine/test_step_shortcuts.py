"""The batched step's shortcuts (issue 24's speed work) give what the full-map forms they replace
give, bit for bit, on a state with random owners, improvements, techs, cities and embassies:
sight scattered from its sources, one scatter for every player's resource sources, tile classes
read at a few tiles or through the resource id, tile yields at a few tiles, class bonuses over
the rows that have any."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from hexarena.games.terranova.engine.geometry import N_TILES, lit_by, neighbors
from hexarena.games.terranova.engine.mapgen import generate
from hexarena.games.terranova.engine.rules.trade import EMBASSY, embassies, embassy_sight
from hexarena.games.terranova.engine.state import MAX_CITIES, N_PLAYERS, initial_state, map_layers
from hexarena.games.terranova.engine.tables import load_tables
from hexarena.games.terranova.engine.world import (
    city_resources,
    class_bonus,
    gather,
    player_resource_sources,
    player_yields,
    tile_class_map,
    tile_class_parts,
    tile_class_yields,
    tile_classes_at,
    work_frames,
)


def same(a, b) -> bool:
    a, b = np.asarray(a), np.asarray(b)
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


@pytest.fixture(scope="module")
def busy():
    """A state of map 0 with random owners, improvements, techs, cities and an embassy."""
    rng = np.random.default_rng(5)
    tb = load_tables()
    s = initial_state(jax.tree_util.tree_map(jnp.asarray, map_layers(generate(0))), jax.random.PRNGKey(0))
    owner = rng.integers(-1, N_PLAYERS, N_TILES)
    city = np.where(owner >= 0, rng.integers(0, MAX_CITIES, N_TILES), -1)
    pos = rng.choice(N_TILES, N_PLAYERS * MAX_CITIES, replace=False).reshape(N_PLAYERS, MAX_CITIES)
    exists = rng.random((N_PLAYERS, MAX_CITIES)) < 0.6
    owner[pos[exists]] = np.nonzero(exists)[0]  # a city stands on its owner's tile
    t, c, pl, tr = s.tiles, s.cities, s.players, s.trade
    ledger = np.asarray(tr.ledger).copy()
    ledger[1, 3, 4, 1] = EMBASSY  # 1 has an embassy in 3's capital
    capital = np.zeros((N_PLAYERS, MAX_CITIES), bool)
    capital[3, np.argmax(exists[3])] = True
    return s._replace(
        tiles=t._replace(
            owner=jnp.asarray(owner, jnp.int8),
            owner_city=jnp.asarray(city, jnp.int8),
            improvement=jnp.asarray(rng.integers(0, len(tb.improvement_names), N_TILES), jnp.int8),
        ),
        cities=c._replace(
            exists=jnp.asarray(exists),
            pos=jnp.asarray(pos, c.pos.dtype),
            capital=jnp.asarray(capital & exists),
        ),
        players=pl._replace(techs=jnp.asarray(rng.random(pl.techs.shape) < 0.5)),
        trade=tr._replace(ledger=jnp.asarray(ledger)),
    )


def test_sight_scattered_from_sources_is_the_spread() -> None:
    rng = np.random.default_rng(0)
    nb = neighbors()
    for radius in (1, 2):
        mask = rng.random(N_TILES) < 0.01
        spread = mask.copy()
        for _ in range(radius):
            spread = spread | np.where(nb >= 0, spread[np.maximum(nb, 0)], False).any(1)
        lit = np.zeros(N_TILES + 1, bool)
        lit[lit_by(radius)[np.flatnonzero(mask)]] = True
        assert (lit[:-1] == spread).all() and (lit_by(radius)[N_TILES] == N_TILES).all()


def test_resource_sources_of_every_player_in_one_scatter(busy) -> None:
    per_player = jnp.stack([city_resources(busy, jnp.int32(p)).sum(0) for p in range(N_PLAYERS)])
    assert per_player.sum() > 0
    assert same(player_resource_sources(busy), per_player)


def test_tile_classes_in_parts(busy) -> None:
    techs = busy.players.techs[2]
    full, parts = tile_class_map(busy, techs), tile_class_parts(busy, techs)
    frames = work_frames(jnp.where(busy.cities.exists[2], busy.cities.pos[2], -1))
    assert same(tile_classes_at(parts, frames), gather(full, frames, False))
    table = jnp.asarray(load_tables().policy_tile_bonus.sum(0))  # every row adopted: whole yields
    assert same(tile_class_yields(parts, table), full @ table)


def test_tile_yields_at_frames(busy) -> None:
    techs = busy.players.techs[4]
    frames = work_frames(jnp.where(busy.cities.exists[4], busy.cities.pos[4], -1))
    assert (frames < 0).any()
    assert same(player_yields(busy, techs, frames), gather(player_yields(busy, techs), frames, 0.0))


def test_class_bonus_over_rows_with_any(busy) -> None:
    tb = load_tables()
    built = jnp.asarray(np.random.default_rng(1).random((MAX_CITIES, tb.building_tile_bonus.shape[0])) < 0.3)
    built = built.astype(jnp.float32)
    full = (built @ jnp.asarray(tb.building_tile_bonus.reshape(len(built[0]), -1))).reshape(MAX_CITIES, -1, 7)
    assert same(class_bonus(built, tb.building_tile_bonus), full)


def test_embassy_sight_reads_the_embassies(busy) -> None:
    sight = np.asarray(embassy_sight(busy))
    emb = np.asarray(embassies(busy))
    assert emb[1, 3] and sight[1].any() and not sight[[0, 2, 3, 4, 5]].any()
