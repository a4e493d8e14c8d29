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

from . import _breakdown
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
    if table not in TABLES:
        raise ValueError(f"table is one of {', '.join(TABLES)}, not {table!r}")
    if table == "inputs":
        rows = data["per_input"]
        out = {name: [r[name] for r in rows] for name in _INPUT_COLUMNS}
        out["first_time"] = [_when(t) for t in out["first_time"]]
        out["last_time"] = [_when(t) for t in out["last_time"]]
        return out
    return _breakdown.columns(data["breakdown"], table, _ROW_COUNTS, "preview")


def to_pandas(result: PreviewResult, table: str) -> Any:
    pd = need("pandas", "PreviewResult.to_pandas")
    return pd.DataFrame(columns(result.to_dict(), table))


def to_polars(result: PreviewResult, table: str) -> Any:
    pl = need("polars", "PreviewResult.to_polars")
    return pl.DataFrame(
        [pl.Series(name, values, strict=False) for name, values in columns(result.to_dict(), table).items()]
    )


# The bill counts decimal units (a GB is 10^9 bytes, docs/cost.md): the plot's axes too.
_DECIMAL_UNITS = (("bytes", 1.0), ("kB", 1e3), ("MB", 1e6), ("GB", 1e9), ("TB", 1e12))


def decimal_unit(largest: float) -> tuple[str, float]:
    """The decimal unit to show bytes up to ``largest`` in, and its size: ``("MB", 1e6)``."""
    name, scale = _DECIMAL_UNITS[0]
    for name_, scale_ in _DECIMAL_UNITS:
        if largest >= scale_:
            name, scale = name_, scale_
    return name, scale


def billed_size(n: float) -> str:
    """Bytes in the decimal unit that suits them, the bill's (``decimal_unit``): ``512 bytes``,
    ``1.5 kB``, ``231.2 MB``: the same units as the cost's GB, where ``size`` says MiB."""
    name, scale = decimal_unit(n)
    return f"{n:,.0f} bytes" if name == "bytes" else f"{n / scale:.1f} {name}"


def plot(result: PreviewResult, top: int) -> Any:
    """The bytes delivered (uncompressed: what is billed) over time, a bar per bucket of
    ``every`` (a day with ``every="1d"``), and by group, the ``top`` groups of ``group_by`` by
    bytes delivered, the largest on top (a filter or ``field_names`` makes the groups that read
    the most differ from those that deliver the most). Each axis in the decimal unit that suits
    its largest bar (kB, MB, GB: the bill's). Returns the matplotlib figure."""
    plt = need("matplotlib.pyplot", "PreviewResult.plot")
    data = result.to_dict()
    breakdown = data["breakdown"]
    if breakdown is None:
        raise ValueError("nothing to plot: preview with group_by= and/or every=")
    panels = [name for name, asked in (("buckets", breakdown["every"]), ("groups", breakdown["group_by"])) if asked]
    fig = plt.figure(figsize=(9, 3.2 * len(panels)))
    axes = fig.subplots(len(panels), 1, squeeze=False)
    billed = "(uncompressed, as billed)"
    for ax, panel in zip(axes[:, 0], panels):
        cols = columns(data, panel)
        if panel == "buckets":
            timed = [i for i, s in enumerate(cols["start"]) if s is not None]
            values = [cols["delivered_bytes"][i] for i in timed]
            unit, scale = decimal_unit(max(values, default=0))
            ax.bar(
                [cols["start"][i] for i in timed],
                [v / scale for v in values],
                width=breakdown["every"] / 86400,
                align="edge",
                color="#1565c0",
            )
            every = _breakdown.interval(breakdown["every"])
            ax.set_title(f"delivered every {every} of {breakdown['time_field']} {billed}")
            ax.set_ylabel(f"{unit} delivered")
            ax.ticklabel_format(axis="y", style="plain", useOffset=False)
            for label in ax.get_xticklabels():
                label.set_rotation(20)
                label.set_horizontalalignment("right")
        else:
            ranked = sorted(range(len(cols["group"])), key=lambda i: -cols["delivered_bytes"][i])
            shown = ranked[: min(top, len(ranked))]
            values = [cols["delivered_bytes"][i] for i in shown]
            unit, scale = decimal_unit(max(values, default=0))
            ax.barh([str(cols["group"][i]) for i in shown][::-1], [v / scale for v in values][::-1], color="#1565c0")
            ax.set_title(
                f"delivered by {', '.join(breakdown['group_by'])}: the top {len(shown)} by bytes delivered {billed}"
            )
            ax.set_xlabel(f"{unit} delivered")
            ax.ticklabel_format(axis="x", style="plain", useOffset=False)
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
        (
            "bytes delivered (uncompressed, billed)",
            f"{data['delivered_bytes']:,} ({billed_size(data['delivered_bytes'])})",
        ),
    ]
    if data["compressed_bytes"] is not None:
        rows.append(
            ("compressed (gzip written)", f"{data['compressed_bytes']:,} ({billed_size(data['compressed_bytes'])})")
        )
    rows.append(("bytes read", f"{data['bytes_read']:,} ({billed_size(data['bytes_read'])})"))
    if data["malformed"]:
        rows.append(("malformed lines", f"{data['malformed']:,}"))
    if data["span_seconds"] is not None:
        rows.append(
            (f"time span ({data['time_field']})", f"{data['span_seconds']:,.0f} s over {data['timed_lines']:,} lines")
        )
    return rows


