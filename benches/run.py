#!/usr/bin/env python3
"""Runs every committed benchmark (benches/*_bench.py) in turn; `make bench` calls it.

Each benchmark prints its own table. Benchmarks may read ../shared (the project's
working space) when it is there, and skip what needs it when it is not.
"""

from __future__ import annotations

import runpy
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main() -> int:
    only = set(sys.argv[1:])
    for path in sorted(HERE.glob("*_bench.py")):
        if only and path.stem not in only:
            continue
        print(f"\n### {path.stem}\n", flush=True)
        runpy.run_path(str(path), run_name="__main__")
    return 0


if __name__ == "__main__":
    sys.exit(main())
