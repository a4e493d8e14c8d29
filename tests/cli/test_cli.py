"""The ``escpush`` command line: every command, ``--json`` output, exit codes, bad input.

(``escpush filter scan`` has its own file, test_cli_scan.py.)
"""

from __future__ import annotations

import argparse
import io
import json
import os
import signal
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from cli_support import Cli
from escpush import DEFAULT_MAX_BYTES, DEFAULT_MAX_OPERATORS, Filter, __version__
from escpush.cli import EXIT_API, EXIT_CHECK_FAILED, EXIT_OK, EXIT_USAGE, build_parser, main
from escpush.testing import Emulator

ZONE = "023e105f4ecef8ad9ca31a8372d0c353"
ACCOUNT = "01a7362d577a6c3019a474fd6f485823"
GOOD = json.dumps(
    {
        "where": {
            "and": [
                {"key": "ClientCountry", "operator": "in", "value": ["cn", "ru"]},
                {"key": "EdgeResponseStatus", "operator": "geq", "value": "500"},
            ]
        }
    },
    separators=(",", ":"),
)  # canonical: the members in key/operator/value order, compact, a single integer as a string
NOT_CANONICAL = '{ "where": { "value": "cn", "key": "ClientCountry", "operator": "eq" } }'
BAD_OPERATOR = '{"where":{"key":"EdgeResponseStatus","operator":"gte","value":500}}'
UNKNOWN_FIELD = '{"where":{"key":"ClientRequestHots","operator":"eq","value":"a"}}'


def _leaf_parsers() -> list[tuple[str, argparse.ArgumentParser]]:
    """Every command that runs something, with its full name."""

    def subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                return dict(action.choices)
        return {}

    def leaves(prefix: str, parser: argparse.ArgumentParser) -> list[tuple[str, argparse.ArgumentParser]]:
        children = subcommands(parser)
        if not children:
            return [(prefix, parser)]
        return [leaf for child, p in children.items() for leaf in leaves(f"{prefix} {child}".strip(), p)]

    return leaves("", build_parser())


# -- conventions ---------------------------------------------------------------------------


def test_the_commands_the_issue_names_exist() -> None:
    names = {name for name, _ in _leaf_parsers()}
    assert names >= {
        "esc status",
        "esc disable",
        "esc enable",
        "esc secret",
        "esc assess",
        "filter validate",
        "filter fmt",
        "filter scan",
        "filter explain",
        "logpush create",
        "logpush update",
        "logpush delete",
        "logpush enable",
        "logpush disable",
        "logpush ensure",
        "logpush apply",
        "logpush fields",
        "datasets check",
        "emulator",
        "demo",
    }


@pytest.mark.parametrize(("name", "parser"), _leaf_parsers(), ids=lambda v: v if isinstance(v, str) else "")
def test_every_help_shows_an_example_and_the_exit_codes(name: str, parser: argparse.ArgumentParser) -> None:
    text = parser.format_help()
    assert f"escpush {name}" in text.split("examples:", 1)[1], name
    for line in ("0  success", "1  a check failed", "2  bad usage or input", "3  an API or network error"):
        assert line in text


