"""The game orchestrator: :class:`SmallWorldGame` validates, executes and logs actions.

``submit_action`` validates completely before changing anything, so a rejected action leaves the
state exactly as it was. After each action the engine enters the next phase, running the
automatic ones (SCORE, TURN_END) and skipping those with nothing to decide.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from hexarena.games.smallworld import actions as act
from hexarena.games.smallworld import phase_machine as pm
from hexarena.games.smallworld.abilities import get_power_ability, get_race_ability
from hexarena.games.smallworld.combo import ComboRow
from hexarena.games.smallworld.conquest import (
    MAX_DIE,
    attack_for,
    convert_with_sorcerer,
    effective_cost,
    execute_conquest,
)
from hexarena.games.smallworld.data_loader import get_all_powers, get_all_races
from hexarena.games.smallworld.enums import ActionType, Marker, Phase, RaceName, Terrain
from hexarena.games.smallworld.errors import GameOver
from hexarena.games.smallworld.game_map import MapGraph
from hexarena.games.smallworld.map_generator import generate_map
from hexarena.games.smallworld.observation import build_observation
from hexarena.games.smallworld.pools import ghoul_pool, pool_state
from hexarena.games.smallworld.rng import SeededRNG
from hexarena.games.smallworld.scoring import apply_scoring
from hexarena.games.smallworld.state import (
    ActiveRaceState,
    DeclineRaceState,
    GameConfig,
    GameState,
    PlayerState,
    RegionState,
)

A = ActionType
Result = dict[str, Any]


def new_game_state(config: GameConfig, game_map: MapGraph | None = None) -> GameState:
    """The initial state: map (generated unless given), 5 coins each, shuffled combo row."""
    if game_map is None:
        game_map = generate_map(config.num_players, SeededRNG(config.effective_map_seed))
    rng = SeededRNG(config.seed)
    races, powers = get_all_races(), get_all_powers()
    regions = []
    for region in game_map.regions:
        markers = [Marker.MOUNTAIN] if region.terrain is Terrain.MOUNTAIN else []
        regions.append(RegionState(region.id, markers=markers, has_lost_tribe=region.lost_tribe))
    gs = GameState(
        config=config,
        map=game_map,
        regions=regions,
        players=[PlayerState(i) for i in range(config.num_players)],
        combo_row=ComboRow(rng, list(races), list(powers)),
        rng=rng,
        tray={name: cfg.max_tokens for name, cfg in races.items()},
    )
    gs.record("turn_start")
    return gs


class SmallWorldGame:
    """One game of Small World. ``_state`` is the :class:`GameState` (mutated in place)."""

    def __init__(self, config: GameConfig, game_map: MapGraph | None = None) -> None:
        self.config = config
        self._state = new_game_state(config, game_map)

    # -- queries ---------------------------------------------------------------------------
    def get_observation(self, player_id: int) -> dict[str, Any]:
        return build_observation(self._state, player_id)

    def get_legal_actions(self, exhaustive: bool | None = None) -> list[dict[str, Any]]:
        return act.get_legal_actions(self._state, exhaustive)

    def get_current_player(self) -> int:
        """The player who must act now (a displaced player during OPPONENT_REDEPLOY)."""
        return self._state.acting_player

    def get_phase(self) -> Phase:
        return self._state.phase

    def is_game_over(self) -> bool:
        return self._state.game_over

    def get_results(self) -> dict[str, Any]:
        """Coins per player and the ranking: coins, then tokens on the map, then seat order."""
        gs = self._state
        scores = {p.player_id: p.coins for p in gs.players}
        tokens = {p.player_id: gs.tokens_on_map(p.player_id) for p in gs.players}
        ranking = sorted(scores, key=lambda p: (-scores[p], -tokens[p], p))
        return {
            "winner": ranking[0],
            "scores": scores,
            "tokens_on_map": tokens,
            "ranking": ranking,
            "game_over": gs.game_over,
            "turn": min(gs.turn, gs.config.max_turns),
        }

    def clone(self) -> SmallWorldGame:
        copy = SmallWorldGame.__new__(SmallWorldGame)
        copy.config = self.config
        copy._state = self._state.clone()
        return copy

    # -- actions ---------------------------------------------------------------------------
    def submit_action(self, player_id: int, action: Mapping[str, Any]) -> Result:
        """Validate and execute ``action`` for ``player_id``; raises and changes nothing if illegal."""
        gs = self._state
        if gs.game_over:
            raise GameOver("the game is over; no more actions are accepted")
        clean = act.validate_action(gs, player_id, action)
        atype = ActionType(clean["type"])
        first_event = len(gs.events)
        result = _HANDLERS[atype](self, clean) or {}
        gs.action_log.append(clean)
        self._enter(pm.advance_phase(gs, atype))
        return {
            "action": clean,
            **result,
            "events": gs.events[first_event:],
            "phase": gs.phase.value,
            "current_player": gs.acting_player,
            "game_over": gs.game_over,
        }

    @staticmethod
    def replay(config: GameConfig, action_log: Iterable[Mapping[str, Any]]) -> SmallWorldGame:
        """A game rebuilt from its config and action log (each action by whoever was to act)."""
        game = SmallWorldGame(config)
        for action in action_log:
            game.submit_action(game.get_current_player(), action)
        return game

    # -- handlers --------------------------------------------------------------------------
    def _pick_combo(self, a: dict[str, Any]) -> Result:
        gs = self._state
        pid = gs.current_player
        player = gs.players[pid]
        combo, net = gs.combo_row.pick(a["index"], player.coins)
        player.coins += net
        tokens = gs.take_from_tray(combo.race, combo.total_tokens)
        player.active = ActiveRaceState(combo.race, combo.power, tokens)
        get_race_ability(combo.race).on_combo_picked(gs, pid)
        get_power_ability(combo.power).on_combo_picked(gs, pid)
        gs.ghoul_turn = ghoul_pool(gs, pid) is not None
        gs.record(
            "pick_combo", race=combo.race.value, power=combo.power.value, index=a["index"], coins_change=net
        )
        return {"race": combo.race.value, "power": combo.power.value, "coins_change": net}

    def _expand(self, a: dict[str, Any]) -> Result:
        gs = self._state
        pid = gs.current_player
        active = gs.players[pid].active
        assert active is not None
        self._ready_troops(active)
        race_ab, power_ab = get_race_ability(active.race_name), get_power_ability(active.power_name)
        active.tokens_in_hand += race_ab.on_ready_troops(gs, pid) + power_ab.on_ready_troops(gs, pid)
        gs.ghoul_turn = ghoul_pool(gs, pid) is not None
        gs.record("expand", race=active.race_name.value, tokens_in_hand=active.tokens_in_hand)
        return {}

    def _ready_troops(self, pool: ActiveRaceState | DeclineRaceState) -> None:
        """All but one token of each region go back to hand."""
        for st in self._state.regions:
            if st.race == pool.race_name and st.tokens > 1:
                pool.tokens_in_hand += st.tokens - 1
                st.tokens = 1

    def _decline(self, a: dict[str, Any]) -> Result:
        self._go_into_decline(self._state.current_player)
        return {}

    def _go_into_decline(self, pid: int) -> None:
        gs = self._state
        player = gs.players[pid]
        active = player.active
        assert active is not None
        race, power = active.race_name, active.power_name
        race_ab, power_ab = get_race_ability(race), get_power_ability(power)
        for st in gs.regions:
            if st.race == race:
                keep = race_ab.tokens_kept_in_decline(st.tokens)
                gs.return_to_tray(race, st.tokens - keep)
                st.tokens, st.is_decline = keep, True
        race_ab.on_decline(gs, pid, race)
        power_ab.on_decline(gs, pid, race)
        gs.return_to_tray(race, active.tokens_in_hand)
        if not power_ab.persists_in_decline():
            gs.combo_row.return_power(power)
        declined = DeclineRaceState(race, power)
        if power_ab.decline_counts_toward_limit():
            old, player.decline = player.decline, declined
        else:
            old, player.decline_spirit = player.decline_spirit, declined
        player.active = None
        if old is not None:
            self._remove_race(old)
        gs.record("decline", pid, race=race.value, power=power.value)

    def _remove_race(self, pool: DeclineRaceState) -> None:
        """A declined race leaves the map; its banner (and a kept badge) go under their stacks."""
        gs = self._state
        race, owner = pool.race_name, gs.race_owner(pool.race_name)
        for st in gs.regions:
            if st.race == race:
                gs.return_to_tray(race, st.tokens)
                st.clear()
        gs.return_to_tray(race, pool.tokens_in_hand + gs.pending.pop(race, 0))
        for player in gs.players:
            if player.decline is pool:
                player.decline = None
            if player.decline_spirit is pool:
                player.decline_spirit = None
        gs.combo_row.return_race(race)
        if get_power_ability(pool.power_name).persists_in_decline():
            gs.combo_row.return_power(pool.power_name)
        gs.record("race_removed", owner, race=race.value)

    def _abandon(self, a: dict[str, Any]) -> Result:
        gs = self._state
        active = gs.players[gs.current_player].active
        assert active is not None
        tokens = {}
        for rid in a["region_ids"]:
            st = gs.regions[rid]
            active.tokens_in_hand += st.tokens
            tokens[str(rid)] = st.tokens
            st.clear()
        gs.record("abandon", race=active.race_name.value, regions=tokens)
        return {}

    def _conquer(self, a: dict[str, Any]) -> Result:
        gs = self._state
        pid, race = gs.current_player, act.conquest_pool(gs)
        att = attack_for(gs, pid, race)
        cost = effective_cost(att, a["region_id"])
        gs.record("conquest", **execute_conquest(a["region_id"], gs, pid, cost, race), by="conquest")
        if gs.phase is Phase.CONQUEST:
            gs.conquests_started = True
            active = gs.players[pid].active
            assert active is not None
            active.berserk_die_result = None
        return {"tokens_used": cost}

    def _skip(self, a: dict[str, Any]) -> Result:
        return {}

    def _final_conquest(self, a: dict[str, Any]) -> Result:
        gs = self._state
        pid = gs.current_player
        att = attack_for(gs, pid, act.conquest_pool(gs))
        rid = a["region_id"]
        cost = effective_cost(att, rid)
        roll = gs.rng.roll_reinforcement_die()
        success = att.hand + roll >= cost
        gs.record("reinforcement_die", race=att.race.value, region=rid, roll=roll, success=success)
        if success:
            gs.record("conquest", **execute_conquest(rid, gs, pid, att.hand, att.race), by="final conquest")
        gs.conquests_started = gs.conquests_started or gs.phase is not Phase.GHOUL_CONQUEST
        return {"die": roll, "success": success, "max_die": MAX_DIE}

    def _use_dragon(self, a: dict[str, Any]) -> Result:
        gs = self._state
        pid = gs.current_player
        active = gs.players[pid].active
        assert active is not None
        gs.strip_markers(Marker.DRAGON)
        gs.record("conquest", **execute_conquest(a["region_id"], gs, pid, 1, active.race_name), by="dragon")
        gs.regions[a["region_id"]].markers.append(Marker.DRAGON)
        active.dragon_used_this_turn = True
        gs.conquests_started = True
        return {}

    def _use_sorcerer(self, a: dict[str, Any]) -> Result:
        gs = self._state
        gs.record("conquest", **convert_with_sorcerer(gs, gs.current_player, a["region_id"]), by="sorcerer")
        gs.conquests_started = True
        return {}

    def _redeploy(self, a: dict[str, Any]) -> Result:
        gs = self._state
        pid = gs.current_player
        self._place_pools(act.redeploy_pools(gs, pid), a["placements"])
        gs.record("redeploy", placements=_placement_json(a["placements"]))
        active = gs.players[pid].active
        if active is not None:
            race_ab, power_ab = get_race_ability(active.race_name), get_power_ability(active.power_name)
            race_ab.on_post_redeploy(gs, pid)
            power_ab.on_post_redeploy(gs, pid)
        gs.phase_queue = pm.get_post_redeploy_phases(gs, pid)
        return {}

    def _place_pools(self, pools: list[tuple[RaceName, list[int], int]], placements: dict[int, int]) -> None:
        """Set each pool's regions to the placed counts; what is left stays in hand."""
        gs = self._state
        for race, held, total in pools:
            owner_pool = _pool(gs, race)
            on_map = sum(gs.regions[rid].tokens for rid in held)
            owner_pool.tokens_in_hand += on_map - total
            for rid in held:
                gs.regions[rid].tokens = placements[rid]

    def _place_bivouacs(self, a: dict[str, Any]) -> Result:
        gs = self._state
        gs.strip_markers(Marker.ENCAMPMENT)
        for rid, n in a["placements"].items():
            gs.regions[rid].markers.extend([Marker.ENCAMPMENT] * n)
        gs.record("place_bivouacs", placements=_placement_json(a["placements"]))
        return {}

    def _place_fortress(self, a: dict[str, Any]) -> Result:
        gs = self._state
        if a["region_id"] is not None:
            gs.regions[a["region_id"]].markers.append(Marker.FORTRESS)
            active = gs.players[gs.current_player].active
            assert active is not None
            active.fortress_placed_this_turn = True
        gs.record("place_fortress", region=a["region_id"])
        return {}

    def _place_heroes(self, a: dict[str, Any]) -> Result:
        gs = self._state
        gs.strip_markers(Marker.HERO)
        for rid in a["region_ids"]:
            gs.regions[rid].markers.append(Marker.HERO)
        gs.record("place_heroes", regions=list(a["region_ids"]))
        return {}

    def _choose_ally(self, a: dict[str, Any]) -> Result:
        gs = self._state
        if a["target_player"] is None:
            gs.diplomat_immunity.pop(gs.current_player, None)
        else:
            gs.diplomat_immunity[gs.current_player] = a["target_player"]
        gs.record("diplomat_ally", target_player=a["target_player"])
        return {}

    def _stout_decline(self, a: dict[str, Any]) -> Result:
        if a["decline"]:
            self._go_into_decline(self._state.current_player)
        return {}

    def _opponent_redeploy(self, a: dict[str, Any]) -> Result:
        gs = self._state
        for race, _, _ in act.opponent_redeploy_pools(gs, gs.acting_player):
            gs.pending.pop(race, None)
        for rid, n in a["placements"].items():
            gs.regions[rid].tokens += n
        gs.record("opponent_redeploy", gs.acting_player, placements=_placement_json(a["placements"]))
        return {}

    # -- automatic phases -------------------------------------------------------------------
    def _enter(self, phase: Phase) -> None:
        """Enter ``phase``, running automatic phases until a player has something to decide."""
        gs = self._state
        while True:
            if gs.phase_queue and gs.phase_queue[0] is phase:
                gs.phase_queue.pop(0)
            entering, gs.phase = gs.phase is not phase, phase
            pid = gs.current_player
            active = gs.players[pid].active
            if phase is Phase.GHOUL_CONQUEST:
                ghouls = ghoul_pool(gs, pid)
                assert ghouls is not None
                if entering:  # once per turn: after a conquest the phase is re-entered
                    self._ready_troops(ghouls)
                return
            if phase is Phase.CONQUEST:
                assert active is not None  # a combo was picked or the race expanded
                berserk = get_power_ability(active.power_name).use_reinforcement_die_per_conquest()
                if berserk and active.berserk_die_result is None:
                    active.berserk_die_result = gs.rng.roll_reinforcement_die()
                    gs.record("berserk_die", race=active.race_name.value, roll=active.berserk_die_result)
                return
            if phase is Phase.FINAL_CONQUEST:
                berserk = (
                    active is not None
                    and get_power_ability(active.power_name).use_reinforcement_die_per_conquest()
                )
                if berserk or not act.get_final_targets(gs, pid):
                    phase = Phase.REDEPLOY
                    continue
                return
            if phase is Phase.REDEPLOY:
                self._grow_at_redeploy(pid)
                if act.redeploy_pools(gs, pid):
                    return
                gs.phase_queue = pm.get_post_redeploy_phases(gs, pid)
                phase = gs.phase_queue[0] if gs.phase_queue else Phase.SCORE
                continue
            if phase is Phase.SCORE:
                earned = apply_scoring(gs, pid)
                gs.record("score", pid, coins=earned)
                phase = pm.phase_after_score(gs)
                continue
            if phase is Phase.OPPONENT_REDEPLOY:
                if self._next_displaced():
                    return
                phase = Phase.TURN_END
                continue
            if phase is Phase.TURN_END:
                phase = self._end_turn()
                if phase is Phase.GAME_OVER:
                    gs.phase = phase
                    return
                continue
            return

    def _grow_at_redeploy(self, pid: int) -> None:
        gs = self._state
        active = gs.players[pid].active
        if active is None:
            return
        race_ab, power_ab = get_race_ability(active.race_name), get_power_ability(active.power_name)
        wanted = race_ab.tokens_gained_at_redeploy(gs, pid) + power_ab.tokens_gained_at_redeploy(gs, pid)
        got = gs.take_from_tray(active.race_name, wanted)
        active.tokens_in_hand += got

    def _next_displaced(self) -> bool:
        """Resolve waiting tokens in seat order after the turn player; True if someone must act."""
        gs = self._state
        n = gs.config.num_players
        for offset in range(1, n + 1):
            pid = (gs.current_player + offset) % n
            for race in [r for r, k in gs.pending.items() if k > 0 and gs.race_owner(r) == pid]:
                if gs.race_regions(race):
                    continue
                pool = _pool(gs, race)
                if isinstance(pool, ActiveRaceState):
                    pool.tokens_in_hand += gs.pending.pop(race)
                else:
                    assert isinstance(pool, DeclineRaceState)
                    self._remove_race(pool)
            if act.opponent_redeploy_pools(gs, pid):
                gs.acting_player = pid
                return True
        gs.pending = {r: k for r, k in gs.pending.items() if k > 0}
        gs.acting_player = gs.current_player
        return False

    def _end_turn(self) -> Phase:
        gs = self._state
        pid = gs.current_player
        player = gs.players[pid]
        if player.active is not None:
            get_race_ability(player.active.race_name).on_turn_end(gs, pid)
            get_power_ability(player.active.power_name).on_turn_end(gs, pid)
            player.active.new_turn()
        for p in gs.players:
            for d in p.declines():
                if not gs.race_regions(d.race_name):
                    self._remove_race(d)
        gs.conquests_started = False
        gs.ghoul_turn = False
        gs.phase_queue = []
        nxt, turn, over = pm.advance_to_next_player(gs)
        gs.turn = turn
        if over:
            gs.acting_player = gs.current_player
            return Phase.GAME_OVER
        gs.current_player = gs.acting_player = nxt
        gs.diplomat_immunity.pop(nxt, None)
        gs.record("turn_start")
        return Phase.CHOOSE_EXPAND_OR_DECLINE if gs.players[nxt].active is not None else Phase.PICK_COMBO


