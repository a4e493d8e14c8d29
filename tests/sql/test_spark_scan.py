"""The scanner inside Spark (`escpush.spark.scan` and `select`, on local[2]): the counts,
malformed lines, per-input counts and breakdowns of `Filter.scan`, on plain, gzip and mixed
folders with malformed lines and empty files, however the inputs are shared; an input gone
between the listing and its reading, and an executor without escpush, raise escpush errors.

The Spark session is the shared one of tests/sql/conftest.py."""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import escpush
import escpush.spark
from escpush import field

COUNTRIES = ["us", "gb", "de", "fr", "jp", "br", "in", "za"]


def records(n: int, seed: int) -> list[dict[str, Any]]:
    out = []
    for i in range(n):
        j = i * 7 + seed * 13
        record: dict[str, Any] = {
            "EdgeResponseStatus": [200, 404, 500, 503, 301][j % 5],
            "ClientCountry": COUNTRIES[j % len(COUNTRIES)],
            "ClientRequestHost": f"h{j % 3}.example.com",
            "EdgeStartTimestamp": f"2024-05-14T{(j % 24):02d}:{(j % 60):02d}:00Z",
            "EdgeResponseBytes": j * 31 % 5000,
        }
        if j % 17 == 0:
            record["ClientCountry"] = None
        if j % 23 == 0:
            del record["EdgeStartTimestamp"]
        out.append(record)
    return out


