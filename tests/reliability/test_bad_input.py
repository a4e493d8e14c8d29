"""Bad input, everywhere (issue 16): 100,000 levels of nesting, 10 MB filters, invalid
UTF-8, lone surrogates, NaN / Infinity, keys given twice and integers beyond 64 bits, at
every Python entry point and every CLI command that reads a filter or a file. Each gives
a clear error naming what and where (a documented class, a message that says it) or a
documented result; none crashes, hangs or overflows a stack.

The 100,000-level cases run in a fresh interpreter, on its main thread and again on a
thread with a 1 MiB stack (an eighth of the main thread's), so that a recursion anywhere
on the way would show as a crash there, not here. RELIABILITY.md ("Bad input,
everywhere") has the table these tests prove.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from cli_support import Cli
from escpush import Client, Filter, FilterError, InvalidInput, LogpullOptions, field
from escpush.testing import Emulator

ZONE = "023e105f4ecef8ad9ca31a8372d0c353"
S3 = "s3://bucket/logs?region=us-east-1&access-key-id=AKID-TEST&secret-access-key=SAK-TEST"
DEEP = 100_000
BIG = 10_000_000
COND = '{"key":"A","operator":"eq","value":1}'


def deep_groups(n: int = DEEP) -> str:
    return '{"where":' + '{"and":[' * n + COND + "]}" * n + "}"


def deep_value(n: int = DEEP, open_: str = "[", close: str = "]") -> str:
    return '{"where":{"key":"A","operator":"in","value":' + open_ * n + close * n + "}}"


def with_value(value: str) -> str:
    return '{"where":{"key":"A","operator":"eq","value":' + value + "}}"


# -- 100,000 levels, in a fresh interpreter, on the main thread and on a small stack --------

DEEP_SCRIPT = textwrap.dedent(
    """
    import json, sys, threading
    import escpush
    from escpush import Filter, field
    from escpush.testing import Emulator

    N = 100_000
    COND = {"key": "A", "operator": "eq", "value": 1}
    COND_TEXT = json.dumps(COND)

    def groups_text(n):
        return '{"where":' + '{"and":[' * n + COND_TEXT + ']}' * n + '}'

    def groups_dict(n):
        e = COND
        for _ in range(n):
            e = {"and": [e]}
        return {"where": e}

    def nested_list(n):
        x = [1]
        for _ in range(n):
            x = [x]
        return x

    def nested_dict(n):
        x = {}
        for _ in range(n):
            x = {"a": x}
        return x

    emu = Emulator().__enter__()
    logpush = emu.client().zone("023e105f4ecef8ad9ca31a8372d0c353").logpush
    S3 = "s3://bucket/logs?region=us-east-1&access-key-id=AKID-TEST&secret-access-key=SAK-TEST"
    f = field("A").eq(1)
    kept = logpush.create_job(
        destination_conf=S3, dataset="http_requests", name="kept", filter="EdgeResponseStatus == 500")
    CASES = {
        "Filter.parse groups": lambda: Filter.parse(groups_text(N)),
        "Filter.parse arrays": lambda: Filter.parse(
            '{"where":{"key":"A","operator":"in","value":' + '[' * N + ']' * N + '}}'),
        "Filter.parse objects": lambda: Filter.parse(
            '{"where":{"key":"A","operator":"eq","value":' + '{"a":' * N + '1' + '}' * N + '}}'),
        "Filter.parse quoted": lambda: Filter.parse(json.dumps(groups_text(N))),
        "Filter.from_text parentheses": lambda: Filter.from_text('(' * N + 'A == 1' + ')' * N),
        "Filter.from_text nots": lambda: Filter.from_text('not ' * N + 'A == 1'),
        "Filter.from_text and(": lambda: Filter.from_text('and(' * N),
        "Filter.from_text not (": lambda: Filter.from_text('not (' * N),
        "Filter.parse_any text": lambda: Filter.parse_any('(' * N + 'A == 1' + ')' * N),
        "Filter.from_dict groups": lambda: Filter.from_dict(groups_dict(N)),
        "Filter.from_dict list value": lambda: Filter.from_dict(
            {"where": {"key": "A", "operator": "in", "value": nested_list(N)}}),
        "Filter.from_dict dict value": lambda: Filter.from_dict(
            {"where": {"key": "A", "operator": "eq", "value": nested_dict(N)}}),
        "equivalent": lambda: f.equivalent(groups_dict(N)),
        "matches list record": lambda: f.matches({"A": nested_list(N)}),
        "matches dict record": lambda: f.matches({"A": nested_dict(N)}),
        "matches JSON line": lambda: f.matches('{"A":' + '[' * N + ']' * N + '}'),
        "field.is_in": lambda: field("A").is_in(nested_list(N)),
        "create_job filter": lambda: logpush.create_job(
            destination_conf=S3, dataset="http_requests", filter=groups_dict(N)),
        "create_job field": lambda: logpush.create_job(
            destination_conf=S3, dataset="http_requests", output_options=nested_dict(N)),
        "update_job filter": lambda: logpush.update_job(kept["id"], filter=groups_text(N)),
        "ensure_job filter": lambda: logpush.ensure_job(
            name="a", dataset="http_requests", destination_conf=S3, filter='(' * N + 'A == 1' + ')' * N),
        "apply document": lambda: logpush.apply({"jobs": nested_list(N)}),
        "_load_json": lambda: escpush._escpush._load_json('[' * N + ']' * N),
    }

    def run_all():
        out = {}
        for name, case in CASES.items():
            try:
                out[name] = ["ok", repr(case())[:200]]
            except Exception as e:
                out[name] = [type(e).__name__, str(e)[:150] + " ... " + str(e)[-150:]]
        return out

    main = run_all()
    threading.stack_size(1 << 20)
    small = {}
    t = threading.Thread(target=lambda: small.update(run_all()))
    t.start()
    t.join()
    jobs = logpush.jobs()
    print(json.dumps({"main": main, "small": small, "jobs": len(jobs), "filter": jobs[0]["filter"]}))
    """
)

# What each 100,000-level case gives: the exception class and a piece of its message.
DEEP_EXPECTED = {
    "Filter.parse groups": ("FilterError", "[too_deep]"),
    "Filter.parse arrays": ("FilterError", "[too_deep]"),
    "Filter.parse objects": ("FilterError", "[too_deep]"),
    "Filter.parse quoted": ("FilterError", "[too_deep]"),
    "Filter.from_text parentheses": ("FilterError", "line 1, column 129: parentheses and `not`s nest too deep"),
    "Filter.from_text nots": ("FilterError", "line 1, column 513: parentheses and `not`s nest too deep"),
    "Filter.from_text and(": ("FilterError", "line 1, column 516: parentheses and `not`s nest too deep"),
    "Filter.from_text not (": ("FilterError", "nest too deep"),
    "Filter.parse_any text": ("FilterError", "nest too deep"),
    "Filter.from_dict groups": ("FilterError", "where.and[0].and[0]"),
    "Filter.from_dict list value": ("FilterError", "where.value[0][0]"),
    "Filter.from_dict dict value": ("FilterError", "where.value.a.a"),
    "equivalent": ("FilterError", "where.and[0]"),
    "matches list record": ("InvalidInput", "the record nests lists more than 133 deep"),
    "matches dict record": ("ok", "False"),  # a dict value is an object: never equal
    "matches JSON line": ("ok", "False"),  # the line evaluator skips what it does not read
    "field.is_in": ("FilterError", "value[0][0]"),
    "create_job filter": ("FilterError", "where.and[0]"),
    "create_job field": ("InvalidInput", "`output_options.a.a"),
    "update_job filter": ("InvalidInput", "filter: `and` / `or` groups nest more than 64 deep"),
    "ensure_job filter": ("InvalidInput", "nest too deep"),
    "apply document": ("InvalidInput", "nests lists and dicts more than 133 deep"),
    "_load_json": ("InvalidInput", "nest more than 141 levels deep at line 1 column 142"),
}


def test_a_hundred_thousand_levels_everywhere_in_a_fresh_interpreter() -> None:
    done = subprocess.run([sys.executable, "-c", DEEP_SCRIPT], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    got = json.loads(done.stdout)
    # Nothing was created or changed by a refused call.
    assert (got["jobs"], got["filter"]) == (1, '{"where":{"key":"EdgeResponseStatus","operator":"eq","value":"500"}}')
    for where in ("main", "small"):
        assert set(got[where]) == set(DEEP_EXPECTED), where
        for name, (kind, needle) in DEEP_EXPECTED.items():
            assert got[where][name][0] == kind, (where, name, got[where][name])
            assert needle in got[where][name][1], (where, name, got[where][name])


# -- every other kind of bad input, in this interpreter --------------------------------------

LONE = "\ud800"
ESCAPED_BYTE = "\udcff"  # the byte 0xff, as surrogateescape keeps it
SECRET = "hunter2-secret-value"


def _emu_logpush(emu: Emulator) -> Any:
    return emu.client().zone(ZONE).logpush


# (id, call, exception class or None for a documented result, message pieces / result)
CASES: list[tuple[str, Any, type[BaseException] | None, tuple[str, ...] | object]] = [
    # 10 MB filters: read whole, refused by the limits with a short message.
    (
        "10 MB JSON value",
        lambda: Filter.parse(with_value('"' + "x" * BIG + '"')).validate(),
        FilterError,
        ("[too_large]",),
    ),
    ("10 MB text word", lambda: Filter.from_text("A == 1 and B == " + "x" * BIG), FilterError, ("column 17", "…")),
    ("10 MB text string", lambda: Filter.from_text('A == "' + "x" * BIG + '"').byte_size, None, BIG + 48),
    ("10 MB of spaces", lambda: Filter.parse(" " * BIG + "{}"), FilterError, ("[missing_where]",)),
    ("10 MB options", lambda: LogpullOptions.parse("fields=A&timestamps=" + "x" * BIG), InvalidInput, ("timestamps",)),
    # Invalid UTF-8 in bytes.
    ("bytes parse", lambda: Filter.parse(b"\xff\xfe"), InvalidInput, ("not UTF-8", "index 0")),
    ("bytes from_text", lambda: Filter.from_text(b'A == "\xff"'), InvalidInput, ("index 6",)),
    ("bytes from_dict", lambda: Filter.from_dict(b'{"where":"\xff"}'), InvalidInput, ("index 10",)),
    ("bytes matches", lambda: field("A").eq(1).matches(b'{"A":"\xff"}'), InvalidInput, ("index 6",)),
    # Lone surrogates: escaped in JSON text, or in a Python str.
    ("escaped surrogate", lambda: Filter.parse(with_value('"\\ud800"')), FilterError, ("lone surrogate", "column 46")),
    (
        "str surrogate parse",
        lambda: Filter.parse(with_value('"' + LONE + '"')),
        InvalidInput,
        ("\\ud800 at character 45",),
    ),
    ("str surrogate text", lambda: Filter.from_text("A == " + '"' + LONE + '"'), InvalidInput, ("character 6",)),
    (
        "str surrogate dict",
        lambda: Filter.from_dict({"where": {"key": "A", "operator": "eq", "value": LONE}}),
        FilterError,
        ("where.value",),
    ),
    (
        "str surrogate key",
        lambda: Filter.from_dict({"where": {"key": "A" + LONE, "operator": "eq", "value": 1}}),
        FilterError,
        ("where.key", "character 1"),
    ),
    ("field name", lambda: field("A" + LONE), InvalidInput, ("lone surrogate \\ud800 at character 1",)),
    ("builder value", lambda: field("A").eq(LONE), FilterError, ("`value`",)),
    ("is_in value", lambda: field("A").is_in(["x", LONE]), FilterError, ("value[1]",)),
    ("dataset name", lambda: field("A").eq(1).validate("http" + LONE), InvalidInput, ("character 4",)),
    ("scope name", lambda: Filter.from_text("A == 1", scope=LONE), InvalidInput, ("character 0",)),
    ("options text", lambda: LogpullOptions.parse("fields=A" + LONE), InvalidInput, ("character 8",)),
    ("options flag", lambda: LogpullOptions(["A"], flags={"x" + LONE: True}), InvalidInput, ("character 1",)),
    ("esc cookie", lambda: __import__("escpush").esc_cookie(SECRET + LONE), InvalidInput, ("character 20",)),
    ("redact", lambda: __import__("escpush").redact_destination_conf("s3://b?secret=" + LONE), None, "***"),
    # A record may hold one, as a log line may: it never equals a value; around it, matches.
    ("record str surrogate", lambda: field("A").eq("x").matches({"A": "x" + LONE}), None, False),
    ("record prefix", lambda: field("A").starts_with("x").matches({"A": "x" + LONE}), None, True),
    ("line str surrogate", lambda: field("A").ends_with("y").matches('{"A":"' + LONE + 'y"}'), None, True),
    ("line escape", lambda: field("A").eq("x").matches('{"A":"\\ud800"}'), None, False),
    ("record key", lambda: field("A").eq(1).matches({LONE: 1, "A": 1}), None, True),
    ("scan input", lambda: field("A").eq(1).scan("/nonexistent/" + LONE), InvalidInput, ("a log input holds",)),
    ("scan since", lambda: field("A").eq(1).scan("-", since=LONE), InvalidInput, ("since",)),
    (
        "select dst",
        lambda: field("A").eq(1).select("/nonexistent.ndjson", "/tmp/out" + LONE),
        InvalidInput,
        ("dst holds a lone surrogate",),
    ),
    # NaN and Infinity.
    ("JSON NaN", lambda: Filter.parse(with_value("NaN")), FilterError, ("[invalid_json]", "column 45")),
    ("JSON Infinity", lambda: Filter.parse(with_value("-Infinity")), FilterError, ("[invalid_json]",)),
    ("text NaN", lambda: Filter.from_text("A == NaN"), FilterError, ("`NaN` is not a value",)),
    (
        "float nan value",
        lambda: Filter.from_dict({"where": {"key": "A", "operator": "eq", "value": float("nan")}}),
        FilterError,
        ("where.value: NaN",),
    ),
    ("float inf builder", lambda: field("A").is_in([1, float("inf")]), FilterError, ("value[1]: inf",)),
    ("record nan", lambda: field("A").eq(1).matches({"A": float("nan")}), None, False),
    ("line NaN", lambda: field("A").eq(1).matches('{"A":NaN}'), InvalidInput, ("byte 5",)),
    ("scan since nan", lambda: field("A").eq(1).scan("-", since=float("nan")), InvalidInput, ("since is NaN",)),
    ("timeout nan", lambda: Client(api_token="t", timeout=float("nan")), InvalidInput, ("timeout",)),
    ("max_bytes nan", lambda: field("A").eq(1).validate(max_bytes=float("nan")), TypeError, ("integer",)),
    # Keys given twice: refused at the path of the second.
    (
        "filter key twice",
        lambda: Filter.parse('{"where":{"key":"A","key":"B","operator":"eq","value":1}}'),
        FilterError,
        ("where.key", "[duplicate_member]"),
    ),
    (
        "where twice",
        lambda: Filter.parse('{"where":' + COND + ',"where":' + COND + "}"),
        FilterError,
        ("[duplicate_member]",),
    ),
    (
        "option twice",
        lambda: LogpullOptions.parse("fields=A&fields=B"),
        InvalidInput,
        ("logpull_options.fields", "given twice"),
    ),
    (
        "document key twice",
        lambda: __import__("escpush")._escpush._load_json('{"jobs":[],\n "jobs":1}'),
        InvalidInput,
        ("member `jobs` is given twice", "line 2 column 2"),
    ),
    # A log line with a key twice: the last one counts, as json.loads (and the scanner) read it.
    ("record key twice", lambda: field("A").eq(2).matches('{"A":1,"A":2}'), None, True),
    # Integers beyond 64 bits.
    ("JSON 1e400", lambda: Filter.parse(with_value("1e400")), FilterError, ("where.value: 1e400 is not an integer",)),
    (
        "JSON 23 digits",
        lambda: Filter.parse(with_value("99999999999999999999999")),
        FilterError,
        ("[integer_out_of_range]",),
    ),
    (
        "text 23 digits",
        lambda: Filter.from_text("A == 99999999999999999999999"),
        FilterError,
        ("[integer_out_of_range]",),
    ),
    ("text 10 MB digits", lambda: Filter.from_text("A == " + "9" * BIG), FilterError, ("…",)),
    (
        "python 2**64",
        lambda: field("A") >= 2**64,
        FilterError,
        ("18446744073709551616 is outside the 64-bit integer range",),
    ),
    (
        "python 2**1000",
        lambda: Filter.from_dict({"where": {"key": "A", "operator": "eq", "value": 2**1000}}),
        FilterError,
        ("[integer_out_of_range]",),
    ),
    ("record 2**1000", lambda: field("A").lt(0).matches({"A": 2**1000}), None, False),
    ("line 1e400", lambda: field("A").gt(0).matches('{"A":1e400}'), None, True),
    (
        "max_operators 2**70",
        lambda: field("A").eq(1).validate(max_operators=2**70),
        InvalidInput,
        ("max_operators", "beyond 64 bits"),
    ),
    ("max_bytes -1", lambda: field("A").eq(1).problems(max_bytes=-1), InvalidInput, ("max_bytes", "got -1")),
    ("threads 2**70", lambda: field("A").eq(1).scan("-", threads=2**70), InvalidInput, ("threads",)),
    ("limit -2**70", lambda: field("A").eq(1).scan("-", limit=-(2**70)), InvalidInput, ("limit", "a negative integer")),
]


@pytest.mark.parametrize(("call", "error", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_bad_input_gives_a_clear_error_or_a_documented_result(
    call: Any, error: type[BaseException] | None, expected: Any
) -> None:
    if error is None:
        assert call() == expected
        return
    with pytest.raises(error) as exc:
        call()
    message = str(exc.value)
    for piece in expected:
        assert piece in message, message[:500]
    assert len(message) < 2_000, len(message)
    assert not isinstance(exc.value, UnicodeError)  # named by escpush, not by the codec


def test_a_secret_with_a_lone_surrogate_is_never_echoed() -> None:
    import escpush

    for call in (
        lambda: escpush.esc_cookie(SECRET + LONE),
        lambda: Filter.from_dict({"where": {"key": "A", "operator": "eq", "value": SECRET + LONE}}),
        lambda: LogpullOptions.parse("fields=A&secret=" + SECRET + LONE),
    ):
        with pytest.raises(escpush.EscpushError) as exc:
            call()
        for shown in (str(exc.value), repr(exc.value), repr(exc.value.args)):
            assert SECRET not in shown, shown


def test_job_calls_refuse_bad_input_before_sending(escpush_emulator: Emulator) -> None:
    logpush = _emu_logpush(escpush_emulator)
    kept = logpush.create_job(destination_conf=S3, dataset="http_requests", name="kept")
    esc = escpush_emulator.client().zone(ZONE).esc
    escpush_emulator.clear_requests()
    calls: list[tuple[Any, type[BaseException], str]] = [
        (
            lambda: logpush.create_job(destination_conf=S3 + "&x=" + LONE, dataset="http_requests"),
            InvalidInput,
            "character",
        ),
        (
            lambda: logpush.create_job(destination_conf=S3, dataset="http_requests", name="a" + LONE),
            InvalidInput,
            "character 1",
        ),
        (
            lambda: logpush.create_job(destination_conf=S3, dataset="http_requests", ownership_challenge=SECRET + LONE),
            InvalidInput,
            "`ownership_challenge`",
        ),
        (
            lambda: logpush.create_job(destination_conf=S3, dataset="http_requests", max_upload_bytes=2**1000),
            InvalidInput,
            "`max_upload_bytes` is an integer outside the 64-bit range",
        ),
        (
            lambda: logpush.create_job(destination_conf=S3, dataset="http_requests", enabled=float("nan")),
            InvalidInput,
            "`enabled` is NaN",
        ),
        (
            lambda: logpush.create_job(
                destination_conf=S3, dataset="http_requests", output_options={"a": float("inf")}
            ),
            InvalidInput,
            "`output_options.a` is inf",
        ),
        (
            lambda: logpush.create_job(destination_conf=S3, dataset="http_requests", max_operators=2**70),
            InvalidInput,
            "max_operators",
        ),
        (
            lambda: logpush.create_job(destination_conf=S3, dataset="http_requests", filter=with_value("NaN")),
            FilterError,
            "[invalid_json]",
        ),
        (
            lambda: logpush.create_job(
                destination_conf=S3, dataset="http_requests", logpull_options="fields=A&x=" + LONE
            ),
            InvalidInput,
            "logpull_options",
        ),
        (lambda: logpush.job(2**70), InvalidInput, "job id"),
        (lambda: logpush.update_job(-(2**70), name="x"), InvalidInput, "job id"),
        (lambda: logpush.update_job(kept["id"], **{"x" + LONE: 1}), InvalidInput, "character 1"),
        (
            lambda: logpush.update_job(kept["id"], filter='{"where":' + COND + ',"where":' + COND + "}"),
            InvalidInput,
            "filter.where: this member is given more than once",
        ),
        (
            lambda: logpush.ensure_job(name="a" + LONE, dataset="http_requests", destination_conf=S3),
            InvalidInput,
            "character 1",
        ),
        (
            lambda: logpush.apply(
                {"jobs": [{"name": "a", "dataset": "http_requests", "destination_conf": S3, "max_upload_bytes": 2**70}]}
            ),
            InvalidInput,
            "64-bit",
        ),
        (
            lambda: logpush.apply({"jobs": [{"name": "a" + LONE, "dataset": "http_requests", "destination_conf": S3}]}),
            InvalidInput,
            "`name` holds a lone surrogate",
        ),
        (lambda: logpush.validate_ownership(S3, SECRET + LONE), InvalidInput, "character 20"),
        (lambda: escpush_emulator.client().zone(ZONE).esc.set_secret(SECRET + LONE), InvalidInput, "character 20"),
        (lambda: esc.assess(["http://127.0.0.1:1/" + LONE], settle=0), InvalidInput, "character 19"),
        (
            lambda: esc.assess(["http://127.0.0.1:1/"], ignore_headers=["x" + LONE], settle=0),
            InvalidInput,
            "character 1",
        ),
        (lambda: esc.assess(["http://127.0.0.1:1/"], expect_status=2**70, settle=0), InvalidInput, "expect_status"),
        (lambda: esc.assess(["http://127.0.0.1:1/"], settle=float("nan")), InvalidInput, "settle: NaN"),
    ]
    for call, error, piece in calls:
        with pytest.raises(error) as exc:
            call()
        assert piece in str(exc.value), str(exc.value)
        assert SECRET not in repr(exc.value) + str(exc.value)
    # Nothing was written: each was refused before a request was made, or (an update's
    # filter, checked against the stored job) after reading it only.
    assert [r["method"] for r in escpush_emulator.requests()] in ([], ["GET"])


# -- the command line: every command that reads a filter or a file ---------------------------


def _file(tmp_path: Path, name: str, data: str | bytes) -> str:
    path = tmp_path / name
    if isinstance(data, bytes):
        path.write_bytes(data)
    else:
        path.write_text(data, encoding="utf-8")
    return str(path)


FILTER_COMMANDS = [
    ["filter", "validate"],
    ["filter", "fmt"],
    ["filter", "explain"],
    ["filter", "diff", "A == 1"],
    ["filter", "sql", "--dialect", "duckdb", "--dataset", "http_requests"],
    ["filter", "scan", "{logs}"],
]

# (id, FILTER file contents, a piece of the error)
FILTER_FILES: list[tuple[str, str | bytes, str]] = [
    ("100k groups", deep_groups(), "too_deep"),
    ("100k arrays", deep_value(), "too_deep"),
    ("100k parentheses", "(" * DEEP + "A == 1" + ")" * DEEP, "nest too deep"),
    ("100k nots", "not " * DEEP + "A == 1", "nest too deep"),
    ("not UTF-8", b'{"where":"\xff"}', "is not UTF-8 text"),
    ("lone surrogate", with_value('"\\ud800"'), "lone surrogate"),
    ("NaN", with_value("NaN"), "invalid_json"),
    ("1e400", with_value("1e400"), "1e400 is not an integer"),
    ("23 digits", with_value("99999999999999999999999"), "integer_out_of_range"),
    ("key twice", '{"where":{"key":"A","key":"B","operator":"eq","value":1}}', "duplicate_member"),
    ("10 MB word", "A == 1 and B == " + "x" * BIG, "line 1, column 17"),
]


def _pick(run: Any, as_json: bool) -> str:
    """What a command printed about the input: with ``--json``, the JSON error object on
    stderr, or (a check that failed: validate, explain) the JSON result on stdout."""
    if as_json:
        return json.dumps(run.error() if run.err else run.json())
    return str(run.out + run.err)


@pytest.mark.parametrize("command", FILTER_COMMANDS, ids=[" ".join(c[:2]) for c in FILTER_COMMANDS])
def test_every_filter_command_refuses_bad_filter_files(cli: Cli, tmp_path: Path, command: list[str]) -> None:
    logs = _file(tmp_path, "logs.ndjson", '{"A":1}\n')
    argv = [a.replace("{logs}", logs) for a in command]
    for name, data, piece in FILTER_FILES:
        path = _file(tmp_path, "filter.txt", data)
        for as_json in (False, True):
            run = cli(*argv[:2], path, *argv[2:], *(["--json"] if as_json else []))
            # validate and explain report a filter's problems as a failed check (1); a file
            # that cannot be read is bad input (2) for every command.
            checks = argv[1] in ("validate", "explain") and "UTF-8" not in piece
            assert run.code == (1 if checks else 2), (name, run.code, run.err[:300])
            shown = _pick(run, as_json)
            assert piece in shown, (name, shown[:300])
            assert len(shown) < 3_000, (name, len(shown))


def test_filter_on_stdin_that_is_not_utf8_or_too_deep(cli: Cli) -> None:
    for stdin, piece, code in (
        (b'{"where":"\xff"}', "on standard input is not UTF-8 text", 2),
        (deep_groups().encode(), "too_deep", 1),
    ):
        for as_json in (False, True):
            run = cli("filter", "validate", "-", *(["--json"] if as_json else []), stdin=stdin)
            assert run.code == code
            assert piece in _pick(run, as_json)


JOBS_FILES: list[tuple[str, str, str | bytes, str]] = [
    ("100k arrays", "jobs.json", "[" * DEEP + "]" * DEEP, "nest more than"),
    ("100k tables", "jobs.toml", "a = " + "[" * DEEP + "]" * DEEP, "too deep to read"),
    ("key twice", "jobs.json", '{"jobs": [{"name": "a", "name": "b"}]}', "member `name` is given twice"),
    ("NaN", "jobs.json", '{"jobs": [{"name": "a", "max_upload_bytes": NaN}]}', "line 1 column 45"),
    (
        "2**70",
        "jobs.json",
        '{"jobs": [{"name": "a", "dataset": "http_requests", "destination_conf": "'
        + S3
        + '", "max_upload_bytes": 1180591620717411303424}]}',
        "64-bit",
    ),
    ("not UTF-8", "jobs.json", b'{"jobs": "\xff"}', "is not UTF-8 text"),
    ("lone surrogate", "jobs.json", '{"jobs": [{"name": "\\ud800"}]}', "lone surrogate"),
    (
        "deep filter",
        "jobs.json",
        json.dumps(
            {"jobs": [{"name": "a", "dataset": "http_requests", "destination_conf": S3, "filter": deep_groups()}]}
        ),
        "too_deep",
    ),
    ("key twice TOML", "jobs.toml", '[[jobs]]\nname = "a"\nname = "b"\n', "neither JSON nor TOML"),
]


def test_logpush_apply_refuses_bad_files_and_changes_nothing(cli: Cli, api: Emulator, tmp_path: Path) -> None:
    for name, file_name, data, piece in JOBS_FILES:
        path = _file(tmp_path, file_name, data)
        for as_json in (False, True):
            run = cli("logpush", "apply", path, "--zone", ZONE, *(["--json"] if as_json else []))
            assert run.code == 2, (name, run.err[:300])
            assert piece in _pick(run, as_json), (name, run.err[:300])
    assert api.client().zone(ZONE).logpush.jobs() == []


def test_logpush_create_refuses_bad_filters_and_fields(cli: Cli, api: Emulator, tmp_path: Path) -> None:
    deep = _file(tmp_path, "deep.json", deep_groups())
    for extra, piece in (
        (["--filter", deep], "too_deep"),
        (["--filter", with_value("NaN")], "invalid_json"),
        (["--output-options", '{"a": 1, "a": 2}'], "--output-options is not JSON: member `a` is given twice"),
        (["--output-options", "[" * DEEP], "nest more than"),
        (["--output-options", '{"a": NaN}'], "--output-options is not JSON"),
    ):
        run = cli("logpush", "create", "--zone", ZONE, "--dataset", "http_requests", "--destination-conf", S3, *extra)
        assert run.code == 2, (extra[0], run.err[:300])
        assert piece in run.err, (extra[0], run.err[:300])
    assert api.client().zone(ZONE).logpush.jobs() == []


def test_emulator_site_files_are_read_strictly(tmp_path: Path) -> None:
    for data, piece in (
        ('{"zone": "z1", "zone": "z2"}', "member `zone` is given twice"),
        ("[" * DEEP, "nest more than"),
        ('{"zone": "z1", "delay": NaN}', "line 1 column 25"),
    ):
        path = _file(tmp_path, "site.json", data)
        done = subprocess.run(
            [sys.executable, "-m", "escpush", "emulator", "--port", "0", "--site-config", path],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert done.returncode == 2, done.stderr[-500:]
        assert piece in done.stderr and "Traceback" not in done.stderr, done.stderr[-500:]


@pytest.mark.parametrize(
    "call",
    [
        lambda: Client(api_token="tok\ud800en-Zq7"),
        lambda: Client(api_key="key\udfff-Zq7", email="a@example.com"),
        lambda: Client.from_env(api_token="tok\ud800en-Zq7"),
        lambda: Client(api_token="t", base_url="http://127.0.0.1:1/\ud800"),
        lambda: Client(api_token="t").zone("zone\ud800"),
        lambda: Client(api_token="t").account("acct\udfff"),
    ],
    ids=["api_token", "api_key", "from_env", "base_url", "zone", "account"],
)
def test_client_arguments_with_a_lone_surrogate_are_invalid_input_never_shown(call: Any) -> None:
    with pytest.raises(InvalidInput) as info:
        call()
    text = f"{info.value!s} {info.value!r} {getattr(info.value, '__notes__', '')}"
    assert "lone surrogate" in text and "Zq7" not in text, text


@pytest.mark.parametrize("value", [2**70, -(2**70), 101, -1])
def test_client_max_retries_out_of_range_is_invalid_input(value: int) -> None:
    for make in (Client, Client.from_env):
        with pytest.raises(InvalidInput, match="max_retries"):
            make(api_token="t", max_retries=value)
