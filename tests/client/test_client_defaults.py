"""The client's defaults and ranges have one owner, escpush-http's builder: `Client(...)`,
`Client.from_env(...)`, their `help()` and the command line's `--timeout` and `--retries` read
them (``escpush.DEFAULT_TIMEOUT``, ``DEFAULT_MAX_RETRIES``, ``MAX_RETRIES``), never restate
them."""

from __future__ import annotations

import inspect
from typing import Any

import pytest

import escpush
from escpush import Client, InvalidInput
from escpush._escpush import _DEFAULT_MAX_RETRY_AFTER, _DEFAULT_RETRY_BACKOFF
from escpush.cli import build_parser, main
from escpush.cli._common import EXIT_USAGE

ZONE = "023e105f4ecef8ad9ca31a8372d0c353"


def test_the_defaults_are_exported_from_the_builder() -> None:
    assert escpush.DEFAULT_TIMEOUT == 30.0 and isinstance(escpush.DEFAULT_TIMEOUT, float)
    assert escpush.DEFAULT_MAX_RETRIES == 2
    assert escpush.MAX_RETRIES == 100
    assert {"DEFAULT_TIMEOUT", "DEFAULT_MAX_RETRIES", "MAX_RETRIES"} <= set(escpush.__all__)


@pytest.mark.parametrize("make", [Client, Client.from_env], ids=["Client", "from_env"])
def test_help_shows_the_builders_defaults(make: Any) -> None:
    # pyo3 cannot show a default computed from a constant: the signature is written out,
    # and must stay the builder's.
    params = inspect.signature(make).parameters
    assert params["timeout"].default == escpush.DEFAULT_TIMEOUT
    assert params["max_retries"].default == escpush.DEFAULT_MAX_RETRIES
    assert params["retry_backoff"].default == _DEFAULT_RETRY_BACKOFF
    assert params["max_retry_after"].default == _DEFAULT_MAX_RETRY_AFTER


def test_the_retry_cap_is_one_range_for_python_and_the_command_line() -> None:
    Client(api_token="t", max_retries=escpush.MAX_RETRIES)
    with pytest.raises(InvalidInput, match=r"invalid max_retries: must be from 0 to 100 \(got 101\)"):
        Client(api_token="t", max_retries=escpush.MAX_RETRIES + 1)
    argv = ["esc", "status", "--zone", ZONE]
    # The command line capped --retries at 10, the binding at 100: 11 is now taken by both.
    args = build_parser(argv).parse_args([*argv, "--retries", "11"])
    assert args.retries == 11
    args = build_parser(argv).parse_args([*argv, "--retries", str(escpush.MAX_RETRIES)])
    assert args.retries == escpush.MAX_RETRIES
    args = build_parser(argv).parse_args(argv)
    assert (args.retries, args.timeout) == (escpush.DEFAULT_MAX_RETRIES, escpush.DEFAULT_TIMEOUT)


def test_a_long_timeout_is_one_rule_for_python_and_the_command_line(capsys: pytest.CaptureFixture[str]) -> None:
    # The command line refused a timeout over a day, which Client takes (escpush-http caps a
    # deadline beyond the clock): both take it now.
    Client(api_token="t", timeout=100_000.0)
    argv = ["esc", "status", "--zone", ZONE]
    assert build_parser(argv).parse_args([*argv, "--timeout", "100000"]).timeout == 100_000.0
    for bad, message in (
        (("--retries", "101"), "invalid max_retries: must be from 0 to 100 (got 101)"),
        (("--timeout", "0"), "invalid timeout: must be more than 0 seconds"),
        (("--timeout", "1e300"), "invalid timeout: must be at most"),
        (("--retries", "1.5"), "`1.5` is not an integer"),
    ):
        with pytest.raises(SystemExit) as exit:
            main([*argv, *bad])
        err = capsys.readouterr().err
        assert exit.value.code == EXIT_USAGE, err
        assert f"error: argument {bad[0]}: {message}" in err, err


def test_the_command_line_help_shows_the_builders_defaults(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["esc", "status", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert f"(default {escpush.DEFAULT_TIMEOUT:g})" in text
    assert f"(0 to {escpush.MAX_RETRIES}; default {escpush.DEFAULT_MAX_RETRIES})" in text
