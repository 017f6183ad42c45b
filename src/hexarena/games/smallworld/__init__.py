"""Small World: the complete base game (14 races, 20 powers) on procedural hex maps.

The engine follows the spec of ``smallworld`` 0.1.0 (public API, module layout, enums) with the
official rules where the two differ; ``rules/`` documents every such decision. The hexarena
contract adapter (:class:`SmallWorldState`) is in :mod:`.adapter`.
"""

from hexarena.games.smallworld.engine import SmallWorldGame
from hexarena.games.smallworld.enums import ActionType, Feature, Marker, Phase, PowerName, RaceName, Terrain
from hexarena.games.smallworld.errors import (
    GameOver,
    IllegalAction,
    InvalidConfig,
    InvalidPhase,
    SmallWorldError,
)
from hexarena.games.smallworld.state import GameConfig

__all__ = [
    "ActionType",
    "Feature",
    "GameConfig",
    "GameOver",
    "IllegalAction",
    "InvalidConfig",
    "InvalidPhase",
    "Marker",
    "Phase",
    "PowerName",
    "RaceName",
    "SmallWorldError",
    "SmallWorldGame",
    "Terrain",
]
