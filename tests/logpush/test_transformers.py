"""Transformers (issue 36): ``account.logpush.transformers`` against the emulator, the typed
``Transformer`` record, versions and associated jobs, a job's ``transformer_id``; and every
documented refusal (transformers.mdx, API errors and Limits; SDK 5.9), refused by escpush's
client before it sends the request AND by the emulator (raw HTTP), each naming its rule and
its source."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from engines import need
from escpush import ApiError, InvalidInput, Transformer
from escpush.testing import Emulator

ACCOUNT = "01a7362d577a6c3019a474fd6f485823"
ZONE = "023e105f4ecef8ad9ca31a8372d0c353"
HTTP = "https://logs.example.com/in"
SQL = "SELECT ClientIP, RayID FROM http_requests WHERE EdgeResponseStatus >= 400"
DNS_SQL = "SELECT QueryName FROM gateway_dns"
BIG = "SELECT ClientIP FROM http_requests WHERE ClientRequestPath = '" + "x" * 10_240 + "'"


def raw(emu: Emulator, method: str, path: str, body: Any = None) -> tuple[int, Any]:
    """A request escpush's client would not send, straight to the emulator."""
    request = urllib.request.Request(
        f"{emu.base_url}/accounts/{ACCOUNT}/{path}",
        method=method,
        data=None if body is None else json.dumps(body).encode(),
        headers={"X-Auth-Key": emu.api_key, "X-Auth-Email": emu.email, "Content-Type": "application/json"},
    )
    try:
        with urllib.request.urlopen(request) as answer:
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read())


def sent(emu: Emulator) -> list[tuple[str, str]]:
    return [(r["method"], r["path"].split("/logpush/", 1)[-1]) for r in emu.requests()]


def test_a_transformer_lives_through_its_versions_and_jobs(escpush_emulator: Emulator) -> None:
    logpush = escpush_emulator.client().account(ACCOUNT).logpush
    t = logpush.transformers.create(name="errors", code=DNS_SQL, description="dns names")
    assert isinstance(t, Transformer)
    assert (t.name, t.description, t.dataset, t.job_ids) == ("errors", "dns names", "gateway_dns", [])
    assert repr(t) == f"Transformer(id={t.id}, name='errors', dataset='gateway_dns', jobs=[])"
    assert set(t.to_dict()) == {"id", "name", "description", "dataset", "associated_jobs", "created_at", "updated_at"}
    # Every save of the SQL is a new version; a rename is not; a description left out is cleared.
    logpush.transformers.update(t.id, name="renamed", description="kept")
    assert [v["version"] for v in logpush.transformers.versions(t.id)] == [1]
    u = logpush.transformers.update(t.id, name="renamed", code="SELECT QueryName, SrcIP FROM gateway_dns")
    assert u.description is None and u.name == "renamed"
    versions = logpush.transformers.versions(t.id)
    assert [v["version"] for v in versions] == [1, 2]
    assert logpush.transformers.versions(t.id, limit=1) == versions[1:]
    assert logpush.transformers.content(t.id) == "SELECT QueryName, SrcIP FROM gateway_dns"
    assert logpush.transformers.content(t.id, version_id=versions[0]["id"]) == DNS_SQL
    # Attach by transformer_id, see the job on the transformer, detach with None, then delete.
    job = logpush.create_job(destination_conf=HTTP, dataset="gateway_dns", transformer_id=t.id)
    assert job["transformer_id"] == t.id
    assert logpush.transformers.get(t.id).job_ids == [job["id"]]
    assert logpush.transformers.get(t.id).associated_jobs == [
        {"id": job["id"], "name": None, "object_tag": ACCOUNT, "object_type": "account"}
    ]
    logpush.update_job(job["id"], transformer_id=None)
    assert logpush.transformers.get(t.id).job_ids == []
    assert logpush.transformers.delete(t.id) == t.id
    assert logpush.transformers.list() == []


