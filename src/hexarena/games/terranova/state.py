"""The game state: one pytree of fixed-size arrays per game (NamedTuples are pytrees already).

Sizes follow the spec: 6 players, 10 cities and 30 units per player, 2772 tiles. Unknown or
empty = -1 (unit type 0 = no unit). The map layers travel with the state (they differ per game),
and :func:`initial_state` rebuilds the start from them, so no reset cache is stored.
"""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from hexarena.games.terranova.geometry import N_TILES, N_WORK
from hexarena.games.terranova.mapgen import GameMap
from hexarena.games.terranova.tables import BUILDING_SLOTS, GREAT_WORKS, SPECIALISTS, load_tables

N_PLAYERS, MAX_CITIES, MAX_UNITS = 6, 10, 30


class MapLayers(NamedTuple):
    """The fixed part of a map (features change, so they live in :class:`Tiles`)."""

    elevation: jax.Array  # (H,) int8
    terrain: jax.Array  # (H,) int8
    feature: jax.Array  # (H,) int8 as generated
    river: jax.Array  # (H,) uint8 edge bits
    lake: jax.Array  # (H,) bool
    natural_wonder: jax.Array  # (H,) int8
    resource: jax.Array  # (H,) int8
    cs_owner: jax.Array  # (H,) int8
    starts: jax.Array  # (6,) int32
    warrior_starts: jax.Array  # (6,) int32
    cs_sites: jax.Array  # (12,) int32


class Tiles(NamedTuple):
    feature: jax.Array  # (H,) int8
    improvement: jax.Array  # (H,) int8, 0 none
    road: jax.Array  # (H,) bool
    owner: jax.Array  # (H,) int8 player, -1 none
    owner_city: jax.Array  # (H,) int8 city slot of the owner, -1 none
    visibility: jax.Array  # (6, H) int8: 0 never seen, 1 seen, 2 visible


class Units(NamedTuple):
    kind: jax.Array  # (6, 30) int8 unit type, 0 none
    pos: jax.Array  # (6, 30) int32 tile, -1 none
    moves: jax.Array  # (6, 30) float32 movement left this turn
    hp: jax.Array  # (6, 30) float32 in [0, 1]
    engaged_turns: jax.Array  # (6, 30) int8 turns left on a worker build
    engaged_action: jax.Array  # (6, 30) int8 category being built, -1 none
    fought: jax.Array  # (6, 30) bool fought this turn (no healing)


class Cities(NamedTuple):
    exists: jax.Array  # (6, 10) bool
    pos: jax.Array  # (6, 10) int32, -1 none
    capital: jax.Array  # (6, 10) bool
    pop: jax.Array  # (6, 10) int32
    food: jax.Array  # (6, 10) float32
    prod: jax.Array  # (6, 10) float32
    constructing: jax.Array  # (6, 10) int32 buildable index, -1 none
    culture: jax.Array  # (6, 10) float32 toward the next border tile
    tiles_claimed: jax.Array  # (6, 10) int32 tiles claimed beyond the first seven
    hp: jax.Array  # (6, 10) float32
    buildings: jax.Array  # (6, 10, 148) bool
    worked: jax.Array  # (6, 10, 37) bool, slot 0 = the centre
    yields: jax.Array  # (6, 10, 8) float32 last turn's yields (food .. happiness, tourism)


class Players(NamedTuple):
    techs: jax.Array  # (6, 81) bool
    science: jax.Array  # (6,) float32 toward the current tech
    researching: jax.Array  # (6,) int32, -1 none
    gold: jax.Array  # (6,) float32
    happiness: jax.Array  # (6,) float32
    at_war: jax.Array  # (6, 6) bool
    has_sacked: jax.Array  # (6, 6) bool
    ever_settled: jax.Array  # (6,) bool
    prev_score: jax.Array  # (6,) float32
    policies: jax.Array  # (6, 54) bool adopted social policies
    culture: jax.Array  # (6,) float32 culture toward the next policy
    culture_total: jax.Array  # (6,) float32 lifetime culture
    faith: jax.Array  # (6,) float32 faith reserves
    tenets: jax.Array  # (6, 91) bool religious tenets taken (a pantheon belief by one player only)
    free_techs: jax.Array  # (6,) int32 free technologies to pick
    free_policies: jax.Array  # (6,) int32 free social policies to pick
    golden_age_turns: jax.Array  # (6,) int32 turns left in the current golden age
    great_people: jax.Array  # (6, 7) int32 great people granted and not yet used (SPECIALISTS + prophet)
    tourism: jax.Array  # (6, 6) float32 accumulated tourism of player i onto player j (diagonal 0)


