"""JAX start-up costs paid once per machine, not once per process.

Two caches under the user's cache folder (``$XDG_CACHE_HOME/hexarena/jax``, by default
``~/.cache/hexarena/jax``; ``HEXARENA_JAX_CACHE=/some/dir`` moves it, ``HEXARENA_JAX_CACHE=off``
switches both off):

* ``xla/``: JAX's persistent compilation cache (compiled executables, keyed by JAX on the
  program). :func:`enable_compilation_cache` switches it on unless the user configured one.
* ``exported/``: traced programs serialized with :mod:`jax.export`. The compilation cache alone
  still leaves the tracing of a big jitted function to every process (seconds for Terra Nova's
  step); :func:`exported` skips it by loading the traced program from disk. Its key covers the
  JAX version, the backend, the argument shapes and a digest of the source files the caller
  names, so any change to the rules makes a fresh entry.
"""

from __future__ import annotations

import hashlib
import os
import warnings
from collections.abc import Callable, Iterable
from functools import cache
from pathlib import Path

ENV_VAR = "HEXARENA_JAX_CACHE"
OFF = ("off", "0", "false", "no", "none")


def cache_dir() -> Path | None:
    """The cache folder, or None when switched off (``HEXARENA_JAX_CACHE=off``)."""
    chosen = os.environ.get(ENV_VAR)
    if chosen is not None:
        return None if chosen.strip().lower() in OFF or not chosen.strip() else Path(chosen).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "hexarena" / "jax"


@cache
def enable_compilation_cache() -> Path | None:
    """Switch on JAX's persistent compilation cache in :func:`cache_dir` (once per process).

    A cache the user configured (``JAX_COMPILATION_CACHE_DIR`` or ``jax.config``) is left alone.
    Returns the folder in use, or None.
    """
    import jax

    configured = jax.config.jax_compilation_cache_dir
    if configured:
        return Path(configured)
    folder = cache_dir()
    if folder is None:
        return None
    jax.config.update("jax_compilation_cache_dir", str(folder / "xla"))
    jax.config.update("jax_persistent_cache_min_compile_time_secs", 0.5)
    return folder / "xla"


def source_digest(files: Iterable[Path]) -> str:
    """A digest of the contents of ``files`` (sorted by path)."""
    digest = hashlib.sha256()
    for path in sorted(files):
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


def register_namedtuples(module_prefix: str) -> None:
    """Make every NamedTuple class of the loaded modules under ``module_prefix`` nameable by
    :mod:`jax.export` (a serialized program names the pytree types of its inputs and outputs)."""
    import sys

    from jax import export

    for module_name, module in list(sys.modules.items()):
        if not module_name.startswith(module_prefix):
            continue
        for kind in vars(module).values():
            if not (isinstance(kind, type) and issubclass(kind, tuple) and hasattr(kind, "_fields")):
                continue
            if kind in _REGISTERED or kind.__module__ != module_name:
                continue
            _REGISTERED.add(kind)
            export.register_namedtuple_serialization(
                kind, serialized_name=f"{module_name}.{kind.__qualname__}"
            )


_REGISTERED: set[type] = set()


def _signature(args: tuple) -> str:
    import jax
    import numpy as np

    leaves, treedef = jax.tree_util.tree_flatten(args)
    shapes = [(np.shape(x), str(getattr(x, "dtype", None) or np.asarray(x).dtype)) for x in leaves]
    return f"{treedef}|{shapes}"


def exported(name: str, fn: Callable, args: tuple, sources: Iterable[Path], module_prefix: str) -> Callable:
    """``jax.jit(fn)``, loaded from (or saved to) the ``exported/`` cache for ``args``' shapes.

    ``sources`` are the files whose contents define ``fn`` (a change to any makes a new entry);
    the NamedTuples of the modules under ``module_prefix`` may appear in its inputs and outputs.
    Without a cache folder, or where serialization fails, this is plain ``jax.jit(fn)``.
    """
    import jax
    from jax import export

    enable_compilation_cache()
    folder = cache_dir()
    if folder is None:
        return jax.jit(fn)
    key = hashlib.sha256(
        "|".join(
            (name, jax.__version__, jax.default_backend(), source_digest(sources), _signature(args))
        ).encode()
    ).hexdigest()[:24]
    path = folder / "exported" / f"{name}-{key}.bin"
    register_namedtuples(module_prefix)
    if path.exists():
        try:
            return jax.jit(export.deserialize(bytearray(path.read_bytes())).call)
        except Exception as exc:  # a torn or foreign file: rebuild it below
            warnings.warn(f"ignoring unreadable {path}: {exc}", stacklevel=2)
    try:
        program = export.export(jax.jit(fn))(*args)
        blob = program.serialize()
    except Exception as exc:  # e.g. a pytree type jax.export cannot name: no disk cache
        warnings.warn(f"{name}: not cached on disk ({exc})", stacklevel=2)
        return jax.jit(fn)
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_suffix(f".{os.getpid()}.tmp")
    partial.write_bytes(blob)
    partial.replace(path)
    return jax.jit(program.call)
