"""JAX start-up costs paid once per machine, not once per process.

:func:`compiled` keeps whole compiled functions (:mod:`jax.experimental.serialize_executable`)
under the user's cache folder, ``$XDG_CACHE_HOME/hexarena/jax/compiled`` (by default
``~/.cache/hexarena/jax/compiled``; ``HEXARENA_JAX_CACHE=/some/dir`` moves it,
``HEXARENA_JAX_CACHE=off`` switches it off), so a later process skips tracing, lowering and
compiling: loading one takes a fraction of a second, where JAX's own persistent compilation cache
would still leave tracing, lowering and hashing the program to every process (seconds for Terra
Nova's step). Its key covers the JAX version, the backend, this machine's CPU, the argument
shapes and a digest of the source files the caller names, so any change to the rules makes a
fresh entry. Like JAX's cache it holds machine code: only this user's own folder is read.

A compilation cache the user configured for JAX (``JAX_COMPILATION_CACHE_DIR``, ``jax.config``)
keeps working; an executable JAX loaded from it cannot be serialized again (XLA:CPU drops its
code: the copy fails when run), so such a compile is used but not written here.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import platform
import warnings
from collections.abc import Callable, Iterable
from functools import cache
from pathlib import Path
from typing import Any

ENV_VAR = "HEXARENA_JAX_CACHE"
OFF = ("off", "0", "false", "no", "none")


def cache_dir() -> Path | None:
    """The cache folder, or None when switched off (``HEXARENA_JAX_CACHE=off``)."""
    chosen = os.environ.get(ENV_VAR)
    if chosen is not None:
        return None if chosen.strip().lower() in OFF or not chosen.strip() else Path(chosen).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "hexarena" / "jax"


HIT_EVENT = "/jax/compilation_cache/cache_hits"  # JAX's event for a load from its own cache


def source_digest(files: Iterable[Path]) -> str:
    """A digest of the contents of ``files`` (sorted by path)."""
    digest = hashlib.sha256()
    for path in sorted(files):
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


@cache
def _machine() -> str:
    """The processor an executable was compiled for (XLA:CPU targets the host's features)."""
    flags = ""
    try:
        with open("/proc/cpuinfo") as info:
            flags = next((line for line in info if line.startswith(("flags", "Features"))), "")
    except OSError:
        pass
    return f"{platform.machine()}|{platform.processor()}|{flags.strip()}"


def compiler_options() -> dict[str, Any]:
    """XLA options for a large program on this backend: on CPU, LLVM at optimization level 1
    (XLA's default is 3) compiled Terra Nova's step in 0.7x the CPU time and ran it no slower
    (benchmarks/README.md, Run 4); no fast math at any level, so the results are the same bit
    for bit."""
    import jax

    return {"xla_backend_optimization_level": 1} if jax.default_backend() == "cpu" else {}


def signature(args: tuple) -> str:
    """The pytree structure and abstract values (shape, dtype, weak type) of ``args``."""
    import jax

    leaves, treedef = jax.tree_util.tree_flatten(args)
    return f"{treedef}|{[str(jax.typeof(x)) for x in leaves]}"


def entry(
    name: str, args: tuple, sources: Iterable[Path], options: dict[str, Any] | None = None
) -> Path | None:
    """The file of ``name`` compiled for ``args``' shapes (with XLA ``options``), or None with the
    cache off."""
    import jax

    folder = cache_dir()
    if folder is None:
        return None
    backend = jax.devices()[0].client
    key = "|".join(
        (
            name,
            jax.__version__,
            backend.platform,
            backend.platform_version,
            _machine(),
            source_digest(sources),
            signature(args),
            *(f"{k}={v}" for k, v in sorted((options or {}).items())),
        )
    )
    return folder / "compiled" / f"{name}-{hashlib.sha256(key.encode()).hexdigest()[:24]}.bin"


def load(path: Path | None) -> Callable | None:
    """The compiled function saved in ``path``, or None when absent or unreadable."""
    if path is None or not path.exists():
        return None
    from jax.experimental import serialize_executable

    try:
        blob, in_tree, out_tree = pickle.loads(path.read_bytes())
        return serialize_executable.deserialize_and_load(blob, in_tree, out_tree)
    except Exception as exc:  # a torn or foreign file: compiled afresh by the caller
        warnings.warn(f"ignoring unreadable {path}: {exc}", stacklevel=2)
        return None


def compiled(
    name: str, fn: Callable, args: tuple, sources: Iterable[Path], options: dict[str, Any] | None = None
) -> Callable:
    """``jax.jit(fn)`` compiled for ``args``' shapes with XLA ``options`` (e.g.
    :func:`compiler_options`), loaded from (or saved to) the cache.

    ``sources`` are the files whose contents define ``fn`` (a change to any makes a new entry).
    Without a cache folder, or where serialization fails or the compile came from JAX's own
    cache (nothing is written then), this is ``jax.jit(fn)`` compiled in this process.
    """
    import jax

    path = entry(name, args, sources, options)
    if path is None:
        return jax.jit(fn, compiler_options=options)
    loaded = load(path)
    if loaded is not None:
        return loaded
    from jax.experimental import serialize_executable

    hits: list[str] = []

    def listen(event: str, **_: object) -> None:
        if event == HIT_EVENT:
            hits.append(event)

    jax.monitoring.register_event_listener(listen)
    try:
        program = jax.jit(fn, compiler_options=options).lower(*args).compile()
    finally:
        jax.monitoring.unregister_event_listener(listen)
    if hits:  # loaded from JAX's own cache: it cannot be serialized again (see above)
        return program
    try:
        blob = pickle.dumps(serialize_executable.serialize(program))
    except Exception as exc:  # e.g. a backend that cannot serialize: no disk cache
        warnings.warn(f"{name}: not cached on disk ({exc})", stacklevel=2)
        return program
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_suffix(f".{os.getpid()}.tmp")
    partial.write_bytes(blob)
    partial.replace(path)
    return program
