"""Log-push jobs after creation: update, delete, enable/disable, ensure, apply plans, live
fields, ownership and destination checks, end to end against the emulator on loopback."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Any

import pytest

from escpush import ApiError, Filter, FilterError, InvalidInput, Job, LogpullOptions, NotFoundError, field
from escpush.testing import Emulator

ZONE = "023e105f4ecef8ad9ca31a8372d0c353"
ACCOUNT = "01a7362d577a6c3019a474fd6f485823"
SECRET = "SAK-very-secret-value"
S3 = f"s3://bucket/logs?region=us-east-1&access-key-id=AKID-TEST&secret-access-key={SECRET}"
ERRORS = (field("EdgeResponseStatus") >= 500) & field("ClientCountry").is_in(["cn", "ru"])


def writes(emu: Emulator) -> list[str]:
    return [f"{r['method']} {r['path']}" for r in emu.requests() if r["method"] != "GET"]


def leaked(emu: Emulator, *secrets: str) -> list[str]:
    text = json.dumps([emu.requests(), emu.state()])
    return [s for s in secrets if s in text]


@pytest.mark.parametrize("kind", ["zone", "account"])
def test_update_sends_only_the_changes_and_keeps_the_rest(escpush_emulator: Emulator, kind: str) -> None:
    client = escpush_emulator.client()
    scope, dataset, key, time = (
        (client.zone(ZONE), "http_requests", "EdgeResponseStatus", "EdgeStartTimestamp")
        if kind == "zone"
        else (client.account(ACCOUNT), "gateway_dns", "SrcPort", "Datetime")
    )
    job = scope.logpush.create_job(
        destination_conf=S3,
        dataset=dataset,
        name="kept",
        filter=field(key) >= 500,
        frequency="low",
        output_options={"field_names": [time], "sample_rate": 0.5},
    )
    updated = scope.logpush.update_job(job["id"], enabled=True, output_options={"sample_rate": 1.0})
    assert updated["enabled"] is True
    assert updated["frequency"] == "low" and updated["name"] == "kept"
    assert updated["output_options"] == {"field_names": [time], "sample_rate": 1.0}
    assert updated.parsed_filter == (field(key) >= 500)
    [put] = [r for r in escpush_emulator.requests() if r["method"] == "PUT"]
    # Issue 24: a PUT changes only what it sends, as the API's (output_options whole: the API
    # replaces it, so the stored keys go with the change).
    assert put["body"] == {"enabled": True, "output_options": {"field_names": [time], "sample_rate": 1.0}}
    assert put["path"].endswith(f"/logpush/jobs/{job['id']}")
    assert scope.logpush.disable_job(job["id"])["enabled"] is False
    assert scope.logpush.enable_job(job["id"])["enabled"] is True
    cleared = scope.logpush.update_job(job["id"], filter=None)
    assert cleared["filter"] is None and cleared.parsed_filter is None
    assert scope.logpush.delete_job(job["id"]) == job["id"]
    assert scope.logpush.jobs() == []
    assert leaked(escpush_emulator, SECRET) == []


def test_bad_updates_are_refused_before_anything_is_written(escpush_emulator: Emulator) -> None:
    logpush = escpush_emulator.client().zone(ZONE).logpush
    job = logpush.create_job(destination_conf=S3, dataset="http_requests", name="a")
    escpush_emulator.clear_requests()
    with pytest.raises(FilterError, match="ClientRequestHots") as exc:
        logpush.update_job(job["id"], filter=field("ClientRequestHots") == "x")
    assert [e["path"] for e in exc.value.errors()] == ["filter.where.key"]
    with pytest.raises(FilterError) as exc:
        logpush.update_job(job["id"], filter={"where": {"key": "ClientCountry", "operator": "eq"}})
    assert [e["path"] for e in exc.value.errors()] == ["filter.where"]
    with pytest.raises(InvalidInput, match="frequency"):
        logpush.update_job(job["id"], frequency="often")
    with pytest.raises(InvalidInput, match="dataset cannot change"):
        logpush.update_job(job["id"], dataset="firewall_events")
    with pytest.raises(InvalidInput, match="kind cannot change"):
        logpush.update_job(job["id"], kind="edge")
    with pytest.raises(InvalidInput, match="name at least one field"):
        logpush.update_job(job["id"])
    with pytest.raises(InvalidInput, match="invalid job id"):
        logpush.delete_job(0)
    assert writes(escpush_emulator) == []


def test_delete_of_a_job_already_gone_says_not_found(escpush_emulator: Emulator) -> None:
    logpush = escpush_emulator.client(max_retries=2).zone(ZONE).logpush
    job = logpush.create_job(destination_conf=S3, dataset="http_requests")
    escpush_emulator.fail_next(status=503)
    assert logpush.delete_job(job["id"]) == job["id"], "a DELETE is retried"
    with pytest.raises(NotFoundError, match=f"not found: zone {ZONE} has no log-push job {job['id']}"):
        logpush.delete_job(job["id"])


def test_updates_are_retried_creations_are_not(escpush_emulator: Emulator) -> None:
    logpush = escpush_emulator.client(max_retries=2).zone(ZONE).logpush
    job = logpush.create_job(destination_conf=S3, dataset="http_requests")
    escpush_emulator.clear_requests()
    escpush_emulator.fail_next(delay=0)  # the read passes
    escpush_emulator.fail_next(status=502)  # the first PUT fails, and is repeated
    assert logpush.update_job(job["id"], enabled=True)["enabled"] is True
    assert [r["method"] for r in escpush_emulator.requests()] == ["GET", "PUT", "PUT"]


def test_a_zone_holds_four_jobs(escpush_emulator: Emulator) -> None:
    logpush = escpush_emulator.client().zone(ZONE).logpush
    for i in range(4):
        logpush.create_job(destination_conf=S3, dataset="http_requests", name=f"j{i}")
    with pytest.raises(ApiError, match="exceeded max jobs allowed"):
        logpush.create_job(destination_conf=S3, dataset="http_requests", name="fifth")
    assert len(logpush.jobs()) == 4
    assert len(logpush.jobs(dataset="http_requests")) == 4 and logpush.jobs(dataset="firewall_events") == []


def test_parsed_filter_reads_every_form() -> None:
    text = ERRORS.to_json()
    for stored in [text, json.dumps(text), ERRORS.to_dict(), json.dumps(json.loads(text), indent=2)]:
        assert Job({"filter": stored}).parsed_filter == ERRORS
    assert Job({"filter": ""}).parsed_filter is None and Job({}).parsed_filter is None
    with pytest.raises(FilterError):
        _ = Job({"filter": "{}"}).parsed_filter


def test_ensure_job_against_a_reserializing_server_does_not_loop(escpush_emulator: Emulator) -> None:
    logpush = escpush_emulator.client().zone(ZONE).logpush
    escpush_emulator.logpush_quirks(reserialize_filters=True)
    wanted = ERRORS & field("ClientRequestHost").ends_with(".example.com")
    spec: dict[str, Any] = {
        "name": "errors",
        "dataset": "http_requests",
        "destination_conf": S3,
        "filter": wanted,
        "logpull_options": LogpullOptions(["ClientIP"], timestamps="rfc3339"),
    }
    first = logpush.ensure_job(**spec)
    assert first["action"] == "created" and first["changes"] == []
    stored = first["job"]["filter"]
    assert stored != wanted.to_json() and '"value": "500"' in stored, "the server wrote it back its way"
    escpush_emulator.clear_requests()
    again = logpush.ensure_job(**spec)
    assert (again["action"], again["id"], again["changes"]) == ("unchanged", first["id"], [])
    assert writes(escpush_emulator) == [], "the second call sends nothing"
    changed = logpush.ensure_job(**{**spec, "filter": wanted | (field("EdgeResponseStatus") == 404)})
    assert changed["action"] == "updated"
    assert [c["field"] for c in changed["changes"]] == ["filter"]
    assert changed["job"].parsed_filter is not None
    rotated = logpush.ensure_job(**{**spec, "destination_conf": S3.replace(SECRET, "ROTATED-secret")})
    assert [c["field"] for c in rotated["changes"]] == ["destination_conf", "filter"]
    shown = json.dumps(rotated["changes"])
    assert "a credential changed" in shown and SECRET not in shown and "ROTATED-secret" not in shown
    assert leaked(escpush_emulator, SECRET, "ROTATED-secret") == []


def test_apply_plans_then_changes_nothing_the_second_time(escpush_emulator: Emulator) -> None:
    logpush = escpush_emulator.client().zone(ZONE).logpush
    escpush_emulator.logpush_quirks(reserialize_filters=True)
    stray = logpush.create_job(destination_conf=S3, dataset="http_requests", name="stray")
    doc = {
        "jobs": [
            {"name": "errors", "dataset": "http_requests", "destination_conf": S3, "filter": ERRORS},
            {"name": "fw", "dataset": "firewall_events", "destination_conf": S3, "enabled": True},
        ]
    }
    escpush_emulator.clear_requests()
    dry = logpush.apply(doc, dry_run=True)
    assert [(j["action"], j["name"], j["done"]) for j in dry["jobs"]] == [
        ("create", "errors", False),
        ("create", "fw", False),
        ("untracked", "stray", False),
    ]
    assert writes(escpush_emulator) == [], "a dry run writes nothing"
    done = logpush.apply(doc)
    assert [j["done"] for j in done["jobs"]] == [True, True, False]
    assert all(isinstance(j["id"], int) for j in done["jobs"])
    escpush_emulator.clear_requests()
    second = logpush.apply(doc)
    assert [j["action"] for j in second["jobs"]] == ["unchanged", "unchanged", "untracked"]
    assert writes(escpush_emulator) == []
    pruned = logpush.apply(doc, prune=True)
    assert pruned["jobs"][2] == {**pruned["jobs"][2], "action": "delete", "id": stray["id"], "done": True}
    assert sorted(j["name"] for j in logpush.jobs()) == ["errors", "fw"]
    assert leaked(escpush_emulator, SECRET) == [] and SECRET not in json.dumps(done)


def test_apply_refuses_a_bad_file_before_sending(escpush_emulator: Emulator) -> None:
    logpush = escpush_emulator.client().zone(ZONE).logpush
    bad = {
        "jobs": [
            {"dataset": "http_requests", "destination_conf": S3},
            {"name": "x", "dataset": "http_requests", "destination_conf": S3, "filter": {"where": {}}},
        ]
    }
    with pytest.raises(InvalidInput, match=r"jobs\[0\]\.name") as exc:
        logpush.apply(bad)
    assert "jobs[1].filter" in str(exc.value)
    assert writes(escpush_emulator) == []


def test_live_fields_and_drift(escpush_emulator: Emulator) -> None:
    client = escpush_emulator.client()
    zone = client.zone(ZONE).logpush
    assert "ClientIP" in zone.fields("http_requests")
    assert zone.check_fields() == {}
    escpush_emulator.logpush_quirks(field_drift={"http_requests": {"add": {"Brand": "new"}, "remove": ["ClientIP"]}})
    assert zone.fields("http_requests")["Brand"] == "new"
    assert zone.check_fields() == {"http_requests": {"only_live": ["Brand"], "only_embedded": ["ClientIP"]}}
    assert "QueryName" in client.account(ACCOUNT).logpush.fields("gateway_dns")
    escpush_emulator.clear_requests()
    with pytest.raises(InvalidInput, match="`gateway_dns` is an account dataset: use it on an account, not on a zone"):
        zone.fields("gateway_dns")
    assert escpush_emulator.requests() == []


@pytest.mark.parametrize("kind", ["zone", "account"])
def test_ownership_and_destination_checks(escpush_emulator: Emulator, kind: str) -> None:
    client = escpush_emulator.client()
    scope = client.zone(ZONE) if kind == "zone" else client.account(ACCOUNT)
    answer = scope.logpush.ownership_challenge(S3)
    assert answer["filename"].startswith("bucket/logs/")
    [issued] = escpush_emulator.ownership_challenges()
    scope.logpush.validate_ownership(S3, issued["challenge"])
    with pytest.raises(ApiError, match="the ownership challenge is not valid") as exc:
        scope.logpush.validate_ownership(S3, "not-the-challenge")
    assert exc.value.status == 200
    assert scope.logpush.validate_destination(S3) == ""
    assert scope.logpush.destination_exists(S3) is False
    escpush_emulator.fail_next(body=b'{"success": true, "result": {"valid": false, "message": "no such bucket"}}')
    with pytest.raises(ApiError, match="the destination is not valid: no such bucket"):
        scope.logpush.validate_destination(S3)
    with pytest.raises(InvalidInput, match="region"):
        scope.logpush.validate_destination("s3://bucket/logs")
    assert leaked(escpush_emulator, SECRET, issued["challenge"]) == []


def test_filter_string_forms_and_equality_with_filter_objects() -> None:
    stored = '{"where": {"and": [{"value": "500", "operator": "geq", "key": "EdgeResponseStatus"}]}}'
    assert Job({"filter": stored}).parsed_filter == Filter.parse(stored)


@pytest.mark.parametrize("kind", ["zone", "account"])
def test_every_endpoint_refuses_bad_input_before_sending(escpush_emulator: Emulator, kind: str) -> None:
    client = escpush_emulator.client()
    logpush = (client.zone(ZONE) if kind == "zone" else client.account(ACCOUNT)).logpush
    bad_conf = "ftp://host/x"
    calls: list[tuple[Any, type[Exception], str]] = [
        (lambda: logpush.delete_job(0), InvalidInput, "invalid job id"),
        (lambda: logpush.update_job(-1, enabled=True), InvalidInput, "invalid job id"),
        (lambda: logpush.enable_job(0), InvalidInput, "invalid job id"),
        (lambda: logpush.jobs(dataset="no_such_dataset"), InvalidInput, "no_such_dataset"),
        (lambda: logpush.fields("no_such_dataset"), InvalidInput, "no_such_dataset"),
        (lambda: logpush.ownership_challenge(bad_conf), InvalidInput, "not a destination scheme"),
        (lambda: logpush.validate_ownership(S3, " "), InvalidInput, "the challenge is empty"),
        (lambda: logpush.validate_ownership(bad_conf, "c"), InvalidInput, "not a destination scheme"),
        (lambda: logpush.validate_destination(bad_conf), InvalidInput, "not a destination scheme"),
        (lambda: logpush.destination_exists(bad_conf), InvalidInput, "not a destination scheme"),
        (
            lambda: logpush.ensure_job(
                name="x", dataset="http_requests" if kind == "zone" else "gateway_dns", destination_conf=bad_conf
            ),
            InvalidInput,
            "not a destination scheme",
        ),
        (lambda: logpush.apply({"jobs": [{"name": "x"}]}), InvalidInput, "jobs[0].dataset"),
        (lambda: logpush.apply([]), InvalidInput, "under `jobs`"),
    ]
    for call, error, message in calls:
        with pytest.raises(error) as exc:
            call()
        assert message in str(exc.value)
    assert escpush_emulator.requests() == [], "nothing was sent"


@pytest.mark.forges_requests  # bodies and methods escpush's client never sends
def test_the_emulator_checks_what_a_put_carries(escpush_emulator: Emulator) -> None:
    logpush = escpush_emulator.client().zone(ZONE).logpush
    job = logpush.create_job(destination_conf=S3, dataset="http_requests")

    def put(body: dict[str, Any]) -> tuple[int, Any]:
        request = urllib.request.Request(
            f"{escpush_emulator.base_url}/zones/{ZONE}/logpush/jobs/{job['id']}",
            method="PUT",
            data=json.dumps(body).encode(),
            headers={"X-Auth-Key": escpush_emulator.api_key, "X-Auth-Email": escpush_emulator.email,
                     "Content-Type": "application/json"},
        )  # fmt: skip
        try:
            with urllib.request.urlopen(request) as answer:
                return answer.status, json.loads(answer.read())
        except urllib.error.HTTPError as err:
            return err.code, json.loads(err.read())

    status, answer = put({"destination_conf": S3, "dataset": "firewall_events"})
    assert status == 400 and "dataset cannot change" in answer["errors"][0]["message"]
    status, answer = put({"destination_conf": S3, "kind": "edge"})
    assert status == 400 and "kind cannot change" in answer["errors"][0]["message"]
    status, answer = put({"destination_conf": S3, "filter": '{"where":{"key":"Nope","operator":"eq","value":1}}'})
    assert status == 400 and answer["errors"][0]["message"].startswith("filter.where.key:")
    status, answer = put({"destination_conf": S3, "enabled": True})
    assert status == 200 and answer["result"]["enabled"] is True and answer["result"]["dataset"] == "http_requests"


def test_log_push_quirks_are_checked_and_turn_off(escpush_emulator: Emulator) -> None:
    with pytest.raises(InvalidInput, match="`reserialise` is not a log-push quirk"):
        escpush_emulator._server.set_logpush_quirks('{"reserialise": true}')
    with pytest.raises(InvalidInput, match="field_drift"):
        escpush_emulator.logpush_quirks(field_drift={"http_requests": "everything"})  # type: ignore[dict-item]
    escpush_emulator.logpush_quirks(field_drift={"http_requests": {"add": {"Brand": "new"}}})
    logpush = escpush_emulator.client().zone(ZONE).logpush
    assert "Brand" in logpush.fields("http_requests")
    escpush_emulator.logpush_quirks()
    assert "Brand" not in logpush.fields("http_requests")
    assert escpush_emulator.ownership_challenges() == []


# Issue 22, items 7, 9 and 10: the job limit foreseen, the write order, the one filter
# equivalence, and no credential in a serialised job.


def test_apply_refuses_more_jobs_than_a_zone_holds_before_writing(escpush_emulator: Emulator) -> None:
    logpush = escpush_emulator.client().zone(ZONE).logpush
    doc = {"jobs": [{"name": f"j{i}", "dataset": "http_requests", "destination_conf": S3} for i in range(5)]}
    for dry_run in (True, False):
        with pytest.raises(InvalidInput) as exc:
            logpush.apply(doc, dry_run=dry_run)
        message = str(exc.value)
        assert f"zone {ZONE}" in message and "5 log-push jobs" in message, message
        assert "at most 4" in message and "exceeded max jobs allowed" in message, message
        assert "nothing was sent" in message, message
    assert writes(escpush_emulator) == [] and logpush.jobs() == []
    # One job at a time, too: ensure_job on a full zone is refused before it writes.
    for i in range(4):
        logpush.create_job(destination_conf=S3, dataset="http_requests", name=f"j{i}")
    escpush_emulator.clear_requests()
    with pytest.raises(InvalidInput, match="at most 4") as exc:
        logpush.ensure_job(name="fifth", dataset="http_requests", destination_conf=S3)
    assert "5 log-push jobs" in str(exc.value)
    assert writes(escpush_emulator) == []
    assert logpush.ensure_job(name="j0", dataset="http_requests", destination_conf=S3)["action"] == "unchanged"


def test_the_account_limit_is_per_dataset_as_documented(escpush_emulator: Emulator) -> None:
    logpush = escpush_emulator.client().account(ACCOUNT).logpush
    R2 = f"r2://bucket/dlp?account-id=acc0123456789&access-key-id=key0123456789&secret-access-key={SECRET}"
    # Only DLP forensic copies have a documented account limit (4); other datasets do not.
    many = {"jobs": [{"name": f"dns{i}", "dataset": "gateway_dns", "destination_conf": R2} for i in range(5)]}
    assert [j["done"] for j in logpush.apply(many)["jobs"]] == [True] * 5
    dlp = {"jobs": [{"name": f"dlp{i}", "dataset": "dlp_forensic_copies", "destination_conf": R2} for i in range(5)]}
    escpush_emulator.clear_requests()
    with pytest.raises(InvalidInput, match=f"account {ACCOUNT} would hold 5 log-push jobs of dlp_forensic_copies"):
        logpush.apply(dlp)
    assert writes(escpush_emulator) == []
    # The emulator refuses the fifth with the same rule and the documented message.
    for i in range(4):
        logpush.create_job(destination_conf=R2, dataset="dlp_forensic_copies", name=f"dlp{i}")
    with pytest.raises(ApiError, match="creating a new job is not allowed: exceeded max jobs allowed"):
        logpush.create_job(destination_conf=R2, dataset="dlp_forensic_copies", name="dlp4")


def test_apply_creates_before_it_deletes_so_a_failed_creation_loses_no_job(escpush_emulator: Emulator) -> None:
    logpush = escpush_emulator.client().zone(ZONE).logpush
    old = logpush.create_job(destination_conf=S3, dataset="http_requests", name="old")
    renamed = {"jobs": [{"name": "new", "dataset": "http_requests", "destination_conf": S3}]}
    escpush_emulator.clear_requests()
    escpush_emulator.fail_next(delay=0)  # the list
    escpush_emulator.fail_next(status=400)  # the creation of `new`
    with pytest.raises(ApiError) as exc:
        logpush.apply(renamed, prune=True)
    assert [j["name"] for j in logpush.jobs()] == ["old"], "the old job is still there"
    assert writes(escpush_emulator) == [f"POST /client/v4/zones/{ZONE}/logpush/jobs"]
    message = str(exc.value)
    assert "injected fault" in message and "nothing was written before it" in message, message
    assert f"not sent: delete `old` (job {old['id']})" in message, message
    assert [(j["action"], j["done"]) for j in exc.value.plan["jobs"]] == [("create", False), ("delete", False)]
    # Without a failure: the creation, then the deletion.
    escpush_emulator.clear_requests()
    done = logpush.apply(renamed, prune=True)
    assert [(j["action"], j["done"]) for j in done["jobs"]] == [("create", True), ("delete", True)]
    assert writes(escpush_emulator) == [
        f"POST /client/v4/zones/{ZONE}/logpush/jobs",
        f"DELETE /client/v4/zones/{ZONE}/logpush/jobs/{old['id']}",
    ]


def test_a_failure_part_way_says_what_was_written_before_it(escpush_emulator: Emulator) -> None:
    logpush = escpush_emulator.client().zone(ZONE).logpush
    keep = logpush.create_job(destination_conf=S3, dataset="http_requests", name="keep")
    doc = {
        "jobs": [
            {"name": "keep", "dataset": "http_requests", "destination_conf": S3, "enabled": True},
            {"name": "a", "dataset": "http_requests", "destination_conf": S3},
            {"name": "b", "dataset": "http_requests", "destination_conf": S3},
        ]
    }
    escpush_emulator.fail_next(delay=0)  # the list
    escpush_emulator.fail_next(delay=0)  # the update of `keep`
    escpush_emulator.fail_next(delay=0)  # the creation of `a`
    escpush_emulator.fail_next(status=400)  # the creation of `b`
    with pytest.raises(ApiError) as exc:
        logpush.apply(doc)
    message = str(exc.value)
    created = next(j for j in logpush.jobs() if j["name"] == "a")
    assert f"before it, apply updated `keep` (job {keep['id']}) and created `a` (job {created['id']})" in message
    assert "not sent: " not in message and "creating `b`" in message, message
    assert [(j["name"], j["done"]) for j in exc.value.plan["jobs"]] == [("keep", True), ("a", True), ("b", False)]
    assert SECRET not in message and SECRET not in json.dumps(exc.value.plan)


def test_ensure_job_and_apply_use_the_exact_filter_equivalence(escpush_emulator: Emulator) -> None:
    logpush = escpush_emulator.client().zone(ZONE).logpush
    stored = 'ClientCountry == "us"'
    wanted = 'ClientCountry == "us" or (ClientCountry == "us" and EdgeResponseStatus >= 500)'
    assert Filter.parse_any(wanted).equivalent(stored, "http_requests"), "what `filter diff` decides"
    spec: dict[str, Any] = {"name": "us", "dataset": "http_requests", "destination_conf": S3}
    created = logpush.ensure_job(**spec, filter=stored)
    escpush_emulator.clear_requests()
    again = logpush.ensure_job(**spec, filter=wanted)
    assert (again["action"], again["id"], again["changes"]) == ("unchanged", created["id"], [])
    plan = logpush.apply({"jobs": [{**spec, "filter": wanted}]}, dry_run=True)
    assert [j["action"] for j in plan["jobs"]] == ["unchanged"]
    assert writes(escpush_emulator) == []
    # A filter that means something else is still an update.
    other = logpush.ensure_job(**spec, filter='ClientCountry == "us" or EdgeResponseStatus >= 500')
    assert other["action"] == "updated" and [c["field"] for c in other["changes"]] == ["filter"]


def test_a_serialised_job_holds_no_credential(escpush_emulator: Emulator) -> None:
    import pickle

    logpush = escpush_emulator.client().zone(ZONE).logpush
    logpush.ownership_challenge(S3)
    challenge = escpush_emulator.written_challenge(S3, zone=ZONE)
    job = logpush.create_job(destination_conf=S3, dataset="http_requests", name="j", ownership_challenge=challenge)
    ensured = logpush.ensure_job(name="j", dataset="http_requests", destination_conf=S3, enabled=True)
    listed = logpush.jobs()
    for shown in (
        json.dumps(job),
        json.dumps(dict(job)),
        json.dumps(ensured),
        json.dumps(ensured["job"]),
        json.dumps(listed),
        json.dumps(logpush.job(job["id"])),
        repr(list(job.items())) + repr(list(job.values())) + repr(job.copy()),
        pickle.dumps(job).decode("latin-1"),
        pickle.dumps(ensured).decode("latin-1"),
    ):
        assert SECRET not in shown and challenge not in shown, shown
    masked = "s3://bucket/logs?region=us-east-1&access-key-id=***&secret-access-key=***"
    # The record never holds the challenge (issue 24: neither the schema nor the SDK has it).
    assert job["destination_conf"] == masked and "ownership_challenge" not in job
    # The real values stay at hand, asked for by name.
    assert job.reveal()["destination_conf"] == S3
    assert ensured["job"].reveal()["destination_conf"] == S3
    # A masked destination sent back is refused, not stored as a broken job.
    escpush_emulator.clear_requests()
    with pytest.raises(InvalidInput, match=r"destination_conf.*\*\*\*.*reveal\(\)"):
        logpush.create_job(destination_conf=job["destination_conf"], dataset="http_requests")
    with pytest.raises(InvalidInput, match=r"ownership_challenge.*\*\*\*"):
        shown = Job({"ownership_challenge": challenge})["ownership_challenge"]
        logpush.update_job(job["id"], ownership_challenge=shown)
    assert writes(escpush_emulator) == []
