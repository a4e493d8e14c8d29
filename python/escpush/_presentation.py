"""The presentation of the native results: Python owns it, Rust owns the data.

The native classes (``Filter``, ``ScanResult``, ``EscStatus``, ``EscAssessment``) give their
data as plain values (``to_dict()``, getters); how they look in Jupyter (``_repr_html_``), as
DataFrames (``to_pandas``, ``to_polars``) and as pictures (``plot``) is written here, in
Python, and installed on the classes once, at ``import escpush`` (:func:`install`). A call
goes Python → native and never back: the native module calls no Python function.

The renderers live in ``_display`` (HTML), ``_scan_views`` and ``_esc_views`` (tables and
plots), over the rows of ``_breakdown`` for a scan's breakdown; each is imported on first
use, so ``import escpush`` does without them (and without pandas, polars and matplotlib).
Each render reads a result's data once (``ScanResult.to_dict()``) and formats its shares in
one call to core's formatter (``_format.percents``). One method here is no presentation:
``Transformer.run``, a local run, in Python because it drives DataFusion's Python module
(``_transformer``, imported on first use too).
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, Literal

    from ._escpush import EscAssessment, EscStatus, Filter, PreviewResult, ScanResult, Transformer


def _filter_repr_html_(self: Filter) -> str:
    """In Jupyter: the filter as a tree, its size against the default limits, its JSON."""
    from . import _display
    from ._escpush import DEFAULT_MAX_BYTES, DEFAULT_MAX_OPERATORS

    return _display.filter_html(self, DEFAULT_MAX_OPERATORS, DEFAULT_MAX_BYTES)


def _filter_to_pyspark(self: Filter, *, dataset: str, scope: str | None = None) -> Any:
    """The filter as a ``pyspark.sql.Column`` over a DataFrame of ``dataset``'s columns
    (``df.where(f.to_pyspark(dataset="http_requests"))``); needs pyspark."""
    sql = self.to_sql("spark", dataset=dataset, scope=scope)
    from .spark import _column

    return _column(sql)


def _transformer_run(
    self: Transformer,
    sample: Any,
    *,
    version_id: int | None = None,
    output: Any = None,
    threads: int | None = None,
    strict: bool = False,
    prefilter: bool = True,
    engine: str = "escpush",
) -> Any:
    """Runs its SQL (the latest version, or ``version_id``, fetched from the account) on
    local logs: ``escpush.run_transformer(transformers.content(id), sample, ...)``
    (``engine="datafusion"`` needs the ``transform`` extra)."""
    from ._transformer import run_transformer

    code = self._code(version_id=version_id)
    return run_transformer(
        code, sample, output=output, threads=threads, strict=strict, prefilter=prefilter, engine=engine
    )


def _filter_to_polars(self: Filter, *, dataset: str, scope: str | None = None) -> Any:
    """The filter as a ``polars.Expr`` over a frame of ``dataset``'s columns
    (``df.filter(f.to_polars(dataset="http_requests"))``); needs polars."""
    sql = self.to_sql("polars", dataset=dataset, scope=scope)
    from ._schemas import polars_expr

    return polars_expr(sql)


def _scan_to_pandas(self: ScanResult, table: str = "groups") -> Any:
    """A table as a ``pandas.DataFrame``: ``"groups"`` (the default), ``"buckets"`` or
    ``"inputs"`` (needs pandas)."""
    from . import _scan_views

    return _scan_views.to_pandas(self, table)


def _scan_to_polars(self: ScanResult, table: str = "groups") -> Any:
    """A table as a ``polars.DataFrame``: ``"groups"`` (the default), ``"buckets"`` or
    ``"inputs"`` (needs polars)."""
    from . import _scan_views

    return _scan_views.to_polars(self, table)


def _scan_plot(self: ScanResult, *, top: int = 10, by: Literal["lines", "bytes"] = "lines") -> Any:
    """Draws what the filter keeps and drops (matplotlib): over time with ``every``, for
    the top groups with ``group_by``; returns the figure."""
    from . import _scan_views

    return _scan_views.plot(self, top, by)


def _scan_repr_html_(self: ScanResult) -> str:
    """In Jupyter: the counts with their shares, the first malformed line, the throughput."""
    from . import _display

    return _display.scan_result_html(self)


def _status_repr_html_(self: EscStatus) -> str:
    """In Jupyter: the state explained; the secret only as set or not."""
    from . import _display

    return _display.esc_status_html(self)


def _assessment_plot(self: EscAssessment, ax: Any = None) -> Any:
    """Draws what changed without ESC, by stage and URL (matplotlib): each URL in each
    stage with its status with ESC → without (green where it passed its check), and the
    differences of each kind per URL. ``ax``: one Axes (the stages alone) or two; returns
    the figure."""
    from . import _esc_views

    return _esc_views.plot(self, ax)


def _assessment_repr_html_(self: EscAssessment) -> str:
    """In Jupyter: the stages, the differences with their replacements, the way back."""
    from . import _display

    return _display.esc_assessment_html(self)


def _preview_to_pandas(self: PreviewResult, table: str = "inputs") -> Any:
    """A table as a ``pandas.DataFrame``: ``"inputs"`` (the default), ``"groups"`` or
    ``"buckets"`` (needs pandas)."""
    from . import _preview_views

    return _preview_views.to_pandas(self, table)


def _preview_to_polars(self: PreviewResult, table: str = "inputs") -> Any:
    """A table as a ``polars.DataFrame`` (see ``to_pandas``; needs polars)."""
    from . import _preview_views

    return _preview_views.to_polars(self, table)


def _preview_plot(self: PreviewResult, *, top: int = 10) -> Any:
    """The bytes delivered (uncompressed, as billed) per bucket of ``every`` (a day with
    ``every="1d"``) and for the ``top`` groups by bytes delivered, in decimal units (kB, MB,
    GB); a matplotlib figure (needs matplotlib)."""
    from . import _preview_views

    return _preview_views.plot(self, top)


def _preview_repr_html_(self: PreviewResult) -> str:
    """In Jupyter: lines read, kept, delivered, batches and bytes, the month projected by the
    sample's span and priced by the job's destination (or why it cannot be), and the
    breakdown with each row's GB a month."""
    from . import _preview_views

    return _preview_views.repr_html(self)


