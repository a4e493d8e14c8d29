"""Log-push filters on Spark: past one machine, the same answers as ``Filter.scan``.

    from escpush.spark import read_logpush
    df = read_logpush(spark, "s3a://bucket/logs/2024-06-*/", "http_requests")
    df.where(f.to_pyspark(dataset="http_requests")).count()

``read_logpush`` reads log-push NDJSON (plain or gzip, folders and globs, any Hadoop
filesystem URL) with the dataset's schema (``escpush.dataset_schema(ds, "pyspark")``), the
column types the filter's Spark SQL (``f.to_sql("spark", dataset=ds)``) assumes. pyspark is
optional: ``pip install 'escpush[spark]'``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ._escpush import Filter
from ._presentation import dataset_schema
from ._schemas import require

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

__all__ = ["filter_dataframe", "read_logpush", "schema"]


def schema(dataset: str, *, scope: str | None = None) -> Any:
    """The dataset's columns as a ``pyspark.sql.types.StructType``."""
    return dataset_schema(dataset, "pyspark", scope=scope)


def read_logpush(spark: Any, paths: str | Sequence[str], dataset: str, *, scope: str | None = None) -> Any:
    """A DataFrame of the log-push NDJSON files at ``paths`` (files, folders or globs; plain or
    ``.gz``; local or any Hadoop filesystem URL), typed by ``dataset``'s schema. A value of
    another type than its column's reads as null (Spark's PERMISSIVE mode)."""
    require("pyspark")
    paths = [paths] if isinstance(paths, str) else [str(p) for p in paths]
    return spark.read.schema(schema(dataset, scope=scope)).option("mode", "PERMISSIVE").json(paths)


def filter_dataframe(
    df: Any, filter: Filter | str | Mapping[str, Any], dataset: str, *, scope: str | None = None
) -> Any:
    """``df`` where the filter matches (``df.where(f.to_pyspark(dataset=dataset))``); ``filter``
    is a Filter, its JSON text or a dict."""
    f = filter if isinstance(filter, Filter) else Filter.from_dict(filter)
    return df.where(f.to_pyspark(dataset=dataset, scope=scope))


def _column(sql: str) -> Any:
    """The Spark SQL boolean expression as a Column (used by ``Filter.to_pyspark``)."""
    require("pyspark")
    from pyspark.sql import functions

    return functions.expr(sql)
