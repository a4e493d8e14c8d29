#!/usr/bin/env python3
"""A transformer run on local logs (issue 36): the docs' http_requests example (a filtering and
reshaping transformer, transformers.mdx) over the 1,000,000-line file of `scan_bench.py`:

- escpush: `escpush.run_transformer(SQL, logs, output=...)`, its default engine: core's check;
  escpush's scanner (every core) drops the lines the filter part of the WHERE cannot keep, takes
  the five fields the SQL reads from each kept line and runs the query with core's interpreter
  in its workers, writing the records (core's value rules);
- escpush + DataFusion: the same with `engine="datafusion"`: the scanner cuts each kept line to
  those fields, DataFusion runs the SQL on them, escpush writes its Arrow batches as NDJSON;
- DataFusion alone: the same SQL over the whole NDJSON file (`register_json`, names kept as
  written), written by DataFusion's own NDJSON writer (`DataFrame.write_json`), its fastest
  way to deliver the records; and again written by escpush's writer (`write_records`), whose
  lines are escpush's byte for byte, so that the two differ only by the scanner's work.

Targets (for the default engine): at least 3x DataFusion alone in CPU and wall time, identical
output, peak RSS at most 2x DataFusion's. The two writers spell the same records differently (DataFusion leaves
null members out, writes `1.0` for a float that holds an integer, and keeps the SELECT's
order), so the outputs are compared as records: each line parsed, null members dropped,
integral floats as integers, members sorted. Each run is one process, timed by
`scan_bench.timed` (wall, CPU of all threads, peak RSS). Needs ../shared/bench (the log
generator) and the `transform` extra. Long: not run by the tests.

Environment: ESCPUSH_BENCH_LINES (default 1000000), REPS (3).
"""

from __future__ import annotations

import json
import os
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import scan_bench  # its generator and timer

SQL = """SELECT
  extract(epoch FROM to_timestamp(EdgeStartTimestamp)) AS unix_ts,
  UPPER(ClientRequestMethod) AS method,
  'Cloudflare' AS provider,
  named_struct(
    'host', ClientRequestHost,
    'path', ClientRequestPath,
    'method', ClientRequestMethod
  ) AS request,
  EdgeResponseStatus >= 500 AS is_server_error,
  [ClientRequestHost, ClientRequestPath] AS request_meta
FROM http_requests
WHERE ClientRequestHost NOT IN ('internal.example.com', 'health.example.com')
  AND ClientRequestPath NOT LIKE '/healthz%'
  AND ClientRequestPath NOT LIKE '/metrics%'"""

TARGET_RATIO = 3.0
TARGET_RSS_RATIO = 2.0

ESCPUSH = """
import sys, escpush
run = escpush.run_transformer(sys.argv[1], sys.argv[2], output=sys.argv[3])
print(run.delivered, run.lines_kept)
"""

ESCPUSH_DATAFUSION = """
import sys, escpush
run = escpush.run_transformer(sys.argv[1], sys.argv[2], output=sys.argv[3], engine="datafusion")
print(run.delivered, run.lines_kept)
"""

# DataFusion alone: the same session settings, DataFusion's own writer.
DATAFUSION = """
import sys
from escpush._transformer import datafusion_context
datafusion_context("http_requests", sys.argv[2]).sql(sys.argv[1]).write_json(sys.argv[3])
print("written")
"""

# DataFusion alone written by escpush's writer: the same bytes as escpush's run, so the two
# differ only by what escpush's scanner does before the engine.
DATAFUSION_SAME_WRITER = """
import sys
from escpush._transformer import datafusion_context, write_records
print(write_records(datafusion_context("http_requests", sys.argv[2]).sql(sys.argv[1]), sys.argv[3]))
"""

RUNS = (
    ("escpush", ESCPUSH),
    ("escpush+df", ESCPUSH_DATAFUSION),
    ("datafusion", DATAFUSION),
    ("df+writer", DATAFUSION_SAME_WRITER),
)


def _canonical(value: Any) -> Any:
    """A record as both writers mean it: null members dropped, integral floats as integers."""
    if isinstance(value, dict):
        return {k: _canonical(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_canonical(v) for v in value]
    if isinstance(value, float) and value.is_integer() and abs(value) <= 2**53:
        return int(value)
    return value


def _records(path: Path) -> list[str]:
    with path.open(encoding="utf-8") as lines:
        return sorted(json.dumps(_canonical(json.loads(line)), sort_keys=True) for line in lines)


def main() -> None:
    if not scan_bench.SHARED.exists():
        print(f"skipped: {scan_bench.SHARED} is missing (the log generator)")
        return
    lines = int(os.environ.get("ESCPUSH_BENCH_LINES", "1000000"))
    reps = int(os.environ.get("REPS", "3"))
    logs = scan_bench.logs(lines)
    scan_bench.warm(logs)
    work = Path(tempfile.mkdtemp(prefix="escpush-transformer-bench-"))
    runs: dict[str, list[tuple[float, float, float]]] = {name: [] for name, _ in RUNS}
    outputs = {name: work / f"{name}.ndjson" for name in runs}
    for _ in range(reps):
        for name, script in RUNS:
            out, wall, rss, cpu = scan_bench.timed([sys.executable, "-c", script, SQL, str(logs), str(outputs[name])])
            runs[name].append((wall, cpu, rss))
            print(f"{name:10} wall {wall:6.2f} s  cpu {cpu:6.2f} s  rss {rss:7.1f} MiB  {out.strip()}", flush=True)
    same = _records(outputs["escpush"]) == _records(outputs["datafusion"])
    # The same lines, byte for byte, from both engines and from DataFusion alone with escpush's
    # writer (DataFusion may deliver them in another order: its partitions).
    lines = {name: sorted(outputs[name].read_bytes().splitlines()) for name in ("escpush", "escpush+df", "df+writer")}
    same_bytes = lines["escpush"] == lines["escpush+df"] == lines["df+writer"]
    med = {name: [statistics.median(col) for col in zip(*r)] for name, r in runs.items()}
    print(f"\nmedian of {reps}:")
    for mine_name in ("escpush", "escpush+df"):
        (ew, ec, er) = med[mine_name]
        print(f"{mine_name}: wall {ew:.2f} s cpu {ec:.2f} s rss {er:.1f} MiB")
        for name, what in (("datafusion", "DataFusion alone"), ("df+writer", "DataFusion alone, escpush's writer")):
            dw, dc, dr = med[name]
            print(
                f"  against {what} (wall {dw:.2f} s cpu {dc:.2f} s rss {dr:.1f} MiB): {dw / ew:.2f}x in wall time, "
                f"{dc / ec:.2f}x in CPU (target {TARGET_RATIO}x); rss {er / dr:.2f}x (target at most "
                f"{TARGET_RSS_RATIO}x)"
            )
    print(
        f"identical output: the records of DataFusion's writer: {same}; the bytes of both engines and of "
        f"DataFusion alone with escpush's writer: {same_bytes}"
    )
    for path in outputs.values():
        path.unlink(missing_ok=True)


if __name__ == "__main__":
    main()
