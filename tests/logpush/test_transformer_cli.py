"""``escpush logpush transformer list|create|get|update|delete|content|versions`` against the
emulator, and a job's ``--transformer-id`` (``null`` detaches): exit statuses, --json, and
refusals before anything is sent."""

from __future__ import annotations

import json
from pathlib import Path

from cli_support import Cli
from escpush.cli import EXIT_OK
from escpush.testing import Emulator

ACCOUNT = "01a7362d577a6c3019a474fd6f485823"
SQL = "SELECT QueryName FROM gateway_dns"
DEST = "https://logs.example.com/in"


def test_a_transformer_through_the_command_line(cli: Cli, api: Emulator, tmp_path: Path) -> None:
    a = ("--account", ACCOUNT)
    made = cli("logpush", "transformer", "create", *a, "--name", "dns", "--sql", SQL, "--json")
    assert made.code == EXIT_OK, made.err
    t = json.loads(made.out)
    assert (t["name"], t["dataset"]) == ("dns", "gateway_dns")
    listed = cli("logpush", "transformer", "list", *a)
    assert listed.code == EXIT_OK and f"transformer {t['id']} 'dns'" in listed.out and "dataset:" in listed.out
    sql = tmp_path / "v2.sql"
    sql.write_text("SELECT QueryName, SrcIP FROM gateway_dns")
    assert cli("logpush", "transformer", "update", str(t["id"]), *a, "--name", "dns", "--file", str(sql)).code == 0
    versions = json.loads(cli("logpush", "transformer", "versions", str(t["id"]), *a, "--json").out)
    assert [v["version"] for v in versions] == [1, 2]
    assert cli("logpush", "transformer", "content", str(t["id"]), *a).out.strip() == sql.read_text()
    first = cli("logpush", "transformer", "content", str(t["id"]), *a, "--version-id", str(versions[0]["id"]))
    assert first.out.strip() == SQL
    # Attach to a job, see it, detach with null, delete.
    job = json.loads(
        cli("logpush", "create", *a, "--dataset", "gateway_dns", "--destination-conf", DEST,
            "--transformer-id", str(t["id"]), "--json").out
    )  # fmt: skip
    assert job["transformer_id"] == t["id"]
    got = cli("logpush", "transformer", "get", str(t["id"]), *a)
    assert f"jobs:        {job['id']}" in got.out
    refused = cli("logpush", "transformer", "delete", str(t["id"]), *a)
    assert refused.code != EXIT_OK and "is referenced by job(s)" in refused.err
    assert cli("logpush", "update", str(job["id"]), *a, "--transformer-id", "null").code == EXIT_OK
    assert "jobs:        none" in cli("logpush", "transformer", "get", str(t["id"]), *a).out
    done = cli("logpush", "transformer", "delete", str(t["id"]), *a)
    assert done.code == EXIT_OK and f"deleted transformer {t['id']}" in done.out


def test_the_command_line_refuses_before_sending(cli: Cli, api: Emulator) -> None:
    a = ("--account", ACCOUNT)
    run = cli("logpush", "transformer", "create", *a, "--name", "n" * 256, "--sql", SQL)
    assert run.code != EXIT_OK and "more than the 255" in run.err and "transformers.mdx" in run.err
    run = cli("logpush", "transformer", "create", *a, "--name", "n", "--sql", "SELECT Nope FROM gateway_dns")
    assert run.code != EXIT_OK and "Nope" in run.err
    run = cli("logpush", "transformer", "list", "--zone", "023e105f4ecef8ad9ca31a8372d0c353")
    assert run.code != EXIT_OK and "belong to an account" in run.err
    assert api.requests() == []
