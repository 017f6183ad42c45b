"""Numba's on-disk cache made safe for kernels that span several files.

Numba stamps a cached kernel with its own source file only, so an edit to a function it calls in
another file, or to a constant it baked in (``cards.N_CARDS``, the card data), leaves a stale
kernel that still loads. The kernels of this package get one stamp instead: a hash of every
source and data file of :mod:`hexarena.games.cityofgold`. Any edit there recompiles them all once.

:func:`install` puts stamped variants of numba's cache locators first; they answer only for the
modules of this folder. It runs before the first ``@njit(cache=True)`` here (numba picks the
locator when a function is decorated) and needs numba's locator classes; where a numba version
lacks them it installs nothing and the layout fingerprint of :mod:`.numba_vec` remains the guard.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

from numba.core import caching

HERE = Path(__file__).resolve().parent
PACKAGE = HERE.parent
LOCATORS = ("UserProvidedCacheLocator", "InTreeCacheLocator", "UserWideCacheLocator")


def fingerprint(package: Path = PACKAGE) -> str:
    """sha256 over the names and bytes of the package's ``*.py`` and ``data/*.json`` files."""
    digest = hashlib.sha256()
    for path in sorted([*package.rglob("*.py"), *(package / "data").glob("*.json")]):
        digest.update(path.relative_to(package).as_posix().encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


FINGERPRINT = fingerprint()


def _stamped(base: type) -> type:
    """``base`` for the modules of this folder, stamped with :data:`FINGERPRINT`."""

    class Stamped(base):  # type: ignore[misc, valid-type]
        @classmethod
        def from_function(cls, py_func: Any, py_file: str) -> Any:
            if Path(py_file).resolve().parent != HERE:
                return None
            return super().from_function(py_func, py_file)

        def get_source_stamp(self) -> str:
            return FINGERPRINT

    Stamped.__name__ = Stamped.__qualname__ = f"CityOfGold{base.__name__}"
    return Stamped


def install() -> bool:
    """Put the stamped locators first (once); False where this numba has no such classes."""
    impl = getattr(caching, "CacheImpl", None) or getattr(caching, "_CacheImpl", None)
    bases = [getattr(caching, name, None) or getattr(caching, f"_{name}", None) for name in LOCATORS]
    if impl is None or not isinstance(getattr(impl, "_locator_classes", None), list) or None in bases:
        return False
    if not any(cls.__name__.startswith("CityOfGold") for cls in impl._locator_classes):
        impl._locator_classes[:0] = [_stamped(base) for base in bases]
    return True


INSTALLED = install()
