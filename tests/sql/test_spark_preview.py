"""A job's preview on Spark (`escpush.spark.preview`, on local[2]): the lines read, malformed,
kept and delivered, the bytes read and delivered, the times, the per-input counts and the
breakdowns of one machine's `preview_job` of the same inputs, and the same `.cost()`, on plain,
gzip and mixed folders with malformed lines and empty files, a large plain file shared by
byte ranges, a job with a filter, `field_names`, framing, `sample_rate` < 1 and small batches (by time);
the batches within their documented bound; bad jobs and arguments raise before a Spark job
starts, an input gone between the listing and its reading raises `ScanError` naming it.

The Spark session is the shared one of tests/sql/conftest.py; the folders are
test_spark_scan.py's."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import escpush
import escpush.spark
from escpush import field
from test_spark_scan import logs, lost_after_listing, python_without_escpush, records, text

# The fixtures, for the tests that take them by name.
__all__ = ["lost_after_listing", "python_without_escpush"]

FILTER = field("EdgeResponseStatus").ge(500) | field("ClientRequestHost").eq("h1.example.com")
FIELDS = ["ClientCountry", "EdgeResponseStatus", "EdgeStartTimestamp", "EdgeResponseBytes"]

# ndjson's framing (no batch prefix, suffix or delimiter): the bytes delivered are exact.
JOB: dict[str, Any] = {
    "name": "errors",
    "dataset": "http_requests",
    "destination_conf": "r2://bucket/logs?account-id=A&access-key-id=K&secret-access-key=S3CRET",
    "filter": FILTER.to_json(),
    "output_options": {"field_names": FIELDS, "sample_rate": 0.5, "timestamp_format": "rfc3339"},
    # The lines' times are hours apart, seldom in order: batches of a few records, each
    # ended by the next record 30 seconds or more past its first.
    "max_upload_interval_seconds": 30,
}

# Framing on every batch: each batch more adds len("[") + len("]\n") - len(",") bytes.
FRAMED: dict[str, Any] = {
    **JOB,
    "output_options": {
        "field_names": FIELDS,
        "sample_rate": 0.5,
        "batch_prefix": "[",
        "batch_suffix": "]\n",
        "record_delimiter": ",",
        "record_prefix": "{",
        "record_suffix": "}",
    },
}
PER_BATCH = {id(JOB): 0, id(FRAMED): 2}

BREAKDOWN: dict[str, Any] = {"group_by": ["ClientCountry", "EdgeResponseStatus"], "every": "1h"}


def agree(got: escpush.PreviewResult, want: escpush.PreviewResult, shares: int, per_batch: int) -> int:
    """`got` is `want` field by field, but for the batches: at most `shares - 1` more, never
    fewer, and `per_batch` delivered bytes each. Gives how many more batches."""
    assert type(got) is type(want)
    g, w = got.to_dict(), want.to_dict()
    for d in (g, w):
        d.pop("seconds")
        d.pop("summary")
    more = g["batches"] - w["batches"]
    assert 0 <= more <= max(shares - 1, 0), (g["batches"], w["batches"], shares)
    assert g["delivered_bytes"] - w["delivered_bytes"] == more * per_batch
    # Per input, the batches and their bytes follow the executors' batches: they add up.
    for d in (g, w):
        assert sum(i["batches"] for i in d["per_input"]) == d["batches"]
        assert sum(i["delivered_bytes"] for i in d["per_input"]) == d["delivered_bytes"]
        for item in [d, *d["per_input"]]:
            item.pop("batches")
            item.pop("delivered_bytes")
    assert g == w
    return int(more)


def same_cost(got: escpush.PreviewResult, want: escpush.PreviewResult) -> None:
    for basis in ({"requests_per_day": 5e6}, {"scale": 1000.0}, {}):
        assert got.cost(**basis).to_dict() == want.cost(**basis).to_dict()
    assert got.cost(subtract_allowance=True).to_dict() == want.cost(subtract_allowance=True).to_dict()


@pytest.mark.parametrize("kind", ["plain", "gzip", "mixed"])
def test_preview_delivers_what_preview_job_does(spark: Any, tmp_path: Path, kind: str) -> None:
    root = logs(tmp_path / kind, kind)
    want = escpush.preview_job(JOB, root)
    assert want.malformed == 6 and want.to_dict()["first_malformed"] is not None
    assert 0 < want.delivered < want.kept < want.lines and len(want.per_input) == 6
    got = escpush.spark.preview(spark, root, JOB)
    agree(got, want, spark.sparkContext.defaultParallelism, 0)
    assert got.delivered_bytes == want.delivered_bytes
    same_cost(got, want)
    assert got.dataset == "http_requests" and got.destination_class == "internal"
    assert got.compressed_bytes is None and got.out is None and got.files == []
    more = 0
    for job in (JOB, FRAMED):
        for partitions in (1, 2, 4, 50):
            for seed in (None, 7):
                want = escpush.preview_job(job, root, seed=seed, **BREAKDOWN)
                assert want.breakdown is not None and want.breakdown["no_time"]["lines"] > 0
                got = escpush.spark.preview(spark, str(root), job, seed=seed, partitions=partitions, **BREAKDOWN)
                more += agree(got, want, partitions, PER_BATCH[id(job)])
                if job is JOB:
                    same_cost(got, want)
    assert more > 0  # some batch held across a share's end: the bound was put to the test


def test_a_job_given_as_a_job_and_a_scope(spark: Any, tmp_path: Path) -> None:
    root = logs(tmp_path / "logs", "mixed")
    job = escpush.Job(JOB)
    want = escpush.preview_job(job, root, scope="zone")
    got = escpush.spark.preview(spark, [root], job, scope="zone", partitions=3)
    agree(got, want, 3, 0)
    same_cost(got, want)


def test_preview_shares_a_large_plain_file_by_byte_ranges(
    spark: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A file cut into byte ranges (here "large" is 2 kB) is one input: its counts those of
    the whole file, its first malformed line numbered in the file, each line sampled as one
    machine samples it."""
    root = logs(tmp_path / "logs", "plain")
    big = root / "part-7.ndjson"
    big.write_text(text(records(900, 7), bad=True) + "\n\n" + text(records(50, 8), bad=True), encoding="utf-8")
    monkeypatch.setattr(escpush.spark, "_RANGE_BYTES", 2000)
    cut = escpush.spark._cut(escpush.spark._listed(root, None, None), 7)
    assert len([u for u in cut if u[3] is not None and u[3][0] > 0]) > 6
    for job in (JOB, FRAMED):
        want = escpush.preview_job(job, root, **BREAKDOWN)
        first = want.to_dict()["first_malformed"]
        assert first["source"] == str(root / "part-2.ndjson") and first["line"] > 20
        for partitions in (2, 3, 7):
            got = escpush.spark.preview(spark, root, job, partitions=partitions, **BREAKDOWN)
            agree(got, want, partitions, PER_BATCH[id(job)])
            assert len(got.per_input) == 7
    # The first malformed line is in a later range of the big file when it is the only one.
    for name in ("part-0.ndjson", "part-1.ndjson", "part-2.ndjson", "part-3.ndjson", "part-4.ndjson", "part-5.ndjson"):
        (root / name).unlink()
    want = escpush.preview_job(JOB, big)
    assert want.to_dict()["first_malformed"]["line"] > 400
    agree(escpush.spark.preview(spark, big, JOB, partitions=7), want, 7, 0)


