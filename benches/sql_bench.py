#!/usr/bin/env python3
"""The same filters wherever the logs are: `Filter.scan`, DuckDB over `to_sql("duckdb")`,
polars over `to_polars()` and Spark (local mode) over `to_pyspark()`, on the generated
log file of scan_bench (1,000,000 lines by default; made by it, reused here).

Every engine reads the NDJSON file itself, typed by `escpush.dataset_schema` (DuckDB and
polars only the columns the filter reads; Spark the whole dataset schema through
`escpush.spark.read_logpush`). The counts must agree with `Filter.scan`'s. One run per filter
and engine (the machine is shared; MB/s = file bytes / wall time). Environment:
ESCPUSH_BENCH_LINES (default 1000000), PEERS (subset of: scan duckdb polars spark).
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path
from typing import Any, Callable

import escpush
import escpush.spark
from escpush import Filter

ROOT = Path(__file__).resolve().parent.parent
FILTERS = sorted((ROOT / "tests" / "data" / "filters").glob("*.json"))
DATASET = "http_requests"


def duckdb_count(f: Filter, path: Path) -> int:
    import duckdb

    # The column types of the dataset's DDL, for the fields the filter reads.
    ddl_types = {
        line.strip().split(" ", 1)[0].strip('"'): line.strip().split(" ", 1)[1].rstrip(",")
        for line in escpush.dataset_schema(DATASET, "duckdb").splitlines()[1:-1]
    }
    columns = ", ".join(f"'{name}': '{ddl_types[name]}'" for name in f.fields)
    source = f"read_ndjson('{path}', columns = {{{columns}}})"
    sql = f"SELECT count(*) FROM {source} WHERE {f.to_sql('duckdb', dataset=DATASET)}"
    (n,) = duckdb.connect().execute(sql).fetchone()
    return int(n)


def polars_count(f: Filter, path: Path) -> int:
    import polars as pl

    schema = escpush.dataset_schema(DATASET, "polars")
    lf = pl.scan_ndjson(path, schema={name: schema[name] for name in f.fields})
    return int(lf.filter(f.to_polars(dataset=DATASET)).select(pl.len()).collect().item())


_SPARK: Any = None


def spark_count(f: Filter, path: Path) -> int:
    global _SPARK
    if _SPARK is None:
        from pyspark.sql import SparkSession

        _SPARK = SparkSession.builder.master("local[*]").config("spark.ui.enabled", "false").getOrCreate()
        _SPARK.sparkContext.setLogLevel("ERROR")
    df = escpush.spark.read_logpush(_SPARK, str(path), DATASET)
    return int(df.where(f.to_pyspark(dataset=DATASET)).count())


def main() -> int:
    lines = int(os.environ.get("ESCPUSH_BENCH_LINES", "1000000"))
    path = Path("/tmp/escpush-bench") / f"logs-{lines}-42.ndjson"
    if not path.exists():
        print(f"{path} is missing: run benches/scan_bench.py first (it generates the logs)")
        return 0
    peers: dict[str, Callable[[Filter, Path], int]] = {
        "scan": lambda f, p: f.scan(p).matched,
        "duckdb": duckdb_count,
        "polars": polars_count,
        "spark": spark_count,
    }
    chosen = os.environ.get("PEERS", " ".join(peers)).split()
    size = path.stat().st_size
    print(f"{lines:,} lines, {size / 1e6:,.0f} MB; MB/s and count per engine\n")
    print(f"{'filter':<18}" + "".join(f"{p:>22}" for p in chosen) + "   agree")
    for file in FILTERS:
        f = Filter.parse(file.read_text())
        counts, cells = [], []
        for name in chosen:
            started = time.perf_counter()
            n = peers[name](f, path)
            took = time.perf_counter() - started
            counts.append(n)
            cells.append(f"{size / 1e6 / took:>9,.0f} {n:>11,}")
        agree = "yes" if len(set(counts)) == 1 else "NO"
        print(f"{file.stem:<18}" + "".join(f"{c:>22}" for c in cells) + f"   {agree}")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
