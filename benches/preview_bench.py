#!/usr/bin/env python3
"""A job's preview (issue 35) on the 1,000,000-line file of `scan_bench.py`, with a job of 10
`field_names` and the filter `c_and3` (the breakdown case's):

- `--count`: `escpush logpush preview --count` (the job's formatter on every kept line, batches
  counted, nothing written) against `escpush filter scan --count` of the same filter: target at
  most 25% more CPU;
- writing: `escpush logpush preview --out DIR --no-gzip` in ndjson and in csv against DuckDB's
  `COPY (SELECT <fields> FROM read_ndjson(...) WHERE <escpush's SQL>) TO ... (FORMAT json|csv)`,
  the same line counts asserted: target at least 2x DuckDB in CPU and wall time, peak RSS at
  most 64 MiB.

Each run is one process (the command line, so Python's start-up is in both escpush figures),
timed by `scan_bench.timed` (wall, CPU of all threads, peak RSS from GNU time). Needs
../shared/bench (the log generator; for a worktree, `ln -s /work/shared ../shared`) and DuckDB
(the `bench` extra, or the `.venv-bench` scan_bench makes). Long: not run by the tests.

Environment: ESCPUSH_BENCH_LINES (default 1000000), REPS (3).
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import scan_bench  # its generator, timer and DuckDB interpreter

FILTER = scan_bench.BREAKDOWN_FILTER
FIELDS = [
    "ClientIP",
    "ClientCountry",
    "ClientRequestHost",
    "ClientRequestMethod",
    "ClientRequestURI",
    "EdgeStartTimestamp",
    "EdgeEndTimestamp",
    "EdgeResponseBytes",
    "EdgeResponseStatus",
    "RayID",
]
TARGET_COUNT_OVERHEAD = 1.25
TARGET_WRITE_RATIO = 2.0
TARGET_RSS_MIB = 64
WRITE = ["--no-gzip", "--json"]

DUCKDB_COPY = """
import sys, duckdb
sql, logs, out, fmt, columns = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5]
con = duckdb.connect()
source = f"read_ndjson('{logs}', columns={{{columns}}})"
fields = ", ".join(sys.argv[6:])
con.execute(f"COPY (SELECT {fields} FROM {source} WHERE {sql}) TO '{out}' (FORMAT {fmt})")
"""


def main() -> None:
    if not scan_bench.SHARED.exists():
        print(f"skipped: {scan_bench.SHARED} is missing (the log generator)")
        return
    import compileall

    import escpush

    # The package's modules compiled once, as `pip install` compiles a wheel's: each run below
    # is a new process, and without a byte-code cache (PYTHONDONTWRITEBYTECODE, or a
    # read-only checkout) each would compile the command line's modules again, more of them
    # for a preview than for a scan.
    compileall.compile_dir(Path(escpush.__file__).parent, quiet=1)
    lines = int(os.environ.get("ESCPUSH_BENCH_LINES", "1000000"))
    reps = int(os.environ.get("REPS", "3"))
    logs = scan_bench.logs(lines)
    scan_bench.warm(logs)
    work = Path(tempfile.mkdtemp(prefix="escpush-preview-bench-"))
    f = escpush.Filter.parse(FILTER.read_text())
    ddl = escpush.dataset_schema("http_requests", "duckdb", table="t")
    types = dict(
        (line.strip().split(" ", 1)[0].strip('"'), line.strip().split(" ", 1)[1].rstrip(","))
        for line in ddl.splitlines()[1:-1]
    )
    wanted = {c["key"] for c in f.to_dict()["where"]["and"]} | set(FIELDS)
    columns = ", ".join(f"{name}: '{types[name]}'" for name in sorted(wanted))
    sql = f.to_sql("duckdb", dataset="http_requests")
    cli = [sys.executable, "-m", "escpush"]

    def job(output_type: str) -> list[str]:
        options = {"field_names": FIELDS, "output_type": output_type, "timestamp_format": "rfc3339"}
        return ["--dataset", "http_requests", "--filter", str(FILTER), "--output-options", json.dumps(options)]

    def median(cmd: list[str], clean: Path | None = None) -> tuple[str, float, float, float]:
        runs = []
        out = ""
        for _ in range(reps):
            if clean is not None and clean.exists():
                shutil.rmtree(clean) if clean.is_dir() else clean.unlink()
            out, wall, rss, cpu = scan_bench.timed(cmd)
            runs.append((wall, rss, cpu))
        return (
            out,
            statistics.median(r[0] for r in runs),
            max(r[1] for r in runs),
            statistics.median(r[2] for r in runs),
        )

    rows = []
    scan_out, *scan = median([*cli, "filter", "scan", str(FILTER), str(logs), "--count", "--json"])
    kept = json.loads(scan_out)["matched"]
    rows.append(("filter scan --count", *scan))
    prev_out, *prev = median([*cli, "logpush", "preview", *job("ndjson"), "--sample", str(logs), "--count", "--json"])
    assert json.loads(prev_out)["kept"] == kept, (prev_out, kept)
    rows.append(("logpush preview --count", *prev))
    duck = scan_bench.duckdb_python()
    copy = work / "copy.py"
    copy.write_text(DUCKDB_COPY)
    for output_type, fmt in (("ndjson", "json"), ("csv", "csv")):
        out_dir = work / f"out-{output_type}"
        p_out, *p = median(
            [*cli, "logpush", "preview", *job(output_type), "--sample", str(logs), "--out", str(out_dir), *WRITE],
            out_dir,
        )
        assert json.loads(p_out)["delivered"] == kept, (p_out, kept)
        rows.append((f"logpush preview --out ({output_type})", *p))
        target = work / f"duck.{output_type}"
        _, *d = median([str(duck), str(copy), sql, str(logs), str(target), fmt, columns, *FIELDS], target)
        with target.open("rb") as written:  # counted here, not in DuckDB's timed process
            rows_written = sum(1 for _ in written) - (1 if fmt == "csv" else 0)  # csv: its header
        assert rows_written == kept, (rows_written, kept)
        rows.append((f"duckdb COPY ({output_type})", *d))
    print(f"{lines:,} lines, {kept:,} kept, {len(FIELDS)} fields, median of {reps}")
    print(f"{'run':32} {'wall s':>8} {'CPU s':>8} {'RSS MiB':>8}")
    for name, wall, rss, cpu in rows:
        print(f"{name:32} {wall:8.2f} {cpu:8.2f} {rss:8.1f}")
    by = {name: (wall, rss, cpu) for name, wall, rss, cpu in rows}
    overhead = by["logpush preview --count"][2] / by["filter scan --count"][2]
    print(f"--count preview / scan CPU: {overhead:.2f} (target <= {TARGET_COUNT_OVERHEAD})")
    for t in ("ndjson", "csv"):
        mine, theirs = by[f"logpush preview --out ({t})"], by[f"duckdb COPY ({t})"]
        print(
            f"{t}: DuckDB / preview wall {theirs[0] / mine[0]:.2f}, CPU {theirs[2] / mine[2]:.2f} "
            f"(target >= {TARGET_WRITE_RATIO}); preview RSS {mine[1]:.1f} MiB (target <= {TARGET_RSS_MIB})"
        )
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
