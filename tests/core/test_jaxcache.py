"""The JAX caches: where they live, and the exported-program cache's round trip."""

from __future__ import annotations

from pathlib import Path
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


@pytest.fixture(autouse=True)
def _keep_jax_config(monkeypatch):
    """The process's compilation cache setting stays as it is (it outlives the tmp folders)."""
    monkeypatch.setattr(jaxcache, "enable_compilation_cache", lambda: None)


def test_exported_programs_are_saved_reloaded_and_rebuilt_when_torn(monkeypatch, tmp_path):
    monkeypatch.setenv(jaxcache.ENV_VAR, str(tmp_path))
    source = tmp_path / "rules.py"
    source.write_text("version 1")
    args = (Pair(jax.numpy.arange(3.0), jax.numpy.ones(3)), jax.numpy.float32(2))
    first = jaxcache.exported("swap", _swap_add, args, [source], __name__)(*args)
    (saved,) = (tmp_path / "exported").glob("swap-*.bin")
    again = jaxcache.exported("swap", _swap_add, args, [source], __name__)(*args)
    assert isinstance(again, Pair) and all((x == y).all() for x, y in zip(first, again, strict=True))
    source.write_text("version 2")  # a rules change makes a new entry
    jaxcache.exported("swap", _swap_add, args, [source], __name__)
    assert len(list((tmp_path / "exported").glob("swap-*.bin"))) == 2
    saved.write_bytes(b"torn")
    source.write_text("version 1")
    with pytest.warns(UserWarning, match="ignoring unreadable"):
        rebuilt = jaxcache.exported("swap", _swap_add, args, [source], __name__)
    assert (rebuilt(*args).a == first.a).all() and saved.read_bytes() != b"torn"


def test_switched_off_it_is_plain_jit(monkeypatch, tmp_path):
    monkeypatch.setenv(jaxcache.ENV_VAR, "off")
    fn = jaxcache.exported("swap", _swap_add, (Pair(jax.numpy.ones(2), jax.numpy.ones(2)), 1.0), [], __name__)
    assert (fn(Pair(jax.numpy.ones(2), jax.numpy.ones(2)), 1.0).a == 2).all()
    assert not list(Path(tmp_path).iterdir())
