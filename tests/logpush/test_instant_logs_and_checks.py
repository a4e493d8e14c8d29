"""The endpoints issue 24 adds or checks on both sides: ``validate/origin``, a zone's Instant
Logs jobs (``/zones/{id}/logpush/edge/jobs``), ``validate/destination`` and
``validate/destination/exists``: through escpush (refusing before sending what the API would
refuse), through the official SDK (``cloudflare`` 5.9) against the emulator, and the CLI."""

from __future__ import annotations

import json

import cloudflare
import pytest

from cli_support import Cli
from escpush import ApiError, Filter, FilterError, InvalidInput, LogpullOptions, field
from escpush.cli import EXIT_CHECK_FAILED, EXIT_OK, EXIT_USAGE
from escpush.testing import Emulator

ZONE = "023e105f4ecef8ad9ca31a8372d0c353"
ACCOUNT = "01a7362d577a6c3019a474fd6f485823"
S3 = "s3://bucket/logs?region=us-east-1"
# The docs' example (api-configuration.mdx, Options).
DOCS_OPTIONS = "fields=RayID,ClientIP,EdgeStartTimestamp&timestamps=rfc3339&CVE-2021-44228=true"
FIELDS = "ClientIP,ClientRequestHost,ClientRequestMethod,ClientRequestURI,EdgeEndTimestamp,EdgeResponseBytes"


def sdk(emu: Emulator) -> cloudflare.Cloudflare:
    return cloudflare.Cloudflare(api_token=emu.api_token, base_url=emu.base_url, max_retries=0)


def sent(emu: Emulator) -> list[tuple[str, str, object]]:
    return [(r["method"], r["path"], r["body"]) for r in emu.requests()]


# -- validate/origin ----------------------------------------------------------------------------


def test_validate_origin_sends_what_the_docs_send(escpush_emulator: Emulator) -> None:
    logpush = escpush_emulator.client().zone(ZONE).logpush
    assert logpush.validate_origin(DOCS_OPTIONS, dataset="http_requests") == ""
    assert logpush.validate_origin(LogpullOptions(["ClientIP"], timestamps="unix")) == ""
    assert logpush.validate_origin(None) == ""
    path = f"/client/v4/zones/{ZONE}/logpush/validate/origin"
    assert sent(escpush_emulator) == [
        ("POST", path, {"logpull_options": DOCS_OPTIONS, "dataset": "http_requests"}),
        ("POST", path, {"logpull_options": "fields=ClientIP&timestamps=unix"}),
        ("POST", path, {"logpull_options": None}),
    ]


def test_validate_origin_refuses_before_sending(escpush_emulator: Emulator) -> None:
    logpush = escpush_emulator.client().zone(ZONE).logpush
    with pytest.raises(InvalidInput, match=r"logpull_options.fields\[1\]: `ClientIPP` is not a field of http_requests"):
        logpush.validate_origin("fields=RayID,ClientIPP", dataset="http_requests")
    with pytest.raises(InvalidInput, match="`gateway_dns` is an account dataset: use it on an account, not on a zone"):
        logpush.validate_origin(DOCS_OPTIONS, dataset="gateway_dns")
    with pytest.raises(InvalidInput, match="timestamps"):
        logpush.validate_origin("fields=RayID&timestamps=weekly")
    assert escpush_emulator.requests() == []
    # The API's `valid: false` raises ApiError with its message.
    escpush_emulator.fail_next(
        body=json.dumps({"success": True, "errors": [], "messages": [], "result": {"valid": False, "message": "no"}})
    )
    with pytest.raises(ApiError, match="the logpull options is not valid: no"):
        logpush.validate_origin(DOCS_OPTIONS)


