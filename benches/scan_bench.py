#!/usr/bin/env python3
"""Log scan speed: escpush against DuckDB and jq on 1,000,000 generated log lines.

Needs ../shared/bench (the log generator, the six filters and the peers' runners); without
it the benchmark says so and skips. It generates the logs once into
/tmp/escpush-bench (about 1.48 GB; reused), warms the page cache, makes its own
`.venv-bench` with DuckDB, and installs jq with apt-get when it is missing.

Each filter is run by every peer in turn (repetitions > filters > peers), and each run is
one process whose wall time and peak RSS (from wait4) are measured:

- escpush (Rust): the `scan_count` example of escpush-scan, the engine without Python;
- escpush (CLI): `python -m escpush filter scan FILTER LOGS --count`, the Python face;
- duckdb: `../shared/bench/baselines/duckdb_count.py` (read_ndjson, every core);
- jq: `../shared/bench/baselines/jq_count.sh` (one core; one run by default, it is slow).

The counts of all peers must agree (and match the known 1M-line counts). MB/s is file
bytes / median wall. Environment: ESCPUSH_BENCH_LINES (default 1000000), REPS (3),
JQ_REPS (1), PEERS (space-separated subset of: rust cli duckdb jq).
"""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared" / "bench"
DATA = Path("/tmp/escpush-bench")
FILTERS = sorted((ROOT / "tests" / "data" / "filters").glob("*.json"))
EXPECTED_1M = {
    "a_eq_string": 239099,
    "b_geq_int": 13438,
    "c_and3": 142792,
    "d_or_nested": 48818,
    "e_large": 160351,
    "f_array_contains": 1884,
}
TARGET_RATIO = 2.0  # at least twice DuckDB's throughput
TARGET_RSS_MIB = 64


def logs(lines: int) -> Path:
    """The generated log file, made once."""
    DATA.mkdir(parents=True, exist_ok=True)
    path = DATA / f"logs-{lines}-42.ndjson"
    if not path.exists():
        print(f"generating {lines:,} log lines into {path} (once) ...", flush=True)
        part = path.with_suffix(".part")
        with part.open("wb") as out:
            subprocess.run(
                [sys.executable, str(SHARED / "gen_logs.py"), "--lines", str(lines), "--seed", "42"],
                stdout=out,
                check=True,
            )
        part.rename(path)
    return path


def warm(path: Path) -> None:
    with path.open("rb") as f:
        while f.read(16 << 20):
            pass


def bench_venv() -> Path:
    """`.venv-bench` with DuckDB, made by this script."""
    venv = ROOT / ".venv-bench"
    python = venv / "bin" / "python"
    if not python.exists():
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    if subprocess.run([str(python), "-c", "import duckdb"], capture_output=True).returncode != 0:
        print("installing duckdb into .venv-bench ...", flush=True)
        subprocess.run([str(python), "-m", "pip", "install", "--quiet", "duckdb"], check=True)
    return python


def ensure_jq() -> bool:
    if shutil.which("jq"):
        return True
    print("jq is missing; installing it with apt-get ...", flush=True)
    apt = ["apt-get"] if os.geteuid() == 0 else ["sudo", "-n", "apt-get"]
    subprocess.run([*apt, "update", "-qq"], check=False)
    subprocess.run([*apt, "install", "-y", "-qq", "jq"], check=False)
    return shutil.which("jq") is not None


def scan_count() -> Path:
    """The Rust engine alone: escpush-scan's scan_count example, built with optimisations."""
    subprocess.run(
        ["cargo", "build", "--quiet", "--release", "-p", "escpush-scan", "--example", "scan_count"],
        cwd=ROOT,
        check=True,
    )
    target = Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
    return target / "release" / "examples" / "scan_count"


TIME = Path("/usr/bin/time")


