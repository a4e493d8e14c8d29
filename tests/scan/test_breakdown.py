"""Breakdowns of a scan by group and by time bucket: they agree with Filter.matches on the
records json.loads makes of the lines (missing, null, arrays, objects, non-string values,
every log-push timestamp format), with DuckDB's GROUP BY of the SQL escpush prints, and they
lose no line (top N with "other", a bounded table of groups, lines without a readable time)."""

from __future__ import annotations

import datetime
import json
import random
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import escpush
from engines import need
from escpush import Filter, InvalidInput, field
from strategies import FILTERS, RECORDS

MISSING = object()
HOUR = 3600


def tagged(value: Any) -> tuple[str, Any]:
    """A value as a group key, by the documented rule: types apart (200, 200.0, "200" and
    True are four groups), floats by value (-0.0 is 0.0), arrays and objects by compact JSON."""
    if value is MISSING:
        return ("missing", None)
    if value is None:
        return ("null", None)
    if isinstance(value, bool):
        return ("bool", value)
    if isinstance(value, int):
        return ("int", value)
    if isinstance(value, float):
        return ("float", value + 0.0)
    if isinstance(value, str):
        return ("str", value)
    return (type(value).__name__, json.dumps(value, separators=(",", ":"), ensure_ascii=False))


# 0001-01-01T00:00:00Z and 9999-12-31T23:59:59Z: times outside RFC 3339's four-digit years are unreadable.
FIRST_SECOND, LAST_SECOND = -62_135_596_800, 253_402_300_799


def seconds_of(value: Any) -> int | str:
    """The bucket reading of a time value: unix seconds, or "no time" / "unreadable"."""
    if value is MISSING or value is None:
        return "no time"
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        return "unreadable"
    if isinstance(value, int):
        unit = 1 if abs(value) < 10**11 else 10**3 if abs(value) < 10**14 else 10**6 if abs(value) < 10**17 else 10**9
        seconds = value // unit
    else:
        try:
            parsed = datetime.datetime.fromisoformat(value.replace("Z", "+00:00").replace("z", "+00:00"))
        except ValueError:
            return "unreadable"
        if parsed.tzinfo is None:
            return "unreadable"
        seconds = (parsed - datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)) // datetime.timedelta(
            seconds=1
        )
    return seconds if FIRST_SECOND <= seconds <= LAST_SECOND else "unreadable"


def reference(f: Filter, lines: list[str], group_by: list[str], time_field: str | None, every: int) -> dict[str, Any]:
    """The breakdown computed line by line with json.loads and Filter.matches."""
    groups: Counter[tuple[Any, ...]] = Counter()
    kept: Counter[tuple[Any, ...]] = Counter()
    buckets: Counter[Any] = Counter()
    bucket_kept: Counter[Any] = Counter()
    for line in lines:
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if not isinstance(record, dict):
            continue
        matched = f.matches(record)
        key = tuple(tagged(record.get(name, MISSING)) for name in group_by)
        groups[key] += 1
        kept[key] += matched
        if time_field is not None:
            at = seconds_of(record.get(time_field, MISSING))
            bucket = at if isinstance(at, str) else at // every * every
            buckets[bucket] += 1
            bucket_kept[bucket] += matched
    return {
        "groups": {k: (groups[k], kept[k]) for k in groups},
        "buckets": {k: (buckets[k], bucket_kept[k]) for k in buckets},
    }


