"""A Logpush transformer run on local logs: :func:`run_transformer`.

The SQL is checked by core first (``check_transformer``: the contract of transformers.mdx and
the dataset's fields and types), then run by one of two engines:

- ``engine="escpush"`` (the default): core's interpreter of the contract's subset, the one the
  emulator's preview endpoint answers with, inside escpush's scanner: every core, the GIL
  released, inputs as ``Filter.scan`` takes them; each line walked once, the part of the
  ``WHERE`` a job filter can say (core's prefilter) dropping the lines that cannot match, the
  fields the SQL reads taken as the line holds them. No extra is needed. Its records are
  checked against DataFusion's, record for record, by the tests (``tests/transformer``).
- ``engine="datafusion"``: Apache DataFusion, the engine Cloudflare Pipelines' SQL is built on,
  from its Python wheel (the ``transform`` extra: ``pip install 'escpush[transform]'``).
  escpush's scanner reads the logs first, as above, and cuts each kept line down to the fields
  the SQL reads, values as written, so DataFusion parses a few fields of the lines that can
  match. DataFusion's Arrow batches are written as NDJSON by escpush (``_RecordWriter``).

Both write a record by core's value rules, the same as ``preview_transformer``'s: members
sorted by name, times in RFC 3339 UTC, a float that holds an integer as one.
"""

from __future__ import annotations

import importlib.util
import json
import os
import tempfile
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Union

from . import _escpush
from ._optional import need

__all__ = ["TransformerRun", "run_transformer"]

_Paths = Union[str, "os.PathLike[str]", Sequence[Union[str, "os.PathLike[str]"]]]


@dataclass(frozen=True)
class TransformerRun:
    """What a transformer delivered from local logs.

    ``records``: the delivered records (dicts, keys sorted as the docs' delivered records
    are), or ``None`` when they were written to ``output``; ``delivered``: how many;
    ``dataset``: the dataset its ``FROM`` names; ``prefilter``: the job filter escpush's
    scanner ran first (``None``: every valid line went on); ``fields``: the fields each kept
    line was cut down to (``None``: whole lines, for SQL that reads ``*``); ``lines_read`` and
    ``lines_kept``: the scanner's counts; ``engine``: the engine that ran the SQL."""

    dataset: str
    """The dataset the transformer's ``FROM`` names."""
    delivered: int
    """How many records the transformer delivered."""
    records: list[dict[str, Any]] | None = field(repr=False)
    """The delivered records (dicts, keys sorted), or ``None`` when they went to ``output``."""
    prefilter: _escpush.Filter | None
    """The job filter escpush's scanner ran first, or ``None``: every valid line went on."""
    lines_read: int
    """The lines the scanner read (malformed ones included)."""
    lines_kept: int
    """The lines the prefilter kept, which the engine read."""
    output: str | None = None
    """The file the records were written to, or ``None``: they are in ``records``."""
    fields: list[str] | None = None
    """The fields the engine read of each kept line (``None``: whole lines: the SQL reads ``*``)."""
    engine: str = "escpush"
    """The engine that ran the SQL: ``"escpush"`` or ``"datafusion"``."""


def datafusion_context(dataset: str, ndjson: str | os.PathLike[str]) -> Any:
    """A DataFusion session whose table ``dataset`` is the NDJSON file ``ndjson``, names kept
    as written (Pipelines' SQL reads ``ClientIP`` as ``ClientIP``: no lower-casing)."""
    datafusion = need("datafusion", "run_transformer")
    config = datafusion.SessionConfig().set("datafusion.sql_parser.enable_ident_normalization", "false")
    ctx = datafusion.SessionContext(config)
    ctx.register_json(dataset, str(ndjson), file_extension=Path(ndjson).suffix or ".ndjson")
    return ctx


def write_records(df: Any, path: str | os.PathLike[str]) -> int:
    """Writes the rows of a DataFusion DataFrame to ``path`` as NDJSON by core's value rules
    (``_RecordWriter``), an Arrow batch at a time; returns how many."""
    pa = need("pyarrow", "run_transformer")
    writer = _escpush._RecordWriter(path)
    try:
        for batch in pa.RecordBatchReader.from_stream(df):
            if batch.num_rows:
                sink = pa.BufferOutputStream()
                with pa.ipc.new_stream(sink, batch.schema) as ipc:
                    ipc.write_batch(batch)
                writer.write(sink.getvalue().to_pybytes())
    finally:
        written = writer.close()
    return written


def _read_records(path: Path) -> list[dict[str, Any]]:
    with path.open(encoding="utf-8") as lines:
        return [json.loads(line) for line in lines]


ENGINES = ("escpush", "datafusion")
"""The engines :func:`run_transformer` runs a transformer's SQL with."""


