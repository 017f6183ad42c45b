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


class InfrastructureError(PlayerError):
    """A failure outside the player's decisions (network, server, API): never held against it.

    When it cannot be overcome the match ends with ``Outcome.kind == "error"`` naming the cause;
    it is never scored as a loss, a forfeit or an invalid move.
    """


class TransportError(InfrastructureError):
    """A failure that may pass (connection refused, DNS, TLS, timeout, HTTP 408/429/5xx, an
    unreadable body): the manager retries it with backoff inside the match's transport budget.
    ``retry_after`` is the server's ``Retry-After`` in seconds, where it sent one."""

    def __init__(self, message: str, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class ApiRequestError(InfrastructureError):
    """The API refused the request itself (HTTP 400/401/403/404 and other 4xx): retrying the same
    request cannot help, so the match ends at once as an error with the server's message."""

    def __init__(self, message: str, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status


class MoveTimeoutError(PlayerError):
    """A player took longer than the per-move timeout."""


class Resigned(HexarenaError):
    """A player gave up the game (a person typed ``quit``): it forfeits at once."""
