"""What one player may see, as a JSON-safe dict: everything public, own coins, never the RNG.

Opponents' coin totals are secret in Small World (their number of coin tokens is not), so they
appear as ``"HIDDEN"``, and so do the coins of their scoring events. The decks' order is never
shown; only the six visible combos are.

Each race in play (active or declined) shows its tokens on the map, in hand, waiting to be
redeployed and in the box; a declined race says which of its abilities still act. ``events`` is
the public log from the start of the viewer's last finished turn up to now, oldest first.
"""

from __future__ import annotations

from typing import Any

from hexarena.games.smallworld.abilities import get_power_ability, get_race_ability
from hexarena.games.smallworld.actions import conquest_pool, get_legal_actions
from hexarena.games.smallworld.conquest import attack_for, berserk_roll, open_targets
from hexarena.games.smallworld.enums import Phase
from hexarena.games.smallworld.state import ActiveRaceState, DeclineRaceState, GameState, PlayerState

HIDDEN = "HIDDEN"


def region_view(gs: GameState, rid: int) -> dict[str, Any]:
    region, st = gs.map.regions[rid], gs.regions[rid]
    return {
        "id": rid,
        "terrain": region.terrain.value,
        "features": sorted(f.value for f in region.features),
        "owner": st.owner,
        "race": st.race.value if st.race else None,
        "is_decline": st.is_decline,
        "tokens": st.tokens,
        "markers": [m.value for m in st.markers],
        "lost_tribe": st.has_lost_tribe,
        "adjacent": sorted(gs.map.adjacency[rid]),
    }


def race_view(gs: GameState, pool: ActiveRaceState | DeclineRaceState) -> dict[str, Any]:
    """A race in play: its state, where its tokens are, and (declined) which abilities still act."""
    race = pool.race_name
    view = pool.to_json()
    view["tokens_on_map"] = gs.race_tokens_on_map(race)
    view["tokens_pending"] = gs.pending.get(race, 0)
    view["tokens_total"] = view["tokens_on_map"] + pool.tokens_in_hand + view["tokens_pending"]
    view["tokens_in_box"] = gs.tray[race]
    if isinstance(pool, DeclineRaceState):
        view["race_ability_acts"] = get_race_ability(race).persists_in_decline()
        view["power_acts"] = get_power_ability(pool.power_name).persists_in_decline()
    return view


def player_view(gs: GameState, player: PlayerState, hide_coins: bool) -> dict[str, Any]:
    view = player.to_json(hide_coins=hide_coins)
    for key in ("active", "decline", "decline_spirit"):
        pool = getattr(player, key)
        if pool is not None:
            view[key] = race_view(gs, pool)
    view["regions"] = len(gs.player_regions(player.player_id))
    view["tokens_on_map"] = gs.tokens_on_map(player.player_id)
    races = [player.active.race_name] if player.active else []
    races += [d.race_name for d in player.declines()]
    view["pending_redeploy"] = {r.value: gs.pending[r] for r in races if gs.pending.get(r)}
    return view


def events_since_last_turn(gs: GameState, player_id: int) -> list[dict[str, Any]]:
    """The public log from the start of ``player_id``'s last finished turn, oldest first.

    During the viewer's own turn that is its previous turn onwards; otherwise its latest turn
    onwards (the whole log before its first turn ends). Others' scoring coins are hidden.
    """
    own_turn_now = gs.current_player == player_id and not gs.game_over
    skip = 1 if own_turn_now else 0
    start = 0
    for i in range(len(gs.events) - 1, -1, -1):
        e = gs.events[i]
        if e["event"] == "turn_start" and e["player"] == player_id:
            if skip == 0:
                start = i
                break
            skip -= 1
    hide = not gs.game_over
    out = []
    for e in gs.events[start:]:
        copy = {
            k: dict(v) if isinstance(v, dict) else list(v) if isinstance(v, list) else v for k, v in e.items()
        }
        if hide and e["event"] == "score" and e["player"] != player_id:
            copy["coins"] = HIDDEN
        out.append(copy)
    return out


def conquest_costs(gs: GameState) -> dict[int, int]:
    """What each region the acting pool may attack would cost it now (conquest phases only)."""
    if gs.phase not in (Phase.CONQUEST, Phase.GHOUL_CONQUEST, Phase.FINAL_CONQUEST):
        return {}
    att = attack_for(gs, gs.current_player, conquest_pool(gs))
    roll = berserk_roll(att)
    return {rid: max(1, cost - roll) for rid, cost in open_targets(att).items()}


def build_observation(gs: GameState, player_id: int) -> dict[str, Any]:
    """The information set of ``player_id``; ``legal_actions`` is empty unless it must act.

    Coins become public once the game is over (the final count is shown).
    """
    acting = gs.acting_player
    hide = not gs.game_over
    mine = acting == player_id and not gs.game_over
    return {
        "game": {
            "turn": gs.turn,
            "max_turns": gs.config.max_turns,
            "num_players": gs.config.num_players,
            "current_player": acting,
            "turn_player": gs.current_player,
            "phase": gs.phase.value,
            "you": player_id,
        },
        "map": {"regions": [region_view(gs, rid) for rid in range(len(gs.regions))]},
        "combo_row": [dict(c.to_json(), index=i) for i, c in enumerate(gs.combo_row.visible)],
        "self": player_view(gs, gs.players[player_id], hide_coins=False),
        "opponents": [player_view(gs, p, hide_coins=hide) for p in gs.players if p.player_id != player_id],
        "diplomat_immunity": {str(k): v for k, v in gs.diplomat_immunity.items()},
        "events": events_since_last_turn(gs, player_id),
        "conquest_costs": {str(k): v for k, v in conquest_costs(gs).items()} if mine else {},
        "legal_actions": get_legal_actions(gs) if mine else [],
    }
