"""The Terra Nova benchmark's anchor export: an anchor git does not know or that predates the
engine/ layout stops with one line, before anything is timed (no import traceback)."""

from __future__ import annotations

import pytest
from benchmarks.terranova_bench import ANCHOR_REF, ENGINE, export_anchor


@pytest.mark.parametrize(
    ("ref", "says"), [("e26c043", "predates the engine/ layout"), ("no-such-ref", "git archive failed")]
)
def test_unusable_anchor_is_one_line(tmp_path, ref: str, says: str) -> None:
    with pytest.raises(SystemExit) as exc:
        export_anchor(ref, str(tmp_path))
    message = str(exc.value)
    assert says in message and ref in message and "\n" not in message


def test_default_anchor_exports(tmp_path) -> None:
    export_anchor(ANCHOR_REF, str(tmp_path))
    assert (tmp_path / ENGINE / "simulator.py").exists()