def test_top_level_help_lists_the_commands_and_exit_codes(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit:
        main(["--help"])
    out = capsys.readouterr().out
    assert exit.value.code == 0
    for command in ("demo", "emulator", "esc", "filter", "logpush"):
        assert f"\n    {command} " in out
    assert "escpush filter validate my-filter.json" in out and "3  an API or network error" in out


def test_version_and_no_command(cli: Cli, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit:
        main(["--version"])
    assert exit.value.code == 0
    assert capsys.readouterr().out == f"escpush {__version__}\n"
    run = cli()
    assert run.code == EXIT_USAGE and "COMMAND" in run.err and "demo" in run.err


def test_bad_usage_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    for argv in (["nope"], ["filter"], ["esc", "status"], ["filter", "validate"], ["logpush", "create", "--zone", "z"]):
        with pytest.raises(SystemExit) as exit:
            main(argv)
        assert exit.value.code == EXIT_USAGE, argv
        assert "usage: escpush" in capsys.readouterr().err


@pytest.mark.parametrize(
    "argv",
    [
        ["filter", "validate", "{}", "--dataset", "firewall_events"],
        ["filter", "fmt", "{}", "--compact", "--dataset", "firewall_events"],
        ["filter", "diff", "{}", "{}", "--dataset", "firewall_events"],
        ["filter", "sql", "{}", "--dialect", "duckdb", "--dataset", "firewall_events"],
    ],
)
def test_every_scope_option_takes_cores_scopes(cli: Cli, argv: list[str]) -> None:
    """The four `--scope` options offer core's list of scopes (`_escpush._SCOPES`), not a
    copy of their own."""
    from escpush._escpush import _SCOPES

    assert _SCOPES == ("zone", "account")
    run = cli(*argv, "--scope", "zones")
    assert run.code == EXIT_USAGE
    assert (
        "invalid choice: 'zones'; did you mean `zone`? (choose from " + ", ".join(repr(s) for s in _SCOPES) + ")"
        in run.err
    )


def test_python_m_and_the_console_script_run() -> None:
    for argv in (
        [sys.executable, "-m", "escpush", "--version"],
        [str(Path(sys.executable).parent / "escpush"), "--version"],
    ):
        done = subprocess.run(argv, capture_output=True, text=True, check=True)
        assert done.stdout == f"escpush {__version__}\n"


# -- filter validate / fmt / explain -------------------------------------------------------


def test_validate_a_good_filter(cli: Cli) -> None:
    run = cli("filter", "validate", GOOD, "--dataset", "http_requests")
    assert (run.code, run.err) == (EXIT_OK, "")
    limits = f"2 of {DEFAULT_MAX_OPERATORS} operators, {len(GOOD)} of {DEFAULT_MAX_BYTES} bytes"
    assert run.out == f"valid for http_requests: {limits}\n"
    run = cli("filter", "validate", GOOD, "--json")
    assert run.code == EXIT_OK
    assert run.json() == {
        "valid": True,
        "dataset": None,
        "operators": 2,
        "bytes": len(GOOD),
        "limits": {"operators": DEFAULT_MAX_OPERATORS, "bytes": DEFAULT_MAX_BYTES},
        "problems": [],
    }


def test_validate_reports_every_problem_and_exits_1(cli: Cli) -> None:
    run = cli("filter", "validate", UNKNOWN_FIELD, "--dataset", "http_requests")
    assert run.code == EXIT_CHECK_FAILED and run.err == ""
    assert run.out.splitlines() == [
        "invalid for http_requests: 1 problem",
        "  where.key: `ClientRequestHots` is not a field of http_requests; did you mean `ClientRequestHost`? "
        "[unknown_field]",
    ]
    run = cli("filter", "validate", BAD_OPERATOR, "--json")
    assert run.code == EXIT_CHECK_FAILED
    data = run.json()
    assert isinstance(data, dict) and data["valid"] is False
    assert data["problems"] == [
        {"path": "where.operator", "code": "unknown_operator", "message": "unknown operator `gte`; did you mean `geq`?"}
    ]
    # Over the limits given.
    run = cli("filter", "validate", GOOD, "--max-operators", "1", "--json")
    assert run.code == EXIT_CHECK_FAILED
    assert [p["code"] for p in run.json()["problems"]] == ["too_many_operators"]  # type: ignore[index]


def test_validate_reads_a_file_or_stdin(cli: Cli, tmp_path: Path) -> None:
    path = tmp_path / "f.json"
    path.write_text(GOOD)
    assert cli("filter", "validate", str(path)).code == EXIT_OK
    assert cli("filter", "validate", "-", stdin=GOOD).code == EXIT_OK


def test_validate_bad_input_exits_2(cli: Cli, tmp_path: Path) -> None:
    run = cli("filter", "validate", str(tmp_path / "missing.json"))
    assert (run.code, run.out) == (EXIT_USAGE, "")
    assert run.err == f"escpush: cannot read the filter file `{tmp_path / 'missing.json'}`: No such file or directory\n"
    binary = tmp_path / "bin.json"
    binary.write_bytes(b'{"where": "\xff"}')
    run = cli("filter", "validate", str(binary))
    assert run.code == EXIT_USAGE and run.err == f"escpush: the filter file `{binary}` is not UTF-8 text\n"
    run = cli("filter", "validate", GOOD, "--dataset", "http_requestz")
    assert (
        run.code == EXIT_USAGE
        and run.err == "escpush: unknown dataset `http_requestz`; did you mean `http_requests`?\n"
    )
    run = cli("filter", "validate", GOOD, "--dataset", "http_requestz", "--json")
    assert run.code == EXIT_USAGE and run.out == ""
    assert run.error() == {
        "message": "unknown dataset `http_requestz`; did you mean `http_requests`?",
        "exit_code": 2,
        "problems": [],
    }


def test_a_malformed_filter_is_a_failed_check_for_validate_and_bad_input_elsewhere(cli: Cli, tmp_path: Path) -> None:
    broken = '{"where": {"key": "A", "operator": "eq"'
    run = cli("filter", "validate", broken)
    assert run.code == EXIT_CHECK_FAILED
    assert run.out.splitlines()[1].startswith("  (filter): the filter is not JSON")
    assert run.out.rstrip().endswith("[invalid_json]")
    for argv in (["filter", "fmt", broken], ["filter", "scan", broken, "-"]):
        run = cli(*argv, "--json")
        assert run.code == EXIT_USAGE and run.out == ""
        assert run.error()["problems"][0]["code"] == "invalid_json"  # type: ignore[index]


def test_fmt_prints_the_canonical_form(cli: Cli) -> None:
    canonical = Filter.parse(NOT_CANONICAL).to_json()
    assert canonical == '{"where":{"key":"ClientCountry","operator":"eq","value":"cn"}}'
    assert cli("filter", "fmt", NOT_CANONICAL).out == canonical + "\n"
    as_string = cli("filter", "fmt", NOT_CANONICAL, "--as-string").out
    assert json.loads(as_string) == canonical
    # The escaped form a job payload holds is read back.
    assert cli("filter", "fmt", as_string.strip()).out == canonical + "\n"
    pretty = cli("filter", "fmt", NOT_CANONICAL, "--indent", "2").out
    assert pretty.startswith('{\n  "where": {\n    "key": "ClientCountry",') and json.loads(pretty) == json.loads(
        canonical
    )
    assert cli("filter", "fmt", NOT_CANONICAL, "--json").json() == {"filter": canonical}


def test_fmt_check(cli: Cli) -> None:
    run = cli("filter", "fmt", NOT_CANONICAL, "--check")
    assert (run.code, run.out) == (EXIT_CHECK_FAILED, "")
    assert run.err == f"escpush: {NOT_CANONICAL}: not in canonical form\n"
    canonical = Filter.parse(NOT_CANONICAL).to_json()
    assert (cli("filter", "fmt", canonical, "--check").code, cli("filter", "fmt", canonical, "--check").out) == (0, "")
    assert cli("filter", "fmt", NOT_CANONICAL, "--check", "--json").json() == {"canonical": False, "filter": canonical}


def test_explain_draws_the_tree_with_sizes_and_problems(cli: Cli) -> None:
    f = json.dumps(
        {
            "where": {
                "or": [
                    {
                        "and": [
                            {"key": "ClientRequestHost", "operator": "endsWith", "value": ".example.com"},
                            {"key": "EdgeResponseStatus", "operator": "geq", "value": 500},
                        ]
                    },
                    {"key": "ClientCountry", "operator": "in", "value": ["cn", "ru"]},
                ]
            }
        }
    )
    run = cli("filter", "explain", f, "--dataset", "http_requests")
    assert run.code == EXIT_OK, run.err
    assert run.out.splitlines() == [
        "where",
        "  or (2)",
        "  ├─ and (2)",
        '  │  ├─ ClientRequestHost endsWith ".example.com"',
        '  │  └─ EdgeResponseStatus geq "500"',
        '  └─ ClientCountry in ["cn", "ru"]',
        f"operators: 3 of {DEFAULT_MAX_OPERATORS}",
        f"size:      {Filter.parse(f).byte_size} of {DEFAULT_MAX_BYTES} bytes",
        "no problems for http_requests",
    ]
    run = cli("filter", "explain", f, "--max-operators", "2", "--max-bytes", "100")
    assert run.code == EXIT_CHECK_FAILED
    lines = run.out.splitlines()
    assert "operators: 3 of 2  (over the limit)" in lines
    assert f"size:      {Filter.parse(f).byte_size} of 100 bytes  (over the limit)" in lines
    assert lines[-3] == "2 problems:" and "[too_many_operators]" in lines[-2] and "[too_large]" in lines[-1]


def test_explain_json_and_a_filter_that_does_not_parse(cli: Cli) -> None:
    data = cli("filter", "explain", GOOD, "--json").json()
    assert isinstance(data, dict)
    assert data["tree"] == Filter.parse(GOOD).to_dict()["where"]
    assert (data["operators"], data["bytes"], data["filter"]) == (2, len(GOOD), GOOD)
    run = cli("filter", "explain", BAD_OPERATOR)
    assert run.code == EXIT_CHECK_FAILED
    assert run.out.splitlines() == [
        "the filter does not parse",
        "1 problem:",
        "  where.operator: unknown operator `gte`; did you mean `geq`? [unknown_operator]",
    ]


def test_explain_falls_back_on_ascii(monkeypatch: pytest.MonkeyPatch) -> None:
    out = io.TextIOWrapper(io.BytesIO(), encoding="ascii")
    monkeypatch.setattr(sys, "stdout", out)
    assert main(["filter", "explain", GOOD]) == EXIT_OK
    out.seek(0)
    assert out.read().splitlines()[1:4] == [
        "  and (2)",
        '  |- ClientCountry in ["cn", "ru"]',
        '  `- EdgeResponseStatus geq "500"',
    ]


def test_scan_json(cli: Cli, tmp_path: Path) -> None:
    logs = tmp_path / "logs.ndjson"
    logs.write_text('{"ClientCountry":"cn","EdgeResponseStatus":503}\n{"ClientCountry":"cn"}\n{"x":\n')
    data = cli("filter", "scan", GOOD, str(logs), "--json").json()
    assert isinstance(data, dict)
    assert {k: data[k] for k in ("total", "matched", "malformed", "bytes", "output")} == {
        "total": 3,
        "matched": 1,
        "malformed": 1,
        "bytes": logs.stat().st_size,
        "output": None,
    }
    assert data["first_malformed"] == {
        "source": str(logs),
        "line": 3,
        "reason": "byte 5: the line ends inside the object",
    }
    # --dataset checks the filter first: bad input.
    run = cli("filter", "scan", UNKNOWN_FIELD, str(logs), "--dataset", "http_requests")
    assert run.code == EXIT_USAGE and "did you mean `ClientRequestHost`?" in run.err


# -- esc -----------------------------------------------------------------------------------


def test_esc_status_disable_enable(cli: Cli, api: Emulator) -> None:
    assert cli("esc", "status", "--zone", ZONE).out == f"zone {ZONE}: ESC enabled\n"
    run = cli("esc", "disable", "--zone", ZONE)
    assert (run.code, run.out) == (EXIT_OK, f"zone {ZONE}: ESC disabled for every request\n")
    assert api.state()["zones"][ZONE]["esc"]["always"] is True
    assert cli("esc", "enable", "--zone", ZONE).out == f"zone {ZONE}: ESC enabled\n"
    assert api.state()["zones"][ZONE]["esc"]["always"] is False
    run = cli("esc", "disable", "--account", ACCOUNT, "--json")
    assert run.json() == {
        "scope": "account",
        "id": ACCOUNT,
        "state": "disabled",
        "disabled": True,
        "secret_set": False,
        "secret_length": None,
    }


def test_esc_secret_generated_and_saved_never_printed(cli: Cli, api: Emulator, tmp_path: Path) -> None:
    saved = tmp_path / "secret.txt"
    run = cli("esc", "secret", "--zone", ZONE, "--save", str(saved))
    assert run.code == EXIT_OK, run.err
    secret = saved.read_text().strip()
    assert len(secret) >= 32 and secret not in run.out + run.err
    assert stat.S_IMODE(saved.stat().st_mode) == 0o600
    assert run.out == (
        f"zone {ZONE}: ESC enabled; a test secret is set ({len(secret)} characters); saved to {saved}; "
        "send it as the cookie disable_esc with each test request\n"
    )
    assert api.esc_disabled_for(zone=ZONE, cookie=f"disable_esc={secret}")
    status = cli("esc", "status", "--zone", ZONE, "--json")
    assert status.json()["secret_length"] == len(secret) and secret not in status.out  # type: ignore[index]


def test_esc_secret_from_a_file_or_stdin(cli: Cli, api: Emulator, tmp_path: Path) -> None:
    source = tmp_path / "mine.txt"
    source.write_text("my-test-secret-0123456789\n")
    run = cli("esc", "secret", "--account", ACCOUNT, "--secret-file", str(source))
    assert run.code == EXIT_OK and "my-test-secret" not in run.out + run.err
    assert api.esc_disabled_for(account=ACCOUNT, cookie="disable_esc=my-test-secret-0123456789")
    run = cli("esc", "secret", "--zone", ZONE, "--secret-file", "-", "--json", stdin="from-stdin-secret\n")
    assert run.json()["secret_length"] == len("from-stdin-secret")  # type: ignore[index]


def test_esc_secret_refusals_send_nothing(cli: Cli, api: Emulator, tmp_path: Path) -> None:
    run = cli("esc", "secret", "--zone", ZONE)
    assert run.code == EXIT_USAGE and "pass --save FILE" in run.err
    bad = tmp_path / "bad.txt"
    bad.write_text("has;semicolon")
    run = cli("esc", "secret", "--zone", ZONE, "--secret-file", str(bad))
    assert run.code == EXIT_USAGE and "has;semicolon" not in run.err and "secret" in run.err
    run = cli("esc", "secret", "--zone", ZONE, "--save", str(tmp_path))
    assert run.code == EXIT_USAGE and "not a regular file" in run.err
    assert api.requests() == []


def test_credentials_from_options_override_the_environment(
    cli: Cli, api: Emulator, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CLOUDFLARE_API_TOKEN", "wrong-token")
    assert cli("esc", "status", "--zone", ZONE).code == EXIT_API
    run = cli("esc", "status", "--zone", ZONE, "--api-token", api.api_token)
    assert run.code == EXIT_OK
    monkeypatch.delenv("CLOUDFLARE_API_TOKEN")
    run = cli("esc", "status", "--zone", ZONE, "--api-key", api.api_key, "--email", api.email)
    assert run.code == EXIT_OK
    run = cli(
        "esc",
        "status",
        "--zone",
        ZONE,
        "--api-key",
        api.api_key,
        "--email",
        api.email,
        "--base-url",
        "http://127.0.0.1:9/client/v4",
    )
    assert run.code == EXIT_API


def test_missing_credentials_exit_2_and_send_nothing(cli: Cli, api: Emulator, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CLOUDFLARE_API_TOKEN")
    run = cli("esc", "status", "--zone", ZONE)
    assert run.code == EXIT_USAGE
    assert run.err.startswith(
        "escpush: invalid credentials: none given: set CLOUDFLARE_API_TOKEN, or CLOUDFLARE_API_KEY and CLOUDFLARE_EMAIL"
    )
    monkeypatch.setenv("CLOUDFLARE_API_KEY", api.api_key)
    run = cli("esc", "disable", "--zone", ZONE, "--json")
    assert run.code == EXIT_USAGE
    assert run.error()["message"] == (
        "invalid credentials: an API key needs its email: CLOUDFLARE_API_KEY is set but CLOUDFLARE_EMAIL is not"
    )
    assert api.api_key not in run.err
    assert api.requests() == []


def test_api_and_network_errors_exit_3_without_echoing_credentials(
    cli: Cli, api: Emulator, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CLOUDFLARE_API_TOKEN", "not-the-token-0123")
    run = cli("esc", "status", "--zone", ZONE, "--json")
    assert run.code == EXIT_API and run.out == ""
    assert "HTTP 403" in run.error()["message"] and "not-the-token-0123" not in run.err  # type: ignore[operator]
    api.fail_next(status=503, count=5)
    monkeypatch.setenv("CLOUDFLARE_API_TOKEN", api.api_token)
    run = cli("esc", "status", "--zone", ZONE)
    assert run.code == EXIT_API and "503" in run.err
    api.clear_faults()
    run = cli("esc", "status", "--zone", "bad/zone")
    assert run.code == EXIT_USAGE and run.err.startswith("escpush: invalid zone id: `/` at byte 3")


def test_emulator_command_serves_until_interrupted(tmp_path: Path) -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "escpush", "emulator", "--port", "0"],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        first = proc.stdout.readline()
        assert first.startswith("escpush emulator on http://127.0.0.1:")
        base_url = first.split(" on ", 1)[1].strip()
        env = {**os.environ, "CLOUDFLARE_BASE_URL": base_url, "CLOUDFLARE_API_TOKEN": "emulator-api-token"}
        done = subprocess.run(
            [sys.executable, "-m", "escpush", "esc", "disable", "--zone", "z1", "--json"],
            capture_output=True,
            text=True,
            env=env,
        )
        assert done.returncode == 0, done.stderr
        assert json.loads(done.stdout)["state"] == "disabled"
    finally:
        proc.send_signal(signal.SIGINT)  # as Ctrl-C
        assert proc.wait(timeout=10) == 0
        assert proc.stdout is not None
        proc.stdout.close()


# -- logpush -------------------------------------------------------------------------------


def test_logpush_create_list_get(cli: Cli, api: Emulator, tmp_path: Path) -> None:
    conf = "s3://logs/http?region=us-east-1&access-key-id=AKIAEXAMPLE&secret-access-key=s3cr3t-value"
    flt = tmp_path / "f.json"
    flt.write_text(GOOD)
    api.client().zone(ZONE).logpush.ownership_challenge(conf)
    token = api.written_challenge(conf, zone=ZONE)
    run = cli(
        "logpush", "create", "--zone", ZONE, "--dataset", "http_requests", "--destination-conf", conf,
        "--name", "errors", "--filter", str(flt),
        "--logpull-options", "fields=ClientIP,EdgeResponseStatus&timestamps=rfc3339",
        "--enabled", "--frequency", "low", "--max-upload-records", "1000", "--output-options", '{"sample_rate": 0.5}',
        "--no-filter-attack-traffic", "--ownership-challenge", token, "--json",
    )  # fmt: skip
    assert run.code == EXIT_OK, run.err
    job = run.json()
    assert isinstance(job, dict)
    assert "s3cr3t" not in run.out and "AKIAEXAMPLE" not in run.out and token not in run.out
    assert "ownership_challenge" not in job, "a record never holds it"
    assert job["destination_conf"] == "s3://logs/http?region=us-east-1&access-key-id=***&secret-access-key=***"
    assert (job["name"], job["dataset"], job["enabled"], job["frequency"]) == ("errors", "http_requests", True, "low")
    assert job["filter"] == GOOD and job["max_upload_records"] == 1000
    assert job["output_options"] == {"sample_rate": 0.5} and job["filter_attack_traffic"] is False
    # What was sent is the real destination; what is printed never is.
    assert api.requests()[-1]["body"]["filter"] == GOOD
    listing = cli("logpush", "list", "--zone", ZONE)
    assert listing.out.splitlines()[:3] == [
        f"job {job['id']} 'errors'",
        "  dataset:          http_requests",
        "  destination_conf: s3://logs/http?region=us-east-1&access-key-id=***&secret-access-key=***",
    ]
    got = cli("logpush", "get", str(job["id"]), "--zone", ZONE, "--json").json()
    assert got == job
    assert cli("logpush", "list", "--account", ACCOUNT).out == f"no log-push jobs on account {ACCOUNT}\n"


def test_logpush_create_reports_every_problem_and_sends_nothing(cli: Cli, api: Emulator) -> None:
    run = cli(
        "logpush", "create", "--zone", ZONE, "--dataset", "gateway_dns", "--destination-conf", "s4://b?token=abc123",
        "--filter", BAD_OPERATOR, "--json",
    )  # fmt: skip
    assert run.code == EXIT_USAGE and run.out == ""
    error = run.error()
    assert [(p["path"], p["code"]) for p in error["problems"]] == [  # type: ignore[union-attr]
        ("dataset", "unknown_dataset"),
        ("destination_conf", "invalid_destination"),
        ("filter.where.operator", "unknown_operator"),
    ]
    assert "abc123" not in run.err
    run = cli("logpush", "create", "--zone", ZONE, "--dataset", "nope", "--destination-conf", "r2://b/p")
    assert run.code == EXIT_USAGE and "nope" in run.err
    create = ("logpush", "create", "--zone", ZONE, "--dataset", "http_requests", "--destination-conf", "r2://b/p")
    run = cli(*create, "--output-options", "{x")
    assert run.code == EXIT_USAGE and run.err.startswith("escpush: --output-options is not JSON")
    run = cli(*create, "--filter", "/nonexistent/f.json")
    assert run.code == EXIT_USAGE and "cannot read the filter file" in run.err
    assert api.requests() == []


def test_logpush_destination_from_stdin_and_a_missing_job(cli: Cli, api: Emulator) -> None:
    run = cli(
        "logpush",
        "create",
        "--account",
        ACCOUNT,
        "--dataset",
        "gateway_dns",
        "--destination-conf",
        "-",
        stdin="r2://bucket/dns?account-id=a&access-key-id=k&secret-access-key=s\n",
    )
    assert run.code == EXIT_OK, run.err
    assert "secret-access-key=***" in run.out and "=s\n" not in run.out
    run = cli("logpush", "get", "99", "--zone", ZONE)
    assert run.code == EXIT_API and "HTTP 404" in run.err


# -- start-up ------------------------------------------------------------------------------

LAZY = {"typing", "escpush.testing", "escpush._demo", "escpush._problem", "shutil", "subprocess", "threading"}


@pytest.mark.parametrize(
    "argv",
    [["--version"], ["filter", "validate", GOOD, "--dataset", "http_requests"]],
    ids=["--version", "filter validate"],
)
def test_start_up_imports_only_what_the_command_uses(argv: list[str]) -> None:
    """Timed in benches/cli_startup_bench.py; here, what is imported, which does not flake."""
    code = (
        "import sys\nfrom escpush.cli import main\n"
        f"try:\n    main({argv!r})\nexcept SystemExit:\n    pass\n"
        "print(' '.join(sorted(sys.modules)))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    loaded = set(done.stdout.splitlines()[-1].split())
    assert "escpush.cli" in loaded
    assert not loaded & LAZY, loaded & LAZY
    if argv == ["--version"]:
        assert "json" not in loaded


# -- bad values: a clear message and exit 2, never a traceback -------------------------------

CREATE = ("logpush", "create", "--zone", ZONE, "--dataset", "http_requests", "--destination-conf", "r2://b/p")
BAD_VALUES = [
    (("filter", "validate", GOOD, "--max-operators", "-1"), "--max-operators"),
    (("filter", "validate", GOOD, "--max-operators", "x"), "--max-operators"),
    (("filter", "validate", GOOD, "--max-bytes", "9" * 30), "--max-bytes"),
    (("filter", "explain", GOOD, "--max-bytes", "-1"), "--max-bytes"),
    (("filter", "validate", GOOD, "--scope", "planet"), "--scope"),
    (("filter", "fmt", GOOD, "--indent", "-1"), "--indent"),
    (("filter", "fmt", GOOD, "--indent", "1000000000"), "--indent"),
    (("filter", "scan", GOOD, "-", "--threads", "-1"), "--threads"),
    (("filter", "scan", GOOD, "-", "--threads", "100000"), "--threads"),
    (("logpush", "get", "-1", "--zone", ZONE), "JOB_ID"),
    (("logpush", "get", "9" * 30, "--zone", ZONE), "JOB_ID"),
    (("logpush", "get", "seven", "--zone", ZONE), "JOB_ID"),
    (("logpush", "list", "--zone", ZONE, "--timeout", "-1"), "--timeout"),
    (("logpush", "list", "--zone", ZONE, "--timeout", "nan"), "--timeout"),
    (("esc", "status", "--zone", ZONE, "--timeout", "inf"), "--timeout"),
    (("esc", "status", "--zone", ZONE, "--timeout", "0"), "--timeout"),
    (("esc", "status", "--zone", ZONE, "--retries", "-1"), "--retries"),
    (("esc", "status", "--zone", ZONE, "--retries", "1000"), "--retries"),
    ((*CREATE, "--max-upload-bytes", "-5"), "--max-upload-bytes"),
    ((*CREATE, "--max-upload-records", "9" * 30), "--max-upload-records"),
    ((*CREATE, "--max-upload-interval-seconds", "1.5"), "--max-upload-interval-seconds"),
    (("emulator", "--port", "99999"), "--port"),
    (("emulator", "--port", "-1"), "--port"),
]


@pytest.mark.parametrize(("argv", "option"), BAD_VALUES, ids=lambda v: " ".join(v) if isinstance(v, tuple) else v)
def test_bad_option_values_are_usage_errors(
    argv: tuple[str, ...], option: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit:
        main(list(argv))
    err = capsys.readouterr().err
    assert exit.value.code == EXIT_USAGE
    assert err.startswith("usage: escpush") and f"error: argument {option}" in err and "Traceback" not in err
    # With --json, the same error as a JSON object.
    with pytest.raises(SystemExit) as exit:
        main([*argv, "--json"] if argv[0] != "emulator" else list(argv))
    captured = capsys.readouterr()
    assert exit.value.code == EXIT_USAGE and captured.out == ""
    if argv[0] != "emulator":  # no --json there
        error = json.loads(captured.err)["error"]
        assert error["exit_code"] == EXIT_USAGE and option in error["message"] and error["problems"] == []


def test_usage_errors_with_json_are_json(capsys: pytest.CaptureFixture[str]) -> None:
    for argv in (["esc", "status", "--json"], ["filter", "validate", "--json"], ["logpush", "get", "--json"]):
        with pytest.raises(SystemExit) as exit:
            main(argv)
        assert exit.value.code == EXIT_USAGE
        error = json.loads(capsys.readouterr().err)["error"]
        assert error["exit_code"] == EXIT_USAGE and "required" in error["message"]


def test_stdin_that_is_not_utf8_is_bad_input() -> None:
    for argv in (["filter", "validate", "-"], ["esc", "secret", "--zone", ZONE, "--secret-file", "-"]):
        done = subprocess.run(
            [sys.executable, "-m", "escpush", *argv],
            input=b'{"where": "\xff"}',
            capture_output=True,
            env={**os.environ, "LC_ALL": "C", "CLOUDFLARE_API_TOKEN": "t"},
            check=False,
        )
        assert done.returncode == EXIT_USAGE, done.stderr
        assert done.stderr.decode().endswith("on standard input is not UTF-8 text\n"), done.stderr


def test_arguments_that_are_not_utf8_are_bad_input() -> None:
    done = subprocess.run(
        [sys.executable.encode(), b"-m", b"escpush", b"filter", b"validate", b'{"where":"\xff"}'],
        capture_output=True,
        check=False,
    )
    assert done.returncode == EXIT_USAGE
    assert done.stderr == b"escpush: an argument is not UTF-8 text: it holds b'\\xff'\n"


def test_a_closed_stdout_is_one_line_and_exit_2(tmp_path: Path) -> None:
    big = tmp_path / "big.json"
    conditions = [{"key": f"K{i}", "operator": "eq", "value": "x" * 40} for i in range(5000)]
    big.write_text(json.dumps({"where": {"or": conditions}}))
    proc = subprocess.Popen(
        [sys.executable, "-m", "escpush", "filter", "explain", str(big)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdout is not None and proc.stderr is not None
    assert proc.stdout.readline() == b"where\n"
    proc.stdout.close()  # as `| head -1` does
    err = proc.stderr.read()
    proc.stderr.close()
    assert proc.wait(timeout=30) == EXIT_USAGE
    assert err == b"escpush: the output was closed before everything was written (broken pipe)\n"


def test_emulator_port_in_use_is_a_clear_error(cli: Cli) -> None:
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        run = cli("emulator", "--port", str(port))
    assert run.code == EXIT_USAGE
    assert run.err.startswith(f"escpush: cannot serve on 127.0.0.1 port {port}: ")


def test_retries_and_timeout_reach_the_client(cli: Cli, api: Emulator) -> None:
    api.fail_next(status=503, count=2)
    assert cli("esc", "status", "--zone", ZONE, "--retries", "0").code == EXIT_API
    assert cli("esc", "status", "--zone", ZONE, "--retries", "2").code == EXIT_OK
    api.fail_next(status=503, count=2)
    assert cli("esc", "status", "--zone", ZONE, "--retries", "3", "--timeout", "5").code == EXIT_OK


# -- esc secret --save: a new file, readable by its owner only -------------------------------


def test_save_replaces_an_existing_file_with_a_private_one(cli: Cli, api: Emulator, tmp_path: Path) -> None:
    saved = tmp_path / "secret.txt"
    saved.write_text("old\n")
    saved.chmod(0o644)
    run = cli("esc", "secret", "--zone", ZONE, "--save", str(saved))
    assert run.code == EXIT_OK, run.err
    assert stat.S_IMODE(saved.stat().st_mode) == 0o600
    assert saved.read_text() != "old\n"
    assert [p.name for p in tmp_path.iterdir()] == ["secret.txt"], "no temporary file left"


def test_save_refuses_a_symbolic_link_and_sends_nothing(cli: Cli, api: Emulator, tmp_path: Path) -> None:
    target = tmp_path / "elsewhere.txt"
    target.write_text("keep\n")
    target.chmod(0o644)
    link = tmp_path / "secret.txt"
    link.symlink_to(target)
    run = cli("esc", "secret", "--zone", ZONE, "--save", str(link))
    assert run.code == EXIT_USAGE and "symbolic link" in run.err
    assert target.read_text() == "keep\n" and link.is_symlink()
    dangling = tmp_path / "dangling.txt"
    dangling.symlink_to(tmp_path / "nowhere.txt")
    run = cli("esc", "secret", "--zone", ZONE, "--save", str(dangling))
    assert run.code == EXIT_USAGE and not (tmp_path / "nowhere.txt").exists()
    run = cli("esc", "secret", "--zone", ZONE, "--save", str(tmp_path / "no-such-dir" / "s.txt"))
    assert run.code == EXIT_USAGE and "cannot save the secret" in run.err
    assert api.requests() == []


# -- filter scan --output: never an input, never half-written --------------------------------


def test_scan_output_refuses_a_hard_link_to_an_input(cli: Cli, tmp_path: Path) -> None:
    logs = tmp_path / "logs.ndjson"
    text = '{"EdgeResponseStatus":503,"ClientCountry":"cn"}\n' * 10
    logs.write_text(text)
    link = tmp_path / "link.ndjson"
    os.link(logs, link)
    run = cli("filter", "scan", GOOD, str(logs), "--output", str(link))
    assert run.code == EXIT_USAGE and "is also an input" in run.err
    assert logs.read_text() == text
    out = tmp_path / "out.ndjson"
    out.write_text("previous\n")
    run = cli("filter", "scan", GOOD, str(logs), str(tmp_path / "missing.ndjson"), "--output", str(out))
    assert run.code == EXIT_USAGE and out.read_text() == "previous\n"


def test_create_has_an_option_for_every_job_field_core_accepts() -> None:
    from escpush._escpush import _JOB_FIELDS

    parsers = dict(_leaf_parsers())
    assert _JOB_FIELDS, "core's table reaches Python"
    for command, settable in (("create", "create"), ("ensure", "create"), ("update", "update")):
        leaf = parsers[f"logpush {command}"]
        flags = {flag for action in leaf._actions for flag in action.option_strings}
        helps = {flag: action.help for action in leaf._actions for flag in action.option_strings}
        for field in _JOB_FIELDS:
            flag = "--" + field["name"].replace("_", "-")
            assert (flag in flags) == field[settable], (command, field["name"])
            if field[settable] and not field["parsed"]:
                assert field["about"] in str(helps[flag]), (command, field["name"])
            if field[settable] and field["type"] == "bool":
                assert "--no-" + field["name"].replace("_", "-") in flags, field["name"]