def observed(result: escpush.ScanResult, group_by: list[str]) -> dict[str, Any]:
    b = result.breakdown
    assert b is not None
    groups = {
        tuple(tagged(g["key"].get(name, MISSING)) for name in group_by): (g["lines"], g["matched"]) for g in b["groups"]
    }
    buckets: dict[Any, tuple[int, int]] = {}
    for row in b["buckets"]:
        start = datetime.datetime.strptime(row["start"], "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=datetime.timezone.utc)
        buckets[int(start.timestamp())] = (row["lines"], row["matched"])
    for name, label in (("no_time", "no time"), ("unreadable_time", "unreadable")):
        if b[name]["lines"]:
            buckets[label] = (b[name]["lines"], b[name]["matched"])
    return {"groups": groups, "buckets": buckets}


T = 1795305630  # 2026-11-22T00:00:30Z
TIMES: list[Any] = [
    T,  # unix
    T * 10**9 + 123_456_789,  # unixnano
    "2026-11-22T01:00:30Z",  # rfc3339
    "2026-11-22T02:00:30.123Z",  # rfc3339ms
    "2026-11-22T03:00:30.123456789Z",  # rfc3339ns
    "2026-11-22T04:00:30+01:00",
    (T + 5 * HOUR) * 1000,  # milliseconds
    None,
    MISSING,
    "yesterday",
    1.5,
    [T],
    "2026-02-30T00:00:00Z",
]
VALUES: list[Any] = [
    "cn",
    "us",
    "",
    "c\u00e9",
    200,
    200.0,
    "200",
    -0.0,
    0,
    True,
    False,
    None,
    MISSING,
    ["a", "b"],
    [],
    {"k": 1},
    10**30,
    1e300,
]


def kinds_lines(n: int, seed: int = 7) -> list[str]:
    rng = random.Random(seed)
    lines = []
    for i in range(n):
        record: dict[str, Any] = {}
        for name, pool in (("Country", VALUES), ("Status", [200, 404, 500, 503, "500", None, MISSING])):
            value = rng.choice(pool)
            if value is not MISSING:
                record[name] = value
        when = rng.choice(TIMES)
        if when is not MISSING:
            record["T"] = when
        text = json.dumps(record, ensure_ascii=rng.random() < 0.5)
        if i % 97 == 0:
            text = text.replace('"Country"', '"Co\\u0075ntry"')  # escaped keys are the same field
        lines.append(text)
        if i % 250 == 0:
            lines.append('{"Status": 500,')  # malformed: in no group
    return lines


FILTER = (field("Status") >= 500) | field("Country").is_in(["cn", "200"])


def test_breakdowns_agree_with_matches_on_every_kind_of_value_and_time(tmp_path: Path) -> None:
    lines = kinds_lines(4000)
    logs = tmp_path / "kinds.ndjson"
    logs.write_text("\n".join(lines) + "\n", encoding="utf-8")
    for every, label in ((HOUR, "1h"), (60, 60), (86_400, datetime.timedelta(days=1))):
        result = FILTER.scan(logs, group_by=["Country", "Status"], every=label, time_field="T")
        assert observed(result, ["Country", "Status"]) == reference(FILTER, lines, ["Country", "Status"], "T", every)
        assert result.malformed == 16
    # Every timestamp format met lands in its hour: one bucket per format (unix and
    # unixnano in the first, the offset form in 03:00), the rest counted apart.
    starts = [b["start"][11:13] for b in result.buckets or []]
    assert starts == ["00"]  # daily buckets: one
    hourly = FILTER.scan(logs, every="1h", time_field="T").buckets or []
    assert [b["start"][11:13] for b in hourly] == ["00", "01", "02", "03", "05"]


def test_times_outside_years_1_to_9999_are_unreadable_and_the_tables_still_build(tmp_path: Path) -> None:
    """Found by the property test: a time before year 1 made a bucket `0000-12-31T23:00:00Z`,
    which RFC 3339 cannot write and Python's datetime cannot read."""
    logs = tmp_path / "far.ndjson"
    values = [
        -62135596800000001,
        "0000-12-31T23:00:00Z",
        "9999-12-31T23:30:00-01:00",
        -62135596800,
        LAST_SECOND * 10**9,
    ]
    logs.write_text("".join(json.dumps({"T": v, "EdgeResponseStatus": 500}) + "\n" for v in values))
    result = FILTER.scan(logs, every=HOUR, time_field="T")
    b = result.breakdown
    assert b is not None and b["unreadable_time"]["lines"] == 3
    assert [x["start"] for x in b["buckets"]] == ["0001-01-01T00:00:00Z", "9999-12-31T23:00:00Z"]
    assert seconds_of(values[0]) == seconds_of(values[1]) == seconds_of(values[2]) == "unreadable"


@pytest.mark.parametrize(
    ("times", "every", "bounds"),
    [
        # The last hour a time can name: the bucket's end is clipped to its last second.
        (["9999-12-31T23:59:59Z"], HOUR, [("9999-12-31T23:00:00Z", "9999-12-31T23:59:59Z")]),
        # A week holding 0001-01-01 starts before it (weeks count from 1970): clipped to it.
        (["0001-01-01T00:00:00Z"], 604_800, [("0001-01-01T00:00:00Z", "0001-01-04T00:00:00Z")]),
        # Buckets of 1e9 seconds, near both ends.
        (
            ["0001-01-01T00:00:00Z", "9999-12-31T23:59:59Z"],
            10**9,
            [("0001-01-01T00:00:00Z", "0005-04-19T09:46:40Z"), ("9987-04-02T17:46:40Z", "9999-12-31T23:59:59Z")],
        ),
    ],
)
def test_buckets_reaching_outside_years_1_to_9999_are_clipped_and_every_table_builds(
    tmp_path: Path, times: list[str], every: int, bounds: list[tuple[str, str]]
) -> None:
    """Issue 33, item 16: a bucket reaching past 9999 (or before year 1) gave an end (a start)
    no ``datetime`` reads, and ``to_pandas("buckets")`` / ``to_polars`` raised."""
    logs = tmp_path / "edge.ndjson"
    logs.write_text("".join(json.dumps({"T": t, "EdgeResponseStatus": 500}) + "\n" for t in times))
    result = FILTER.scan(logs, every=every, time_field="T")
    assert [(b["start"], b["end"]) for b in result.buckets or []] == bounds
    frame = result.to_pandas("buckets")
    assert [str(t.date()) for t in frame["end"]] == [end[:10] for _, end in bounds]
    assert result.to_polars("buckets")["start"].null_count() == 0


def test_past_the_bucket_cap_the_first_buckets_are_listed_and_the_rest_reported(tmp_path: Path) -> None:
    """Issue 33, item 9: past 100,000 buckets, the ones listed are the first in time (whatever
    order the workers finish their chunks in), and the result says where the rest begin."""
    n = 150_000
    # Backwards in time, in several inputs read by several workers.
    lines = [f'{{"T":{t}}}\n' for t in range(n - 1, -1, -1)]
    parts = [tmp_path / f"part{i}.ndjson" for i in range(3)]
    for i, part in enumerate(parts):
        part.write_text("".join(lines[i * n // 3 : (i + 1) * n // 3]))
    result = Filter.parse_any("T >= 0").scan([str(p) for p in parts], every=1, time_field="T", threads=3)
    b = result.breakdown
    assert b is not None and b["max_buckets"] == 100_000
    starts = [x["start"] for x in b["buckets"]]
    assert len(starts) == 100_000 and starts[0] == "1970-01-01T00:00:00Z" and starts[-1] == "1970-01-02T03:46:39Z"
    assert b["other_buckets"]["lines"] == 50_000 and b["other_buckets"]["from"] == "1970-01-02T03:46:40Z"


def test_no_two_rows_of_a_breakdown_have_one_label(tmp_path: Path) -> None:
    """Issue 33, item 17: labels of several fields joined with " · " collided (``"x · y"`` +
    ``"z"`` and ``"x"`` + ``"y · z"``), and a string group ``"other"`` beside the row of the
    groups not listed."""
    logs = tmp_path / "labels.ndjson"
    records = [{"A": "x · y", "B": "z"}, {"A": "x", "B": "y · z"}, {"A": '["p', "B": 'q"]'}, {"A": ["p · q"]}]
    logs.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records))
    groups = field("A").eq("x").scan(logs, group_by=["A", "B"]).groups or []
    labels = [g["label"] for g in groups]
    assert len(set(labels)) == 4, labels
    assert '"x · y" · z' in labels and 'x · "y · z"' in labels
    # A group "other" (and "(other)") beside the groups not listed.
    logs.write_text("".join(json.dumps({"A": a}) + "\n" for a in ["other"] * 3 + ["(other)"] * 2 + ["b", "c"]))
    result = field("A").eq("b").scan(logs, group_by="A", top=2)
    frame = result.to_pandas()
    assert list(frame["group"]) == ["other", '"(other)"', "(other)"]
    assert len(set(frame["group"])) == len(frame)
    assert (result.breakdown or {})["other"]["label"] == "(other)"


def test_every_line_is_in_one_group_and_one_bucket(tmp_path: Path) -> None:
    lines = kinds_lines(2000, seed=3)
    logs = tmp_path / "kinds.ndjson.gz"
    import gzip

    with gzip.open(logs, "wt", encoding="utf-8") as out:
        out.write("\n".join(lines) + "\n\n")
    result = FILTER.scan(logs, group_by="Country", every=HOUR, time_field="T", top=4)
    b = result.breakdown
    assert b is not None
    read = result.total - result.malformed
    rows = [*b["groups"], b["other"]]
    assert sum(r["lines"] for r in rows) == read
    assert sum(r["matched"] for r in rows) == result.matched
    assert sum(r["matched_bytes"] for r in rows) == result.matched_bytes
    times = [*b["buckets"], b["no_time"], b["unreadable_time"], b["other_buckets"]]
    assert sum(r["lines"] for r in times) == read
    assert sum(r["bytes"] for r in times) == sum(r["bytes"] for r in rows)
    # top=4: the first four of the full list, the rest as "other" with their count.
    full = FILTER.scan(logs, group_by="Country")
    assert full.groups is not None and b["groups"] == full.groups[:4]
    assert b["other"]["groups"] == len(full.groups) - 4
    assert b["exact"] and (full.breakdown or {})["other"]["lines"] == 0


def test_a_high_cardinality_field_with_top_holds_a_bounded_table(tmp_path: Path) -> None:
    logs = tmp_path / "ips.ndjson"
    n = 60_000
    with logs.open("w") as out:
        for i in range(n):
            ip = "heavy" if i % 4 == 0 else f"10.{i // 65536}.{i // 256 % 256}.{i % 256}"
            out.write(json.dumps({"ClientIP": ip, "EdgeResponseStatus": 500 if i % 8 == 0 else 200}) + "\n")
    f = field("EdgeResponseStatus") >= 500
    bounded = f.scan(logs, group_by="ClientIP", top=3)
    b = bounded.breakdown
    assert b is not None
    assert b["peak_groups"] <= 10_000  # escpush_scan::MIN_HELD_GROUPS, the bound with a small top
    assert not b["exact"]
    assert b["groups"][0]["key"] == {"ClientIP": "heavy"}
    assert b["groups"][0]["lines"] == n // 4 and b["groups"][0]["matched"] == n // 8
    assert sum(g["lines"] for g in b["groups"]) + b["other"]["lines"] == n
    unbounded = f.scan(logs, group_by="ClientIP").breakdown
    assert unbounded is not None and unbounded["exact"]
    assert len(unbounded["groups"]) == unbounded["peak_groups"] == n - n // 4 + 1


def test_breakdowns_agree_with_duckdb_group_by(tmp_path: Path) -> None:
    duckdb = need("duckdb")
    rng = random.Random(11)
    countries = ["us", "de", "cn", "ru", "fr", "br"]
    formats = [
        lambda t: t,
        lambda t: t * 10**9 + rng.randrange(10**9),
        lambda t: datetime.datetime.fromtimestamp(t, datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        lambda t: datetime.datetime.fromtimestamp(t, datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.123Z"),
        lambda t: datetime.datetime.fromtimestamp(t, datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.123456789Z"),
    ]
    logs = tmp_path / "logs.ndjson"
    with logs.open("w") as out:
        for _ in range(5000):
            record: dict[str, Any] = {"EdgeResponseStatus": rng.choice([200, 200, 301, 404, 500, 503])}
            if rng.random() < 0.9:
                record["ClientCountry"] = rng.choice(countries)
            record["ClientRequestHost"] = rng.choice(["a.example.com", "b.example.org"])
            record["EdgeStartTimestamp"] = rng.choice(formats)(T + rng.randrange(12 * HOUR))
            out.write(json.dumps(record) + "\n")
    f = (field("EdgeResponseStatus") >= 500) | field("ClientRequestHost").ends_with(".org")
    result = f.scan(logs, group_by=["ClientCountry", "EdgeResponseStatus"], every="1h", dataset="http_requests")
    con = duckdb.connect()
    con.execute(escpush.dataset_schema("http_requests", "duckdb", table="logs"))
    con.execute(
        "INSERT INTO logs BY NAME SELECT ClientCountry, EdgeResponseStatus, ClientRequestHost, "
        "CAST(EdgeStartTimestamp AS VARCHAR) AS EdgeStartTimestamp FROM read_json(?, format='newline_delimited', "
        "columns={ClientCountry: 'VARCHAR', EdgeResponseStatus: 'BIGINT', ClientRequestHost: 'VARCHAR', "
        "EdgeStartTimestamp: 'JSON'})",
        [str(logs)],
    )
    kept = f"CASE WHEN {f.to_sql('duckdb', dataset='http_requests')} THEN 1 ELSE 0 END"
    rows = con.execute(
        f"SELECT ClientCountry, EdgeResponseStatus, count(*), sum({kept}) FROM logs GROUP BY ALL"
    ).fetchall()
    want = {(c, s): (n, int(k)) for c, s, n, k in rows}
    got = {
        (g["key"].get("ClientCountry"), g["key"]["EdgeResponseStatus"]): (g["lines"], g["matched"])
        for g in result.groups or []
    }
    assert got == want
    seconds = (
        "CASE WHEN regexp_full_match(EdgeStartTimestamp, '[0-9]+') THEN "
        "CASE WHEN CAST(EdgeStartTimestamp AS HUGEINT) < 100000000000 THEN CAST(EdgeStartTimestamp AS BIGINT) "
        "ELSE CAST(CAST(EdgeStartTimestamp AS HUGEINT) // 1000000000 AS BIGINT) END "
        "ELSE CAST(floor(epoch(CAST(trim(EdgeStartTimestamp, '\"') AS TIMESTAMPTZ))) AS BIGINT) END"
    )
    rows = con.execute(
        f"SELECT ({seconds}) // 3600 * 3600 AS b, count(*), sum({kept}) FROM logs GROUP BY b ORDER BY b"
    ).fetchall()
    got_buckets = [
        (int(datetime.datetime.fromisoformat(r["start"].replace("Z", "+00:00")).timestamp()), r["lines"], r["matched"])
        for r in result.buckets or []
    ]
    assert got_buckets == [(b, n, int(k)) for b, n, k in rows]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(RECORDS, min_size=1, max_size=30), FILTERS)
def test_property_breakdowns_agree_with_matches(tmp_path: Path, records: list[dict[str, Any]], doc: Any) -> None:
    f = Filter.from_dict(doc)
    lines = [json.dumps(r, ensure_ascii=False) for r in records]
    logs = tmp_path / "prop.ndjson"
    logs.write_text("\n".join(lines) + "\n", encoding="utf-8", errors="surrogatepass")
    group_by = ["A", "B"]
    result = f.scan(logs, group_by=group_by, every=HOUR, time_field="C")
    assert observed(result, group_by) == reference(f, lines, group_by, "C", HOUR)


def test_tables_and_their_missing_packages(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    logs = tmp_path / "logs.ndjson"
    logs.write_text("\n".join(kinds_lines(300)) + "\n", encoding="utf-8")
    result = FILTER.scan(logs, group_by=["Country", "Status"], every="1h", time_field="T", top=5)
    pd = need("pandas")
    groups = result.to_pandas()
    assert list(groups.columns[:3]) == ["group", "Country", "Status"]
    assert len(groups) == 6 and groups["group"].iloc[-1] == "(other)"
    statuses = result.to_pandas().loc[:, "Status"]
    assert statuses.dtype == object or str(statuses.dtype) == "Int64"  # never floats for integers
    assert groups["lines"].sum() == result.total - result.malformed
    buckets = result.to_pandas("buckets")
    assert isinstance(buckets["start"].dtype, pd.DatetimeTZDtype)
    assert set(buckets["bucket"]) >= {"no time", "unreadable time"}
    assert len(result.to_pandas("inputs")) == 1
    pl = need("polars")
    frame = result.to_polars("groups")
    assert frame.shape == (6, len(groups.columns)) and frame["lines"].sum() == groups["lines"].sum()
    assert pl.DataFrame is type(frame)
    with pytest.raises(ValueError, match="groups, buckets, inputs"):
        result.to_pandas("bars")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="no buckets"):
        FILTER.scan(logs, group_by="Country").to_pandas("buckets")
    monkeypatch.setitem(sys.modules, "pandas", None)
    monkeypatch.setitem(sys.modules, "polars", None)
    with pytest.raises(
        ImportError, match=r"ScanResult.to_pandas needs the pandas package.*pip install 'escpush\[pandas\]'"
    ):
        result.to_pandas()
    with pytest.raises(
        ImportError, match=r"ScanResult.to_polars needs the polars package.*pip install 'escpush\[polars\]'"
    ):
        result.to_polars()


def test_plot_draws_time_and_groups(tmp_path: Path) -> None:
    need("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    logs = tmp_path / "logs.ndjson"
    logs.write_text("\n".join(kinds_lines(300)) + "\n", encoding="utf-8")
    both = FILTER.scan(logs, group_by="Country", every="1h", time_field="T").plot(top=5)
    assert len(both.axes) == 2
    assert "kept and dropped" in both.axes[0].get_title()
    assert len(both.axes[1].patches) == 10  # five groups, kept and dropped bars
    assert len(FILTER.scan(logs, every="1h", time_field="T").plot(by="bytes").axes) == 1
    with pytest.raises(ValueError, match="nothing to plot"):
        FILTER.scan(logs).plot()


def test_bad_breakdown_arguments_name_what_is_wrong(tmp_path: Path) -> None:
    logs = tmp_path / "logs.ndjson"
    logs.write_text('{"A": 1}\n')
    with pytest.raises(InvalidInput) as err:
        FILTER.scan(logs, group_by=["ClientCountyr", "ClientCountyr"], top=0, dataset="http_requests")
    problems = err.value.errors()
    assert [p["path"] for p in problems] == ["group_by[0]", "group_by[1]", "top"]
    assert "did you mean `ClientCountry`" in problems[0]["message"]
    with pytest.raises(InvalidInput, match="give every too"):
        FILTER.scan(logs, time_field="T")
    with pytest.raises(InvalidInput, match="not an interval"):
        FILTER.scan(logs, every="1y")
    with pytest.raises(InvalidInput, match="whole number of seconds"):
        FILTER.scan(logs, every=datetime.timedelta(milliseconds=1500))
    with pytest.raises(TypeError, match="every is an interval"):
        FILTER.scan(logs, every=True)
    with pytest.raises(TypeError, match="group_by is a field name"):
        FILTER.scan(logs, group_by=[1])
    with pytest.raises(InvalidInput, match="no single time field"):
        FILTER.scan(logs, every="1h", dataset="workers_trace_events")
    with pytest.raises(InvalidInput, match="surrogate"):
        FILTER.scan(logs, group_by="\ud800")
    # The dataset's time field by default; http_requests' without a dataset.
    assert (FILTER.scan(logs, every="1h").breakdown or {})["time_field"] == "EdgeStartTimestamp"
    assert (FILTER.scan(logs, every="1h", dataset="firewall_events").breakdown or {})["time_field"] == "Datetime"
    assert FILTER.scan(logs).breakdown is None and FILTER.scan(logs).groups is None


def test_select_breaks_down_too(tmp_path: Path) -> None:
    logs = tmp_path / "logs.ndjson"
    logs.write_text("\n".join(kinds_lines(200)) + "\n", encoding="utf-8")
    selected = FILTER.select(logs, tmp_path / "out.ndjson", group_by="Status")
    assert selected.groups == FILTER.scan(logs, group_by="Status").groups
    assert selected.to_dict()["breakdown"]["group_by"] == ["Status"]
