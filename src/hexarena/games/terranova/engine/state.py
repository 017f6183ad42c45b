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

from hexarena.games.terranova.engine.geometry import N_TILES, N_WORK
from hexarena.games.terranova.engine.mapgen import N_CITY_STATES, GameMap
from hexarena.games.terranova.engine.tables import (
    BUILDING_SLOTS,
    GREAT_WORKS,
    SPECIALISTS,
    citystate_rules,
    load_tables,
)

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
    # --- stage 3, combat (issue 15) ---
    combat_bonus: jax.Array  # (6, 30) float32 strength bonus over 1 (x 1.15 after barracks: 0.15)


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
    # --- stage 3, fog and contact (issue 15) ---
    have_met: jax.Array  # (6, 18) bool: players 0-5, then city states 0-11; once met, always met


# --- Great people, great works, golden ages (issue 14, stage 2: specialists .. tourism) -----------


class GreatPeople(NamedTuple):
    """Great-person points, great works and the golden-age meter of each player.

    Specialists and great-work slots are not stored: they follow from the buildings every turn.
    """

    points: jax.Array  # (6, 6) float32 great person points per kind (SPECIALISTS order)
    threshold: jax.Array  # (6,) float32 points for the next great person (67, doubling at each birth)
    born: jax.Array  # (6, 6) int32 great people born per kind
    # (6, 10, 4) int8 great works in each city (GREAT_WORKS order): one in every great-work slot of
    # its buildings as of its player's last turn (what the observation and the views show)
    works: jax.Array
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
        cs_pressure=jnp.zeros((p, c, N_CITY_STATES), jnp.float32),
    )


# --- end of Religion --------------------------------------------------------------------------


# --- Trade (issue 15): deals between players and caravan routes ------------------------------------
MAX_TRADE_DEALS = 10
ROUTE_YIELDS = 10  # food, production, gold, faith, culture, science, happiness, tourism, influence, pressure


class Trade(NamedTuple):
    """Deals and caravan routes (``trade`` and ``trade_routes`` explain the rules).

    Trade items: 0 none, 1 embassy, 2 gold per turn, 3 peace, 3 + r resource r (1..52). A deal sits
    in both partners' ledgers, each side written as (item given, item received).
    """

    offers: jax.Array  # (6, 6, 2) int8 [from, to] = (item offered, item asked), 0 = no offer
    ledger: jax.Array  # (6, 6, 10, 2) int8 [p, q, slot] = (item p gives q, item p gets from q)
    length: jax.Array  # (6, 10) int8 turns left on each of p's ledger slots, 0 = free
    gpt: jax.Array  # (6,) float32 net gold per turn from deals
    resources: jax.Array  # (6, 52) int32 net resources from deals (resource id - 1)
    route_to_player: jax.Array  # (6, 30) int8 per unit slot: 0..5 player, 6..17 city state, -1 none
    route_to_city: jax.Array  # (6, 30) int8 destination city slot (0 for a city state), -1 none
    route_from_city: jax.Array  # (6, 30) int8 origin city slot, -1 none
    route_yields: jax.Array  # (6, 30, 2, 10) float32 per turn to the (origin, destination) city


def initial_trade() -> Trade:
    p, u = N_PLAYERS, MAX_UNITS
    none = jnp.full((p, u), -1, jnp.int8)
    return Trade(
        offers=jnp.zeros((p, p, 2), jnp.int8),
        ledger=jnp.zeros((p, p, MAX_TRADE_DEALS, 2), jnp.int8),
        length=jnp.zeros((p, MAX_TRADE_DEALS), jnp.int8),
        gpt=jnp.zeros(p, jnp.float32),
        resources=jnp.zeros((p, 52), jnp.int32),
        route_to_player=none,
        route_to_city=none,
        route_from_city=none,
        route_yields=jnp.zeros((p, u, 2, ROUTE_YIELDS), jnp.float32),
    )


# -----------------------------------------------------------------------------------------------------


# --- City states (issue 15): the 12 minor civilizations, their influence, quests and territory ---


class CityStates(NamedTuple):
    """The city states' side of the game (``citystates.py``); influence is per (city state, player)."""

    kind: jax.Array  # (12,) int8 type (citystates.json "types": cultural .. militaristic)
    owner: jax.Array  # (H,) int8 territory: 0 none, k + 1 city state k (grows from ``layers.cs_owner``)
    influence: jax.Array  # (12, 6) float32
    perturn: jax.Array  # (12, 6) float32 last round's change from trade routes and decay
    relationship: jax.Array  # (12, 6) int8: 0 none, 1 friend, 2 ally (one ally per city state)
    quest: jax.Array  # (12,) int8 active quest: 1 culture .. 7 resources (citystates.json "quests")
    culture_tracker: jax.Array  # (6,) float32 culture made since the quests began
    faith_tracker: jax.Array  # (6,) float32 faith made since the quests began
    tech_start: jax.Array  # (6,) int32 techs known when the quests began
    trade_tracker: jax.Array  # (6, 12) int32 trade routes to each city state, summed over the rounds
    religion_tracker: jax.Array  # (6,) int32 rounds as a majority religion in some city state
    wonder_tracker: jax.Array  # (6,) int32 rounds with the most world wonders
    resource_tracker: jax.Array  # (6,) int32 rounds with the most resources
    combat_bonus: jax.Array  # (6, 30) float32 strength bonus of units from militaristic city states


# --- end of city states ---


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
    trade: Trade  # deals and caravan routes (issue 15)
    citystates: CityStates
    victory: jax.Array  # () int32 victory that ended the game (citystates.json "victories"), 0 none


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
            combat_bonus=jnp.zeros((p, u), f32),
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
            have_met=jnp.eye(p, p + N_CITY_STATES, dtype=bool),
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
        trade=initial_trade(),
        citystates=initial_citystates(layers, key),
        victory=jnp.zeros((), jnp.int32),
    )


def initial_citystates(layers: MapLayers, key: jax.Array) -> CityStates:
    """Types drawn from the game's key, no influence, the first quests drawn (they run 30 rounds)."""
    k, p, f32 = N_CITY_STATES, N_PLAYERS, jnp.float32
    kind_key, quest_key = jax.random.split(jax.random.fold_in(key, 15))
    n_types, n_quests = (len(citystate_rules()[name]) for name in ("types", "quests"))
    return CityStates(
        kind=jax.random.randint(kind_key, (k,), 0, n_types).astype(jnp.int8),
        owner=jnp.asarray(layers.cs_owner, jnp.int8),
        influence=jnp.zeros((k, p), f32),
        perturn=jnp.zeros((k, p), f32),
        relationship=jnp.zeros((k, p), jnp.int8),
        quest=jax.random.randint(quest_key, (k,), 1, n_quests + 1).astype(jnp.int8),
        culture_tracker=jnp.zeros(p, f32),
        faith_tracker=jnp.zeros(p, f32),
        tech_start=jnp.full(p, len(load_tables().rules["start_techs"]), jnp.int32),
        trade_tracker=jnp.zeros((p, k), jnp.int32),
        religion_tracker=jnp.zeros(p, jnp.int32),
        wonder_tracker=jnp.zeros(p, jnp.int32),
        resource_tracker=jnp.zeros(p, jnp.int32),
        combat_bonus=jnp.zeros((p, MAX_UNITS), f32),
    )


def state_bytes(state: GameState) -> int:
    """Bytes of one game's state pytree."""
    return int(sum(np.asarray(x).nbytes for x in jax.tree_util.tree_leaves(state)))
