"""``escpush logpush update|enable|disable|delete|ensure|apply|fields`` and ``escpush datasets
check`` against the emulator: plans, diffs, exit statuses, --json, and no secret printed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cli_support import Cli, Run
from escpush import Filter
from escpush.cli import EXIT_API, EXIT_CHECK_FAILED, EXIT_OK, EXIT_USAGE
from escpush.testing import Emulator

ZONE = "023e105f4ecef8ad9ca31a8372d0c353"
ACCOUNT = "01a7362d577a6c3019a474fd6f485823"
SECRET = "SAK-cli-secret"
CONF = f"s3://logs/http?region=us-east-1&access-key-id=AKID-cli&secret-access-key={SECRET}"
ERRORS = json.dumps(
    {
        "where": {
            "and": [
                {"key": "ClientCountry", "operator": "in", "value": ["cn", "ru"]},
                {"key": "EdgeResponseStatus", "operator": "geq", "value": 500},
            ]
        }
    },
    separators=(",", ":"),
)


@pytest.fixture
def cli(cli: Cli) -> Cli:
    """conftest's `cli`, checking that no output holds the destination's secret."""

    def run(*argv: str, stdin: str | None = None) -> Run:
        done = cli(*argv, stdin=stdin)
        assert SECRET not in done.out + done.err
        return done

    return run


def writes(emu: Emulator) -> list[str]:
    return [r["method"] for r in emu.requests() if r["method"] != "GET"]


def test_update_enable_disable_delete(cli: Cli, api: Emulator) -> None:
    made = cli(
        "logpush", "create", "--zone", ZONE, "--dataset", "http_requests", "--destination-conf", CONF,
        "--name", "errors", "--filter", ERRORS, "--frequency", "low", "--json",
    ).json()  # fmt: skip
    job_id = str(made["id"])
    run = cli("logpush", "update", job_id, "--zone", ZONE, "--max-upload-records", "5000", "--no-filter", "--json")
    assert run.code == EXIT_OK, run.err
    job = run.json()
    assert (job["max_upload_records"], job["frequency"], job["filter"]) == (5000, "low", None)
    assert cli("logpush", "enable", job_id, "--zone", ZONE, "--json").json()["enabled"] is True
    disabled = cli("logpush", "disable", job_id, "--zone", ZONE)
    assert disabled.out.startswith(f"disabled on zone {ZONE}: job {job_id} 'errors'")
    nothing = cli("logpush", "update", job_id, "--zone", ZONE)
    assert nothing.code == EXIT_USAGE and "name at least one field" in nothing.err
    bad = cli(
        "logpush", "update", job_id, "--zone", ZONE, "--filter", '{"where":{"key":"Nope","operator":"eq","value":1}}'
    )
    assert bad.code == EXIT_USAGE and "filter.where.key" in bad.err
    assert cli("logpush", "delete", job_id, "--zone", ZONE).out == f"deleted job {job_id} on zone {ZONE}\n"
    gone = cli("logpush", "delete", job_id, "--zone", ZONE, "--json")
    assert gone.code == EXIT_API
    assert f"not found: zone {ZONE} has no log-push job {job_id}" in json.loads(gone.err)["error"]["message"]


def test_ensure_twice_sends_nothing_the_second_time(cli: Cli, api: Emulator) -> None:
    api.logpush_quirks(reserialize_filters=True)
    argv = ("logpush", "ensure", "--zone", ZONE, "--name", "errors", "--dataset", "http_requests",
            "--destination-conf", CONF, "--filter", ERRORS, "--enabled")  # fmt: skip
    first = cli(*argv)
    assert first.code == EXIT_OK and first.out.startswith("created job "), first.err
    api.clear_requests()
    second = cli(*argv, "--json")
    assert second.json()["action"] == "unchanged" and writes(api) == []
    third = cli(*argv[:-1], "--no-enabled")
    assert third.out.splitlines()[1:] == ["      enabled: true -> false"]


JOBS_TOML = f"""
[[jobs]]
name = "errors"
dataset = "http_requests"
destination_conf = "{CONF}"
filter = '{ERRORS}'
logpull_options = "fields=ClientIP,EdgeResponseStatus&timestamps=rfc3339"