def text(rows: list[dict[str, Any]], bad: bool = False) -> str:
    lines = [json.dumps(r) for r in rows]
    if bad:
        lines[len(lines) // 2 : len(lines) // 2] = ['{"EdgeResponseStatus":500,}', "not json", "", "[1]"]
    return "".join(line + "\n" for line in lines)


def logs(root: Path, kind: str) -> Path:
    """A folder of log files: `plain`, `gzip` or `mixed` (both, in nested folders), with
    malformed lines in some and an empty file."""
    root.mkdir()
    for i, n in enumerate([120, 0, 75, 300, 9, 40]):
        packed = kind == "gzip" or (kind == "mixed" and i % 2 == 1)
        folder = root / (f"2024051{i % 3}" if kind == "mixed" else "")
        folder.mkdir(exist_ok=True)
        body = text(records(n, i), bad=i in (2, 4)) if n else ""
        if packed:
            with gzip.open(folder / f"part-{i}.log.gz", "wt", encoding="utf-8") as out:
                out.write(body)
        else:
            (folder / f"part-{i}.ndjson").write_text(body, encoding="utf-8")
    return root


def same(got: escpush.ScanResult, want: escpush.ScanResult) -> None:
    assert type(got) is type(want)
    g, w = got.to_dict(), want.to_dict()
    g.pop("seconds")
    w.pop("seconds")
    assert g == w
    assert repr(got).split(", seconds=")[0] == repr(want).split(", seconds=")[0]


F = field("EdgeResponseStatus").ge(500) | field("ClientRequestHost").eq("h1.example.com")


@pytest.mark.parametrize("kind", ["plain", "gzip", "mixed"])
def test_scan_counts_and_breaks_down_what_filter_scan_does(spark: Any, tmp_path: Path, kind: str) -> None:
    root = logs(tmp_path / kind, kind)
    plain = escpush.spark.scan(spark, root, F)
    want = F.scan(root)
    same(plain, want)
    assert want.malformed == 6 and want.first_malformed is not None
    assert len(want.per_input) == 6
    breakdown: dict[str, Any] = {"group_by": ["ClientCountry", "EdgeResponseStatus"], "every": "1h"}
    want = F.scan(root, **breakdown)
    assert want.breakdown is not None and len(want.groups or []) > 10
    assert want.breakdown["no_time"]["lines"] > 0
    for partitions in (1, 2, 4, 50):
        same(escpush.spark.scan(spark, str(root), F, partitions=partitions, **breakdown), want)
    # top: applied once to the merged groups; exact.
    want = F.scan(root, top=3, **breakdown)
    got = escpush.spark.scan(spark, [str(root)], F.to_json(), top=3, partitions=3, **breakdown)
    same(got, want)
    assert got.breakdown is not None and got.breakdown["exact"] and len(got.groups or []) == 3


def test_scan_reads_globs_and_time_ranges_as_filter_scan_does(spark: Any, tmp_path: Path) -> None:
    for hour in range(4):
        name = f"20240514T0{hour}0000Z_20240514T0{hour}5959Z_abc{hour}.log.gz"
        with gzip.open(tmp_path / name, "wt", encoding="utf-8") as out:
            out.write(text(records(30 + hour, hour)))
    pattern = str(tmp_path / "*.log.gz")
    options: dict[str, Any] = {"since": "2024-05-14T01:00:00Z", "until": "2024-05-14T03:00:00Z"}
    want = F.scan(pattern, group_by="ClientCountry", **options)
    assert len(want.per_input) == 2
    same(escpush.spark.scan(spark, pattern, F, group_by="ClientCountry", **options), want)


def test_nothing_listed_is_an_empty_result_of_the_same_shape(spark: Any, tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    want = F.scan(tmp_path / "empty", group_by="ClientCountry", every=3600)
    same(escpush.spark.scan(spark, tmp_path / "empty", F, group_by="ClientCountry", every=3600), want)


def test_arguments_are_checked_on_the_driver(spark: Any, tmp_path: Path) -> None:
    with pytest.raises(escpush.InvalidInput, match="top bounds the groups"):
        escpush.spark.scan(spark, tmp_path, F, top=3)
    with pytest.raises(escpush.InvalidInput, match="did you mean `ClientCountry`"):
        escpush.spark.scan(spark, tmp_path, F, group_by="ClientCountyr", dataset="http_requests")
    with pytest.raises(escpush.InvalidInput, match="standard input stays on the driver"):
        escpush.spark.scan(spark, "-", F)
    with pytest.raises(escpush.ScanError, match="matches no files"):
        escpush.spark.scan(spark, str(tmp_path / "nothing-*.gz"), F)


@pytest.fixture
def lost_after_listing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    """A mixed folder of logs, and one of its files, removed once the driver has listed it
    (before an executor reads it)."""
    root = logs(tmp_path / "logs", "mixed")
    gone = root / "20240511" / "part-4.ndjson"
    assert gone.exists()
    listed = escpush.spark._listed

    def list_then_lose(*args: Any) -> Any:
        units = listed(*args)
        gone.unlink()
        return units

    monkeypatch.setattr(escpush.spark, "_listed", list_then_lose)
    return root, gone


def test_a_file_gone_between_listing_and_reading_is_a_scan_error(
    spark: Any, lost_after_listing: tuple[Path, Path]
) -> None:
    root, gone = lost_after_listing
    with pytest.raises(escpush.ScanError, match="cannot open") as caught:
        escpush.spark.scan(spark, root, F, group_by="ClientCountry")
    assert caught.value.path == str(gone)
    assert "Py4J" not in str(caught.value) and "Traceback" not in str(caught.value)


@pytest.fixture
def python_without_escpush(spark: Any, tmp_path: Path) -> Iterator[None]:
    """The executors' Python made one without escpush: the interpreter this venv was made from
    (the same version, as Spark requires; pyspark's own modules come from Spark's PYTHONPATH),
    which has not escpush installed. Spark reads `pythonExec` when a job's function is made."""
    base = str(Path(sys.base_prefix) / "bin" / f"python{sys.version_info[0]}.{sys.version_info[1]}")
    lacks = subprocess.run([base, "-c", "import escpush"], capture_output=True, check=False).returncode != 0
    if sys.prefix == sys.base_prefix or not lacks:
        pytest.fail(f"the tests run in a virtualenv (make develop) whose base Python ({base}) has no escpush")
    context = spark.sparkContext
    before = context.pythonExec
    context.pythonExec = base
    try:
        yield
    finally:
        context.pythonExec = before


def test_an_executor_without_escpush_is_a_clear_error(spark: Any, tmp_path: Path, python_without_escpush: None) -> None:
    root = logs(tmp_path / "logs", "plain")
    with pytest.raises(escpush.spark.ExecutorError, match="escpush is not installed on a Spark executor") as caught:
        escpush.spark.scan(spark, root, F)
    message = str(caught.value)
    assert "No module named 'escpush'" in message and "--py-files" in message
    assert "Py4J" not in message and "Traceback" not in message


def test_select_gives_the_kept_lines_as_a_dataframe(spark: Any, tmp_path: Path) -> None:
    root = logs(tmp_path / "logs", "mixed")
    out = tmp_path / "kept.ndjson"
    want = F.select(root, out)
    kept = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert len(kept) == want.matched > 0
    df = escpush.spark.select(spark, root, F, dataset="http_requests")
    assert df.schema == escpush.spark.schema("http_requests")
    assert df.count() == want.matched
    fields = ["ClientCountry", "EdgeResponseStatus", "EdgeResponseBytes"]
    df = escpush.spark.select(spark, root, F, dataset="http_requests", fields=fields, partitions=3)
    assert df.columns == fields
    rows = sorted((tuple(r) for r in df.collect()), key=repr)
    assert rows == sorted((tuple(r.get(name) for name in fields) for r in kept), key=repr)
    # The same rows as Spark's own reader and the filter's Spark SQL (a glob: Spark's reader
    # does not go into the folders of a folder).
    spark_rows = escpush.spark.filter_dataframe(
        escpush.spark.read_logpush(spark, str(root / "*" / "*"), "http_requests"), F, "http_requests"
    )
    assert rows == sorted((tuple(r) for r in spark_rows.select(*fields).collect()), key=repr)
    with pytest.raises(escpush.InvalidInput, match="not fields of http_requests: ClientCountyr"):
        escpush.spark.select(spark, root, F, dataset="http_requests", fields=["ClientCountyr"])


def test_select_reads_a_value_of_another_type_as_spark_does(spark: Any, tmp_path: Path) -> None:
    rows = [
        {"EdgeResponseStatus": 500, "ClientCountry": "us", "EdgeResponseBytes": 10},
        {"EdgeResponseStatus": 501, "ClientCountry": 7, "EdgeResponseBytes": "many"},
    ]
    (tmp_path / "a.ndjson").write_text(text(rows), encoding="utf-8")
    fields = ["EdgeResponseStatus", "ClientCountry", "EdgeResponseBytes"]
    got = escpush.spark.select(spark, tmp_path, F, dataset="http_requests", fields=fields).collect()
    spark_rows = escpush.spark.filter_dataframe(
        escpush.spark.read_logpush(spark, str(tmp_path), "http_requests"), F, "http_requests"
    )
    want = spark_rows.select(*fields).collect()
    assert len(want) == 2
    assert sorted((tuple(r) for r in got), key=repr) == sorted((tuple(r) for r in want), key=repr)


def test_select_raises_an_executor_error_through_collect_errors(
    spark: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = logs(tmp_path / "logs", "plain")
    gone = root / "part-3.ndjson"
    df = escpush.spark.select(spark, root, F, dataset="http_requests")
    gone.unlink()
    with pytest.raises(escpush.ScanError, match="cannot open") as caught:
        escpush.spark.collect_errors(df.count)
    assert caught.value.path == str(gone)


def test_read_logpush_reads_the_folders_of_a_folder_as_filter_scan_does(spark: Any, tmp_path: Path) -> None:
    """A log-push destination is a folder of date folders (`20240510/...`): Spark's reader
    alone reads the files of the folder named, none below, and counted nothing here."""
    root = logs(tmp_path / "logs", "mixed")
    want = F.scan(root)
    df = escpush.spark.read_logpush(spark, str(root), "http_requests")
    # Every line (Spark's reader counts a malformed line as a row, blank lines not).
    assert df.count() == want.total
    assert escpush.spark.filter_dataframe(df, F, "http_requests").count() == want.matched


def test_select_shares_a_large_plain_file_by_byte_ranges(
    spark: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Executors each read the lines that start in their byte range of a large plain file:
    every line once, lines across a range's end whole (here "large" is 2 kB)."""
    root = logs(tmp_path / "logs", "mixed")
    monkeypatch.setattr(escpush.spark, "_RANGE_BYTES", 2000)
    listed = escpush.spark._listed(root, None, None)
    cut = escpush.spark._cut(listed, 7)
    assert len([u for u in cut if u[3] is not None]) > len(listed)  # plain files cut, gzip whole
    assert all(u[3] is None for u in cut if str(u[0]).endswith(".gz"))
    out = tmp_path / "kept.ndjson"
    want = F.select(root, out)
    kept = sorted(out.read_text(encoding="utf-8").splitlines())
    fields = ["ClientCountry", "EdgeResponseStatus", "EdgeResponseBytes", "EdgeStartTimestamp"]
    for partitions in (1, 3, 7):
        df = escpush.spark.select(spark, root, F, dataset="http_requests", fields=fields, partitions=partitions)
        rows = sorted((tuple(r) for r in df.collect()), key=repr)
        assert len(rows) == want.matched
        assert rows == sorted((tuple(json.loads(line).get(n) for n in fields) for line in kept), key=repr)


@pytest.mark.parametrize(
    ("sizes", "n"),
    [([500, 501], 2), ([333, 333, 334], 3), ([100] * 6, 2), ([1, 1, 1, 1000], 2), ([5, 5, 5, 5, 5], 4)],
)
def test_inputs_are_shared_as_evenly_as_their_sizes_allow(sizes: list[int], n: int) -> None:
    """The byte ranges a file is cut into (`_cut`: sizes that differ by a byte when its size
    does not divide) go to as many partitions: a file of an odd size cut in two was read by
    one executor, the other idle."""
    units = [(f"u{i}", False, size) for i, size in enumerate(sizes)]
    shares = escpush.spark._shares(units, n)
    assert [u[0] for share in shares for u in share] == [u[0] for u in units]  # input order, each once
    assert len(shares) == min(n, len(units))
    total = sum(sizes)
    # No share past its part of the bytes by more than one of its inputs.
    for share in shares:
        held = [sizes[int(u[0][1:])] for u in share]
        assert sum(held) <= total / n + max(held)


# Lines `select` keeps (EdgeResponseStatus 500) holding every kind of value in every kind of
# column: a wrong type, an object or a list into a string column, integers beyond 64 bits, a
# float into an integer column, nulls, missing members, a member named twice, escapes.
PERMISSIVE = [
    '{"EdgeResponseStatus":500,"ClientCountry":"us","EdgeResponseBytes":10,"EdgeResponseCompressionRatio":1.5,'
    '"CacheTieredFill":true,"BotTags":["a","b"],"BotDetectionIDs":[1,2],"Cookies":{"a":"b"},'
    '"EdgeStartTimestamp":"2024-05-14T00:00:00Z"}',
    '{"EdgeResponseStatus":500,"ClientCountry":7,"EdgeResponseBytes":"many","EdgeResponseCompressionRatio":"x",'
    '"CacheTieredFill":1,"BotTags":"a","BotDetectionIDs":[1,"x",2.5,null],"EdgeStartTimestamp":1715644800}',
    '{"EdgeResponseStatus":500,"ClientCountry":{"k":[1,true,null,"v"],"a":{"b":2}},"Cookies":{"z":1,"a":[2]},'
    '"BotTags":["x",{"y":1},3,null,true],"ClientRequestHost":[1,2],"ClientRequestPath":true,'
    '"EdgeResponseCompressionRatio":3}',
    '{"EdgeResponseStatus":500,"EdgeResponseBytes":9223372036854775808,"BotDetectionIDs":[9223372036854775807,'
    '-9223372036854775809],"ClientCountry":1.50,"ClientRequestHost":1e3,"CacheTieredFill":"true"}',
    '{"EdgeResponseStatus":500,"EdgeResponseBytes":-9223372036854775808,"ClientCountry":-12,"BotTags":[]}',
    '{"EdgeResponseStatus":500,"EdgeResponseBytes":200.0,"ClientRequestHost":{"s":"caf\\u00e9\\t\\"q\\""}}',
    '{"EdgeResponseStatus":500,"ClientCountry":null,"EdgeResponseBytes":null,"EdgeResponseCompressionRatio":null,'
    '"CacheTieredFill":null,"BotTags":null,"BotDetectionIDs":null,"Cookies":null}',
    '{"EdgeResponseStatus":500}',
    '{"EdgeResponseStatus":500,"ClientCountry":"a","ClientCountry":"b","EdgeResponseBytes":1,"EdgeResponseBytes":2}',
    '{"EdgeResponseStatus":500,"ClientCountry":"caf\\u00e9 \\ud83d\\ude00","ClientRequestHost":"\\u0000"}',
    '{"EdgeResponseStatus":200,"ClientCountry":"dropped"}',
]
PERMISSIVE_FIELDS = [
    "ClientCountry",
    "EdgeResponseBytes",
    "EdgeResponseCompressionRatio",
    "CacheTieredFill",
    "BotTags",
    "BotDetectionIDs",
    "Cookies",
    "EdgeStartTimestamp",
    "ClientRequestHost",
    "ClientRequestPath",
]


@pytest.mark.parametrize("fields", [PERMISSIVE_FIELDS, None], ids=["fields", "every column"])
def test_select_reads_every_kind_of_value_as_sparks_reader_does(
    spark: Any, tmp_path: Path, fields: list[str] | None
) -> None:
    """The executors build the batches natively: every column type (string, int64, float64,
    bool, list<string>, list<int64>) and every value that is not of its column's type read
    as Spark's own reader reads them, with the fields asked or every column."""
    (tmp_path / "a.ndjson").write_text("".join(line + "\n" for line in PERMISSIVE), encoding="utf-8")
    df = escpush.spark.select(spark, tmp_path, F, dataset="http_requests", fields=fields)
    names = fields or escpush.spark.schema("http_requests").names
    assert df.columns == names
    theirs = escpush.spark.filter_dataframe(
        escpush.spark.read_logpush(spark, str(tmp_path), "http_requests"), F, "http_requests"
    ).select(*names)
    assert df.schema == theirs.schema
    got = sorted((tuple(r) for r in df.collect()), key=repr)
    want = sorted((tuple(r) for r in theirs.collect()), key=repr)
    assert len(got) == len(PERMISSIVE) - 1
    assert got == want
    # And as the docstring says, spelled out.
    rows = {json.dumps(r.asDict(), sort_keys=True) for r in df.select(*PERMISSIVE_FIELDS).collect()}
    row = dict.fromkeys(PERMISSIVE_FIELDS)
    # A list of integers with an element of another type is null whole, as in Spark's reader.
    assert json.dumps({**row, "ClientCountry": "7", "EdgeStartTimestamp": "1715644800"}, sort_keys=True) in rows
    nested = {"ClientCountry": '{"k":[1,true,null,"v"],"a":{"b":2}}', "Cookies": '{"z":1,"a":[2]}'}
    nested |= {"BotTags": ["x", '{"y":1}', "3", None, "true"], "ClientRequestHost": "[1,2]"}
    nested |= {"ClientRequestPath": "true", "EdgeResponseCompressionRatio": 3.0}
    assert json.dumps({**row, **nested}, sort_keys=True) in rows
    wide = {"ClientCountry": "1.50", "ClientRequestHost": "1e3"}  # numbers in a string column: as written
    assert json.dumps({**row, **wide}, sort_keys=True) in rows
    assert json.dumps({**row, "ClientCountry": "b", "EdgeResponseBytes": 2}, sort_keys=True) in rows
    smallest = {"EdgeResponseBytes": -(2**63), "ClientCountry": "-12", "BotTags": []}
    assert json.dumps({**row, **smallest}, sort_keys=True) in rows
    assert json.dumps(row, sort_keys=True) in rows  # nulls and missing members alike


def test_strict_raises_the_first_malformed_line_in_input_order(spark: Any, tmp_path: Path) -> None:
    """The first malformed line in input order, as `Filter.scan(strict=True)` raises it, not
    the one of whichever executor failed first: here the second share's, at the start of a
    small file, would fail long before the first share reaches its own, at the end of a large
    one."""
    root = tmp_path / "logs"
    root.mkdir()
    body = text(records(2000, 1))
    (root / "a.ndjson").write_text(body * 40 + "not json\n", encoding="utf-8")
    (root / "b.ndjson").write_text("[1]\n" + text(records(10, 2)), encoding="utf-8")
    with pytest.raises(escpush.ScanError) as one:
        F.scan(root, strict=True)
    assert one.value.path == str(root / "a.ndjson")
    for partitions in (2, 1):
        with pytest.raises(escpush.ScanError) as caught:
            escpush.spark.scan(spark, root, F, strict=True, partitions=partitions)
        assert str(caught.value).split("; counts so far")[0] == str(one.value).split("; counts so far")[0]
        assert (caught.value.path, caught.value.line) == (one.value.path, one.value.line)
        assert caught.value.partial is not None and caught.value.partial.malformed == 2
    # Without strict, the same line is the first malformed one.
    assert escpush.spark.scan(spark, root, F, partitions=2).first_malformed == F.scan(root).first_malformed