def test_strict_raises_the_first_malformed_line_as_one_machine_does(
    spark: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = logs(tmp_path / "logs", "mixed")
    monkeypatch.setattr(escpush.spark, "_RANGE_BYTES", 2000)
    with pytest.raises(escpush.ScanError) as one:
        escpush.preview_job(JOB, root, strict=True)
    for partitions in (1, 3):
        with pytest.raises(escpush.ScanError) as caught:
            escpush.spark.preview(spark, root, JOB, strict=True, partitions=partitions)
        assert str(caught.value) == str(one.value)
        assert (caught.value.path, caught.value.line) == (one.value.path, one.value.line)
    clean = tmp_path / "clean"
    clean.mkdir()
    (clean / "a.ndjson").write_text(text(records(200, 1)), encoding="utf-8")
    agree(escpush.spark.preview(spark, clean, JOB, strict=True), escpush.preview_job(JOB, clean, strict=True), 2, 0)


def test_nothing_listed_is_an_empty_preview_of_the_same_shape(spark: Any, tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    want = escpush.preview_job(JOB, tmp_path / "empty", **BREAKDOWN)
    agree(escpush.spark.preview(spark, tmp_path / "empty", JOB, **BREAKDOWN), want, 1, 0)


def test_bad_jobs_and_arguments_raise_before_a_spark_job_starts(
    spark: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = logs(tmp_path / "logs", "plain")

    def no_job(*args: Any) -> Any:
        raise AssertionError("a Spark job started")

    monkeypatch.setattr(escpush.spark, "_task", no_job)
    cases: list[tuple[dict[str, Any], dict[str, Any], type[Exception], str]] = [
        ({**JOB, "dataset": "http_requestz"}, {}, escpush.InvalidInput, "http_requests"),
        ({**JOB, "output_options": {"field_names": ["ClientCountyr"]}}, {}, escpush.InvalidInput, "ClientCountyr"),
        ({**JOB, "output_options": {"field_names": FIELDS, "sample_rate": 2}}, {}, escpush.InvalidInput, "sample_rate"),
        ({**JOB, "filter": '{"where":{"key":"Nope","operator":"eq","value":1}}'}, {}, escpush.EscpushError, "Nope"),
        (JOB, {"group_by": "ClientCountyr"}, escpush.InvalidInput, "did you mean `ClientCountry`"),
        (JOB, {"seed": -1}, escpush.InvalidInput, "seed"),
        (JOB, {"threads": -1}, escpush.InvalidInput, "threads"),
        (JOB, {"scope": "planet"}, escpush.InvalidInput, "planet"),
    ]
    for job, options, error, match in cases:
        with pytest.raises(error, match=match) as caught:
            escpush.spark.preview(spark, root, job, **options)
        assert "S3CRET" not in str(caught.value)
    with pytest.raises(escpush.InvalidInput, match="standard input stays on the driver"):
        escpush.spark.preview(spark, "-", JOB)
    with pytest.raises(TypeError, match="job is a dict"):
        escpush.spark.preview(spark, root, ["dataset", "http_requests"])  # type: ignore[arg-type]


def test_the_executors_get_no_credential_of_the_job() -> None:
    shipped = escpush._escpush._spark_preview_job(JOB)
    assert "S3CRET" not in shipped and "destination_conf" not in shipped
    assert escpush._escpush._spark_preview_job(escpush.Job(JOB)) == shipped


def test_a_file_gone_between_listing_and_reading_is_a_scan_error(
    spark: Any, lost_after_listing: tuple[Path, Path]
) -> None:
    root, gone = lost_after_listing
    with pytest.raises(escpush.ScanError, match="cannot open") as caught:
        escpush.spark.preview(spark, root, JOB, group_by="ClientCountry")
    assert caught.value.path == str(gone)
    assert "Py4J" not in str(caught.value) and "Traceback" not in str(caught.value)


def test_an_executor_without_escpush_is_a_clear_error(spark: Any, tmp_path: Path, python_without_escpush: None) -> None:
    root = logs(tmp_path / "logs", "plain")
    with pytest.raises(escpush.spark.ExecutorError, match="escpush is not installed on a Spark executor"):
        escpush.spark.preview(spark, root, JOB)


def test_executor_error_is_one_of_the_errors() -> None:
    """`ExecutorError` lives with the other exceptions (`escpush.errors`, and `escpush`), the
    same class as `escpush.spark.ExecutorError`."""
    assert escpush.spark.ExecutorError is escpush.errors.ExecutorError is escpush.ExecutorError
    assert issubclass(escpush.ExecutorError, escpush.EscpushError)
    assert "ExecutorError" in escpush.errors.__all__ and "ExecutorError" in escpush.__all__
