"""The CLI's ``--json`` mode (issue 16): every error (usage, bad input, an API error, a
transport error, a scan error) of every command prints one JSON error object on stderr,
``{"error": {"message", "exit_code", "problems"}}``, nothing on stdout, and exits with the
same status as without ``--json``, whose error is text on stderr."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cli_support import Cli
from escpush.testing import Emulator

ZONE = "023e105f4ecef8ad9ca31a8372d0c353"
S3 = "s3://bucket/logs?region=us-east-1&access-key-id=AKID-TEST&secret-access-key=SAK-TEST"
CLOSED = "http://127.0.0.1:9/client/v4"  # the discard port: nothing listens there

# Each command, as it is run when all is well (FILE, LOGS: files made by the test).
COMMANDS: dict[str, list[str]] = {
    "esc status": ["esc", "status", "--zone", ZONE],
    "esc disable": ["esc", "disable", "--zone", ZONE],
    "esc secret": ["esc", "secret", "--zone", ZONE, "--secret-file", "SECRET"],
    "logpush list": ["logpush", "list", "--zone", ZONE],
    "logpush get": ["logpush", "get", "7", "--zone", ZONE],
    "logpush create": ["logpush", "create", "--zone", ZONE, "--dataset", "http_requests", "--destination-conf", S3],
    "logpush apply": ["logpush", "apply", "FILE", "--zone", ZONE],
    "datasets check": ["datasets", "check", "http_requests", "--zone", ZONE],
    "filter validate": ["filter", "validate", "EdgeResponseStatus >= 500"],
    "filter fmt": ["filter", "fmt", "EdgeResponseStatus >= 500"],
    "filter scan": ["filter", "scan", "EdgeResponseStatus >= 500", "LOGS"],
}
API_COMMANDS = [name for name in COMMANDS if not name.startswith("filter")]


def _kinds(name: str) -> list[str]:
    kinds = ["usage", "bad input"]
    if name in API_COMMANDS:
        kinds += ["api", "transport"]
    if name == "filter scan":
        kinds.append("scan")
    return kinds


CASES = [(name, kind) for name in COMMANDS for kind in _kinds(name)]
EXIT = {"usage": 2, "bad input": 2, "api": 3, "transport": 3, "scan": 2}


def _argv(name: str, kind: str, tmp_path: Path) -> list[str]:
    jobs = tmp_path / "jobs.json"
    jobs.write_text(json.dumps({"jobs": [{"name": "a", "dataset": "http_requests", "destination_conf": S3}]}))
    logs = tmp_path / "logs.ndjson"
    logs.write_text('{"EdgeResponseStatus": 503}\n')
    secret = tmp_path / "secret.txt"
    secret.write_text("s3cret-value\n")
    bad_secret = tmp_path / "bad-secret.txt"
    bad_secret.write_text("has space\n")
    files = {"FILE": str(jobs), "LOGS": str(logs), "SECRET": str(secret), "BAD_SECRET": str(bad_secret)}
    argv = [files.get(a, a) for a in COMMANDS[name]]
    if kind == "usage":
        return [*argv, "--no-such-option"]
    if kind == "bad input":
        bad = {
            "esc status": ["--zone", ""],
            "esc disable": ["--zone", "a/b"],
            "esc secret": ["--secret-file", "BAD_SECRET"],
            "logpush list": ["--zone", "\x00"],
            "logpush get": ["--zone", ""],
            "logpush create": ["--filter", '{"where":{"key":"A","key":"B"}}'],
            "datasets check": ["--zone", ""],
        }
        if name == "logpush apply":
            jobs.write_text('{"jobs": [], "jobs": []}')
            return argv
        if name == "filter validate":  # a filter's problems are a failed check (1), not this
            return [argv[0], argv[1], str(tmp_path / "missing.json")]
        if name.startswith("filter"):
            return [argv[0], argv[1], "EdgeResponseStatus >= ", *argv[3:]]
        # The last occurrence of an option wins in argparse: the bad value replaces the good.
        return [files.get(a, a) for a in [*argv, *bad[name]]]
    if kind == "transport":
        return [*argv, "--base-url", CLOSED, "--retries", "0", "--timeout", "5"]
    if kind == "scan":
        return [*argv[:-1], str(tmp_path / "missing.ndjson")]
    return [*argv, "--retries", "0"]  # "api": the emulator is told to fail


@pytest.mark.parametrize(("name", "kind"), CASES, ids=[f"{n}: {k}" for n, k in CASES])
def test_every_error_is_json_with_json_and_the_same_exit_status(
    cli: Cli, api: Emulator, tmp_path: Path, name: str, kind: str
) -> None:
    argv = _argv(name, kind, tmp_path)
    runs = []
    for as_json in (False, True):
        if kind == "api":
            api.fail_next(status=500, count=20)  # every attempt, retries included
        runs.append(cli(*argv, *(["--json"] if as_json else [])))
    text, as_json = runs
    assert text.code == as_json.code == EXIT[kind], (text.code, as_json.code, text.err[-300:], as_json.err[-300:])
    assert text.err.startswith(("escpush: ", "usage: escpush")), text.err[:300]
    assert "Traceback" not in text.err + as_json.err
    assert as_json.out == "", as_json.out[:300]
    error = as_json.error()
    assert set(error) == {"message", "exit_code", "problems"}
    assert error["exit_code"] == as_json.code
    assert isinstance(error["message"], str) and error["message"]
    assert isinstance(error["problems"], list)
    # One JSON object, on one line: a program reads it with one json.loads.
    assert as_json.err.count("\n") == 1


def test_an_argument_that_is_not_utf8_is_a_json_error_too(cli: Cli) -> None:
    # The shell passes bytes; Python keeps a byte that is not UTF-8 as a surrogate.
    for argv in (["filter", "validate", "A == \udcff"], ["esc", "status", "--zone", "z\udcff"]):
        text, as_json = cli(*argv), cli(*argv, "--json")
        assert text.code == as_json.code == 2
        assert text.err == "escpush: an argument is not UTF-8 text: it holds b'\\xff'\n"
        assert as_json.error() == {
            "message": "an argument is not UTF-8 text: it holds b'\\xff'",
            "exit_code": 2,
            "problems": [],
        }