# --- Great people, great works, golden ages (issue 14, stage 2: specialists .. tourism) -----------


class GreatPeople(NamedTuple):
    """Great-person points, great works and the golden-age meter of each player.

    Specialists and great-work slots are not stored: they follow from the buildings every turn.
    """

    points: jax.Array  # (6, 6) float32 great person points per kind (SPECIALISTS order)
    threshold: jax.Array  # (6,) float32 points for the next great person (67, doubling at each birth)
    born: jax.Array  # (6, 6) int32 great people born per kind
    works: jax.Array  # (6, 10, 4) int8 great works in each city (GREAT_WORKS order)
    tourism_turn: jax.Array  # (6,) float32 the player's tourism of its last turn (a musician's burst)
    golden_points: jax.Array  # (6,) float32 happiness accumulated toward the next golden age
    golden_ages: jax.Array  # (6,) int32 golden ages reached through happiness (the meter's step)


def initial_great_people() -> GreatPeople:
    p = N_PLAYERS
    return GreatPeople(
        points=jnp.zeros((p, len(SPECIALISTS)), jnp.float32),
        threshold=jnp.full(p, float(load_tables().rules["great_person_threshold"]), jnp.float32),
        born=jnp.zeros((p, len(SPECIALISTS)), jnp.int32),
        works=jnp.zeros((p, MAX_CITIES, len(GREAT_WORKS)), jnp.int8),
        tourism_turn=jnp.zeros(p, jnp.float32),
        golden_points=jnp.zeros(p, jnp.float32),
        golden_ages=jnp.zeros(p, jnp.int32),
    )


# --- end of great people ------------------------------------------------------------------------


# --- Religion (issue 14): followers per city and the religious pressure that converts them -------
class Religion(NamedTuple):
    """Religion ``r`` is the one player ``r`` founds (its pantheon counts as one for followers).

    ``pressure`` accumulates from every city of a founder onto every city within range; at the
    threshold one citizen of the target converts and the target's account from that religion resets.
    City states keep no population: their followers are whole thresholds of accumulated pressure.
    """

    followers: jax.Array  # (6, 10, 6) int32 citizens of each city following each religion
    pressure: jax.Array  # (6, 10, 6, 10) float32 accumulated pressure [from player, city, onto player, city]
    cs_pressure: jax.Array  # (6, 10, 12) float32 accumulated pressure from each city onto each city state


def empty_religion() -> Religion:
    p, c = N_PLAYERS, MAX_CITIES
    return Religion(
        followers=jnp.zeros((p, c, p), jnp.int32),
        pressure=jnp.zeros((p, c, p, c), jnp.float32),
        cs_pressure=jnp.zeros((p, c, 12), jnp.float32),
    )


# --- end of Religion --------------------------------------------------------------------------


class GameState(NamedTuple):
    layers: MapLayers
    tiles: Tiles
    units: Units
    cities: Cities
    players: Players
    turn: jax.Array  # () int32 round number
    player: jax.Array  # () int32 player to move
    done: jax.Array  # () bool
    winner: jax.Array  # () int32, -1 none
    key: jax.Array  # (2,) uint32
    turn_cap: jax.Array  # () int32 rounds before the game ends
    auto_reset: jax.Array  # () bool: a finished game restarts (batched simulator) or stays (adapter)
    religion: Religion
    great: GreatPeople


def map_layers(game_map: GameMap) -> MapLayers:
    """Numpy map -> the fixed layers of a state."""
    m = game_map
    return MapLayers(
        elevation=np.asarray(m.elevation, np.int8),
        terrain=np.asarray(m.terrain, np.int8),
        feature=np.asarray(m.feature, np.int8),
        river=np.asarray(m.river, np.uint8),
        lake=np.asarray(m.lake, bool),
        natural_wonder=np.asarray(m.natural_wonder, np.int8),
        resource=np.asarray(m.resource, np.int8),
        cs_owner=np.asarray(m.cs_owner, np.int8),
        starts=np.asarray(m.starts, np.int32),
        warrior_starts=np.asarray(m.warrior_starts, np.int32),
        cs_sites=np.asarray(m.cs_sites, np.int32),
    )


