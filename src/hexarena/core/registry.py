"""Which games exist and how to make them.

Built-in games are listed here; other packages add theirs through the ``hexarena.games`` entry
point group, each entry pointing at a :class:`~hexarena.core.contract.GameState` subclass::

    [project.entry-points."hexarena.games"]
    mygame = "mypackage.mygame:MyGameState"

Modules are imported only when a game is made, so listing games stays cheap.
"""

from __future__ import annotations

import importlib
from importlib.metadata import entry_points
from typing import Any

from hexarena.core.contract import GameState
from hexarena.core.errors import UnknownGameError

#: name -> "module:attribute" of the game's GameState subclass.
BUILTIN_GAMES: dict[str, str] = {
    "hex": "hexarena.games.hex:HexState",
    "cityofgold": "hexarena.games.cityofgold.state:CityOfGoldState",
    "smallworld": "hexarena.games.smallworld.adapter:SmallWorldState",
    "terranova": "hexarena.games.terranova.adapter:TerraNovaState",
}

ENTRY_POINT_GROUP = "hexarena.games"


def _targets() -> dict[str, str]:
    targets = dict(BUILTIN_GAMES)
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        targets.setdefault(ep.name, ep.value)
    return targets


def list_games() -> list[str]:
    """Names of every registered game, sorted."""
    return sorted(_targets())


def game_class(name: str) -> type[GameState]:
    """The GameState subclass registered under ``name``."""
    targets = _targets()
    if name not in targets:
        raise UnknownGameError(f"unknown game {name!r}; known games: {', '.join(sorted(targets))}")
    module_name, _, attr = targets[name].partition(":")
    cls = getattr(importlib.import_module(module_name), attr)
    if not (isinstance(cls, type) and issubclass(cls, GameState)):
        raise UnknownGameError(f"game {name!r} points at {targets[name]}, which is not a GameState")
    return cls


def make(name: str, seed: int = 0, **params: Any) -> GameState:
    """A new game: ``hexarena.make("hex", seed=1, size=7)``."""
    return game_class(name).new(seed=seed, **params)
