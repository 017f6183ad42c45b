"""The seeded RNG of a game: a thin wrapper over hexarena's counter-based :class:`Rng`.

Its whole state is two integers, so cloning and replaying a game is exact and cheap.
"""

from __future__ import annotations

from collections.abc import MutableSequence, Sequence
from typing import TypeVar

from hexarena.core.rng import Rng

T = TypeVar("T")

#: The reinforcement die: three blank faces, then 1, 2 and 3.
REINFORCEMENT_DIE_FACES: tuple[int, ...] = (0, 0, 0, 1, 2, 3)


class SeededRNG:
    """Every random draw of one game (deck shuffles, die rolls) in a fixed order."""

    __slots__ = ("_rng",)

    def __init__(self, seed: int) -> None:
        self._rng = Rng(int(seed))

    def roll_reinforcement_die(self) -> int:
        return REINFORCEMENT_DIE_FACES[self._rng.randbelow(len(REINFORCEMENT_DIE_FACES))]

    def shuffle(self, items: MutableSequence[T]) -> None:
        self._rng.shuffle(items)

    def random_int(self, lo: int, hi: int) -> int:
        """An int in [lo, hi], both ends included."""
        return self._rng.randint(lo, hi)

    def random_float(self) -> float:
        return self._rng.random()

    def choice(self, items: Sequence[T]) -> T:
        return self._rng.choice(items)

    def sample(self, items: Sequence[T], k: int) -> list[T]:
        return self._rng.sample(items, k)

    def get_state(self) -> tuple[int, int]:
        return self._rng.state

    def set_state(self, state: Sequence[int]) -> None:
        self._rng = Rng.from_state(state)

    def clone(self) -> SeededRNG:
        copy = SeededRNG.__new__(SeededRNG)
        copy._rng = self._rng.copy()
        return copy
