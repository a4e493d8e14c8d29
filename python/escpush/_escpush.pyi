"""Type stubs of the native module escpush._escpush (checked by mypy.stubtest)."""

import builtins
import datetime
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from types import TracebackType
from typing import Any, ClassVar, Literal, NoReturn, TypedDict, final

from typing_extensions import TypeAlias, disjoint_base

from ._job import Job
from ._transformer import TransformerRun
from .errors import FilterProblem

__version__: str
"""The version of escpush (the package's and the native module's, one number)."""
__all__ = [
    "DEFAULT_MAX_BYTES",
    "DEFAULT_MAX_OPERATORS",
    "DEFAULT_MAX_RETRIES",
    "DEFAULT_TIMEOUT",
    "MAX_RETRIES",
    "_DEFAULT_FETCH_TIMEOUT",
    "_DEFAULT_MAX_RETRY_AFTER",
    "_DEFAULT_RETRY_BACKOFF",
    "_DEFAULT_SETTLE",
    "_ENDPOINTS",
    "_ENV_ACCOUNT_ID",
    "_ESC_COOKIE_NAME",
    "_ESC_IGNORED_HEADERS",
    "_EXPORT_FORMATS",
    "_FILTER_FORMS",
    "_JOB_FIELDS",
    "_LOG_TARGET",
    "_MASK",
    "_MAX_SCAN_THREADS",
    "_OPERATORS",
    "_SCOPES",
    "_SECRET_BODY_KEYS",
    "_SECRET_HEADERS",
    "_SQL_DIALECTS",
    "Account",
    "Client",
    "Cost",
    "CostChange",
    "EmulatorServer",
    "Esc",
    "EscAssessment",
    "EscDisabled",
    "EscStatus",
    "Field",
    "Filter",
    "LogpullOptions",
    "Logpush",
    "PreviewResult",
    "Pricing",
    "ScanResult",
    "Scope",
    "Transformer",
    "Transformers",
    "Zone",
    "_RecordWriter",
    "_Terminating",
    "__version__",
    "_check_client_settings",
    "_closest",
    "_dataset_schema",
    "_format_gb",
    "_job_filter",
    "_load_json",
    "_percents",
    "_redact_job",
    "_register",
    "_spark_inputs",
    "_spark_merge",
    "_spark_preview_job",
    "_spark_preview_merge",
    "_spark_preview_part",
    "_spark_scan_part",
    "_spark_select_part",
    "_sql_dialect",
    "_transformer_input",
    "_transformer_prefilter",
    "_transformer_run",
    "account_cost",
    "check_terraform_plan",
    "check_transformer",
    "dataset_fields",
    "datasets",
    "esc_cookie",
    "esc_replacements",
    "field",
    "field_operators",
    "monthly_cost",
    "preview_job",
    "preview_transformer",
    "project_cost",
    "redact_destination_conf",
    "transformer_to_filter",
]

_Scalar: TypeAlias = str | int | bool
_LogPath: TypeAlias = str | os.PathLike[str]
_LogPaths: TypeAlias = _LogPath | Sequence[_LogPath]
_Progress: TypeAlias = Callable[[int, int], object]
_Time: TypeAlias = datetime.datetime | datetime.date | str | int | float
_Every: TypeAlias = str | int | datetime.timedelta
_Table: TypeAlias = Literal["groups", "buckets", "inputs"]

@final
class Filter:
    """A log-push job filter, ``{"where": ...}``."""

    def __new__(cls, text: str) -> Filter: ...
    @staticmethod
    def parse(text: str | bytes) -> Filter:
        """Parses filter JSON: `{"where": ...}` as text, or that text quoted and escaped as it
        stands in a job payload. Raises `FilterError` listing every problem."""
    @staticmethod
    def from_dict(obj: Mapping[str, Any] | str | bytes) -> Filter:
        """Builds a filter from a dict `{"where": {...}}` (or a str, as `parse`)."""
    def to_json(self) -> str:
        """The canonical compact JSON, one spelling per filter whatever made it: an integer
        compared by a single-value operator is written as a string (``"value":"500"``, SPEC
        B.1), the values of ``in`` / ``!in`` as written."""
    def to_dict(self) -> dict[str, Any]:
        """The filter as plain dicts and lists."""
    @staticmethod
    def from_text(text: str | bytes, dataset: str | None = None, *, scope: str | None = None) -> Filter:
        """Reads the text form: `EdgeResponseStatus >= 500 and ClientCountry in ["cn", "ru"]`. With
        a dataset, field names are checked against it. Raises `FilterError` whose one problem has
        the path `line L, column C` and a caret under the spot."""
    def to_text(self) -> str:
        """The canonical text form; `Filter.from_text(f.to_text()) == f`."""
    @staticmethod
    def parse_any(text: str | bytes) -> Filter:
        """Reads a filter written either way: JSON (also the quoted form) when the text starts with
        `{` or is one JSON string, else the text form. Raises `FilterError`."""
    def equivalent(
        self, other: Filter | Mapping[str, Any] | str | bytes, dataset: str | None = None, *, scope: str | None = None
    ) -> bool:
        """Whether the two filters match exactly the same records, by the evaluation rules (missing
        fields, types, arrays, floats, integers of any size); with a dataset, among the records its
        schema allows. A decision, not a sample. `other` is a `Filter` or any form
        `Filter.from_dict` takes."""
    def counterexample(
        self, other: Filter | Mapping[str, Any] | str | bytes, dataset: str | None = None, *, scope: str | None = None
    ) -> dict[str, Any] | None:
        """A record (a dict) on which exactly one of the two filters matches, fitting the dataset's
        schema when one is given; `None` when they are equivalent."""
    def compact(self, dataset: str | None = None, *, scope: str | None = None) -> Filter:
        """An equivalent filter that is never larger (fewer operators first, then fewer bytes):
        flattened, deduplicated, `in` sets merged, shared conditions factored out, implied
        conditions dropped; with a dataset, equivalent on the records its schema allows (where an
        `or` of `eq`s becomes `in`). Every rewrite is proven by `equivalent`."""
    @property
    def operator_count(self) -> int:
        """How many comparison operators (conditions) the filter holds."""
    @property
    def byte_size(self) -> int:
        """The size of the canonical JSON in bytes."""
    @property
    def fields(self) -> list[str]:
        """The field names the filter reads, each once, in order of first use."""
    def validate(
        self,
        dataset: str | None = None,
        *,
        scope: str | None = None,
        max_operators: int | None = None,
        max_bytes: int | None = None,
    ) -> None:
        """Raises ``FilterError`` listing every problem the API would refuse. The limits
        default (``None``) to the API's, 30 operators and 1000 bytes."""
    def problems(
        self,
        dataset: str | None = None,
        *,
        scope: str | None = None,
        max_operators: int | None = None,
        max_bytes: int | None = None,
    ) -> list[FilterProblem]:
        """The problems `validate` would raise, as a list of dicts (path, code, message)."""
    # SQL and dataframes (issue 13)
    def to_sql(self, dialect: str, *, dataset: str, scope: str | None = None) -> str:
        """The filter as a boolean SQL expression for a ``WHERE`` clause in ``dialect``
        (duckdb, datafusion, spark, clickhouse, bigquery, snowflake, trino, postgres,
        transformer, polars), over a table typed by ``escpush.dataset_schema(dataset, dialect)``;
        it gives the answers of ``matches`` there."""
    def to_query(self, dialect: str, *, dataset: str, table: str | None = None, scope: str | None = None) -> str:
        """``SELECT * FROM <table> WHERE <to_sql>``; ``table`` defaults to the dataset."""
    def to_transformer(self, *, dataset: str, fields: Sequence[str] | None = None, scope: str | None = None) -> str:
        """The Logpush transformer that delivers the records this filter keeps: ``SELECT
        <fields> FROM <dataset> WHERE <the filter in the transformer dialect>`` (``*`` without
        ``fields``, a job's ``field_names``); ``check_transformer`` accepts it. Raises
        ``InvalidInput`` for a condition the transformer dialect cannot express (arrays,
        integer comparisons on ``int or string`` fields) and ``FilterError`` for an unknown
        field (with a did-you-mean)."""
    def to_pyspark(self, *, dataset: str, scope: str | None = None) -> Any:
        """The filter as a ``pyspark.sql.Column`` (needs pyspark: ``escpush[spark]``)."""
    def to_polars(self, *, dataset: str, scope: str | None = None) -> Any:
        """The filter as a ``polars.Expr`` (needs polars: ``escpush[polars]``)."""
    def matches(self, record: Mapping[str, Any] | str | bytes) -> bool:
        """Whether a log record (a dict, or one JSON line) passes. A line is read as ``scan``
        reads it (a key given twice: the last counts, as in ``json.loads``); a string that
        holds a lone surrogate never equals a filter value, while prefixes, suffixes and
        substrings around it still match. Raises ``InvalidInput`` for a line that is not a
        JSON object or a record nested deeper than a filter can be."""
    def scan(
        self,
        paths: _LogPaths,
        *,
        strict: bool = False,
        threads: int | None = None,
        progress: _Progress | None = None,
        since: _Time | None = None,
        until: _Time | None = None,
        limit: int | None = None,
        group_by: str | Sequence[str] | None = None,
        every: _Every | None = None,
        top: int | None = None,
        time_field: str | None = None,
        dataset: str | None = None,
    ) -> ScanResult:
        """Runs the filter over NDJSON logs (plain or gzip) on every core, with the GIL
        released, and counts the lines and bytes that match. ``paths``: files, folders (read
        recursively: their .gz, .log, .ndjson, .jsonl and .json files), globs (expanded here,
        sorted), object storage URLs (``s3://bucket/prefix/``, ``r2://``, ``gs://``,
        ``az://``), or ``"-"`` for stdin. ``since``/``until`` (datetime, date, ISO-8601 string
        or unix seconds; naive means UTC) keep the log-push files whose time range, read from
        their names, overlaps ``[since, until)``. With ``limit=N`` the first N matching lines
        come back in ``lines``. ``threads``: worker threads, 0 or None one per core, at most
        256 (escpush-scan's cap; more raises ``InvalidInput``). ``progress(bytes, lines)`` is
        called about every 0.1 s. Raises
        ``ScanError`` naming an input that cannot be read (with the counts so far in its
        message and ``partial``) and, with ``strict=True``, the first line that is not a JSON
        object.

        Breakdowns, counted in the same pass: ``group_by`` (a field or a list) counts the
        lines and bytes read and kept per distinct value (``result.groups``, most lines
        first; a value as ``json.loads`` reads it, ``null`` and a missing field each a group
        of their own), ``top=N`` lists only the N largest, the rest as ``other``, and bounds
        the groups held while scanning; ``every`` (``"1h"``, ``"15m"``, seconds or a
        ``timedelta``) counts per time bucket (``result.buckets``) of ``time_field``, by
        default the dataset's time field (``dataset``, by default ``http_requests``:
        ``EdgeStartTimestamp``), read in any log-push timestamp format; lines without a
        readable time are counted apart (``no_time``, ``unreadable_time``). At most 100,000
        buckets are listed, the first in time; the lines of later ones are counted together
        (``other_buckets``, whose ``from`` is the first bucket left out). A bucket's bounds
        are clipped to the years 0001 to 9999 (an hour bucket of 9999-12-31T23:00:00Z ends
        at 9999-12-31T23:59:59Z)."""
    def select(
        self,
        src: _LogPaths,
        dst: _LogPath,
        *,
        strict: bool = False,
        threads: int | None = None,
        progress: _Progress | None = None,
        since: _Time | None = None,
        until: _Time | None = None,
        limit: int | None = None,
        group_by: str | Sequence[str] | None = None,
        every: _Every | None = None,
        top: int | None = None,
        time_field: str | None = None,
        dataset: str | None = None,
    ) -> ScanResult:
        """Writes the lines of ``src`` that match to the file ``dst``, in input order (only the
        first ``limit`` with a limit; the counts cover every line)."""
    def __invert__(self) -> Filter: ...
    def __and__(self, other: Filter, /) -> Filter: ...
    def __or__(self, other: Filter, /) -> Filter: ...
    def __rand__(self, other: Filter, /) -> Filter: ...
    def __ror__(self, other: Filter, /) -> Filter: ...
    def __bool__(self) -> NoReturn:
        """Raises ``TypeError``: a filter has no truth value (combine with ``&``, ``|``, ``~``)."""
    def __eq__(self, other: object, /) -> bool: ...
    def __hash__(self) -> int: ...
    def __reduce__(self) -> tuple[type[Filter], tuple[str]]: ...
    def _repr_html_(self) -> str:
        """In Jupyter: the filter as a tree, its size against the default limits, its JSON."""

