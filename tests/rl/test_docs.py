"""Every python block of docs/rl.md runs (the one needing sb3-contrib only where it is installed)."""

import importlib.util
import re
from pathlib import Path

import pytest

DOC = Path(__file__).resolve().parents[2] / "docs" / "rl.md"
BLOCKS = re.findall(r"```python\n(.*?)```", DOC.read_text(), flags=re.S)


def test_the_doc_has_examples():
    assert len(BLOCKS) >= 4


@pytest.mark.parametrize("code", BLOCKS, ids=[f"block{i}" for i in range(len(BLOCKS))])
def test_doc_example_runs(code):
    if "sb3_contrib" in code and importlib.util.find_spec("sb3_contrib") is None:
        pytest.skip("sb3-contrib is in the train extra")
    exec(compile(code, str(DOC), "exec"), {})
