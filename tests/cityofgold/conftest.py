"""City of Gold's JAX tests use the repo's persistent compilation cache (``.jax_cache/`` or the
folder named by ``HEXARENA_JAX_CACHE``), so only the first run on a machine pays for compiling."""

import os
from pathlib import Path

CACHE = Path(os.environ.get("HEXARENA_JAX_CACHE", Path(__file__).resolve().parents[2] / ".jax_cache"))


def pytest_configure(config: object) -> None:
    try:
        import jax
    except ImportError:  # pragma: no cover - the jax tests skip themselves
        return
    jax.config.update("jax_compilation_cache_dir", str(CACHE))
    jax.config.update("jax_persistent_cache_min_compile_time_secs", 1.0)
