"""Batched City of Gold engines, proven equal to the scalar reference engine (:mod:`..engine`).

* :mod:`.boards`: the board pool (generated courses as fixed-size arrays) and the episode
  schedule (which board and which play seed env ``i`` uses for its ``k``-th game). Every backend,
  the scalar one included, follows the same schedule, so auto-reset gives the same games.
* :mod:`.codes`: the plain-int codes both engines share (no numba, so the JAX one runs without it).
* :mod:`.numba_engine` (rules) and :mod:`.numba_obs` (observation writer): the CPU engine, numba
  kernels over a batch of per-env state records writing the records of :mod:`..observe` in place.
* :mod:`.numba_vec`: the vectorised API of :mod:`..vec` on the CPU engine (``backend="cpu"``).
* :mod:`.numba_cache`: stamps the kernels' on-disk cache with every file of the package, so an
  edit in any of them recompiles the kernels (numba alone checks the kernel's own file only).
* :mod:`.jax_rules` (state and rules of one env, without loops or scatters) and
  :mod:`.jax_engine` (observation, ``init`` / ``step`` over a pytree, batched step with
  auto-reset, ``lax.scan`` rollouts): the pure functional JAX engine; :mod:`.jax_vec`:
  ``backend="jax"``.

Map generation never runs inside a kernel: boards come from the pool, built on the host.
"""
