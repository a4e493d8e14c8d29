"""What a person wrote, read and shown back (issue 22, items 13, 15 and 16): files and stdin
saved with a UTF-8 byte-order mark are read (a mark in the middle is an error that names
it); every line break an editor shows counts in an error's position; control and invisible
characters reach no terminal through an error; and the hints name what was meant."""

from __future__ import annotations

import json
import re
import unicodedata
from pathlib import Path

import pytest

from cli_support import Cli
from escpush import Filter, FilterError
from escpush._format import printable
from escpush.cli import EXIT_CHECK_FAILED, EXIT_OK, EXIT_USAGE
from escpush.testing import Emulator

ZONE = "023e105f4ecef8ad9ca31a8372d0c353"
BOM = "\ufeff"
OSC = "\x1b]0;pwned\x07"
JOBS = {
    "jobs": [
        {
            "name": "a",
            "dataset": "http_requests",
            "destination_conf": "s3://logs/http?region=us-east-1&access-key-id=AKID&secret-access-key=SAK",
        }
    ]
}
JOBS_TOML = '[[jobs]]\nname = "a"\ndataset = "http_requests"\ndestination_conf = "s3://logs/http?region=us-east-1&access-key-id=AKID&secret-access-key=SAK"\n'
FILTER = '{"where":{"key":"EdgeResponseStatus","operator":"geq","value":500}}'

# What a terminal acts on, or what changes how the rest of a line reads: C0 and C1 controls
# (but the line feeds between lines and the tabs of a caret line), DEL, bidi controls,
# zero-width characters, line and paragraph separators, the byte-order mark.
_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b-\u200f\u2028-\u202e\u2066-\u2069\ufeff]")


def assert_terminal_safe(text: str) -> None:
    found = _UNSAFE.search(text)
    assert found is None, f"{found.group()!r} reaches the terminal in {text!r}"


# -- item 15: a byte-order mark ------------------------------------------------------------


@pytest.mark.parametrize(
    ("suffix", "body"), [(".json", json.dumps(JOBS)), (".toml", JOBS_TOML), ("", json.dumps(JOBS))]
)
def test_a_jobs_file_saved_with_a_byte_order_mark_is_read(
    cli: Cli, api: Emulator, tmp_path: Path, suffix: str, body: str
) -> None:
    jobs = tmp_path / f"jobs{suffix}"
    jobs.write_bytes((BOM + body).encode())
    run = cli("logpush", "apply", str(jobs), "--zone", ZONE, "--dry-run")
    assert (run.code, run.err) == (EXIT_OK, "")
    assert "  + 'a' (http_requests): create" in run.out
    # The same from stdin, as bytes a pipe gives (TOML there in a form that does not open
    # with `[`, which stdin takes for JSON).
    if suffix == ".toml":
        body = 'jobs = [{name = "a", dataset = "http_requests", destination_conf = "s3://l/h?region=us-east-1&access-key-id=AKID&secret-access-key=SAK"}]\n'
    run = cli("logpush", "apply", "-", "--zone", ZONE, "--dry-run", stdin=(BOM + body).encode())
    assert (run.code, run.err) == (EXIT_OK, "")


def test_a_filter_or_secret_file_saved_with_a_byte_order_mark_is_read(cli: Cli, api: Emulator, tmp_path: Path) -> None:
    for text in (FILTER, "EdgeResponseStatus >= 500", json.dumps(FILTER)):
        path = tmp_path / "filter"
        path.write_bytes((BOM + text + "\n").encode("utf-8"))
        run = cli("filter", "validate", str(path), "--dataset", "http_requests")
        assert run.code == EXIT_OK, run.out + run.err
        run = cli("filter", "fmt", "-", stdin=(BOM + text).encode())
        # In the canonical spelling, a single integer as a string (SPEC B.1).
        assert (run.code, run.out) == (EXIT_OK, FILTER.replace(":500}", ':"500"}') + "\n"), run.err
    secret = tmp_path / "secret"
    secret.write_bytes((BOM + "s3cret-value\n").encode())
    run = cli("esc", "secret", "--zone", ZONE, "--secret-file", str(secret))
    assert run.code == EXIT_OK, run.err
    assert api.state()["zones"][ZONE]["esc"]["secret_length"] == len("s3cret-value")


def test_a_byte_order_mark_in_the_middle_is_an_error_that_names_it(cli: Cli, api: Emulator, tmp_path: Path) -> None:
    cases = [
        ("jobs.json", "apply", '{"jobs": [\n' + BOM + "]}", "U+FEFF (a byte-order mark) at line 2 column 1"),
        ("jobs.toml", "apply", JOBS_TOML + BOM + "[[jobs]]\n", "byte-order mark (U+FEFF) at line 5, column 1"),
        ("f.json", "validate", FILTER[:-1] + BOM + "}", "U+FEFF (a byte-order mark) at line 1 column 67"),
        ("f.txt", "validate", "A == 1 and\n" + BOM + "B == 2", "line 2, column 1: expected a condition"),
    ]
    for name, command, text, needle in cases:
        path = tmp_path / name
        path.write_bytes((BOM + text).encode())
        if command == "apply":
            run = cli("logpush", "apply", str(path), "--zone", ZONE, "--dry-run")
            assert run.code == EXIT_USAGE
            shown = run.err
        else:
            run = cli("filter", "validate", str(path))
            assert run.code == EXIT_CHECK_FAILED
            shown = run.out
        assert needle in shown, shown
        assert "byte-order mark" in shown, shown
        assert_terminal_safe(shown)


