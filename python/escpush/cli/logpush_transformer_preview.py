"""``escpush logpush transformer preview``: what a transformer delivers. With ``--sample``, its
SQL run on local logs (``escpush.run_transformer``: checked by core, the part of its ``WHERE`` a
job filter can say run by escpush's scanner first, the query by core's interpreter in the
scanner's workers, or with ``--engine datafusion`` by DataFusion); with ``--input``, for
one record, by the API's preview endpoint (``account.logpush.transformers.preview``) or, with
``--local``, by core's interpreter (``escpush.preview_transformer``). The rules are core's; this
module reads arguments and prints. Wired into the ``transformer`` group by :func:`add_parser`."""

from __future__ import annotations

import json

from ._common import EXIT_OK, CliError, command, emit, read_text, scope, strict_json

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from collections.abc import Sequence
    from typing import Any

    from ._common import Commands


def add_parser(subparsers: Commands, parents: Sequence[argparse.ArgumentParser] = ()) -> argparse.ArgumentParser:
    """Adds ``preview`` to the ``transformer`` group's subparsers (``parents``: its API options)."""
    from ._common import integer, output_options

    preview = command(
        subparsers,
        "preview",
        "what a transformer delivers: for local logs (--sample) or one record (--input)",
        "Check a transformer's SQL (the contract of transformers.mdx, the dataset's fields and types: each "
        "problem at its line and column) and show what it delivers. --sample PATH...: run it on local NDJSON "
        "logs (plain or gzip) in escpush's scanner, on every core: the part of its WHERE a job filter can say "
        "drops the lines that cannot match (--no-prefilter turns that off), the fields the SQL reads are taken from "
        "each kept line and escpush's interpreter runs the query; --engine datafusion runs the query with Apache "
        "DataFusion, the engine of Cloudflare Pipelines' SQL (pip install 'escpush[transform]'), on those fields. "
        "--input JSON: one "
        "record, previewed by the API (--account) or, with --local, by escpush's own interpreter. When the SQL "
        "only filters, the job filter that does the same for free is printed too.",
        [
            "escpush logpush transformer preview --file errors.sql --sample logs/ --out delivered.ndjson",
            "escpush logpush transformer preview --sql 'SELECT RayID FROM http_requests WHERE "
            'EdgeResponseStatus >= 500\' --input \'{"RayID": "r", "EdgeResponseStatus": 502}\' --local',
            "escpush logpush transformer preview --account ACCOUNT_ID --file t.sql --input @record.json",
        ],
        [*parents, output_options()],
    )
    preview.set_defaults(run=run_preview, _needs_scope=False)
    code = preview.add_argument_group("the SQL (one of)")
    code.add_argument("--sql", metavar="SQL", help="the transformer's SQL")
    code.add_argument("--file", metavar="FILE", help="a file holding it (- for stdin)")
    preview.add_argument("--sample", nargs="+", metavar="PATH", help="local logs: files, folders, globs")
    preview.add_argument("--input", metavar="JSON", help="one record (JSON, or @FILE)")
    preview.add_argument("--local", action="store_true", help="with --input: escpush's interpreter, not the API")
    preview.add_argument("--out", metavar="FILE", help="with --sample: write the records as NDJSON to FILE")
    preview.add_argument(
        "--engine",
        choices=("escpush", "datafusion"),
        default="escpush",
        help="with --sample: the engine that runs the query (default: escpush)",
    )
    preview.add_argument("--no-prefilter", dest="prefilter", action="store_false", help="send every line to the engine")
    preview.add_argument("--threads", type=integer(0, 256), metavar="N", help="the scanner's threads (0: every core)")
    preview.add_argument("--strict", action="store_true", help="a line that is not a JSON object is an error")
    return preview


def _code(args: argparse.Namespace) -> str:
    if (args.sql is None) == (args.file is None):
        raise CliError("give the SQL with --sql or --file (one of them)")
    if args.sql is not None:
        return str(args.sql)
    return read_text(args.file, "SQL file")


def _input(text: str) -> dict[str, Any]:
    if text.startswith("@"):
        text = read_text(text[1:], "--input file")
    try:
        record = json.loads(text)
    except ValueError as e:
        raise CliError(f"--input is not JSON: {e}") from None
    if not isinstance(record, dict):
        raise CliError("--input is one log record, a JSON object")
    return record


def run_preview(args: argparse.Namespace) -> int:
    from .. import check_transformer, preview_transformer, transformer_to_filter
    from ..errors import InvalidInput

    code = _code(args)
    if (args.sample is None) == (args.input is None):
        raise CliError("give --sample (local logs) or --input (one record)")
    try:
        dataset = check_transformer(code)["dataset"]
    except InvalidInput as err:
        raise CliError(str(err), problems=err.errors()) from None
    as_filter = transformer_to_filter(code)
    data: dict[str, Any] = {"dataset": dataset}
    if as_filter is not None:
        data["as_job_filter"] = {
            "filter": json.loads(as_filter["filter"].to_json()),
            "field_names": as_filter["fields"],
            "note": as_filter["note"],
        }
    if args.sample is not None:
        from .._transformer import run_transformer

        run = run_transformer(
            code,
            args.sample,
            output=args.out,
            threads=args.threads,
            strict=args.strict,
            prefilter=args.prefilter,
            engine=args.engine,
        )
        data.update(
            engine=run.engine,
            delivered=run.delivered,
            lines_read=run.lines_read,
            lines_kept_by_prefilter=run.lines_kept,
            prefilter=None if run.prefilter is None else json.loads(run.prefilter.to_json()),
            fields_read=run.fields,
        )
        if args.out is None:
            data["records"] = run.records
    else:
        record = _input(args.input)
        if args.local:
            data["records"] = preview_transformer(code, record)
        else:
            if getattr(args, "account", None) is None:
                raise CliError("--input without --local asks the API: give --account (or use --local)")
            data["records"] = scope(args).logpush.transformers.preview(code, record)
    emit(args, data, _text(data))
    return EXIT_OK


def _text(data: dict[str, Any]) -> str:
    lines = [f"dataset: {data['dataset']}"]
    if "delivered" in data:
        lines.append(f"lines read: {data['lines_read']}, kept by the prefilter: {data['lines_kept_by_prefilter']}")
        read = data["fields_read"]
        fields = "every field (the SQL reads *)" if read is None else ", ".join(read)
        lines.append(f"fields the engine ({data['engine']}) read: {fields}")
        lines.append(f"records delivered: {data['delivered']}")
    lines.extend(strict_json(r) for r in data.get("records") or [])
    if "as_job_filter" in data:
        form = data["as_job_filter"]
        lines.append(f"note: {form['note']}")
        lines.append(f"job filter: {strict_json(form['filter'])}")
        if form["field_names"] is not None:
            lines.append(f"field_names: {', '.join(form['field_names'])}")
    return "\n".join(lines)
