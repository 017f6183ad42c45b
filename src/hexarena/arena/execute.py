"""Where matches run: in the arena's process (one worker), a local process pool, or Ray.

Both give the dispatcher :class:`concurrent.futures.Future` objects of
:func:`hexarena.arena.worker.play` results, so everything above this module is the same for both;
matches are deterministic given their spec, so the results are too.

Ray: ``Backend.ray(None)`` starts a local Ray (``num_cpus`` = the worker count) whose every
process listens on 127.0.0.1 only, and a watcher (:mod:`hexarena.arena.raywatch`) that stops
what it leaves behind if the arena is killed; an address joins an existing cluster (``"auto"``,
``"ray://host:10001"``: the user's choice of a trusted network, see the README's security notes).
Tasks ship their record folder back to the driver, which writes it into the arena folder, so the
cluster needs no shared file system.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Mapping
from concurrent.futures import Future, ProcessPoolExecutor
from multiprocessing.managers import BaseManager
from pathlib import Path
from typing import Any

from hexarena.arena.worker import RateLimiter, play
from hexarena.core.errors import ConfigError


def _init_worker(parent: int) -> None:
    """In each pool worker: ignore Ctrl-C while idle (the terminal sends it to every process of
    the arena; a match in progress is interrupted by its manager, which handles it), and exit as
    soon as the arena process is gone (killed, even with -9), so no orphan goes on playing (or
    holds the pool's pipes open) after the arena died."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)

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

    def abandon(self) -> None:
        """Stop the running matches at once (a second stop signal); :meth:`close` follows."""

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
            self._manager.start(signal.signal, (signal.SIGINT, signal.SIG_IGN))  # Ctrl-C: see _init_worker
            self.limiter = LimiterCall(self._manager.RateLimiter(dict(rates)))  # type: ignore[attr-defined]
        self._pool = self._new_pool()

    def _new_pool(self) -> ProcessPoolExecutor:
        return ProcessPoolExecutor(
            max_workers=self.capacity,
            mp_context=self._context,
            initializer=_init_worker,
            initargs=(os.getpid(),),
        )

    def submit(self, task: Mapping[str, Any]) -> Future[dict[str, Any]]:
        return self._pool.submit(play, task, self.limiter)

    def restart(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)
        self._pool = self._new_pool()

    def abandon(self) -> None:
        for process in multiprocessing.active_children():  # the pool's workers (and the limiter's)
            process.terminate()
        self._manager = None  # the pool sees its workers gone, so close() waits for nothing

    def close(self) -> None:
        self._pool.shutdown(wait=True, cancel_futures=True)
        if self._manager is not None:
            self._manager.shutdown()


#: Where every process of a local Ray listens.
LOOPBACK = "127.0.0.1"


class RayBackend(Backend):
    def __init__(self, address: str | None, workers: int | None, rates: Mapping[str, float]) -> None:
        # Ray reports usage statistics to its makers unless told not to; an arena never phones home.
        os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
        if not address:
            # Ray replaces a loopback node address by the machine's own (and its servers then listen
            # on every interface) unless it runs no cluster: what this says, read as ray is imported.
            os.environ["RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"] = "0"
        try:
            import ray
        except ImportError:
            raise ConfigError("--ray: Ray is not installed (pip install 'hexarena[ray]')") from None
        self._started = not ray.is_initialized()
        self._watcher: subprocess.Popen[bytes] | None = None
        if self._started:
            kwargs: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False}
            if address:
                ray.init(address=address, **kwargs)
            else:
                self._watcher = _start_watcher()
                ray.init(num_cpus=workers, _node_ip_address=LOOPBACK, dashboard_host=LOOPBACK, **kwargs)
                if ray.util.get_node_ip_address() != LOOPBACK:
                    self.close()
                    raise ConfigError(
                        "--ray: the local Ray would listen beyond 127.0.0.1 (Ray was imported before the "
                        "arena could pin it there); start the arena in a fresh process"
                    )
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
        if self._watcher is not None:  # nothing is left to watch
            self._watcher.terminate()
            self._watcher.wait()
            self._watcher = None


def _start_watcher() -> subprocess.Popen[bytes] | None:
    """The watcher that stops a killed arena's Ray processes (where ``/proc`` shows them)."""
    if not Path("/proc/self/stat").is_file():
        return None
    script = Path(__file__).with_name("raywatch.py")
    return subprocess.Popen(
        [sys.executable, str(script), str(os.getpid())],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