# The most rows of each breakdown table the display shows (to_pandas() gives them all).
_MAX_HTML_ROWS = 50


def breakdown_tables(
    data: Mapping[str, Any], scale: float | None, more: str = "to_pandas() for all"
) -> list[tuple[str, list[str], list[list[str]]]]:
    """The groups and buckets of a preview as tables of text (title, header, rows), as
    ``escpush logpush preview`` prints them: lines read, kept, delivered, the bytes delivered
    and, with a projected month (``scale``: the cost's), the GB a month of each row (core's
    wording); past ``_MAX_HTML_ROWS`` rows the title says how many and where the rest are
    (``more``)."""
    from ._escpush import _format_gb

    breakdown = data["breakdown"]
    if not breakdown:
        return []
    out = []
    for table, asked in (("groups", breakdown["group_by"]), ("buckets", breakdown["every"])):
        if not asked:
            continue
        title = (
            f"by {', '.join(breakdown['group_by'])}"
            if table == "groups"
            else f"every {_breakdown.interval(breakdown['every'])} of {breakdown['time_field']}"
        )
        header = ["group" if table == "groups" else "start (UTC)", "lines", "kept", "delivered", "bytes delivered"]
        if scale is not None:
            header.append("GB/month")
        rows = _breakdown.rows(breakdown, table, count_rest=True)
        if len(rows) > _MAX_HTML_ROWS:
            title += f" (the first {_MAX_HTML_ROWS:,} of {len(rows):,} rows; {more})"
            rows = rows[:_MAX_HTML_ROWS]
        gb = _format_gb([r["delivered_bytes"] * scale / 1e9 for r in rows]) if scale is not None else []
        cells = []
        for i, r in enumerate(rows):
            row = [str(r["label"]), f"{r['lines']:,}", f"{r['matched']:,}", f"{r['delivered']:,}"]
            row.append(f"{r['delivered_bytes']:,}")
            if scale is not None:
                row.append(gb[i])
            cells.append(row)
        out.append((title, header, cells))
    return out


def repr_html(result: PreviewResult) -> str:
    """The notebook display: the counts of ``table_rows``, the month projected by the span of
    the sample's times and priced by the job's destination (``PreviewResult.cost()``, as
    ``escpush logpush preview`` prints it), or why it cannot be (no timestamps, no
    destination: said, never raised), and the breakdown with each row's GB a month."""
    from . import _display
    from ._format import plural
    from .errors import InvalidInput

    data = result.to_dict()
    rows = table_rows(data)
    scale = None
    try:
        cost = result.cost()
    except InvalidInput as err:
        rows.append(("a month, projected", f"not projected: {err}"))
    else:
        rows.append(("a month, projected", str(cost)))
        scale = cost.scale
    body = _display._rows([(k, _display._text(v)) for k, v in rows])
    th, td = (f'<{tag} style="{_display._INLINE[tag]}{_display._ONE_LINE}">' for tag in ("th", "td"))
    for caption, header, cells in breakdown_tables(data, scale):
        head = "".join(f"{th}{_display._text(h)}</th>" for h in header)
        lines = "".join("<tr>" + "".join(f"{td}{_display._text(c)}</td>" for c in r) + "</tr>" for r in cells)
        body += f"<div><strong>{_display._text(caption)}</strong></div>"
        body += f"<table><thead><tr>{head}</tr></thead><tbody>{lines}</tbody></table>"
    title = f"PreviewResult: {data['delivered']:,} of {plural(data['lines'], 'line')} delivered"
    return _display._box("preview-result", title, body)
