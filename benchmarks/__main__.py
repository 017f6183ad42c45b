"""Run the benchmark modules: every ``benchmarks/*_bench.py`` with a ``main()``, or those named."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path


def main(argv: list[str]) -> None:
    here = Path(__file__).parent
    names = argv or sorted(p.stem.removesuffix("_bench") for p in here.glob("*_bench.py"))
    for name in names:
        print(f"\n=== {name} ===", flush=True)
        importlib.import_module(f"benchmarks.{name}_bench").main()


if __name__ == "__main__":
    main(sys.argv[1:])
