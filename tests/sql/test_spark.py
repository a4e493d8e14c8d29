"""Filters on Spark (pyspark, local[2]): `to_pyspark`, `escpush.spark.read_logpush` and
`filter_dataframe` give the answers of `Filter.matches` and the counts of `Filter.scan`.

One SparkSession serves the whole test session (it takes seconds to start): the `spark`
fixture of tests/sql/conftest.py, shared with test_spark_scan.py.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import pytest

import escpush
import escpush.spark
from escpush import field
from test_sql import CLASSES, DATASET, FIELDS, FILTERS, RECORDS, check, table_rows


def frame(spark: Any, records: list[dict[str, Any]] = RECORDS) -> Any:
    from pyspark.sql.types import LongType, StructField, StructType

    schema = escpush.spark.schema(DATASET)
    columns = [StructField("id", LongType(), False), *(schema[name] for name in FIELDS)]
    return spark.createDataFrame(table_rows(records), schema=StructType(columns))


def spark_rows(spark: Any, filters: list[escpush.Filter], records: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
    df = frame(spark, records)
    cases = [f"CASE WHEN {f.to_sql('spark', dataset=DATASET)} THEN 1 ELSE 0 END AS f{i}" for i, f in enumerate(filters)]
    return sorted(tuple(r) for r in df.selectExpr("id", *cases).collect())


def test_spark_sql_gives_the_answers_of_matches(spark: Any) -> None:
    # The first 150 filters: Spark takes about a second per 10 to plan and compile them.
    filters = FILTERS[:150]
    check(filters, RECORDS, spark_rows(spark, filters, RECORDS), "spark")


@pytest.mark.parametrize("name", sorted(CLASSES))
def test_values_engines_read_differently_give_the_answers_of_matches_in_spark(spark: Any, name: str) -> None:
    filters, records = CLASSES[name]
    check(filters, records, spark_rows(spark, filters, records), "spark")


def test_read_logpush_and_to_pyspark_count_what_scan_counts(spark: Any, tmp_path: Path) -> None:
    """Plain and gzip NDJSON in folders, read by a folder and a glob, against Filter.scan."""
    from pyspark.sql import functions

    half = len(RECORDS) // 2
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    plain, packed = tmp_path / "a" / "part-0.ndjson", tmp_path / "b" / "part-1.ndjson.gz"
    plain.write_text("".join(json.dumps(r) + "\n" for r in RECORDS[:half]), encoding="utf-8")
    with gzip.open(packed, "wt", encoding="utf-8") as out:
        out.writelines(json.dumps(r) + "\n" for r in RECORDS[half:])
    df = escpush.spark.read_logpush(spark, [str(tmp_path / "a"), str(tmp_path / "b" / "*.gz")], DATASET)
    assert df.count() == len(RECORDS)
    filters = FILTERS[150:190]
    sums = [functions.sum(f.to_pyspark(dataset=DATASET).cast("int")).alias(f"f{i}") for i, f in enumerate(filters)]
    got = df.select(*sums).collect()[0]
    for i, f in enumerate(filters):
        assert (got[f"f{i}"] or 0) == f.scan([plain, packed]).matched, f.to_json()


def test_filter_dataframe_takes_any_form_of_filter(spark: Any) -> None:
    df = frame(spark)
    f = field("EdgeResponseStatus").ge(500) | field("ClientRequestHost").eq("${env:HOME}")
    want = sum(f.matches(r) for r in RECORDS)
    assert want > 0
    for form in (f, f.to_json(), f.to_dict()):
        assert escpush.spark.filter_dataframe(df, form, DATASET).count() == want


def test_the_backtest_example_counts_what_scan_counts(spark: Any, tmp_path: Path) -> None:
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "spark_backtest", Path(__file__).parents[2] / "examples" / "spark_backtest.py"
    )
    assert spec is not None and spec.loader is not None
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    logs = tmp_path / "logs.ndjson.gz"
    with gzip.open(logs, "wt", encoding="utf-8") as out:
        out.writelines(json.dumps(r) + "\n" for r in RECORDS)
    f = field("EdgeResponseStatus").ge(500) & field("ClientRequestHost").ne("a")
    assert example.backtest(spark, f.to_json(), DATASET, [str(tmp_path)]) == (f.scan(logs).matched, len(RECORDS))
