"""The 20 special powers (official behaviour; see rules/ for where it departs from the spec)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from hexarena.games.smallworld.abilities import AbilityHook, register_power
from hexarena.games.smallworld.abilities.races import TerrainCoinAbility, count_held
from hexarena.games.smallworld.enums import Marker, Phase, PowerName, RaceName, Terrain

if TYPE_CHECKING:
    from hexarena.games.smallworld.state import GameState

ALCHEMIST_COINS = 2
WEALTHY_COINS = 7


class DiscountPower(AbilityHook):
    """-1 on regions of the listed terrains (all regions when ``terrains`` is None)."""

    terrains: frozenset[Terrain] | None = None

    def modify_conquest_cost(self, gs: GameState, pid: int, region_id: int) -> int:
        return int(self.terrains is None or gs.map.regions[region_id].terrain in self.terrains)


class MarkerPower(AbilityHook):
    """A power whose marker leaves the map when its race declines."""

    marker: Marker

    def on_decline(self, gs: GameState, pid: int, race: RaceName) -> None:
        gs.strip_markers(self.marker, race)


@register_power(PowerName.ALCHEMIST)
class AlchemistPower(AbilityHook):
    def compute_score_bonus(self, gs: GameState, pid: int, race: RaceName, in_decline: bool) -> int:
        return ALCHEMIST_COINS


@register_power(PowerName.BERSERK)
class BerserkPower(AbilityHook):
    def use_reinforcement_die_per_conquest(self) -> bool:
        return True


@register_power(PowerName.BIVOUACKING)
class BivouackingPower(MarkerPower):
    marker = Marker.ENCAMPMENT

    def get_post_redeploy_phases(self, gs: GameState, pid: int) -> list[Phase]:
        return [Phase.PLACE_BIVOUACS] if gs.player_active_regions(pid) else []


@register_power(PowerName.COMMANDO)
class CommandoPower(DiscountPower):
    terrains = None


@register_power(PowerName.DIPLOMAT)
class DiplomatPower(AbilityHook):
    def get_post_redeploy_phases(self, gs: GameState, pid: int) -> list[Phase]:
        return [Phase.CHOOSE_DIPLOMAT_ALLY] if diplomat_candidates(gs, pid) else []


def diplomat_candidates(gs: GameState, pid: int) -> list[int]:
    """Opponents whose active race the Diplomat did not attack this turn."""
    active = gs.players[pid].active
    attacked = active.opponents_attacked_this_turn if active is not None else set()
    return [p.player_id for p in gs.players if p.player_id != pid and p.player_id not in attacked]


@register_power(PowerName.DRAGON_MASTER)
class DragonMasterPower(MarkerPower):
    marker = Marker.DRAGON

    def is_region_immune(self, gs: GameState, region_id: int) -> bool:
        return Marker.DRAGON in gs.regions[region_id].markers


@register_power(PowerName.FLYING)
class FlyingPower(AbilityHook):
    def ignore_adjacency(self) -> bool:
        return True


@register_power(PowerName.FOREST)
class ForestPower(TerrainCoinAbility):
    terrain = Terrain.FOREST


@register_power(PowerName.FORTIFIED)
class FortifiedPower(AbilityHook):
    def get_post_redeploy_phases(self, gs: GameState, pid: int) -> list[Phase]:
        return [Phase.PLACE_FORTRESS] if fortress_candidates(gs, pid) else []

    def compute_score_bonus(self, gs: GameState, pid: int, race: RaceName, in_decline: bool) -> int:
        return sum(r.markers.count(Marker.FORTRESS) for r in gs.regions if r.race == race)


def fortress_candidates(gs: GameState, pid: int) -> list[int]:
    """Held regions without a Fortress, while the box has one and none was placed this turn."""
    active = gs.players[pid].active
    if active is None or active.fortress_placed_this_turn or gs.supply_left(Marker.FORTRESS) <= 0:
        return []
    return [
        r.region_id
        for r in gs.regions
        if r.race == active.race_name and not r.is_decline and Marker.FORTRESS not in r.markers
    ]


@register_power(PowerName.HEROIC)
class HeroicPower(MarkerPower):
    marker = Marker.HERO

    def get_post_redeploy_phases(self, gs: GameState, pid: int) -> list[Phase]:
        return [Phase.PLACE_HEROES] if gs.player_active_regions(pid) else []

    def is_region_immune(self, gs: GameState, region_id: int) -> bool:
        return Marker.HERO in gs.regions[region_id].markers


@register_power(PowerName.HILL)
class HillPower(TerrainCoinAbility):
    terrain = Terrain.HILL


@register_power(PowerName.MERCHANT)
class MerchantPower(AbilityHook):
    def compute_score_bonus(self, gs: GameState, pid: int, race: RaceName, in_decline: bool) -> int:
        return count_held(gs, race)


@register_power(PowerName.MOUNTED)
class MountedPower(DiscountPower):
    terrains = frozenset({Terrain.HILL, Terrain.FARMLAND})


@register_power(PowerName.PILLAGING)
class PillagingPower(AbilityHook):
    def compute_score_bonus(self, gs: GameState, pid: int, race: RaceName, in_decline: bool) -> int:
        active = gs.players[pid].active
        return active.non_empty_conquests_this_turn if active is not None else 0


@register_power(PowerName.SEAFARING)
class SeafaringPower(AbilityHook):
    def can_conquer_sea(self) -> bool:
        return True

    def persists_in_decline(self) -> bool:
        return True


@register_power(PowerName.SPIRIT)
class SpiritPower(AbilityHook):
    def decline_counts_toward_limit(self) -> bool:
        return False

    def persists_in_decline(self) -> bool:
        return True


@register_power(PowerName.STOUT)
class StoutPower(AbilityHook):
    def can_stout_decline(self) -> bool:
        return True


@register_power(PowerName.SWAMP)
class SwampPower(TerrainCoinAbility):
    terrain = Terrain.SWAMP


@register_power(PowerName.UNDERWORLD)
class UnderworldPower(AbilityHook):
    def modify_conquest_cost(self, gs: GameState, pid: int, region_id: int) -> int:
        return int(gs.map.regions[region_id].has_cavern)

    def get_extra_adjacency(self, gs: GameState, held: set[int]) -> set[int]:
        caverns = gs.map.cavern_regions()
        return set(caverns) if held & caverns else set()


@register_power(PowerName.WEALTHY)
class WealthyPower(AbilityHook):
    def compute_score_bonus(self, gs: GameState, pid: int, race: RaceName, in_decline: bool) -> int:
        active = gs.players[pid].active
        return WEALTHY_COINS if active is not None and active.first_turn else 0
