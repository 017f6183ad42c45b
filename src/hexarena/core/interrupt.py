"""Stopping a match cleanly on Ctrl-C or a kill: signals become an exception at a safe point.

While an :class:`InterruptGuard` is active (in the main thread), SIGINT, SIGTERM and SIGHUP raise
:class:`MatchInterrupted` wherever the match is, even inside a blocking read or a network call;
inside a :meth:`InterruptGuard.critical` block (writing an accepted move to the record) the signal
is held until the block ends, so the record never holds half a move. ``MatchInterrupted`` is a
``KeyboardInterrupt``: code that catches ``Exception`` (players, HTTP clients) does not swallow it.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType
from typing import Any, Self

HANDLED = tuple(getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name))


class MatchInterrupted(KeyboardInterrupt):
    """A signal stopped the match; ``signum`` is the signal's number (SIGINT for Ctrl-C)."""

    def __init__(self, signum: int = signal.SIGINT) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = int(signum)

    @property
    def signame(self) -> str:
        return signal.Signals(self.signum).name


class _SignalScope:
    """Handles the stop signals with ``_handle`` for the span of a ``with`` block (in the main
    thread; elsewhere Python delivers no signals), then puts the previous handlers back."""

    def __init__(self) -> None:
        self._previous: dict[int, Any] = {}

    def __enter__(self) -> Self:
        if threading.current_thread() is threading.main_thread():
            for signum in HANDLED:
                self._previous[signum] = signal.signal(signum, self._handle)
        return self

    def __exit__(self, *exc: object) -> None:
        for signum, handler in self._previous.items():
            signal.signal(signum, handler)
        self._previous.clear()

    def _handle(self, signum: int, frame: FrameType | None) -> None:
        raise NotImplementedError


class InterruptGuard(_SignalScope):
    """Turns the stop signals into :class:`MatchInterrupted` for the span of a ``with`` block."""

    def __init__(self) -> None:
        super().__init__()
        self._depth = 0
        self._pending: int | None = None

    def _handle(self, signum: int, frame: FrameType | None) -> None:
        if self._depth:
            self._pending = self._pending or signum
        else:
            raise MatchInterrupted(signum)

    @contextmanager
    def critical(self, *, deliver: bool = True) -> Iterator[None]:
        """Hold stop signals while the block runs; then raise one that came (unless ``deliver``
        is False: the end of a match, where the record is complete either way)."""
        self._depth += 1
        try:
            yield
        finally:
            self._depth -= 1
            if not self._depth and self._pending is not None:
                signum, self._pending = self._pending, None
                if deliver:
                    raise MatchInterrupted(signum)


class StopRequest(_SignalScope):
    """Stop signals for a run of many matches (an arena), for the span of a ``with`` block.

    The first signal only asks the run to stop (:attr:`requested`): the loop starts no new match,
    and the running one ends (a match run in this process is interrupted by its manager's own
    :class:`InterruptGuard`, which the loop reports with :meth:`request`). A second signal stops
    at once: :class:`MatchInterrupted` is raised wherever the run is.
    """

    def __init__(self) -> None:
        super().__init__()
        self.signum: int | None = None

    def _handle(self, signum: int, frame: FrameType | None) -> None:
        if self.signum is not None:
            raise MatchInterrupted(signum)
        self.signum = signum

    def request(self, signum: int) -> None:
        """Note a signal that reached the run another way (a match's own guard caught it)."""
        if self.signum is None:
            self.signum = signum

    @property
    def requested(self) -> bool:
        return self.signum is not None

    @property
    def signame(self) -> str | None:
        return None if self.signum is None else signal.Signals(self.signum).name