def initial_state(
    layers: MapLayers, key: jax.Array, turn_cap: jax.Array | int = 300, auto_reset: jax.Array | bool = True
) -> GameState:
    """The first turn: Agriculture known, a settler and a warrior per player (jittable).

    ``turn_cap`` and ``auto_reset`` are data, not constants, so one compiled step serves all games.
    """
    tb = load_tables()
    p, u, c, h = N_PLAYERS, MAX_UNITS, MAX_CITIES, N_TILES
    kind = jnp.zeros((p, u), jnp.int8)
    kind = kind.at[:, 0].set(tb.unit("settler")).at[:, 1].set(tb.unit("warrior"))
    pos = jnp.full((p, u), -1, jnp.int32)
    pos = pos.at[:, 0].set(layers.starts).at[:, 1].set(layers.warrior_starts)
    moves = jnp.asarray(tb.unit_moves, jnp.float32)[kind]
    techs = np.zeros((p, tb.n_techs), bool)
    for name in tb.rules["start_techs"]:
        techs[:, tb.tech(name)] = True
    f32 = jnp.float32
    return GameState(
        layers=layers,
        tiles=Tiles(
            feature=jnp.asarray(layers.feature),
            improvement=jnp.zeros(h, jnp.int8),
            road=jnp.zeros(h, bool),
            owner=jnp.full(h, -1, jnp.int8),
            owner_city=jnp.full(h, -1, jnp.int8),
            visibility=jnp.zeros((p, h), jnp.int8),
        ),
        units=Units(
            kind=kind,
            pos=pos,
            moves=moves,
            hp=jnp.where(kind > 0, 1.0, 0.0).astype(f32),
            engaged_turns=jnp.zeros((p, u), jnp.int8),
            engaged_action=jnp.full((p, u), -1, jnp.int8),
            fought=jnp.zeros((p, u), bool),
        ),
        cities=Cities(
            exists=jnp.zeros((p, c), bool),
            pos=jnp.full((p, c), -1, jnp.int32),
            capital=jnp.zeros((p, c), bool),
            pop=jnp.zeros((p, c), jnp.int32),
            food=jnp.zeros((p, c), f32),
            prod=jnp.zeros((p, c), f32),
            constructing=jnp.full((p, c), -1, jnp.int32),
            culture=jnp.zeros((p, c), f32),
            tiles_claimed=jnp.zeros((p, c), jnp.int32),
            hp=jnp.zeros((p, c), f32),
            buildings=jnp.zeros((p, c, BUILDING_SLOTS), bool),
            worked=jnp.zeros((p, c, N_WORK), bool),
            yields=jnp.zeros((p, c, 8), f32),
        ),
        players=Players(
            techs=jnp.asarray(techs),
            science=jnp.zeros(p, f32),
            researching=jnp.full(p, -1, jnp.int32),
            gold=jnp.zeros(p, f32),
            happiness=jnp.full(p, float(tb.rules["start_happiness"]), f32),
            at_war=jnp.zeros((p, p), bool),
            has_sacked=jnp.zeros((p, p), bool),
            ever_settled=jnp.zeros(p, bool),
            prev_score=jnp.zeros(p, f32),
            policies=jnp.zeros((p, len(tb.policy_names)), bool),
            culture=jnp.zeros(p, f32),
            culture_total=jnp.zeros(p, f32),
            faith=jnp.zeros(p, f32),
            tenets=jnp.zeros((p, len(tb.tenet_names)), bool),
            free_techs=jnp.zeros(p, jnp.int32),
            free_policies=jnp.zeros(p, jnp.int32),
            golden_age_turns=jnp.zeros(p, jnp.int32),
            great_people=jnp.zeros((p, len(SPECIALISTS) + 1), jnp.int32),
            tourism=jnp.zeros((p, p), f32),
        ),
        turn=jnp.zeros((), jnp.int32),
        player=jnp.zeros((), jnp.int32),
        done=jnp.zeros((), bool),
        winner=jnp.full((), -1, jnp.int32),
        key=key,
        turn_cap=jnp.asarray(turn_cap, jnp.int32),
        auto_reset=jnp.asarray(auto_reset, bool),
        religion=empty_religion(),
        great=initial_great_people(),
    )


def state_bytes(state: GameState) -> int:
    """Bytes of one game's state pytree."""
    return int(sum(np.asarray(x).nbytes for x in jax.tree_util.tree_leaves(state)))
