"""Schema conformance: escpush's client and emulator against Cloudflare's published log-push
schema (tests/data/cloudflare-logpush-openapi-2024-08-07.json), corrected by the explained
deviations of tests/conformance/deviations.py.

Every test's traffic is checked at its teardown (tests/conftest.py); this module holds the
dedicated scenario that drives every operation of the schema through the client, so that
conformance does not depend on what other tests happen to do, and the tests of the check
itself: the deviations each matter, and the check catches what it must.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

import pytest
from openapi_spec_validator import validate as validate_openapi

import conformance
import escpush
from conformance import DEVIATIONS, Checker
from conformance.check import SCHEMA_FILE, load_document
from conformance.tracker import TRACKER
from conformance.traffic import from_client, violations
from escpush.testing import Emulator

ZONE = "023e105f4ecef8ad9ca31a8372d0c353"
ACCOUNT = "01a7362d577a6c3019a474fd6f485823"
S3 = "s3://logs-bucket/http?region=us-east-1"
HTTPS = "https://logs.example.com/in?header_Authorization=Basic%20c2VjcmV0"
# The cut of Cloudflare's file, as embedded: a change of it is a change of the reference.
SCHEMA_SHA256 = "74d1f8c32a8c097cacc414ca3205eaeba5fa5a3e9665067480b0a44985dd8590"


def test_the_embedded_schema_is_the_published_cut() -> None:
    assert hashlib.sha256(SCHEMA_FILE.read_bytes()).hexdigest() == SCHEMA_SHA256
    document = load_document()
    assert document["openapi"] == "3.0.3"
    paths = [p for p in document["paths"] if "/logpush" in p]
    assert len(paths) == len(document["paths"]) == 17
    assert (SCHEMA_FILE.parent / "cloudflare-logpush-openapi-2024-08-07.md").read_text().count("8c9b6cfb") == 1


def test_the_corrected_schema_is_valid_openapi_and_the_published_one_is_not() -> None:
    validate_openapi(conformance.document())
    # The published file contradicts itself (`kind` defaults to "" outside its enum): the first
    # deviation is what makes it a valid document.
    with pytest.raises(Exception, match="'' is not one of \\['edge'\\]"):
        validate_openapi(load_document())


@pytest.mark.parametrize("deviation", DEVIATIONS, ids=[d.name for d in DEVIATIONS])
def test_each_deviation_matters(deviation: Any) -> None:
    without = Checker(conformance.document(without=deviation.name))
    request, answer = deviation.side == "request", deviation.side == "answer"
    before = without.check(deviation.witness, request=request, answer=answer)
    after = conformance.checker().check(deviation.witness, request=request, answer=answer)
    if deviation.effect == "loosens":
        assert before and not after, (before, after)
    else:
        assert after and not before, (before, after)
    assert deviation.source and deviation.schema_says and deviation.holds


def _entry(method: str, path: str, body: Any = None, **more: Any) -> dict[str, Any]:
    entry = {"method": method, "path": f"/client/v4{path}", "headers": {"user-agent": "escpush/0"}, "body": body}
    if body is not None:
        entry["headers"]["content-type"] = "application/json"
    return {**entry, **more}


def _ok(result: Any) -> dict[str, Any]:
    return {"success": True, "errors": [], "messages": [], "result": result}


JOB = {"id": 7, "dataset": "http_requests", "destination_conf": S3, "enabled": False, "kind": "", "name": None}
FAILURE = {"success": False, "errors": [{"code": 1004, "message": "no"}], "messages": [], "result": None}


@pytest.mark.parametrize(
    ("entry", "expected"),
    [
        (_entry("GET", f"/zones/{ZONE}/logpush/jobs/7", status=200, answer=_ok({**JOB, "secret": 1})), "'secret'"),
        (_entry("GET", f"/zones/{ZONE}/logpush/jobs/7", status=200, answer=_ok({**JOB, "enabled": "no"})), "boolean"),
        (_entry("GET", f"/zones/{ZONE}/logpush/jobs/7", status=200, answer={"result": JOB}), "'success'"),
        (
            _entry(
                "GET", f"/zones/{ZONE}/logpush/jobs", status=200, answer=_ok([{**JOB, "last_complete": "yesterday"}])
            ),
            "date-time",
        ),
        (_entry("POST", f"/zones/{ZONE}/logpush/jobs", {"destination_conf": "not a uri"}), "'uri'"),
        (_entry("POST", f"/zones/{ZONE}/logpush/jobs", {"dataset": "http_requests"}), "'destination_conf'"),
        (_entry("POST", f"/zones/{ZONE}/logpush/jobs"), "requires a JSON body"),
        (_entry("GET", f"/zones/{ZONE}/logpush/jobs", {"x": 1}), "takes no body"),
        (
            {**_entry("POST", f"/zones/{ZONE}/logpush/ownership", {"destination_conf": S3}), "headers": {}},
            "Content-Type",
        ),
        (_entry("GET", f"/zones/{ZONE}/logpush/jobs/0"), "path parameter job_id"),
        (_entry("GET", f"/zones/{'z' * 33}/logpush/jobs"), "path parameter zone_id"),
        (_entry("GET", f"/zones/{ZONE}/logpush/nothing"), "no such path"),
        (_entry("PATCH", f"/zones/{ZONE}/logpush/jobs"), "no PATCH on this path"),
        (_entry("GET", f"/zones/{ZONE}/logpush/jobs", status=500, answer=FAILURE), "status 500"),
        (_entry("GET", f"/zones/{ZONE}/logpush/jobs/7", status=404, answer=_ok(None)), "is not one of [False]"),
        (_entry("GET", f"/zones/{ZONE}/logpush/jobs/7", status=200, answer=None), "none was kept"),
        (_entry("POST", f"/zones/{ZONE}/disable_esc", {"always": False}), "not valid under any"),
        (_entry("GET", f"/zones/{ZONE}/disable_esc", status=200, answer=_ok({"always": True, "x": 1})), "'x'"),
        (
            _entry("POST", f"/zones/{ZONE}/logpush/jobs", {"destination_conf": S3, "output_options": {"x": 1}}),
            "'x' was unexpected",
        ),
    ],
)
def test_the_check_catches(entry: dict[str, Any], expected: str) -> None:
    found = conformance.checker().check(entry)
    assert any(expected in str(v) for v in found), [str(v) for v in found]


def test_the_check_passes_what_conforms() -> None:
    check = conformance.checker().check
    assert check(_entry("GET", f"/zones/{ZONE}/logpush/jobs/7", status=200, answer=_ok(JOB))) == []
    assert check(_entry("DELETE", f"/accounts/{ACCOUNT}/logpush/jobs/7", status=404, answer=FAILURE)) == []
    assert check(_entry("PUT", f"/zones/{ZONE}/disable_esc", status=405, answer=FAILURE), request=False) == []
    # The log masks a challenge; the check stands in for it.
    body = {"destination_conf": S3, "ownership_challenge": "***"}
    assert check(_entry("POST", f"/zones/{ZONE}/logpush/ownership/validate", body)) == []


def test_a_forging_test_has_only_its_clients_requests_checked() -> None:
    forged = _entry("POST", f"/zones/{ZONE}/disable_esc", {"always": False}, status=400, answer=FAILURE)
    forged["headers"]["user-agent"] = "Python-urllib/3"
    ours = _entry("POST", f"/zones/{ZONE}/disable_esc", {"always": "yes"}, status=400, answer=FAILURE)
    bad_answer = {**forged, "answer": _ok(None)}
    checker = conformance.checker()
    assert not from_client(forged) and from_client(ours)
    assert len(violations(checker, [forged, ours], forged=False)) == 2
    assert [v.side for v in violations(checker, [forged, ours], forged=True)] == ["request"]
    assert {v.side for v in violations(checker, [bad_answer], forged=True)} == {"answer"}


def test_the_log_keeps_answers_with_secrets_masked(escpush_emulator: Emulator) -> None:
    logpush = escpush_emulator.client().zone(ZONE).logpush
    logpush.create_job(destination_conf=HTTPS, dataset="http_requests")
    escpush_emulator.fail_next(status=503)
    with pytest.raises(escpush.ServerError):
        escpush_emulator.client(max_retries=0).zone(ZONE).logpush.jobs()
    created, faulted = escpush_emulator.requests()
    assert created["answer"]["result"]["destination_conf"] == "https://logs.example.com/in?header_Authorization=***"
    assert "c2VjcmV0" not in json.dumps(escpush_emulator.requests())
    assert faulted["fault"] == "status 503" and faulted["answer"] is None


def test_traffic_is_checked_even_when_a_test_clears_the_log() -> None:
    TRACKER.take()  # this test checks what it takes itself
    with Emulator() as emu:
        emu.client().zone(ZONE).esc.status()
        emu.clear_requests()
        emu.client().account(ACCOUNT).esc.status()
        emu.reset()
        emu.client().zone(ZONE).logpush.jobs()
    taken = TRACKER.take()
    assert [e["path"].rsplit("/", 2)[-2:] for e in taken] == [
        [ZONE, "disable_esc"],
        [ACCOUNT, "disable_esc"],
        ["logpush", "jobs"],
    ]
    assert violations(conformance.checker(), taken, forged=False) == []


def drive_every_operation(emu: Emulator) -> None:
    """Every operation of the schema, on a zone and on an account, through escpush's client:
    what a user's script does, successes and refusals alike."""
    client = emu.client()
    for scope, dataset, field in (
        (client.zone(ZONE), "http_requests", "ClientCountry"),
        (client.account(ACCOUNT), "gateway_dns", "QueryName"),
    ):
        esc = scope.esc
        esc.status()
        esc.disable()
        esc.set_secret("s3cr3t-for-testing")
        esc.enable()
        esc.status()
        logpush = scope.logpush
        assert field in logpush.fields(dataset)
        logpush.ownership_challenge(S3)
        token = emu.ownership_challenges()[-1]["challenge"]
        logpush.validate_ownership(S3, token)
        logpush.validate_destination(S3)
        assert logpush.destination_exists(S3) is False
        logpush.validate_origin(f"fields={field}&timestamps=rfc3339&CVE-2021-44228=true")
        logpush.validate_origin(None)
        job = logpush.create_job(
            destination_conf=S3,
            dataset=dataset,
            name="example.com",
            filter={"where": {"key": field, "operator": "eq", "value": "ca"}},
            ownership_challenge=token,
            enabled=False,
            kind="",
            max_upload_bytes=5_000_000,
            output_options={
                "field_names": [field],
                "timestamp_format": "rfc3339",
                "CVE-2021-44228": True,
                "output_type": "ndjson",
            },
        )
        assert logpush.destination_exists(S3) is True
        assert [j["id"] for j in logpush.jobs()] == [job["id"]]
        assert [j["id"] for j in logpush.jobs(dataset)] == [job["id"]]
        logpush.job(job["id"])
        logpush.update_job(job["id"], enabled=True, name="renamed.example.com")
        assert logpush.delete_job(job["id"]) == job["id"]
        with pytest.raises(escpush.NotFoundError):
            logpush.job(job["id"])
    zone = client.zone(ZONE).logpush
    session = zone.create_instant_logs_job(fields=["ClientIP", "RayID"], filter='ClientCountry == "ca"', sample=10)
    assert [j["session_id"] for j in zone.instant_logs_jobs()] == [session["session_id"]]
    # Transformers (account only), attached to a job and detached by its transformer_id.
    account = client.account(ACCOUNT).logpush
    transformers = account.transformers
    t = transformers.create(name="dns", code="SELECT QueryName FROM gateway_dns", description="d")
    assert [x.id for x in transformers.list()] == [t.id]
    transformers.preview("SELECT QueryName FROM gateway_dns", {"QueryName": "example.com"})
    transformers.update(t.id, name="dns2", code="SELECT QueryName, SrcIP FROM gateway_dns")
    assert [v["version"] for v in transformers.versions(t.id)] == [1, 2]
    assert "SrcIP" in transformers.content(t.id)
    job = account.create_job(destination_conf=S3, dataset="gateway_dns", ownership_challenge=token, transformer_id=t.id)
    assert transformers.get(t.id).job_ids == [job["id"]]
    account.update_job(job["id"], transformer_id=None)
    account.delete_job(job["id"])
    assert transformers.delete(t.id) == t.id


def test_every_operation_conforms(escpush_emulator: Emulator) -> None:
    drive_every_operation(escpush_emulator)
    checker = conformance.checker()
    entries = escpush_emulator.requests()
    assert entries and all(from_client(e) and checker.in_scope(e) for e in entries)
    exercised = {op.key for e in entries for op in [checker.operation(e["method"], e["path"][10:])[0]] if op}
    every = {op.key for op in checker.operations}
    assert every - exercised == set(), "an operation of the schema went undriven"
    assert all(e["status"] == 200 or e["status"] == 404 for e in entries)
    assert [str(v) for v in violations(checker, entries, forged=False)] == []


def test_the_demo_conforms(cli: Any) -> None:
    # `escpush demo` starts its own emulator: run in-process, its traffic is checked like any.
    run = cli("demo")
    assert run.code == 0 and "created job 1" in run.out
    assert TRACKER.waiting() > 0