def test_a_transformer_runs_its_stored_sql_on_local_logs(escpush_emulator: Emulator, tmp_path: Path) -> None:
    need("datafusion")
    transformers = escpush_emulator.client().account(ACCOUNT).logpush.transformers
    sample = tmp_path / "sample.ndjson"
    records = [
        {"ClientIP": f"203.0.113.{i}", "RayID": f"r{i}", "EdgeResponseStatus": 200 + 100 * (i % 4)} for i in range(40)
    ]
    sample.write_text("".join(json.dumps(r) + "\n" for r in records))
    t = transformers.create(name="errors", code=SQL)
    run = t.run(sample)
    assert run.records == [
        {"ClientIP": r["ClientIP"], "RayID": r["RayID"]} for r in records if r["EdgeResponseStatus"] >= 400
    ]
    # The latest version by default; an earlier one by its id. The record's SQL is fetched each time.
    transformers.update(t.id, name="errors", code="SELECT RayID FROM http_requests WHERE EdgeResponseStatus >= 500")
    first = transformers.versions(t.id)[0]["id"]
    assert t.run(sample).delivered == sum(r["EdgeResponseStatus"] >= 500 for r in records)
    assert t.run(sample, version_id=first).records == run.records
    out = tmp_path / "out.ndjson"
    assert t.run(sample, output=out).output == str(out) and len(out.read_text().splitlines()) == 10
    # Equal records stay equal whatever account they came from.
    assert transformers.get(t.id) == transformers.list()[0]


def test_preview_runs_the_sql_on_one_record(escpush_emulator: Emulator) -> None:
    transformers = escpush_emulator.client().account(ACCOUNT).logpush.transformers
    record = {"ClientIP": "203.0.113.42", "RayID": "8e2a", "EdgeResponseStatus": 502}
    assert transformers.preview(SQL, record) == [{"ClientIP": "203.0.113.42", "RayID": "8e2a"}]
    assert transformers.preview(SQL, {**record, "EdgeResponseStatus": 200}) == []


def test_transformers_are_an_accounts(escpush_emulator: Emulator) -> None:
    with pytest.raises(InvalidInput, match="transformers belong to an account"):
        escpush_emulator.client().zone(ZONE).logpush.transformers  # noqa: B018


# -- every documented refusal, by the client (nothing sent) and by the emulator ---------------------

CREATIONS = [
    # (body, status, the words of the rule, its source)
    ({"code": SQL}, 400, "missing required field: name", "transformers.mdx, API errors"),
    ({"name": "n"}, 400, "missing required field: code", "transformers.mdx, API errors"),
    ({"name": "n", "code": ""}, 400, "missing required field: code", "transformers.mdx, API errors"),
    ({"name": "n" * 256, "code": SQL}, 400, "more than the 255", "transformers.mdx, Limits"),
    ({"name": "n", "code": SQL, "description": "d" * 4097}, 400, "more than the 4096", "transformers.mdx, Limits"),
    ({"name": "n", "code": BIG}, 413, "more than the 10240", "transformers.mdx"),
    ({"name": "n", "code": "SELECT Nope FROM http_requests"}, 400, "Nope", "transformers.mdx"),
    ({"name": "n", "code": f"{SQL} ORDER BY ClientIP"}, 400, "ORDER BY", "transformers.mdx"),
]


@pytest.mark.parametrize(("body", "status", "words", "source"), CREATIONS, ids=[c[2][:28] for c in CREATIONS])
def test_a_creation_the_api_refuses_is_refused_before_sending(
    escpush_emulator: Emulator, body: dict[str, str], status: int, words: str, source: str
) -> None:
    transformers = escpush_emulator.client().account(ACCOUNT).logpush.transformers
    with pytest.raises(InvalidInput) as err:
        transformers.create(name=body.get("name", ""), code=body.get("code", ""), description=body.get("description"))
    assert words in str(err.value) and source in str(err.value)
    assert sent(escpush_emulator) == []


