"""The compiled-function cache: where it lives, its round trip, and when it stays out of the way."""

from __future__ import annotations

from typing import NamedTuple

import pytest

from hexarena.core import jaxcache

jax = pytest.importorskip("jax")


def test_cache_dir_follows_the_environment(monkeypatch, tmp_path):
    monkeypatch.delenv(jaxcache.ENV_VAR, raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert jaxcache.cache_dir() == tmp_path / "hexarena" / "jax"
    monkeypatch.setenv(jaxcache.ENV_VAR, str(tmp_path / "mine"))
    assert jaxcache.cache_dir() == tmp_path / "mine"
    for off in ("off", "0", "OFF", ""):
        monkeypatch.setenv(jaxcache.ENV_VAR, off)
        assert jaxcache.cache_dir() is None


class Pair(NamedTuple):
    a: jax.Array
    b: jax.Array


def _swap_add(p: Pair, k: jax.Array) -> Pair:
    return Pair(p.b + k, p.a * 2)


def _args(n: int = 3) -> tuple:
    return Pair(jax.numpy.arange(float(n)), jax.numpy.ones(n)), jax.numpy.float32(2)


def test_compiled_functions_are_saved_reloaded_and_rebuilt_when_torn(monkeypatch, tmp_path):
    monkeypatch.setenv(jaxcache.ENV_VAR, str(tmp_path))
    source = tmp_path / "rules.py"
    source.write_text("version 1")
    args = _args()
    first = jaxcache.compiled("swap", _swap_add, args, [source])(*args)
    (saved,) = (tmp_path / "compiled").glob("swap-*.bin")
    again = jaxcache.load(saved)(*args)  # what a later process gets: the same results
    assert isinstance(again, Pair) and all((x == y).all() for x, y in zip(first, again, strict=True))
    source.write_text("version 2")  # a rules change makes a new entry
    jaxcache.compiled("swap", _swap_add, args, [source])
    jaxcache.compiled("swap", _swap_add, _args(4), [source])  # and so do other shapes
    assert len(list((tmp_path / "compiled").glob("swap-*.bin"))) == 3
    saved.write_bytes(b"torn")
    source.write_text("version 1")
    with pytest.warns(UserWarning, match="ignoring unreadable"):
        rebuilt = jaxcache.compiled("swap", _swap_add, args, [source])
    assert (rebuilt(*args).a == first.a).all() and saved.read_bytes() != b"torn"


def test_entries_name_the_weak_types_of_scalars(monkeypatch, tmp_path):
    monkeypatch.setenv(jaxcache.ENV_VAR, str(tmp_path))
    pair = _args()[0]
    assert jaxcache.entry("swap", (pair, 2.0), []) != jaxcache.entry("swap", (pair, jax.numpy.float32(2)), [])


def test_switched_off_it_is_plain_jit(monkeypatch):
    monkeypatch.setenv(jaxcache.ENV_VAR, "off")
    assert jaxcache.entry("swap", _args(), []) is None
    fn = jaxcache.compiled("swap", _swap_add, (Pair(jax.numpy.ones(2), jax.numpy.ones(2)), 1.0), [])
    assert (fn(Pair(jax.numpy.ones(2), jax.numpy.ones(2)), 1.0).a == 2).all()


def test_a_compile_loaded_from_jax_own_cache_is_not_written(monkeypatch, tmp_path):
    """JAX's cache would hand back an executable whose serialized copy fails when run."""
    monkeypatch.setenv(jaxcache.ENV_VAR, str(tmp_path))
    real_jit = jax.jit

    def jit_hitting_the_cache(fn, **options):
        jax.monitoring.record_event(jaxcache.HIT_EVENT)  # as JAX reports a hit while compiling
        return real_jit(fn, **options)

    monkeypatch.setattr(jax, "jit", jit_hitting_the_cache)
    assert (jaxcache.compiled("swap", _swap_add, _args(), [])(*_args()).b == 0.0).sum() == 1
    assert not list(tmp_path.iterdir())
