"""Terra Nova tests share JAX's persistent compilation cache (``.jax_cache/`` at the repo root)."""

from pathlib import Path

import jax

CACHE = Path(__file__).resolve().parents[2] / ".jax_cache"
jax.config.update("jax_compilation_cache_dir", str(CACHE))
jax.config.update("jax_persistent_cache_min_compile_time_secs", 1.0)