@final
class ScanResult:
    """What a scan found: lines read (blank lines not counted), lines that match, malformed
    lines, bytes of NDJSON read (after decompression) and kept, seconds taken, and the same per
    input."""

    def __new__(
        cls,
        total: int,
        matched: int,
        malformed: int = 0,
        bytes: int = 0,
        seconds: float = 0.0,
        first_malformed: tuple[str, int, str] | None = None,
        *,
        matched_bytes: int = 0,
        source: str | None = None,
        per_input: Sequence[ScanResult] = ...,
        lines: Sequence[str] | None = None,
    ) -> ScanResult: ...
    @property
    def total(self) -> int:
        """Lines read, blank lines not counted (malformed lines are)."""
    @property
    def matched(self) -> int:
        """Lines that pass the filter."""
    @property
    def malformed(self) -> int:
        """Lines that are not one JSON object."""
    @property
    def bytes(self) -> int:
        """Bytes of NDJSON read (after decompression)."""
    @property
    def seconds(self) -> float:
        """Wall time of the scan, in seconds."""
    @property
    def first_malformed(self) -> tuple[str, int, str] | None:
        """The first malformed line as (input, 1-based line number, what is wrong)."""
    @property
    def matched_bytes(self) -> int:
        """Bytes of the lines that match, with their line breaks."""
    @property
    def source(self) -> str | None:
        """The input these counts are about (in ``per_input``); None for a whole scan."""
    @property
    def per_input(self) -> list[ScanResult]:
        """The counts of each input, in input order (folders, globs and prefixes expanded)."""
    @property
    def lines(self) -> list[str] | None:
        """With ``scan(..., limit=N)``: the first N matching lines, without line breaks."""
    @property
    def line_share(self) -> float | None:
        """``matched / total``; None when no line was read."""
    @property
    def byte_share(self) -> float | None:
        """``matched_bytes / bytes``; None when no byte was read."""
    @property
    def summary(self) -> str:
        """The answer in one line: ``keeps 23.1% of lines, 18.4% of bytes``."""
    @property
    def breakdown(self) -> dict[str, Any] | None:
        """With ``group_by`` or ``every``: ``group_by``, ``groups``, ``other`` (the lines of
        the groups not listed, how many ``groups``, and its ``label``, ``(other)``), ``exact`` (False when more groups
        came than could be held: the smallest were then moved to ``other`` as the scan went),
        ``peak_groups``, ``time_field``, ``every`` (seconds), ``buckets`` (at most
        ``max_buckets``, 100,000, the first in time), ``no_time``, ``unreadable_time`` and
        ``other_buckets`` (the lines of the buckets after the first ``max_buckets``, and
        ``from``, the start of the first of them, or None); every row has ``lines``,
        ``matched``, ``bytes``, ``matched_bytes``, ``line_share`` and ``byte_share``."""
    @property
    def groups(self) -> list[dict[str, Any]] | None:
        """With ``group_by``: the groups, most lines first, each with ``key`` (the fields'
        values as ``json.loads`` gives them; a missing field is left out), ``label`` (one per
        group: a string that would read as another value, or in parentheses as ``(missing)``
        and ``(other)`` are, is quoted; with several fields, the values joined by `` · ``, a
        string holding ``·`` or starting with ``[`` or ``{`` quoted) and the counts of a row."""
    @property
    def buckets(self) -> list[dict[str, Any]] | None:
        """With ``every``: the time buckets that hold lines, in time order (the first 100,000),
        each with ``start`` and ``end`` (ISO-8601, UTC; clipped to 0001-01-01T00:00:00Z and
        9999-12-31T23:59:59Z, the times a timestamp can name) and the counts of a row."""
    def to_dict(self) -> dict[str, Any]:
        """Everything as plain data, the shape of ``escpush filter scan --json``."""
    def to_pandas(self, table: _Table = "groups") -> Any:
        """One table (``groups``, ``buckets`` or ``inputs``) as a ``pandas.DataFrame``, with a
        ``share`` column (of the lines read); needs pandas."""
    def to_polars(self, table: _Table = "groups") -> Any:
        """One table as a ``polars.DataFrame`` (a field whose values differ in type holds
        their JSON text); needs polars."""
    def plot(self, *, top: int = 10, by: Literal["lines", "bytes"] = "lines") -> Any:
        """Draws kept against dropped over time (with ``every``) and for the ``top`` groups
        (with ``group_by``); returns the matplotlib figure. Needs matplotlib."""
    def __eq__(self, other: object, /) -> bool: ...
    def _repr_html_(self) -> str:
        """In Jupyter: the counts with their shares, the first malformed line, the throughput."""

