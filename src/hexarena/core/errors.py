"""The error types of hexarena. Each message names what was wrong."""

from __future__ import annotations


class HexarenaError(Exception):
    """Base class of every error hexarena raises on purpose."""


class IllegalMoveError(HexarenaError):
    """A well-formed move that the rules do not allow now. The state stays unchanged."""


class MoveParseError(HexarenaError):
    """A reply that could not be read as a move at all (a protocol error, not a rules one)."""


class StaleStateError(HexarenaError):
    """``update_game`` was given an environment that is not the state's own."""


class UnknownGameError(HexarenaError, KeyError):
    """No game is registered under that name."""

    def __str__(self) -> str:  # KeyError would print the repr of the message
        return str(self.args[0]) if self.args else ""


class ConfigError(HexarenaError):
    """A configuration file or mapping is malformed; the message names the file and key."""


class RecordError(HexarenaError):
    """A match record or exported state is corrupt, truncated or of an unknown version."""


class PlayerError(HexarenaError):
    """A player could not produce a reply (not a rules violation)."""


class TransportError(PlayerError):
    """A network or API failure talking to a remote player; retried, not counted as a mistake."""


class MoveTimeoutError(PlayerError):
    """A player took longer than the per-move timeout."""


class Resigned(HexarenaError):
    """A player gave up the game (a person typed ``quit``): it forfeits at once."""