[[jobs]]
name = "firewall"
dataset = "firewall_events"
destination_conf = "{CONF}"
enabled = true
[jobs.filter.where]
key = "ClientCountry"
operator = "eq"
value = "fr"
"""


def test_apply_a_toml_file_dry_run_then_twice(cli: Cli, api: Emulator, tmp_path: Path) -> None:
    api.logpush_quirks(reserialize_filters=True)
    stray = cli("logpush", "create", "--zone", ZONE, "--dataset", "http_requests", "--destination-conf", CONF,
                "--name", "stray", "--json").json()  # fmt: skip
    jobs = tmp_path / "jobs.toml"
    jobs.write_text(JOBS_TOML)
    api.clear_requests()
    dry = cli("logpush", "apply", str(jobs), "--zone", ZONE, "--dry-run")
    assert dry.code == EXIT_OK, dry.err
    assert dry.out.splitlines() == [
        f"plan for zone {ZONE} (dry run: nothing sent):",
        "  + 'errors' (http_requests): create",
        "  + 'firewall' (firewall_events): create",
        f"  ? 'stray' job {stray['id']} (http_requests): not in the file (kept; --prune deletes it)",
    ]
    assert writes(api) == [], "a dry run writes nothing"
    applied = cli("logpush", "apply", str(jobs), "--zone", ZONE, "--json")
    assert [(j["action"], j["done"]) for j in applied.json()["jobs"]] == [
        ("create", True),
        ("create", True),
        ("untracked", False),
    ]
    api.clear_requests()
    again = cli("logpush", "apply", str(jobs), "--zone", ZONE)
    assert [line.split(": ")[-1] for line in again.out.splitlines()[1:]] == [
        "unchanged",
        "unchanged",
        "not in the file (kept; --prune deletes it)",
    ]
    assert writes(api) == [], "the second run changes nothing"
    # An edit shows as a field-by-field diff; --prune removes what the file does not list.
    jobs.write_text(JOBS_TOML.replace('"fr"', '"de"'))
    edited = cli("logpush", "apply", str(jobs), "--zone", ZONE, "--prune")
    assert "  ~ 'firewall' job" in edited.out and "(firewall_events): updated" in edited.out
    assert '      filter: {"where":{"key":"ClientCountry","operator":"eq","value":"fr"}} -> ' in edited.out
    assert f"  - 'stray' job {stray['id']} (http_requests): deleted" in edited.out
    assert writes(api) == ["PUT", "DELETE"], "deletions last: a failure before them loses no job"


def test_apply_reads_json_and_refuses_bad_files(cli: Cli, api: Emulator, tmp_path: Path) -> None:
    good = tmp_path / "jobs.json"
    good.write_text(json.dumps({"jobs": [{"name": "a", "dataset": "gateway_dns", "destination_conf": CONF}]}))
    assert cli("logpush", "apply", str(good), "--account", ACCOUNT).code == EXIT_OK
    api.clear_requests()
    bad = tmp_path / "bad.json"
    bad.write_text('{"jobs": [{"dataset": "http_requests"}]')
    run = cli("logpush", "apply", str(bad), "--zone", ZONE)
    assert run.code == EXIT_USAGE and "is not JSON" in run.err
    bad.write_text(json.dumps({"jobs": [{"dataset": "http_requests", "destination_conf": CONF}]}))
    run = cli("logpush", "apply", str(bad), "--zone", ZONE, "--json")
    assert run.code == EXIT_USAGE
    assert [p["path"] for p in json.loads(run.err)["error"]["problems"]] == ["jobs[0].name"]
    toml = tmp_path / "bad.toml"
    toml.write_text("[[jobs]\nname = ")
    run = cli("logpush", "apply", str(toml), "--zone", ZONE)
    assert run.code == EXIT_USAGE and "neither JSON nor TOML" in run.err
    assert writes(api) == [], "nothing sent for a bad file"


def test_fields_and_datasets_check(cli: Cli, api: Emulator) -> None:
    fields = cli("logpush", "fields", "http_requests", "--zone", ZONE, "--json")
    assert fields.code == EXIT_OK and "ClientIP" in fields.json()
    ok = cli("datasets", "check", "--zone", ZONE)
    assert (ok.code, ok.out) == (EXIT_OK, f"the live fields of zone {ZONE} match escpush's schemas\n")
    api.logpush_quirks(field_drift={"gateway_dns": {"add": {"Brand": "new"}, "remove": ["QueryName"]}})
    drift = cli("datasets", "check", "--account", ACCOUNT)
    assert drift.code == EXIT_CHECK_FAILED
    assert drift.out.splitlines() == [
        "gateway_dns:",
        "  + Brand (the API has it; escpush's schema lacks it)",
        "  - QueryName (escpush's schema has it; the API no longer lists it)",
    ]
    as_json = cli("datasets", "check", "--account", ACCOUNT, "gateway_dns", "--json")
    assert as_json.json() == {"gateway_dns": {"only_live": ["Brand"], "only_embedded": ["QueryName"]}}


def test_apply_replaces_a_job_on_a_full_zone_only_when_told_to_delete_first(
    cli: Cli, api: Emulator, tmp_path: Path
) -> None:
    for i in range(4):
        cli("logpush", "create", "--zone", ZONE, "--dataset", "http_requests", "--destination-conf", CONF,
            "--name", f"old{i}")  # fmt: skip
    keep = [{"name": f"old{i}", "dataset": "http_requests", "destination_conf": CONF} for i in range(3)]
    jobs = tmp_path / "jobs.json"
    jobs.write_text(
        json.dumps({"jobs": [*keep, {"name": "new", "dataset": "http_requests", "destination_conf": CONF}]})
    )
    api.clear_requests()
    # Creating `new` before deleting `old3` would make 5 jobs: refused before anything is sent.
    refused = cli("logpush", "apply", str(jobs), "--zone", ZONE, "--prune")
    assert refused.code == EXIT_USAGE, refused.err
    assert f"zone {ZONE} would hold 5 log-push jobs" in refused.err and "--delete-first" in refused.err
    assert writes(api) == []
    as_json = cli("logpush", "apply", str(jobs), "--zone", ZONE, "--prune", "--json")
    assert as_json.code == EXIT_USAGE and "at most 4" in as_json.error()["message"]  # type: ignore[operator]
    run = cli("logpush", "apply", str(jobs), "--zone", ZONE, "--prune", "--delete-first")
    assert run.code == EXIT_OK, run.err
    assert "'new' job " in run.out and "(http_requests): created" in run.out and "'old3' job" in run.out
    assert writes(api) == ["DELETE", "POST"], "told to, it deletes first"
    listed = cli("logpush", "list", "--zone", ZONE, "--dataset", "http_requests", "--json").json()
    assert sorted(j["name"] for j in listed) == ["new", "old0", "old1", "old2"]  # type: ignore[attr-defined]


def _fail_part_way(cli: Cli, api: Emulator, tmp_path: Path) -> Path:
    """Three jobs stored, a file that updates them, and the second update set to fail."""
    for i in range(3):
        cli("logpush", "create", "--zone", ZONE, "--dataset", "http_requests", "--destination-conf", CONF,
            "--name", f"old{i}")  # fmt: skip
    jobs = tmp_path / "jobs.json"
    jobs.write_text(
        json.dumps({"jobs": [{"name": f"old{i}", "dataset": "http_requests", "destination_conf": CONF,
                              "enabled": True} for i in range(3)]})
    )  # fmt: skip
    api.fail_next(delay=0)  # the list
    api.fail_next(delay=0)  # the first update
    api.fail_next(status=400)  # the second update
    return jobs


def test_apply_failing_part_way_says_what_was_done(cli: Cli, api: Emulator, tmp_path: Path) -> None:
    jobs = _fail_part_way(cli, api, tmp_path)
    failed = cli("logpush", "apply", str(jobs), "--zone", ZONE)
    assert failed.code == EXIT_API
    assert failed.out == ""
    assert "'old0' job" in failed.err and "(http_requests): updated" in failed.err
    assert "'old1' job" in failed.err and "injected fault" in failed.err
    assert "before it, apply updated `old0` (job 1)" in failed.err and "not sent: update `old2` (job 3)" in failed.err


def test_apply_json_failing_part_way_writes_one_json_object(cli: Cli, api: Emulator, tmp_path: Path) -> None:
    jobs = _fail_part_way(cli, api, tmp_path)
    failed = cli("logpush", "apply", str(jobs), "--zone", ZONE, "--json")
    assert failed.code == EXIT_API and failed.out == ""
    error = json.loads(failed.err)["error"]  # the whole of stderr is one JSON object
    assert error["exit_code"] == EXIT_API and "injected fault" in error["message"]
    assert "before it, apply updated `old0` (job 1)" in error["message"]
    assert [(j["name"], j["action"], j["done"]) for j in error["plan"]["jobs"]] == [
        ("old0", "update", True),
        ("old1", "update", False),
        ("old2", "update", False),
    ]


def test_apply_reads_toml_from_stdin(cli: Cli, api: Emulator) -> None:
    toml = 'jobs = [{name = "dns", dataset = "gateway_dns", destination_conf = "r2://b/dns?account-id=a"}]\n'
    run = cli("logpush", "apply", "-", "--account", ACCOUNT, "--dry-run", "--json", stdin=toml)
    assert run.code == EXIT_OK, run.err
    assert [(j["action"], j["name"], j["done"]) for j in run.json()["jobs"]] == [("create", "dns", False)]
    assert writes(api) == []


def test_job_filters_may_be_written_in_the_text_form(cli: Cli, api: Emulator) -> None:
    text = 'EdgeResponseStatus >= 500 and ClientRequestHost endsWith ".example.com"'
    run = cli(
        "logpush", "create", "--zone", ZONE, "--dataset", "http_requests", "--destination-conf", CONF,
        "--name", "errors", "--filter", text, "--json",
    )  # fmt: skip
    assert run.code == EXIT_OK, run.err
    [job] = api.client().zone(ZONE).logpush.jobs()
    assert job.parsed_filter == Filter.from_text(
        'EdgeResponseStatus >= 500 and ClientRequestHost endsWith ".example.com"'
    )
    run = cli("logpush", "update", "--zone", ZONE, str(job["id"]), "--filter", "EdgeResponseStatus >== 500", "--json")
    assert run.code == EXIT_USAGE and "did you mean `>=`" in run.err


def test_the_ownership_challenge_is_read_from_stdin(cli: Cli, api: Emulator) -> None:
    # A secret field's option takes - for stdin, so the token stays out of the shell's history.
    gcs = "gs://bucket-stdin/logs"
    api.client().zone(ZONE).logpush.ownership_challenge(gcs)
    token = api.written_challenge(gcs, zone=ZONE)
    create = ("logpush", "create", "--zone", ZONE, "--dataset", "http_requests", "--destination-conf")
    made = cli(*create, gcs, "--ownership-challenge", "-", "--json", stdin=token + "\n")
    assert made.code == EXIT_OK, made.err
    assert token not in made.out + made.err
    [sent] = [r for r in api.requests() if r["method"] == "POST" and r["path"].endswith("/logpush/jobs")][-1:]
    assert sent["body"]["ownership_challenge"] == "***"  # the log masks it; the job was accepted with it
    both = cli(*create, "-", "--ownership-challenge", "-", stdin=gcs + "\n")
    assert both.code == EXIT_USAGE and "cannot both be - (stdin)" in both.err