@pytest.mark.forges_requests  # bodies escpush's client refuses to send
@pytest.mark.parametrize(("body", "status", "words", "source"), CREATIONS, ids=[c[2][:28] for c in CREATIONS])
def test_the_emulator_refuses_the_same_creations(
    escpush_emulator: Emulator, body: dict[str, str], status: int, words: str, source: str
) -> None:
    code, answer = raw(escpush_emulator, "POST", "logpush/transformers", body)
    message = answer["errors"][0]["message"]
    assert code == status and words in message and source in message
    # An update checks name, description and code alike, and needs a name (SDK 5.9).
    created = escpush_emulator.client().account(ACCOUNT).logpush.transformers.create(name="ok", code=SQL)
    update = {**body} if "name" in body else {"code": SQL}
    code, answer = raw(escpush_emulator, "PUT", f"logpush/transformers/{created.id}", update)
    if "code" not in body and "name" in body:  # {"name": "n"} is a valid update (the SQL unchanged)
        assert code == 200
    else:
        assert code == status and words in answer["errors"][0]["message"]


def test_an_update_the_api_refuses_is_refused_before_sending(escpush_emulator: Emulator) -> None:
    transformers = escpush_emulator.client().account(ACCOUNT).logpush.transformers
    t = transformers.create(name="ok", code=SQL)
    escpush_emulator.clear_requests()
    for kwargs, words in (
        ({"name": ""}, "missing required field: name"),
        ({"name": "n" * 256}, "more than the 255"),
        ({"name": "n", "code": BIG}, "more than the 10240"),
        ({"name": "n", "description": "d" * 4097}, "more than the 4096"),
    ):
        with pytest.raises(InvalidInput, match=words):
            transformers.update(t.id, **kwargs)
    assert sent(escpush_emulator) == []


def test_a_job_names_a_transformer_of_its_account_and_dataset(escpush_emulator: Emulator) -> None:
    logpush = escpush_emulator.client().account(ACCOUNT).logpush
    dns = logpush.transformers.create(name="dns", code=DNS_SQL)
    escpush_emulator.clear_requests()
    with pytest.raises(InvalidInput, match=r"transformer 999 not found for this account \(transformers.mdx"):
        logpush.create_job(destination_conf=HTTP, dataset="gateway_dns", transformer_id=999)
    with pytest.raises(
        InvalidInput,
        match=rf'transformer {dns.id} dataset "gateway_dns" does not match job dataset "gateway_http" \(transformers',
    ):
        logpush.create_job(destination_conf=HTTP, dataset="gateway_http", transformer_id=dns.id)
    # Only ndjson jobs take one: refused before anything is sent.
    with pytest.raises(InvalidInput, match=r'output_type "csv" takes no transformer.*transformers.mdx, Before you'):
        logpush.create_job(
            destination_conf=HTTP, dataset="gateway_dns", transformer_id=dns.id, output_options={"output_type": "csv"}
        )
    assert [m for m, _ in sent(escpush_emulator)] == ["GET", "GET"]  # the transformer read, no job sent
    job = logpush.create_job(destination_conf=HTTP, dataset="gateway_http")
    with pytest.raises(InvalidInput, match="does not match job dataset"):
        logpush.update_job(job["id"], transformer_id=dns.id)
    assert logpush.job(job["id"]).get("transformer_id") is None


@pytest.mark.forges_requests  # job bodies escpush's client refuses to send
def test_the_emulator_refuses_the_same_jobs(escpush_emulator: Emulator) -> None:
    dns = escpush_emulator.client().account(ACCOUNT).logpush.transformers.create(name="dns", code=DNS_SQL)
    for body, words in (
        ({"dataset": "gateway_dns", "transformer_id": 999}, "transformer 999 not found for this account"),
        (
            {"dataset": "gateway_http", "transformer_id": dns.id},
            f'transformer {dns.id} dataset "gateway_dns" does not match job dataset "gateway_http"',
        ),
        (
            {"dataset": "gateway_dns", "transformer_id": dns.id, "output_options": {"output_type": "csv"}},
            'output_type "csv" takes no transformer',
        ),
    ):
        code, answer = raw(escpush_emulator, "POST", "logpush/jobs", {"destination_conf": HTTP, **body})
        message = answer["errors"][0]["message"]
        assert code == 400 and words in message and "transformers.mdx" in message, message
    assert escpush_emulator.client().account(ACCOUNT).logpush.jobs() == []


