"""Writes the generated pages of the documentation site from the code (`make docs-pages`):

- docs/reference/cli.md: every command's `--help`, from the parsers of `escpush.cli`;
- docs/_generated/operators.md: the operators each field type takes (SPEC table B.1, as core
  applies it to every embedded dataset's fields), included in docs/filters.md;
- docs/troubleshooting.md: every error escpush raises: the exit statuses of the command line,
  the Python exception classes (escpush.errors), the Rust error variant each is raised for
  (read from the native module's `_error_kinds` / `_raise_error`, a test hook of `make develop`'s
  build, and the variants' doc comments in the crates), and every problem code
  (escpush-filter's `ProblemCode`, its doc comments and `as_str`), each with its fix.

tests/docs/test_generated_pages.py fails when a committed page differs from what this writes,
and this script fails on an exception class or a problem code that has no fix written below.
`python scripts/docs_pages.py --check` compares without writing.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CLI_PAGE = ROOT / "docs/reference/cli.md"
OPERATORS_TABLE = ROOT / "docs/_generated/operators.md"  # included by docs/filters.md
TROUBLE_PAGE = ROOT / "docs/troubleshooting.md"
WIDTH = "100"  # the columns argparse formats the help for: the page is the same on every machine

# What to do about each exception class (its meaning is its docstring).
CLASS_FIXES = {
    "EscpushError": "Catch it to handle every escpush error at once; the subclasses below say what happened.",
    "FilterError": "Read `err.errors()`: each problem has a path into the filter and a code (the table "
    "below says what to change); `escpush filter explain FILTER --dataset DS` shows the same.",
    "InvalidInput": "The message names the argument and what was wrong; `err.errors()` lists every problem "
    "of a job payload with its path. Nothing was sent: fix the argument and call again.",
    "ApiError": "`err.status` and `err.errors` (the API's `{code, message}` entries) say why; see "
    "[the rules](job-rules.md) for what the API refuses in a job.",
    "AuthenticationError": "Check `CLOUDFLARE_API_TOKEN` (or `CLOUDFLARE_API_KEY` with `CLOUDFLARE_EMAIL`) "
    "and the token's permissions for the zone or account (Logs Edit, Zone Settings Edit).",
    "NotFoundError": "Check the zone, account or job id (`escpush logpush list`); a job deleted twice says "
    "so in its message.",
    "RateLimitError": "The message says when to retry; `rate_limit=(1200, 300)` on the `Client` keeps a "
    "script under the API's limit.",
    "ServerError": "Retry later; a job creation is never retried by escpush: look for the job in `jobs()` "
    "before creating it again.",
    "TransportError": "Check the network and `CLOUDFLARE_BASE_URL` (the message names the URL tried); raise "
    "`timeout=` for slow links. A creation whose connection broke may have happened: look for it first.",
    "ScanError": "The message names the input (and, for object storage, what to set); `err.partial` holds "
    "the counts so far. See [scanning logs](scanning.md).",
    "Terminated": "Raised after what the call changed was put back; run the command again when ready.",
    "ExecutorError": "Install the driver's escpush version in every Spark executor's Python (the message "
    "names that Python); see [Spark past one machine](sql.md#spark-past-one-machine).",
}

# What to change for each problem code (its meaning is its doc comment in problem.rs).
CODE_FIXES = {
    "invalid_json": "Check quotes and commas; the message gives the line and column.",
    "missing_where": 'Wrap the expression: `{"where": {...}}`.',
    "not_an_object": "Write the filter and each expression as a JSON object.",
    "unknown_member": "Remove the member, or fix its name (the message suggests the nearest).",
    "duplicate_member": "Keep one of the two members.",
    "condition_and_group": "Split the object: a condition (`key`, `operator`, `value`) or a group "
    "(`and`/`or`), not both.",
    "and_and_or": "Nest one group inside the other.",
    "empty_expression": "Give a condition or an `and`/`or` group.",
    "empty_group": "Give the group at least one expression, or remove it.",
    "missing_member": "Add the missing `key`, `operator` or `value`.",
    "invalid_type": "Give the member the JSON type the message names.",
    "empty_key": "Name a field of the dataset.",
    "unknown_operator": "Use one of the 14 operators (the message suggests the nearest: `gte` is `geq`).",
    "invalid_syntax": "Fix the text at the line and column the caret shows.",
    "unsupported": "Rewrite without it: regular expressions and functions have no filter form; write a "
    "`not` over a comparison as its partner only where that is exact.",
    "invalid_value": "Give a value of the shape the operator takes (a list for `in`/`!in`, a scalar else).",
    "empty_set": "Give `in`/`!in` at least one value.",
    "not_an_integer": "Compare with an integer (`lt`..`geq` take integers).",
    "integer_out_of_range": "Use an integer within the 64-bit range.",
    "too_deep": "Flatten the groups (`Filter.compact()`), at most 64 deep.",
    "too_many_operators": "`Filter.compact()` may bring it within the limit; else split the job or merge "
    "conditions into `in` sets.",
    "too_large": "`Filter.compact()` may bring it within 1000 bytes; else shorten the values.",
    "unknown_field": "Use a field of the dataset (`escpush.dataset_fields(ds)`; the message suggests the nearest).",
    "field_not_filterable": "Filter on another field: the API cannot filter on this one.",
    "untyped_field": "Cloudflare's docs give the field no type: filter on another field.",
    "operator_not_supported": "Use an operator the field's type takes (`escpush.field_operators(ds)`).",
    "value_type_mismatch": "Give a value of the field's type (an integer for an int field, ...).",
    "unknown_dataset": "Use a dataset of the scope (`escpush.datasets()`; the message suggests the nearest).",
    "invalid_destination": "Write `destination_conf` in a documented form (see [the rules](job-rules.md)).",
    "invalid_option": "Fix the `logpull_options` entry the path names (see [the rules](job-rules.md)).",
}

# The doc comment files of the Rust error enums the binding raises, by the prefix of `_error_kinds`.
ENUMS = {
    "core": ("crates/escpush-core/src/error.rs", "pub enum Error"),
    "http": ("crates/escpush-http/src/error.rs", "pub enum Error"),
    "scan": ("crates/escpush-scan/src/error.rs", "pub enum ScanError"),
}


def variant_docs(path: str, start: str) -> dict[str, str]:
    """`Variant` -> its doc comment, joined, for the enum that starts at `start` in `path`."""
    text = (ROOT / path).read_text()
    body = text[text.index(start) :]
    body = body[: body.index("\n}\n")]
    docs: dict[str, str] = {}
    comment: list[str] = []
    depth = 0
    for line in body.splitlines()[1:]:
        stripped = line.strip()
        if depth == 0 and stripped.startswith("///"):
            comment.append(stripped[3:].strip())
            continue
        m = re.match(r"([A-Z][A-Za-z]+)\b", stripped) if depth == 0 else None
        if m:
            docs[m.group(1)] = " ".join(comment)
            comment = []
        elif depth == 0 and not stripped.startswith("#["):
            comment = []
        depth += line.count("{") + line.count("(") - line.count("}") - line.count(")")
    return docs


def problem_codes() -> list[tuple[str, str]]:
    """(code, meaning) for every `ProblemCode`, in its order."""
    text = (ROOT / "crates/escpush-filter/src/problem.rs").read_text()
    meanings = variant_docs("crates/escpush-filter/src/problem.rs", "pub enum ProblemCode")
    names = dict(re.findall(r'ProblemCode::(\w+) => "(\w+)"', text))
    missing = set(meanings) - set(names)
    if missing:
        raise SystemExit(f"ProblemCode variants without a code in as_str: {sorted(missing)}")
    return [(names[variant], meaning) for variant, meaning in meanings.items()]


# Where the class raised depends on the error carried, not on the variant.
BY_STATUS = (
    "`ApiError`, by status: `AuthenticationError` (401, 403), `NotFoundError` (404), `RateLimitError` (429), "
    "`ServerError` (5xx)"
)
RAISED = {
    "core.Api": BY_STATUS,
    "http.RetryLater": "`RateLimitError` (or, by status, another `ApiError`)",
    "http.Core": "the class of the core error it carries (above)",
    "http.PlanStopped": "the class of the failed write's error, its message saying what was written",
}


def _cell(text: str) -> str:
    """A table cell: rustdoc's intra-doc links as plain code, pipes escaped."""
    text = re.sub(r"\[(`[^`]+`)\]\([^)]*\)", r"\1", text)
    text = re.sub(r"\[(`[^`]+`)\]", r"\1", text)
    return text.replace("|", "\\|").replace("\n", " ")


