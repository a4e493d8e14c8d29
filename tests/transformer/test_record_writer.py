"""The writer of a local run's records (`escpush._escpush._RecordWriter`): Arrow batches, as
DataFusion gives them, written as NDJSON by core's value rules (members sorted, times RFC
3339 UTC, an integral float as an integer, nulls kept), for every Arrow type it takes, sliced
batches included; a type it does not take is a clear error naming the column."""

from __future__ import annotations

import datetime as dt
import decimal
import json
from pathlib import Path
from typing import Any

import pytest

from engines import need
from escpush import _escpush


def _ipc(table: Any) -> bytes:
    pa = need("pyarrow")
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, table.schema) as out:
        for batch in table.to_batches():
            out.write_batch(batch)
    return sink.getvalue().to_pybytes()


def _written(tmp: Path, *tables: Any) -> list[str]:
    path = tmp / "records.ndjson"
    writer = _escpush._RecordWriter(path)
    for table in tables:
        writer.write(_ipc(table))
    assert writer.close() == sum(t.num_rows for t in tables)
    return path.read_text(encoding="utf-8").splitlines()


def test_every_type_is_written_as_core_writes_values(tmp_path: Path) -> None:
    pa = need("pyarrow")
    utc = dt.timezone.utc
    table = pa.table(
        {
            "z_str": pa.array(['a"b\\c\n\u00e9', None], pa.string()),
            "view": pa.array(["v", "w"], pa.string_view()),
            "large": pa.array(["l", None], pa.large_string()),
            "i8": pa.array([-1, None], pa.int8()),
            "u64": pa.array([2**64 - 1, 0], pa.uint64()),
            "f64": pa.array([1779375600.0, 0.1], pa.float64()),
            "f32": pa.array([1.5, float("nan")], pa.float32()),
            "b": pa.array([True, None]),
            "t_ns": pa.array([dt.datetime(2026, 5, 21, 15, 0, 0, 500000), None], pa.timestamp("ns")),
            "t_s_tz": pa.array([dt.datetime(2026, 5, 21, 15, tzinfo=utc), None], pa.timestamp("s", tz="+02:00")),
            "t_us": pa.array([dt.datetime(1969, 12, 31, 23, 59, 59, 999999), None], pa.timestamp("us")),
            "d32": pa.array([dt.date(2026, 5, 21), None], pa.date32()),
            "dec": pa.array([decimal.Decimal("12.50"), decimal.Decimal("3.00")], pa.decimal128(6, 2)),
            "list": pa.array([[1, None, 3], None], pa.list_(pa.int64())),
            "large_list": pa.array([["x"], []], pa.large_list(pa.string())),
            "fixed": pa.array([[1, 2], [3, 4]], pa.list_(pa.int32(), 2)),
            "s": pa.array(
                [{"y": 1, "a": {"q": None, "p": "x"}}, None],
                pa.struct([("y", pa.int64()), ("a", pa.struct([("q", pa.string()), ("p", pa.string())]))]),
            ),
            "n": pa.nulls(2),
        }
    )
    first, second = (json.loads(line) for line in _written(tmp_path, table))
    assert list(first) == sorted(first)
    assert first == {
        "b": True,
        "d32": "2026-05-21",
        "dec": 12.5,
        "f32": 1.5,
        "f64": 1779375600,
        "fixed": [1, 2],
        "i8": -1,
        "large": "l",
        "large_list": ["x"],
        "list": [1, None, 3],
        "n": None,
        "s": {"a": {"p": "x", "q": None}, "y": 1},
        "t_ns": "2026-05-21T15:00:00.5Z",
        "t_s_tz": "2026-05-21T15:00:00Z",
        "t_us": "1969-12-31T23:59:59.999999Z",
        "u64": 2**64 - 1,
        "view": "v",
        "z_str": 'a"b\\c\n\u00e9',
    }
    assert isinstance(first["f64"], int) and list(first["s"]) == ["a", "y"]
    assert second == {
        "b": None,
        "d32": None,
        "dec": 3,
        "f32": None,
        "f64": 0.1,
        "fixed": [3, 4],
        "i8": None,
        "large": None,
        "large_list": [],
        "list": None,
        "n": None,
        "s": None,
        "t_ns": None,
        "t_s_tz": None,
        "t_us": None,
        "u64": 0,
        "view": "w",
        "z_str": None,
    }


def test_sliced_batches_write_their_own_rows(tmp_path: Path) -> None:
    pa = need("pyarrow")
    table = pa.table(
        {
            "id": pa.array(range(10)),
            "items": pa.array([[i] * (i % 3) for i in range(10)], pa.list_(pa.int64())),
            "pair": pa.array([[i, -i] for i in range(10)], pa.list_(pa.int64(), 2)),
            "s": pa.array([{"k": str(i)} for i in range(10)]),
        }
    )
    lines = _written(tmp_path, table.slice(3, 4), table.slice(8))
    got = [json.loads(line) for line in lines]
    assert [r["id"] for r in got] == [3, 4, 5, 6, 8, 9]
    assert all(r["items"] == [r["id"]] * (r["id"] % 3) for r in got)
    assert all(r["pair"] == [r["id"], -r["id"]] and r["s"] == {"k": str(r["id"])} for r in got)


def test_a_type_it_does_not_write_names_its_column_and_writes_nothing_of_it(tmp_path: Path) -> None:
    pa = need("pyarrow")
    table = pa.table({"ok": [1], "blob": pa.array([b"\x00"], pa.binary())})
    writer = _escpush._RecordWriter(tmp_path / "r.ndjson")
    with pytest.raises(ValueError, match="column `blob` holds Arrow type Binary"):
        writer.write(_ipc(table))
    assert writer.close() == 0 and (tmp_path / "r.ndjson").read_text() == ""
    with pytest.raises(ValueError, match="not an Arrow IPC stream"):
        _escpush._RecordWriter(tmp_path / "x.ndjson").write(b"not arrow")
