"""Test groups for ``make test``'s pytest-xdist workers (``--dist loadgroup``).

Most of the suite's time is XLA compiling Terra Nova's programs (minutes of CPU, cold in a fresh
clone). Two workers compiling the *same* program would pay for it twice (the persistent cache only
helps once one has written it), so every test that runs a program family is in that family's
group, whatever folder it sits in:

* ``terranova-contract``: the game-contract functions (``contract/compiled.py``: start, step,
  view), which every test playing Terra Nova through the adapter, the manager, the CLI, the arena,
  the viewer's match pages or the PettingZoo and Gymnasium environments runs;
* ``terranova-simulator``: the batched simulator (``engine/simulator.py``) and its recorder;
* ``terranova-engine``: the engine's phases jitted one at a time on constructed states; an engine
  test that steps or observes a constructed state through the contract's compiled functions
  (``contract_step``, ``contract_observe``: no program of its own), in itself or in a fixture it
  uses, is in the contract group.

Every other test file is a group of its own, so a module's fixtures are built once. With
workers the Terra Nova groups come first (the scheduler then hands them out before the short
files, with ``--no-loadscope-reorder``), so the longest chains of compiles start at once.
"""

from __future__ import annotations

import inspect
from functools import cache
from pathlib import Path

import pytest

try:  # pytest >= 9.2: structured node ids (pytest-dev/pytest-xdist#1386)
    from _pytest.nodeid import NodeId
except ImportError:  # older pytest: xdist's own suffix works
    NodeId = None  # type: ignore[assignment, misc]

ROOT = Path(__file__).resolve().parent.parent
SIMULATOR = {
    "tests/terranova/engine/test_simulator.py",
    "tests/terranova/engine/test_step_speed_tools.py",
    "tests/terranova/engine/test_multidevice.py",
    "tests/terranova/test_quickstart.py",
    "tests/terranova/view/test_recorder.py",
    "tests/viewer/test_terranova.py",
}
ORDER = ("terranova-engine", "terranova-contract", "terranova-simulator")


@cache
def _mentions_terranova(path: str) -> bool:
    return "terranova" in (ROOT / path).read_text(encoding="utf-8").lower()


@cache
def _uses_the_adapter(path: str) -> bool:
    text = (ROOT / path).read_text(encoding="utf-8")
    return "terranova.adapter import" in text or "terranova.contract import compiled" in text


def _calls_the_contract(item: pytest.Item) -> bool:
    """Whether the test function or a fixture it uses calls the contract's compiled functions."""
    fixtures = getattr(item, "_fixtureinfo", None)
    defs = fixtures.name2fixturedefs.values() if fixtures else ()
    functions = [getattr(item, "function", None), *(d[-1].func for d in defs)]
    return any(f is not None and _mentions_the_contract(f) for f in functions)


@cache
def _mentions_the_contract(function: object) -> bool:
    try:
        source = inspect.getsource(function)  # type: ignore[arg-type]
    except (OSError, TypeError):
        return False
    return "contract_step(" in source or "contract_observe(" in source


def group(item: pytest.Item) -> str:
    """The xdist group of a test: its Terra Nova program family, else its file."""
    nodeid = item.nodeid
    path = nodeid.split("::")[0]
    if path in SIMULATOR:
        return "terranova-simulator"
    if path.startswith("tests/terranova/engine/"):
        contract = _uses_the_adapter(path) or _calls_the_contract(item)
        return "terranova-contract" if contract else "terranova-engine"
    if "terranova" in nodeid.lower() or _mentions_terranova(path):
        return "terranova-contract"
    return path


@pytest.hookimpl(tryfirst=True)  # before xdist's own hook, which reads the groups into the node ids
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    groups = {item.nodeid: group(item) for item in items}
    if config.getoption("loadgroup", False):  # in xdist's workers: one process keeps the file order
        rank = {name: i for i, name in enumerate(ORDER)}
        items.sort(key=lambda item: rank.get(groups[item.nodeid], len(ORDER)))  # stable sort
    grouped = config.getoption("loadgroup", False) and hasattr(items[0], "_id") if items else False
    for item in items:
        item.add_marker(pytest.mark.xdist_group(groups[item.nodeid]))
        if grouped:  # pytest >= 9.2: xdist's "@group" suffix on the old string id is lost
            item._id = NodeId.parse(f"{item.nodeid}@{groups[item.nodeid]}")
