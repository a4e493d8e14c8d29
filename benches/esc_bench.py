#!/usr/bin/env python3
"""ESC client against the official Python SDK (`cloudflare`), side by side in one run.

Both talk to the same emulator on loopback, over keep-alive connections, with the same
credentials scheme (X-Auth-Key + X-Auth-Email):

- calls per second of the ESC status GET (`zone.esc.status()` against
  `Cloudflare.get("/zones/{id}/disable_esc", cast_to=object)`), after a warm-up;
- start-up: `import` plus client construction, each in a fresh interpreter, repeated, median.
  Reported twice: as timed inside the interpreter (import + construct only) and as the
  wall time of the whole process (which adds the interpreter's own start, the same for both).

Targets: escpush at least 3x the SDK's calls per second, and at most 1/5 of its start-up.
The SDK is installed into the running environment when missing (it is not a test dependency).
Run: `make bench`, or `python benches/esc_bench.py [--seconds S] [--repeat N]`.
"""

from __future__ import annotations

import argparse
import importlib.util
import statistics
import subprocess
import sys
import time
from typing import Callable

ZONE = "023e105f4ecef8ad9ca31a8372d0c353"

STARTUP = {
    "escpush": "import escpush\nc = escpush.Client(api_key='bench-key', email='bench@example.com')",
    "cloudflare": ("import cloudflare\nc = cloudflare.Cloudflare(api_key='bench-key', api_email='bench@example.com')"),
}


def ensure_sdk() -> bool:
    if importlib.util.find_spec("cloudflare") is None:
        print("installing the official SDK (pip install cloudflare) for the comparison ...", flush=True)
        done = subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "cloudflare"], check=False)
        if done.returncode != 0:
            return False
        importlib.invalidate_caches()
    return importlib.util.find_spec("cloudflare") is not None


def rate(call: Callable[[], object], seconds: float) -> float:
    """Calls per second of `call`, over about `seconds`, after a warm-up."""
    for _ in range(50):
        call()
    n, started = 0, time.perf_counter()
    deadline = started + seconds
    while True:
        for _ in range(50):
            call()
        n += 50
        now = time.perf_counter()
        if now >= deadline:
            return n / (now - started)


def startup(code: str, repeat: int) -> tuple[float, float]:
    """Median (inside the interpreter, whole process) seconds of import + construction."""
    timed = f"import time\n_t = time.perf_counter()\n{code}\nprint(time.perf_counter() - _t)"
    inside, whole = [], []
    for _ in range(repeat):
        t = time.perf_counter()
        out = subprocess.run([sys.executable, "-c", timed], capture_output=True, text=True, check=True)
        whole.append(time.perf_counter() - t)
        inside.append(float(out.stdout.strip()))
    return statistics.median(inside), statistics.median(whole)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--seconds", type=float, default=3.0, help="time per throughput measurement")
    parser.add_argument("--repeat", type=int, default=7, help="fresh interpreters per start-up measurement")
    args, _ = parser.parse_known_args(argv)  # benches/run.py passes bench names through

    from escpush.testing import Emulator

    have_sdk = ensure_sdk()
    rows: list[tuple[str, str, str, str]] = []
    with Emulator() as emu:
        esc = emu.client().zone(ZONE).esc
        assert esc.status().state == "enabled"
        ours = rate(esc.status, args.seconds)
        theirs = None
        if have_sdk:
            import cloudflare

            sdk = cloudflare.Cloudflare(api_key=emu.api_key, api_email=emu.email, base_url=emu.base_url)
            path = f"/zones/{ZONE}/disable_esc"
            assert sdk.get(path, cast_to=object) is not None
            theirs = rate(lambda: sdk.get(path, cast_to=object), args.seconds)
            sdk.close()
        served = len(emu.requests())

    ours_in, ours_whole = startup(STARTUP["escpush"], args.repeat)
    _, base_whole = startup("pass", args.repeat)
    if have_sdk:
        theirs_in, theirs_whole = startup(STARTUP["cloudflare"], args.repeat)

    def ratio(a: float | None, b: float | None) -> str:
        return f"{a / b:.1f}x" if a and b else "n/a"

    print(f"ESC status GET over loopback ({served} requests served), and import + client construction")
    print(
        f"python {sys.version.split()[0]}; {args.seconds:.0f} s per rate, median of {args.repeat} fresh interpreters\n"
    )
    rows.append(("", "escpush", "cloudflare SDK" if have_sdk else "cloudflare SDK (missing)", "escpush advantage"))
    rows.append(("status GET, calls/s", f"{ours:,.0f}", f"{theirs:,.0f}" if theirs else "n/a", ratio(ours, theirs)))
    if have_sdk:
        rows.append(
            (
                "start-up, in interpreter",
                f"{ours_in * 1e3:.1f} ms",
                f"{theirs_in * 1e3:.1f} ms",
                ratio(theirs_in, ours_in),
            )
        )
        rows.append(
            (
                "start-up, whole process",
                f"{ours_whole * 1e3:.1f} ms",
                f"{theirs_whole * 1e3:.1f} ms",
                ratio(theirs_whole, ours_whole),
            )
        )
    rows.append(("(bare interpreter start)", f"{base_whole * 1e3:.1f} ms", "", ""))
    widths = [max(len(r[i]) for r in rows) for i in range(4)]
    for r in rows:
        print("  ".join(cell.ljust(w) if i == 0 else cell.rjust(w) for i, (cell, w) in enumerate(zip(r, widths))))
    if have_sdk and theirs:
        ok_rate = ours >= 3 * theirs
        ok_start = ours_in <= theirs_in / 5
        print(f"\ntarget calls/s >= 3x the SDK: {'met' if ok_rate else 'NOT met'} ({ratio(ours, theirs)})")
        print(
            f"target start-up <= 1/5 of the SDK: {'met' if ok_start else 'NOT met'} "
            f"({ratio(theirs_in, ours_in)} less in the interpreter, {ratio(theirs_whole, ours_whole)} whole process)"
        )
    return 0


if __name__ == "__main__":
    main()  # no sys.exit: benches/run.py runs the next benchmark after this one
