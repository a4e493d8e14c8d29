#!/usr/bin/env python3
"""The scanner inside Spark against Spark's own JSON reader, on local[2] (issue 38).

Inputs: the 1M-line plain file (`logs-1000000-42.ndjson`, 1.48 GB, page cache warm) and the
same lines as a folder of 200 gzip log-push files (`scan_bench.logpush_tree`, made once and
shared with scan_bench.py). For each, with the filter `c_and3` (tests/data/filters):

- count: `escpush.spark.scan(spark, paths, f).matched` against
  `read_logpush(spark, paths, ds).where(f.to_pyspark(dataset=ds)).count()`; target: at least
  5x in wall time, the counts identical (and equal to `Filter.scan`'s on the driver);
- select of 10 fields: `escpush.spark.select(..., fields=TEN).count()` against
  `read_logpush(...).where(...).select(*TEN).count()`; target: at least 3x. (Spark prunes the
  columns it does not need from its reader; so both sides produce the 10 columns. A `count()`
  of Spark's select would let Spark skip the columns altogether, so both sides are written to
  the `noop` data source, which materialises every row and column and writes nothing.)

Each case runs REPS times (default 3) after one warm-up run of each side (the JVM's JIT, the
Python workers); the median wall time is reported. Environment: ESCPUSH_BENCH_LINES (default
1000000), REPS, KINDS (subset of: plain files).

It prints whether every target is met (it does not exit, so that `benches/run.py` goes on).
Run with a release build (`make release`): `.venv/bin/python benches/spark_bench.py`.
"""

from __future__ import annotations

import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import scan_bench

import escpush
import escpush.spark as es

ROOT = Path(__file__).resolve().parent.parent
FILTER = ROOT / "tests" / "data" / "filters" / "c_and3.json"
DATASET = "http_requests"
TEN = [
    "ClientIP",
    "ClientCountry",
    "ClientRequestHost",
    "ClientRequestMethod",
    "ClientRequestPath",
    "EdgeResponseStatus",
    "EdgeResponseBytes",
    "EdgeStartTimestamp",
    "CacheCacheStatus",
    "ClientRequestUserAgent",
]
TARGET_COUNT = 5.0
TARGET_SELECT = 3.0


def session() -> Any:
    from pyspark.sql import SparkSession

    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    spark = (
        SparkSession.builder.master("local[2]")
        .appName("escpush-spark-bench")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.driver.memory", "2g")
        .config("spark.ui.showConsoleProgress", "false")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def median_wall(run: Any, reps: int) -> tuple[float, Any]:
    run()  # warm-up
    walls, out = [], None
    for _ in range(reps):
        started = time.perf_counter()
        out = run()
        walls.append(time.perf_counter() - started)
    return statistics.median(walls), out


def noop(df: Any) -> int:
    """Every row and column of `df` produced (the noop sink writes nothing); its row count."""
    df.write.format("noop").mode("overwrite").save()
    return -1


def main() -> None:
    lines = int(os.environ.get("ESCPUSH_BENCH_LINES", "1000000"))
    reps = int(os.environ.get("REPS", "3"))
    kinds = os.environ.get("KINDS", "plain files").split()
    path = scan_bench.logs(lines)
    inputs = {}
    if "plain" in kinds:
        inputs["plain"] = (str(path), str(path))
    if "files" in kinds:
        tree = scan_bench.logpush_tree(path)
        inputs["files"] = (str(tree), str(tree / "*" / "*.log.gz"))
    f = escpush.Filter.from_dict(FILTER.read_text())
    spark = session()
    rows = []
    ok = True
    for kind, (ours, theirs) in inputs.items():
        scan_bench.warm(path)
        want = f.scan(ours).matched

        def spark_count(theirs: str = theirs) -> int:
            df = es.read_logpush(spark, theirs, DATASET)
            return int(df.where(f.to_pyspark(dataset=DATASET)).count())

        def escpush_count(ours: str = ours) -> int:
            return es.scan(spark, ours, f).matched

        theirs_wall, theirs_n = median_wall(spark_count, reps)
        ours_wall, ours_n = median_wall(escpush_count, reps)
        same = theirs_n == ours_n == want
        ratio = theirs_wall / ours_wall
        ok &= same and ratio >= TARGET_COUNT
        rows.append((kind, "count", ours_wall, theirs_wall, ratio, TARGET_COUNT, f"{ours_n:,} = {theirs_n:,}"))

        def spark_select(theirs: str = theirs) -> int:
            df = es.read_logpush(spark, theirs, DATASET).where(f.to_pyspark(dataset=DATASET)).select(*TEN)
            return noop(df)

        def escpush_select(ours: str = ours) -> int:
            return noop(es.select(spark, ours, f, dataset=DATASET, fields=TEN))

        theirs_wall, _ = median_wall(spark_select, reps)
        ours_wall, _ = median_wall(escpush_select, reps)
        n_ours = es.select(spark, ours, f, dataset=DATASET, fields=TEN).count()
        n_theirs = es.read_logpush(spark, theirs, DATASET).where(f.to_pyspark(dataset=DATASET)).select(*TEN).count()
        same = n_ours == n_theirs == want
        ratio = theirs_wall / ours_wall
        ok &= same and ratio >= TARGET_SELECT
        rows.append((kind, "select 10", ours_wall, theirs_wall, ratio, TARGET_SELECT, f"{n_ours:,} = {n_theirs:,}"))
    spark.stop()
    print(f"\nlocal[2], {lines:,} lines, filter {FILTER.stem}, median of {reps} (wall seconds)")
    print(f"{'input':<7} {'case':<10} {'escpush.spark':>13} {'Spark reader':>13} {'ratio':>7} {'target':>7}  rows")
    for kind, case, ours, theirs, ratio, target, counts in rows:
        mark = "" if ratio >= target else "  (below target)"
        print(f"{kind:<7} {case:<10} {ours:>13.2f} {theirs:>13.2f} {ratio:>6.1f}x {target:>6.1f}x  {counts}{mark}")
    print("every target met, every count identical" if ok else "BELOW TARGET or counts differ (see above)")


if __name__ == "__main__":
    main()
