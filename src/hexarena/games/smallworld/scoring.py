"""End-of-turn scoring: 1 coin per region held by any of the player's races, plus bonuses."""

from __future__ import annotations

from hexarena.games.smallworld.pools import pool_abilities
from hexarena.games.smallworld.state import GameState


def compute_player_score(gs: GameState, player_id: int) -> int:
    """Coins ``player_id`` earns now: regions of every pool, and each pool's acting bonuses."""
    player = gs.players[player_id]
    coins = sum(1 for r in gs.regions if r.owner == player_id)
    pools = [(player.active.race_name, False)] if player.active is not None else []
    pools += [(d.race_name, True) for d in player.declines()]
    for race, in_decline in pools:
        race_ab, power_ab = pool_abilities(gs, race)
        coins += race_ab.compute_score_bonus(gs, player_id, race, in_decline)
        coins += power_ab.compute_score_bonus(gs, player_id, race, in_decline)
    return coins


def apply_scoring(gs: GameState, player_id: int) -> int:
    earned = compute_player_score(gs, player_id)
    gs.players[player_id].coins += earned
    return earned