def test_the_sdk_validates_origins_against_the_emulator(escpush_emulator: Emulator) -> None:
    cf = sdk(escpush_emulator)
    answer = cf.logpush.validate.origin(zone_id=ZONE, logpull_options=DOCS_OPTIONS)
    assert answer is not None and (answer.valid, answer.message) == (True, "")
    answer = cf.logpush.validate.origin(account_id=ACCOUNT, logpull_options=None)
    assert answer is not None and answer.valid is True
    # The docs' `dataset` key (not in the SDK's parameters): the fields are checked against it.
    answer = cf.logpush.validate.origin(
        zone_id=ZONE, logpull_options="fields=RayID,Nope", extra_body={"dataset": "http_requests"}
    )
    assert answer is not None and answer.valid is False
    assert "`Nope` is not a field of http_requests" in (answer.message or "")
    with pytest.raises(cloudflare.BadRequestError):
        cf.logpush.validate.origin(zone_id=ZONE, logpull_options=None, extra_body={"dataset": "gateway_dns"})


# -- validate/destination and validate/destination/exists, on both sides -------------------------


def test_the_sdk_and_escpush_check_destinations_alike(escpush_emulator: Emulator) -> None:
    cf = sdk(escpush_emulator)
    zone = escpush_emulator.client().zone(ZONE)
    checked = cf.logpush.validate.destination(zone_id=ZONE, destination_conf=S3)
    assert checked is not None and (checked.valid, checked.message) == (True, "")
    assert zone.logpush.validate_destination(S3) == ""
    exists = cf.logpush.validate.destination_exists(zone_id=ZONE, destination_conf=S3)
    assert exists is not None and exists.exists is False
    assert zone.logpush.destination_exists(S3) is False
    zone.logpush.ownership_challenge(S3)  # an S3 job needs one (logpush-ownership-challenge.mdx)
    challenge = escpush_emulator.ownership_challenges()[-1]["challenge"]
    zone.logpush.create_job(destination_conf=S3, dataset="http_requests", ownership_challenge=challenge)
    exists = cf.logpush.validate.destination_exists(zone_id=ZONE, destination_conf=S3)
    assert exists is not None and exists.exists is True
    assert zone.logpush.destination_exists(S3) is True
    for method in ("destination", "destination_exists"):
        found = getattr(cf.logpush.validate, method)(account_id=ACCOUNT, destination_conf=S3)
        assert found is not None
    paths = [r["path"].rsplit("/logpush/", 1)[1] for r in escpush_emulator.requests() if r["method"] == "POST"]
    assert paths.count("validate/destination") == 3 and paths.count("validate/destination/exists") == 5


# -- Instant Logs -------------------------------------------------------------------------------


def test_instant_logs_sessions_through_escpush(escpush_emulator: Emulator) -> None:
    logpush = escpush_emulator.client().zone(ZONE).logpush
    assert logpush.instant_logs_jobs() == []
    session = logpush.create_instant_logs_job(
        fields=["ClientIP", "EdgeResponseStatus", "RayID"], filter=field("EdgeResponseStatus") >= 500, sample=10
    )
    assert session["destination_conf"] == f"wss://logs.cloudflare.com/instant-logs/ws/sessions/{session['session_id']}"
    assert (session["fields"], session["sample"]) == ("ClientIP,EdgeResponseStatus,RayID", 10)
    assert logpush.instant_logs_jobs() == [session]
    [post] = [r for r in escpush_emulator.requests() if r["method"] == "POST"]
    assert post["path"] == f"/client/v4/zones/{ZONE}/logpush/edge/jobs"
    assert post["body"] == {
        "fields": "ClientIP,EdgeResponseStatus,RayID",
        "filter": '{"where":{"key":"EdgeResponseStatus","operator":"geq","value":"500"}}',
        "sample": 10,
    }
    # One active session per zone (instant-logs.mdx): a second is refused by the emulator.
    with pytest.raises(ApiError, match="one active Instant Logs session"):
        logpush.create_instant_logs_job(fields="ClientIP")