def test_a_referenced_transformer_cannot_be_deleted(escpush_emulator: Emulator) -> None:
    logpush = escpush_emulator.client().account(ACCOUNT).logpush
    dns = logpush.transformers.create(name="dns", code=DNS_SQL)
    job = logpush.create_job(destination_conf=HTTP, dataset="gateway_dns", transformer_id=dns.id)
    escpush_emulator.clear_requests()
    with pytest.raises(InvalidInput, match=rf"transformer {dns.id} is referenced by job\(s\) {job['id']}.*SDK 5.9"):
        logpush.transformers.delete(dns.id)
    assert [m for m, _ in sent(escpush_emulator)] == ["GET"]  # no DELETE sent


@pytest.mark.forges_requests  # a DELETE escpush's client refuses to send
def test_the_emulator_refuses_deleting_a_referenced_transformer(escpush_emulator: Emulator) -> None:
    logpush = escpush_emulator.client().account(ACCOUNT).logpush
    dns = logpush.transformers.create(name="dns", code=DNS_SQL)
    logpush.create_job(destination_conf=HTTP, dataset="gateway_dns", transformer_id=dns.id)
    code, answer = raw(escpush_emulator, "DELETE", f"logpush/transformers/{dns.id}")
    assert code == 409 and "is referenced by job(s)" in answer["errors"][0]["message"]
    assert [t.id for t in logpush.transformers.list()] == [dns.id]


def test_an_account_without_the_feature_is_answered_403(escpush_emulator: Emulator) -> None:
    # The one refusal a client cannot foresee: the account's entitlement is the API's to say.
    escpush_emulator.logpush_quirks(transformers_unavailable=True)
    transformers = escpush_emulator.client().account(ACCOUNT).logpush.transformers
    with pytest.raises(ApiError, match="transformer feature is not available for this account") as err:
        transformers.list()
    assert err.value.status == 403
    escpush_emulator.logpush_quirks()
    assert transformers.list() == []


def test_transformer_id_is_a_job_field_of_ensure_apply_and_export(escpush_emulator: Emulator) -> None:
    logpush = escpush_emulator.client().account(ACCOUNT).logpush
    dns = logpush.transformers.create(name="dns", code=DNS_SQL)
    made = logpush.ensure_job(name="dns", dataset="gateway_dns", destination_conf=HTTP, transformer_id=dns.id)
    assert made["action"] == "created" and made["job"]["transformer_id"] == dns.id
    again = logpush.ensure_job(name="dns", dataset="gateway_dns", destination_conf=HTTP, transformer_id=dns.id)
    assert again["action"] == "unchanged"
    exported = logpush.export(format="toml")
    assert f"transformer_id = {dns.id}" in exported
    # The provider's v5 schema has no transformer_id: a comment, Terraform leaves it as it is.
    terraform = logpush.export(format="terraform")
    assert f"#   transformer_id = {dns.id}" in terraform
    # apply of the exported document changes nothing; detaching is a change of one field.
    document = json.loads(logpush.export(format="json"))
    assert document["jobs"][0]["transformer_id"] == dns.id
    assert [e["action"] for e in logpush.apply(document)["jobs"]] == ["unchanged"]
    detached = logpush.ensure_job(name="dns", dataset="gateway_dns", destination_conf=HTTP, transformer_id=None)
    assert detached["action"] == "updated" and detached["job"].get("transformer_id") is None
