"""Backtest a log-push filter on logs already pushed, with Spark: the count of lines the
filter keeps, over any number of NDJSON files (plain or gzip) on any Hadoop filesystem.

    spark-submit examples/spark_backtest.py FILTER DATASET PATH [PATH...]
    python examples/spark_backtest.py FILTER DATASET PATH [PATH...]     # local mode

FILTER is the filter's JSON text or a file holding it; PATHs are files, folders or globs
(`s3a://bucket/logs/2024-06-*/`). Needs pyspark (`pip install 'escpush[spark]'`).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from escpush import Filter
from escpush.spark import read_logpush


def backtest(spark: Any, filter_text: str, dataset: str, paths: list[str]) -> tuple[int, int]:
    """(lines kept, lines read)."""
    f = Filter.parse(filter_text)
    f.validate(dataset)
    logs = read_logpush(spark, paths, dataset)
    kept = logs.where(f.to_pyspark(dataset=dataset)).count()
    return kept, logs.count()


def main(argv: list[str]) -> int:
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    text, dataset, paths = argv[0], argv[1], argv[2:]
    if Path(text).is_file():
        text = Path(text).read_text(encoding="utf-8")
    from pyspark import SparkConf
    from pyspark.sql import SparkSession

    builder = SparkSession.builder.appName("escpush-backtest")
    if not SparkConf().contains("spark.master"):  # run directly, not by spark-submit: local mode
        builder = builder.master("local[*]")
    spark = builder.getOrCreate()
    kept, total = backtest(spark, text, dataset, paths)
    print(f"{kept} of {total} lines match")
    spark.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
