"""Small World's exceptions. Every message names what was wrong; the state is left unchanged."""

from __future__ import annotations

from hexarena.core.errors import HexarenaError


class SmallWorldError(HexarenaError):
    """Base class of every error the Small World engine raises on purpose."""


class IllegalAction(SmallWorldError):
    """The action breaks a rule (wrong player, bad payload, unaffordable, unknown type)."""


class InvalidPhase(SmallWorldError):
    """The action type is not allowed in the current phase."""


class GameOver(SmallWorldError):
    """An action was submitted after the game ended."""


class InvalidConfig(SmallWorldError):
    """A GameConfig parameter is out of range."""
