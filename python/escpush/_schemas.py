"""Schema objects of a dataset for pyarrow, polars and pyspark (``escpush.dataset_schema``), and
``Filter.to_polars``'s expression.

The column types come from escpush-core (the ones ``Filter.to_sql`` assumes); this module only
builds each package's objects from them. Each package is imported when it is asked for, so
escpush imports without any of them.
"""

from __future__ import annotations

from typing import Any

from ._optional import need

# format -> the module to import
_MODULES = {"pyarrow": "pyarrow", "polars": "polars", "pyspark": "pyspark.sql.types"}


def require(fmt: str) -> Any:
    """The module of ``fmt``'s package, or an ImportError naming the extra to install."""
    return need(_MODULES[fmt], f"{fmt} output")


def build(fmt: str, columns: list[tuple[str, str]]) -> Any:
    """The schema of ``columns`` (name, column type as escpush-core names it) in ``fmt``."""
    mod = require(fmt)
    if fmt == "pyarrow":
        scalar = {"int": mod.int64(), "float": mod.float64(), "bool": mod.bool_()}
        arrow = {**scalar, "array[string]": mod.list_(mod.string()), "array[int]": mod.list_(mod.int64())}
        return mod.schema([(name, arrow.get(kind, mod.string())) for name, kind in columns])
    if fmt == "polars":
        pl = {"int": mod.Int64, "float": mod.Float64, "bool": mod.Boolean}
        pl.update({"array[string]": mod.List(mod.String), "array[int]": mod.List(mod.Int64)})
        return mod.Schema([(name, pl.get(kind, mod.String)) for name, kind in columns])
    spark = {"int": mod.LongType(), "float": mod.DoubleType(), "bool": mod.BooleanType()}
    spark.update({"array[string]": mod.ArrayType(mod.StringType()), "array[int]": mod.ArrayType(mod.LongType())})
    return mod.StructType([mod.StructField(name, spark.get(kind, mod.StringType()), True) for name, kind in columns])


def polars_expr(sql: str) -> Any:
    """The filter's polars SQL as a ``polars.Expr`` (used by ``Filter.to_polars``)."""
    return require("polars").sql_expr(sql)
