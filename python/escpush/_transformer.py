"""A Logpush transformer run on local logs: :func:`run_transformer`.

The SQL is checked by core first (``check_transformer``: the contract of transformers.mdx and
the dataset's fields and types), then run by Apache DataFusion, the engine Cloudflare
Pipelines' SQL is built on, from its Python wheel (the ``transform`` extra:
``pip install 'escpush[transform]'``). Where the ``WHERE`` clause, or a part of it, is a job
filter's (core's ``prefilter``), escpush's scanner runs that filter over the files first
(``Filter.select``, every core, the GIL released), so the lines that cannot match never
reach DataFusion's JSON reader; the records delivered are those of DataFusion alone.
"""

from __future__ import annotations

import datetime as _dt
import decimal as _decimal
import glob
import gzip
import json
import os
import tempfile
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
    scanner ran first (``None``: every line went to DataFusion); ``lines_read`` and
    ``lines_kept``: the scanner's counts (``None`` without a prefilter)."""

    dataset: str
    """The dataset the transformer's ``FROM`` names."""
    delivered: int
    """How many records the transformer delivered."""
    records: list[dict[str, Any]] | None = field(repr=False)
    """The delivered records (dicts, keys sorted), or ``None`` when they went to ``output``."""
    prefilter: _escpush.Filter | None
    """The job filter escpush's scanner ran first, or ``None``: every line went to DataFusion."""
    lines_read: int | None
    """The lines the scanner read (``None`` without a prefilter)."""
    lines_kept: int | None
    """The lines the prefilter kept and DataFusion read (``None`` without a prefilter)."""
    output: str | None = None
    """The file the records were written to, or ``None``: they are in ``records``."""


def _plain(value: Any) -> Any:
    """An Arrow value as JSON's: timestamps in RFC 3339, decimals as numbers."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in sorted(value.items())}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, _dt.datetime):
        text = value.isoformat()
        return text + "Z" if value.tzinfo is None else text
    if isinstance(value, (_dt.date, _dt.time)):
        return value.isoformat()
    if isinstance(value, _decimal.Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    return value


def _log_files(paths: _Paths) -> list[Path]:
    """The local files of ``paths`` (folders read recursively, globs expanded, as ``scan``
    reads them): the input of a run without a prefilter (object storage needs the scanner)."""
    items = [paths] if isinstance(paths, (str, os.PathLike)) else list(paths)
    files: list[Path] = []
    for item in items:
        path = Path(item)
        if any(c in str(item) for c in "*?[") and not path.exists():
            files.extend(_log_files(sorted(glob.glob(str(item), recursive=True))))
        elif path.is_dir():
            files.extend(
                sorted(
                    p
                    for p in path.rglob("*")
                    if p.is_file() and p.suffix in {".gz", ".log", ".ndjson", ".jsonl", ".json"}
                )
            )
        else:
            files.append(path)
    return files


def _concatenate(paths: _Paths, dst: Path) -> None:
    """Every line of ``paths`` (plain or gzip) into ``dst``: DataFusion's input without a prefilter."""
    with dst.open("wb") as out:
        for path in _log_files(paths):
            opener = gzip.open if path.suffix == ".gz" else open
            with opener(path, "rb") as src:
                for line in src:
                    out.write(line if line.endswith(b"\n") else line + b"\n")


def datafusion_context(dataset: str, ndjson: str | os.PathLike[str]) -> Any:
    """A DataFusion session whose table ``dataset`` is the NDJSON file ``ndjson``, names kept
    as written (Pipelines' SQL reads ``ClientIP`` as ``ClientIP``: no lower-casing)."""
    datafusion = need("datafusion", "run_transformer")
    config = datafusion.SessionConfig().set("datafusion.sql_parser.enable_ident_normalization", "false")
    ctx = datafusion.SessionContext(config)
    ctx.register_json(dataset, str(ndjson), file_extension=Path(ndjson).suffix or ".ndjson")
    return ctx


def run_datafusion(code: str, dataset: str, ndjson: str | os.PathLike[str]) -> list[dict[str, Any]]:
    """The records DataFusion delivers for ``code`` over one NDJSON file, as JSON values."""
    table = datafusion_context(dataset, ndjson).sql(code).to_arrow_table()
    return [_plain(record) for record in table.to_pylist()]


def run_transformer(
    code: str,
    paths: _Paths,
    *,
    output: str | os.PathLike[str] | None = None,
    threads: int | None = None,
    strict: bool = False,
    prefilter: bool = True,
) -> TransformerRun:
    """Runs a transformer's SQL over local NDJSON logs (files, folders, globs; plain or gzip)
    and gives what the job would deliver: a :class:`TransformerRun` with the records, or
    with ``output`` an NDJSON file of them (one record a line, keys sorted).

    The SQL is checked first (``InvalidInput`` listing each problem at its line and column);
    with ``prefilter`` (the default) the part of its ``WHERE`` a job filter can say runs in
    escpush's scanner first (``threads``, ``strict`` as in ``Filter.scan``), so DataFusion
    parses only the lines that can match; the records are those of DataFusion alone.
    Needs the ``transform`` extra (``pip install 'escpush[transform]'``)."""
    need("datafusion", "run_transformer")
    dataset = _escpush.check_transformer(code)["dataset"]
    pre = _escpush._transformer_prefilter(code) if prefilter else None
    read = kept = None
    with tempfile.TemporaryDirectory(prefix="escpush-transformer-") as tmp:
        src = Path(tmp) / "input.ndjson"
        if pre is not None:
            scanned = pre.select(paths, src, strict=strict, threads=threads)
            read, kept = scanned.total, scanned.matched
        else:
            _concatenate(paths, src)
        # No line kept: nothing can be delivered (every delivered record passes the prefilter).
        records = [] if kept == 0 or src.stat().st_size == 0 else run_datafusion(code, dataset, src)
    if output is not None:
        with open(output, "w", encoding="utf-8") as out:
            for record in records:
                out.write(json.dumps(record, sort_keys=True, separators=(",", ":"), ensure_ascii=False) + "\n")
        return TransformerRun(dataset, len(records), None, pre, read, kept, os.fspath(output))
    return TransformerRun(dataset, len(records), records, pre, read, kept)