def timed(cmd: list[str]) -> tuple[str, float, float]:
    """Runs one process: its stdout, wall seconds and peak RSS in MiB.

    The peak RSS comes from GNU time (`%M`) when it is installed, as in the peers' own table:
    a child forked from this Python process would otherwise inherit its RSS high-water mark.
    Without it, wait4's figure is used and includes that.
    """
    report = DATA / "time.out"
    full = [str(TIME), "-f", "%M", "-o", str(report), *cmd] if TIME.exists() else cmd
    start = time.perf_counter()
    proc = subprocess.Popen(full, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout is not None and proc.stderr is not None
    out = proc.stdout.read()  # the runners print one count: no pipe fills up
    err = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed ({proc.returncode}): {err.decode(errors='replace')}")
    rss_kib = float(report.read_text().split()[-1]) if TIME.exists() else float(usage.ru_maxrss)
    return out.decode(), wall, rss_kib / 1024


def main() -> None:
    if not (SHARED / "gen_logs.py").exists():
        print(f"skipped: {SHARED} (the log generator and the peers' runners) is not here")
        return
    lines = int(os.environ.get("ESCPUSH_BENCH_LINES", "1000000"))
    reps = int(os.environ.get("REPS", "3"))
    jq_reps = int(os.environ.get("JQ_REPS", "1"))
    wanted = set(os.environ.get("PEERS", "rust cli duckdb jq").split())

    path = logs(lines)
    size = path.stat().st_size
    peers: dict[str, list[str]] = {}
    if "rust" in wanted:
        peers["escpush (Rust)"] = [str(scan_count()), "{filter}", str(path)]
    if "cli" in wanted:
        peers["escpush (CLI)"] = [sys.executable, "-m", "escpush", "filter", "scan", "{filter}", str(path), "--count"]
    if "duckdb" in wanted:
        python = bench_venv()
        peers["duckdb"] = [str(python), str(SHARED / "baselines" / "duckdb_count.py"), "{filter}", str(path)]
    if "jq" in wanted:
        if ensure_jq():
            peers["jq"] = [str(SHARED / "baselines" / "jq_count.sh"), "{filter}", str(path)]
        else:
            print("jq could not be installed; it is left out")
    warm(path)
    load_before = os.getloadavg()[0]

    runs: dict[tuple[str, str], list[tuple[float, float]]] = {}
    counts: dict[tuple[str, str], set[int]] = {}
    for rep in range(reps):
        for f in FILTERS:
            for peer, template in peers.items():
                if peer == "jq" and rep >= jq_reps:
                    continue
                out, wall, rss = timed([a.replace("{filter}", str(f)) for a in template])
                runs.setdefault((f.stem, peer), []).append((wall, rss))
                counts.setdefault((f.stem, peer), set()).add(int(out.split()[0]))
                print(f"  rep {rep + 1} {f.stem:<17} {peer:<15} {wall:6.2f} s {rss:6.0f} MiB", flush=True)

    print(f"\n{lines:,} lines ({size:,} bytes), in the page cache; {os.cpu_count()} cores")
    load_after = os.getloadavg()[0]
    print(f"1-minute load average {load_before:.2f} before the runs, {load_after:.2f} after (shared cores)")
    print("median wall of", reps, "runs (jq:", min(jq_reps, reps), "), peak RSS = max over runs\n")
    print("| filter | peer | matches | median wall s | MB/s | peak RSS MiB | x DuckDB | target |")
    print("|---|---|---:|---:|---:|---:|---:|---|")
    problems = []
    for f in FILTERS:
        found = set().union(*(counts[(f.stem, p)] for p in peers))
        expected = EXPECTED_1M.get(f.stem) if lines == 1_000_000 else None
        if len(found) != 1 or (expected is not None and found != {expected}):
            problems.append(f"{f.stem}: counts disagree {sorted(found)} (expected {expected})")
        duck = statistics.median(w for w, _ in runs[(f.stem, "duckdb")]) if "duckdb" in peers else None
        for peer in peers:
            walls = [w for w, _ in runs[(f.stem, peer)]]
            wall = statistics.median(walls)
            rss = max(r for _, r in runs[(f.stem, peer)])
            ratio = duck / wall if duck else float("nan")
            target = ""
            if peer.startswith("escpush") and duck:
                missed = [f"{ratio:.2f}x < {TARGET_RATIO:.0f}x"] if ratio < TARGET_RATIO else []
                missed += [f"{rss:.0f} MiB > {TARGET_RSS_MIB} MiB"] if rss > TARGET_RSS_MIB else []
                target = "missed: " + ", ".join(missed) if missed else "met"
            count = "/".join(str(c) for c in sorted(counts[(f.stem, peer)]))
            print(
                f"| {f.stem} | {peer} | {count} | {wall:.2f} | {size / wall / 1e6:.0f} | {rss:.0f} | {ratio:.2f} "
                f"| {target} |"
            )
    if problems:
        print("\n" + "\n".join(problems))
        sys.exit(1)
    print("\nAll peers agree on every count.")


if __name__ == "__main__":
    main()
