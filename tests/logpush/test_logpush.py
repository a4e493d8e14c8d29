"""Log-push job creation from Python, end to end against the emulator on loopback."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Any

import cloudflare
import pytest

from escpush import ApiError, Filter, FilterError, InvalidInput, LogpullOptions, ServerError, field
from escpush.testing import Emulator

ZONE = "023e105f4ecef8ad9ca31a8372d0c353"
ACCOUNT = "01a7362d577a6c3019a474fd6f485823"
# An S3 bucket: a job to it needs an ownership challenge (logpush-ownership-challenge.mdx),
# unless its destination carries an access key and its secret, as S3 does.
BUCKET = "s3://bucket/logs?region=us-east-1"
S3 = "s3://bucket/logs?region=us-east-1&access-key-id=AKID-TEST&secret-access-key=SAK-TEST"
ERRORS = (field("ClientRequestHost").ends_with(".example.com") & (field("EdgeResponseStatus") >= 500)) | field(
    "ClientCountry"
).is_in(["cn", "ru"])


def test_create_read_back_and_list(escpush_emulator: Emulator) -> None:
    zone = escpush_emulator.client().zone(ZONE)
    options = LogpullOptions(["ClientIP", "EdgeResponseStatus"], timestamps="rfc3339")
    # The documented flow for a bucket: the API writes a challenge into it, the job carries it.
    zone.logpush.ownership_challenge(BUCKET)
    token = escpush_emulator.written_challenge(BUCKET, zone=ZONE)
    job = zone.logpush.create_job(
        destination_conf=BUCKET,
        dataset="http_requests",
        name="errors",
        filter=ERRORS,
        logpull_options=options,
        ownership_challenge=token,
    )
    assert "ownership_challenge" not in job, "a record never holds it"
    assert job["filter"] == ERRORS.to_json()
    assert Filter.parse(job["filter"]) == ERRORS
    assert job["logpull_options"] == "fields=ClientIP,EdgeResponseStatus&timestamps=rfc3339"
    assert (job["name"], job["dataset"], job["destination_conf"]) == ("errors", "http_requests", BUCKET)
    assert zone.logpush.job(job["id"]) == job
    assert zone.logpush.jobs() == [job]
    [sent] = [r for r in escpush_emulator.requests() if r["path"].endswith("/logpush/jobs") and r["method"] == "POST"]
    assert isinstance(sent["body"]["filter"], str), "the filter travels as a string"
    assert json.loads(sent["body"]["filter"]) == ERRORS.to_dict()
    assert sent["body"]["filter"] == ERRORS.to_json(), "holding the canonical filter"
    assert sent["headers"]["content-type"] == "application/json"


def test_filter_and_options_as_text_and_extra_fields(escpush_emulator: Emulator) -> None:
    account = escpush_emulator.client().account(ACCOUNT)
    quoted = json.dumps('{"where": {"key": "QueryName", "operator": "endsWith", "value": ".example.com"}}')
    job = account.logpush.create_job(
        destination_conf="r2://logs/dns?account-id=a&access-key-id=k&secret-access-key=s3cr3t-value",
        dataset="gateway_dns",
        filter=quoted,
        logpull_options="fields=QueryName,Datetime&timestamps=unix",
        enabled=True,
        frequency="low",
        max_upload_records=1000,
    )
    assert "ownership_challenge" not in job
    assert job["filter"] == '{"where":{"key":"QueryName","operator":"endsWith","value":".example.com"}}'
    assert (job["enabled"], job["frequency"], job["max_upload_records"]) == (True, "low", 1000)
    assert account.logpush.jobs()[0]["id"] == job["id"]
    for log in (escpush_emulator.requests(), escpush_emulator.state()):
        assert "s3cr3t-value" not in json.dumps(log)
    assert repr(account.logpush) == f"Logpush(account='{ACCOUNT}')"


BAD: list[tuple[dict[str, Any], type[Exception], str, str]] = [
    ({"destination_conf": ""}, InvalidInput, "destination_conf", "a job needs a destination"),
    ({"destination_conf": "s3://bucket/logs"}, InvalidInput, "destination_conf", "names its region"),
    ({"destination_conf": "ftp://host/x"}, InvalidInput, "destination_conf", "is not a destination scheme"),
    ({"dataset": "http_request"}, InvalidInput, "dataset", "did you mean `http_requests`?"),
    ({"dataset": "gateway_dns"}, InvalidInput, "dataset", "is an account dataset: use it on an account, not on a zone"),
    (
        {"logpull_options": "fields=ClientIP,ClientIPP"},
        InvalidInput,
        "logpull_options.fields[1]",
        "`ClientIPP` is not a field of http_requests; did you mean `ClientIP`?",
    ),
    ({"logpull_options": "fields=ClientIP&timestamps=iso"}, InvalidInput, "logpull_options.timestamps", "unix"),
    ({"filter": "{}"}, FilterError, "filter", "the filter has no `where` member"),
    ({"filter": {"key": "A"}}, FilterError, "", "the filter has no `where` member"),
    (
        {"filter": field("ClientIP").is_in(["1"]) | field("ClientIP").is_in([str(i) for i in range(400)])},
        FilterError,
        "filter",
        "the limit is 1000",
    ),
    (
        {"filter": field("EdgeResponseStatus").starts_with("5")},
        FilterError,
        "filter.where.operator",
        "`startsWith` does not apply to `EdgeResponseStatus`",
    ),
    ({"filter": field("Nope") == "x"}, FilterError, "filter.where.key", "is not a field of http_requests"),
    ({"frequncy": "high"}, InvalidInput, "frequncy", "did you mean `frequency`?"),
    ({"max_upload_bytes": "big"}, InvalidInput, "max_upload_bytes", "takes a non-negative integer"),
    ({"logpull_options": 5}, InvalidInput, "", "give an escpush.LogpullOptions or its query string"),
]


@pytest.mark.parametrize(("change", "error", "path", "message"), BAD)
def test_every_mistake_is_refused_and_nothing_is_sent(
    escpush_emulator: Emulator, change: dict[str, Any], error: type[Exception], path: str, message: str
) -> None:
    args: dict[str, Any] = {"destination_conf": S3, "dataset": "http_requests", "filter": ERRORS}
    args.update(change)
    zone = escpush_emulator.client().zone(ZONE)
    with pytest.raises(error) as exc:
        zone.logpush.create_job(**args)
    assert message in str(exc.value)
    problems = exc.value.errors()  # type: ignore[attr-defined]
    if problems:
        assert any(p["path"] == path and message in p["message"] for p in problems), problems
    assert escpush_emulator.requests() == [], "nothing was sent"


def test_every_problem_at_once(escpush_emulator: Emulator) -> None:
    zone = escpush_emulator.client().zone(ZONE)
    with pytest.raises(InvalidInput) as exc:
        zone.logpush.create_job(
            destination_conf="s3://b",
            dataset="http_requests",
            logpull_options="fields=Nope",
            filter=field("EdgeResponseStatus").starts_with("5"),
        )
    assert [p["path"] for p in exc.value.errors()] == [
        "destination_conf",
        "logpull_options.fields[0]",
        "filter.where.operator",
    ]
    assert escpush_emulator.requests() == []


def test_limits_are_configurable(escpush_emulator: Emulator) -> None:
    big = field("ClientIP").is_in([f"10.0.0.{i}" for i in range(120)])
    zone = escpush_emulator.client().zone(ZONE)
    with pytest.raises(FilterError, match="the limit is 1000"):
        zone.logpush.create_job(destination_conf=S3, dataset="http_requests", filter=big)
    assert escpush_emulator.requests() == []
    # Raised limits let the request go; the API (here the emulator) still applies its own.
    with pytest.raises(ApiError) as exc:
        zone.logpush.create_job(destination_conf=S3, dataset="http_requests", filter=big, max_bytes=4000)
    assert exc.value.status == 400
    assert "the limit is 1000" in exc.value.errors[0]["message"]
    assert len(escpush_emulator.requests()) == 1
    small = field("ClientIP").is_in([f"10.0.0.{i}" for i in range(31)])
    job = zone.logpush.create_job(destination_conf=S3, dataset="http_requests", filter=small, max_operators=1)
    assert Filter.parse(job["filter"]) == small


def test_a_creation_is_not_retried(escpush_emulator: Emulator) -> None:
    zone = escpush_emulator.client(max_retries=3).zone(ZONE)
    escpush_emulator.fail_next(status=503)
    with pytest.raises(ServerError) as exc:
        zone.logpush.create_job(destination_conf=S3, dataset="http_requests")
    assert exc.value.status == 503
    assert len(escpush_emulator.requests()) == 1
    escpush_emulator.fail_next(status=503)
    assert zone.logpush.jobs() == []
    assert len(escpush_emulator.requests()) == 3, "reads are retried"


def test_the_emulator_validates_what_it_receives(escpush_emulator: Emulator) -> None:
    body = {"dataset": "http_requests", "destination_conf": S3, "filter": '{"where":{"key":"Nope","operator":"eq"}}'}
    req = urllib.request.Request(
        f"{escpush_emulator.base_url}/zones/{ZONE}/logpush/jobs",
        data=json.dumps(body).encode(),
        method="POST",
        headers={
            "Content-Type": "application/json",
            "X-Auth-Key": escpush_emulator.api_key,
            "X-Auth-Email": escpush_emulator.email,
        },
    )
    with pytest.raises(urllib.error.HTTPError) as exc:
        urllib.request.urlopen(req, timeout=5)
    assert exc.value.code == 400
    envelope = json.loads(exc.value.read())
    assert envelope["success"] is False
    assert [e["message"] for e in envelope["errors"]] == [
        'filter.where: the condition has no `value`; a condition is {"key", "operator", "value"}'
    ]
    client = escpush_emulator.client()
    with pytest.raises(Exception) as missing:
        client.zone(ZONE).logpush.job(12345)
    assert getattr(missing.value, "status", None) == 404


def sdk(emu: Emulator) -> cloudflare.Cloudflare:
    return cloudflare.Cloudflare(api_key=emu.api_key, api_email=emu.email, base_url=emu.base_url, max_retries=0)


def test_the_official_sdk_and_escpush_see_the_same_jobs(escpush_emulator: Emulator) -> None:
    cf = sdk(escpush_emulator)
    zone = escpush_emulator.client().zone(ZONE)
    # The official SDK creates a job on the emulator; escpush reads it back.
    made = cf.logpush.jobs.create(
        zone_id=ZONE,
        destination_conf=S3,
        dataset="http_requests",
        name="from-sdk",
        filter=ERRORS.to_json(),
        logpull_options="fields=ClientIP&timestamps=rfc3339",
    )
    assert made is not None and made.id is not None
    seen = zone.logpush.job(made.id)
    assert seen["filter"] == made.filter == ERRORS.to_json()
    assert Filter.parse(seen["filter"]) == ERRORS
    # escpush creates a job; the SDK reads it back and sees the same filter string.
    ours = zone.logpush.create_job(destination_conf=S3, dataset="http_requests", name="from-escpush", filter=ERRORS)
    theirs = cf.logpush.jobs.get(ours["id"], zone_id=ZONE)
    assert theirs is not None
    assert theirs.filter == ours["filter"] == ERRORS.to_json()
    assert theirs.name == "from-escpush"
    listed = cf.logpush.jobs.list(zone_id=ZONE)
    assert sorted(j.id for j in listed if j is not None) == sorted(j["id"] for j in zone.logpush.jobs())


S3_SECRET = "s3://bucket/logs?region=us-east-1&access-key-id=AKID-interop&secret-access-key=SAK-interop"


def test_the_official_sdk_and_escpush_update_and_delete_each_others_jobs(escpush_emulator: Emulator) -> None:
    cf = sdk(escpush_emulator)
    zone = escpush_emulator.client().zone(ZONE)
    made = cf.logpush.jobs.create(
        zone_id=ZONE,
        destination_conf=S3_SECRET,
        dataset="http_requests",
        name="sdk",
        filter=ERRORS.to_json(),
        frequency="low",
    )
    assert made is not None and made.id is not None
    # escpush updates the SDK's job; the SDK reads the change, and what escpush left alone.
    zone.logpush.update_job(made.id, enabled=True)
    seen = cf.logpush.jobs.get(made.id, zone_id=ZONE)
    assert seen is not None and seen.enabled is True and seen.frequency == "low" and seen.filter == ERRORS.to_json()
    # The SDK updates escpush's job; escpush reads the filter back as a Filter.
    ours = zone.logpush.create_job(destination_conf=S3_SECRET, dataset="http_requests", name="ours")
    cf.logpush.jobs.update(ours["id"], zone_id=ZONE, filter=ERRORS.to_json(), destination_conf=S3_SECRET)
    assert zone.logpush.job(ours["id"]).parsed_filter == ERRORS
    # Each deletes the other's job.
    assert zone.logpush.delete_job(made.id) == made.id
    cf.logpush.jobs.delete(ours["id"], zone_id=ZONE)
    assert zone.logpush.jobs() == []
    assert cf.logpush.jobs.list(zone_id=ZONE).result == []
    with pytest.raises(cloudflare.NotFoundError):
        cf.logpush.jobs.delete(ours["id"], zone_id=ZONE)
    assert "SAK-interop" not in json.dumps([escpush_emulator.requests(), escpush_emulator.state()])


def test_redact_destination_conf_masks_every_credential() -> None:
    from escpush import redact_destination_conf

    assert (
        redact_destination_conf("s3://logs/http?region=us-east-1&access-key-id=AKIA1&secret-access-key=s3cr3t")
        == "s3://logs/http?region=us-east-1&access-key-id=***&secret-access-key=***"
    )
    assert redact_destination_conf("https://me:pw@logs.example.com/in?header_X=1") == (
        "https://***@logs.example.com/in?header_X=***"
    )
    assert redact_destination_conf("garbage with s3cr3t") == "***"


def test_a_creation_cut_after_sending_says_the_job_may_exist(escpush_emulator: Emulator) -> None:
    from escpush import TransportError

    zone = escpush_emulator.client(max_retries=3).zone(ZONE)
    escpush_emulator.fail_next(drop=True)
    with pytest.raises(TransportError) as exc:
        zone.logpush.create_job(destination_conf=S3, dataset="http_requests", name="edge-errors")
    message = str(exc.value)
    assert "may have taken effect" in message and "the job may exist" in message
    assert f"list the jobs of zone {ZONE}" in message and "`edge-errors`" in message
    assert len(escpush_emulator.requests()) == 1, "not retried"
    escpush_emulator.fail_next(drop=True)
    with pytest.raises(TransportError, match="of dataset `http_requests`"):
        zone.logpush.create_job(destination_conf=S3, dataset="http_requests")


NOT_A_JOB = [
    pytest.param(204, b"", id="204"),
    pytest.param(200, b"", id="empty-200"),
    pytest.param(200, b"null", id="null"),
    pytest.param(200, b"[1]", id="a-list"),
    pytest.param(200, b'{"success": true, "errors": [], "messages": []}', id="envelope-without-result"),
]


@pytest.mark.parametrize(("status", "body"), NOT_A_JOB)
def test_job_answers_that_are_not_jobs_are_transport_errors(
    escpush_emulator: Emulator, status: int, body: bytes
) -> None:
    from escpush import TransportError

    logpush = escpush_emulator.client().zone(ZONE).logpush
    for call in [
        lambda: logpush.create_job(destination_conf=S3, dataset="http_requests"),
        lambda: logpush.job(1),
    ]:
        escpush_emulator.fail_next(status=status, body=body)
        with pytest.raises(TransportError, match="malformed response"):
            call()


@pytest.mark.parametrize("body", [b"{}", b'"jobs"', b"[1]", b"[null]", b'[{"id": 1}, 2]'])
def test_job_lists_that_are_not_lists_of_jobs_are_transport_errors(escpush_emulator: Emulator, body: bytes) -> None:
    from escpush import TransportError

    escpush_emulator.fail_next(body=body)
    with pytest.raises(TransportError, match="malformed response"):
        escpush_emulator.client().zone(ZONE).logpush.jobs()
    escpush_emulator.fail_next(body=b"null")
    assert escpush_emulator.client().zone(ZONE).logpush.jobs() == [], "the API's null list: no jobs"


def test_secrets_of_a_job_echoed_by_the_server_are_scrubbed(escpush_emulator: Emulator) -> None:
    conf = "s3://bucket/logs?region=us-east-1&access-key-id=AKIDECHO&secret-access-key=SAKECHO"
    escpush_emulator.fail_next(echo=True, status=400)
    with pytest.raises(ApiError) as exc:
        escpush_emulator.client().zone(ZONE).logpush.create_job(
            destination_conf=conf, dataset="http_requests", ownership_challenge="challenge-echo-123"
        )
    text = f"{exc.value} {exc.value!r} {exc.value.errors!r}"
    assert "cannot process POST" in text and "region=us-east-1" in text
    for leaked in ["AKIDECHO", "SAKECHO", "challenge-echo-123", escpush_emulator.api_key]:
        assert leaked not in text


def test_a_short_credential_does_not_garble_the_servers_message(escpush_emulator: Emulator) -> None:
    # Issue 23: a one-letter parameter value was masked inside every word ("cre***ting *** new
    # job"). A value that short is masked wherever it stands alone (a server may quote it
    # anywhere: "key k"), never inside a longer word (the "ea" of "creating").
    conf = "r2://bucket/logs?account-id=ea&access-key-id=k&secret-access-key=SAK-long-secret"
    message = "creating a new job is not allowed: exceeded max jobs allowed (account-id=ea, key k)"
    body = json.dumps({"success": False, "errors": [{"code": 1004, "message": message}], "result": None})
    escpush_emulator.fail_next(status=400, body=body)
    with pytest.raises(ApiError) as exc:
        escpush_emulator.client().zone(ZONE).logpush.create_job(destination_conf=conf, dataset="http_requests")
    assert exc.value.errors[0]["message"] == (
        "creating a new job is not allowed: exceeded max jobs allowed (account-id=***, key ***)"
    )
    escpush_emulator.fail_next(echo=True, status=400)
    with pytest.raises(ApiError) as exc:
        escpush_emulator.client().zone(ZONE).logpush.create_job(destination_conf=conf, dataset="http_requests")
    text = str(exc.value)
    assert "account-id=***&access-key-id=***&secret-access-key=***" in text, text
    assert "SAK-long-secret" not in text and "cannot process POST" in text


def test_redacted_is_cores_rule() -> None:
    from escpush import Job

    opaque = object()
    job = Job(
        {
            "id": 1,
            "destination_conf": "s3://b/p?region=r&secret-access-key=k",
            "ownership_challenge": opaque,
            "name": opaque,
            "frequency": None,
        }
    )
    shown = job.redacted()
    assert shown["destination_conf"] == "s3://b/p?region=r&secret-access-key=***"
    assert shown["ownership_challenge"] == "***", "a value core masks is masked whatever its type"
    assert shown["name"] is opaque and shown["frequency"] is None and type(shown) is dict
    assert job["ownership_challenge"] == "***", "the job holds what it shows"
    assert job.reveal()["ownership_challenge"] is opaque and job.reveal()["name"] is opaque


def test_python_reads_the_redaction_rules_from_core(escpush_emulator: Emulator) -> None:
    from escpush._escpush import _JOB_FIELDS, _MASK, _SECRET_BODY_KEYS, _SECRET_HEADERS

    secret_fields = {f["name"] for f in _JOB_FIELDS if f["secret"]}
    assert secret_fields == {"ownership_challenge"} and set(_SECRET_BODY_KEYS) == {"with_secret", *secret_fields}
    zone = escpush_emulator.client().zone(ZONE)
    zone.esc.set_secret("abc")
    zone.logpush.ownership_challenge(BUCKET)
    token = escpush_emulator.written_challenge(BUCKET, zone=ZONE)
    zone.logpush.create_job(destination_conf=BUCKET, dataset="http_requests", ownership_challenge=token)
    for logged in escpush_emulator.requests():
        for header in _SECRET_HEADERS:
            assert logged["headers"].get(header, _MASK) == _MASK, header
        for key in _SECRET_BODY_KEYS:
            assert (logged["body"] or {}).get(key, _MASK) == _MASK, key
    assert zone.esc.status()._repr_html_().count(f"<code>{_MASK}</code>") == 1


def test_the_default_limits_are_cores() -> None:
    from escpush import Logpush

    text = Logpush.create_job.__text_signature__ or ""
    assert "max_operators" in text and "30" not in text and "1000" not in text, text


def test_integer_arguments_out_of_range_are_invalid_input(escpush_emulator: Emulator) -> None:
    logpush = escpush_emulator.client().zone(ZONE).logpush
    with pytest.raises(InvalidInput, match=r"invalid job id: must be from 1 to \d+ \(got -1\)"):
        logpush.job(-1)
    with pytest.raises(InvalidInput, match="invalid job id"):
        logpush.job(0)
    for name in ["max_operators", "max_bytes"]:
        with pytest.raises(InvalidInput, match=f"invalid {name}: must be from 0"):
            logpush.create_job(destination_conf=S3, dataset="http_requests", **{name: -1})
    assert escpush_emulator.requests() == []


def test_a_text_form_filter_problem_keeps_its_position_under_the_field(escpush_emulator: Emulator) -> None:
    logpush = escpush_emulator.client().zone("z1").logpush
    with pytest.raises(FilterError) as info:
        logpush.create_job(
            destination_conf=S3,
            dataset="http_requests",
            filter="EdgeResponseStatus >== 500",
        )
    [problem] = info.value.errors()
    assert problem["path"] == "filter, line 1, column 20"
    assert problem["code"] == "unknown_operator" and "did you mean `>=`" in problem["message"]
    assert escpush_emulator.requests() == []