def run_transformer(
    code: str,
    paths: _Paths,
    *,
    output: str | os.PathLike[str] | None = None,
    threads: int | None = None,
    strict: bool = False,
    prefilter: bool = True,
    engine: str = "escpush",
) -> TransformerRun:
    """Runs a transformer's SQL over local NDJSON logs (files, folders, globs, object
    stores, as ``Filter.scan`` reads them; plain or gzip) and gives what the job would
    deliver: a :class:`TransformerRun` with the records, or with ``output`` an NDJSON file of
    them (one record a line, keys sorted; replaced only when the run succeeds).

    The SQL is checked first (``InvalidInput`` listing each problem at its line and column).
    escpush's scanner reads the logs (``threads``, ``strict`` as in ``Filter.scan``): with
    ``prefilter`` (the default) the part of the ``WHERE`` a job filter can say drops the lines
    that cannot match, and only the fields the SQL reads are taken from each kept line.
    ``engine``: ``"escpush"`` (the default) runs the SQL with core's interpreter in the
    scanner's workers, and a line it fails on (an integer overflow, a division by zero, a cast
    that cannot be made) raises ``ScanError`` naming the input and the line;
    ``"datafusion"`` runs it with Apache DataFusion, Pipelines' engine (the ``transform``
    extra: ``pip install 'escpush[transform]'``)."""
    if engine not in ENGINES:
        from .errors import InvalidInput

        raise InvalidInput(f"engine: {engine!r} is not one of {', '.join(map(repr, ENGINES))}")
    if engine == "datafusion":
        need("pyarrow", "run_transformer")
        if importlib.util.find_spec("datafusion") is None:
            need("datafusion", "run_transformer")  # raises, naming the extra
    dataset = _escpush.check_transformer(code)["dataset"]
    pre = _escpush._transformer_prefilter(code) if prefilter else None
    target = Path(output) if output is not None else None
    with tempfile.TemporaryDirectory(prefix="escpush-transformer-") as tmp:
        out = Path(tmp) / "records.ndjson" if target is None else target
        if engine == "escpush":
            read, kept, delivered, fields = _escpush._transformer_run(
                code, paths, out, prefilter=prefilter, threads=threads, strict=strict
            )
        else:
            read, kept, delivered, fields = _run_datafusion(
                code, paths, dataset, out, Path(tmp) / "input", threads=threads, strict=strict, prefilter=prefilter
            )
        records = None if target is not None else _read_records(out)
    where = None if target is None else os.fspath(target)
    return TransformerRun(dataset, delivered, records, pre, read, kept, where, fields, engine)


def _run_datafusion(
    code: str,
    paths: _Paths,
    dataset: str,
    out: Path,
    src: Path,
    *,
    threads: int | None,
    strict: bool,
    prefilter: bool,
) -> tuple[int, int, int, list[str] | None]:
    """``run_transformer(engine="datafusion")``: escpush's scanner writes DataFusion's input
    into the new folder ``src`` (``_transformer_input``), DataFusion runs the SQL,
    ``write_records`` writes its batches to ``out``; returns ``(lines read, lines kept,
    records delivered, fields)``."""
    # DataFusion's module takes about a second to load: it loads while the scanner reads
    # (the scanner runs without the GIL).
    loading = threading.Thread(target=need, args=("datafusion", "run_transformer"), daemon=True)
    loading.start()
    try:
        read, kept, fields = _escpush._transformer_input(
            code, paths, src, prefilter=prefilter, threads=threads, strict=strict
        )
    finally:
        loading.join()
    _flatten(src)
    # Written beside the output and renamed onto it once complete: a failed run leaves an
    # existing output as it was.
    beside = _beside(out)
    try:
        # No line kept: nothing can be delivered (every delivered record passes the prefilter).
        if kept == 0 or not any(p.stat().st_size for p in src.iterdir()):
            delivered = 0
        else:
            delivered = write_records(datafusion_context(dataset, src).sql(code), beside)
        os.replace(beside, out)
    except BaseException:
        beside.unlink(missing_ok=True)
        raise
    return read, kept, delivered, fields


def _flatten(folder: Path) -> None:
    """The input's files (a preview's batches, in a folder per day) moved into ``folder``
    itself as ``N.ndjson``: DataFusion reads a folder's files, not its folders'."""
    files = sorted(p for p in folder.rglob("*") if p.is_file())
    for i, path in enumerate(files):
        path.rename(folder / f"{i}.ndjson")
    for sub in sorted((p for p in folder.rglob("*") if p.is_dir()), key=lambda p: len(p.parts), reverse=True):
        sub.rmdir()


def _beside(target: Path) -> Path:
    """A new file in ``target``'s folder for the output being written."""
    handle, name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent or ".")
    os.close(handle)
    return Path(name)
