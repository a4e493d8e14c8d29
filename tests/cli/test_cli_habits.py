"""What the command line gives every command through its parser: did-you-mean for commands,
actions, choices and options; -v/--verbose; CLOUDFLARE_ACCOUNT_ID as the default account; a
failed connection that names the URL and how to change it."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from cli_support import Cli
from escpush.cli import EXIT_API, EXIT_USAGE
from escpush.testing import Emulator

ZONE = "023e105f4ecef8ad9ca31a8372d0c353"


@pytest.mark.parametrize(
    ("argv", "hint"),
    [
        (["fliter", "scan"], "invalid choice: 'fliter'; did you mean `filter`?"),
        (["filter", "scna", "x"], "invalid choice: 'scna'; did you mean `scan`?"),
        (["logpush", "lst", "--zone", ZONE], "invalid choice: 'lst'; did you mean `list`?"),
        (["esc", "status", "--zone", ZONE, "--jsno"], "unrecognized arguments: --jsno; did you mean `--json`?"),
        (["esc", "status", "--zone", ZONE, "--time-out=3"], "did you mean `--timeout`?"),
        (["filter", "validate", "{}", "--scope", "acount"], "invalid choice: 'acount'; did you mean `account`?"),
        (["filter", "validate", "{}", "--datset", "x"], "did you mean `--dataset`?"),
    ],
)
def test_a_mistyped_name_gets_the_nearest(cli: Cli, argv: list[str], hint: str) -> None:
    run = cli(*argv)
    assert run.code == EXIT_USAGE
    assert hint in run.err, run.err
    assert run.err.startswith("usage: escpush")


def test_nothing_near_gets_no_guess(cli: Cli) -> None:
    run = cli("zzzzzzzz")
    assert run.code == EXIT_USAGE and "invalid choice: 'zzzzzzzz' (choose from" in run.err
    run = cli("esc", "status", "--zone", ZONE, "--qqqqqqqq")
    assert run.code == EXIT_USAGE and run.err.rstrip().endswith("unrecognized arguments: --qqqqqqqq")


def test_every_command_takes_verbose(cli: Cli) -> None:
    for argv in (["esc", "status"], ["filter", "validate"], ["logpush", "list"], ["emulator"], ["datasets", "check"]):
        run = cli(*argv, "--help")
        assert run.code == 0 and "-v, --verbose" in run.out, argv


def test_cloudflare_account_id_is_the_default_account_of_reads(
    cli: Cli, api: Emulator, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("CLOUDFLARE_ACCOUNT_ID", raising=False)
    run = cli("esc", "status")
    assert run.code == EXIT_USAGE and "--zone --account is required (or set CLOUDFLARE_ACCOUNT_ID)" in run.err
    monkeypatch.setenv("CLOUDFLARE_ACCOUNT_ID", "01a7362d577a6c3019a474fd6f485823")
    # A read says which scope it used, and where it came from.
    run = cli("esc", "status")
    assert run.code == 0 and run.out.startswith("account 01a7362d577a6c3019a474fd6f485823 (CLOUDFLARE_ACCOUNT_ID): ")
    assert cli("logpush", "list", "--json").code == 0
    assert api.requests()[-1]["path"].endswith("/accounts/01a7362d577a6c3019a474fd6f485823/logpush/jobs")
    # A zone given wins; an account given wins over the variable.
    run = cli("esc", "status", "--zone", ZONE, "--json")
    assert run.code == 0 and run.json()["scope"] == "zone"
    assert cli("esc", "disable", "--account", "other-account").code == 0
    assert api.state()["accounts"]["other-account"]["esc"]["always"] is True


def test_a_dry_run_reads_as_a_read_does(
    cli: Cli, api: Emulator, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """`apply --dry-run` sends nothing: CLOUDFLARE_ACCOUNT_ID is its default account, as for a
    read, and the plan says whose jobs it planned for (review of issue 33, item 11)."""
    monkeypatch.setenv("CLOUDFLARE_ACCOUNT_ID", "01a7362d577a6c3019a474fd6f485823")
    jobs = tmp_path / "jobs.json"
    jobs.write_text('{"jobs": []}')
    run = cli("logpush", "apply", str(jobs), "--prune", "--dry-run")
    assert run.code == 0, run.err
    assert "account 01a7362d577a6c3019a474fd6f485823" in run.out and "dry run: nothing sent" in run.out, run.out
    assert all(r["method"] == "GET" for r in api.requests())


WRITES = [
    ["esc", "disable"],
    ["esc", "enable"],
    ["esc", "secret", "--save", "never-written.txt"],
    ["logpush", "create", "--dataset", "gateway_dns", "--destination-conf", "https://logs.example.com/in"],
    ["logpush", "update", "7", "--name", "x"],
    ["logpush", "enable", "7"],
    ["logpush", "disable", "7"],
    ["logpush", "delete", "7"],
    ["logpush", "ensure", "--name", "x", "--dataset", "gateway_dns", "--destination-conf", "https://l.example/in"],
    ["logpush", "apply", "jobs.json", "--prune"],
]


@pytest.mark.parametrize("argv", WRITES, ids=[" ".join(a[:2]) for a in WRITES])
def test_a_write_needs_its_scope_named_not_cloudflare_account_id(
    cli: Cli, api: Emulator, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, argv: list[str]
) -> None:
    """Issue 33, item 11: with CLOUDFLARE_ACCOUNT_ID set (wrangler sets it), `esc disable`
    without --zone disabled ESC for every zone of the account. A command that changes
    something needs --zone or --account; nothing is sent."""
    monkeypatch.setenv("CLOUDFLARE_ACCOUNT_ID", "01a7362d577a6c3019a474fd6f485823")
    monkeypatch.chdir(tmp_path)
    (tmp_path / "jobs.json").write_text('{"jobs": []}')
    before = len(api.requests())
    run = cli(*argv)
    assert run.code == EXIT_USAGE, run.err
    assert "name the scope it changes: --zone ZONE_ID or --account ACCOUNT_ID" in run.err, run.err
    assert "CLOUDFLARE_ACCOUNT_ID" in run.err
    assert len(api.requests()) == before
    assert not (tmp_path / "never-written.txt").exists()
    assert api.state()["accounts"].get("01a7362d577a6c3019a474fd6f485823", {}).get("esc", {}).get("always") is not True


def test_a_failed_connection_names_the_url_and_the_variable(cli: Cli, monkeypatch: pytest.MonkeyPatch) -> None:
    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    base = f"http://127.0.0.1:{port}/client/v4"
    monkeypatch.setenv("CLOUDFLARE_BASE_URL", base)
    monkeypatch.setenv("CLOUDFLARE_API_TOKEN", "tok-never-shown-123")
    run = cli("esc", "status", "--zone", ZONE, "--retries", "0")
    assert run.code == EXIT_API
    assert f"cannot connect to {base}" in run.err and "CLOUDFLARE_BASE_URL" in run.err, run.err
    assert "tok-never-shown-123" not in run.err
