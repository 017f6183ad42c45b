"""make test's two pytest-xdist workers (``--dist loadgroup``): one group per test file, so a
module's fixtures are built once, except that every test running Terra Nova's jitted programs is
in one group. Those programs take minutes to compile cold; two workers each compiling them at the
same time would pay for every program twice (the persistent cache only helps once one has written
it)."""

from __future__ import annotations

import pytest


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        group = "terranova" if "terranova" in item.nodeid.lower() else item.nodeid.split("::")[0]
        item.add_marker(pytest.mark.xdist_group(group))
