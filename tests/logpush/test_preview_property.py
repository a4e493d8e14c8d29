"""The property of issue 35: an ndjson preview, read back by ``json.loads``, is each line
``json.loads`` reads, projected to ``field_names`` (in their order; a field the line lacks as
``null``) with the timestamp converted to ``timestamp_format``, on generated records, through
the whole preview (escpush-scan's readers and workers, core's formatter and batches)."""

from __future__ import annotations

import datetime
import json
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from escpush import preview_job

FIELDS = ["RayID", "ClientIP", "ClientRequestPath", "EdgeResponseStatus", "ClientRequestBytes", "CacheCacheStatus"]
TIME = "EdgeStartTimestamp"
FORMATS = ["unixnano", "unix", "rfc3339", "rfc3339ms", "rfc3339ns"]

VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**63), max_value=2**64 - 1),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=8),
    st.lists(st.integers(-5, 5), max_size=3),
    st.dictionaries(st.sampled_from(["a", "b"]), st.text(max_size=3), max_size=2),
)
# Times from 1990 to 2100, in nanoseconds (how log-push writes EdgeStartTimestamp by default).
NANOS = st.integers(min_value=631_152_000 * 10**9, max_value=4_102_444_800 * 10**9 - 1)


@st.composite
def lines(draw: st.DrawFn) -> dict[str, Any]:
    line = {name: draw(VALUES) for name in draw(st.lists(st.sampled_from(FIELDS), unique=True))}
    if draw(st.booleans()):
        line[TIME] = draw(NANOS)
    return line


def converted(nanos: int, fmt: str) -> Any:
    seconds, rest = divmod(nanos, 10**9)
    whole = datetime.datetime.fromtimestamp(seconds, tz=datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S")
    return {
        "unixnano": nanos,
        "unix": seconds,
        "rfc3339": f"{whole}Z",
        "rfc3339ms": f"{whole}.{rest // 10**6:03}Z",
        "rfc3339ns": f"{whole}.{rest:09}Z",
    }[fmt]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    records=st.lists(lines(), min_size=1, max_size=12),
    picked=st.lists(st.sampled_from([*FIELDS, TIME]), min_size=1, unique=True),
    fmt=st.sampled_from(FORMATS),
)
def test_an_ndjson_preview_is_each_line_projected(
    tmp_path_factory: Any, records: list[dict[str, Any]], picked: list[str], fmt: str
) -> None:
    folder: Path = tmp_path_factory.mktemp("preview")
    sample = folder / "sample.ndjson"
    texts = [json.dumps(r) for r in records]
    sample.write_text("".join(t + "\n" for t in texts))
    job = {
        "dataset": "http_requests",
        "output_options": {"field_names": picked, "timestamp_format": fmt},
        "max_upload_records": 0,
        "max_upload_interval_seconds": 0,
    }
    out = folder / "out"
    result = preview_job(job, sample, out=out, gzip=False)
    delivered = "".join((out / name).read_text() for name in result.files)
    # Records end with "\n" (ndjson's record_suffix); str.splitlines would also cut at U+0085.
    got = [json.loads(text) for text in delivered.split("\n")[:-1]]
    want = []
    for text in texts:
        line = json.loads(text)
        want.append({name: converted(line[name], fmt) if name == TIME and name in line else line.get(name)
                     for name in picked})  # fmt: skip
    assert got == want
    assert all(list(record) == picked for record in got), "in the order of field_names"
    assert result.delivered_bytes == len(delivered.encode())
