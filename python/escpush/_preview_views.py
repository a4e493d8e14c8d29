"""A job's preview as tables and pictures: ``PreviewResult.to_pandas``, ``to_polars``, ``plot``
and ``_repr_html_`` call these (the Python methods ``escpush._presentation`` puts on the native
class).

Each call reads one ``PreviewResult.to_dict()`` (the result crosses from the native module
once, as plain data), so every view shows what ``escpush logpush preview --json`` prints; the
group and bucket rows are ``_breakdown.rows``, a scan's, which a preview's rows extend with
``delivered`` and ``delivered_bytes``. pandas, polars and matplotlib stay optional
(``_optional.need``).
"""

from __future__ import annotations

import html

from . import _breakdown
from ._format import size
from ._optional import need

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

    from ._escpush import PreviewResult

TABLES = ("inputs", "groups", "buckets")
_INPUT_COLUMNS = (
    "source",
    "lines",
    "malformed",
    "kept",
    "delivered",
    "batches",
    "delivered_bytes",
    "bytes_read",
    "first_time",
    "last_time",
    "timed_lines",
    "complete",
)
_ROW_COUNTS = ("lines", "matched", "delivered", "bytes", "delivered_bytes")


def _when(seconds: float | None) -> Any:
    import datetime

    if seconds is None:
        return None
    return datetime.datetime.fromtimestamp(seconds, tz=datetime.timezone.utc)


def columns(data: Mapping[str, Any], table: str) -> dict[str, list[Any]]:
    """The columns of one table of a preview's data (``PreviewResult.to_dict()``): ``inputs``
    (one row per input, times as UTC datetimes), ``groups`` (with ``group_by``: a column per
    grouped field, ``group``, and the counts: lines read, kept by the filter as ``matched``,
    ``delivered`` records and their ``delivered_bytes``) or ``buckets`` (with ``every``:
    ``start``, ``end`` and the counts)."""
    import datetime

    if table not in TABLES:
        raise ValueError(f"table is one of {', '.join(TABLES)}, not {table!r}")
    if table == "inputs":
        rows = data["per_input"]
        out = {name: [r[name] for r in rows] for name in _INPUT_COLUMNS}
        out["first_time"] = [_when(t) for t in out["first_time"]]
        out["last_time"] = [_when(t) for t in out["last_time"]]
        return out
    breakdown = data["breakdown"]
    if breakdown is None or (table == "groups" and not breakdown["group_by"]):
        raise ValueError(f"this preview has no {table}: preview with {'group_by' if table == 'groups' else 'every'}=")
    if table == "buckets" and breakdown["every"] is None:
        raise ValueError("this preview has no buckets: preview with every=")
    rows = _breakdown.rows(breakdown, table)
    if table == "groups":
        cols: dict[str, list[Any]] = {"group": [r["label"] for r in rows]}
        for name in breakdown["group_by"]:
            cols[name] = [r["key"].get(name) for r in rows]
    else:

        def when(text: str | None) -> datetime.datetime | None:
            if text is None:
                return None
            return datetime.datetime.strptime(text, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=datetime.timezone.utc)

        cols = {"bucket": [r["label"] for r in rows], "start": [when(r["start"]) for r in rows]}
        cols["end"] = [when(r["end"]) for r in rows]
    for name in _ROW_COUNTS:
        cols[name] = [r[name] for r in rows]
    return cols


def to_pandas(result: PreviewResult, table: str) -> Any:
    pd = need("pandas", "PreviewResult.to_pandas")
    return pd.DataFrame(columns(result.to_dict(), table))


def to_polars(result: PreviewResult, table: str) -> Any:
    pl = need("polars", "PreviewResult.to_polars")
    return pl.DataFrame(
        [pl.Series(name, values, strict=False) for name, values in columns(result.to_dict(), table).items()]
    )


def plot(result: PreviewResult, top: int) -> Any:
    """The bytes delivered over time (a bar per bucket of ``every``, e.g. a day) and by group
    (the ``top`` groups of ``group_by``), stacked per group where both were asked. Returns the
    matplotlib figure."""
    plt = need("matplotlib.pyplot", "PreviewResult.plot")
    data = result.to_dict()
    breakdown = data["breakdown"]
    if breakdown is None:
        raise ValueError("nothing to plot: preview with group_by= and/or every=")
    panels = [name for name, asked in (("buckets", breakdown["every"]), ("groups", breakdown["group_by"])) if asked]
    fig = plt.figure(figsize=(9, 3.2 * len(panels)))
    axes = fig.subplots(len(panels), 1, squeeze=False)
    for ax, panel in zip(axes[:, 0], panels):
        cols = columns(data, panel)
        if panel == "buckets":
            timed = [i for i, s in enumerate(cols["start"]) if s is not None]
            ax.bar(
                [cols["start"][i] for i in timed],
                [cols["delivered_bytes"][i] for i in timed],
                width=breakdown["every"] / 86400,
                align="edge",
                color="#1565c0",
            )
            ax.set_title(f"bytes delivered every {_breakdown.interval(breakdown['every'])} ({breakdown['time_field']})")
            for label in ax.get_xticklabels():
                label.set_rotation(20)
                label.set_horizontalalignment("right")
        else:
            n = min(top, len(cols["group"]))
            ax.barh(cols["group"][:n][::-1], cols["delivered_bytes"][:n][::-1], color="#1565c0")
            ax.set_title(f"bytes delivered by {', '.join(breakdown['group_by'])} (top {n})")
        ax.set_ylabel("bytes" if panel == "buckets" else "")
    fig.tight_layout()
    plt.close(fig)
    return fig


def table_rows(data: Mapping[str, Any]) -> list[tuple[str, str]]:
    """The human table of ``escpush logpush preview`` and the notebook: (what, value)."""
    rows = [
        ("lines read", f"{data['lines']:,}"),
        ("kept by the filter", f"{data['kept']:,}"),
        ("delivered (after sampling)", f"{data['delivered']:,}"),
        ("batches", f"{data['batches']:,}"),
        ("bytes delivered (uncompressed, billed)", f"{data['delivered_bytes']:,} ({size(data['delivered_bytes'])})"),
    ]
    if data["compressed_bytes"] is not None:
        rows.append(("compressed (gzip written)", f"{data['compressed_bytes']:,} ({size(data['compressed_bytes'])})"))
    rows.append(("bytes read", f"{data['bytes_read']:,} ({size(data['bytes_read'])})"))
    if data["malformed"]:
        rows.append(("malformed lines", f"{data['malformed']:,}"))
    if data["span_seconds"] is not None:
        rows.append(
            (f"time span ({data['time_field']})", f"{data['span_seconds']:,.0f} s over {data['timed_lines']:,} lines")
        )
    return rows


def repr_html(result: PreviewResult) -> str:
    data = result.to_dict()
    body = "".join(
        f"<tr><th style='text-align:left'>{html.escape(k)}</th><td style='text-align:right'>{html.escape(v)}</td></tr>"
        for k, v in table_rows(data)
    )
    return f"<table><caption>escpush preview</caption>{body}</table>"
