"""Log-push filters on Spark: past one machine, the same answers as ``Filter.scan``.

Two ways. The scanner inside Spark: ``scan`` lists the inputs on the driver, runs escpush's
native scanner on the executors (each a contiguous share of the files) and merges their
counts exactly into one ``ScanResult``; ``select`` gives the lines a filter keeps as a
DataFrame, built on Arrow; ``preview`` is a log-push job's ``preview_job`` on the executors,
merged into one ``PreviewResult`` (delivered records and bytes, batches, ``.cost()``): exact
but for the batches, which each executor ends for its share (at most ``partitions - 1``
more, see ``preview``)::

    from escpush import spark as es
    r = es.scan(spark, "s3://bucket/logs/20241106/", f, group_by="ClientCountry", top=10)
    df = es.select(spark, "s3://bucket/logs/20241106/", f, dataset="http_requests")
    p = es.preview(spark, "s3://bucket/logs/20241106/", job)
    p.cost(requests_per_day=2e9)

Or Spark's own JSON reader, at Spark's speed (about ten times slower per core)::

    from escpush.spark import read_logpush
    df = read_logpush(spark, "s3a://bucket/logs/2024-06-*/", "http_requests")
    df.where(f.to_pyspark(dataset="http_requests")).count()

``read_logpush`` reads log-push NDJSON (plain or gzip, folders and globs, any Hadoop
filesystem URL) with the dataset's schema (``escpush.dataset_schema(ds, "pyspark")``), the
column types the filter's Spark SQL (``f.to_sql("spark", dataset=ds)``) assumes. pyspark is
optional: ``pip install 'escpush[spark]'``. ``scan``, ``select`` and ``preview`` need escpush
installed on every executor too (see the docs' "Spark past one machine").
"""

from __future__ import annotations

import json
import re
import time
from typing import TYPE_CHECKING, Any

from . import _escpush
from ._escpush import Filter, PreviewResult, ScanResult
from ._presentation import dataset_schema
from ._schemas import require
from .errors import EscpushError, ExecutorError, InvalidInput, ScanError

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator, Mapping, Sequence

__all__ = [
    "ExecutorError",
    "collect_errors",
    "filter_dataframe",
    "preview",
    "read_logpush",
    "scan",
    "schema",
    "select",
]


def schema(dataset: str, *, scope: str | None = None) -> Any:
    """The dataset's columns as a ``pyspark.sql.types.StructType``."""
    return dataset_schema(dataset, "pyspark", scope=scope)


def read_logpush(spark: Any, paths: str | Sequence[str], dataset: str, *, scope: str | None = None) -> Any:
    """A DataFrame of the log-push NDJSON files at ``paths`` (files, folders or globs; plain or
    ``.gz``; local or any Hadoop filesystem URL), typed by ``dataset``'s schema. A folder is
    read with the folders below it (a log-push destination's date folders), as ``Filter.scan``
    reads it (Spark's ``recursiveFileLookup``: Spark's hidden files, starting with ``.`` or
    ``_``, left out; a folder's other files are read too, where ``Filter.scan`` reads only log
    names). A value of another type than its column's reads as null (Spark's PERMISSIVE mode)."""
    require("pyspark")
    paths = [paths] if isinstance(paths, str) else [str(p) for p in paths]
    reader = spark.read.schema(schema(dataset, scope=scope)).option("mode", "PERMISSIVE")
    return reader.option("recursiveFileLookup", "true").json(paths)


def filter_dataframe(
    df: Any, filter: Filter | str | Mapping[str, Any], dataset: str, *, scope: str | None = None
) -> Any:
    """``df`` where the filter matches (``df.where(f.to_pyspark(dataset=dataset))``); ``filter``
    is a Filter, its JSON text or a dict."""
    f = filter if isinstance(filter, Filter) else Filter.from_dict(filter)
    return df.where(f.to_pyspark(dataset=dataset, scope=scope))


def _column(sql: str) -> Any:
    """The Spark SQL boolean expression as a Column (used by ``Filter.to_pyspark``)."""
    require("pyspark")
    from pyspark.sql import functions

    return functions.expr(sql)


# -- the scanner inside Spark ------------------------------------------------------------

# What an executor's task raises for the driver to find in Spark's error (a Py4JJavaError or
# PythonException whose text holds the worker's traceback): the marker, then one line of JSON.
_MARKER = "escpush-spark-error: "
_FOUND = re.compile(re.escape(_MARKER) + r"(\{.*\})\s*$", re.MULTILINE)


