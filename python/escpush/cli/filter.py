"""``escpush filter validate|fmt|explain|diff|scan``: check, format, draw, compare and preview a
log-push filter. The tree ``explain`` draws and the byte sizes ``scan`` prints come from
:mod:`escpush._format`, shared with the Jupyter display."""

from __future__ import annotations

import os
import sys

from ._common import (
    EXIT_CHECK_FAILED,
    EXIT_OK,
    EXIT_USAGE,
    FILTER_EXAMPLE,
    CliError,
    command,
    emit,
    filter_options,
    filter_text,
    group,
    integer,
    output_options,
    parse_filter,
    require_stdin,
    scope_choices,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from collections.abc import Sequence
    from typing import Any

    from .._escpush import Filter
    from .._problem import FilterProblem
    from ._common import Commands


def add_run_options(parser: argparse.ArgumentParser) -> None:
    """``--strict`` and ``--threads``, as every command that runs the scan's readers takes them
    (``filter scan``, ``logpush preview``)."""
    from .._escpush import _MAX_SCAN_THREADS

    parser.add_argument("--strict", action="store_true", help="stop with an error at the first malformed line")
    parser.add_argument(
        "--threads",
        type=integer(0, _MAX_SCAN_THREADS),
        default=None,
        metavar="N",
        help="worker threads (default or 0: one per core)",
    )


def add(commands: Commands, summary: str) -> None:
    flt = group(
        commands,
        "filter",
        summary,
        "Log-push job filters. FILTER is a file, JSON text, the text form "
        '(\'EdgeResponseStatus >= 500 and ClientCountry in ["cn", "ru"]\'), or - for stdin; the escaped '
        "string form of a job payload is accepted too.",
        "escpush filter validate my-filter.json --dataset http_requests",
    )
    checked, plain, output = filter_options(rules=True), filter_options(rules=False), output_options()
    command(
        flt,
        "validate",
        "check a filter (syntax, limits, and with --dataset its fields)",
        "Check a filter: its syntax and the limits, and with --dataset its fields, operators and values. "
        "Prints every problem with its path; exits 1 if there is any.",
        [
            f"escpush filter validate {FILTER_EXAMPLE}",
            "escpush filter validate my-filter.json --dataset http_requests --json",
        ],
        [checked, output],
    ).set_defaults(run=run_validate)

    fmt = command(
        flt,
        "fmt",
        "print a filter in its canonical form (JSON or the text form)",
        "Print the filter in its canonical form: JSON (compact, members in key/operator/value order), the "
        "text escpush sends as a job's filter; or with --to text, the text form.",
        [
            f"escpush filter fmt {FILTER_EXAMPLE} --indent 2",
            "escpush filter fmt my-filter.json --check",
            "escpush filter fmt my-filter.json --as-string   # the JSON string a job payload holds",
            "escpush filter fmt my-filter.json --to text",
            "escpush filter fmt 'EdgeResponseStatus >= 500 and ClientCountry == \"cn\"'",
        ],
        [plain, output],
    )
    fmt.add_argument(
        "--to", choices=("json", "text"), default="json", help="the form to print: canonical JSON (default) or text"
    )
    fmt.add_argument(
        "--compact",
        action="store_true",
        help="print an equivalent filter that is never larger (merged, factored, implied conditions dropped)",
    )
    fmt.add_argument("--dataset", metavar="NAME", help="with --compact: equivalent on records the dataset allows")
    fmt.add_argument("--scope", choices=scope_choices(), help="the dataset's scope, if both have it")
    layout = fmt.add_mutually_exclusive_group()
    layout.add_argument("--indent", type=integer(0, 16), metavar="N", help="indent by N spaces instead of compact")
    layout.add_argument("--as-string", action="store_true", help="print it as a JSON string (job payload form)")
    fmt.add_argument("--check", action="store_true", help="print nothing; exit 1 if FILTER is not canonical")
    fmt.set_defaults(run=run_fmt)

    diff = command(
        flt,
        "diff",
        "decide whether two filters match exactly the same records",
        "Decide whether two filters match exactly the same log records, by the evaluation rules (missing "
        "fields, types, arrays, floats, integers of any size); with --dataset, among the records its schema "
        "allows. A proof, not a sample. Exits 0 when they are equivalent, 1 when not, printing a record on "
        "which exactly one of them matches.",
        [
            "escpush filter diff old.json new.json",
            'escpush filter diff \'A == "x" or A == "y"\' \'A in ["x", "y"]\' --dataset http_requests',
        ],
        [output],
    )
    diff.add_argument("a", metavar="A", help="a filter: a file, JSON text, the text form, or - for stdin")
    diff.add_argument("b", metavar="B", help="the other filter, in any of those forms")
    diff.add_argument("--dataset", metavar="NAME", help="compare only on records the dataset's schema allows")
    diff.add_argument("--scope", choices=scope_choices(), help="the dataset's scope (default: zone, then account)")
    diff.set_defaults(run=run_diff)

    command(
        flt,
        "explain",
        "show a filter as a tree, with its size against the limits and its problems",
        "Print the filter as an indented tree, its operator count and byte size against the limits, and "
        "every problem (with --dataset, also against the dataset). Exits 1 if there is any problem.",
        [f"escpush filter explain {FILTER_EXAMPLE}", "escpush filter explain my-filter.json --dataset http_requests"],
        [checked, output],
    ).set_defaults(run=run_explain)

    scan = command(
        flt,
        "scan",
        "run a filter over NDJSON logs (files, folders, globs, object storage) and say what it keeps",
        "Run a filter over NDJSON logs (plain or gzip) on every core and say what it keeps: the lines and "
        "bytes that match and their shares. LOGS are files, folders (read recursively: their .gz, .log, "
        ".ndjson, .jsonl and .json files), globs (expanded by escpush, sorted), object storage URLs "
        "(s3://bucket/prefix/, r2://, gs://, az://; credentials from the store's usual environment "
        "variables) or - for stdin. --since/--until pick log-push files by the time range in their names. "
        "Blank lines are skipped; lines that are not a JSON object are counted as malformed. A progress "
        "line is drawn on stderr when it is a terminal. With --output, the lines go to a new file that "
        "replaces FILE only when the scan succeeds; FILE may not be one of the inputs.",
        [
            "escpush filter scan my-filter.json logs/",
            "escpush filter scan my-filter.json 'logs/2026112*/*.log.gz' --per-file",
            "escpush filter scan my-filter.json s3://my-logs/http/ --since 2026-11-22 --until 2026-11-23",
            "escpush filter scan my-filter.json logs/ --limit 20   # the first 20 matching lines, for a look",
            "escpush filter scan my-filter.json logs.ndjson --output kept.ndjson",
            "zcat big.ndjson.gz | escpush filter scan my-filter.json - --count",
            "escpush filter scan my-filter.json logs/ --group-by ClientCountry --group-by EdgeResponseStatus "
            "--every 1h   # what it keeps, by group and by hour",
        ],
        [plain, output],
    )
    scan.add_argument(
        "logs",
        metavar="LOGS",
        nargs="+",
        help="NDJSON files (.gz too), folders, globs, s3:// r2:// gs:// az:// URLs, or - for stdin",
    )
    mode = scan.add_mutually_exclusive_group()
    mode.add_argument("--count", action="store_true", help="print only the number of matching lines")
    mode.add_argument("--output", metavar="FILE", help="write the matching lines to FILE, in input order")
    scan.add_argument(
        "--limit",
        type=integer(0, 2**63 - 1),
        metavar="N",
        help="write only the first N matching lines (in input order; to stdout without --output, the counts "
        "then go to stderr); the counts still cover every line",
    )
    scan.add_argument(
        "--since",
        metavar="TIME",
        help="only log-push files whose time range ends after TIME (ISO-8601; UTC unless it gives an offset)",
    )
    scan.add_argument("--until", metavar="TIME", help="only log-push files whose time range starts before TIME")
    scan.add_argument("--per-file", action="store_true", help="also print the counts of every input")
    scan.add_argument("--dataset", metavar="NAME", help="check the filter against a dataset first")
    add_run_options(scan)
    scan.add_argument(
        "--group-by",
        action="append",
        metavar="FIELD",
        help="also count by the values of FIELD (repeat for several fields: one group per combination)",
    )
    scan.add_argument(
        "--every",
        metavar="INTERVAL",
        help="also count by time buckets of INTERVAL (30s, 15m, 1h, 1d) of the time field; the first 100,000 "
        "buckets in time are listed, the lines of later ones counted as other buckets",
    )
    scan.add_argument(
        "--top",
        type=integer(1, 2**63 - 1),
        default=None,
        metavar="N",
        help="with --group-by, list the N groups with the most lines, the rest as other (default 10)",
    )
    scan.add_argument(
        "--time-field",
        metavar="FIELD",
        help="with --every, the field to read times from (default: the dataset's, EdgeStartTimestamp for "
        "http_requests), in any log-push format (rfc3339, rfc3339ms, rfc3339ns, unix, unixnano)",
    )
    scan.set_defaults(run=run_scan)
    add_sql(flt, plain, output)


# -- validate, fmt, explain ---------------------------------------------------------------------


def _check(args: argparse.Namespace) -> tuple[Filter | None, list[FilterProblem]]:
    """The filter (None when it does not parse) and every problem found."""
    from .. import FilterError

    try:
        f = parse_filter(args.filter)
    except FilterError as err:
        return None, list(err.errors())
    problems = f.problems(args.dataset, scope=args.scope, max_operators=args.max_operators, max_bytes=args.max_bytes)
    return f, list(problems)


def _limits(args: argparse.Namespace) -> dict[str, int]:
    return {"operators": args.max_operators, "bytes": args.max_bytes}


def _problem_lines(problems: Sequence[FilterProblem]) -> list[str]:
    lines = []
    for p in problems:
        # A problem of the text form carries the line of text and a caret after its message.
        message, _, caret = p["message"].partition("\n")
        lines.append(f"  {p['path'] or '(filter)'}: {message} [{p['code']}]")
        lines += [f"  {line}" for line in caret.splitlines()]
    return lines


def run_validate(args: argparse.Namespace) -> int:
    from .._format import plural, usage

    f, problems = _check(args)
    against = f"for {args.dataset}" if args.dataset else "(syntax and limits; --dataset also checks the fields)"
    data = {
        "valid": not problems,
        "dataset": args.dataset,
        "operators": getattr(f, "operator_count", None),
        "bytes": getattr(f, "byte_size", None),
        "limits": _limits(args),
        "problems": problems,
    }
    if problems:
        lines = [f"invalid {against}: {plural(len(problems), 'problem')}", *_problem_lines(problems)]
        emit(args, data, "\n".join(lines))
        return EXIT_CHECK_FAILED
    assert f is not None
    size = f"{usage(f.operator_count, args.max_operators, 'operators')}, {usage(f.byte_size, args.max_bytes, 'bytes')}"
    emit(args, data, f"valid {against}: {size}")
    return EXIT_OK


def run_fmt(args: argparse.Namespace) -> int:
    text = filter_text(args.filter)
    from .. import Filter

    f = Filter.parse_any(text)
    if args.dataset and not args.compact:
        raise CliError("--dataset applies to --compact; use `escpush filter validate` to check a filter against one")
    if args.compact:
        f = f.compact(args.dataset, scope=args.scope)
    if args.to == "text":
        if args.indent is not None or args.as_string:
            raise CliError("--indent and --as-string apply to JSON; leave them out with --to text")
        canonical = f.to_text()
    else:
        canonical = f.to_json()
    if args.check:
        same = text.strip() == canonical
        if args.json:
            emit(args, {"canonical": same, "filter": canonical}, "")
        elif not same:
            from .._format import printable

            print(f"escpush: {printable(args.filter)}: not in canonical form", file=sys.stderr)
        return EXIT_OK if same else EXIT_CHECK_FAILED
    import json

    if args.to == "text":
        out = canonical
    elif args.indent is not None:
        out = json.dumps(json.loads(canonical), indent=args.indent, ensure_ascii=False)
    elif args.as_string:
        out = json.dumps(canonical, ensure_ascii=False)
    else:
        out = canonical
    emit(args, {"filter": canonical}, out)
    return EXIT_OK


def run_diff(args: argparse.Namespace) -> int:
    if args.a == "-" and args.b == "-":
        raise CliError("A and B cannot both be - (stdin)")
    a, b = parse_filter(args.a), parse_filter(args.b)
    record = a.counterexample(b, args.dataset, scope=args.scope)
    among = f" on records of {args.dataset}" if args.dataset else ""
    data = {"equivalent": record is None, "dataset": args.dataset, "counterexample": record}
    if record is None:
        emit(args, data, f"equivalent{among}: the two filters match exactly the same records")
        return EXIT_OK
    import json

    shown = json.dumps(record, ensure_ascii=False)
    which = "A" if a.matches(record) else "B"
    emit(args, data, f"not equivalent{among}: only {which} matches the record\n  {shown}")
    return EXIT_CHECK_FAILED


def _over(n: int, limit: int) -> str:
    return "  (over the limit)" if n > limit else ""


def _ascii_only() -> bool:
    """Whether stdout cannot print the tree's box-drawing characters."""
    try:
        "├─└│".encode(sys.stdout.encoding or "ascii")
    except (UnicodeEncodeError, LookupError):
        return True
    return False


def run_explain(args: argparse.Namespace) -> int:
    from .._format import plural, tree_lines

    f, problems = _check(args)
    data: dict[str, object] = {"dataset": args.dataset, "limits": _limits(args), "problems": problems}
    lines: list[str] = []
    if f is None:
        data.update(filter=None, tree=None, operators=None, bytes=None)
        lines.append("the filter does not parse")
    else:
        where = f.to_dict()["where"]
        ops, size = f.operator_count, f.byte_size
        data.update(filter=f.to_json(), tree=where, operators=ops, bytes=size)
        lines += ["where", *("  " + line for line in tree_lines(where, _ascii_only()))]
        lines.append(f"operators: {ops} of {args.max_operators}{_over(ops, args.max_operators)}")
        lines.append(f"size:      {size} of {args.max_bytes} bytes{_over(size, args.max_bytes)}")
    checked = f" for {args.dataset}" if args.dataset else ""
    if problems:
        lines += [f"{plural(len(problems), 'problem')}{checked}:", *_problem_lines(problems)]
    else:
        lines.append(f"no problems{checked}")
    emit(args, data, "\n".join(lines))
    return EXIT_CHECK_FAILED if problems else EXIT_OK


# -- scan -------------------------------------------------------------------------------------


class _ProgressBar:
    """A one-line progress report on stderr, drawn only on a terminal and after a second."""

    def __init__(self, logs: Sequence[str]) -> None:
        import time

        self.clock = time.monotonic
        self.start = self.clock()
        self.shown = False
        # A percentage only when every input's size is its NDJSON size (plain files).
        sizes = [os.path.getsize(p) if p != "-" and not p.endswith(".gz") and os.path.isfile(p) else None for p in logs]
        self.total = None if None in sizes else sum(s for s in sizes if s is not None)

    def __call__(self, done: int, lines: int) -> None:
        from .._format import percent, size

        elapsed = self.clock() - self.start
        if elapsed < 1.0:
            return
        text = f"{size(done)}, {lines:,} lines, {size(done / elapsed)}/s"
        if self.total:
            read = min(done, self.total)
            text = f"[{'#' * (30 * read // self.total):<30}] {percent(read, self.total) or '':>8} {text}"
        sys.stderr.write(f"\r{text}\x1b[K")
        sys.stderr.flush()
        self.shown = True

    def close(self) -> None:
        if self.shown:
            sys.stderr.write("\r\x1b[K")
            sys.stderr.flush()


def _absent_fields(data: dict[str, Any], checked: bool) -> list[str]:
    """A note for each field of the breakdown that no line read holds (all in the missing
    group, or no time read): most likely a misspelt name, which only ``--dataset`` checks."""
    from .._format import printable

    breakdown = data.get("breakdown")
    if not isinstance(breakdown, dict) or not data.get("total"):
        return []
    absent = []
    groups = breakdown.get("groups") or []
    if not (breakdown.get("other") or {}).get("groups"):
        absent += [name for name in breakdown.get("group_by") or [] if all(name not in g["key"] for g in groups)]
    field = breakdown.get("time_field")
    if field and not breakdown.get("buckets") and not (breakdown.get("unreadable_time") or {}).get("lines"):
        absent.append(field)
    hint = "" if checked else " (misspelt? --dataset checks field names)"
    return [f"note: no line read has {printable(name)}{hint}" for name in absent]


def run_scan(args: argparse.Namespace) -> int:
    from .._breakdown import tables as breakdown_tables
    from .._format import plural, printable, size, text_table

    if args.filter == "-" and "-" in args.logs:
        raise CliError("FILTER and LOGS cannot both be - (stdin)")
    if args.limit is not None and args.count:
        raise CliError("--limit writes lines and --count prints only their number: use one of them")
    if args.count and (args.group_by or args.every):
        raise CliError("--count prints only the number of matching lines: drop it to see the breakdown")
    if args.top is not None and not args.group_by:
        raise CliError("--top lists the largest groups of --group-by: give --group-by too")
    if args.time_field and not args.every:
        raise CliError("--time-field names the field of the --every buckets: give --every too")
    if "-" in args.logs:
        require_stdin("the logs")
    f = parse_filter(args.filter)
    if args.dataset:
        f.validate(args.dataset)
    progress = _ProgressBar(args.logs) if sys.stderr.isatty() else None
    window: dict[str, Any] = {"since": args.since, "until": args.until, "limit": args.limit}
    if args.group_by or args.every or args.top is not None or args.time_field:
        top = args.top if args.top is not None or not args.group_by else 10
        window.update(group_by=args.group_by, every=args.every, top=top, time_field=args.time_field)
        window["dataset"] = args.dataset
    try:
        if args.output is not None:
            result = f.select(
                args.logs, args.output, strict=args.strict, threads=args.threads, progress=progress, **window
            )
        else:
            result = f.scan(args.logs, strict=args.strict, threads=args.threads, progress=progress, **window)
    finally:
        if progress is not None:
            progress.close()
    # The result's data, read once: the counts, the breakdown, the inputs, the lines of --limit.
    data: dict[str, Any] = result.to_dict()
    inputs = data["per_input"]
    data["inputs"] = len(inputs)
    data["output"] = args.output
    # --limit without --output: the lines are the output, and the counts go to stderr.
    to_stdout = "lines" in data
    if to_stdout:
        if not args.json:
            sys.stdout.write("".join(line + "\n" for line in data["lines"]))
            sys.stdout.flush()
    if args.count and not args.json:
        print(data["matched"])
        return EXIT_OK
    total, matched, read, kept, seconds = (data[k] for k in ("total", "matched", "bytes", "matched_bytes", "seconds"))
    rate = f", {size(read / seconds)}/s" if seconds > 0 else ""
    lines = [
        f"{matched:,} of {total:,} lines match, {size(kept)} of {size(read)}: {data['summary']}",
        f"read {plural(len(inputs), 'input')}, {size(read)} in {seconds:.2f} s{rate}",
    ]
    first = data["first_malformed"]
    if first is not None:
        source = printable(first["source"])  # a file's name may hold anything: nothing reaches the terminal
        place = f"{source} line {first['line']}: {first['reason']}"
        lines.append(f"{plural(data['malformed'], 'malformed line')}; the first: {place}")
    # Every share printed (the inputs' and the tables'), formatted by core in one call.
    per_file = inputs if args.per_file else []
    pairs = [pair for r in per_file for pair in ((r["matched"], r["total"]), (r["matched_bytes"], r["bytes"]))]
    tables, shares = breakdown_tables(data, pairs)
    for i, r in enumerate(per_file):
        lines.append(
            f"  {printable(str(r['source']))}: {r['matched']:,} of {r['total']:,} lines, "
            f"{shares[2 * i] or '-'} of lines, {shares[2 * i + 1] or '-'} of bytes"
        )
    for title, header, rows in tables:
        lines += [title + ":", *text_table(header, [[printable(c) for c in r] for r in rows])]
    lines += _absent_fields(data, checked=bool(args.dataset))
    if args.output is not None:
        shown = "" if args.limit is None else f"the first {args.limit:,} "
        lines.append(f"{shown}matching lines written to {args.output}")
    if args.json:
        emit(args, data, "")
    elif to_stdout:
        print("\n".join(lines), file=sys.stderr)
    else:
        print("\n".join(lines))
    return EXIT_OK


# -- sql ------------------------------------------------------------------------------------------


def _sql_dialect(text: str) -> str:
    """An option type: a SQL dialect as core reads one (a name or an alias, any case), given
    as core names it (``ATHENA`` is ``trino``); anything else is a usage error with core's
    message."""
    import argparse

    from .._escpush import _sql_dialect
    from ..errors import InvalidInput

    try:
        return _sql_dialect(text)
    except InvalidInput as err:
        raise argparse.ArgumentTypeError(str(err)) from None


def _dialects_help() -> str:
    """Core's dialects, each with its aliases: ``duckdb, ..., trino (athena), ...``."""
    from .._escpush import _SQL_DIALECTS

    return ", ".join(f"{name} ({', '.join(aliases)})" if aliases else name for name, aliases in _SQL_DIALECTS)


def add_sql(flt: Commands, plain: argparse.ArgumentParser, output: argparse.ArgumentParser) -> None:
    sql = command(
        flt,
        "sql",
        "print a filter as a SQL WHERE expression (or query) for an engine",
        "Print the filter as a boolean SQL expression in a dialect, over a table of the dataset's columns "
        "typed as `escpush.dataset_schema` types them; on such a table it gives the answers of a scan. "
        "With --query, a whole SELECT (the table defaults to the dataset's name; a transformer reads "
        "the dataset itself).",
        [
            f"escpush filter sql {FILTER_EXAMPLE} --dialect duckdb --dataset http_requests",
            "escpush filter sql my-filter.json --dialect trino --dataset http_requests --query --table logs.http",
        ],
        [plain, output],
    )
    sql.add_argument("--dialect", required=True, type=_sql_dialect, metavar="D", help=_dialects_help())
    sql.add_argument("--dataset", required=True, metavar="NAME", help="the dataset whose columns the table has")
    sql.add_argument("--scope", choices=scope_choices(), help="the dataset's scope, if both have it")
    sql.add_argument("--query", action="store_true", help="print SELECT * FROM TABLE WHERE ... instead")
    sql.add_argument("--table", metavar="T", default=None, help="the table of --query (dotted parts quoted)")
    sql.set_defaults(run=run_sql)


def run_sql(args: argparse.Namespace) -> int:
    if args.table is not None and not args.query:
        raise CliError("--table names the table of --query; add --query", EXIT_USAGE)
    f = parse_filter(args.filter)
    if args.query:
        text = f.to_query(args.dialect, dataset=args.dataset, table=args.table, scope=args.scope)
    else:
        text = f.to_sql(args.dialect, dataset=args.dataset, scope=args.scope)
    emit(args, {"dialect": args.dialect, "dataset": args.dataset, "sql": text}, text)
    return EXIT_OK
