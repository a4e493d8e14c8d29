"""A transformer run on local logs (`escpush.run_transformer`): escpush's scanner hands
DataFusion only the lines that can match, cut down to the fields the SQL reads, and
escpush writes DataFusion's records by core's value rules. Checked against DataFusion alone
on the raw lines and against core's one-record interpreter (`preview_transformer`)."""

from __future__ import annotations

import gzip
import json
import random
from pathlib import Path
from typing import Any

import pytest

import escpush
from engines import need
from escpush import _transformer
from test_transformer_run import HTTP_SQL  # the docs' http_requests example

READ = ["ClientRequestHost", "ClientRequestMethod", "ClientRequestPath", "EdgeResponseStatus", "EdgeStartTimestamp"]


def _records(n: int, seed: int) -> list[dict[str, Any]]:
    """Lines with more fields than the SQL reads, quotes, backslashes, non-ASCII text and
    control characters in the fields it reads, and a few lines without a field it reads."""
    rng = random.Random(seed)
    hosts = ["example.com", "internal.example.com", "health.example.com", 'sh"op.example.org', "bücher.example"]
    paths = ["/", "/api/checkout", "/healthz", "/metrics/x", "/a\\b", "/tab\there", "/ünï/😀"]
    out = []
    for i in range(n):
        record: dict[str, Any] = {
            "ClientIP": f"203.0.113.{i % 250}",
            "ClientRequestHost": rng.choice(hosts),
            "ClientRequestMethod": rng.choice(["get", "POST", "pUt"]),
            "ClientRequestPath": rng.choice(paths),
            "ClientRequestUserAgent": "curl/8 " + "x" * rng.randrange(40),
            "EdgeResponseStatus": rng.choice([200, 204, 404, 500, 502, 503]),
            "EdgeStartTimestamp": f"2026-05-21T15:{i % 60:02d}:{i % 7:02d}Z",
            "RayID": f"{i:016x}",
            "RequestHeaders": {"x-a": str(i)},
        }
        if i % 37 == 0:
            del record["ClientRequestMethod"]
        out.append(record)
    return out


def _write(tmp: Path, records: list[dict[str, Any]]) -> Path:
    """Half the records in a plain file, half gzip, in a folder; and all of them in one raw file."""
    logs = tmp / "logs"
    logs.mkdir()
    lines = [json.dumps(r, ensure_ascii=False) + "\n" for r in records]
    half = len(lines) // 2
    (logs / "a.ndjson").write_text("".join(lines[:half]), encoding="utf-8")
    with gzip.open(logs / "b.ndjson.gz", "wt", encoding="utf-8") as f:
        f.write("".join(lines[half:]))
    (tmp / "raw.ndjson").write_text("".join(lines), encoding="utf-8")
    return logs


def _alone(sql: str, raw: Path, tmp: Path) -> list[dict[str, Any]]:
    """What DataFusion delivers from every raw line, written by the same writer."""
    out = tmp / "alone.ndjson"
    ctx = _transformer.datafusion_context(escpush.check_transformer(sql)["dataset"], raw)
    _transformer.write_records(ctx.sql(sql), out)
    return [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]


def _sorted(records: list[dict[str, Any]]) -> list[str]:
    return sorted(json.dumps(r, sort_keys=True, ensure_ascii=False) for r in records)


def _core(sql: str, records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [out for r in records for out in escpush.preview_transformer(sql, r)]


def test_the_engine_reads_the_kept_lines_cut_to_the_fields_the_sql_reads(tmp_path: Path) -> None:
    need("datafusion")
    records = _records(2000, 36)
    logs = _write(tmp_path, records)
    run = escpush.run_transformer(HTTP_SQL, logs)
    assert run.fields == READ
    assert run.lines_read == 2000 and 0 < run.lines_kept < 2000
    assert run.records is not None and run.delivered == len(run.records) == run.lines_kept
    # The same records as DataFusion alone over every raw line, and as core's interpreter.
    assert _sorted(run.records) == _sorted(_alone(HTTP_SQL, tmp_path / "raw.ndjson", tmp_path))
    assert _sorted(run.records) == _sorted(_core(HTTP_SQL, records))
    # Without the prefilter every line reaches DataFusion; what it delivers is the same.
    every = escpush.run_transformer(HTTP_SQL, logs, prefilter=False)
    assert every.prefilter is None and every.lines_kept == 2000 and every.records is not None
    assert _sorted(every.records) == _sorted(run.records)


def test_sql_that_reads_star_gets_whole_lines(tmp_path: Path) -> None:
    need("datafusion")
    records = [{"RayID": f"{i:04x}", "EdgeResponseStatus": 200 + i % 400, "ClientIP": "a\u00e9"} for i in range(300)]
    logs = _write(tmp_path, records)
    sql = "SELECT * FROM http_requests WHERE EdgeResponseStatus >= 500"
    run = escpush.run_transformer(sql, logs)
    assert run.fields is None and run.prefilter is not None
    assert run.records is not None
    assert _sorted(run.records) == _sorted([r for r in records if r["EdgeResponseStatus"] >= 500])
    assert _sorted(run.records) == _sorted(_core(sql, records))


def test_times_floats_structs_and_nulls_are_written_as_core_writes_them(tmp_path: Path) -> None:
    need("datafusion")
    records = [
        {
            "EdgeStartTimestamp": f"2026-05-21T15:00:0{i % 10}.{i:03d}Z" if i % 3 else f"2026-05-21T15:00:0{i % 10}Z",
            "EdgeResponseStatus": 200 + i,
            "RayID": f"r{i}",
            "ClientIP": None if i % 4 == 0 else f"198.51.100.{i}",
        }
        for i in range(1, 60)
    ]
    logs = _write(tmp_path, records)
    sql = """SELECT
      to_timestamp(EdgeStartTimestamp) AS t,
      EdgeResponseStatus / 8.0 AS q,
      CAST(EdgeResponseStatus AS DOUBLE) AS d,
      named_struct('z', RayID, 'a', ClientIP) AS s,
      ClientIP AS ip
    FROM http_requests"""
    run = escpush.run_transformer(sql, logs)
    assert run.records is not None
    assert _sorted(run.records) == _sorted(_core(sql, records))
    first = next(r for r in run.records if r["s"]["z"] == "r1")
    # Members sorted, the time in RFC 3339 UTC with the digits it needs, an integral float
    # as an integer (as the docs' unix_ts), a fraction kept, a null written. (The epoch of a
    # time with a fraction is not compared: DataFusion computes it in floats, 1779375602.0019999
    # where core gives 1779375602.002.)
    assert list(first) == ["d", "ip", "q", "s", "t"] and list(first["s"]) == ["a", "z"]
    assert first["t"] == "2026-05-21T15:00:01.001Z" and first["d"] == 201 and first["q"] == 25.125
    assert next(r for r in run.records if r["s"]["z"] == "r4")["ip"] is None


def test_a_run_that_fails_leaves_the_output_as_it_was(tmp_path: Path) -> None:
    need("datafusion")
    out = tmp_path / "delivered.ndjson"
    out.write_text("kept\n")
    with pytest.raises(escpush.ScanError):
        escpush.run_transformer(HTTP_SQL, tmp_path / "missing.ndjson", output=out)
    assert out.read_text() == "kept\n" and sorted(p.name for p in tmp_path.iterdir()) == ["delivered.ndjson"]
    logs = _write(tmp_path, _records(50, 1))
    run = escpush.run_transformer(HTTP_SQL, logs, output=out)
    assert run.records is None and run.output == str(out)
    assert len(out.read_text(encoding="utf-8").splitlines()) == run.delivered > 0
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]
