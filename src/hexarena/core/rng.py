"""Seeded, serialisable randomness for game engines.

Every random draw in a hexarena game comes from an :class:`Rng` owned by that game (never from
the global :mod:`random`), so the same config and the same moves always give the same game.

The generator is counter based (SplitMix64 over ``seed`` and a draw counter): its whole state is
two integers, which makes it trivial to store inside an immutable game state, to export as JSON
and to restore exactly. It is not cryptographic, and it does not need to be.
"""

from __future__ import annotations

import hashlib
from collections.abc import MutableSequence, Sequence
from typing import TypeVar

T = TypeVar("T")

_MASK64 = (1 << 64) - 1
_GOLDEN = 0x9E3779B97F4A7C15


def _mix64(z: int) -> int:
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK64
    return z ^ (z >> 31)


def derive_seed(seed: int, *labels: object) -> int:
    """A stable 63-bit seed for a named sub-stream (e.g. ``derive_seed(seed, "map")``).

    Uses a cryptographic hash of the labels' text so the result never depends on Python's
    per-process string hashing.
    """
    text = "\x1f".join([str(int(seed))] + [str(label) for label in labels])
    return int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "big") >> 1


class Rng:
    """A small deterministic random generator whose state is ``(seed, counter)``.

    >>> rng = Rng(42)
    >>> a = rng.randint(1, 6)
    >>> Rng.from_state(Rng(42).state).randint(1, 6) == a
    True
    """

    __slots__ = ("counter", "seed")

    def __init__(self, seed: int, counter: int = 0) -> None:
        if not isinstance(seed, int) or isinstance(seed, bool):
            raise TypeError(f"seed must be an int, got {type(seed).__name__}")
        if counter < 0:
            raise ValueError("counter must be >= 0")
        self.seed = seed & _MASK64
        self.counter = counter

    # -- state -----------------------------------------------------------------------------
    @property
    def state(self) -> tuple[int, int]:
        """The complete state; ``Rng.from_state(rng.state)`` continues the same stream."""
        return (self.seed, self.counter)

    @classmethod
    def from_state(cls, state: Sequence[int]) -> Rng:
        seed, counter = state
        return cls(int(seed), int(counter))

    def copy(self) -> Rng:
        return Rng(self.seed, self.counter)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Rng) and self.state == other.state

    def __hash__(self) -> int:
        return hash(self.state)

    def __repr__(self) -> str:
        return f"Rng(seed={self.seed}, counter={self.counter})"

    # -- draws -----------------------------------------------------------------------------
    def next_u64(self) -> int:
        """The next raw 64-bit draw."""
        self.counter += 1
        return _mix64((_mix64(self.seed) + self.counter * _GOLDEN) & _MASK64)

    def random(self) -> float:
        """A float uniform in [0, 1) with 53 bits of precision."""
        return (self.next_u64() >> 11) * (1.0 / (1 << 53))

    def randbelow(self, n: int) -> int:
        """An int uniform in [0, n), unbiased (rejection sampling)."""
        if n <= 0:
            raise ValueError("randbelow needs n > 0")
        limit = (1 << 64) - ((1 << 64) % n)
        while True:
            x = self.next_u64()
            if x < limit:
                return x % n

    def randint(self, lo: int, hi: int) -> int:
        """An int uniform in [lo, hi], both ends included (like :func:`random.randint`)."""
        if hi < lo:
            raise ValueError(f"empty range [{lo}, {hi}]")
        return lo + self.randbelow(hi - lo + 1)

    def choice(self, seq: Sequence[T]) -> T:
        if not seq:
            raise IndexError("choice from an empty sequence")
        return seq[self.randbelow(len(seq))]

    def shuffle(self, seq: MutableSequence[T]) -> None:
        """Shuffle in place (Fisher-Yates)."""
        for i in range(len(seq) - 1, 0, -1):
            j = self.randbelow(i + 1)
            seq[i], seq[j] = seq[j], seq[i]

    def shuffled(self, seq: Sequence[T]) -> list[T]:
        out = list(seq)
        self.shuffle(out)
        return out

    def sample(self, seq: Sequence[T], k: int) -> list[T]:
        """``k`` distinct items in random order."""
        if not 0 <= k <= len(seq):
            raise ValueError(f"sample size {k} out of range for {len(seq)} items")
        pool = list(seq)
        for i in range(k):
            j = i + self.randbelow(len(pool) - i)
            pool[i], pool[j] = pool[j], pool[i]
        return pool[:k]

    def spawn(self, *labels: object) -> Rng:
        """An independent generator for a named sub-stream, leaving this one untouched."""
        return Rng(derive_seed(self.seed, self.counter, *labels))
