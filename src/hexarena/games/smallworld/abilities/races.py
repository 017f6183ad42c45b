"""The 14 races (official behaviour; see rules/ for where it departs from the spec)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from hexarena.games.smallworld.abilities import AbilityHook, register_race
from hexarena.games.smallworld.enums import Feature, Marker, RaceName, Terrain

if TYPE_CHECKING:
    from hexarena.games.smallworld.state import GameState

AMAZON_EXTRA_TOKENS = 4
HALFLING_HOLES = 2


def count_held(
    gs: GameState, race: RaceName, terrain: Terrain | None = None, feature: Feature | None = None
) -> int:
    """Regions ``race`` holds, optionally only of one terrain or with one symbol."""
    n = 0
    for r in gs.regions:
        if r.race != race:
            continue
        region = gs.map.regions[r.region_id]
        if (terrain is None or region.terrain == terrain) and (feature is None or feature in region.features):
            n += 1
    return n


class TerrainCoinAbility(AbilityHook):
    """+1 coin per held region of one terrain or with one symbol."""

    terrain: Terrain | None = None
    feature: Feature | None = None

    def compute_score_bonus(self, gs: GameState, pid: int, race: RaceName, in_decline: bool) -> int:
        return count_held(gs, race, self.terrain, self.feature)


@register_race(RaceName.AMAZONS)
class AmazonsAbility(AbilityHook):
    def on_combo_picked(self, gs: GameState, pid: int) -> None:
        active = gs.players[pid].active
        assert active is not None
        got = gs.take_from_tray(RaceName.AMAZONS, AMAZON_EXTRA_TOKENS)
        active.tokens_in_hand += got

    def tokens_withheld_at_redeploy(self) -> int:
        return AMAZON_EXTRA_TOKENS


@register_race(RaceName.DWARVES)
class DwarvesAbility(TerrainCoinAbility):
    feature = Feature.MINE

    def persists_in_decline(self) -> bool:
        return True


@register_race(RaceName.ELVES)
class ElvesAbility(AbilityHook):
    def modify_tokens_lost_on_defeat(self, base_loss: int) -> int:
        return 0


@register_race(RaceName.GHOULS)
class GhoulsAbility(AbilityHook):
    def persists_in_decline(self) -> bool:
        return True

    def tokens_kept_in_decline(self, tokens: int) -> int:
        return tokens

    def can_conquer_in_decline(self) -> bool:
        return True


@register_race(RaceName.GIANTS)
class GiantsAbility(AbilityHook):
    def modify_conquest_cost(self, gs: GameState, pid: int, region_id: int) -> int:
        for nb in gs.map.adjacency[region_id]:
            if gs.regions[nb].race == RaceName.GIANTS and gs.map.regions[nb].terrain == Terrain.MOUNTAIN:
                return 1
        return 0


@register_race(RaceName.HALFLINGS)
class HalflingsAbility(AbilityHook):
    def is_valid_first_target(self, gs: GameState, region_id: int) -> bool | None:
        # Any land region; water keeps the border rule (Seafaring Halflings enter by an edge sea).
        return True if gs.map.regions[region_id].is_land else None

    def on_region_conquered(self, gs: GameState, pid: int, region_id: int, non_empty: bool) -> None:
        active = gs.players[pid].active
        if active is None or active.race_name != RaceName.HALFLINGS or active.holes_placed >= HALFLING_HOLES:
            return
        if gs.supply_left(Marker.HOLE_IN_THE_GROUND) > 0:
            gs.regions[region_id].markers.append(Marker.HOLE_IN_THE_GROUND)
        active.holes_placed += 1

    def is_region_immune(self, gs: GameState, region_id: int) -> bool:
        return Marker.HOLE_IN_THE_GROUND in gs.regions[region_id].markers

    def on_decline(self, gs: GameState, pid: int, race: RaceName) -> None:
        gs.strip_markers(Marker.HOLE_IN_THE_GROUND, race)


@register_race(RaceName.HUMANS)
class HumansAbility(TerrainCoinAbility):
    terrain = Terrain.FARMLAND


@register_race(RaceName.ORCS)
class OrcsAbility(AbilityHook):
    def compute_score_bonus(self, gs: GameState, pid: int, race: RaceName, in_decline: bool) -> int:
        active = gs.players[pid].active
        return active.non_empty_conquests_this_turn if active is not None else 0


@register_race(RaceName.RATMEN)
class RatmenAbility(AbilityHook):
    """No ability: eight tokens instead."""


@register_race(RaceName.SKELETONS)
class SkeletonsAbility(AbilityHook):
    def tokens_gained_at_redeploy(self, gs: GameState, pid: int) -> int:
        active = gs.players[pid].active
        return active.non_empty_conquests_this_turn // 2 if active is not None else 0


@register_race(RaceName.SORCERERS)
class SorcerersAbility(AbilityHook):
    """Conversion is its own action (USE_SORCERER); see conquest.sorcerer_refusal."""


@register_race(RaceName.TRITONS)
class TritonsAbility(AbilityHook):
    def modify_conquest_cost(self, gs: GameState, pid: int, region_id: int) -> int:
        return 1 if gs.map.regions[region_id].is_coastal else 0


@register_race(RaceName.TROLLS)
class TrollsAbility(AbilityHook):
    def on_region_conquered(self, gs: GameState, pid: int, region_id: int, non_empty: bool) -> None:
        if gs.supply_left(Marker.TROLL_LAIR) > 0:
            gs.regions[region_id].markers.append(Marker.TROLL_LAIR)


@register_race(RaceName.WIZARDS)
class WizardsAbility(TerrainCoinAbility):
    feature = Feature.MAGIC_SOURCE
