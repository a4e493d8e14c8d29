"""A scan's breakdown as rows: the one builder of the rows that the command line's text tables,
the notebook display (both through :func:`tables`), the DataFrames and the plot
(``_scan_views.columns``) and the filter builder's table show.

Every view reads the data of one ``ScanResult.to_dict()`` (the native result crosses into
Python once, as plain data) and takes its rows from :func:`rows`: the groups listed, then the
groups not listed as one row; the time buckets, then the lines without a readable time and
those of the buckets past the first 100,000 as rows of their own (:data:`NAMED_TIME_ROWS`).
The one difference between the views is a named parameter: the rest row of the groups is
labelled as the scan labels it, ``(other)``, in a DataFrame and the plot, and with its count,
``(other: 2 groups)``, in a table of text and the filter builder (``count_rest=True``).
"""

from __future__ import annotations

from ._format import percents, plural, size

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from typing import Any

TABLES = ("groups", "buckets")
# The rows of a time table that are not buckets, and their labels.
NAMED_TIME_ROWS = (("no_time", "no time"), ("unreadable_time", "unreadable time"), ("other_buckets", "other buckets"))
_HEADER = ["lines", "of all", "kept", "kept %", "bytes kept", "of bytes"]


def rest_label(other: Mapping[str, Any], count_rest: bool) -> str:
    """The label of the row of the groups not listed: the scan's own (``(other)``, which no
    group's label is: a string in parentheses is shown quoted), or with ``count_rest`` its
    count inside the parentheses, ``(other: 2 groups)``."""
    label = str(other["label"])
    return f"{label[:-1]}: {plural(other['groups'], 'group')})" if count_rest else label


def rows(breakdown: Mapping[str, Any], table: str, *, count_rest: bool = False) -> list[dict[str, Any]]:
    """The rows of one table of ``breakdown`` (``ScanResult.to_dict()["breakdown"]``), each a
    dict of its counts (``lines``, ``matched``, ``bytes``, ``matched_bytes``, ``line_share``,
    ``byte_share``) and its ``label``: for ``"groups"``, the groups listed (with their ``key``,
    the grouped fields' values) and, when it holds lines, the row of the others (``key`` empty,
    labelled by :func:`rest_label`); for ``"buckets"``, the buckets (``start`` and ``end``, the
    start as label) and the rows of :data:`NAMED_TIME_ROWS` that hold lines (no ``start`` or
    ``end``)."""
    if table == "groups":
        out = [dict(g) for g in breakdown["groups"]]
        other = breakdown["other"]
        if other["lines"]:
            out.append({**other, "key": {}, "label": rest_label(other, count_rest)})
        return out
    if table == "buckets":
        out = [{**b, "label": b["start"]} for b in breakdown["buckets"]]
        for name, label in NAMED_TIME_ROWS:
            if breakdown[name]["lines"]:
                out.append({**breakdown[name], "start": None, "end": None, "label": label})
        return out
    raise ValueError(f"table is one of {', '.join(TABLES)}, not {table!r}")


def interval(seconds: int) -> str:
    """``3600`` as ``1h``, ``90`` as ``90s``: the largest unit that divides it."""
    for unit, n in (("w", 604_800), ("d", 86_400), ("h", 3600), ("m", 60)):
        if seconds % n == 0:
            return f"{seconds // n}{unit}"
    return f"{seconds}s"


Table = tuple[str, list[str], list[list[str]]]


def tables(data: Mapping[str, Any], also: Sequence[tuple[int, int]] = ()) -> tuple[list[Table], list[str | None]]:
    """The breakdown of ``ScanResult.to_dict()`` as tables of text, for the command line and
    the notebook display: (title, header, rows), the rows of :func:`rows` with the groups'
    rest row counted. Each row: the group or bucket, its lines and their share of the lines
    read, the lines kept and their share of the row, the bytes kept and their share of the
    row's bytes. With the shares of ``also`` (pairs of part and whole) formatted in the same
    call to core's formatter, which every share of the tables goes through at once."""
    breakdown = data.get("breakdown")
    made: list[tuple[str, list[str], list[dict[str, Any]]]] = []
    if breakdown:
        if breakdown["group_by"]:
            other = breakdown["other"]
            listed = len(breakdown["groups"])
            title = f"by {', '.join(breakdown['group_by'])}: {plural(listed + other['groups'], 'group')}"
            if other["groups"]:
                title += f", the {listed:,} with the most lines"
            if not breakdown["exact"]:
                title += " (approximate: more groups than could be held; the smallest went to other)"
            made.append((title, ["group", *_HEADER], rows(breakdown, "groups", count_rest=True)))
        if breakdown["every"] is not None:
            title = f"every {interval(breakdown['every'])} of {breakdown['time_field']}"
            left = breakdown["other_buckets"]
            if left["lines"]:
                title += (
                    f", the first {breakdown['max_buckets']:,} buckets (those from {left['from']} on are counted as "
                    f"{dict(NAMED_TIME_ROWS)['other_buckets']})"
                )
            made.append((title, ["start (UTC)", *_HEADER], rows(breakdown, "buckets")))
    read = data["total"] - data["malformed"]
    pairs = list(also)
    for _, _, listed_rows in made:
        for r in listed_rows:
            pairs += [(r["lines"], read), (r["matched"], r["lines"]), (r["matched_bytes"], r["bytes"])]
    shares = iter(percents(pairs))
    extra = [next(shares) for _ in also]

    def cells(r: Mapping[str, Any]) -> list[str]:
        # Left to right, as the pairs were listed.
        return [
            str(r["label"]),
            f"{r['lines']:,}",
            next(shares) or "-",
            f"{r['matched']:,}",
            next(shares) or "-",
            size(r["matched_bytes"]),
            next(shares) or "-",
        ]

    return [(title, header, [cells(r) for r in listed_rows]) for title, header, listed_rows in made], extra


def columns(breakdown: Mapping[str, Any] | None, table: str, counts: Sequence[str], what: str) -> dict[str, list[Any]]:
    """The columns of the ``groups`` or ``buckets`` table of a breakdown (a scan's or a
    preview's, ``what`` naming it in errors): for groups a ``group`` label and a column per
    grouped field, for buckets the ``bucket`` label and ``start`` and ``end`` as UTC datetimes
    (None on the rows with no time); then each of ``counts``. The rows are :func:`rows`'."""
    import datetime

    if breakdown is None or (table == "groups" and not breakdown["group_by"]):
        raise ValueError(f"this {what} has no {table}: {what} with {'group_by' if table == 'groups' else 'every'}=")
    if table == "buckets" and breakdown["every"] is None:
        raise ValueError(f"this {what} has no buckets: {what} with every=")
    listed = rows(breakdown, table)
    if table == "groups":
        out: dict[str, list[Any]] = {"group": [r["label"] for r in listed]}
        for name in breakdown["group_by"]:
            out[name] = [r["key"].get(name) for r in listed]
    else:

        def when(text: str | None) -> datetime.datetime | None:
            if text is None:
                return None
            return datetime.datetime.strptime(text, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=datetime.timezone.utc)

        out = {"bucket": [r["label"] for r in listed], "start": [when(r["start"]) for r in listed]}
        out["end"] = [when(r["end"]) for r in listed]
    for name in counts:
        out[name] = [r[name] for r in listed]
    return out
