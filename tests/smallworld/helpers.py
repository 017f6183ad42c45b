"""Test helpers: invariant checks, random play, and small hand-built maps with scripted states."""

from __future__ import annotations

import random
from collections.abc import Iterable

from hexarena.games.smallworld import GameConfig, SmallWorldGame
from hexarena.games.smallworld.data_loader import get_all_races
from hexarena.games.smallworld.enums import (
    MARKER_SUPPLY,
    Feature,
    Marker,
    Phase,
    PowerName,
    RaceName,
    Terrain,
)
from hexarena.games.smallworld.game_map import MapGraph, Region
from hexarena.games.smallworld.rng import SeededRNG
from hexarena.games.smallworld.state import ActiveRaceState, DeclineRaceState, GameState


def check_invariants(gs: GameState) -> None:
    """Token conservation and box caps per race, marker supplies, region ownership, coins."""
    races = get_all_races()
    pools: dict[RaceName, tuple[int, ActiveRaceState | DeclineRaceState]] = {}
    for p in gs.players:
        assert p.coins >= 0, f"player {p.player_id} has {p.coins} coins"
        for pool in [p.active, *p.declines()]:
            if pool is not None:
                assert pool.race_name not in pools, f"{pool.race_name} is in play twice"
                pools[pool.race_name] = (p.player_id, pool)
                assert pool.tokens_in_hand >= 0
    on_map: dict[RaceName, int] = {}
    for st in gs.regions:
        if st.owner is None:
            assert st.race is None and st.tokens == 0 and not st.is_decline, f"region {st.region_id}: {st}"
            continue
        assert st.tokens >= 1, f"owned region {st.region_id} has {st.tokens} tokens"
        assert st.race in pools, f"region {st.region_id} held by {st.race}, which is not in play"
        owner, pool = pools[st.race]
        assert owner == st.owner, f"region {st.region_id}: owner {st.owner} but {st.race} belongs to {owner}"
        assert st.is_decline == isinstance(pool, DeclineRaceState), f"region {st.region_id} decline flag"
        assert not st.has_lost_tribe, f"region {st.region_id} holds a race and a Lost Tribe"
        on_map[st.race] = on_map.get(st.race, 0) + st.tokens
    for name, cfg in races.items():
        hand = pools[name][1].tokens_in_hand if name in pools else 0
        total = gs.tray[name] + on_map.get(name, 0) + hand + gs.pending.get(name, 0)
        assert gs.tray[name] >= 0, f"{name} tray is negative"
        assert total == cfg.max_tokens, f"{name}: {total} tokens accounted, box holds {cfg.max_tokens}"
    for marker, supply in MARKER_SUPPLY.items():
        assert gs.marker_count(marker) <= supply, (
            f"{gs.marker_count(marker)} {marker} on the map (box: {supply})"
        )
    for st in gs.regions:
        assert st.markers.count(Marker.FORTRESS) <= 1, f"two Fortresses in region {st.region_id}"


def play_random(
    num_players: int, seed: int, check: bool = True, exhaustive: bool | None = None
) -> tuple[SmallWorldGame, int]:
    """A full game of uniformly random legal actions; returns the game and its action count."""
    game = SmallWorldGame(GameConfig(num_players, seed))
    rnd = random.Random(seed)
    steps = 0
    while not game.is_game_over():
        action = rnd.choice(game.get_legal_actions(exhaustive))
        game.submit_action(game.get_current_player(), action)
        steps += 1
        if check:
            check_invariants(game._state)
    return game, steps


# ------------------------------------------------------------------------ small maps ---
def line_map(
    terrains: Iterable[Terrain | str],
    features: dict[int, Iterable[Feature]] | None = None,
    tribes: Iterable[int] = (),
    extra_edges: Iterable[tuple[int, int]] = (),
    border: Iterable[int] | None = None,
) -> MapGraph:
    """Regions 0..n-1 in a row (i adjacent to i+1). Region 0 is a border region by default."""
    terrains = [Terrain(t) for t in terrains]
    features = {k: set(v) for k, v in (features or {}).items()}
    border = {0} if border is None else set(border)
    water = {i for i, t in enumerate(terrains) if t in (Terrain.SEA, Terrain.LAKE)}
    edges = [(i, i + 1) for i in range(len(terrains) - 1)] + list(extra_edges)
    nbs: dict[int, set[int]] = {i: set() for i in range(len(terrains))}
    for a, b in edges:
        nbs[a].add(b)
        nbs[b].add(a)
    regions = []
    for i, t in enumerate(terrains):
        feats = set(features.get(i, ()))
        if i in border:
            feats.add(Feature.BORDER)
        if t not in (Terrain.SEA, Terrain.LAKE) and nbs[i] & water:
            feats.add(Feature.COASTAL)
        regions.append(Region(i, t, frozenset(feats), i in set(tribes), i, 0))
    return MapGraph.build(regions, edges)


