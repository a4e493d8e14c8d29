"""Issue 24: a log-push job behaves as Cloudflare documents it, not only as the emulator reads
the seed. Each rule of docs/job-rules.md is exercised here through escpush (refused before
anything is sent, with the field named), against the emulator directly (it refuses the same
with core's own rules), and through the official SDK (``cloudflare`` 5.9) where it can send it.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Any

import cloudflare
import pytest

from escpush import ApiError, InvalidInput
from escpush.testing import Emulator

ZONE = "023e105f4ecef8ad9ca31a8372d0c353"
ACCOUNT = "01a7362d577a6c3019a474fd6f485823"
BUCKET = "s3://bucket/logs?region=us-east-1"
S3_KEYS = "s3://bucket/logs?region=us-east-1&access-key-id=AKID-RULES&secret-access-key=SAK-RULES"


def sdk(emu: Emulator) -> cloudflare.Cloudflare:
    return cloudflare.Cloudflare(api_key=emu.api_key, api_email=emu.email, base_url=emu.base_url, max_retries=0)


def raw(emu: Emulator, method: str, path: str, body: Any = None) -> tuple[int, Any]:
    """A request as any HTTP client sends it: (status, envelope)."""
    req = urllib.request.Request(
        f"{emu.base_url}{path}",
        data=None if body is None else json.dumps(body).encode(),
        method=method,
        headers={"Content-Type": "application/json", "X-Auth-Key": emu.api_key, "X-Auth-Email": emu.email},
    )
    try:
        with urllib.request.urlopen(req, timeout=5) as resp:
            return resp.status, json.loads(resp.read())
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read())


def messages(envelope: dict[str, Any]) -> str:
    return " ".join(e["message"] for e in envelope["errors"])


def written(emu: Emulator, destination: str, zone: str = ZONE) -> str:
    """The documented ownership flow: the API writes a token into the destination; a test reads it."""
    emu.client().zone(zone).logpush.ownership_challenge(destination)
    return emu.written_challenge(destination, zone=zone)


# -- update as the API does it ------------------------------------------------------------


def test_the_sdks_partial_update_changes_only_what_it_sends(escpush_emulator: Emulator) -> None:
    cf = sdk(escpush_emulator)
    made = cf.logpush.jobs.create(
        zone_id=ZONE,
        destination_conf=S3_KEYS,
        dataset="http_requests",
        name="partial",
        frequency="low",
        output_options={"field_names": ["ClientIP"], "timestamp_format": "rfc3339"},
    )
    assert made is not None and made.id is not None
    # Issue 24: the emulator answered 400 "a job needs a destination" to this.
    updated = cf.logpush.jobs.update(made.id, zone_id=ZONE, enabled=True)
    assert updated is not None and updated.enabled is True
    assert (updated.name, updated.frequency) == ("partial", "low")
    assert updated.output_options is not None and updated.output_options.field_names == ["ClientIP"]
    [put] = [r for r in escpush_emulator.requests() if r["method"] == "PUT"]
    assert put["body"] == {"enabled": True}


def test_escpush_sends_only_the_changed_fields_and_never_kind(escpush_emulator: Emulator) -> None:
    logpush = escpush_emulator.client().zone(ZONE).logpush
    job = logpush.create_job(destination_conf=S3_KEYS, dataset="http_requests", name="a", kind="edge")
    logpush.update_job(job["id"], name="b", kind="edge", dataset="http_requests")
    [put] = [r for r in escpush_emulator.requests() if r["method"] == "PUT"]
    assert put["body"] == {"name": "b"}, "kind and dataset equal to the stored ones are not sent"
    with pytest.raises(InvalidInput, match="kind cannot change"):
        logpush.update_job(job["id"], kind="")


def test_the_docs_create_then_enable_example(escpush_emulator: Emulator) -> None:
    # example-logpush-curl.mdx: ownership challenge, create (disabled by default), then
    # PUT {"enabled": true}; the records never hold the challenge.
    cf = sdk(escpush_emulator)
    challenge = cf.logpush.ownership.create(zone_id=ZONE, destination_conf=BUCKET)
    assert challenge is not None and challenge.filename
    token = escpush_emulator.written_challenge(BUCKET, zone=ZONE)
    valid = cf.logpush.ownership.validate(zone_id=ZONE, destination_conf=BUCKET, ownership_challenge=token)
    assert valid is not None and valid.valid is True
    made = cf.logpush.jobs.create(
        zone_id=ZONE,
        destination_conf=BUCKET,
        dataset="http_requests",
        name="example.com",
        logpull_options="fields=RayID,ClientIP,EdgeStartTimestamp&timestamps=rfc3339",
        ownership_challenge=token,
    )
    assert made is not None and made.id is not None and made.enabled is False
    enabled = cf.logpush.jobs.update(made.id, zone_id=ZONE, enabled=True)
    assert enabled is not None and enabled.enabled is True and enabled.destination_conf == BUCKET
    status, envelope = raw(escpush_emulator, "GET", f"/zones/{ZONE}/logpush/jobs/{made.id}")
    assert status == 200
    # The SDK's LogpushJob's 16 keys and filter, never the challenge.
    assert sorted(envelope["result"]) == sorted(
        [
            "id",
            "dataset",
            "destination_conf",
            "enabled",
            "error_message",
            "filter_attack_traffic",
            "frequency",
            "kind",
            "last_complete",
            "last_error",
            "logpull_options",
            "max_upload_bytes",
            "max_upload_interval_seconds",
            "max_upload_records",
            "name",
            "output_options",
            "filter",
        ]
    )
    assert token not in json.dumps([escpush_emulator.requests(), escpush_emulator.state()])


def test_a_new_destination_needs_its_challenge_on_update(escpush_emulator: Emulator) -> None:
    logpush = escpush_emulator.client().zone(ZONE).logpush
    job = logpush.create_job(destination_conf=S3_KEYS, dataset="http_requests")
    escpush_emulator.clear_requests()
    with pytest.raises(InvalidInput) as exc:
        logpush.update_job(job["id"], destination_conf="gs://bucket/logs")
    assert [p["path"] for p in exc.value.errors()] == ["ownership_challenge"]
    assert [r["method"] for r in escpush_emulator.requests()] == ["GET"], "refused before the PUT"
    # The emulator refuses the same PUT from any client.
    status, envelope = raw(
        escpush_emulator, "PUT", f"/zones/{ZONE}/logpush/jobs/{job['id']}", {"destination_conf": "gs://bucket/logs"}
    )
    assert status == 400 and "ownership_challenge" in messages(envelope)
    token = written(escpush_emulator, "gs://bucket/logs")
    moved = logpush.update_job(job["id"], destination_conf="gs://bucket/logs", ownership_challenge=token)
    assert moved["destination_conf"] == "gs://bucket/logs" and "ownership_challenge" not in moved
    # A challenge the API did not write is refused.
    with pytest.raises(ApiError, match="ownership_challenge: not the challenge written"):
        logpush.update_job(job["id"], destination_conf="azure://c/logs?sig=x", ownership_challenge=token)


@pytest.mark.forges_requests  # a PUT of `dataset` (raw), which escpush never sends
def test_the_emulator_refuses_a_change_of_dataset_or_kind(escpush_emulator: Emulator) -> None:
    cf = sdk(escpush_emulator)
    made = cf.logpush.jobs.create(zone_id=ZONE, destination_conf=S3_KEYS, dataset="http_requests")
    assert made is not None and made.id is not None
    with pytest.raises(cloudflare.BadRequestError, match="kind cannot change"):
        cf.logpush.jobs.update(made.id, zone_id=ZONE, kind="edge")
    status, envelope = raw(
        escpush_emulator, "PUT", f"/zones/{ZONE}/logpush/jobs/{made.id}", {"dataset": "firewall_events"}
    )
    assert status == 400 and "dataset cannot change" in messages(envelope)
    status, envelope = raw(escpush_emulator, "PUT", f"/zones/{ZONE}/logpush/jobs/{made.id}", {"kind": ""})
    assert status == 200, "the same kind is no change"


# -- refused though documented: now accepted ------------------------------------------------

DOCUMENTED = [
    # enable-destinations/*.mdx, each with its credential parameters
    "bq://projects/p/datasets/d/tables/t?credentials=base64:eyJTRUNSRVQiOiAidmFsdWUifQ",
    "kinesis://stream?region=us-east-1&sts-assume-role-arn=arn:aws:iam::123456789012:role/logpush&sts-external-id=EXT",
    "kinesis://stream?region=us-east-1&access-key-id=AKID-K&secret-access-key=SAK-KINESIS",
    "ibmcl://i.ingress.us-south.logs.cloud.ibm.com/logs/v1/singles?ibm_api_key=IBM-KEY-SECRET",
    "sentinelone://ingest.us1.sentinelone.net/services/collector/raw?sourcetype=cf&header_Authorization=Bearer%20S1",
    "datadog://http-intake.logs.datadoghq.com/api/v2/logs?header_DD-API-KEY=DD-SECRET&ddsource=cloudflare",
    "splunk://splunk.example.com:8088/services/collector/raw?channel=ch&insecure-skip-verify=false"
    "&sourcetype=cloudflare:json&header_Authorization=Splunk%20SPLUNK-SECRET",
    "https://log-api.newrelic.com/log/v1?Api-Key=NR-SECRET&format=cloudflare",
    "https://logs.example.com/in?header_Authorization=Basic%20HTTP-SECRET",
    "r2://bucket/logs?account-id=acc&access-key-id=AKID-R2&secret-access-key=SAK-R2",
    "s3://bucket/logs?region=auto&access-key-id=AKID-S3C&secret-access-key=SAK-S3C&endpoint=sfo2.digitaloceanspaces.com",
    S3_KEYS,
]


@pytest.mark.parametrize("destination", DOCUMENTED)
def test_the_documented_destinations_work(escpush_emulator: Emulator, destination: str) -> None:
    # Issue 24: bq://, kinesis://, ibmcl:// (and sentinelone://) were refused.
    logpush = escpush_emulator.client().zone(ZONE).logpush
    job = logpush.create_job(destination_conf=destination, dataset="http_requests", name="dest")
    assert job.reveal()["destination_conf"] == destination
    made = sdk(escpush_emulator).logpush.jobs.create(
        zone_id=ZONE, destination_conf=destination, dataset="http_requests"
    )
    assert made is not None and made.destination_conf == destination
    shown = json.dumps([job, escpush_emulator.requests(), escpush_emulator.state()])
    for secret in ("SECRET", "SAK-", "IBM-KEY", "eyJTRUNSRVQi", "Bearer%20S1", "EXT"):
        assert secret not in shown, secret


@pytest.mark.parametrize("destination", [BUCKET, "gs://bucket/logs", "azure://container/logs?sv=1&sig=SIG"])
def test_destinations_that_need_a_challenge_are_refused_without_one(
    escpush_emulator: Emulator, destination: str
) -> None:
    # logpush-ownership-challenge.mdx: AWS S3 (unless keys), Google Cloud Storage, Azure, Sumo Logic.
    logpush = escpush_emulator.client().zone(ZONE).logpush
    with pytest.raises(InvalidInput) as exc:
        logpush.create_job(destination_conf=destination, dataset="http_requests")
    assert [p["path"] for p in exc.value.errors()] == ["ownership_challenge"]
    assert escpush_emulator.requests() == []
    with pytest.raises(cloudflare.BadRequestError, match="ownership_challenge"):
        sdk(escpush_emulator).logpush.jobs.create(zone_id=ZONE, destination_conf=destination, dataset="http_requests")
    token = written(escpush_emulator, destination)
    assert logpush.create_job(destination_conf=destination, dataset="http_requests", ownership_challenge=token)


def test_the_exists_check_takes_the_docs_bucket_without_a_region(escpush_emulator: Emulator) -> None:
    # api-configuration.mdx: {"destination_conf": "s3://foo"} -> {"exists": false}
    assert escpush_emulator.client().zone(ZONE).logpush.destination_exists("s3://foo") is False
    answer = sdk(escpush_emulator).logpush.validate.destination_exists(zone_id=ZONE, destination_conf="s3://foo")
    assert answer is not None and answer.exists is False


def test_frequency_and_kind_may_be_null_on_creation(escpush_emulator: Emulator) -> None:
    # Schema: logpush_frequency and logpush_kind are nullable; the SDK sends null for None.
    made = sdk(escpush_emulator).logpush.jobs.create(
        zone_id=ZONE,
        destination_conf=S3_KEYS,
        dataset="http_requests",
        frequency=None,
        kind=None,  # type: ignore[arg-type]
    )
    assert made is not None and made.frequency is None
    job = (
        escpush_emulator.client()
        .zone(ZONE)
        .logpush.create_job(destination_conf=S3_KEYS, dataset="http_requests", frequency=None, kind=None)
    )
    assert job["frequency"] is None and job["kind"] is None


# -- accepted though the API refuses: now refused, with the field named ----------------------

REFUSED: list[tuple[str, dict[str, Any], str, str]] = [
    ("http_requests", {"name": "my job"}, "name", "holds ` ` at character 3"),
    ("http_requests", {"name": "my_job"}, "name", "holds `_` at character 3"),
    ("http_requests", {"name": "a" * 513}, "name", "has 513 characters; it takes at most 512"),
    ("firewall_events", {"kind": "edge"}, "kind", '`kind` "edge" applies only to http_requests'),
    ("dns_logs", {"filter_attack_traffic": True}, "filter_attack_traffic", "applies only to http_requests"),
    ("http_requests", {"output_options": {"CVE-2021-4428": True}}, "output_options.CVE-2021-4428", "CVE-2021-44228"),
    ("http_requests", {"output_options": {"timestamp_format": "iso"}}, "output_options.timestamp_format", "rfc3339ms"),
    ("http_requests", {"output_options": {"sample_rate": 0}}, "output_options.sample_rate", "above 0"),
    (
        "http_requests",
        {"output_options": {"field_names": ["ClientIPP"]}},
        "output_options.field_names[0]",
        "did you mean `ClientIP`",
    ),
    (
        "http_requests",
        {"output_options": {"field_names": ["ClientIP"], "record_template": "ip={{ .ClientIP | printf }}"}},
        "output_options.record_template",
        "`{{ .ClientIP | printf }}` at character 4",
    ),
    ("http_requests", {"enabled": None}, "enabled", "cannot be null"),
]


@pytest.mark.forges_requests  # the refused bodies, raw, to the emulator
@pytest.mark.parametrize(("dataset", "fields", "path", "says"), REFUSED, ids=[r[2] for r in REFUSED])
def test_what_the_api_refuses_is_refused_before_sending(
    escpush_emulator: Emulator, dataset: str, fields: dict[str, Any], path: str, says: str
) -> None:
    logpush = escpush_emulator.client().zone(ZONE).logpush
    with pytest.raises(InvalidInput) as exc:
        logpush.create_job(destination_conf=S3_KEYS, dataset=dataset, **fields)
    assert [(p["path"], says in p["message"]) for p in exc.value.errors()] == [(path, True)], exc.value.errors()
    assert escpush_emulator.requests() == [], "nothing was sent"
    # The emulator refuses the same body from any client, naming the field.
    status, envelope = raw(
        escpush_emulator,
        "POST",
        f"/zones/{ZONE}/logpush/jobs",
        {"dataset": dataset, "destination_conf": S3_KEYS, **fields},
    )
    assert status == 400 and messages(envelope).startswith(f"{path}: ") and says in messages(envelope), envelope


@pytest.mark.forges_requests  # the refused bodies, through the SDK
def test_the_sdk_gets_the_same_refusals(escpush_emulator: Emulator) -> None:
    cf = sdk(escpush_emulator)
    with pytest.raises(cloudflare.BadRequestError, match="name: `name` holds ` `"):
        cf.logpush.jobs.create(zone_id=ZONE, destination_conf=S3_KEYS, dataset="http_requests", name="my job")
    with pytest.raises(cloudflare.BadRequestError, match='kind: `kind` "edge" applies only to http_requests'):
        cf.logpush.jobs.create(zone_id=ZONE, destination_conf=S3_KEYS, dataset="firewall_events", kind="edge")
    with pytest.raises(cloudflare.BadRequestError, match="filter_attack_traffic: `filter_attack_traffic` applies"):
        cf.logpush.jobs.create(
            account_id=ACCOUNT, destination_conf=S3_KEYS, dataset="gateway_dns", filter_attack_traffic=True
        )
    made = cf.logpush.jobs.create(
        zone_id=ZONE,
        destination_conf=S3_KEYS,
        dataset="http_requests",
        filter_attack_traffic=True,
        output_options={"cve_2021_44228": True, "field_names": ["ClientIP"], "timestamp_format": "rfc3339ms"},
    )
    assert made is not None and made.filter_attack_traffic is True
    with pytest.raises(cloudflare.BadRequestError, match=r"output_options\.field_names"):
        cf.logpush.jobs.update(made.id or 0, zone_id=ZONE, output_options={"field_names": ["QueryName"]})
