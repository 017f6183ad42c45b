"""Terra Nova tests share JAX's persistent compilation cache (``.jax_cache/`` at the repo root,
or the folder named by ``HEXARENA_JAX_CACHE``)."""

import os
from pathlib import Path

import jax

CACHE = Path(os.environ.get("HEXARENA_JAX_CACHE", Path(__file__).resolve().parents[2] / ".jax_cache"))
os.environ.setdefault("HEXARENA_JAX_CACHE", str(CACHE))  # the two-device subprocess uses it too
jax.config.update("jax_compilation_cache_dir", str(CACHE))
jax.config.update("jax_persistent_cache_min_compile_time_secs", 1.0)
