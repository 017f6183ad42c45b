"""``hexarena.smallworld``: short import path for the Small World engine's public API.

``from hexarena.smallworld import SmallWorldGame, GameConfig`` is the same as importing them from
:mod:`hexarena.games.smallworld`.
"""

from hexarena.games.smallworld import *  # noqa: F403
from hexarena.games.smallworld import __all__  # noqa: F401