def test_bytes_given_to_the_api_may_start_with_a_byte_order_mark() -> None:
    # Bytes are a file's content, as json.loads(bytes) takes them.
    data = (BOM + FILTER).encode()
    assert Filter.parse(data) == Filter.parse_any(data) == Filter.parse(FILTER)
    assert Filter.from_text((BOM + "EdgeResponseStatus >= 500").encode()) == Filter.parse(FILTER)
    with pytest.raises(FilterError, match=r"found U\+FEFF \(a byte-order mark\) at line 1 column 67"):
        Filter.parse(FILTER[:-1].encode() + BOM.encode() + b"}")


def test_a_leading_byte_order_mark_in_text_given_to_the_api_is_named() -> None:
    # A str is text already decoded: a mark at its start was left by the decoding, which
    # json.loads refuses too. The message says so instead of "expected value".
    with pytest.raises(FilterError, match=r"U\+FEFF \(a byte-order mark\).*utf-8-sig"):
        Filter.parse(BOM + FILTER)
    with pytest.raises(FilterError, match=r"found U\+FEFF \(a byte-order mark\)"):
        Filter.from_text(BOM + "A == 1")


# -- item 13: line breaks and control characters ---------------------------------------------


@pytest.mark.parametrize("brk", ["\n", "\r\n", "\r", "\v", "\f", "\x85", "\u2028", "\u2029"])
def test_every_line_break_an_editor_shows_counts(brk: str) -> None:
    with pytest.raises(FilterError) as raised:
        Filter.from_text(f"A == 1 and{brk}  B >== 5")
    problem = raised.value.errors()[0]
    assert problem["path"] == "line 2, column 5"
    assert problem["message"].endswith("\n      B >== 5\n        ^^^")


def test_control_characters_are_escaped_in_text_form_errors() -> None:
    with pytest.raises(FilterError) as raised:
        Filter.from_text(f'A == "x\u202ey" and {OSC} == 1')
    shown = str(raised.value)
    assert_terminal_safe(shown)
    line, under = shown.splitlines()[-2:]
    assert line == r'    A == "x\u202ey" and \u001b]0;pwned\u0007 == 1'
    assert under.index("^") == line.index(r"\u001b")
    assert under.endswith(" ^^^^^^ [invalid_syntax]")


def test_cli_errors_carry_no_control_character(cli: Cli, api: Emulator, tmp_path: Path) -> None:
    text_form = f"A == 1 and {OSC} == 1"
    runs = [
        cli("filter", "validate", text_form),  # a problem listed on stdout
        cli("filter", "validate", text_form, "--json"),
        cli("filter", "fmt", text_form),  # an error on stderr
        cli("filter", "fmt", f"{OSC}.json"),  # a file that does not exist
        cli("filter", "fmt", 'A == "x\u202e"', "--check"),  # not canonical: the argument is quoted
        cli("filter", "validate", "A == 1", "--max-bytes", OSC),  # argparse's usage error
        cli("filter", "validate", json.dumps({"where": {"key": "A", "operator": "~", "value": 1, OSC: 1}})),
        cli("logpush", "apply", str(tmp_path / f"{OSC}.json"), "--zone", ZONE),
    ]
    for run in runs:
        assert run.code != EXIT_OK
        assert_terminal_safe(run.out)
        assert_terminal_safe(run.err)
        assert r"\u001b" in run.out + run.err or r"\u202e" in run.out + run.err, run.out + run.err


def test_printable_follows_core() -> None:
    """The CLI's `printable` escapes what core escapes, as core writes it: an unknown
    operator's message quotes it through core's rule."""
    # Characters this Python's Unicode database has assigned (core's may be newer), but `.
    samples = [chr(c) for c in range(0x20, 0x3000) if unicodedata.category(chr(c)) != "Cn" and c != 0x60]
    samples += ["\x00", "\x1b", "\x7f", "\u202e", "\u2028", "\ufeff", "\U000e0001", "中", "😀", "\u0301"]
    for c in samples:
        with pytest.raises(FilterError) as raised:
            Filter.parse(json.dumps({"where": {"key": "A", "operator": "x" + c, "value": 1}}))
        core = raised.value.errors()[0]["message"].split("`")[1]
        assert core == "x" + printable(c), repr(c)
    assert printable("a\nb\tc\r\x1b\udcff") == "a\nb\tc\\r\\u001b\\udcff"


# -- item 16: hints ----------------------------------------------------------------------------


def test_hints_name_what_was_meant() -> None:
    with pytest.raises(FilterError, match=r'like \["200", "201"\]: a string is one value'):
        Filter.parse('{"where":{"key":"EdgeResponseStatus","operator":"in","value":"200,201"}}')
    with pytest.raises(FilterError, match="unknown operator `~`; did you mean `contains`"):
        Filter.parse('{"where":{"key":"ClientRequestPath","operator":"~","value":"/static"}}')


def test_scan_summaries_escape_file_names(cli: Cli, tmp_path: Path) -> None:
    logs = tmp_path / f"logs{OSC}\u202e.ndjson"
    logs.write_text('{"A": 1}\nnot json\n')
    run = cli("filter", "scan", "A == 1", str(logs), "--per-file")
    assert run.code == EXIT_OK, run.err
    assert_terminal_safe(run.out + run.err)
    assert "malformed line; the first: " in run.out and r"logs\u001b]0;pwned\u0007\u202e.ndjson" in run.out
