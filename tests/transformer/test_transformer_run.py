"""A transformer checked, previewed and run on local logs from Python and the command line:
`escpush.check_transformer`, `preview_transformer` (the docs' two worked examples, exactly),
`run_transformer` (DataFusion, after escpush's scanner ran the filter part of its WHERE:
the same records as DataFusion alone), `transformer_to_filter` and
`escpush logpush transformer preview`."""

from __future__ import annotations

import argparse
import gzip
import json
import random
from pathlib import Path
from typing import Any

import pytest

import escpush
from engines import need
from escpush.cli import logpush_transformer_preview

HTTP_SQL = """SELECT
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

HTTP_INPUT = {
    "ClientIP": "203.0.113.42",
    "ClientRequestHost": "example.com",
    "ClientRequestMethod": "POST",
    "ClientRequestPath": "/api/checkout",
    "ClientRequestUserAgent": "curl/7.85.0",
    "EdgeResponseStatus": 502,
    "EdgeStartTimestamp": "2026-05-21T15:00:00Z",
    "RayID": "8e2a1c60ef9e1c9a",
    "OriginResponseTime": 3200000000,
    "WAFAction": "unknown",
}

HTTP_OUTPUT = {
    "is_server_error": True,
    "method": "POST",
    "provider": "Cloudflare",
    "request": {"host": "example.com", "method": "POST", "path": "/api/checkout"},
    "request_meta": ["example.com", "/api/checkout"],
    "unix_ts": 1779375600,
}


def test_the_docs_http_example_previews_exactly_with_sorted_members() -> None:
    (got,) = escpush.preview_transformer(HTTP_SQL, HTTP_INPUT)
    assert got == HTTP_OUTPUT and list(got) == sorted(HTTP_OUTPUT)
    assert escpush.preview_transformer(HTTP_SQL, {**HTTP_INPUT, "ClientRequestPath": "/metrics/x"}) == []


def test_a_bad_transformer_is_refused_with_each_problem_at_its_line_and_column() -> None:
    sql = "SELECT ClientIp, COUNT(*)\nFROM http_requests\nORDER BY RayID"
    with pytest.raises(escpush.InvalidInput) as info:
        escpush.check_transformer(sql)
    problems = [(p["path"], p["code"]) for p in info.value.errors()]
    assert ("line 1, column 8", "unknown_field") in problems
    assert ("line 1, column 18", "unsupported") in problems
    assert ("line 3, column 10", "unsupported") in problems
    assert "did you mean `ClientIP`?" in str(info.value)


def _records(n: int, seed: int) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    hosts = ["example.com", "internal.example.com", "health.example.com", "shop.example.org"]
    paths = ["/", "/api/checkout", "/healthz", "/healthz/live", "/metrics", "/metrics/x", "/static/a.css"]
    return [
        {
            "ClientIP": f"203.0.113.{i % 250}",
            "ClientRequestHost": rng.choice(hosts),
            "ClientRequestMethod": rng.choice(["get", "POST", "put"]),
            "ClientRequestPath": rng.choice(paths),
            "EdgeResponseStatus": rng.choice([200, 204, 301, 404, 500, 502, 503]),
            "EdgeStartTimestamp": f"2026-05-21T15:{i % 60:02d}:00Z",
            "RayID": f"{i:016x}",
        }
        for i in range(n)
    ]


def test_run_transformer_gives_datafusion_alone_s_records_after_the_scanner(tmp_path: Path) -> None:
    need("datafusion")
    records = _records(3000, 36)
    plain = tmp_path / "a.ndjson"
    plain.write_text("".join(json.dumps(r) + "\n" for r in records[:2000]))
    with gzip.open(tmp_path / "b.ndjson.gz", "wt") as f:
        f.write("".join(json.dumps(r) + "\n" for r in records[2000:]))
    run = escpush.run_transformer(HTTP_SQL, tmp_path)
    alone = escpush.run_transformer(HTTP_SQL, tmp_path, prefilter=False)
    assert run.prefilter is not None and alone.prefilter is None
    assert run.lines_read == 3000 and run.lines_kept is not None and run.lines_kept < 3000
    key = lambda r: json.dumps(r, sort_keys=True)  # noqa: E731
    assert run.records is not None and alone.records is not None
    assert sorted(run.records, key=key) == sorted(alone.records, key=key)
    assert run.delivered == run.lines_kept  # its WHERE is all filter: every line kept is delivered
    want = [escpush.preview_transformer(HTTP_SQL, r) for r in records]
    assert run.delivered == sum(len(w) for w in want)
    out = tmp_path / "delivered.ndjson"
    written = escpush.run_transformer(HTTP_SQL, [plain], output=out)
    assert written.records is None and written.delivered == len(out.read_text().splitlines())


def test_a_transformer_that_only_filters_reads_back_as_a_job_filter_with_the_price() -> None:
    sql = "SELECT ClientIP, RayID FROM http_requests WHERE EdgeResponseStatus >= 500"
    form = escpush.transformer_to_filter(sql)
    assert form is not None
    assert form["filter"] == (escpush.field("EdgeResponseStatus") >= 500)
    assert form["fields"] == ["ClientIP", "RayID"]
    assert "$0.04 per GB of input" in form["note"]
    assert escpush.transformer_to_filter(HTTP_SQL) is None


def _cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    parser = argparse.ArgumentParser()
    logpush_transformer_preview.add_parser(parser.add_subparsers(dest="action"))
    args = parser.parse_args(["preview", *argv])
    try:
        code = args.run(args)
    except escpush.cli._common.CliError as err:  # type: ignore[attr-defined]
        return 2, "", str(err)
    out, err = capsys.readouterr()
    return code, out, err


def test_the_cli_previews_one_record_locally_and_a_sample(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, out, _ = _cli(capsys, "--sql", HTTP_SQL, "--input", json.dumps(HTTP_INPUT), "--local", "--json")
    assert code == 0 and json.loads(out)["records"] == [HTTP_OUTPUT]
    need("datafusion")
    sample = tmp_path / "s.ndjson"
    sample.write_text("".join(json.dumps(r) + "\n" for r in _records(200, 1)))
    sql = "SELECT RayID FROM http_requests WHERE EdgeResponseStatus >= 500"
    code, out, _ = _cli(capsys, "--sql", sql, "--sample", str(sample), "--json")
    data = json.loads(out)
    assert code == 0 and data["delivered"] == sum(r["EdgeResponseStatus"] >= 500 for r in _records(200, 1))
    assert data["as_job_filter"]["field_names"] == ["RayID"] and data["engine"] == "escpush"
    # DataFusion delivers the same records; the text form names the engine.
    code, out, _ = _cli(capsys, "--sql", sql, "--sample", str(sample), "--engine", "datafusion", "--json")
    other = json.loads(out)
    assert code == 0 and other["engine"] == "datafusion"
    assert sorted(map(json.dumps, other["records"])) == sorted(map(json.dumps, data["records"]))
    code, out, _ = _cli(capsys, "--sql", sql, "--sample", str(sample))
    assert code == 0 and "fields the engine (escpush) read: EdgeResponseStatus, RayID" in out
    code, _, err = _cli(capsys, "--sql", "SELECT x FROM http_requests", "--input", "{}", "--local")
    assert code == 2 and "`x` is not a field of `http_requests`" in err


def test_a_job_becomes_the_transformer_of_its_filter_and_fields() -> None:
    job = escpush.Job(
        dataset="http_requests",
        filter=(escpush.field("EdgeResponseStatus") >= 500).to_json(),
        output_options={"field_names": ["ClientIP", "RayID"]},
    )
    sql = job.to_transformer()
    assert sql == (escpush.field("EdgeResponseStatus") >= 500).to_transformer(
        dataset="http_requests", fields=["ClientIP", "RayID"]
    )
    form = escpush.transformer_to_filter(sql)
    assert form is not None and form["fields"] == ["ClientIP", "RayID"]
    legacy = escpush.Job(dataset="http_requests", logpull_options="fields=RayID,ClientIP&timestamps=rfc3339")
    assert legacy.to_transformer() == 'SELECT\n  "RayID",\n  "ClientIP"\nFROM http_requests'


def test_the_cli_reads_its_sql_and_record_files_as_every_command_does(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """--file and --input @FILE go through the command line's one reader: a byte-order mark at
    the start is dropped, and a file that is not UTF-8 is bad input naming the file."""
    sql, record = tmp_path / "t.sql", tmp_path / "r.json"
    sql.write_bytes(b"\xef\xbb\xbf" + HTTP_SQL.encode())
    record.write_bytes(b"\xef\xbb\xbf" + json.dumps(HTTP_INPUT).encode())
    code, out, _ = _cli(capsys, "--file", str(sql), "--input", f"@{record}", "--local", "--json")
    assert code == 0 and json.loads(out)["records"] == [HTTP_OUTPUT]
    sql.write_bytes(b"SELECT \xff FROM http_requests")
    code, _, err = _cli(capsys, "--file", str(sql), "--input", "{}", "--local")
    assert code == 2 and f"the SQL file `{sql}` is not UTF-8 text" in err