def test_instant_logs_refused_before_sending(escpush_emulator: Emulator) -> None:
    client = escpush_emulator.client()
    logpush = client.zone(ZONE).logpush
    with pytest.raises(InvalidInput, match="exists on zones only"):
        client.account(ACCOUNT).logpush.instant_logs_jobs()
    with pytest.raises(InvalidInput, match="exists on zones only"):
        client.account(ACCOUNT).logpush.create_instant_logs_job()
    with pytest.raises(InvalidInput) as exc:
        logpush.create_instant_logs_job(fields="ClientIP,ClientIPP,,ClientIP", sample=0)
    assert [(p["path"], p["code"]) for p in exc.value.errors()] == [
        ("fields[1]", "unknown_field"),
        ("fields[2]", "invalid_value"),
        ("fields[3]", "invalid_value"),
        ("sample", "invalid_value"),
    ]
    # The filter is checked as a job's, on http_requests (the one dataset of Instant Logs).
    with pytest.raises(FilterError, match="`QueryName` is not a field of http_requests"):
        logpush.create_instant_logs_job(filter='QueryName == "example.com"')
    with pytest.raises(InvalidInput, match="at most 18446744073709551615"):
        logpush.create_instant_logs_job(sample=2**70)
    assert escpush_emulator.requests() == []


# instant-logs.mdx's filter examples, as the page writes them (`neq`; `in` with "200,201").
PAGE_NEQ = '{"where":{"and":[{"key":"ClientCountry","operator":"neq","value":"ca"}]}}'
PAGE_IN = '{"where":{"and":[{"key":"EdgeResponseStatus","operator":"in","value":"200,201"}]}}'


def test_instant_logs_filters_as_the_page_and_the_sdk_write_them(escpush_emulator: Emulator) -> None:
    """Issue 33, item 13: the page's examples and the official SDK's (`neq`) were refused by
    the client and by the emulator."""
    cf = sdk(escpush_emulator)
    job = cf.logpush.edge.create(zone_id=ZONE, fields=FIELDS, sample=1, filter=PAGE_NEQ)
    assert job is not None and job.filter == PAGE_NEQ  # kept as given
    logpush = escpush_emulator.client().zone("0" * 32).logpush
    session = logpush.create_instant_logs_job(fields="ClientIP", filter=PAGE_IN)
    # Sent as the Filters page writes it.
    assert session["filter"] == '{"where":{"and":[{"key":"EdgeResponseStatus","operator":"in","value":["200","201"]}]}}'
    with pytest.raises(FilterError, match="unknown operator `nq`"):
        escpush_emulator.client().zone("1" * 32).logpush.create_instant_logs_job(filter=PAGE_NEQ.replace("neq", "nq"))
    # A log-push job keeps the Filters page's names.
    with pytest.raises(FilterError, match="unknown operator `neq`"):
        Filter.parse(PAGE_NEQ)


@pytest.mark.forges_requests  # the schema's old Instant Logs path, on purpose
def test_the_sdk_opens_and_lists_instant_logs_jobs_on_the_emulator(escpush_emulator: Emulator) -> None:
    cf = sdk(escpush_emulator)
    # The docs' request, through the SDK (which sends no `kind`).
    job = cf.logpush.edge.create(zone_id=ZONE, fields=FIELDS, sample=100, filter="")
    assert job is not None and job.session_id and job.destination_conf
    assert job.destination_conf == f"wss://logs.cloudflare.com/instant-logs/ws/sessions/{job.session_id}"
    assert (job.fields, job.sample, job.filter) == (FIELDS, 100, "")
    listed = list(cf.logpush.edge.get(zone_id=ZONE))
    assert [j.session_id for j in listed if j is not None] == [job.session_id]
    assert escpush_emulator.client().zone(ZONE).logpush.instant_logs_jobs()[0]["session_id"] == job.session_id
    # What the API would refuse, the SDK sees refused: a second active session, a field of
    # another dataset, a filter that does not hold on http_requests.
    with pytest.raises(cloudflare.BadRequestError, match="one active Instant Logs session"):
        cf.logpush.edge.create(zone_id=ZONE)
    other = "0" * 32
    with pytest.raises(cloudflare.BadRequestError, match="`QueryName` is not a field of http_requests"):
        cf.logpush.edge.create(zone_id=other, fields="QueryName")
    with pytest.raises(cloudflare.BadRequestError, match="where"):
        cf.logpush.edge.create(zone_id=other, filter="{}")
    assert list(cf.logpush.edge.get(zone_id=other)) == []
    # The schema's out-of-date path is not the API's any more (SDK 5.9, instant-logs.mdx).
    with pytest.raises(cloudflare.NotFoundError):
        cf.get(f"/zones/{ZONE}/logpush/edge", cast_to=object)