def dataset_schema(dataset: str, format: str = "duckdb", *, scope: str | None = None, table: str | None = None) -> Any:
    """The dataset's columns with the types ``Filter.to_sql`` assumes: ``CREATE TABLE`` text for a
    SQL dialect, or a ``pyarrow.Schema`` / polars ``Schema`` / pyspark ``StructType`` for
    ``format="pyarrow"`` / ``"polars"`` / ``"pyspark"`` (each needs its package)."""
    from ._escpush import _dataset_schema

    data = _dataset_schema(dataset, format, scope=scope, table=table)
    if isinstance(data, str):
        return data
    from ._schemas import build

    return build(format, data)


def install() -> None:
    """Puts each method on its native class (called once by
    ``escpush/__init__.py``; again on a reload, which is harmless)."""
    from . import _escpush

    methods: dict[type, dict[str, Callable[..., Any]]] = {
        _escpush.Filter: {
            "to_pyspark": _filter_to_pyspark,
            "to_polars": _filter_to_polars,
            "_repr_html_": _filter_repr_html_,
        },
        _escpush.ScanResult: {
            "to_pandas": _scan_to_pandas,
            "to_polars": _scan_to_polars,
            "plot": _scan_plot,
            "_repr_html_": _scan_repr_html_,
        },
        _escpush.PreviewResult: {
            "to_pandas": _preview_to_pandas,
            "to_polars": _preview_to_polars,
            "plot": _preview_plot,
            "_repr_html_": _preview_repr_html_,
        },
        _escpush.EscStatus: {"_repr_html_": _status_repr_html_},
        _escpush.EscAssessment: {"plot": _assessment_plot, "_repr_html_": _assessment_repr_html_},
        # Not presentation: a local run, in Python because it drives DataFusion's Python module.
        _escpush.Transformer: {"run": _transformer_run},
    }
    for native, named in methods.items():
        for name, method in named.items():
            setattr(native, name, method)
