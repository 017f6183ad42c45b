"""Deeply immutable containers, so that game states can be shared without defensive copies.

The original contract built "new" states from shallow ``dict`` copies and so leaked history lists
between states. Here every container stored in a state is frozen all the way down.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator, Mapping
from enum import Enum
from typing import Any, TypeVar

K = TypeVar("K")
V = TypeVar("V")


class FrozenMap(Mapping[K, V]):
    """A read-only, hashable mapping (insertion ordered)."""

    __slots__ = ("_data", "_hash")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        object.__setattr__(self, "_data", dict(*args, **kwargs))
        object.__setattr__(self, "_hash", None)

    def __getitem__(self, key: K) -> V:
        return self._data[key]

    def __iter__(self) -> Iterator[K]:
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)

    def __hash__(self) -> int:
        if self._hash is None:
            object.__setattr__(self, "_hash", hash(frozenset(self._data.items())))
        return self._hash  # type: ignore[return-value]

    def __eq__(self, other: object) -> bool:
        if isinstance(other, FrozenMap):
            return self._data == other._data
        if isinstance(other, Mapping):
            return self._data == dict(other)
        return NotImplemented

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("FrozenMap is immutable")

    def __reduce__(self) -> tuple[type, tuple[dict[K, V]]]:
        """Pickled through the constructor: the default slot restore would call the blocked
        ``__setattr__`` (a saved game state, or one Ray ships to a worker, failed to load)."""
        return (FrozenMap, (self._data,))

    def __repr__(self) -> str:
        return f"FrozenMap({self._data!r})"

    def set(self, key: K, value: V) -> FrozenMap[K, V]:
        """A copy with one key set."""
        data = dict(self._data)
        data[key] = value
        return FrozenMap(data)

    def update(self, other: Mapping[K, V] | None = None, **kwargs: V) -> FrozenMap[K, V]:
        """A copy with several keys set."""
        data = dict(self._data)
        if other:
            data.update(other)
        data.update(kwargs)  # type: ignore[arg-type]
        return FrozenMap(data)


def freeze(value: Any) -> Any:
    """Recursively turn dicts into :class:`FrozenMap`, lists into tuples and sets into frozensets."""
    if isinstance(value, (str, int, float, bool, type(None), FrozenMap)):
        return value
    if isinstance(value, Mapping):
        return FrozenMap({k: freeze(v) for k, v in value.items()})
    if isinstance(value, (list, tuple)):
        return tuple(freeze(v) for v in value)
    if isinstance(value, (set, frozenset)):
        return frozenset(freeze(v) for v in value)
    return value


def thaw(value: Any) -> Any:
    """The JSON-ready form of a frozen value: mappings become dicts, sequences lists."""
    if isinstance(value, (str, int, float, bool, type(None))):
        return value
    if isinstance(value, Mapping):
        return {str(k): thaw(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [thaw(v) for v in value]
    if isinstance(value, (set, frozenset)):
        return sorted((thaw(v) for v in value), key=repr)
    if hasattr(value, "to_json"):
        return value.to_json()
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: thaw(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, Enum):
        return thaw(value.value)
    raise TypeError(f"cannot convert {type(value).__name__} to JSON")


def canonical_json(value: Any) -> str:
    """Compact JSON with sorted keys: byte-identical for equal values (used in equality tests)."""
    return json.dumps(thaw(value), sort_keys=True, separators=(",", ":"), allow_nan=False)