# -- the command line ---------------------------------------------------------------------------


def test_cli_checks(cli: Cli, api: Emulator) -> None:
    run = cli(
        "logpush", "validate-origin", "--zone", ZONE, "--logpull-options", DOCS_OPTIONS, "--dataset", "http_requests"
    )
    assert (run.code, run.out) == (EXIT_OK, "valid\n")
    run = cli(
        "logpush", "validate-origin", "--zone", ZONE, "--logpull-options", "fields=Nope", "--dataset", "http_requests"
    )
    assert run.code == EXIT_USAGE and "`Nope` is not a field of http_requests" in run.err
    run = cli("logpush", "validate-destination", "--zone", ZONE, "--destination-conf", S3, "--json")
    assert (run.code, run.json()) == (EXIT_OK, {"valid": True, "message": ""})
    api.fail_next(
        body=json.dumps(
            {"success": True, "errors": [], "messages": [], "result": {"valid": False, "message": "bucket is gone"}}
        )
    )
    run = cli("logpush", "validate-destination", "--zone", ZONE, "--destination-conf", S3)
    assert run.code == EXIT_CHECK_FAILED and "the destination is not valid: bucket is gone" in run.err
    run = cli("logpush", "destination-exists", "--account", ACCOUNT, "--destination-conf", "-", stdin=S3 + "\n")
    assert (run.code, run.out) == (EXIT_OK, f"no job of account {ACCOUNT} pushes there\n")
    secret = "s3://bucket/logs?region=us-east-1&secret-access-key=SAK-cli"
    run = cli("logpush", "destination-exists", "--zone", ZONE, "--destination-conf", secret, "--json")
    assert (run.code, run.json()) == (EXIT_OK, {"exists": False})
    assert "SAK-cli" not in run.out + run.err


def test_cli_instant_logs(cli: Cli, api: Emulator) -> None:
    run = cli("logpush", "instant-logs", "list", "--zone", ZONE)
    assert (run.code, run.out) == (EXIT_OK, f"no Instant Logs sessions on zone {ZONE}\n")
    run = cli(
        "logpush", "instant-logs", "create", "--zone", ZONE, "--fields", "ClientIP,RayID",
        "--filter", "EdgeResponseStatus >= 500", "--sample", "10", "--json",
    )  # fmt: skip
    assert run.code == EXIT_OK, run.err
    session = run.json()
    assert isinstance(session, dict) and session["destination_conf"].startswith("wss://")
    run = cli("logpush", "instant-logs", "list", "--zone", ZONE)
    assert run.code == EXIT_OK and f"listen on:  {session['destination_conf']}" in run.out
    assert "sample:     10" in run.out
    run = cli("logpush", "instant-logs", "create", "--account", ACCOUNT)
    assert run.code == EXIT_USAGE and "exists on zones only" in run.err
    run = cli("logpush", "instant-logs", "create", "--zone", ZONE, "--sample", "0")
    assert run.code == EXIT_USAGE and "`sample` takes 1 or more" in run.err
    run = cli("logpush", "instant-logs", "create", "--zone", ZONE)
    assert run.code == 3 and "one active Instant Logs session" in run.err