def _placement_json(placements: Mapping[int, int]) -> dict[str, int]:
    """{region id: tokens} with string keys, as JSON writes them."""
    return {str(rid): n for rid, n in sorted(placements.items())}


def _pool(gs: GameState, race: RaceName) -> ActiveRaceState | DeclineRaceState:
    found = pool_state(gs, race)
    assert found is not None
    return found[1]


_HANDLERS: dict[ActionType, Callable[[SmallWorldGame, dict[str, Any]], Result]] = {
    A.PICK_COMBO: SmallWorldGame._pick_combo,
    A.EXPAND: SmallWorldGame._expand,
    A.DECLINE: SmallWorldGame._decline,
    A.ABANDON: SmallWorldGame._abandon,
    A.CONQUER: SmallWorldGame._conquer,
    A.SKIP_CONQUEST: SmallWorldGame._skip,
    A.FINAL_CONQUEST: SmallWorldGame._final_conquest,
    A.USE_DRAGON: SmallWorldGame._use_dragon,
    A.USE_SORCERER: SmallWorldGame._use_sorcerer,
    A.REDEPLOY: SmallWorldGame._redeploy,
    A.PLACE_BIVOUACS: SmallWorldGame._place_bivouacs,
    A.PLACE_FORTRESS: SmallWorldGame._place_fortress,
    A.PLACE_HEROES: SmallWorldGame._place_heroes,
    A.CHOOSE_DIPLOMAT_ALLY: SmallWorldGame._choose_ally,
    A.STOUT_DECLINE: SmallWorldGame._stout_decline,
    A.OPPONENT_REDEPLOY: SmallWorldGame._opponent_redeploy,
}
