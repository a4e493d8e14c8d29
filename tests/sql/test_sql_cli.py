"""`escpush filter sql`: the filter as SQL from a shell."""

from __future__ import annotations

import json
import subprocess
import sys

import escpush
from escpush import field

F = field("ClientRequestHost").ends_with(".example.com") & field("EdgeResponseStatus").ge(500)


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "escpush", *args], capture_output=True, text=True, check=False)


def test_prints_the_expression_and_the_query() -> None:
    run = cli("filter", "sql", F.to_json(), "--dialect", "duckdb", "--dataset", "http_requests")
    assert run.returncode == 0, run.stderr
    assert run.stdout == F.to_sql("duckdb", dataset="http_requests") + "\n"
    args = ["--dialect", "athena", "--dataset", "http_requests", "--query", "--table", "db.logs", "--json"]
    run = cli("filter", "sql", F.to_json(), *args)
    assert run.returncode == 0, run.stderr
    out = json.loads(run.stdout)
    assert out["sql"] == F.to_query("trino", dataset="http_requests", table="db.logs")
    assert out["sql"].startswith('SELECT * FROM "db"."logs" WHERE ')


def test_bad_input_is_a_usage_error_naming_it() -> None:
    run = cli("filter", "sql", F.to_json(), "--dialect", "duckdb", "--dataset", "http_requestz")
    assert run.returncode == 2 and "did you mean `http_requests`" in run.stderr
    run = cli("filter", "sql", F.to_json(), "--dialect", "mysql", "--dataset", "http_requests")
    assert run.returncode == 2, run.stderr
    assert "argument --dialect: invalid dialect: `mysql` is not a SQL dialect; use one of duckdb, " in run.stderr
    run = cli("filter", "sql", F.to_json(), "--dialect", "duckdb", "--dataset", "http_requests", "--table", "t")
    assert run.returncode == 2 and "--table names the table of --query" in run.stderr
    arrays = field("SecuritySources").contains("waf").to_json()
    run = cli("filter", "sql", arrays, "--dialect", "transformer", "--dataset", "http_requests")
    assert run.returncode == 2 and "the transformer dialect cannot express it" in run.stderr
    assert escpush.Filter.parse(F.to_json()) == F


def test_the_dialects_and_their_aliases_are_cores() -> None:
    """The command line takes every name core takes (it refused `databricks`, `sparksql`,
    `postgresql` and any other case), and its help lists core's dialects with their aliases."""
    from escpush._escpush import _SQL_DIALECTS

    names = [(name, alias) for name, aliases in _SQL_DIALECTS for alias in (name, *aliases)]
    assert ("spark", "databricks") in names and ("trino", "athena") in names and ("postgres", "postgresql") in names
    for name, given in [*names, ("duckdb", "DuckDB"), ("trino", " Athena ")]:
        run = cli("filter", "sql", F.to_json(), "--dialect", given, "--dataset", "http_requests", "--json")
        assert run.returncode == 0, (given, run.stderr)
        out = json.loads(run.stdout)
        assert out["sql"] == F.to_sql(name, dataset="http_requests"), given
        assert out["dialect"] == name, "--json names the dialect as core does, not as typed"
    run = cli("filter", "sql", "--help")
    text = " ".join(run.stdout.split())
    assert "spark (databricks, sparksql)" in text and "trino (athena)" in text, text
    for name, _ in _SQL_DIALECTS:
        assert name in text
