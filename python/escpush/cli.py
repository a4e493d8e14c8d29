"""The ``escpush`` command line (also ``python -m escpush``).

Each command imports what it uses when it runs, so ``escpush --version`` and
``escpush filter validate`` do not pay for the HTTP client, the emulator or the scanner.
Exit status: 0 success, 1 a check failed, 2 bad usage or input, 3 an API or network error.
Credentials come from ``CLOUDFLARE_API_TOKEN`` (or ``CLOUDFLARE_API_KEY`` with
``CLOUDFLARE_EMAIL``) or the options, and are never printed.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from . import __version__

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, TypeAlias

    from ._escpush import Account, Client, Filter, Zone
    from ._problem import FilterProblem

    _Commands: TypeAlias = argparse._SubParsersAction[argparse.ArgumentParser]

__all__ = ["EXIT_API", "EXIT_CHECK_FAILED", "EXIT_OK", "EXIT_USAGE", "main"]

EXIT_OK = 0
EXIT_CHECK_FAILED = 1
EXIT_USAGE = 2
EXIT_API = 3

EXIT_CODES = """exit status:
  0  success
  1  a check failed (filter validate/explain found problems, filter fmt --check found a change)
  2  bad usage or input (arguments, a filter, a file, credentials, a dataset)
  3  an API or network error"""


class CliError(Exception):
    """A failure to report on stderr with an exit status; ``problems`` are listed under it."""

    def __init__(self, message: str, code: int = EXIT_USAGE, problems: Sequence[FilterProblem] = ()) -> None:
        super().__init__(message)
        self.code = code
        self.problems = list(problems)


# -- the parser ---------------------------------------------------------------------------
#
# Each command adds its own options, and only the command being run is built in full
# (the others are named for the listing): building the whole tree costs about 5 ms.

_ZONE = "023e105f4ecef8ad9ca31a8372d0c353"
_FILTER_EXAMPLE = """'{"where":{"key":"EdgeResponseStatus","operator":"geq","value":500}}'"""


class _Formatter(argparse.HelpFormatter):
    """Paragraphs are wrapped, but those with indented lines (examples, exit codes) are kept
    as written. The width is read here, as argparse would read it through shutil, which
    imports bz2, lzma and more (2 ms of start-up)."""

    def __init__(self, prog: str) -> None:
        try:
            columns = int(os.environ["COLUMNS"])
        except (KeyError, ValueError):
            try:
                columns = os.get_terminal_size(sys.__stdout__.fileno()).columns  # type: ignore[union-attr]
            except (AttributeError, ValueError, OSError):
                columns = 80
        super().__init__(prog, width=max(columns - 2, 40), max_help_position=min(24, max(columns - 22, 4)))

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        import textwrap

        paragraphs = []
        for paragraph in text.split("\n\n"):
            lines = paragraph.splitlines()
            if any(line.startswith(" ") for line in lines):
                paragraphs.append("\n".join(indent + line for line in lines))
            else:
                paragraphs.append(
                    textwrap.fill(
                        " ".join(paragraph.split()),
                        width,
                        initial_indent=indent,
                        subsequent_indent=indent,
                        break_on_hyphens=False,  # not inside --options
                    )
                )
        return "\n\n".join(paragraphs)


def _command(
    commands: _Commands,
    name: str,
    summary: str,
    description: str,
    examples: Sequence[str],
    parents: Sequence[argparse.ArgumentParser] = (),
) -> argparse.ArgumentParser:
    """A command whose ``--help`` ends with its examples and the exit status."""
    return commands.add_parser(
        name,
        help=summary,
        description=description,
        epilog="examples:\n" + "\n".join(f"  {e}" for e in examples) + "\n\n" + EXIT_CODES,
        parents=list(parents),
        formatter_class=_Formatter,
    )


def _group(commands: _Commands, name: str, summary: str, description: str, example: str) -> _Commands:
    """A command with actions of its own (``esc status``, ``filter validate``, ...)."""
    parser = _command(commands, name, summary, description, [example, f"escpush {name} ACTION --help"])
    return parser.add_subparsers(dest="action", metavar="ACTION", required=True)


def _output_options() -> argparse.ArgumentParser:
    output = argparse.ArgumentParser(add_help=False, formatter_class=_Formatter)
    output.add_argument("--json", action="store_true", help="print the result (and errors, on stderr) as JSON")
    return output


def _api_options() -> argparse.ArgumentParser:
    """Where the API is and who calls it, then the zone or account."""
    api = argparse.ArgumentParser(add_help=False, formatter_class=_Formatter)
    target = api.add_mutually_exclusive_group(required=True)
    target.add_argument("--zone", metavar="ZONE_ID", help="act on this zone")
    target.add_argument("--account", metavar="ACCOUNT_ID", help="act on this account (and so all its zones)")
    creds = api.add_argument_group(
        "API access",
        "Each option falls back on its CLOUDFLARE_* variable; prefer the variables, since options "
        "show in the process list. Credentials are never printed.",
    )
    creds.add_argument("--api-token", metavar="TOKEN", help="API token (CLOUDFLARE_API_TOKEN)")
    creds.add_argument("--api-key", metavar="KEY", help="global API key (CLOUDFLARE_API_KEY), with --email")
    creds.add_argument("--email", metavar="EMAIL", help="the account's email (CLOUDFLARE_EMAIL)")
    creds.add_argument("--base-url", metavar="URL", help="API root (CLOUDFLARE_BASE_URL; default Cloudflare's v4)")
    creds.add_argument("--timeout", type=float, default=30.0, metavar="SECONDS", help="per request (default 30)")
    return api


def _filter_options(rules: bool) -> argparse.ArgumentParser:
    """FILTER, and with ``rules`` the dataset and limits to check it against."""
    options = argparse.ArgumentParser(add_help=False, formatter_class=_Formatter)
    options.add_argument("filter", metavar="FILTER", help="the filter: a file, JSON text, or - for stdin")
    if rules:
        checks = options.add_argument_group("checks")
        checks.add_argument("--dataset", metavar="NAME", help="also check fields, types and values against it")
        checks.add_argument("--scope", choices=["zone", "account"], help="the dataset's scope, if both have it")
        checks.add_argument("--max-operators", type=int, default=30, metavar="N", help="operator limit (default 30)")
        checks.add_argument("--max-bytes", type=int, default=1000, metavar="N", help="size limit (default 1000)")
    return options


def _add_demo(commands: _Commands) -> None:
    demo = _command(
        commands,
        "demo",
        _SUMMARIES["demo"],
        "Build and check a filter, run the ESC test order and create a log-push job, all against an "
        "emulator started on 127.0.0.1 for the run. Nothing leaves the machine.",
        ["escpush demo"],
    )
    demo.set_defaults(run=_run_demo)


def _add_emulator(commands: _Commands) -> None:
    emulator = _command(
        commands,
        "emulator",
        _SUMMARIES["emulator"],
        "Serve the ESC and log-push API (v4 envelope) on 127.0.0.1 for curl, other SDKs or scripts, until "
        "Ctrl-C. It accepts X-Auth-Key/X-Auth-Email or Authorization: Bearer with the credentials given "
        "here; the defaults are fixed, emulator-only values.",
        [
            "escpush emulator --port 8787",
            "CLOUDFLARE_BASE_URL=http://127.0.0.1:8787/client/v4 CLOUDFLARE_API_TOKEN=emulator-api-token \\\n"
            "    escpush esc status --zone z1",
        ],
    )
    emulator.add_argument("--port", type=int, default=8787, help="port on 127.0.0.1 (0: a free one; default 8787)")
    emulator.add_argument("--api-key", default="emulator-api-key", help="X-Auth-Key to accept (default %(default)s)")
    emulator.add_argument("--email", default="user@example.com", help="X-Auth-Email to accept (default %(default)s)")
    emulator.add_argument(
        "--api-token", default="emulator-api-token", help="bearer token to accept (default %(default)s)"
    )
    emulator.set_defaults(run=_run_emulator)


def _add_esc(commands: _Commands) -> None:
    esc = _group(
        commands,
        "esc",
        _SUMMARIES["esc"],
        "Edge Side Code controls of one zone or account.",
        f"escpush esc status --zone {_ZONE}",
    )
    parents = [_api_options(), _output_options()]
    for action, summary, description in (
        (
            "status",
            "show whether ESC runs",
            "Show the ESC setting: enabled or disabled, and whether a test secret is set.",
        ),
        (
            "disable",
            "disable ESC for every request",
            "Disable ESC for every request of the zone (or of every zone of the account), then show the setting.",
        ),
        ("enable", "re-enable ESC", "Re-enable ESC (the way back when problems appear), then show the setting."),
    ):
        examples = [f"escpush esc {action} --zone {_ZONE}", f"escpush esc {action} --account ACCOUNT_ID --json"]
        _command(esc, action, summary, description, examples, parents).set_defaults(run=_run_esc)
    secret = _command(
        esc,
        "secret",
        "set a secret that disables ESC for test requests only",
        "Set the test secret of the zone or account: requests carrying the cookie disable_esc=SECRET are then "
        "processed without ESC. The secret is read from --secret-file, or generated from the OS random source "
        "and written to --save (readable by you only). It is never printed.",
        [
            f"escpush esc secret --zone {_ZONE} --save esc-secret.txt",
            "escpush esc secret --account ACCOUNT_ID --secret-file my-secret.txt",
            "pass show esc | escpush esc secret --zone ZONE_ID --secret-file -",
        ],
        parents,
    )
    secret.add_argument("--secret-file", metavar="FILE", help="read the secret from FILE (- for stdin)")
    secret.add_argument("--save", metavar="FILE", help="write the secret to FILE, readable by you only")
    secret.set_defaults(run=_run_esc)


def _add_filter(commands: _Commands) -> None:
    flt = _group(
        commands,
        "filter",
        _SUMMARIES["filter"],
        "Log-push job filters. FILTER is a file, JSON text, or - for stdin; the escaped string form of a job "
        "payload is accepted too.",
        "escpush filter validate my-filter.json --dataset http_requests",
    )
    checked, plain, output = _filter_options(rules=True), _filter_options(rules=False), _output_options()
    _command(
        flt,
        "validate",
        "check a filter (syntax, limits, and with --dataset its fields)",
        "Check a filter: its syntax and the limits, and with --dataset its fields, operators and values. "
        "Prints every problem with its path; exits 1 if there is any.",
        [
            f"escpush filter validate {_FILTER_EXAMPLE}",
            "escpush filter validate my-filter.json --dataset http_requests --json",
        ],
        [checked, output],
    ).set_defaults(run=_run_validate)

    fmt = _command(
        flt,
        "fmt",
        "print a filter in its canonical form",
        "Print the filter in its canonical form (compact, members in key/operator/value order): the text "
        "escpush sends as a job's filter.",
        [
            f"escpush filter fmt {_FILTER_EXAMPLE} --indent 2",
            "escpush filter fmt my-filter.json --check",
            "escpush filter fmt my-filter.json --as-string   # the JSON string a job payload holds",
        ],
        [plain, output],
    )
    layout = fmt.add_mutually_exclusive_group()
    layout.add_argument("--indent", type=int, metavar="N", help="indent by N spaces instead of compact")
    layout.add_argument("--as-string", action="store_true", help="print it as a JSON string (job payload form)")
    fmt.add_argument("--check", action="store_true", help="print nothing; exit 1 if FILTER is not canonical")
    fmt.set_defaults(run=_run_fmt)

    _command(
        flt,
        "explain",
        "show a filter as a tree, with its size against the limits and its problems",
        "Print the filter as an indented tree, its operator count and byte size against the limits, and "
        "every problem (with --dataset, also against the dataset). Exits 1 if there is any problem.",
        [f"escpush filter explain {_FILTER_EXAMPLE}", "escpush filter explain my-filter.json --dataset http_requests"],
        [checked, output],
    ).set_defaults(run=_run_explain)

    scan = _command(
        flt,
        "scan",
        "run a filter over NDJSON log files and count (or keep) the lines it matches",
        "Run a filter over NDJSON log files (plain or gzip) on every core and print how many lines match. "
        "Blank lines are skipped; lines that are not a JSON object are counted as malformed. A progress "
        "line is drawn on stderr when it is a terminal.",
        [
            "escpush filter scan my-filter.json logs/*.ndjson.gz",
            "escpush filter scan my-filter.json logs.ndjson --output kept.ndjson",
            "zcat big.ndjson.gz | escpush filter scan my-filter.json - --count",
        ],
        [plain, output],
    )
    scan.add_argument("logs", metavar="LOGS", nargs="+", help="NDJSON files (.gz too), or - for stdin")
    mode = scan.add_mutually_exclusive_group()
    mode.add_argument("--count", action="store_true", help="print only the number of matching lines")
    mode.add_argument("--output", metavar="FILE", help="write the matching lines to FILE, in input order")
    scan.add_argument("--dataset", metavar="NAME", help="check the filter against a dataset first")
    scan.add_argument("--strict", action="store_true", help="stop with an error at the first malformed line")
    scan.add_argument("--threads", type=int, default=None, metavar="N", help="worker threads (default: one per core)")
    scan.set_defaults(run=_run_scan)


def _add_logpush(commands: _Commands) -> None:
    logpush = _group(
        commands,
        "logpush",
        _SUMMARIES["logpush"],
        "Log-push jobs of a zone or an account.",
        "escpush logpush list --zone ZONE_ID",
    )
    parents = [_api_options(), _output_options()]
    create = _command(
        logpush,
        "create",
        "create a log-push job (checked before anything is sent)",
        "Create a log-push job. Every field is checked first (dataset and scope, destination, logpull "
        "options, the filter against the dataset and the limits) and every problem is reported; nothing is "
        "sent unless all pass. The destination's parameters may hold credentials: they are never printed.",
        [
            "escpush logpush create --zone ZONE_ID --dataset http_requests \\\n"
            "    --destination-conf 's3://bucket/logs?region=us-east-1' --filter my-filter.json \\\n"
            "    --logpull-options 'fields=ClientIP,EdgeResponseStatus&timestamps=rfc3339'",
            "escpush logpush create --account ACCOUNT_ID --dataset gateway_dns --destination-conf - < dest.txt",
        ],
        parents,
    )
    job = create.add_argument_group("job fields")
    job.add_argument("--dataset", required=True, metavar="NAME", help="the dataset to push (required)")
    job.add_argument(
        "--destination-conf",
        required=True,
        metavar="URL",
        help="where to push, e.g. s3://bucket/path?region=us-east-1 (required; - reads it from stdin)",
    )
    job.add_argument("--name", metavar="NAME", help="the job's name")
    job.add_argument("--filter", metavar="FILTER", help="a filter: a file, JSON text, or - for stdin")
    job.add_argument(
        "--logpull-options", metavar="QUERY", help="e.g. fields=ClientIP,EdgeStartTimestamp&timestamps=rfc3339"
    )
    job.add_argument("--enabled", action=argparse.BooleanOptionalAction, default=None, help="start it enabled")
    job.add_argument("--kind", metavar="KIND", help='"edge" for Instant Logs jobs, else leave it out')
    job.add_argument("--frequency", metavar="FREQ", help='"high" or "low"')
    job.add_argument("--max-upload-bytes", type=int, metavar="N", help="largest upload, in bytes")
    job.add_argument("--max-upload-records", type=int, metavar="N", help="most records per upload")
    job.add_argument("--max-upload-interval-seconds", type=int, metavar="N", help="longest wait between uploads")
    job.add_argument("--output-options", metavar="JSON", help="the output_options object, as JSON")
    job.add_argument("--ownership-challenge", metavar="TOKEN", help="the destination's ownership challenge token")
    job.add_argument(
        "--filter-attack-traffic", action=argparse.BooleanOptionalAction, default=None, help="leave out attack traffic"
    )
    create.set_defaults(run=_run_logpush_create)
    _command(
        logpush,
        "list",
        "list the jobs",
        "List the log-push jobs of the zone or account.",
        ["escpush logpush list --zone ZONE_ID", "escpush logpush list --account ACCOUNT_ID --json"],
        parents,
    ).set_defaults(run=_run_logpush_list)
    get = _command(
        logpush, "get", "show one job", "Show one log-push job.", ["escpush logpush get 7 --zone ZONE_ID"], parents
    )
    get.add_argument("job_id", metavar="JOB_ID", type=int, help="the job's id")
    get.set_defaults(run=_run_logpush_get)


_SUMMARIES = {
    "demo": "walk through the main jobs against the embedded emulator",
    "emulator": "serve the API emulator on 127.0.0.1 until interrupted",
    "esc": "read, disable, re-enable or test-disable ESC on a zone or an account",
    "filter": "check, format, explain and preview log-push job filters",
    "logpush": "create and read log-push jobs",
}
_BUILDERS = {
    "demo": _add_demo,
    "emulator": _add_emulator,
    "esc": _add_esc,
    "filter": _add_filter,
    "logpush": _add_logpush,
}


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The command tree; with ``argv``, only the command it names (if any) is built in full."""
    parser = argparse.ArgumentParser(
        prog="escpush",
        description="Script Cloudflare's ESC deprecation controls and build, check and preview log-push filters.",
        epilog="examples:\n"
        "  escpush filter validate my-filter.json --dataset http_requests\n"
        f"  escpush esc status --zone {_ZONE}\n"
        "  escpush COMMAND --help\n\n" + EXIT_CODES,
        formatter_class=_Formatter,
    )
    parser.add_argument("--version", action="version", version=f"escpush {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    wanted = None if argv is None else next((a for a in argv if not a.startswith("-")), "")
    for name, add in _BUILDERS.items():
        if wanted is None or wanted == name:
            add(commands)
        else:
            commands.add_parser(name, help=_SUMMARIES[name], formatter_class=_Formatter)
    return parser


# -- shared helpers -----------------------------------------------------------------------


def _emit(args: argparse.Namespace, data: object, text: str) -> None:
    """The result: JSON with ``--json``, else the human text."""
    import json

    print(json.dumps(data, indent=2) if getattr(args, "json", False) else text)


def _read_text(arg: str, what: str) -> str:
    """A value given as a file name, or - for stdin."""
    if arg == "-":
        return sys.stdin.read()
    try:
        with open(arg, encoding="utf-8") as f:
            return f.read()
    except OSError as err:
        raise CliError(f"cannot read the {what} `{arg}`: {err.strerror}") from None
    except UnicodeDecodeError:
        raise CliError(f"the {what} `{arg}` is not UTF-8 text") from None


def _filter_text(arg: str) -> str:
    """A FILTER argument's text: stdin (-), JSON text as given, or a file."""
    if arg != "-" and arg.lstrip().startswith(("{", '"')):
        return arg
    return _read_text(arg, "filter file")


def _parse_filter(arg: str) -> Filter:
    from . import Filter

    return Filter.parse(_filter_text(arg))


def _human_bytes(n: float) -> str:
    for unit in ("B", "kB", "MB", "GB"):
        if n < 1000 or unit == "GB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1000
    return f"{n:.1f} TB"  # pragma: no cover


# -- filter -------------------------------------------------------------------------------


def _check(args: argparse.Namespace) -> tuple[Filter | None, list[FilterProblem]]:
    """The filter (None when it does not parse) and every problem found."""
    from . import FilterError

    try:
        f = _parse_filter(args.filter)
    except FilterError as err:
        return None, list(err.errors())
    problems = f.problems(args.dataset, scope=args.scope, max_operators=args.max_operators, max_bytes=args.max_bytes)
    return f, list(problems)


def _limits(args: argparse.Namespace) -> dict[str, int]:
    return {"operators": args.max_operators, "bytes": args.max_bytes}


def _problem_lines(problems: Sequence[FilterProblem]) -> list[str]:
    return [f"  {p['path'] or '(filter)'}: {p['message']} [{p['code']}]" for p in problems]


def _run_validate(args: argparse.Namespace) -> int:
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
        noun = "problem" if len(problems) == 1 else "problems"
        _emit(args, data, "\n".join([f"invalid {against}: {len(problems)} {noun}", *_problem_lines(problems)]))
        return EXIT_CHECK_FAILED
    assert f is not None
    size = f"{f.operator_count} of {args.max_operators} operators, {f.byte_size} of {args.max_bytes} bytes"
    _emit(args, data, f"valid {against}: {size}")
    return EXIT_OK


def _run_fmt(args: argparse.Namespace) -> int:
    text = _filter_text(args.filter)
    from . import Filter

    canonical = Filter.parse(text).to_json()
    if args.check:
        same = text.strip() == canonical
        if args.json:
            _emit(args, {"canonical": same, "filter": canonical}, "")
        elif not same:
            print(f"escpush: {args.filter}: not in canonical form", file=sys.stderr)
        return EXIT_OK if same else EXIT_CHECK_FAILED
    import json

    if args.indent is not None:
        out = json.dumps(json.loads(canonical), indent=args.indent, ensure_ascii=False)
    elif args.as_string:
        out = json.dumps(canonical, ensure_ascii=False)
    else:
        out = canonical
    _emit(args, {"filter": canonical}, out)
    return EXIT_OK


def _tree_lines(node: dict[str, object], ascii_only: bool) -> list[str]:
    """``where`` as an indented tree: groups with their children, conditions on one line."""
    import json

    tee, last, bar = ("|- ", "`- ", "|  ") if ascii_only else ("├─ ", "└─ ", "│  ")

    def label(n: dict[str, object]) -> str:
        for group in ("and", "or"):
            if group in n:
                children = n[group]
                assert isinstance(children, list)
                return f"{group} ({len(children)})"
        return f"{n['key']} {n['operator']} {json.dumps(n['value'], ensure_ascii=False)}"

    def walk(n: dict[str, object], prefix: str) -> list[str]:
        lines: list[str] = []
        children = next((n[g] for g in ("and", "or") if g in n), [])
        assert isinstance(children, list)
        for i, child in enumerate(children):
            end = i == len(children) - 1
            lines.append(prefix + (last if end else tee) + label(child))
            lines += walk(child, prefix + ("   " if end else bar))
        return lines

    return [label(node), *walk(node, "")]


def _over(n: int, limit: int) -> str:
    return "  (over the limit)" if n > limit else ""


def _run_explain(args: argparse.Namespace) -> int:
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
        encoding = sys.stdout.encoding or "ascii"
        try:
            "├─└│".encode(encoding)
            ascii_only = False
        except (UnicodeEncodeError, LookupError):
            ascii_only = True
        lines += ["where", *("  " + line for line in _tree_lines(where, ascii_only))]
        lines.append(f"operators: {ops} of {args.max_operators}{_over(ops, args.max_operators)}")
        lines.append(f"size:      {size} of {args.max_bytes} bytes{_over(size, args.max_bytes)}")
    checked = f" for {args.dataset}" if args.dataset else ""
    if problems:
        noun = "problem" if len(problems) == 1 else "problems"
        lines += [f"{len(problems)} {noun}{checked}:", *_problem_lines(problems)]
    else:
        lines.append(f"no problems{checked}")
    _emit(args, data, "\n".join(lines))
    return EXIT_CHECK_FAILED if problems else EXIT_OK


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
        elapsed = self.clock() - self.start
        if elapsed < 1.0:
            return
        text = f"{_human_bytes(done)}, {lines:,} lines, {_human_bytes(done / elapsed)}/s"
        if self.total:
            share = min(done / self.total, 1.0)
            text = f"[{'#' * int(share * 30):<30}] {share:4.0%} {text}"
        sys.stderr.write(f"\r{text}\x1b[K")
        sys.stderr.flush()
        self.shown = True

    def close(self) -> None:
        if self.shown:
            sys.stderr.write("\r\x1b[K")
            sys.stderr.flush()


def _run_scan(args: argparse.Namespace) -> int:
    if args.filter == "-" and "-" in args.logs:
        raise CliError("FILTER and LOGS cannot both be - (stdin)")
    f = _parse_filter(args.filter)
    if args.dataset:
        f.validate(args.dataset)
    progress = _ProgressBar(args.logs) if sys.stderr.isatty() else None
    try:
        if args.output is not None:
            result = f.select(args.logs, args.output, strict=args.strict, threads=args.threads, progress=progress)
        else:
            result = f.scan(args.logs, strict=args.strict, threads=args.threads, progress=progress)
    finally:
        if progress is not None:
            progress.close()
    first = result.first_malformed
    data = {
        "total": result.total,
        "matched": result.matched,
        "malformed": result.malformed,
        "bytes": result.bytes,
        "seconds": result.seconds,
        "first_malformed": None if first is None else dict(zip(("source", "line", "reason"), first)),
        "output": args.output,
    }
    if args.count and not args.json:
        print(result.matched)
        return EXIT_OK
    share = f" ({result.matched / result.total:.2%})" if result.total else ""
    rate = f", {_human_bytes(result.bytes / result.seconds)}/s" if result.seconds > 0 else ""
    lines = [
        f"{result.matched:,} of {result.total:,} lines match{share}; "
        f"{_human_bytes(result.bytes)} in {result.seconds:.2f} s{rate}"
    ]
    if first is not None:
        noun = "line" if result.malformed == 1 else "lines"
        lines.append(f"{result.malformed:,} malformed {noun}; the first: {first[0]} line {first[1]}: {first[2]}")
    if args.output is not None:
        lines.append(f"matching lines written to {args.output}")
    _emit(args, data, "\n".join(lines))
    return EXIT_OK


# -- API commands -------------------------------------------------------------------------


def _client(args: argparse.Namespace) -> Client:
    """A client from the options, each falling back on its CLOUDFLARE_* variable."""
    from . import Client

    def pick(option: str | None, variable: str) -> str | None:
        return option if option is not None else (os.environ.get(variable) or None)

    token = pick(args.api_token, "CLOUDFLARE_API_TOKEN")
    key, email = pick(args.api_key, "CLOUDFLARE_API_KEY"), pick(args.email, "CLOUDFLARE_EMAIL")
    base_url = pick(args.base_url, "CLOUDFLARE_BASE_URL")
    if token is not None:
        return Client(api_token=token, base_url=base_url, timeout=args.timeout)
    if key is not None and email is not None:
        return Client(api_key=key, email=email, base_url=base_url, timeout=args.timeout)
    if key is not None:
        raise CliError("an API key needs its email: set CLOUDFLARE_EMAIL or pass --email")
    raise CliError(
        "no credentials: set CLOUDFLARE_API_TOKEN, or CLOUDFLARE_API_KEY and CLOUDFLARE_EMAIL "
        "(or pass --api-token, or --api-key with --email)"
    )


def _scope(args: argparse.Namespace) -> Zone | Account:
    client = _client(args)
    return client.zone(args.zone) if args.zone is not None else client.account(args.account)


def _where(args: argparse.Namespace) -> str:
    return f"zone {args.zone}" if args.zone is not None else f"account {args.account}"


def _run_esc(args: argparse.Namespace) -> int:
    scope = _scope(args)
    note = ""
    if args.action == "disable":
        scope.esc.disable()
    elif args.action == "enable":
        scope.esc.enable()
    elif args.action == "secret":
        if args.secret_file is None and args.save is None:
            raise CliError("a generated secret must be kept: pass --save FILE (or --secret-file FILE to set your own)")
        secret = None if args.secret_file is None else _read_text(args.secret_file, "secret file").rstrip("\r\n")
        if args.save is not None and os.path.exists(args.save) and not os.path.isfile(args.save):
            raise CliError(f"cannot save the secret to `{args.save}`: not a regular file")
        secret = scope.esc.set_secret(secret)
        if args.save is not None:
            try:
                fd = os.open(args.save, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
                with os.fdopen(fd, "w", encoding="utf-8") as out:
                    out.write(secret + "\n")
            except OSError as err:
                raise CliError(
                    f"the secret is set, but it could not be saved to `{args.save}`: {err.strerror}; "
                    "run the command again to set a new one"
                ) from None
            note = f"; saved to {args.save}"
        note += "; send it as the cookie disable_esc with each test request"
    status = scope.esc.status()
    length = None if status.secret is None else len(status.secret)
    data = {
        "scope": "zone" if args.zone is not None else "account",
        "id": scope.id,
        "state": status.state,
        "disabled": status.disabled,
        "secret_set": length is not None,
        "secret_length": length,
    }
    described = "ESC disabled for every request" if status.disabled else "ESC enabled"
    if length is not None:
        described += f"; a test secret is set ({length} characters){note}"
    _emit(args, data, f"{_where(args)}: {described}")
    return EXIT_OK


def _job_text(job: dict[str, object]) -> str:
    import json

    lines = [f"job {job.get('id')}" + (f" {job['name']!r}" if job.get("name") else "")]
    for key in ("dataset", "destination_conf", "enabled", "logpull_options", "filter", "frequency", "kind"):
        value = job.get(key)
        if value is not None and value != "":
            lines.append(f"  {key + ':':<18}{value if isinstance(value, str) else json.dumps(value)}")
    return "\n".join(lines)


def _run_logpush_create(args: argparse.Namespace) -> int:
    destination = args.destination_conf
    if destination == "-":
        if args.filter == "-":
            raise CliError("--destination-conf and --filter cannot both be - (stdin)")
        destination = sys.stdin.read().strip()
    fields: dict[str, Any] = {}
    for name in (
        "enabled",
        "kind",
        "frequency",
        "max_upload_bytes",
        "max_upload_records",
        "max_upload_interval_seconds",
        "ownership_challenge",
        "filter_attack_traffic",
    ):
        if getattr(args, name) is not None:
            fields[name] = getattr(args, name)
    if args.output_options is not None:
        import json

        try:
            fields["output_options"] = json.loads(args.output_options)
        except ValueError as err:
            raise CliError(f"--output-options is not JSON: {err}") from None
    scope = _scope(args)
    job = scope.logpush.create_job(
        destination_conf=destination,
        dataset=args.dataset,
        name=args.name,
        filter=None if args.filter is None else _filter_text(args.filter),
        logpull_options=args.logpull_options,
        **fields,
    )
    view = job.redacted()
    _emit(args, view, f"created on {_where(args)}: " + _job_text(view))
    return EXIT_OK


def _run_logpush_list(args: argparse.Namespace) -> int:
    jobs = [j.redacted() for j in _scope(args).logpush.jobs()]
    text = "\n".join(_job_text(j) for j in jobs) if jobs else f"no log-push jobs on {_where(args)}"
    _emit(args, jobs, text)
    return EXIT_OK


def _run_logpush_get(args: argparse.Namespace) -> int:
    view = _scope(args).logpush.job(args.job_id).redacted()
    _emit(args, view, _job_text(view))
    return EXIT_OK


# -- demo and emulator --------------------------------------------------------------------


def _run_demo(args: argparse.Namespace) -> int:
    from ._demo import run

    return run()


def _run_emulator(args: argparse.Namespace) -> int:
    import time

    from .testing import Emulator

    with Emulator(args.port, api_key=args.api_key, email=args.email, api_token=args.api_token) as emu:
        print(f"escpush emulator on {emu.base_url}", flush=True)
        print("credentials: the --api-key/--email/--api-token values (defaults in --help); Ctrl-C stops", flush=True)
        try:
            while True:
                time.sleep(3600)
        except KeyboardInterrupt:
            pass
    return EXIT_OK


# -- entry point --------------------------------------------------------------------------


def _failure(err: BaseException) -> CliError:
    """The exit status and message of an exception a command raised."""
    from .errors import ApiError, EscpushError, TransportError, _WithProblems

    if isinstance(err, CliError):
        return err
    if isinstance(err, _WithProblems):
        return CliError(str(err), EXIT_USAGE, err.errors())
    if isinstance(err, (ApiError, TransportError)):
        return CliError(str(err), EXIT_API)
    if isinstance(err, EscpushError):  # ScanError: an input could not be read
        return CliError(str(err), EXIT_USAGE)
    raise err


def _report(args: argparse.Namespace, failure: CliError) -> None:
    if getattr(args, "json", False):
        import json

        error = {"message": str(failure), "exit_code": failure.code, "problems": failure.problems}
        print(json.dumps({"error": error}), file=sys.stderr)
        return
    print(f"escpush: {failure}", file=sys.stderr)  # an exception's text lists its problems


def main(argv: Sequence[str] | None = None) -> int:
    """Runs one command; returns its exit status."""
    argv = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser(argv)
    args = parser.parse_args(argv)
    if getattr(args, "run", None) is None:
        parser.print_help(sys.stderr)
        return EXIT_USAGE
    try:
        return int(args.run(args))
    except KeyboardInterrupt:
        print("escpush: interrupted", file=sys.stderr)
        return 130
    except Exception as err:  # each is mapped to its exit status, or re-raised
        failure = _failure(err)
        _report(args, failure)
        return failure.code
