"""The combo row: six race banner + power badge pairs, the top one free, each lower one costing 1 more."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from hexarena.games.smallworld.data_loader import get_power_config, get_race_config
from hexarena.games.smallworld.enums import PowerName, RaceName
from hexarena.games.smallworld.rng import SeededRNG

VISIBLE_COMBOS = 6


@dataclass(slots=True)
class Combo:
    """A race+power pairing and the coins other players dropped on it."""

    race: RaceName
    power: PowerName
    coins: int = 0

    @property
    def total_tokens(self) -> int:
        return get_race_config(self.race).base_tokens + get_power_config(self.power).bonus_tokens

    def to_json(self) -> dict[str, Any]:
        return {
            "race": self.race.value,
            "power": self.power.value,
            "total_tokens": self.total_tokens,
            "coins": self.coins,
        }


class ComboRow:
    """Shuffled race and power stacks and the six visible combos drawn from their tops."""

    __slots__ = ("power_deck", "race_deck", "visible")

    def __init__(self, rng: SeededRNG | None, races: list[RaceName], powers: list[PowerName]) -> None:
        self.race_deck = list(races)
        self.power_deck = list(powers)
        if rng is not None:
            rng.shuffle(self.race_deck)
            rng.shuffle(self.power_deck)
        self.visible: list[Combo] = []
        self.refill()

    def refill(self) -> None:
        while len(self.visible) < VISIBLE_COMBOS and self.race_deck and self.power_deck:
            self.visible.append(Combo(self.race_deck.pop(0), self.power_deck.pop(0)))

    def pick(self, index: int, player_coins: int) -> tuple[Combo, int]:
        """Take combo ``index``: 1 coin goes onto each combo above it, its own coins go to the picker.

        Returns the combo and the picker's net coin change. The caller checks affordability.
        """
        if not 0 <= index < len(self.visible) or index > player_coins:
            raise ValueError(f"combo {index} is not available for {player_coins} coins")
        for combo in self.visible[:index]:
            combo.coins += 1
        chosen = self.visible.pop(index)
        self.refill()
        return chosen, chosen.coins - index

    def return_race(self, race: RaceName) -> None:
        """A race that left the map goes to the bottom of the race stack."""
        self.race_deck.append(race)
        self.refill()

    def return_power(self, power: PowerName) -> None:
        self.power_deck.append(power)
        self.refill()

    def clone(self) -> ComboRow:
        copy = ComboRow.__new__(ComboRow)
        copy.race_deck = list(self.race_deck)
        copy.power_deck = list(self.power_deck)
        copy.visible = [Combo(c.race, c.power, c.coins) for c in self.visible]
        return copy

    def to_json(self) -> dict[str, Any]:
        return {
            "visible": [c.to_json() for c in self.visible],
            "race_deck": [r.value for r in self.race_deck],
            "power_deck": [p.value for p in self.power_deck],
        }
