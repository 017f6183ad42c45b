"""Where matches run: in the arena's process (one worker), a local process pool, or Ray.

Both give the dispatcher :class:`concurrent.futures.Future` objects of
:func:`hexarena.arena.worker.play` results, so everything above this module is the same for both;
matches are deterministic given their spec, so the results are too.

Ray: ``Backend.ray(None)`` starts a local Ray (``num_cpus`` = the worker count); an address joins
an existing cluster (``"auto"``, ``"ray://host:10001"``). Tasks ship their record folder back to
the driver, which writes it into the arena folder, so the cluster needs no shared file system.
"""

from __future__ import annotations

import multiprocessing
import os
import threading
import time
from collections.abc import Mapping
from concurrent.futures import Future, ProcessPoolExecutor
from multiprocessing.managers import BaseManager
from typing import Any

from hexarena.arena.worker import RateLimiter, play
from hexarena.core.errors import ConfigError


def _watch_parent(parent: int) -> None:
    """In each pool worker: exit as soon as the arena process is gone (killed, even with -9), so
    no orphan goes on playing (or holds the pool's pipes open) after the arena died."""

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(0.5)
        os._exit(1)

    threading.Thread(target=watch, name="hexarena-parent-watch", daemon=True).start()


class _LimiterManager(BaseManager):
    """Serves one :class:`RateLimiter` to every worker process."""


_LimiterManager.register("RateLimiter", RateLimiter)


class LimiterCall:
    """A picklable ``limiter(provider) -> seconds`` over a managed or Ray-actor RateLimiter."""

    def __init__(self, target: Any, ray_actor: bool = False) -> None:
        self.target, self.ray_actor = target, ray_actor

    def __call__(self, provider: str) -> float:
        if self.ray_actor:
            import ray

            return float(ray.get(self.target.reserve.remote(provider)))
        return float(self.target.reserve(provider))


class Backend:
    """Runs tasks; ``capacity`` is how many may run at once."""

    def __init__(self, capacity: int, ships_records: bool) -> None:
        self.capacity = capacity
        self.ships_records = ships_records
        self.limiter: LimiterCall | None = None

    def submit(self, task: Mapping[str, Any]) -> Future[dict[str, Any]]:
        raise NotImplementedError

    def restart(self) -> None:
        """Replace workers after one died (a process pool breaks as a whole)."""

    def close(self) -> None:
        pass

    @staticmethod
    def local(workers: int, rates: Mapping[str, float]) -> Backend:
        return LocalBackend(workers, rates) if workers > 1 else InlineBackend(rates)

    @staticmethod
    def ray(address: str | None, workers: int | None, rates: Mapping[str, float]) -> Backend:
        return RayBackend(address, workers, rates)


class InlineBackend(Backend):
    """One match at a time in the arena's own process (``--workers 1``): no start-up cost."""

    def __init__(self, rates: Mapping[str, float]) -> None:
        super().__init__(1, ships_records=False)
        if rates:
            self.limiter = LimiterCall(RateLimiter(dict(rates)))

    def submit(self, task: Mapping[str, Any]) -> Future[dict[str, Any]]:
        future: Future[dict[str, Any]] = Future()
        future.set_result(play(task, self.limiter))
        return future


class LocalBackend(Backend):
    """A pool of ``workers`` processes (started fresh: no state leaks between arena and matches)."""

    def __init__(self, workers: int, rates: Mapping[str, float]) -> None:
        super().__init__(workers, ships_records=False)
        self._context = multiprocessing.get_context("spawn")
        self._manager: _LimiterManager | None = None
        if rates:
            self._manager = _LimiterManager(ctx=self._context)
            self._manager.start()
            self.limiter = LimiterCall(self._manager.RateLimiter(dict(rates)))  # type: ignore[attr-defined]
        self._pool = self._new_pool()

    def _new_pool(self) -> ProcessPoolExecutor:
        return ProcessPoolExecutor(
            max_workers=self.capacity,
            mp_context=self._context,
            initializer=_watch_parent,
            initargs=(os.getpid(),),
        )

    def submit(self, task: Mapping[str, Any]) -> Future[dict[str, Any]]:
        return self._pool.submit(play, task, self.limiter)

    def restart(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)
        self._pool = self._new_pool()

    def close(self) -> None:
        self._pool.shutdown(wait=True, cancel_futures=True)
        if self._manager is not None:
            self._manager.shutdown()


class RayBackend(Backend):
    def __init__(self, address: str | None, workers: int | None, rates: Mapping[str, float]) -> None:
        # Ray reports usage statistics to its makers unless told not to; an arena never phones home.
        os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
        try:
            import ray
        except ImportError:
            raise ConfigError("--ray: Ray is not installed (pip install 'hexarena[ray]')") from None
        self._started = not ray.is_initialized()
        if self._started:
            kwargs: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False}
            if address:
                ray.init(address=address, **kwargs)
            else:  # a local Ray (its gRPC servers listen on every interface of the machine, as Ray's do)
                ray.init(num_cpus=workers, **kwargs)
        capacity = workers or int(ray.cluster_resources().get("CPU", 1))
        super().__init__(capacity, ships_records=True)
        self._play = ray.remote(num_cpus=1, max_retries=0)(play)
        if rates:
            actor = ray.remote(RateLimiter).remote(dict(rates))
            self.limiter = LimiterCall(actor, ray_actor=True)

    def submit(self, task: Mapping[str, Any]) -> Future[dict[str, Any]]:
        return self._play.remote(dict(task), self.limiter).future()

    def close(self) -> None:
        import ray

        if self._started:
            ray.shutdown()
