"""The Spark session the Spark tests share (test_spark.py, test_spark_scan.py): local[2], one
for the whole test session (it takes seconds to start). Without pyspark or a Java runtime the
tests skip, naming what is missing (under CI or `make test`, which set `CI` or
`ESCPUSH_REQUIRE_ENGINES`, they fail)."""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Iterator
from typing import Any

import pytest

from test_sql import need


@pytest.fixture(scope="session")
def spark() -> Iterator[Any]:
    need("pyspark")
    if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
        message = "pyspark needs a Java 17 runtime: none is on PATH and JAVA_HOME is not set"
        if os.environ.get("CI") or os.environ.get("ESCPUSH_REQUIRE_ENGINES"):
            pytest.fail(message)
        pytest.skip(message)
    from pyspark.sql import SparkSession

    # The executors' Python is this one (with escpush), not the first `python3` on PATH.
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)

    session = (
        SparkSession.builder.master("local[2]")
        .appName("escpush-tests")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.driver.memory", "512m")
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()
