"""Race and power abilities as hook objects.

:class:`AbilityHook` defines every point where a race or a power can change the rules, each with a
neutral default; a concrete ability overrides only what it changes. The engine asks the hooks of
the race and power of the acting pool (and of a defender where that matters) instead of testing
race names. Abilities register themselves with :func:`register_race` / :func:`register_power`;
unregistered names get :class:`NullAbility`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from hexarena.games.smallworld.enums import Phase, PowerName, RaceName

if TYPE_CHECKING:
    from hexarena.games.smallworld.state import GameState


class AbilityHook:
    """Neutral behaviour for every hook. ``pid`` is the player owning the race or power."""

    name: RaceName | PowerName | None = None

    # -- conquest ------------------------------------------------------------------------
    def modify_conquest_cost(self, gs: GameState, pid: int, region_id: int) -> int:
        """Discount on conquering ``region_id`` (the total cost never drops below 1)."""
        return 0

    def get_extra_adjacency(self, gs: GameState, held: set[int]) -> set[int]:
        """Regions that count as adjacent to the ``held`` regions beyond the map's edges."""
        return set()

    def ignore_adjacency(self) -> bool:
        """True if any land region may be attacked, adjacent or not, border rule included."""
        return False

    def is_valid_first_target(self, gs: GameState, region_id: int) -> bool | None:
        """Override the border rule for an entry conquest (None keeps the rule)."""
        return None

    def can_conquer_sea(self) -> bool:
        return False

    def can_conquer_target(self, gs: GameState, pid: int, region_id: int) -> bool:
        return True

    def on_region_conquered(self, gs: GameState, pid: int, region_id: int, non_empty: bool) -> None:
        """After the attacker's tokens are in the region."""

    def modify_tokens_lost_on_defeat(self, base_loss: int) -> int:
        return base_loss

    def is_region_immune(self, gs: GameState, region_id: int) -> bool:
        """Asked of the defending race and power: may nobody attack this region?"""
        return False

    def use_reinforcement_die_per_conquest(self) -> bool:
        return False

    # -- troops ---------------------------------------------------------------------------
    def on_combo_picked(self, gs: GameState, pid: int) -> None:
        """Right after the race and power are taken from the combo row."""

    def on_ready_troops(self, gs: GameState, pid: int) -> int:
        """Extra tokens taken into hand when troops are readied (Expand)."""
        return 0

    def tokens_gained_at_redeploy(self, gs: GameState, pid: int) -> int:
        """Tokens taken from the tray when redeployment starts (before the cap is applied)."""
        return 0

    def tokens_withheld_at_redeploy(self) -> int:
        """Tokens that leave the map after redeployment and come back at the next Expand."""
        return 0

    def on_post_redeploy(self, gs: GameState, pid: int) -> None:
        """Right after the REDEPLOY action."""

    def get_post_redeploy_phases(self, gs: GameState, pid: int) -> list[Phase]:
        """Phases this ability adds between REDEPLOY and SCORE (only when they have a choice)."""
        return []

    # -- scoring and decline ----------------------------------------------------------------
    def compute_score_bonus(self, gs: GameState, pid: int, race: RaceName, in_decline: bool) -> int:
        """Extra coins at the end of the turn for the pool ``race``."""
        return 0

    def persists_in_decline(self) -> bool:
        """Whether this ability keeps acting after its race declines."""
        return False

    def on_decline(self, gs: GameState, pid: int, race: RaceName) -> None:
        """When ``race`` goes into decline (markers that leave are removed here)."""

    def tokens_kept_in_decline(self, tokens: int) -> int:
        return 1

    def decline_counts_toward_limit(self) -> bool:
        return True

    def can_conquer_in_decline(self) -> bool:
        return False

    def can_stout_decline(self) -> bool:
        return False

    def on_turn_end(self, gs: GameState, pid: int) -> None:
        """At the end of the owner's turn."""


class NullAbility(AbilityHook):
    """No ability at all (a race or power without a registered class, or a discarded badge)."""


NULL_ABILITY = NullAbility()
_RACES: dict[RaceName, AbilityHook] = {}
_POWERS: dict[PowerName, AbilityHook] = {}

H = TypeVar("H", bound=type[AbilityHook])


def _registrar(table: dict[Any, AbilityHook]) -> Callable[[Any], Callable[[H], H]]:
    def register(name: Any) -> Callable[[H], H]:
        def deco(cls: H) -> H:
            instance = cls()
            instance.name = name
            table[name] = instance
            return cls

        return deco

    return register


#: ``@register_race(RaceName.X)`` / ``@register_power(PowerName.Y)`` on an AbilityHook subclass.
register_race = _registrar(_RACES)
register_power = _registrar(_POWERS)


def get_race_ability(name: RaceName) -> AbilityHook:
    return _RACES.get(name, NULL_ABILITY)


def get_power_ability(name: PowerName) -> AbilityHook:
    return _POWERS.get(name, NULL_ABILITY)


# Importing the implementations fills the registries.
from hexarena.games.smallworld.abilities import powers, races  # noqa: E402

__all__ = [
    "NULL_ABILITY",
    "AbilityHook",
    "NullAbility",
    "get_power_ability",
    "get_race_ability",
    "powers",
    "races",
    "register_power",
    "register_race",
]