@final
class PreviewResult:
    """What a job's preview found and delivered (``Logpush.preview``, ``Job.preview``): lines
    read, malformed, kept by the filter, delivered (kept after ``sample_rate`` too), batches
    (as ``max_upload_*`` cut them), the uncompressed bytes delivered (the billed measure,
    framing included), the gzip bytes written, the bytes read, the time span of the lines, the
    same per input, and the breakdown with ``group_by`` / ``every``."""

    @property
    def lines(self) -> int:
        """Lines read (blank lines not counted; malformed ones are)."""
    @property
    def malformed(self) -> int:
        """Lines that are not one JSON object."""
    @property
    def kept(self) -> int:
        """Lines the job's filter keeps."""
    @property
    def delivered(self) -> int:
        """Lines kept after ``sample_rate`` too: the records delivered."""
    @property
    def batches(self) -> int:
        """Batches, as log-push cuts them (`max_upload_*`)."""
    @property
    def delivered_bytes(self) -> int:
        """Uncompressed bytes delivered, framing included: what log-push bills."""
    @property
    def compressed_bytes(self) -> int | None:
        """The gzip bytes written; None when counting only or writing plain batches."""
    @property
    def bytes_read(self) -> int:
        """Bytes of NDJSON read (after decompression)."""
    @property
    def first_time(self) -> float | None:
        """The earliest time of the lines read (the dataset's time field), unix seconds."""
    @property
    def last_time(self) -> float | None:
        """The latest time of the lines read, unix seconds."""
    @property
    def timed_lines(self) -> int:
        """How many lines had a time."""
    @property
    def span_seconds(self) -> float | None:
        """``last_time - first_time``; None when no line had a time."""
    @property
    def time_field(self) -> str | None:
        """The field the times were read from (the dataset's time field)."""
    @property
    def files(self) -> list[str]:
        """The files written into ``out``, relative to it, in batch order."""
    @property
    def out(self) -> str | None:
        """The folder written, ``"-"`` for stdout, or None (counted only)."""
    @property
    def seconds(self) -> float:
        """Wall time, in seconds."""
    @property
    def dataset(self) -> str:
        """The job's dataset."""
    @property
    def destination_class(self) -> Literal["internal", "external"] | None:
        """How the job's deliveries are billed, read from its ``destination_conf`` (None: the
        job has none)."""
    def cost(
        self,
        *,
        requests_per_day: float | None = None,
        scale: float | None = None,
        destination_class: Literal["internal", "external"] | None = None,
        subtract_allowance: bool = False,
        pricing: Pricing | None = None,
    ) -> Cost:
        """What the job would cost a month, projected from this preview: by the span of the
        sample's times (refused when it has none), or the requests a day its lines stand
        for, or a scale; priced at ``destination_class`` when given (a job without a
        destination; "what if it went to R2"), else at its destination's class; the
        account's allowance shown, and subtracted only when asked."""
    @property
    def summary(self) -> str:
        """One line: lines read, kept, delivered, batches and bytes delivered."""
    @property
    def breakdown(self) -> dict[str, Any] | None:
        """With ``group_by`` or ``every``: a scan's breakdown (``ScanResult.breakdown``), each
        row also with ``delivered`` and ``delivered_bytes`` (its records' bytes; the batches'
        framing is counted in the totals only)."""
    @property
    def per_input(self) -> list[dict[str, Any]]:
        """The counts of each input, in input order, each a dict as in `to_dict()["per_input"]`."""
    def to_dict(self) -> dict[str, Any]:
        """Everything as plain data, the shape of ``escpush logpush preview --json``."""
    def to_pandas(self, table: Literal["inputs", "groups", "buckets"] = "inputs") -> Any:
        """One table as a ``pandas.DataFrame``; needs pandas."""
    def to_polars(self, table: Literal["inputs", "groups", "buckets"] = "inputs") -> Any:
        """One table as a ``polars.DataFrame``; needs polars."""
    def plot(self, *, top: int = 10) -> Any:
        """The bytes delivered (uncompressed, as billed) per bucket of ``every`` and for the
        ``top`` groups by bytes delivered, in decimal units (kB, MB, GB); needs matplotlib."""
    def _repr_html_(self) -> str:
        """The counts, the month projected by the sample's span and priced by the job's
        destination (or why it cannot be), and the breakdown with each row's GB a month."""

class _CheckedTransformer(TypedDict):
    dataset: str
    scope: str

class _TransformerFilter(TypedDict):
    filter: Filter
    fields: list[str] | None
    note: str

def check_transformer(code: str) -> _CheckedTransformer:
    """Checks a Logpush transformer's SQL before upload, as the API does (transformers.mdx):
    one ``SELECT`` (CTEs allowed) whose ``FROM`` is a dataset, no joins, subqueries,
    aggregation, window functions, ``ORDER BY`` or second statement, every field a field of
    the dataset and every operator and function given values of its types, at most 10 KB.
    Returns ``{"dataset", "scope"}``; raises ``InvalidInput`` whose ``errors()`` give each
    problem's place (``line 2, column 3``), code and message (with the rule and its source,
    and a did-you-mean for a mistyped field)."""