def _task(kind: str, payload: str, options: dict[str, Any], version: str) -> Callable[..., Any]:
    """The function an executor runs on its share of the inputs: ``kind`` "scan", "select"
    (``payload`` the filter's JSON) or "preview" (``payload`` the job's fields as JSON,
    ``_spark_preview_job``). It is a closure over plain data, so cloudpickle ships it by
    value: unpickling it needs no escpush, and the import below can fail with a message of
    ours rather than a worker's stack trace (so it refers to nothing of this module but plain
    values: helpers are defined inside it)."""
    marker = _MARKER

    def fail(payload: dict[str, Any]) -> Exception:
        import json as _json

        return RuntimeError(marker + _json.dumps(payload))

    def native() -> Any:
        import sys as _sys

        try:
            import escpush
            from escpush import _escpush as mod
        except ImportError as err:
            raise fail({"kind": "missing", "python": _sys.executable, "error": str(err)}) from None
        if escpush.__version__ != version:
            raise fail({"kind": "version", "python": _sys.executable, "error": escpush.__version__})
        return mod

    def units_of(part: Any) -> list[tuple[str, bool, tuple[int, int] | None]]:
        return [(str(u[0]), bool(u[1]), None if u[2] is None else (int(u[2][0]), int(u[2][1]))) for u in part]

    def run(mod: Any, part: Any) -> bytes:
        import json as _json

        try:
            if kind == "preview":
                return bytes(mod._spark_preview_part(_json.loads(payload), units_of(part), **options))
            f = mod.Filter.from_dict(payload)
            if kind == "scan":
                return bytes(mod._spark_scan_part(f, units_of(part), **options))
            return bytes(mod._spark_select_part(f, units_of(part), **options))
        except Exception as err:  # an escpush error: its class and arguments, to raise again
            if type(err).__module__.startswith("escpush"):
                args = [a if isinstance(a, (str, int, type(None))) else str(a) for a in err.args]
                if hasattr(err, "path"):
                    args = [str(err), getattr(err, "path", None), getattr(err, "line", None)]
                raise fail({"kind": "error", "class": type(err).__name__, "args": args}) from None
            raise

    if kind in ("scan", "preview"):

        def scan_partition(index: int, parts: Iterator[Any]) -> Iterator[tuple[int, bytes]]:
            mod = native()
            for part in parts:
                yield index, run(mod, part)

        return scan_partition

    def select_batches(batches: Iterator[Any]) -> Iterator[Any]:
        import importlib
        import json as _json

        mod = native()
        # The executor's part comes as Arrow record batches built natively (IPC stream bytes):
        # no JSON is parsed here.
        ipc = importlib.import_module("pyarrow.ipc")
        for batch in batches:
            for part in batch.column(0).to_pylist():
                data = run(mod, _json.loads(part))
                if data:
                    yield from ipc.open_stream(data)

    return select_batches


# A plain file past this size is read by several executors, each a byte range of it, when its
# lines are selected or previewed (``select``, ``preview``; ``scan`` reads whole files: see
# its docs).
_RANGE_BYTES = 64 << 20

# An input as the driver lists it (name, is_object, size), with a byte range (``_cut``), and
# as an executor takes it (name, is_object, range).
_Listed = tuple[Any, bool, "int | None"]
_Ranged = tuple[Any, bool, "int | None", "tuple[int, int] | None"]
_Unit = tuple[str, bool, "tuple[int, int] | None"]


