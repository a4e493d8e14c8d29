#!/usr/bin/env python3
"""A transformer run on local logs (issue 36): the docs' http_requests example (a filtering and
reshaping transformer, transformers.mdx) over the 1,000,000-line file of `scan_bench.py`:

- escpush: `escpush.run_transformer(SQL, logs, output=...)`: core's check, the part of its WHERE
  a job filter can say run by escpush's scanner (every core), DataFusion on the kept lines;
- DataFusion alone: the same SQL over the whole NDJSON file (`register_json`, names kept as
  written), the same writer.

Targets: at least 3x DataFusion alone in CPU and wall time, identical output (the delivered
records compared as sorted lines), peak RSS at most 2x DataFusion's. Each run is one process,
timed by `scan_bench.timed` (wall, CPU of all threads, peak RSS). Needs ../shared/bench (the
log generator) and the `transform` extra. Long: not run by the tests.

Environment: ESCPUSH_BENCH_LINES (default 1000000), REPS (3).
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
from pathlib import Path

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

# DataFusion alone: the same session settings and writer as escpush's (escpush._transformer's
# helpers import DataFusion and json only: no scanner).
DATAFUSION = """
import json, sys
from escpush._transformer import run_datafusion
records = run_datafusion(sys.argv[1], "http_requests", sys.argv[2])
with open(sys.argv[3], "w", encoding="utf-8") as out:
    for r in records:
        out.write(json.dumps(r, sort_keys=True, separators=(",", ":"), ensure_ascii=False) + "\\n")
print(len(records))
"""


def main() -> None:
    if not scan_bench.SHARED.exists():
        print(f"skipped: {scan_bench.SHARED} is missing (the log generator)")
        return
    lines = int(os.environ.get("ESCPUSH_BENCH_LINES", "1000000"))
    reps = int(os.environ.get("REPS", "3"))
    logs = scan_bench.logs(lines)
    scan_bench.warm(logs)
    work = Path(tempfile.mkdtemp(prefix="escpush-transformer-bench-"))
    runs: dict[str, list[tuple[float, float, float]]] = {"escpush": [], "datafusion": []}
    outputs = {name: work / f"{name}.ndjson" for name in runs}
    for _ in range(reps):
        for name, script in (("escpush", ESCPUSH), ("datafusion", DATAFUSION)):
            out, wall, rss, cpu = scan_bench.timed([sys.executable, "-c", script, SQL, str(logs), str(outputs[name])])
            runs[name].append((wall, cpu, rss))
            print(f"{name:10} wall {wall:6.2f} s  cpu {cpu:6.2f} s  rss {rss:7.1f} MiB  {out.strip()}", flush=True)
    same = sorted(outputs["escpush"].read_text().splitlines()) == sorted(outputs["datafusion"].read_text().splitlines())
    med = {name: [statistics.median(col) for col in zip(*r)] for name, r in runs.items()}
    (ew, ec, er), (dw, dc, dr) = med["escpush"], med["datafusion"]
    print(
        f"\nmedian of {reps}: escpush wall {ew:.2f} s cpu {ec:.2f} s rss {er:.1f} MiB; "
        f"DataFusion alone wall {dw:.2f} s cpu {dc:.2f} s rss {dr:.1f} MiB"
    )
    print(
        f"wall {dw / ew:.2f}x, cpu {dc / ec:.2f}x (target {TARGET_RATIO}x); rss {er / dr:.2f}x DataFusion's "
        f"(target at most {TARGET_RSS_RATIO}x); identical output: {same}"
    )
    for path in outputs.values():
        path.unlink(missing_ok=True)


if __name__ == "__main__":
    main()
