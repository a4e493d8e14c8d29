"""The dashboard's filter builder in a notebook: ``FilterBuilder``.

::

    from escpush.widget import FilterBuilder

    builder = FilterBuilder("http_requests", sample="logs/")   # a log file, folder or glob
    builder                                                     # the rows, in the notebook
    zone.logpush.ensure_job(..., filter=builder.filter)         # the Filter the rows say

Rows of Field (the dataset's fields, searchable, with their types), Operator (only those the
field's type takes, SPEC table B.1) and Value (a list for ``in`` / ``!in``), joined with AND or
OR, with groups for nesting; beside them, live, the problems with their did-you-mean, the
operator count and byte size against the limits, the text form and the canonical JSON, and
what the filter keeps on the sample. A Jupyter widget (anywidget: JupyterLab, Notebook 7,
VS Code, Colab); ``pip install 'escpush[widget]'``.
"""

from __future__ import annotations

try:
    import anywidget
    import traitlets
except ImportError as _missing:  # pragma: no cover - tested with the package hidden
    from .._docs import page as _page

    raise ImportError(
        "escpush.widget needs the anywidget package, which is not installed: pip install 'escpush[widget]'"
        f" (the notebook widget: {_page('widget')})"
    ) from _missing

import json
import os
import threading
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, Union

from .. import _breakdown
from .._escpush import Filter, ScanResult, dataset_fields, datasets, field
from .._format import percents, plural, size  # the one wording of a count (`10,000 groups`), a share, a size
from ..errors import EscpushError, FilterError
from . import _rows

__all__ = ["FilterBuilder"]

_HERE = Path(__file__).parent

_LogPath = Union[str, "os.PathLike[str]"]

# The first matching lines of a sample shown beside the counts, and the groups of a breakdown
# listed (the others are counted together in the row labelled `(other)`).
_SAMPLE_LINES = 5
_BREAKDOWN_TOP = 10
# The scans of the sample kept, by filter and breakdown (a filter the rows come back to shows
# its counts at once); the oldest go first, so a long session holds at most this many.
_SCANS_KEPT = 32


def _shown(data: Mapping[str, Any]) -> dict[str, Any]:
    """What the panel shows of a scan's data as text: the share of lines and of bytes kept,
    the sizes, the malformed and first matching lines counted in words, and the breakdown's
    rows (label, ``kept / lines``, the share kept, and ``rest`` for the row of the groups not
    listed)."""
    breakdown = data["breakdown"]
    rows = [] if not breakdown or not breakdown["group_by"] else _breakdown.rows(breakdown, "groups", count_rest=True)
    pairs = [(data["matched"], data["total"]), (data["matched_bytes"], data["bytes"])]
    shares = percents(pairs + [(r["matched"], r["lines"]) for r in rows])
    listed = len(breakdown["groups"]) if breakdown else 0
    return {
        "line_share": shares[0],
        "byte_share": shares[1],
        "matched_bytes": size(data["matched_bytes"]),
        "bytes": size(data["bytes"]),
        "malformed": plural(data["malformed"], "malformed line"),
        "lines": plural(len(data.get("lines") or []), "matching line"),
        "groups": [
            {
                "label": r["label"],
                "kept": f"{r['matched']:,} / {r['lines']:,}",
                "share": share,
                "line_share": r["line_share"],
                "rest": i >= listed,
            }
            for i, (r, share) in enumerate(zip(rows, shares[2:]))
        ],
    }


class _Superseded(Exception):
    """Raised from a scan's progress callback to stop a scan of a filter the rows no longer say."""


def _checked_sample(sample: object) -> Any:
    """``sample`` as ``Filter.scan`` takes its inputs, checked when the builder is made rather
    than when its first scan starts (in the background, where an error is only a status)."""
    paths = (str, os.PathLike)
    if sample is None or isinstance(sample, paths):
        return sample
    bad: object = sample
    if isinstance(sample, Sequence) and not isinstance(sample, (bytes, bytearray)):
        bad = next((item for item in sample if not isinstance(item, paths)), None)
        if bad is None:
            return sample
    raise TypeError(
        f"sample is a log file, folder or glob (str or os.PathLike), or a list of them, not {type(bad).__name__}"
    )