def _cut(units: list[_Listed], n: int) -> list[_Ranged]:
    """``select``'s and ``preview``'s inputs, a large plain local file cut into up to ``n`` byte ranges (each
    read by the lines that start in it: every line once)."""
    out: list[_Ranged] = []
    for name, is_object, size in units:
        pieces = min(n, (size or 0) // _RANGE_BYTES)
        if is_object or pieces < 2 or size is None or _is_gzip(name):
            out.append((name, is_object, size, None))
            continue
        cuts = [size * i // pieces for i in range(pieces + 1)]
        out += [(name, False, b - a, (a, b)) for a, b in zip(cuts, cuts[1:])]
    return out


def _is_gzip(path: Any) -> bool:
    try:
        with open(path, "rb") as f:
            return f.read(2) == b"\x1f\x8b"
    except OSError:
        return True  # not read here: the executor reads it whole and says what is wrong


def _shares(units: list[tuple[Any, ...]], n: int) -> list[list[_Unit]]:
    """The inputs ``(name, is_object, size[, range])`` cut into at most ``n`` runs of about
    equal bytes, in input order (so that the parts merge in input order: the first malformed
    line is the first one)."""
    if not units:
        return []
    sizes = [max(u[2] or 0, 1) for u in units]
    total = sum(sizes)
    n = max(1, min(n, len(units)))
    shares: list[list[_Unit]] = []
    done = 0
    for unit, size in zip(units, sizes):
        # An input goes to the share its middle byte falls in: equal pieces of a file (a
        # byte apart when its size does not divide) each to their own.
        if len(shares) <= min(n - 1, (2 * done + size) * n // (2 * total)):
            shares.append([])
        shares[-1].append((str(unit[0]), unit[1], unit[3] if len(unit) > 3 else None))
        done += size
    return shares


def _raise_from_spark(err: BaseException) -> None:
    """Raises the escpush error an executor reported in ``err`` (Spark's wrapping of it), if
    one did; else returns (the caller raises ``err`` as it is)."""
    found = _FOUND.findall(str(err))
    if not found:
        return
    payload = json.loads(found[-1])
    if payload["kind"] == "missing":
        raise ExecutorError(
            f"escpush is not installed on a Spark executor (its Python, {payload['python']}, says: "
            f"{payload['error']}): install the escpush wheel on every executor (pip install escpush, a "
            "Databricks cluster library, an EMR bootstrap action, or a virtualenv in spark.archives; "
            "--py-files cannot ship its native module). See the docs' 'Spark past one machine'."
        ) from None
    if payload["kind"] == "version":
        raise ExecutorError(
            f"a Spark executor has escpush {payload['error']} (its Python: {payload['python']}), the driver "
            f"escpush {_version()}: install the driver's version on every executor."
        ) from None
    classes: dict[str, type[Exception]] = {"ScanError": ScanError, "InvalidInput": InvalidInput}
    import escpush.errors

    cls: Any = classes.get(payload["class"]) or getattr(escpush.errors, payload["class"], EscpushError)
    raise cls(*payload["args"]) from None


def _version() -> str:
    import escpush

    return escpush.__version__


def _listed(paths: Any, since: Any, until: Any) -> list[tuple[Any, bool, int | None]]:
    if isinstance(paths, (list, tuple)):
        paths = [str(p) if hasattr(p, "__fspath__") else p for p in paths]
    return list(_escpush._spark_inputs(paths, since=since, until=until))


def _run(spark: Any, rdd_of: Callable[[Any], Any]) -> Any:
    """Runs a Spark job, an executor's escpush error raised as itself on the driver."""
    try:
        return rdd_of(spark)
    except Exception as err:
        _raise_from_spark(err)
        raise


def _executor_parts(spark: Any, shares: list[list[_Unit]], task: Callable[..., Any]) -> list[bytes]:
    """The part of each share, run by ``task`` on an executor (a partition each), in input
    order; none when nothing is listed."""
    if not shares:
        return []
    rdd = spark.sparkContext.parallelize(shares, len(shares)).mapPartitionsWithIndex(task)
    collected = _run(spark, lambda _: rdd.collect())
    return [part for _, part in sorted(collected, key=lambda p: p[0])]


def scan(
    spark: Any,
    paths: Any,
    filter: Filter | str | Mapping[str, Any],
    *,
    dataset: str | None = None,
    group_by: str | Sequence[str] | None = None,
    every: Any = None,
    top: int | None = None,
    time_field: str | None = None,
    since: Any = None,
    until: Any = None,
    strict: bool = False,
    threads: int | None = None,
    partitions: int | None = None,
) -> ScanResult:
    """``filter.scan(paths, ...)`` on a Spark cluster: the same ``ScanResult``, counted by
    escpush's native scanner on the executors.

    The driver lists the inputs as ``Filter.scan`` does (files, folders, globs, ``since`` /
    ``until``, object storage with the same credential chain, which every executor then
    reads with its own), cuts them into ``partitions`` runs of about equal bytes, in input
    order (default: ``spark.sparkContext.defaultParallelism``, at most one per input), and
    each executor scans its run with every core its process may use (``threads`` to bound
    it). The parts come back as bytes and merge exactly (escpush-scan's ``ScanResult.merge``):
    the totals, the malformed lines (the first one in input order), the per-input counts and
    the ``group_by`` / ``every`` breakdowns. Each executor lists every group of its part;
    ``top`` is applied once, to the sums, so the groups listed and their counts are exact
    (``breakdown["exact"]`` is True), where one machine's ``Filter.scan`` with ``top`` may
    bound its table. ``seconds`` is the driver's wall time. ``strict``: the first malformed
    line in input order raises ``escpush.ScanError`` as ``Filter.scan`` raises it (each
    executor scans its share whole; the driver raises, the merged counts as its ``partial``).
    An input gone between the listing and its reading raises ``escpush.ScanError`` naming it;
    an executor without escpush raises ``ExecutorError``."""
    started = time.perf_counter()
    f = filter if isinstance(filter, Filter) else Filter.from_dict(filter)
    options: dict[str, Any] = {
        "strict": strict,
        "threads": threads,
        "group_by": group_by,
        "every": every,
        "time_field": time_field,
        "dataset": dataset,
    }
    # The driver's own, empty part: every argument checked here (top too) before a job starts,
    # and the shape of the result (its breakdown) when nothing is listed.
    parts = [bytes(_escpush._spark_scan_part(f, [], top=top, **options))]
    units = _listed(paths, since, until)
    shares = _shares(units, partitions or spark.sparkContext.defaultParallelism)
    # Each share is scanned whole; the merge raises the first malformed line in input order
    # (the first executor to stop on one may hold a later line).
    parts += _executor_parts(spark, shares, _task("scan", f.to_json(), {**options, "strict": False}, _version()))
    return _escpush._spark_merge(parts, top=top, strict=strict, seconds=time.perf_counter() - started)


def preview(
    spark: Any,
    paths: Any,
    job: Mapping[str, Any],
    *,
    scope: str | None = None,
    seed: int | None = None,
    group_by: str | Sequence[str] | None = None,
    every: Any = None,
    since: Any = None,
    until: Any = None,
    strict: bool = False,
    threads: int | None = None,
    partitions: int | None = None,
) -> PreviewResult:
    """``escpush.preview_job(job, paths, ...)`` on a Spark cluster: what the log-push job
    would deliver for the logs at ``paths``, previewed by escpush's native scanner on the
    executors, as one ``PreviewResult`` (``.cost()`` prices it as one machine's: the job's
    dataset and destination are the driver's). The job is a dict of a job's fields or an
    ``escpush.Job``; its filter, ``output_options`` (``field_names``, ``sample_rate``, the
    framing), ``max_upload_*`` are applied as ``preview_job`` applies them. Nothing is
    written (``preview_job``'s ``out=`` stays on one machine).

    The inputs are listed and shared as ``scan`` shares them (``partitions``: by default
    ``defaultParallelism``), a large plain local file by byte ranges as ``select`` cuts it;
    each executor previews its share and its part comes back as bytes, merged in input order
    (escpush-scan's ``PreviewResult.merge``). Exact, equal to one machine's ``preview_job``
    of the same inputs: the lines read, malformed (the first one in input order, its number
    in its file), kept and delivered (``sample_rate`` keeps a line by a hash of its bytes and
    ``seed``, so a line is kept wherever it is read), the bytes read, the times, the same per
    input (a file cut in byte ranges is one input), and the ``group_by`` / ``every``
    breakdown. Not exact: the batches. Each executor ends its own last batch, so a batch that
    one machine holds across the end of a share is two here: ``batches`` is one machine's
    plus between 0 and (shares that delivered a record - 1), at most ``partitions - 1``
    more, never fewer; ``delivered_bytes`` (framing included) differ by exactly that many
    times ``len(batch_prefix) + len(batch_suffix) - len(record_delimiter)`` (0 with
    ``ndjson``'s defaults), and so may ``.cost()`` by those bytes; per input, ``batches``
    and ``delivered_bytes`` follow the executors' batches (they add up to the totals).
    ``compressed_bytes`` is None (nothing written); ``seconds`` the driver's wall time.

    ``strict``: the first malformed line in input order raises ``escpush.ScanError``, as on
    one machine (each executor reads its share whole; the driver raises). The job and every
    argument are checked on the driver before a Spark job starts; an input gone between the
    listing and its reading raises ``escpush.ScanError`` naming it; an executor without
    escpush raises ``ExecutorError``."""
    started = time.perf_counter()
    # The job read as preview_job reads it (its problems raise here), and its delivery
    # fields for the executors (no destination_conf: its credentials stay on the driver).
    shipped = _escpush._spark_preview_job(job, scope=scope)
    options: dict[str, Any] = {
        "scope": scope,
        "seed": seed,
        "group_by": group_by,
        "every": every,
        "threads": threads,
    }
    # The driver's own, empty part: every argument checked here before a job starts, and the
    # shape of the result (its breakdown) when nothing is listed.
    parts = [bytes(_escpush._spark_preview_part(json.loads(shipped), [], **options))]
    n = partitions or spark.sparkContext.defaultParallelism
    units = _listed(paths, since, until)
    shares = _shares(_cut(units, n), n)
    parts += _executor_parts(spark, shares, _task("preview", shipped, options, _version()))
    return _escpush._spark_preview_merge(job, parts, scope=scope, strict=strict, seconds=time.perf_counter() - started)


def select(
    spark: Any,
    paths: Any,
    filter: Filter | str | Mapping[str, Any],
    *,
    dataset: str,
    fields: Sequence[str] | None = None,
    scope: str | None = None,
    since: Any = None,
    until: Any = None,
    strict: bool = False,
    threads: int | None = None,
    partitions: int | None = None,
) -> Any:
    """The lines of ``paths`` that ``filter`` keeps, as a Spark DataFrame of ``dataset``'s
    columns (``schema(dataset)``; only ``fields``, in their order, when given), chosen by
    escpush's native scanner on the executors and turned into Arrow batches there
    (``mapInArrow``; pyarrow is needed on the executors, as for any ``mapInArrow``). The
    inputs are listed and shared as ``scan`` shares them (``partitions``: by default
    ``defaultParallelism``), a large plain local file by byte ranges; the rows come in input order within a
    partition. Each executor builds its Arrow batches natively, typed by the columns'
    pyarrow types (``escpush.dataset_schema(dataset, "pyarrow")``), so that no JSON is parsed
    in Python. A value of another type than its column's reads as Spark's reader reads it
    (PERMISSIVE): null, or in a string column its JSON text as the line writes it (an integer
    column takes an integer ``i64`` holds; a float column any number and ``"NaN"``,
    ``"Infinity"``, ``"-Infinity"``; a list of integers with an element of another type is
    null whole; see the docs' "How select builds its rows"). The job runs when the DataFrame
    is evaluated: wrap its action in ``collect_errors`` to get an executor's escpush error as
    itself (else Spark's own error holds it, after ``escpush-spark-error:``). ``strict``: a
    malformed line fails the job with ``escpush.ScanError`` naming its file and line, that of
    the first executor to meet one, which need not be the first in input order (``scan`` and
    ``preview`` merge their parts and raise that one)."""
    require("pyspark")
    f = filter if isinstance(filter, Filter) else Filter.from_dict(filter)
    full = schema(dataset, scope=scope)
    names: list[str] = list(full.names)
    if fields is not None:
        fields = [fields] if isinstance(fields, str) else list(fields)
        known = set(names)
        unknown = [name for name in fields if name not in known]
        if unknown or len(set(fields)) != len(fields) or not fields:
            problem = f"not fields of {dataset}: {', '.join(unknown)}" if unknown else "each field once, at least one"
            raise InvalidInput(f"fields: {problem}")
        names = fields
    from pyspark.sql.types import StringType, StructField, StructType

    wanted = StructType([full[name] for name in names])
    # The executors build their batches natively, typed by this schema (the same columns'
    # pyarrow types: escpush.dataset_schema), sent as its IPC bytes.
    arrow = dataset_schema(dataset, "pyarrow", scope=scope)
    n = partitions or spark.sparkContext.defaultParallelism
    units = _listed(paths, since, until)
    # Strict mode names a malformed line by its number, which a range would count from its start.
    shares = _shares(units if strict else _cut(units, n), n)
    options: dict[str, Any] = {"strict": strict, "threads": threads, "schema": _arrow_schema(arrow, names)}
    if fields is not None:
        # Each kept line cut down to the fields asked, natively, before it is read.
        options.update(fields=fields, dataset=dataset, scope=scope)
    task = _task("select", f.to_json(), options, _version())
    rows = [(json.dumps(share),) for share in shares]
    frame = spark.createDataFrame(
        spark.sparkContext.parallelize(rows, max(1, len(rows))), StructType([StructField("share", StringType())])
    )
    return frame.mapInArrow(task, wanted)


def _arrow_schema(arrow: Any, names: list[str]) -> bytes:
    """The IPC bytes of the ``pyarrow.Schema`` ``arrow`` chosen to ``names``, in their order."""
    import importlib

    pyarrow = importlib.import_module("pyarrow")
    data: bytes = pyarrow.schema([arrow.field(name) for name in names]).serialize().to_pybytes()
    return data


def collect_errors(action: Callable[[], Any]) -> Any:
    """Runs ``action`` (a Spark action on a DataFrame of ``select``, such as ``df.count``),
    an executor's escpush error raised as itself (``ScanError``, ``ExecutorError``) rather
    than as Spark's error."""
    try:
        return action()
    except Exception as err:
        _raise_from_spark(err)
        raise
