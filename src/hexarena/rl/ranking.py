"""A linear move-ranking policy: weights over a game's move features, saved by name, and the
choice among legal moves. Small World's (:mod:`.sw_features`) and City of Gold's
(:mod:`.cog_rank`) policies differ in their features, not in their file or their choice."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any, ClassVar, TypeVar

import numpy as np

Move = TypeVar("Move")


def columns(blocks: dict[str, tuple[str, ...]]) -> tuple[dict[str, int], dict[str, dict[str, int]], int]:
    """Where each block of named feature columns starts in the weight vector, each column's index
    (block -> name -> index) and the vector's length: the blocks follow each other in order."""
    offset, column, n = {}, {}, 0
    for name, cols in blocks.items():
        offset[name] = n
        column[name] = {c: n + i for i, c in enumerate(cols)}
        n += len(cols)
    return offset, column, n


class MoveRanking:
    """``weights`` (``FEATURES`` long) over the features of each legal move; a subclass names its
    game and its feature blocks (``BLOCKS``: block -> column names; ``COLUMNS``: their indices)."""

    GAME: ClassVar[str]
    TITLE: ClassVar[str]
    BLOCKS: ClassVar[dict[str, tuple[str, ...]]]
    COLUMNS: ClassVar[dict[str, dict[str, int]]]
    FEATURES: ClassVar[int]

    def __init__(self, weights: np.ndarray) -> None:
        self.weights = np.asarray(weights, np.float32)
        if self.weights.shape != (self.FEATURES,):
            raise ValueError(f"expected {self.FEATURES} weights, got shape {self.weights.shape}")

    def pick(self, legal: Sequence[Move], features: np.ndarray, rng: np.random.Generator | None) -> Move:
        """The best-scored of ``legal`` (the first on ties; ``features`` one row each), or with
        ``rng`` one drawn from the softmax of the scores."""
        scores = features @ self.weights
        if rng is None:
            return legal[int(np.argmax(scores))]
        p = np.exp(scores - scores.max())
        return legal[int(rng.choice(len(p), p=p / p.sum()))]

    def save(self, path: Path, **meta: Any) -> None:
        blocks = {
            name: {col: float(self.weights[self.COLUMNS[name][col]]) for col in cols}
            for name, cols in self.BLOCKS.items()
        }
        doc = {"game": self.GAME, "kind": "move-ranking", "weights": blocks, **meta}
        Path(path).write_text(json.dumps(doc, indent=2) + "\n")

    @classmethod
    def load(cls, path: Path) -> Any:
        """A policy saved by :meth:`save` (weights by name: a column the file lacks is 0)."""
        doc = json.loads(Path(path).read_text())
        if doc.get("kind") != "move-ranking" or doc.get("game") != cls.GAME:
            raise ValueError(f"{Path(path).name} is not a {cls.TITLE} move-ranking policy")
        w = np.zeros(cls.FEATURES, np.float32)
        for name, cols in doc["weights"].items():
            for col, value in cols.items():
                if col not in cls.COLUMNS.get(name, {}):
                    raise ValueError(f"unknown feature {name}.{col} in {Path(path).name}")
                w[cls.COLUMNS[name][col]] = float(value)
        return cls(w)