def troubleshooting() -> str:
    import escpush.errors
    from escpush import _escpush
    from escpush.cli._common import EXIT_CODES

    out = [
        "# Troubleshooting",
        "",
        "<!-- Generated by scripts/docs_pages.py from the code (`make docs-pages`); "
        "tests/docs/test_generated_pages.py fails when it is out of date. -->",
        "",
        "Every error escpush raises, with what it means and what to do: the command line's exit",
        "statuses, the Python exceptions (and the Rust errors each is raised for), and the code of",
        "every problem found in a filter or a job. A message of escpush never shows a key, token,",
        "secret or destination credential.",
        "",
        "## Exit statuses of the command line",
        "",
        "```text",
        EXIT_CODES,
        "```",
        "",
        'With `--json`, an error is one JSON object on stderr, `{"error": {"message", "exit_code", '
        '"problems"}}`; 130 is Ctrl-C, 143 and 129 SIGTERM and SIGHUP (after what was changed is put back).',
        "",
        "## Exceptions",
        "",
        "| exception | means | what to do |",
        "|---|---|---|",
    ]
    classes = [name for name in escpush.errors.__all__ if name != "FilterProblem"]
    missing = [name for name in classes if name not in CLASS_FIXES]
    if missing:
        raise SystemExit(f"no fix written for the exception classes {missing} (CLASS_FIXES)")
    for name in classes:
        doc = (getattr(escpush.errors, name).__doc__ or "").strip().split("\n\n")[0]
        out.append(f"| `{name}` | {_cell(' '.join(doc.split()))} | {_cell(CLASS_FIXES[name])} |")
    out += [
        "",
        "## The Rust errors, and the exception each raises",
        "",
        "Each variant of the crates' error enums (escpush-core's `Error`, escpush-http's `Error`, "
        "escpush-scan's `ScanError`), as the Python binding raises it.",
        "",
        "| Rust error | means | raised as |",
        "|---|---|---|",
    ]
    docs = {prefix: variant_docs(path, start) for prefix, (path, start) in ENUMS.items()}
    crates = {"core": "escpush_core::Error", "http": "escpush_http::Error", "scan": "escpush_scan::ScanError"}
    for kind in _escpush._error_kinds():
        prefix, variant = kind.split(".")
        try:
            _escpush._raise_error(kind)
        except BaseException as err:  # every class, Terminated (a SystemExit) too
            raised = type(err).__name__
        else:  # pragma: no cover
            raise SystemExit(f"_raise_error({kind!r}) raised nothing")
        meaning = docs[prefix].get(variant, "")
        shown = RAISED.get(kind, f"`{raised}`")
        out.append(f"| `{crates[prefix]}::{variant}` | {_cell(meaning)} | {shown} |")
    out += [
        "",
        "## Problem codes",
        "",
        "A `FilterError` or `InvalidInput` lists its problems (`err.errors()`, the command line's "
        "lines and `--json`), each with a path, a message and one of these codes, stable across versions.",
        "",
        "| code | means | what to do |",
        "|---|---|---|",
    ]
    codes = problem_codes()
    missing = [code for code, _ in codes if code not in CODE_FIXES]
    if missing:
        raise SystemExit(f"no fix written for the problem codes {missing} (CODE_FIXES)")
    for code, meaning in codes:
        out.append(f"| `{code}` | {_cell(meaning)} | {_cell(CODE_FIXES[code])} |")
    return "\n".join(out) + "\n"