class FilterBuilder(anywidget.AnyWidget):
    """The dashboard's filter builder as a Jupyter widget.

    ``FilterBuilder(dataset="http_requests", filter=None, sample=None)``: ``filter`` (a
    ``Filter``, its JSON or text form, or a dict) is drawn as rows, or shown as text where it
    cannot be read; ``sample`` (log files, folders or globs, as ``Filter.scan`` takes them) is
    scanned with the filter whenever the filter is valid, in the background, ``debounce``
    seconds after the last change. ``builder.filter`` is always the ``Filter`` the rows (or the
    text) say: ``None`` with no rows, and it raises ``FilterError`` as ``Filter.parse`` would
    while a row is incomplete. ``scope`` picks the account dataset of a name both scopes have;
    ``max_operators`` / ``max_bytes`` change the limits shown (the API's 30 and 1000 by
    default). ``breakdown`` (a field name, also chosen in the widget) breaks the sample's counts
    down by that field's values (``Filter.scan(group_by=...)``, the 10 largest groups).
    A dataset, scope or breakdown that does not fit is refused with the core's message when
    the builder is made, or set (``traitlets.TraitError``); the builder keeps what it had.
    """

    _esm = _HERE / "builder.js"
    _css = _HERE / "builder.css"

    dataset = traitlets.Unicode("http_requests").tag(sync=True)
    """The dataset whose fields the rows offer (synced with the front end)."""
    scope = traitlets.Unicode("zone").tag(sync=True)
    """The dataset's scope, ``"zone"`` or ``"account"``."""
    schema = traitlets.Dict().tag(sync=True)
    """The dataset's fields, types and operators, as the front end shows them."""
    tree = traitlets.Dict().tag(sync=True)
    """The rows and groups, as the front end edits them."""
    mode = traitlets.Enum(("rows", "text"), "rows").tag(sync=True)
    """``"rows"`` or ``"text"``: the view shown."""
    text = traitlets.Unicode("").tag(sync=True)
    """The filter's text form, as the text view edits it."""
    report = traitlets.Dict().tag(sync=True)
    """What the panel shows: problems, limits, text and JSON forms."""
    sample_report = traitlets.Dict().tag(sync=True)
    """What the filter keeps on the sample (the last scan's counts and breakdown)."""
    breakdown = traitlets.Unicode("").tag(sync=True)
    """The field the sample's breakdown groups by (empty: none)."""

    def __init__(
        self,
        dataset: str = "http_requests",
        filter: Filter | Mapping[str, Any] | str | None = None,
        sample: _LogPath | Sequence[_LogPath] | None = None,
        *,
        scope: str | None = None,
        max_operators: int | None = None,
        max_bytes: int | None = None,
        breakdown: str | None = None,
        debounce: float = 0.4,
    ) -> None:
        resolved = _rows.resolve_scope(dataset, scope)
        self._rows = _rows.Rows()
        self._filter: Filter | None = None
        self._error: FilterError | None = None
        self._max_operators = max_operators
        self._max_bytes = max_bytes
        self._sample = _checked_sample(sample)
        self._debounce = debounce
        self._lock = threading.Lock()
        self._timer: threading.Timer | None = None
        self._generation = 0
        self._scanned: dict[tuple[str, str], tuple[dict[str, Any], ScanResult]] = {}
        self._sample_result: ScanResult | None = None
        self._sample_idle = threading.Event()
        self._sample_idle.set()
        self._ready = False
        super().__init__(
            dataset=dataset, scope=resolved, schema=_rows.schema(dataset, resolved), breakdown=breakdown or ""
        )
        self._open(filter)
        self._ready = True
        self._refresh()

    # -- what the rows say ------------------------------------------------------------------

    @property
    def filter(self) -> Filter | None:
        """The ``Filter`` the rows (or the text) say; ``None`` when there are none. Raises
        ``FilterError``, the error ``Filter.parse`` gives, while they do not make a filter."""
        if self._error is not None:
            raise self._error
        return self._filter

    @filter.setter
    def filter(self, value: Filter | Mapping[str, Any] | str | None) -> None:
        self._open(value)
        self._refresh()

    @property
    def problems(self) -> list[dict[str, Any]]:
        """The problems shown: those of reading the rows, else ``filter.problems(dataset)``;
        each with ``path``, ``code``, ``message`` and ``node``, the id of its row or group."""
        return list(self.report.get("problems", []))

    @property
    def sample_result(self) -> ScanResult | None:
        """The last scan of the sample (for the filter the rows said then)."""
        return self._sample_result

    def _open(self, value: Filter | Mapping[str, Any] | str | None) -> None:
        """Draws ``value`` as rows, or shows it as text where it is not a filter."""
        f: Filter | None
        if value is None or isinstance(value, Filter):
            f = value
        elif isinstance(value, Mapping):
            f = Filter.from_dict(value)
        elif isinstance(value, str):
            try:
                f = _rows.parse_text(value)
            except FilterError:
                self.set_trait("tree", self._rows.empty())
                self.set_trait("text", value)
                self.set_trait("mode", "text")
                return
        else:
            raise TypeError(f"filter= takes a Filter, its JSON or text form, or a dict; not {type(value).__name__}")
        self.set_trait("tree", self._rows.draw(f))
        self.set_trait("text", "" if f is None else f.to_text())
        self.set_trait("mode", "rows")

    def _source(self) -> tuple[Callable[[], Filter | None], dict[str, str]]:
        """How to make the filter the rows (or the text) say, and where each row is in it."""
        if self.mode == "text":
            text = self.text
            return (lambda: _rows.parse_text(text)), {}
        document, paths = self._rows.document(self.tree, self._kinds())
        return (lambda: _rows.parse_rows(document)), paths

    def _kinds(self) -> dict[str, str]:
        return {f["name"]: f["kind"] for f in self.schema["fields"]}

    @traitlets.observe("tree", "text")
    def _on_edit(self, change: Mapping[str, Any]) -> None:
        if self._ready and (change["name"] == "tree") == (self.mode == "rows"):
            self._refresh()

    @traitlets.observe("breakdown")
    def _on_breakdown(self, change: Mapping[str, Any]) -> None:
        if self._ready:
            self._refresh()

    @traitlets.observe("mode")
    def _on_mode(self, change: Mapping[str, Any]) -> None:
        if not self._ready:
            return
        if change["new"] == "text":
            # The text box starts with what the rows say: their text form, else their JSON.
            document, _ = self._rows.document(self.tree, self._kinds())
            try:
                f = _rows.parse_rows(document)
                self.set_trait("text", "" if f is None else f.to_text())
            except FilterError:
                self.set_trait("text", json.dumps(document))
        else:
            try:
                f = _rows.parse_text(self.text)
            except FilterError:
                # Text that is not a filter cannot be drawn: it stays text, its problems shown.
                self.set_trait("mode", "text")
                return
            self.set_trait("tree", self._rows.draw(f))
        self._refresh()

    # A dataset or scope is checked as it is set (by Python or by the front end), so that a bad
    # one is refused with the core's message and never kept: the builder stays as it was.
    # Several set at once (``hold_trait_notifications``, or the front end's scope and dataset
    # together) are checked together, when all are set; a refused one undoes them all.
    @traitlets.validate("dataset")
    def _valid_dataset(self, proposal: Mapping[str, Any]) -> str:
        return self._checked("dataset", proposal["value"], lambda: _rows.resolve_scope(proposal["value"], None))

    @traitlets.validate("scope")
    def _valid_scope(self, proposal: Mapping[str, Any]) -> str:
        return self._checked("scope", proposal["value"], lambda: _rows.resolve_scope(self.dataset, proposal["value"]))

    @traitlets.validate("breakdown")
    def _valid_breakdown(self, proposal: Mapping[str, Any]) -> str:
        """A field of the dataset (what the scan breaks the sample down by), or "" for none."""

        def check() -> None:
            value = proposal["value"]
            if value and value not in dataset_fields(self.dataset, self.scope):
                found = [
                    p["message"] for p in (field(value) == "").problems(self.dataset) if p["code"] == "unknown_field"
                ]
                raise ValueError(found[0] if found else f"`{value}` is not a field of {self.dataset}")

        return self._checked("breakdown", proposal["value"], check)

    @staticmethod
    def _checked(name: str, value: object, check: Callable[[], object]) -> str:
        if not isinstance(value, str):
            raise traitlets.TraitError(f"FilterBuilder.{name} is a str, not {type(value).__name__}")
        try:
            check()
        except (EscpushError, ValueError) as err:
            raise traitlets.TraitError(f"FilterBuilder.{name} = {value!r} refused: {err}") from err
        return value

    @traitlets.observe("dataset", "scope")
    def _on_dataset(self, change: Mapping[str, Any]) -> None:
        if not self._ready:
            return
        # A new dataset keeps the scope set with it (or before) where it has one, as the
        # front end sends them together; else it takes its own (zone first, as the core does).
        scope: str | None = self.scope
        if change["name"] == "dataset" and self.dataset not in datasets(self.scope):
            scope = None
        resolved = _rows.resolve_scope(self.dataset, scope)
        with self.hold_trait_notifications():
            self.set_trait("scope", resolved)
            self.set_trait("schema", _rows.schema(self.dataset, resolved))
            if self.breakdown not in dataset_fields(self.dataset, resolved):
                self.set_trait("breakdown", "")  # a field of the dataset before: no breakdown now
        self._refresh()

    def _refresh(self) -> None:
        """Recomputes the report, and schedules a scan of the sample for a valid filter."""
        make, paths = self._source()
        report, f, error = _rows.report(make, paths, self.dataset, self.scope, self._max_operators, self._max_bytes)
        self._filter, self._error = f, error
        self.report = dict(report)
        self._schedule_scan(f if report["valid"] else None, report)

    # -- the sample -------------------------------------------------------------------------

    def _schedule_scan(self, f: Filter | None, report: _rows.Report) -> None:
        if self._sample is None:
            self.sample_report = {"status": "off"}
            return
        with self._lock:
            self._generation += 1
            generation = self._generation
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None
            if f is None:
                status = "empty" if report["empty"] else "invalid"
                self.sample_report = {**self._sample_label(), "status": status}
                self._sample_idle.set()
                return
            cached = self._scanned.get((f.to_json(), self.breakdown))
            if cached is not None:
                self.sample_report, self._sample_result = cached
                self._sample_idle.set()
                return
            self._sample_idle.clear()
            self.sample_report = {**self._last_counts(), **self._sample_label(), "status": "waiting"}
            self._timer = threading.Timer(self._debounce, self._scan, args=(generation, f, self.breakdown))
            self._timer.daemon = True
            self._timer.start()

    def _scan(self, generation: int, f: Filter, breakdown: str) -> None:
        with self._lock:
            if generation != self._generation:
                return
            self.sample_report = {**self.sample_report, "status": "scanning"}

        def progress(read: int, lines: int) -> None:
            # Every 0.1 s: the lines read so far, and a scan whose filter is no longer the
            # rows' is stopped (the exception cancels it).
            with self._lock:
                if generation != self._generation:
                    raise _Superseded
                self.sample_report = {**self.sample_report, "read_lines": lines, "read_bytes": read}

        try:
            result = f.scan(
                self._sample,
                limit=_SAMPLE_LINES,
                progress=progress,
                group_by=breakdown or None,
                top=_BREAKDOWN_TOP if breakdown else None,
            )
            shown = self._counts(result, f)
        except _Superseded:
            return
        except EscpushError as err:
            result = None
            shown = {**self._sample_label(), "status": "error", "error": str(err)}
        with self._lock:
            if generation != self._generation:
                return
            if result is not None:
                self._sample_result = result
                self._scanned[(f.to_json(), breakdown)] = (shown, result)
                while len(self._scanned) > _SCANS_KEPT:
                    del self._scanned[next(iter(self._scanned))]
            self.sample_report = shown
            self._sample_idle.set()

    def wait_for_sample(self, timeout: float | None = None) -> ScanResult | None:
        """Waits until the sample's scan for the current rows has finished (or ``timeout``
        seconds), and returns it; None when there is no sample or the filter is not valid."""
        self._sample_idle.wait(timeout)
        return self._sample_result if self.sample_report.get("status") == "done" else None

    def _sample_label(self) -> dict[str, Any]:
        sample = self._sample
        if isinstance(sample, (str, os.PathLike)):
            label = os.fspath(sample)
        else:
            label = ", ".join(os.fspath(s) for s in sample or [])
        return {"sample": label}

    def _last_counts(self) -> dict[str, Any]:
        """The counts shown until the new ones come: the previous scan's, marked stale."""
        last = {k: v for k, v in self.sample_report.items() if k not in ("status", "error", "read_lines", "read_bytes")}
        return {**last, "stale": bool(last.get("total") is not None)}

    def _counts(self, result: ScanResult, f: Filter) -> dict[str, Any]:
        """The sample's counts from one ``to_dict()``, with what the panel shows of them as
        text (``shown``): the shares by core's formatter (one call for all), the sizes by
        ``_format.size`` and the breakdown's rows by ``_breakdown.rows``, the rest row labelled
        as the text tables label it, so that the front end restates none of these rules."""
        data = result.to_dict()
        report = {k: data[k] for k in ("total", "matched", "malformed", "bytes", "matched_bytes")}
        report.update({k: data[k] for k in ("line_share", "byte_share", "summary", "seconds")})
        first = data["first_malformed"]
        return {
            **self._sample_label(),
            "status": "done",
            "stale": False,
            "filter": f.to_json(),
            **report,
            "inputs": len(data["per_input"]),
            "first_malformed": None if first is None else [first["source"], first["line"], first["reason"]],
            "lines": list(data.get("lines") or []),
            "breakdown": data["breakdown"],
            "shown": _shown(data),
        }

    def __repr__(self) -> str:
        try:
            if self._error is None:
                shown = repr(self._filter)
            else:
                shown = f"<not a filter: {plural(len(self.problems), 'problem')}>"
        except Exception:  # a repr never raises
            shown = "?"
        return f"FilterBuilder(dataset={self.dataset!r}, filter={shown})"
