#!/usr/bin/env python3
"""Start-up of the command line: what `escpush --version` and `escpush filter validate` cost
on top of the interpreter, each run as a fresh process (the installed `escpush` script),
median of many runs, with bytecode caches written first so every run reads them.

Also lists the modules each command imports beyond the interpreter's own, to show that
neither pays for the HTTP client, the emulator, the demo or `typing`. (`tests/cli/test_cli.py`
checks the module list without timing it.)
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ESCPUSH = Path(sys.executable).parent / "escpush"
FILTER = '{"where":{"key":"EdgeResponseStatus","operator":"geq","value":500}}'
COMMANDS = {
    "python -c pass (the floor)": [sys.executable, "-c", "pass"],
    "python -c 'import escpush'": [sys.executable, "-c", "import escpush"],
    "escpush --version": [str(ESCPUSH), "--version"],
    "escpush filter validate --dataset": [str(ESCPUSH), "filter", "validate", FILTER, "--dataset", "http_requests"],
    "escpush filter explain": [str(ESCPUSH), "filter", "explain", FILTER],
}
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}  # users have .pyc files


def median_ms(argv: list[str], runs: int) -> float:
    subprocess.run(argv, env=ENV, stdout=subprocess.DEVNULL, check=True)  # writes the .pyc files
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        subprocess.run(argv, env=ENV, stdout=subprocess.DEVNULL, check=True)
        times.append(time.perf_counter() - started)
    return statistics.median(times) * 1e3


def imported(args: list[str]) -> list[str]:
    code = (
        "import sys; base = set(sys.modules); from escpush.cli import main\n"
        f"try: main({args!r})\nexcept SystemExit: pass\n"
        "print(' '.join(sorted(m for m in set(sys.modules) - base if not m.startswith('encodings'))))"
    )
    done = subprocess.run([sys.executable, "-c", code], env=ENV, capture_output=True, text=True, check=True)
    return done.stdout.splitlines()[-1].split()


def main() -> None:
    runs = int(os.environ.get("RUNS", "40"))
    floor = None
    print(f"| command | median wall ({runs} runs) | over the interpreter |")
    print("|---|---:|---:|")
    for name, argv in COMMANDS.items():
        ms = median_ms(argv, runs)
        floor = ms if floor is None else floor
        print(f"| {name} | {ms:.1f} ms | {ms - floor:+.1f} ms |")
    for args in (["--version"], ["filter", "validate", FILTER]):
        print(f"\nmodules `escpush {' '.join(args[:2])}` imports: {' '.join(imported(args))}")


if __name__ == "__main__":
    main()  # no sys.exit: benches/run.py runs the next benchmark after this one
