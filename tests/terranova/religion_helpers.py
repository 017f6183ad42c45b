"""Positions for the religion tests: a capital of player 0 (4 citizens, every tech), other cities
placed at chosen distances, tenets held, followers set."""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from hexarena.games.terranova.engine.geometry import N_TILES, distance_np
from hexarena.games.terranova.engine.rules.units import found_city
from hexarena.games.terranova.engine.tables import load_tables

from .tn_helpers import grassland_start

TB = load_tables()


def capital_start():
    """(state, capital tile): player 0's 4-citizen capital on grassland, every tech known."""
    s, centre = grassland_start()
    s = found_city(s, jnp.int32(0), jnp.int32(centre))
    c, pl = s.cities, s.players
    s = s._replace(
        cities=c._replace(pop=c.pop.at[0, 0].set(4)), players=pl._replace(techs=pl.techs.at[0].set(True))
    )
    return s, centre


def take(s, *names: str, player: int = 0):
    """``player`` holds the named tenets."""
    t = s.players.tenets
    for n in names:
        t = t.at[player, TB.tenet(n)].set(True)
    return s._replace(players=s.players._replace(tenets=t))


def follow(s, player: int, city: int, religion: int, n: int):
    """``n`` citizens of ``player``'s city ``city`` follow ``religion``."""
    f = s.religion.followers.at[player, city, religion].set(n)
    return s._replace(religion=s.religion._replace(followers=f))


def tile_at(centre: int, distance: int, nth: int = 0) -> int:
    """The ``nth`` tile exactly ``distance`` from ``centre``."""
    return int(np.flatnonzero(distance_np(np.arange(N_TILES), centre) == distance)[nth])


def add_city(s, player: int, tile: int, pop: int):
    """A city of ``player`` on ``tile`` with ``pop`` citizens; returns (state, its slot)."""
    s = found_city(s, jnp.int32(player), jnp.int32(tile))
    slot = int(np.flatnonzero(np.asarray(s.cities.pos[player]) == tile)[0])
    return s._replace(cities=s.cities._replace(pop=s.cities.pop.at[player, slot].set(pop))), slot