def preview_transformer(code: str, input: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The records a job delivers for one input record (none when the ``WHERE`` drops it,
    several after ``unnest``), keys sorted: core's interpreter of the contract, what the
    API's preview endpoint answers. Raises ``InvalidInput`` as ``check_transformer``."""

def transformer_to_filter(code: str) -> _TransformerFilter | None:
    """A transformer whose SQL only filters (``SELECT *`` or the dataset's fields as they
    are, a ``WHERE`` a job filter can say) as the job's ``filter`` and ``fields``
    (``field_names``; ``None`` for ``*``), with a ``note``: the filter is free where a
    transformer is billed per GB of input (pricing.mdx), and where the two differ on a
    record without a field. ``None`` for SQL that reshapes or computes."""

def _transformer_prefilter(code: str) -> Filter | None: ...
def _transformer_input(
    code: str,
    sample: _LogPaths,
    dst: str | os.PathLike[str],
    *,
    prefilter: bool = True,
    threads: int | None = None,
    strict: bool = False,
    progress: _Progress | None = None,
) -> tuple[int, int, list[str] | None]: ...
def _transformer_run(
    code: str,
    sample: _LogPaths,
    dst: str | os.PathLike[str],
    *,
    prefilter: bool = True,
    threads: int | None = None,
    strict: bool = False,
    progress: _Progress | None = None,
) -> tuple[int, int, int, list[str] | None]: ...

@final
class _RecordWriter:
    def __new__(cls, path: str | os.PathLike[str]) -> _RecordWriter: ...
    def write(self, ipc: bytes) -> int:
        """Appends the rows of an Arrow IPC stream (one or more batches); returns how many."""
    def close(self) -> int:
        """Flushes and closes the file; returns the records written."""

def preview_job(
    job: Mapping[str, Any],
    sample: _LogPaths,
    *,
    scope: str | None = None,
    seed: int | None = None,
    group_by: str | Sequence[str] | None = None,
    every: _Every | None = None,
    out: str | os.PathLike[str] | None = None,
    gzip: bool = True,
    threads: int | None = None,
    strict: bool = False,
    progress: _Progress | None = None,
) -> PreviewResult:
    """A job's preview (``Logpush.preview``) of a job given as a dict or an ``escpush.Job``."""

@final
class Field:
    """A log field waiting for an operator; ``field(name)`` makes one."""

    def __new__(cls, name: str) -> Field: ...
    @property
    def name(self) -> str:
        """The field's name."""
    def eq(self, value: _Scalar) -> Filter:
        """`eq`: equals `value` (str, int or bool)."""
    def ne(self, value: _Scalar) -> Filter:
        """`!eq`: does not equal `value` (true where the field is missing)."""
    def lt(self, value: int | str) -> Filter:
        """`lt`: a number less than `value` (an int, or its decimal text)."""
    def le(self, value: int | str) -> Filter:
        """`leq`: a number less than or equal to `value`."""
    def gt(self, value: int | str) -> Filter:
        """`gt`: a number greater than `value`."""
    def ge(self, value: int | str) -> Filter:
        """`geq`: a number greater than or equal to `value`."""
    def starts_with(self, prefix: str) -> Filter:
        """`startsWith`: a string starting with `prefix`."""
    def ends_with(self, suffix: str) -> Filter:
        """`endsWith`: a string ending with `suffix`."""
    def not_starts_with(self, prefix: str) -> Filter:
        """`!startsWith`."""
    def not_ends_with(self, suffix: str) -> Filter:
        """`!endsWith`."""
    def contains(self, value: _Scalar) -> Filter:
        """`contains`: a substring of a string field, an element of an array field."""
    def not_contains(self, value: _Scalar) -> Filter:
        """`!contains`."""
    def is_in(self, values: Iterable[_Scalar]) -> Filter:
        """`in`: the value (or any element of an array field) is one of `values`."""
    def not_in(self, values: Iterable[_Scalar]) -> Filter:
        """`!in`."""
    def op(self, operator: str, value: _Scalar | Iterable[_Scalar]) -> Filter:
        """The condition with the operator named ``operator`` (``"geq"``, ``"!in"``: the API's
        names): ``field(k).op("geq", 500) == field(k).ge(500)``, for code that holds operators
        as text (a form, a table). An unknown name raises ``FilterError`` (``unknown_operator``
        at ``operator``, with what was probably meant), as ``Filter.parse`` words it."""
    def __eq__(self, other: _Scalar, /) -> Filter: ...  # type: ignore[override]
    def __ne__(self, other: _Scalar, /) -> Filter: ...  # type: ignore[override]
    def __lt__(self, other: int | str, /) -> Filter: ...
    def __le__(self, other: int | str, /) -> Filter: ...
    def __gt__(self, other: int | str, /) -> Filter: ...
    def __ge__(self, other: int | str, /) -> Filter: ...

@final
class LogpullOptions:
    """The ``logpull_options`` of a log-push job: fields, timestamp format, flags."""

    def __new__(
        cls, fields: list[str], *, timestamps: str | None = None, flags: dict[str, bool] | None = None
    ) -> LogpullOptions: ...
    @classmethod
    def parse(cls, text: str) -> LogpullOptions:
        """Parses the query-string form, `fields=ClientIP,EdgeResponseStatus&timestamps=rfc3339`."""
    @property
    def fields(self) -> list[str]:
        """The field names, in order."""
    @property
    def timestamps(self) -> str | None:
        """`"unixnano"`, `"unix"`, `"rfc3339"` or None."""
    @property
    def flags(self) -> list[tuple[str, bool]]:
        """The boolean flags, as ``(name, value)`` pairs."""
    @property
    def unknown_options(self) -> list[tuple[str, str]]:
        """Options escpush does not know; kept and sent as given."""
    @property
    def warnings(self) -> list[str]:
        """What is kept but not checked (unknown options), one sentence each."""
    def __eq__(self, other: object, /) -> bool: ...

@final
class Pricing:
    """The prices an account pays: Logpush's published table (cloudflare-docs
    ``logs/logpush/pricing.mdx``), or an Enterprise contract's, given by keyword. Rates are
    dollars per GB (per million requests for ``workers``); included amounts are GB (millions
    of requests for ``workers``), per account and month. A negative, NaN or infinite number
    raises ``InvalidInput`` naming the override."""

    def __new__(
        cls,
        *,
        internal_rate: float | None = None,
        internal_included: float | None = None,
        external_rate: float | None = None,
        external_included: float | None = None,
        transform_rate: float | None = None,
        transform_included: float | None = None,
        workers_rate: float | None = None,
        workers_included: float | None = None,
    ) -> Pricing: ...
    def with_override(self, name: str, value: float) -> Pricing:
        """A copy with one override by its name (``external_rate``, ``internal_included``, ...)."""
    @property
    def published(self) -> bool:
        """Whether it is the published table, no override."""
    def rows(self) -> list[dict[str, Any]]:
        """One dict a component (``internal``, ``external``, ``transform``, ``workers``):
        ``component``, ``usage``, ``applies_to``, ``included``, ``unit``, ``rate``,
        ``rate_shown``, ``rate_unit``, ``rate_option``, ``included_option``, ``source``."""
    def to_dict(self) -> dict[str, Any]:
        """``source`` (``page``, ``commit``, ``effective``, ``read``), ``published``,
        ``bytes_per_gb``, ``requests_per_million``, ``days_per_month`` and ``rows``."""
    def __eq__(self, other: object, /) -> bool: ...

@final
class Cost:
    """A month's cost: each component priced on its own, the account's allowance shown
    (``allowance_saves``) and subtracted only when asked."""

    @property
    def gb_per_month(self) -> float:
        """Uncompressed GB (10^9 bytes) delivered a month."""
    @property
    def dollars_per_month(self) -> float:
        """Dollars a month: every component's charge."""
    @property
    def destination_class(self) -> Literal["internal", "external"] | None:
        """The destination's class for a job's cost; None for an account's."""
    @property
    def component(self) -> str | None:
        """What the deliveries are billed as: ``internal``, ``external`` or ``workers``; None
        for an account's jobs to both classes (then ``rate``, ``unit`` and ``included`` are
        None too)."""
    @property
    def rate(self) -> float | None:
        """The deliveries' rate, dollars per ``unit``."""
    @property
    def unit(self) -> str | None:
        """``"GB"`` or ``"million requests"``."""
    @property
    def included(self) -> float | None:
        """The deliveries' amount included each month per account, in ``unit``."""
    @property
    def allowance_saves(self) -> float:
        """Dollars the account's included amounts take off (shown whether or not subtracted)."""
    @property
    def allowance_subtracted(self) -> bool:
        """Whether the allowance is subtracted from `dollars_per_month`."""
    @property
    def scale(self) -> float | None:
        """A month is the sample times this; None for an account's cost."""
    @property
    def basis(self) -> Literal["span", "requests_per_day", "scale"] | None:
        """How the sample was made a month: `span`, `requests_per_day` or `scale`."""
    @property
    def published_prices(self) -> bool:
        """Whether the prices were the published table's."""
    @property
    def components(self) -> list[dict[str, Any]]:
        """Each component: ``component``, ``unit``, ``usage``, ``included``, ``rate``,
        ``gross``, ``allowance_saves``, ``dollars``."""
    def to_dict(self) -> dict[str, Any]:
        """Every number, as plain data."""
    def change_to(self, after: Cost) -> CostChange:
        """From this cost to ``after``: ``-38 GB/month, -$3.80``."""

@final
class CostChange:
    """Before and after of a change; ``str()`` is its one wording, ``-38 GB/month, -$3.80``."""

    @property
    def gb_per_month(self) -> float:
        """GB a month, after minus before."""
    @property
    def dollars_per_month(self) -> float:
        """Dollars a month, after minus before."""
    def to_dict(self) -> dict[str, Any]:
        """The change as a dict of plain values (for JSON)."""

def project_cost(
    delivered_bytes: int,
    *,
    dataset: str,
    destination_conf: str | None = None,
    destination_class: Literal["internal", "external"] | None = None,
    span_seconds: float | None = None,
    delivered_records: int | None = None,
    lines_read: int | None = None,
    requests_per_day: float | None = None,
    scale: float | None = None,
    transform_bytes: int | None = None,
    subtract_allowance: bool = False,
    pricing: Pricing | None = None,
) -> Cost:
    """A job's month and its cost from a sample: the uncompressed bytes the job delivers for
    it, made a month by the ``span_seconds`` its timestamps cover, or by ``requests_per_day``
    (the sample's ``lines_read`` stand for that many requests a day), or by a plain ``scale``.
    Priced at ``destination_class`` when given, else at the class ``destination_conf``
    reads (one of them is needed); ``workers_trace_events`` is priced per request
    (``delivered_records``)."""

def account_cost(costs: Iterable[Cost], *, subtract_allowance: bool = True, pricing: Pricing | None = None) -> Cost:
    """An account's jobs together: their months summed by component, each priced once."""

def monthly_cost(
    *,
    internal_gb: float | None = None,
    external_gb: float | None = None,
    transform_gb: float | None = None,
    workers_requests: int | None = None,
    subtract_allowance: bool = False,
    pricing: Pricing | None = None,
) -> Cost:
    """The cost of a month's usage given directly (pricing.mdx's example:
    ``monthly_cost(internal_gb=40, external_gb=60, transform_gb=5, subtract_allowance=True)``
    is $4.11)."""

def field(name: str) -> Field:
    """A field of a log line, to compare: ``field("EdgeResponseStatus") >= 500`` is a
    ``Filter``. The name is checked against a dataset by ``Filter.validate(dataset)``."""

def _redact_job(job: dict[str, Any]) -> dict[str, Any]:
    """A copy of a job record with core's ``redact_job`` applied (``Job.redacted()``)."""

def _job_filter(job: dict[str, Any]) -> Filter | None:
    """A job's ``filter`` as a ``Filter`` (core's ``job_filter``; ``Job.parsed_filter``)."""

def _format_gb(values: Sequence[float]) -> list[str]:
    """Each number of GB as core's cost wording writes it (``38``, ``1.5``, ``0.042``)."""

def _percents(pairs: Sequence[tuple[int, int]]) -> list[str | None]:
    """Each ``(part, whole)`` as core prints a share (``escpush._format.percents``)."""

def _spark_inputs(
    paths: _LogPaths, *, since: _Time | None = None, until: _Time | None = None
) -> list[tuple[str, bool, int | None]]:
    """The inputs ``Filter.scan`` would read, each ``(path or URL, is_object, size)``
    (``escpush.spark.scan``'s listing on the driver)."""

def _spark_scan_part(
    filter: Filter,
    units: Sequence[tuple[str, bool, tuple[int, int] | None]],
    *,
    strict: bool = False,
    threads: int | None = None,
    group_by: str | Sequence[str] | None = None,
    every: _Every | None = None,
    top: int | None = None,
    time_field: str | None = None,
    dataset: str | None = None,
) -> bytes:
    """One executor's scan of ``units``, every group listed, as bytes for ``_spark_merge``."""

def _spark_select_part(
    filter: Filter,
    units: Sequence[tuple[str, bool, tuple[int, int] | None]],
    schema: bytes,
    *,
    strict: bool = False,
    threads: int | None = None,
    fields: Sequence[str] | None = None,
    dataset: str | None = None,
    scope: str | None = None,
) -> bytes:
    """The lines of ``units`` (a unit: a path or URL, whether it is an object, and a byte range
    of a plain file or None) that match, in input order, as record batches of ``schema`` (a
    ``pyarrow.Schema``'s IPC bytes) in one Arrow IPC stream (empty when none matches), values
    read as Spark's reader reads them; with ``fields`` (of ``dataset``), each line first cut
    down to them."""

def _spark_merge(
    parts: Sequence[bytes], *, top: int | None = None, strict: bool = False, seconds: float | None = None
) -> ScanResult:
    """The parts (in input order) merged exactly into one ``ScanResult``, ``top`` groups listed;
    with ``strict``, the first malformed line raises ``ScanError``."""

def _spark_preview_job(job: Mapping[str, Any], *, scope: str | None = None) -> str:
    """The fields of ``job`` its delivery depends on, as JSON text for the executors (core's
    ``JobOutput.delivery_fields``: no ``destination_conf``); the job read as ``preview_job``
    reads it, its problems raised."""

def _spark_preview_part(
    job: Mapping[str, Any],
    units: Sequence[tuple[str, bool, tuple[int, int] | None]],
    *,
    scope: str | None = None,
    seed: int | None = None,
    group_by: str | Sequence[str] | None = None,
    every: _Every | None = None,
    threads: int | None = None,
) -> bytes:
    """One executor's preview of ``job`` over ``units`` (byte ranges of a plain file among
    them), as bytes for ``_spark_preview_merge``."""

def _spark_preview_merge(
    job: Mapping[str, Any],
    parts: Sequence[bytes],
    *,
    scope: str | None = None,
    strict: bool = False,
    seconds: float | None = None,
) -> PreviewResult:
    """The parts (in input order) merged into one ``PreviewResult`` of ``job``; with
    ``strict``, the first malformed line raises ``ScanError``."""

def _load_json(text: str) -> Any:
    """A JSON document a person wrote (an ``apply`` file, ``--output-options``) as
    ``json.loads`` gives it, read by core's strict reader: a member given twice, ``NaN``,
    a lone surrogate or nesting deeper than a filter can raise ``InvalidInput`` with the
    line and column."""

# What the command line and the displays read of core's job field table (JOB_FIELDS), one
# dict per field in the order a job is shown: name, type ("int", "string", "bool",
# "object"), secret, always (every record holds a value, never null), create, update
# (whether a creation, an update may set it), parsed (read by a type of its own) and about.
# The rules themselves stay in core (docs/job-rules.md).
_JOB_FIELDS: tuple[dict[str, Any], ...]
_MASK: str  # what stands for a secret wherever one is shown (escpush-filter's `MASK`)
_SECRET_BODY_KEYS: tuple[str, ...]  # request body keys whose values are secrets (core's redact)
_SECRET_HEADERS: tuple[str, ...]  # request headers whose values are secrets, lower case (core's redact)
DEFAULT_MAX_OPERATORS: int  # a filter's default operator limit (core's Limits::default())
"""The most comparison operators a filter may hold by default (the API allows about 30)."""
DEFAULT_MAX_BYTES: int  # a filter's default size limit in bytes (core's Limits::default())
"""The most bytes of canonical JSON a filter may take by default (the API allows about 1000)."""
_ESC_COOKIE_NAME: str  # the cookie that carries an ESC secret (core's ESC_COOKIE_NAME)
_EXPORT_FORMATS: tuple[str, ...]  # `Logpush.export`'s formats (core's ExportFormat::NAMES)
_FILTER_FORMS: tuple[str, ...]  # `Logpush.export`'s filter forms (core's FilterForm::NAMES)
_MAX_SCAN_THREADS: int  # the most worker threads of a scan (escpush-scan's MAX_THREADS)
# The transport's log target, the Python logger of its events (escpush-http's LOG_TARGET).
_LOG_TARGET: str
_ENV_ACCOUNT_ID: str  # the variable of the command line's default account (escpush-http's ENV_ACCOUNT_ID)

def _closest(given: str, candidates: list[str]) -> str | None:
    """The name among ``candidates`` closest to ``given`` (core's did-you-mean rule), or None."""

_SCOPES: tuple[str, ...]  # the scopes' names, zone first (core's DatasetScope::ALL)
# Every endpoint of core's table by name (`ValidateOrigin`), as `METHOD /{scope}/template`.
_ENDPOINTS: dict[str, str]

def _register(
    *,
    errors: Mapping[str, type[BaseException]],
    job: type[Job],
) -> None:
    """Lends the native module the Python side it calls back (``escpush/__init__.py``, at import):
    the exception classes of ``escpush.errors`` by name, and ``Job``: classes, no function is called back. The
    presentation (``_repr_html_``, DataFrames, plots, ``Filter.to_polars``/``to_pyspark``) and
    ``Transformer.run`` are not lent: ``escpush._presentation`` puts them on the native classes
    as Python methods."""

def check_terraform_plan(
    plan: str | Mapping[str, Any],
    *,
    sample: _LogPaths | None = None,
    requests_per_day: float | None = None,
    scale: float | None = None,
    pricing: Pricing | None = None,
) -> dict[str, Any]:
    """What the plan (the JSON of ``terraform show -json PLANFILE``, as text or parsed) would
    change on ``cloudflare_logpush_job`` resources: for each change, its filter change
    (``spelling``, ``equivalent``, ``real`` with a ``counterexample`` record, or
    ``unknown``), ``filter_problems`` (what the API would refuse in the filter the change
    leaves, against the job's dataset; such a change is real) and the other attributes that
    change; ``real`` when any change is. With ``sample`` (log files, folders or globs), each
    change's ``delivery``: the job before and after previewed over the sample and priced a
    month (``before``, ``after``: ``gb_per_month``, ``dollars_per_month``, ``short``, ``text``;
    ``change``: ``"-38 GB/month, -$3.80"``), as ``Logpush.apply(sample=...)`` gives it."""

def redact_destination_conf(text: str) -> str:
    """A ``destination_conf`` fit to print: parameter values other than harmless ones
    (``region``, ...), a ``user:password@`` and a Sumo Logic collector code masked; ``***``
    if it is not a destination."""

def datasets(scope: str | None = None) -> list[str]:
    """The names of the embedded Logpush datasets, of one scope (``"zone"``, ``"account"``) or
    of both."""

def dataset_fields(dataset: str, scope: str | None = None) -> dict[str, str]:
    """The dataset's fields, name → documented type (``"string"``, ``"array[string]"``, ...);
    ``"unknown"`` for a field whose type Cloudflare's docs do not give, which validation reports
    as ``untyped_field``."""

def field_operators(dataset: str, scope: str | None = None) -> dict[str, list[str]]:
    """Every field of the dataset -> the operators a filter may apply to it, in the order of
    SPEC table B.1: its type's, none for a field that cannot be filtered or has no documented
    type (``dataset_fields`` gives the types)."""

# Every operator as (name, meaning, takes a set), core's Operator in table B.1's order: the
# filter builder widget's operator lists.
_OPERATORS: tuple[tuple[str, str, bool], ...]

# Every SQL dialect as (name, aliases), core's Dialect::ALL: the command line's --dialect.
_SQL_DIALECTS: tuple[tuple[str, tuple[str, ...]], ...]

def _sql_dialect(name: str) -> str:
    """The name of the dialect ``name`` names (a name or an alias, any case); ``InvalidInput``
    otherwise (for the command line)."""

def _dataset_schema(
    dataset: str, format: str = "duckdb", *, scope: str | None = None, table: str | None = None
) -> str | list[tuple[str, str]]:
    """``CREATE TABLE`` text for a SQL dialect; for ``pyarrow``, ``polars`` and ``pyspark`` the
    columns as ``[(name, column type)]``, from which ``escpush.dataset_schema`` builds the
    package's schema object."""

# ESC controls

# The client's defaults and range (escpush-http's builder's): the defaults of Client(...) and
# Client.from_env(...), and of the command line's --timeout and --retries.
DEFAULT_TIMEOUT: float  # seconds
"""A client's default deadline of a whole call, retries and waits included, in seconds."""
DEFAULT_MAX_RETRIES: int
"""How often a client retries a call that is safe to repeat, by default."""
MAX_RETRIES: int  # the most retries a client may be asked for
"""The most retries a client may be asked for (``Client(max_retries=...)``, ``--retries``)."""
_DEFAULT_RETRY_BACKOFF: float
_DEFAULT_MAX_RETRY_AFTER: float
# The ESC assessment's defaults (core's): the wait after a change and each fetch's deadline, seconds.
_DEFAULT_SETTLE: float
_DEFAULT_FETCH_TIMEOUT: float

def _check_client_settings(
    *, timeout: float = ..., max_retries: int = ..., retry_backoff: float = ..., max_retry_after: float = ...
) -> None:
    """Raises ``InvalidInput`` for a setting ``Client(...)`` would refuse (for the command line)."""

@final
class Client:
    """A client of Cloudflare's v4 API.

    ``timeout`` (seconds, more than 0; ``DEFAULT_TIMEOUT``) is the deadline of each call, from
    its start to its result: connecting, sending and receiving every attempt, and the waits
    between retries. When the
    API asks (``Retry-After``) to wait past it, the call stops at once with a
    ``RateLimitError`` (or ``ServerError``) that says when to retry. ``max_retries`` (0 to
    ``MAX_RETRIES``; ``DEFAULT_MAX_RETRIES``) retries of requests safe to repeat (never a job
    creation) after 429, 5xx or a lost connection;
    ``retry_backoff`` is the first wait, doubling; ``max_retry_after`` the longest
    ``Retry-After`` waited for (a longer one is cut to it). A negative or unreadable
    ``Retry-After`` is ignored, a past date means "now".

    A job creation is sent once: retried only after a 429 (which refuses a request before it
    is processed) or when no connection was made. ESC switches, job updates (PUT) and
    deletions set a state, so they are retried like reads.

    ``rate_limit=(requests, seconds)`` (off by default; the API allows ``(1200, 300)``) keeps
    this client, shared by any number of threads, under that many requests, retries
    included, in any window of that many seconds; a call waits for its turn within its
    ``timeout``, and fails at once with a ``TransportError`` ("timed out: ... rate limit ...")
    when its turn comes only after it.

    One client may be shared by many threads: calls release the GIL while they wait on the
    network, and connections are pooled safely.

    Each request is logged at DEBUG on the ``escpush`` logger of :mod:`logging` (method,
    URL, status, attempt, retry waits; every secret masked) when logging takes it, or with
    ``CLOUDFLARE_LOG=debug``. A connection that cannot be made names the URL it tried and
    ``CLOUDFLARE_BASE_URL``.
    """

    def __new__(
        cls,
        *,
        api_key: str | None = None,
        email: str | None = None,
        api_token: str | None = None,
        base_url: str | None = None,
        timeout: float = 30.0,
        max_retries: int = 2,
        retry_backoff: float = 0.5,
        max_retry_after: float = 60.0,
        allow_insecure_http: bool = False,
        rate_limit: tuple[int, float] | None = None,
    ) -> Client: ...
    @staticmethod
    def from_env(
        *,
        api_token: str | None = None,
        api_key: str | None = None,
        email: str | None = None,
        base_url: str | None = None,
        timeout: float = 30.0,
        max_retries: int = 2,
        retry_backoff: float = 0.5,
        max_retry_after: float = 60.0,
        allow_insecure_http: bool = False,
        rate_limit: tuple[int, float] | None = None,
    ) -> Client:
        """Credentials and base URL from ``CLOUDFLARE_*``; each one given here wins."""
    @property
    def base_url(self) -> str:
        """The API root this client talks to."""
    @property
    def rate_limit(self) -> tuple[int, float] | None:
        """The client-side rate limit as ``(requests, seconds)``, or None when it is off."""
    def zone(self, zone_id: str) -> Zone:
        """A zone, its id checked (raises `InvalidInput` before anything is sent)."""
    def account(self, account_id: str) -> Account:
        """An account, its id checked (raises `InvalidInput` before anything is sent)."""

@final
class Transformer:
    """A transformer as the API gives it (SDK 5.9 ``TransformerGetResponse``): ``id``,
    ``name``, ``description``, ``dataset`` (from its SQL's ``FROM``), ``associated_jobs``
    (the jobs that reference it), ``created_at``, ``updated_at`` (RFC 3339). Its SQL is
    ``transformers.content(id)``; ``run(sample)`` runs it on local logs. Holds no secret;
    compares by value."""

    @property
    def id(self) -> int:
        """The transformer's id in its account."""
    @property
    def name(self) -> str | None:
        """Its name (at most 255 bytes)."""
    @property
    def description(self) -> str | None:
        """Its description (at most 4,096 bytes), or None."""
    @property
    def dataset(self) -> str | None:
        """The dataset its SQL's ``FROM`` names."""
    @property
    def associated_jobs(self) -> list[dict[str, Any]]:
        """The jobs that reference it: ``{"id", "name", "object_tag", "object_type"}`` each."""
    @property
    def job_ids(self) -> list[int]:
        """The ids of the jobs that reference it."""
    @property
    def created_at(self) -> str | None:
        """When it was created (RFC 3339)."""
    @property
    def updated_at(self) -> str | None:
        """When it was last saved (RFC 3339): every save of its SQL is a new version."""
    def to_dict(self) -> dict[str, Any]:
        """The record as a dict, the API's members in the SDK's order."""
    def _code(self, *, version_id: int | None = None) -> str: ...
    def run(
        self,
        sample: _LogPaths,
        *,
        version_id: int | None = None,
        output: str | os.PathLike[str] | None = None,
        threads: int | None = None,
        strict: bool = False,
        prefilter: bool = True,
        engine: str = "escpush",
    ) -> TransformerRun:
        """Runs its SQL (the latest version, or ``version_id``, fetched from the account) on
        local logs: ``escpush.run_transformer(transformers.content(id), sample, ...)``
        (``engine="datafusion"`` needs the ``transform`` extra)."""
    def __eq__(self, other: object, /) -> bool: ...
    __hash__: ClassVar[None]  # type: ignore[assignment]

@final
class Transformers:
    """An account's transformers, ``account.logpush.transformers`` (transformers.mdx): SQL a
    job runs on every batch before delivery. Every rule is checked before anything is sent
    (``InvalidInput`` naming the rule and its source): ``name`` (at most 255 bytes) and
    ``code`` required, ``description`` at most 4,096 bytes, ``code`` at most 10 KB and a valid
    transformer of a known dataset (``check_transformer``). A job attaches one with
    ``create_job(..., transformer_id=N)`` or ``update_job(id, transformer_id=N)``, and detaches
    it with ``transformer_id=None``."""

    def list(self) -> builtins.list[Transformer]:
        """Every transformer of the account."""
    def create(self, *, name: str, code: str, description: str | None = None) -> Transformer:
        """Creates a transformer from its SQL (its first version); never retried once it may
        have reached the API."""
    def get(self, transformer_id: int) -> Transformer:
        """One transformer (``NotFoundError`` if the account has none of that id)."""
    def update(
        self, transformer_id: int, *, name: str, code: str | None = None, description: str | None = None
    ) -> Transformer:
        """Changes a transformer: ``name`` is required (SDK 5.9); new ``code`` saves a new
        version; a ``description`` left out clears the stored one, as the API does."""
    def delete(self, transformer_id: int) -> int:
        """Deletes a transformer and returns its id; refused before sending (``InvalidInput``)
        while a job references it, as the API refuses it (409)."""
    def content(self, transformer_id: int, *, version_id: int | None = None) -> str:
        """The SQL of the latest version, or of the version whose id is ``version_id``."""
    def versions(self, transformer_id: int, *, limit: int | None = None) -> builtins.list[dict[str, Any]]:
        """Every saved version, oldest first (the latest ``limit``): ``{"id", "version",
        "created_at"}`` each."""
    def preview(self, sql: str, input: Mapping[str, Any]) -> builtins.list[dict[str, Any]]:
        """Runs ``sql`` (checked first) on one record at the API, nothing kept; the delivered
        records, none when the record is filtered out."""

@final
class Logpush:
    """The log-push jobs of one zone or account: ``zone.logpush`` / ``account.logpush``."""

    @property
    def transformers(self) -> Transformers:
        """The account's transformers; on a zone, ``InvalidInput`` (they are account-scoped)."""

    def create_job(
        self,
        *,
        destination_conf: str,
        dataset: str,
        name: str | None = None,
        filter: Filter | str | Mapping[str, Any] | None = None,
        logpull_options: LogpullOptions | str | None = None,
        max_operators: int = ...,  # core's Limits::default(): 30
        max_bytes: int = ...,  # core's Limits::default(): 1000
        **fields: Any,
    ) -> Job:
        """Creates a log-push job and returns the stored job, an `escpush.Job` (a dict). Everything
        the API would refuse is checked first, and nothing is sent when something is wrong: the
        dataset (and its scope), `destination_conf` (and the `ownership_challenge` it needs: S3
        without keys, Google Cloud Storage, Azure, Sumo Logic), the fields and options of
        `logpull_options`, the filter against the dataset and the limits (`FilterError`), and the
        other job fields given as keywords (`enabled`, `frequency`, `max_upload_bytes`,
        `output_options`, ...; `InvalidInput`), each as core's job field table says (docs/job-
        rules.md). The filter is sent as a string holding its canonical JSON. A creation is never
        retried."""
    def jobs(self, dataset: str | None = None) -> list[Job]:
        """Every log-push job of the zone or account, each an `escpush.Job` (a dict); with
        `dataset`, only that dataset's jobs (`GET .../logpush/datasets/{dataset}/jobs`)."""
    def job(self, job_id: int) -> Job:
        """One log-push job, by its id, as an `escpush.Job` (a dict)."""
    def preview(
        self,
        job: Mapping[str, Any] | int,
        sample: _LogPaths,
        *,
        seed: int | None = None,
        group_by: str | Sequence[str] | None = None,
        every: _Every | None = None,
        out: str | os.PathLike[str] | None = None,
        gzip: bool = True,
        threads: int | None = None,
        strict: bool = False,
        progress: _Progress | None = None,
    ) -> PreviewResult:
        """What ``job`` (a dict of a job's fields, an ``escpush.Job`` or a job id) would deliver
        for the logs of ``sample``, as log-push formats, samples and batches them; ``out``:
        None counts only, a folder gets one file per batch (gzip unless ``gzip=False``),
        ``"-"`` stdout."""
    def update_job(self, job_id: int, **fields: Any) -> Job:
        """Updates a job and returns the stored job: reads it, and sends only the fields given whose
        value differs from the stored one, never one the API sets (`None` clears one;
        `output_options` is merged onto the stored one and sent whole), as the API takes an update:
        a `PUT` changes only what it sends. The fields are checked as `create_job` checks them, on
        the stored job with the changes, before anything is written; `dataset` and `kind` cannot
        change, and a new `destination_conf` that needs an ownership challenge needs
        `ownership_challenge` too. Retried on 429, 5xx and dropped connections."""
    def enable_job(self, job_id: int) -> Job:
        """Enables a job (an update of `enabled`); returns the stored job."""
    def disable_job(self, job_id: int) -> Job:
        """Disables a job (an update of `enabled`); returns the stored job."""
    def delete_job(self, job_id: int) -> int:
        """Deletes a job and returns its id. Retried like a read; a job already gone raises
        `NotFoundError` saying so, unless an earlier attempt of this call deleted it (its answer
        lost, the retry answered 404): that is the deletion done, and the id is returned."""
    def ensure_job(
        self,
        *,
        name: str,
        dataset: str,
        destination_conf: str,
        filter: Filter | str | Mapping[str, Any] | None = None,
        logpull_options: LogpullOptions | str | None = None,
        variables: Mapping[str, str] | None = None,
        sample: _LogPaths | None = None,
        requests_per_day: float | None = None,
        scale: float | None = None,
        pricing: Pricing | None = None,
        **fields: Any,
    ) -> dict[str, Any]:
        """The job named ``name`` made so (created, updated in the fields that differ, or
        left alone). With ``sample`` (log files, folders or globs), the change is priced
        before it is written: ``result["delivery"]`` holds the month before and after and
        the difference (``"-38 GB/month, -$3.80"``), by the sample's span or
        ``requests_per_day`` / ``scale``, at ``pricing``."""
    def apply(
        self,
        jobs: Mapping[str, Any],
        *,
        prune: bool = False,
        dry_run: bool = False,
        delete_first: bool = False,
        variables: Mapping[str, str] | None = None,
        sample: _LogPaths | None = None,
        requests_per_day: float | None = None,
        scale: float | None = None,
        pricing: Pricing | None = None,
    ) -> dict[str, Any]:
        """The plan bringing the scope's jobs to ``jobs``; without ``dry_run``, carried out.
        With ``sample`` (log files, folders or globs), each job that changes is priced
        before anything is sent: its entry's ``delivery`` holds the month before and after
        (``gb_per_month``, ``dollars_per_month``, ``short``, ``text``) and the difference (``change``:
        ``"-38 GB/month, -$3.80"``), by the sample's span or ``requests_per_day`` /
        ``scale``, at ``pricing`` (Cloudflare's published prices by default).
        Refused (``InvalidInput``) before anything is sent past the API's job limits (4 per
        zone; 4 ``dlp_forensic_copies`` jobs per account). Writes go updates and creations
        first, deletions last (``delete_first=True`` deletes first, to replace a job on a
        scope at its limit). A failure part-way raises the write's error, saying what was
        written before it, with the plan so far as its ``plan`` attribute. A ``${NAME}`` in a
        ``destination_conf`` is a credential by reference: ``variables[NAME]`` (``os.environ``,
        say; one set to ``""`` is refused), else the credential the stored job holds, only for
        the place the job already pushes to (a creation, or a move to another host, bucket or
        path, needs every one); a literal ``${`` is written ``$${``. Problems name each job by
        ``jobs["addresses"]`` when it gives one per job (``read_terraform`` does), else as
        ``jobs[i]``. A deletion whose answer was lost and whose retry found the job gone (404)
        is done, and its entry says so in ``note``."""
    def export(
        self,
        *,
        format: Literal["toml", "json", "terraform"] = "toml",
        jobs: Sequence[int] | None = None,
        filter_form: Literal["string", "jsonencode"] = "string",
    ) -> str:
        """The scope's jobs (all, or those whose id is in ``jobs``) as a jobs file (TOML or
        JSON) that ``apply`` reads back as nothing to do, or as Terraform
        ``cloudflare_logpush_job`` resources (provider v5) with ``import`` blocks. No
        credential is written: each is a reference, ``${NAME}`` (a jobs file) or
        ``${var.name}`` with a sensitive variable (Terraform)."""
    def read_terraform(self, text: str, *, scope_expressions: list[str] | None = None) -> dict[str, Any]:
        """The ``cloudflare_logpush_job`` resources of a Terraform file's text (``.tf``, or
        ``.tf.json`` told by its leading ``{``) as desired jobs, ``{"jobs": [...],
        "addresses": [...]}``, for ``apply`` (``${var.x}`` in a destination as
        ``${TF_VAR_x}``; problems name each job by its resource address). A ``zone_id`` or
        ``account_id`` escpush cannot evaluate (``var.zone_id``) is refused, since it may be
        another scope's, unless ``scope_expressions`` names it (as written) as this scope."""
    def fields(self, dataset: str) -> dict[str, str]:
        """The live field list, name → the API's description of the field."""
    def check_fields(self, datasets: list[str] | None = None) -> dict[str, dict[str, list[str]]]:
        """Compares the live field list of each dataset of the scope (or of those named) with
        escpush's embedded schema: `{dataset: {"only_live": [...], "only_embedded": [...]}}`, for
        the datasets that differ. Fields only the API has mean escpush is stale."""
    def ownership_challenge(self, destination_conf: str) -> dict[str, str]:
        """Asks the API to write an ownership challenge file to the destination; returns
        `{"filename", "message"}` (the challenge itself is in that file; the destination's
        credentials are masked in both). An answer with `valid: false` raises `ApiError` with the
        API's message."""
    def validate_ownership(self, destination_conf: str, challenge: str) -> None:
        """Asks the API whether ``challenge`` is the token it wrote to the destination;
        ``ApiError`` when it says no. A token a job would refuse (the schema's pattern and
        length) is ``InvalidInput`` before anything is sent."""
    def validate_destination(self, destination_conf: str) -> str:
        """Asks the API whether it can push to the destination; `valid: false` raises `ApiError`
        with its message. Returns the API's message (often empty)."""
    def destination_exists(self, destination_conf: str) -> bool:
        """Whether a job of the scope already pushes to the destination: to the same place (the
        scheme, bucket or host and path, whatever the region, credentials or options; the emulator
        answers so). The destination is checked for its form only (the docs ask about `s3://foo`,
        without a region)."""
    def validate_origin(self, logpull_options: LogpullOptions | str | None, *, dataset: str | None = None) -> str:
        """Whether the API takes ``logpull_options`` (for ``dataset``, whose fields are
        checked first); returns its message, ``valid: false`` raises ``ApiError``."""
    def instant_logs_jobs(self) -> list[dict[str, Any]]:
        """The zone's Instant Logs jobs (``InvalidInput`` on an account)."""
    def create_instant_logs_job(
        self,
        *,
        fields: str | Sequence[str] | None = None,
        filter: Filter | str | Mapping[str, Any] | None = None,
        sample: int | None = None,
    ) -> dict[str, Any]:
        """Opens an Instant Logs session on the zone (fields of ``http_requests``, a filter
        checked as a job's, one record in ``sample``); returns it, its ``destination_conf``
        the ``wss://`` address to listen on."""

@disjoint_base
class Scope:
    """A zone or an account: ``Zone`` and ``Account`` are its two kinds."""

    @property
    def id(self) -> str: ...
    @property
    def esc(self) -> Esc: ...
    @property
    def logpush(self) -> Logpush: ...

@final
class Zone(Scope):
    """One zone: ``client.zone(id)``."""

@final
class Account(Scope):
    """One account: ``client.account(id)``; its ESC setting covers all its zones."""

@final
class EscStatus:
    """The ESC setting of a zone or an account; ``repr`` never shows the secret."""

    @property
    def state(self) -> Literal["enabled", "disabled", "secret"]:
        """`"enabled"` (ESC runs), `"disabled"` (off for every request; a secret may also be set) or
        `"secret"` (off only for requests with the `disable_esc` cookie)."""
    @property
    def disabled(self) -> bool:
        """Whether ESC is off for every request of the scope (`always`)."""
    @property
    def secret(self) -> str | None:
        """The configured secret, or None. `repr()` never shows it."""
    def __eq__(self, other: object, /) -> bool: ...
    def _repr_html_(self) -> str:
        """In Jupyter: the state explained; the secret only as set or not."""
    __hash__: ClassVar[None]  # type: ignore[assignment]

@final
class Esc:
    """The ESC controls of one zone or account."""

    def status(self) -> EscStatus:
        """GET the status and, if one is configured, the secret."""
    def disable(self) -> None:
        """Disable ESC for every request of the scope (POST `{"always": true}`)."""
    def enable(self) -> None:
        """Enable ESC again (DELETE)."""
    def set_secret(self, secret: str | None = None) -> str:
        """Configure the secret that disables ESC for requests carrying the cookie
        ``disable_esc=<secret>``. Without a secret, one is made from the operating system's
        random source: 32 bytes as 43 URL-safe base64 characters (``A-Z a-z 0-9 - _``), the
        shape core gives every secret escpush makes (an assessment's too). Returns the secret set."""
    def disabled(self) -> EscDisabled:
        """A context manager: disables ESC on entry (unless it already is) and, on exit, enables it
        again if it was enabled before, even when the body raises. `as` gives the previous status.
        When enabling again fails, its error (an `ApiError` or `TransportError`) says that ESC was
        left disabled and how to enable it; if the body had raised, that exception is the error's
        `__context__` ("During handling of the above exception, another exception occurred"), as
        with any cleanup that fails. SIGTERM and SIGHUP raise `escpush.Terminated` in the body (in
        the main thread, where their handler is the default), so that the exit enables ESC again
        before the process ends."""
    def assess(
        self,
        urls: Iterable[str],
        *,
        account: str | None = None,
        keep_disabled: bool = False,
        settle: float = 3.0,
        timeout: float = 10.0,
        expect_status: int | Iterable[int] | None = None,
        ignore_headers: Iterable[str] | None = None,
        progress: Callable[[str], object] | None = None,
    ) -> EscAssessment:
        """The spec's test order as one safe command (the zone's `.esc` only): a request stage with
        a fresh secret cookie, then the zone, then the account when given; each URL fetched with and
        without ESC and compared. Every scope changed is put back before returning, also on an error
        or an interruption (Ctrl-C, SIGTERM or SIGHUP (`escpush.Terminated`, in the main thread
        where their handler is the default), or an exception from `progress`, which is called with a
        line before each step; the exception is raised afterwards with the result as its
        `assessment` attribute). See `EscAssessment`."""

@final
class EscDisabled:
    """The context manager ``esc.disabled()`` returns."""

    def __enter__(self) -> EscStatus: ...
    def __exit__(
        self,
        exc_type: type[BaseException] | None = None,
        exc: BaseException | None = None,
        tb: TracebackType | None = None,
    ) -> bool: ...

def esc_cookie(secret: str) -> str:
    """The ``Cookie`` header value that skips ESC for a request (``disable_esc=SECRET``), for
    test requests after ``zone.esc.set_secret()``."""

@final
class EmulatorServer:
    """The loopback emulator; ``escpush.testing.Emulator`` wraps it."""

    def __new__(
        cls,
        port: int = 0,
        *,
        api_key: str | None = None,
        email: str | None = None,
        api_token: str | None = None,
        log_capacity: int | None = None,
        max_connections: int | None = None,
        idle_timeout: float | None = None,
        request_timeout: float | None = None,
    ) -> EmulatorServer: ...
    @property
    def base_url(self) -> str: ...
    @property
    def port(self) -> int: ...
    @property
    def api_key(self) -> str: ...
    @property
    def email(self) -> str: ...
    @property
    def api_token(self) -> str: ...
    @property
    def running(self) -> bool: ...
    def state(self) -> dict[str, Any]: ...
    def requests(self) -> list[dict[str, Any]]: ...
    def stats(self) -> dict[str, int]: ...
    def fail_next(
        self,
        *,
        count: int | None = None,
        status: int | None = None,
        retry_after: int | None = None,
        delay: float | None = None,
        trickle: float | None = None,
        stall: float | None = None,
        drip: float | None = None,
        body: bytes | str | None = None,
        malformed: bool = False,
        truncated: bool = False,
        drop: bool = False,
        drop_after_apply: bool = False,
        echo: bool = False,
    ) -> None: ...
    def clear_faults(self) -> None: ...
    def clear_requests(self) -> None: ...
    def reset(self) -> None: ...
    def esc_disabled_for(self, kind: str, id: str, cookie: str | None = None) -> bool: ...
    def written_challenge(self, kind: str, id: str, destination_conf: str) -> str | None: ...
    def set_logpush_quirks(self, config: str) -> None: ...
    def logpush_control(self) -> dict[str, Any]: ...
    def serve_site(self, config: str) -> str: ...
    def sites(self) -> dict[str, str]: ...
    def stop(self) -> None: ...

@final
class EscAssessment:
    """The outcome of ``zone.esc.assess(...)``; ``str()`` is the text summary."""

    @property
    def ok(self) -> bool:
        """Every stage that ran passed, nothing stopped the assessment and every scope is where it
        should be (as found, or kept disabled when asked)."""
    @property
    def restored(self) -> bool:
        """Every scope is as it was found (or kept disabled as asked); False means NOT RESTORED:
        `not_restored` holds the command that restores each scope."""
    @property
    def stages(self) -> list[dict[str, Any]]:
        """`[{"name": "request"|"zone"|"account", "outcome":
        "passed"|"failed"|"rolled_back"|"skipped", "problem", "urls": [...]}]`."""
    @property
    def differences(self) -> list[dict[str, Any]]:
        """What ESC does: `[{"url", "what", "name", "with_esc", "without_esc", "replacement"}]`."""
    @property
    def error(self) -> str | None:
        """The API error or the interruption that stopped the assessment, or None."""
    @property
    def not_restored(self) -> list[dict[str, Any]]:
        """`[{"scope", "id", "action", "error", "command"}]`: what could not be put back."""
    def to_dict(self) -> dict[str, Any]:
        """The JSON form: `{"ok", "restored", "initial", "final", "stages", "differences", "error",
        "not_restored", "kept_disabled", "secret_left", "notes"}`."""
    def summary(self) -> str:
        """The text summary (as `escpush esc assess` prints it)."""
    def plot(self, ax: Any = None) -> Any:
        """Draws what changed without ESC, by stage and URL: a grid of the URLs by stage, each
        with its status with ESC → without (green where it passed its check, red where not),
        and the differences of each kind per URL. ``ax``: None (a new figure), one Axes (the
        grid alone) or a pair (the grid, the differences). Returns the matplotlib figure.
        Needs matplotlib (``pip install 'escpush[plot]'``)."""
    def _repr_html_(self) -> str:
        """In Jupyter: the stages, the differences with their replacements, the way back."""

def esc_replacements() -> list[dict[str, str]]:
    """The spec's table of what replaces each ESC use (the products an assessment's differences
    name), one dict per row."""

_ESC_IGNORED_HEADERS: tuple[str, ...]

@final
class _Terminating:
    """SIGTERM and SIGHUP are held back inside ``with`` (in the main thread, where their
    handler is the default): the block runs to its end, then ``escpush.Terminated`` is raised
    for the first that came; the previous handlers come back."""

    def __new__(cls) -> _Terminating: ...
    def __enter__(self) -> _Terminating: ...
    def __call__(self, signum: int, frame: object) -> None: ...
    def __exit__(
        self,
        exc_type: type[BaseException] | None = None,
        exc: BaseException | None = None,
        tb: TracebackType | None = None,
    ) -> bool: ...
