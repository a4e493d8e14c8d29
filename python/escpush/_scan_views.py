"""A scan's results as tables and pictures: ``ScanResult.to_pandas``, ``to_polars`` and
``plot`` call these (the Python methods ``escpush._presentation`` puts on the native class).

Each call reads one ``ScanResult.to_dict()`` (the result crosses from the native module once,
as plain data), so every view shows what ``--json`` prints; its rows are ``_breakdown.rows``,
the text tables' rows. pandas, polars and matplotlib stay optional: each view imports its
library when called and, without it, raises ``ImportError`` naming the extra to install (``_optional.need``).
"""

from __future__ import annotations

from . import _breakdown
from ._optional import need

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

    from ._escpush import ScanResult

TABLES = ("groups", "buckets", "inputs")
_COUNTS = ("lines", "matched", "bytes", "matched_bytes", "line_share", "byte_share")


def columns(data: Mapping[str, Any], table: str) -> dict[str, list[Any]]:
    """The columns of one table of a scan's data (``ScanResult.to_dict()``): ``groups`` (a
    column per grouped field, a ``group`` label, the counts, and ``share``, the group's share
    of the lines read; the groups beyond ``top`` as one row labelled ``(other)``), ``buckets``
    (``start``, ``end`` as UTC datetimes, the counts; the lines without a time, or with one
    that could not be read, and those of the buckets past the first 100,000, as rows with no
    start, labelled ``no time``, ``unreadable time`` and ``other buckets``) or ``inputs``. The
    rows are ``_breakdown.rows``', the ones the text tables show."""
    breakdown = data["breakdown"]
    if table not in TABLES:
        raise ValueError(f"table is one of {', '.join(TABLES)}, not {table!r}")
    if table == "inputs":
        rows = [dict(r) for r in data["per_input"]]
        names = ["source", "total", "matched", "malformed", "bytes", "matched_bytes", "line_share", "byte_share"]
        return {name: [r[name] for r in rows] for name in names}
    read = data["total"] - data["malformed"]
    out = _breakdown.columns(breakdown, table, _COUNTS, "scan")
    out["share"] = [lines / read if read else None for lines in out["lines"]]
    return out


def to_pandas(result: ScanResult, table: str) -> Any:
    pd = need("pandas", "ScanResult.to_pandas")
    cols = columns(result.to_dict(), table)
    frame = pd.DataFrame(cols)
    for name, values in cols.items():
        if None in values and name not in ("start", "end"):
            frame[name] = _with_gaps(pd, values)
    if table == "buckets":
        for name in ("start", "end"):
            try:
                frame[name] = pd.to_datetime(frame[name], utc=True)
            except (pd.errors.OutOfBoundsDatetime, OverflowError):
                # pandas before 3 holds nanoseconds (the years 1677 to 2262): a bucket outside
                # them keeps its datetimes as objects.
                pass
    return frame


def _with_gaps(pd: Any, values: list[Any]) -> Any:
    """A column with missing values (the ``other`` row of a grouped field, say) in pandas'
    nullable dtypes, so that every gap of a table shows as ``<NA>``: integers ``Int64`` (not
    floats), text ``string``, floats ``Float64``, booleans ``boolean``; values of several types
    stay objects, the gaps ``pd.NA`` (pandas 3 would show a text column's gap as ``NaN``)."""
    present = [v for v in values if v is not None]
    kinds = {type(v) for v in present}
    dtype = None
    if kinds == {int} and all(abs(v) < 2**63 for v in present):
        dtype = "Int64"
    elif kinds == {str}:
        dtype = "string"
    elif kinds == {float}:
        dtype = "Float64"
    elif kinds == {bool}:
        dtype = "boolean"
    if dtype is None:
        return pd.array([pd.NA if v is None else v for v in values], dtype=object)
    return pd.array(values, dtype=dtype)


def to_polars(result: ScanResult, table: str) -> Any:
    pl = need("polars", "ScanResult.to_polars")
    cols = columns(result.to_dict(), table)
    series = []
    for name, values in cols.items():
        kinds = {type(v) for v in values if v is not None}
        if len(kinds) > 1 or kinds & {list, dict}:
            # A field whose values differ in type (200 and "200"): its values as JSON text,
            # which keeps them apart.
            import json

            values = [None if v is None else json.dumps(v) for v in values]
        series.append(pl.Series(name, values, strict=False))
    return pl.DataFrame(series)


def plot(result: ScanResult, top: int, by: str) -> Any:
    """Kept against dropped: over time (a stacked area per bucket) and for the ``top`` groups
    (stacked horizontal bars), ``by`` lines or bytes. Returns the matplotlib figure."""
    # Made by pyplot (whose import lets Jupyter's inline backend show a figure) and closed
    # there before it is returned: Jupyter shows it once, as the value returned, and pyplot's
    # current figure stays whatever it was.
    plt = need("matplotlib.pyplot", "ScanResult.plot")
    if by not in ("lines", "bytes"):
        raise ValueError(f"by is 'lines' or 'bytes', not {by!r}")
    data = result.to_dict()
    breakdown = data["breakdown"]
    if breakdown is None:
        raise ValueError("nothing to plot: scan with group_by= and/or every=")
    panels = [name for name, asked in (("buckets", breakdown["every"]), ("groups", breakdown["group_by"])) if asked]
    fig = plt.figure(figsize=(9, 3.2 * len(panels)))
    axes = fig.subplots(len(panels), 1, squeeze=False)
    kept_key = "matched" if by == "lines" else "matched_bytes"
    total_key = "lines" if by == "lines" else "bytes"
    for ax, panel in zip(axes[:, 0], panels):
        if panel == "buckets":
            cols = columns(data, "buckets")
            timed = [i for i, s in enumerate(cols["start"]) if s is not None]
            starts = [cols["start"][i] for i in timed]
            kept = [cols[kept_key][i] for i in timed]
            dropped = [cols[total_key][i] - cols[kept_key][i] for i in timed]
            ax.stackplot(starts, kept, dropped, labels=["kept", "dropped"], step="post", colors=["#2e7d32", "#bdbdbd"])
            ax.set_title(f"{by} kept and dropped every {breakdown['every']} s ({breakdown['time_field']})")
            ax.set_ylabel(by)
            untimed = sum(cols[total_key][i] for i in range(len(starts), len(cols["start"])))
            if untimed:
                ax.annotate(f"{untimed:,} {by} without a readable time", (0.01, 0.92), xycoords="axes fraction")
            for label in ax.get_xticklabels():
                label.set_rotation(20)
                label.set_horizontalalignment("right")
        else:
            cols = columns(data, "groups")
            n = min(top, len(cols["group"]))
            labels = cols["group"][:n][::-1]
            kept = cols[kept_key][:n][::-1]
            dropped = [t - k for t, k in zip(cols[total_key][:n][::-1], kept)]
            ax.barh(labels, kept, color="#2e7d32", label="kept")
            ax.barh(labels, dropped, left=kept, color="#bdbdbd", label="dropped")
            ax.set_title(f"{by} kept and dropped by {', '.join(breakdown['group_by'])} (top {n})")
            ax.set_xlabel(by)
        # Beside the plot, never over its data (stacked areas and bars fill their axes).
        ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0, frameon=False)
    fig.tight_layout()
    plt.close(fig)
    return fig