def scenario(
    game_map: MapGraph, races: list[tuple[RaceName, PowerName]], num_players: int = 2, seed: int = 0
) -> SmallWorldGame:
    """A game on ``game_map`` whose combo row starts with ``races`` in order (index 0 first)."""
    game = SmallWorldGame(GameConfig(num_players, seed), game_map)
    row = game._state.combo_row
    all_races = [r for r in RaceName if r not in [x for x, _ in races]]
    all_powers = [p for p in PowerName if p not in [y for _, y in races]]
    row.race_deck = [r for r, _ in races] + all_races
    row.power_deck = [p for _, p in races] + all_powers
    row.visible = []
    row.refill()
    return game


def act(game: SmallWorldGame, type_: str, **payload: object) -> dict:
    """Submit an action for whoever must act (asserting it is accepted)."""
    return game.submit_action(game.get_current_player(), {"type": type_, **payload})


def region(game: SmallWorldGame, rid: int):
    return game._state.regions[rid]


def setup_pool(
    game: SmallWorldGame,
    pid: int,
    race: RaceName,
    power: PowerName,
    regions: dict[int, int],
    hand: int = 0,
    decline: bool = False,
    spirit_slot: bool = False,
) -> None:
    """Put ``race`` in play for ``pid`` (active or declined) holding ``regions`` {id: tokens}."""
    gs = game._state
    player = gs.players[pid]
    total = hand + sum(regions.values())
    gs.tray[race] -= total
    assert gs.tray[race] >= 0
    if decline:
        pool = DeclineRaceState(race, power, hand)
        if spirit_slot:
            player.decline_spirit = pool
        else:
            player.decline = pool
    else:
        player.active = ActiveRaceState(race, power, hand, first_turn=False)
    for rid, n in regions.items():
        st = gs.regions[rid]
        st.owner, st.race, st.tokens, st.is_decline = pid, race, n, decline
        st.has_lost_tribe = False
    row = gs.combo_row
    row.visible = [c for c in row.visible if c.race != race and c.power != power]
    row.race_deck = [r for r in row.race_deck if r != race]
    row.power_deck = [p for p in row.power_deck if p != power]
    row.refill()


def begin_turn(game: SmallWorldGame, pid: int) -> None:
    """Make it ``pid``'s turn, at its first decision (pick a combo, or expand/decline)."""
    gs = game._state
    gs.current_player = gs.acting_player = pid
    gs.phase = Phase.CHOOSE_EXPAND_OR_DECLINE if gs.players[pid].active else Phase.PICK_COMBO


def rig_die(game: SmallWorldGame, value: int) -> None:
    """Move the RNG so that its next reinforcement-die roll shows ``value``."""
    gs = game._state
    seed, counter = gs.rng.get_state()
    for c in range(counter, counter + 1000):
        probe = SeededRNG(0)
        probe.set_state((seed, c))
        if probe.roll_reinforcement_die() == value:
            gs.rng.set_state((seed, c))
            return
    raise AssertionError("no such roll nearby")


def legal(game: SmallWorldGame, type_: str) -> list[dict]:
    return [a for a in game.get_legal_actions() if a["type"] == type_]


def targets(game: SmallWorldGame, type_: str = "CONQUER") -> set[int]:
    return {a["region_id"] for a in legal(game, type_)}


def finish_conquest(game: SmallWorldGame) -> None:
    """End the conquests, declining the final attempt if one is offered."""
    act(game, "SKIP_CONQUEST")
    if game.get_phase() is Phase.FINAL_CONQUEST:
        act(game, "SKIP_CONQUEST")