def cli_reference() -> str:
    import argparse as ap

    from escpush.cli import build_parser

    out = [
        "# Every command",
        "",
        "<!-- Generated by scripts/docs_pages.py from escpush.cli's parsers (`make docs-pages`); "
        "tests/docs/test_generated_pages.py fails when it is out of date. -->",
        "",
        "Each command's `--help`, as `escpush COMMAND --help` prints it. [The command line](../cli.md)"
        " says how they fit together.",
        "",
    ]

    def walk(parser: ap.ArgumentParser, path: list[str]) -> None:
        level = "#" * min(len(path) + 1, 4)
        out.extend([f"{level} `{' '.join(path)}`", "", "```text", parser.format_help().rstrip(), "```", ""])
        for action in parser._actions:
            if isinstance(action, ap._SubParsersAction):
                for name, sub in action.choices.items():
                    walk(sub, [*path, name])

    walk(build_parser(), ["escpush"])
    return "\n".join(out).rstrip() + "\n"


def operators_table() -> str:
    """Types (rows) by operators (columns), from `field_operators` over every embedded dataset:
    the operators of a type are those its filterable fields take (a field of the API's
    unfilterable list takes none, whatever its type)."""
    import escpush
    from escpush import _escpush

    taken: dict[str, set[str]] = {}
    for dataset in escpush.datasets():
        operators = escpush.field_operators(dataset)
        for name, type_ in escpush.dataset_fields(dataset).items():
            taken.setdefault(type_, set()).update(operators.get(name, ()))
    names = [name for name, _, _ in _escpush._OPERATORS]
    out = [
        "<!-- Generated by scripts/docs_pages.py from core's rules (`make docs-pages`). -->",
        "",
        "| type | " + " | ".join(f"`{n}`" for n in names) + " |",
        "|---|" + "---|" * len(names),
    ]
    for type_ in sorted(taken, key=lambda t: (not taken[t], t)):
        marks = " | ".join("✓" if n in taken[type_] else "" for n in names)
        out.append(f"| `{type_}` | {marks} |")
    meanings = ", ".join(f"`{name}` {meaning}" for name, meaning, _ in _escpush._OPERATORS)
    return "\n".join([*out, "", f"The operators: {meanings}.", ""])


def pages() -> dict[Path, str]:
    os.environ["COLUMNS"] = WIDTH
    return {CLI_PAGE: cli_reference(), TROUBLE_PAGE: troubleshooting(), OPERATORS_TABLE: operators_table()}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare with the committed pages, write nothing")
    args = parser.parse_args()
    stale = []
    for path, text in pages().items():
        if args.check:
            if not path.exists() or path.read_text() != text:
                stale.append(str(path.relative_to(ROOT)))
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
    if stale:
        print(f"out of date (run `make docs-pages`): {', '.join(stale)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
