"""Issue 27: jobs kept in a jobs file or in Terraform beside the API.

- ``logpush export`` writes a jobs file (TOML, JSON) that ``apply --dry-run`` reads back as
  nothing to do, for every job shape the emulator holds (filters, output options, every
  destination kind, the other fields), on zones and accounts;
- ``--format terraform`` writes ``cloudflare_logpush_job`` resources that python-hcl2 (a
  parser of HashiCorp's HCL, not escpush's) reads back as the same jobs, field by field,
  with import blocks of the provider's documented id, and that ``apply`` reads too;
- no credential appears in any of it;
- ``logpush check-plan`` tells the three kinds of filter change apart on plan files in
  HashiCorp's JSON output format (tests/data/terraform/), with exit codes 0 and 1.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any, Callable

import hcl2
import pytest

from cli_support import Cli
from escpush import Filter, InvalidInput, check_terraform_plan
from escpush.testing import Emulator

PLANS = Path(__file__).resolve().parent.parent / "data" / "terraform"
ACCOUNT = "01a7362d577a6c3019a474fd6f485823"

# The v5 provider's output_options attribute of each key (schema.go of terraform-provider-cloudflare).
V5_OUTPUT_OPTIONS = {
    "batch_prefix", "batch_suffix", "cve_2021_44228", "field_delimiter", "field_names", "merge_subrequests",
    "output_type", "record_delimiter", "record_prefix", "record_suffix", "record_template", "sample_rate",
    "timestamp_format",
}  # fmt: skip

# The provider's deprecated attributes and their defaults (schema.go, v5.22.0): an export leaves
# them out at their default.
DEPRECATED_DEFAULTS = {"frequency": "high", "logpull_options": ""}

# Every destination kind escpush knows (core's DESTINATIONS), each with the credentials its
# docs put in destination_conf; those that need an ownership challenge get one.
DESTINATIONS = [
    "s3://bucket/http?region=us-east-1&access-key-id=AKID-T1&secret-access-key=SAK/T1+x=",
    "s3://bucket/challenged?region=eu-west-1&sse=AES256",
    "gs://bucket/logs/daily",
    "azure://container/path?sp=w&sv=2022&sig=AZ-SIG-T1%3D",
    "sumo://endpoint1.collection.sumologic.com/receiver/v1/http/SUMO-CODE-T1",
    "r2://bucket/logs?account-id=acc&access-key-id=AKID-R2T&secret-access-key=SAK-R2T",
    "https://user:HTTP-PW-T1@logs.example.com/in?header_Authorization=Basic%20HTTP-T1&tags=a,b",
    "datadog://http-intake.logs.datadoghq.com/api/v2/logs?header_DD-API-KEY=DD-T1&ddsource=cloudflare",
    "splunk://splunk.example.com:8088/services/collector/raw?channel=ch&insecure-skip-verify=false"
    "&sourcetype=cloudflare:json&header_Authorization=Splunk%20SPLUNK-T1",
    "bq://projects/p/datasets/d/tables/t?credentials=base64:BQ-T1",
    "kinesis://stream?region=us-east-1&sts-assume-role-arn=arn:aws:iam::1:role/r&sts-external-id=EXT-T1",
    "ibmcl://i.ingress.us-south.logs.cloud.ibm.com/logs/v1/singles?ibm_api_key=IBM-T1",
    "sentinelone://ingest.us1.sentinelone.net/services/collector/raw?sourcetype=cf&header_Authorization=Bearer%20S1-T1",
    "https://logs.example.com/bare?BARE-TOKEN-T1",  # a query part without `=`: a token whole
]

SECRETS = [
    "SAK/T1+x=", "AKID-T1", "AZ-SIG-T1", "SUMO-CODE-T1", "SAK-R2T", "AKID-R2T", "HTTP-PW-T1", "HTTP-T1",
    "DD-T1", "SPLUNK-T1", "BQ-T1", "EXT-T1", "IBM-T1", "S1-T1", "user:", "BARE-TOKEN-T1",
]  # fmt: skip

FILTERS: list[Any] = [
    None,
    "EdgeResponseStatus >= 500",
    '{"where": {"or": [{"key": "ClientRequestHost", "operator": "in", "value": ["a.example.com", "b\\"${x}%{y}"]},'
    ' {"and": [{"key": "ClientCountry", "operator": "!eq", "value": "é"},'
    ' {"key": "EdgeResponseStatus", "operator": "lt", "value": "400"}]}]}}',
    '{"where":{"key":"ClientRequestPath","operator":"contains","value":"\\\\ \\n\\t"}}',
]

# The other fields a creation may set, in the shapes the API takes.
EXTRAS: list[dict[str, Any]] = [
    {"enabled": True, "frequency": "low"},
    {
        "output_options": {
            "field_names": ["ClientIP", "EdgeResponseStatus"],
            "output_type": "csv",
            "batch_prefix": "[",
            "batch_suffix": "]\n",
            "record_prefix": "{",
            "record_suffix": "}\n",
            "record_template": '{"ip": "{{.ClientIP}}"}',
            "record_delimiter": ",",
            "field_delimiter": "\t",
            "timestamp_format": "rfc3339ms",
            "sample_rate": 0.25,
            "CVE-2021-44228": True,
            "merge_subrequests": True,
            "stringify_object": False,
        },
        "max_upload_bytes": 5000000,
        "max_upload_records": 1000,
        "max_upload_interval_seconds": 30,
    },
    {"logpull_options": "fields=ClientIP,RayID&timestamps=rfc3339&CVE-2021-44228=true", "kind": "edge"},
    {"filter_attack_traffic": True, "merge_subrequests": False, "output_options": {"sample_rate": 1}},
]


def zone_id(n: int) -> str:
    return f"{n:032x}"


def populate(emu: Emulator) -> list[tuple[str, str, list[str]]]:
    """Every shape above on emulated zones (4 jobs each, the API's limit) and an account:
    `[(kind, id, [destination, ...])]`."""
    scopes: list[tuple[str, str, list[str]]] = []
    client = emu.client()
    for i, destination in enumerate(DESTINATIONS):
        zone = zone_id(1 + i // 4)
        if not scopes or scopes[-1][1] != zone:
            scopes.append(("zone", zone, []))
        logpush = client.zone(zone).logpush
        fields: dict[str, Any] = {**EXTRAS[i % len(EXTRAS)]}
        if FILTERS[i % len(FILTERS)] is not None:
            fields["filter"] = FILTERS[i % len(FILTERS)]
        if destination.startswith(("gs:", "azure:", "sumo:", "s3://bucket/challenged")):
            logpush.ownership_challenge(destination)
            fields["ownership_challenge"] = emu.written_challenge(destination, zone=zone)
        logpush.create_job(destination_conf=destination, dataset="http_requests", name=f"job.{i}", **fields)
        scopes[-1][2].append(destination)
    account = client.account(ACCOUNT).logpush
    account.create_job(
        destination_conf=DESTINATIONS[0],
        dataset="gateway_dns",
        name="dns",
        filter='{"where":{"key":"QueryName","operator":"endsWith","value":".example.com"}}',
        output_options={"field_names": ["QueryName"], "CVE-2021-44228": False},
    )
    account.create_job(destination_conf=DESTINATIONS[7], dataset="audit_logs", name="audit")
    scopes.append(("account", ACCOUNT, [DESTINATIONS[0], DESTINATIONS[7]]))
    return scopes


def no_secret(text: str) -> None:
    for secret in SECRETS:
        assert secret not in text, f"{secret} written out"


@pytest.mark.parametrize("fmt", ["toml", "json"])
def test_an_exported_jobs_file_is_nothing_to_do(
    api: Emulator, cli: Cli, tmp_path: Path, fmt: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    for kind, scope, _ in populate(api):
        run = cli("logpush", "export", f"--{kind}", scope, "--format", fmt)
        assert run.code == 0, run.err
        no_secret(run.out)
        path = tmp_path / f"{scope}.{fmt}"
        path.write_text(run.out, encoding="utf-8")
        plan = cli("logpush", "apply", str(path), f"--{kind}", scope, "--dry-run", "--json")
        assert plan.code == 0, plan.err
        actions = [(j["name"], j["action"]) for j in plan.json()["jobs"]]  # type: ignore[index]
        assert actions and all(action == "unchanged" for _, action in actions), actions
        no_secret(plan.out)


# python-hcl2's output: strings without their quotes (their escapes as written), blocks as dicts.
HCL = hcl2.SerializationOptions(strip_string_quotes=True, with_comments=False, explicit_blocks=False)


def hcl_string(text: str) -> str:
    """A string as python-hcl2 gives it, its escapes decoded but for the template escapes."""
    return text.replace("$${", "${").replace("%%{", "%{")


def hcl_tree(value: Any, string: Callable[[str], Any] = str) -> Any:
    """python-hcl2's tree without its position keys (``__start_line__``, ...), each string
    through ``string``."""
    if isinstance(value, str):
        return string(value)
    if isinstance(value, list):
        return [hcl_tree(v, string) for v in value]
    if isinstance(value, dict):
        return {k: hcl_tree(v, string) for k, v in value.items() if not k.startswith("__")}
    return value


def hcl_value(value: Any) -> Any:
    """python-hcl2's tree with its strings as the values they stand for (a ``jsonencode``
    as its JSON text)."""

    def string(text: str) -> str:
        if text.startswith("${jsonencode(") and text.endswith(")}"):
            inner = hcl2.loads("x = " + text[len("${jsonencode(") : -2], serialization_options=HCL)["x"]
            return json.dumps(hcl_value(inner))
        return hcl_string(text)

    return hcl_tree(value, string)


@pytest.mark.parametrize("form", ["string", "jsonencode"])
def test_exported_terraform_parses_back_as_the_same_jobs(
    api: Emulator, cli: Cli, tmp_path: Path, form: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    for kind, scope, _ in populate(api):
        run = cli("logpush", "export", f"--{kind}", scope, "--format", "terraform", "--filter-form", form)
        assert run.code == 0, run.err
        no_secret(run.out)
        doc = hcl_value(hcl2.loads(run.out, serialization_options=HCL))
        resources = {name: body for block in doc["resource"] for name, body in block["cloudflare_logpush_job"].items()}
        imports = {block["to"]: hcl_string(block["id"]) for block in doc["import"]}
        variables = {name for block in doc["variable"] for name, body in block.items() if body["sensitive"] is True}
        logpush = (api.client().zone(scope) if kind == "zone" else api.client().account(scope)).logpush
        jobs = logpush.jobs()
        assert len(resources) == len(jobs)
        for job in jobs:
            stored = job.reveal()
            label = re.sub(r"[^a-z0-9]", "_", stored["name"].lower())
            body = resources[label]
            assert imports["${cloudflare_logpush_job." + label + "}"] == f"{kind}s/{scope}/{stored['id']}"
            assert body[f"{kind}_id"] == scope
            # The destination with each credential a sensitive variable: filled in, the stored one.
            used = re.findall(r"\$\{var\.([a-z0-9_]+)\}", body["destination_conf"])
            assert set(used) <= variables
            pattern = re.escape(body["destination_conf"])
            for name in used:
                pattern = pattern.replace(re.escape("${var." + name + "}"), ".+?")
            assert re.fullmatch(pattern, stored["destination_conf"]), (body["destination_conf"], label)
            for key in ("name", "dataset", "enabled", "kind", "frequency", "logpull_options", "max_upload_bytes",
                        "max_upload_records", "max_upload_interval_seconds"):  # fmt: skip
                expected = stored[key]
                if DEPRECATED_DEFAULTS.get(key, object()) == expected:
                    expected = None  # left out: Terraform sets the same default, without a deprecation warning
                assert body.get(key) == expected, key
            if stored["filter"] is None:
                assert "filter" not in body
            else:
                assert Filter.parse(body["filter"]) == Filter.parse(stored["filter"])
                if form == "string":
                    assert body["filter"] == Filter.parse(stored["filter"]).to_json()
            options = stored["output_options"] or {}
            expected = {k.lower().replace("-", "_"): v for k, v in options.items() if v is not None}
            assert body.get("output_options", {}) == {k: v for k, v in expected.items() if k in V5_OUTPUT_OPTIONS}
            # What the provider's schema lacks is kept as a comment, for a person to see.
            for key in ("filter_attack_traffic", "merge_subrequests"):
                if stored.get(key) is not None:
                    assert key not in body and f"#   {key} = " in run.out
        path = tmp_path / f"{scope}.tf"
        path.write_text(run.out, encoding="utf-8")
        plan = cli("logpush", "apply", str(path), f"--{kind}", scope, "--dry-run", "--json")
        assert plan.code == 0, plan.err
        assert {j["action"] for j in plan.json()["jobs"]} == {"unchanged"}  # type: ignore[index]


def test_credentials_come_from_the_environment(
    api: Emulator, cli: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    zone = zone_id(99)
    logpush = api.client().zone(zone).logpush
    logpush.create_job(destination_conf=DESTINATIONS[0], dataset="http_requests", name="keys")
    path = tmp_path / "jobs.toml"
    path.write_text(cli("logpush", "export", "--zone", zone).out, encoding="utf-8")
    # A rotated secret, given by its variable, is an update; the stored one is kept otherwise.
    monkeypatch.setenv("LOGPUSH_KEYS_SECRET_ACCESS_KEY", "ROTATED")
    run = cli("logpush", "apply", str(path), "--zone", zone, "--json")
    assert run.code == 0, run.err
    [entry] = run.json()["jobs"]  # type: ignore[index]
    assert (entry["action"], [c["field"] for c in entry["changes"]]) == ("update", ["destination_conf"])
    assert "ROTATED" not in run.out
    assert logpush.jobs()[0].reveal()["destination_conf"].endswith("access-key-id=AKID-T1&secret-access-key=ROTATED")
    # Another zone has no such job: creating it needs every credential.
    monkeypatch.delenv("LOGPUSH_KEYS_SECRET_ACCESS_KEY")
    other = zone_id(98)
    run = cli("logpush", "apply", str(path), "--zone", other)
    assert run.code == 2 and "LOGPUSH_KEYS_ACCESS_KEY_ID, LOGPUSH_KEYS_SECRET_ACCESS_KEY" in run.err, run.err
    assert api.client().zone(other).logpush.jobs() == []
    monkeypatch.setenv("LOGPUSH_KEYS_ACCESS_KEY_ID", "AK2")
    monkeypatch.setenv("LOGPUSH_KEYS_SECRET_ACCESS_KEY", "SK2")
    assert cli("logpush", "apply", str(path), "--zone", other).code == 0
    assert (
        api.client().zone(other).logpush.jobs()[0].reveal()["destination_conf"].endswith("id=AK2&secret-access-key=SK2")
    )


def test_jobs_file_variables_are_apart_from_other_tools(
    api: Emulator, cli: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A job named ``aws`` (or ``r2``) names its keys ``LOGPUSH_AWS_...``, not the
    ``AWS_SECRET_ACCESS_KEY`` a CI job has set: apply must not send the caller's own keys."""
    zone = zone_id(94)
    logpush = api.client().zone(zone).logpush
    logpush.create_job(destination_conf=DESTINATIONS[0], dataset="http_requests", name="aws")
    logpush.create_job(destination_conf=DESTINATIONS[5], dataset="http_requests", name="r2")
    for name, value in (
        ("AWS_ACCESS_KEY_ID", "AKIA-MINE"),
        ("AWS_SECRET_ACCESS_KEY", "MY-OWN-SECRET"),
        ("R2_ACCOUNT_ID", "mine"),
        ("R2_ACCESS_KEY_ID", "R2-MINE"),
        ("R2_SECRET_ACCESS_KEY", "MY-R2-SECRET"),
    ):
        monkeypatch.setenv(name, value)
    path = tmp_path / "jobs.toml"
    path.write_text(cli("logpush", "export", "--zone", zone).out, encoding="utf-8")
    text = path.read_text(encoding="utf-8")
    assert "${LOGPUSH_AWS_SECRET_ACCESS_KEY}" in text and "${LOGPUSH_R2_SECRET_ACCESS_KEY}" in text, text
    assert not re.search(r"\$\{(AWS|R2)_", text), text
    run = cli("logpush", "apply", str(path), "--zone", zone, "--json")
    assert run.code == 0, run.err
    assert [e["action"] for e in run.json()["jobs"]] == ["unchanged", "unchanged"]  # type: ignore[index]
    stored = sorted(job.reveal()["destination_conf"] for job in logpush.jobs())
    assert stored == sorted([DESTINATIONS[0], DESTINATIONS[5]])


def test_ensure_takes_a_job_from_a_terraform_file(
    api: Emulator, cli: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    zone = zone_id(97)
    path = tmp_path / "main.tf"
    path.write_text(
        """
variable "errors_key" {
  type      = string
  sensitive = true
}
resource "cloudflare_logpush_job" "errors" {
  zone_id          = var.zone_id
  name             = "errors"
  dataset          = "http_requests"
  destination_conf = "r2://bucket/logs?account-id=acc&access-key-id=AK&secret-access-key=${var.errors_key}"
  filter           = jsonencode({ where = { key = "EdgeResponseStatus", operator = "geq", value = 500 } })
  output_options = {
    cve_2021_44228 = true
  }
}
""",
        encoding="utf-8",
    )
    monkeypatch.setenv("TF_VAR_errors_key", "TF-SECRET")
    # `var.zone_id` may be another zone's: said to be this one, it is read (issue 33, item 10).
    run = cli("logpush", "ensure", "--zone", zone, "--name", "errors", "--from", str(path))
    assert run.code == 2 and "zone_id is `var.zone_id`" in run.err and "--scope-expression" in run.err, run.err
    assert api.client().zone(zone).logpush.jobs() == []
    path.write_text(path.read_text(encoding="utf-8").replace("var.zone_id", f'"{zone}"'), encoding="utf-8")
    run = cli("logpush", "ensure", "--zone", zone, "--name", "errors", "--from", str(path), "--json")
    assert run.code == 0, run.err
    assert run.json()["action"] == "created" and "TF-SECRET" not in run.out  # type: ignore[index]
    job = api.client().zone(zone).logpush.jobs()[0]
    assert job.reveal()["destination_conf"].endswith("secret-access-key=TF-SECRET")
    assert job["output_options"] == {"CVE-2021-44228": True}
    run = cli("logpush", "ensure", "--zone", zone, "--name", "errors", "--from", str(path), "--frequency", "low")
    assert run.code == 0 and "updated" in run.out and "frequency" in run.out, run.out
    run = cli("logpush", "ensure", "--zone", zone, "--name", "other", "--from", str(path))
    assert run.code == 2 and "has no job named 'other' (its jobs: 'errors')" in run.err


@pytest.mark.parametrize("form", ["string", "jsonencode"])
def test_terraform_json_syntax_reads_as_the_same_jobs(api: Emulator, cli: Cli, tmp_path: Path, form: str) -> None:
    # Every job shape, exported as HCL, turned into a .tf.json by python-hcl2 (HashiCorp's
    # JSON syntax: "resource" a list of objects, filters as "${jsonencode(...)}"): nothing to do.
    for kind, scope, _ in populate(api):
        run = cli("logpush", "export", f"--{kind}", scope, "--format", "terraform", "--filter-form", form)
        assert run.code == 0, run.err
        # python-hcl2 gives strings as templates as written (`$${` kept, `${jsonencode(...)}`
        # and `${var.x}` as interpolations): what the JSON syntax holds.
        doc = hcl_tree(hcl2.loads(run.out, serialization_options=HCL))
        path = tmp_path / f"{scope}.tf.json"
        path.write_text(json.dumps(doc, indent=2), encoding="utf-8")
        plan = cli("logpush", "apply", str(path), f"--{kind}", scope, "--dry-run", "--json")
        assert plan.code == 0, plan.err
        jobs = plan.json()["jobs"]  # type: ignore[index]
        assert jobs and {j["action"] for j in jobs} == {"unchanged"}, jobs


def test_problems_name_the_terraform_resource(
    api: Emulator, cli: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    zone = zone_id(95)
    body = {
        "name": "keys",
        "dataset": "http_requests",
        "destination_conf": "r2://bucket/logs?account-id=acc&access-key-id=AK&secret-access-key=${var.keys_secret}",
        "filter": '${jsonencode({ where = { key = "EdgeResponseStatus", operator = "geq", value = 500 } })}',
    }
    path = tmp_path / "main.tf.json"
    path.write_text(json.dumps({"resource": {"cloudflare_logpush_job": {"keys": body}}}), encoding="utf-8")
    # Found while applying: a creation needs the credential its variable stands for.
    monkeypatch.delenv("TF_VAR_keys_secret", raising=False)
    run = cli("logpush", "apply", str(path), "--zone", zone)
    assert run.code == 2, run.err
    assert "cloudflare_logpush_job.keys.destination_conf: creating the job" in run.err, run.err
    assert "TF_VAR_keys_secret" in run.err and "jobs[0]" not in run.err
    # Found while reading: what apply checks in any jobs file, under the resource's address.
    tf = tmp_path / "main.tf"
    tf.write_text(
        'resource "cloudflare_logpush_job" "keys" {\n  name = "keys"\n  dataset = "http_request"\n'
        '  destination_conf = "s3://bucket/logs?region=us-east-1"\n}\n',
        encoding="utf-8",
    )
    for args in (["apply", str(tf)], ["ensure", "--name", "keys", "--from", str(tf)]):
        run = cli("logpush", *args, "--zone", zone)
        assert run.code == 2 and "cloudflare_logpush_job.keys.dataset: " in run.err, run.err
        assert "jobs[0]" not in run.err
    # A template directive, and a syntax error, with their lines.
    tf.write_text(
        '/* jobs */\nresource "cloudflare_logpush_job" "keys" {\n  name = "keys"\n'
        '  destination_conf = "s3://b/%{ if var.x }a%{ endif }"\n}\n',
        encoding="utf-8",
    )
    run = cli("logpush", "apply", str(tf), "--zone", zone)
    assert "cloudflare_logpush_job.keys.destination_conf: line 4: the template directive `%{ … }`" in run.err
    tf.write_text('resource "cloudflare_logpush_job" "keys" {\n  name = "keys"\n  dataset "x"\n}\n', encoding="utf-8")
    run = cli("logpush", "apply", str(tf), "--zone", zone)
    assert run.code == 2 and "line 3, column " in run.err, run.err
    # Neither shows a credential written out in the file: a syntax error shows no line, and an
    # expression in destination_conf that escpush does not evaluate is not quoted.
    for written in (
        '  destination_conf = "s3://b/p?region=us-east-1&secret-access-key=TFLITSECRET\n',
        '  destination_conf = "s3://b/p?secret-access-key=TFLITSECRET" == "" ? "a" : "b"\n',
    ):
        tf.write_text(f'resource "cloudflare_logpush_job" "keys" {{\n  name = "keys"\n{written}}}\n', encoding="utf-8")
        for json_out in ([], ["--json"]):
            run = cli("logpush", "apply", str(tf), "--zone", zone, "--dry-run", *json_out)
            assert run.code == 2 and "line " in run.err + run.out, run.err
            assert "TFLITSECRET" not in run.err + run.out
        with pytest.raises(InvalidInput) as caught:
            api.client().zone(zone).logpush.read_terraform(tf.read_text(encoding="utf-8"))
        assert "TFLITSECRET" not in str(caught.value) + repr(caught.value)
    # ensure --from takes a .tf.json too.
    monkeypatch.setenv("TF_VAR_keys_secret", "TF-SECRET")
    run = cli("logpush", "ensure", "--zone", zone, "--name", "keys", "--from", str(path), "--json")
    assert run.code == 0 and run.json()["action"] == "created", run.err  # type: ignore[index]
    job = api.client().zone(zone).logpush.jobs()[0]
    assert job.reveal()["destination_conf"].endswith("secret-access-key=TF-SECRET")
    assert Filter.parse(job["filter"]) == Filter.parse(
        '{"where":{"key":"EdgeResponseStatus","operator":"geq","value":500}}'
    )


def test_the_python_face_does_the_same(escpush_emulator: Emulator, monkeypatch: pytest.MonkeyPatch) -> None:
    zone = escpush_emulator.client().zone(zone_id(96))
    zone.logpush.create_job(
        destination_conf=DESTINATIONS[5], dataset="http_requests", name="r2", filter='ClientCountry == "cn"'
    )
    text = zone.logpush.export(format="terraform", filter_form="jsonencode")
    assert "jsonencode({" in text and "SAK-R2T" not in text
    jobs = zone.logpush.read_terraform(text)
    assert zone.logpush.apply(jobs, dry_run=True)["jobs"][0]["action"] == "unchanged"
    with pytest.raises(InvalidInput, match='format is "yaml"'):
        zone.logpush.export(format="yaml")  # type: ignore[arg-type]
    with pytest.raises(InvalidInput, match="has no job 9"):
        zone.logpush.export(jobs=[9])
    with pytest.raises(InvalidInput, match=r"line 2: a reference to `local\.n`"):
        zone.logpush.read_terraform('resource "cloudflare_logpush_job" "a" {\n  name = local.n\n}\n')
    # The JSON syntax, told by its `{`; the addresses go with the jobs to apply's problems.
    r2 = {"name": "r2", "dataset": "http_requests", "destination_conf": DESTINATIONS[5]}
    doc = zone.logpush.read_terraform(json.dumps({"resource": {"cloudflare_logpush_job": {"r2": r2}}}))
    assert doc == {"jobs": [r2], "addresses": ["cloudflare_logpush_job.r2"]}
    with pytest.raises(InvalidInput, match=r"cloudflare_logpush_job\.r2\.dataset"):
        zone.logpush.apply({**doc, "jobs": [{**r2, "dataset": "nope"}]}, dry_run=True)
    # variables= takes any mapping, os.environ included (not a dict); a rotated credential is
    # an update, and neither the error nor the plan shows a value.
    exported = zone.logpush.export(format="json")
    monkeypatch.setenv("LOGPUSH_R2_SECRET_ACCESS_KEY", "ROTATED-R2")
    environ = os.environ
    assert not isinstance(environ, dict)
    plan = zone.logpush.apply(json.loads(exported), dry_run=True, variables=environ)
    assert plan["jobs"][0]["action"] == "update" and "ROTATED-R2" not in repr(plan)
    referenced = DESTINATIONS[5].replace("SAK-R2T", "${LOGPUSH_R2_SECRET_ACCESS_KEY}")
    done = zone.logpush.ensure_job(name="r2", dataset="http_requests", destination_conf=referenced, variables=environ)
    assert done["action"] == "updated" and "ROTATED-R2" not in repr(done)
    assert zone.logpush.jobs()[0].reveal()["destination_conf"].endswith("secret-access-key=ROTATED-R2")
    with pytest.raises(InvalidInput, match="a mapping of str to str") as caught:
        zone.logpush.apply(json.loads(exported), dry_run=True, variables=["ROTATED-R2"])  # type: ignore[arg-type]
    assert "ROTATED-R2" not in str(caught.value)
    with pytest.raises(InvalidInput, match="each name and value is a str") as caught:
        zone.logpush.apply(json.loads(exported), dry_run=True, variables={"X": 1})  # type: ignore[dict-item]


# -- check-plan ---------------------------------------------------------------------------


def plan_file(name: str) -> str:
    return str(PLANS / name)


@pytest.mark.parametrize(
    ("name", "kinds", "code"),
    [
        # The filter respelled (key order, spacing) between the configuration and the job.
        ("plan-reserialized.json", ["spelling"], 0),
        ("plan-equivalent.json", ["equivalent"], 0),
        ("plan-real.json", ["real"], 1),
        ("plan-mixed.json", ["spelling", "equivalent", "real", None, "unknown"], 1),
    ],
)
def test_check_plan_tells_the_three_kinds_apart(cli: Cli, name: str, kinds: list[str | None], code: int) -> None:
    run = cli("logpush", "check-plan", plan_file(name), "--json")
    assert run.code == code, run.err
    report = run.json()
    assert isinstance(report, dict)
    assert [c["filter"] and c["filter"]["change"] for c in report["changes"]] == kinds
    assert report["real"] is (code == 1)
    text = cli("logpush", "check-plan", plan_file(name))
    assert text.code == code
    for secret in ("PLAN-SECRET", "PLAN-CHALLENGE"):
        assert secret not in run.out and secret not in text.out


def test_check_plan_says_when_the_plan_leaves_a_filter_the_api_refuses(cli: Cli, tmp_path: Path) -> None:
    """A spelling-only change is not real, unless the filter it leaves is invalid for the job's
    dataset: then the change is real and its problems are listed."""
    plan = json.loads((PLANS / "plan-reserialized.json").read_text(encoding="utf-8"))
    [change] = [c for c in plan["resource_changes"] if c["type"] == "cloudflare_logpush_job"]
    for side in ("before", "after"):
        change["change"][side]["filter"] = '{"where":{"key":"ClientCountyr","operator":"eq","value":"cn"}}'
    change["change"]["after"]["filter"] = '{"where":{"operator":"eq","key":"ClientCountyr","value":"cn"}}'
    path = tmp_path / "plan.json"
    path.write_text(json.dumps(plan), encoding="utf-8")
    run = cli("logpush", "check-plan", str(path), "--json")
    assert run.code == 1, run.err
    [entry] = run.json()["changes"]  # type: ignore[index]
    assert entry["filter"]["change"] == "spelling" and entry["real"] is True
    [problem] = entry["filter_problems"]
    assert problem["code"] == "unknown_field" and "ClientCountry" in problem["message"]
    text = cli("logpush", "check-plan", str(path))
    assert "filter: INVALID, the API would refuse the job:" in text.out
    assert "did you mean `ClientCountry`" in text.out, text.out
    # The committed plans leave valid filters.
    for name in ("plan-reserialized.json", "plan-equivalent.json", "plan-real.json", "plan-mixed.json"):
        report = check_terraform_plan((PLANS / name).read_text(encoding="utf-8"))
        assert all(c["filter_problems"] == [] for c in report["changes"]), name


def test_check_plan_shows_the_record_of_a_real_change(cli: Cli) -> None:
    run = cli("logpush", "check-plan", plan_file("plan-real.json"))
    assert run.code == 1
    assert "filter: REAL change" in run.out
    record = json.loads(re.search(r"on the record (\{.*\}):", run.out).group(1))  # type: ignore[union-attr]
    before = Filter.parse(
        '{"where":{"key":"ClientRequestHost","operator":"in","value":["a.example.com","b.example.com"]}}'
    )
    after = Filter.parse('{"where":{"key":"ClientRequestHost","operator":"in","value":["a.example.com"]}}')
    assert before.matches(record) != after.matches(record)
    assert "enabled: false -> true" in run.out
    assert "1 cloudflare_logpush_job change, 1 real" in run.out


def test_check_plan_refuses_what_is_not_a_plan(cli: Cli, tmp_path: Path) -> None:
    path = tmp_path / "state.json"
    path.write_text('{"resources": []}', encoding="utf-8")
    run = cli("logpush", "check-plan", str(path))
    assert run.code == 2 and "terraform show -json" in run.err
    path.write_text('{"format_version": "2.0"}', encoding="utf-8")
    assert "2.0" in cli("logpush", "check-plan", str(path)).err
    report = check_terraform_plan({"format_version": "1.2", "resource_changes": []})
    assert report == {"real": False, "changes": []}


# -- issue 33 -------------------------------------------------------------------------------


def _one_change_plan(tmp_path: Path, edit: Callable[[dict[str, Any]], None]) -> str:
    """plan-real.json's one change, edited; the path of the plan written."""
    plan = json.loads((PLANS / "plan-real.json").read_text(encoding="utf-8"))
    [change] = [c for c in plan["resource_changes"] if c["type"] == "cloudflare_logpush_job"]
    edit(change)
    path = tmp_path / "plan.json"
    path.write_text(json.dumps(plan), encoding="utf-8")
    return str(path)


def test_check_plan_text_writes_no_control_character(cli: Cli, tmp_path: Path) -> None:
    """Issue 33, item 18: a plan is input; its ESC, OSC and BEL characters (in an address, a
    filter, an attribute's value, a problem's message) reach the terminal escaped."""

    def hostile(change: dict[str, Any]) -> None:
        change["address"] = "cloudflare_logpush_job.a\x1b]0;owned\x07"
        after = change["change"]["after"]
        after["name"] = "x\x1b[2J\x1b[31mred\u009b1m\r\nforged line"
        after["filter"] = '{"where":{"key":"ClientRequestHost","operator":"eq","value":"\\u001b]8;;http://x\\u0007"}}'
        before = '{"where":{"key":"ClientRequestHo\\u001bst","operator":"eq","value":"a"}}'
        change["change"]["before"]["filter"] = before

    run = cli("logpush", "check-plan", _one_change_plan(tmp_path, hostile))
    assert run.code == 1, run.err
    for raw in ("\x1b", "\x07", "\u009b", "\r"):
        assert raw not in run.out, repr(run.out)
    assert "\\u001b]0;owned\\u0007" in run.out, run.out
    assert "\nforged line" not in run.out, run.out


def test_check_plan_a_text_form_filter_is_refused_by_the_api(cli: Cli, tmp_path: Path) -> None:
    """Issue 33, item 6: `ClientCountry == "cn"` is escpush's text form, which the API refuses
    (its filter is JSON): a plan leaving it is a real change, with the problem."""

    def text_form(change: dict[str, Any]) -> None:
        change["change"]["before"]["filter"] = '{"where":{"key":"ClientCountry","operator":"eq","value":"cn"}}'
        change["change"]["after"]["filter"] = 'ClientCountry == "cn"'
        change["change"]["after"]["enabled"] = change["change"]["before"]["enabled"]

    run = cli("logpush", "check-plan", _one_change_plan(tmp_path, text_form), "--json")
    assert run.code == 1, run.out
    [entry] = run.json()["changes"]  # type: ignore[index]
    assert entry["real"] is True
    assert entry["filter"]["change"] == "real", entry
    [problem] = entry["filter_problems"]
    assert "JSON" in problem["message"], problem
    # The canonical JSON itself, and its quoted form the API may hand back, are no change.
    quoted = json.dumps('{"where":{"key":"ClientCountry","operator":"eq","value":"cn"}}')

    def respelled(change: dict[str, Any]) -> None:
        text_form(change)
        change["change"]["after"]["filter"] = quoted

    report = check_terraform_plan(Path(_one_change_plan(tmp_path, respelled)).read_text(encoding="utf-8"))
    assert report["changes"][0]["filter_problems"] == [] and report["real"] is False, report


def test_check_plan_an_empty_kind_and_no_kind_are_the_same(cli: Cli, tmp_path: Path) -> None:
    """Issue 33, item 12: `kind: "" -> null` is no change (both mean no kind)."""

    def kind(change: dict[str, Any]) -> None:
        before, after = change["change"]["before"], change["change"]["after"]
        before.update(kind="", filter=after["filter"], enabled=after["enabled"])
        after["kind"] = None

    run = cli("logpush", "check-plan", _one_change_plan(tmp_path, kind), "--json")
    assert run.code == 0, run.out
    attributes = run.json()["changes"][0]["attributes"]  # type: ignore[index]
    assert "kind" not in [a["attribute"] for a in attributes], attributes


def test_a_scope_escpush_cannot_evaluate_is_the_one_given_only_when_said(
    api: Emulator, cli: Cli, tmp_path: Path
) -> None:
    """Issue 33, item 10: `zone_id = var.zone_b` was taken to be the --zone given, and another
    zone's job was created in the wrong zone. Refused, naming the resource, unless the caller
    says the expression is the scope (--scope-expression; scope_expressions= in Python)."""
    zone = zone_id(96)
    path = tmp_path / "main.tf"
    path.write_text(
        """
resource "cloudflare_logpush_job" "a" {
  zone_id          = var.zone_a
  name             = "a"
  dataset          = "http_requests"
  destination_conf = "r2://bucket/a"
}
resource "cloudflare_logpush_job" "b" {
  zone_id          = var.zone_b
  name             = "b"
  dataset          = "http_requests"
  destination_conf = "r2://bucket/b"
}
""",
        encoding="utf-8",
    )
    run = cli("logpush", "apply", str(path), "--zone", zone)
    assert run.code == 2, run.err
    assert "cloudflare_logpush_job.a.zone_id: line 3: zone_id is `var.zone_a`" in run.err, run.err
    assert "cloudflare_logpush_job.b.zone_id: line 9: zone_id is `var.zone_b`" in run.err, run.err
    run = cli("logpush", "apply", str(path), "--zone", zone, "--scope-expression", "var.zone_a")
    assert run.code == 2 and "zone_b" in run.err and "zone_a`" not in run.err, run.err
    logpush = api.client().zone(zone).logpush
    assert logpush.jobs() == []
    text = path.read_text(encoding="utf-8")
    with pytest.raises(InvalidInput, match=r"var\.zone_b"):
        logpush.read_terraform(text)
    doc = logpush.read_terraform(text, scope_expressions=["var.zone_a", "var.zone_b"])
    assert doc["addresses"] == ["cloudflare_logpush_job.a", "cloudflare_logpush_job.b"]
    run = cli(
        "logpush", "apply", str(path), "--zone", zone, "--scope-expression", "var.zone_a",
        "--scope-expression", "var.zone_b", "--json",
    )  # fmt: skip
    assert run.code == 0, run.err
    assert sorted(j["name"] for j in logpush.jobs()) == ["a", "b"]


@pytest.mark.parametrize("fmt", ["toml", "json", "terraform"])
def test_the_readme_walk_through_exports_a_nameless_job_and_applies_it_back(
    api: Emulator, cli: Cli, tmp_path: Path, fmt: str
) -> None:
    """Issue 33, item 12: the README's walk-through creates a job without a name
    (`escpush logpush create` without --name); its export read back is nothing to do."""
    zone = zone_id(95)
    filter_path = tmp_path / "errors.json"
    filter_path.write_text(Filter.from_text("EdgeResponseStatus >= 500").to_json(), encoding="utf-8")
    created = cli(
        "logpush", "create", "--zone", zone, "--dataset", "http_requests", "--destination-conf",
        "r2://logs/http_requests?account-id=ACCOUNT_ID&access-key-id=KEY_ID&secret-access-key=S3CR3T",
        "--filter", str(filter_path), "--enabled",
    )  # fmt: skip
    assert created.code == 0, created.err
    exported = cli("logpush", "export", "--zone", zone, "--format", fmt)
    assert exported.code == 0, exported.err
    assert "S3CR3T" not in exported.out and "account-id=ACCOUNT_ID" in exported.out, exported.out
    path = tmp_path / ("main.tf" if fmt == "terraform" else f"jobs.{fmt}")
    path.write_text(exported.out, encoding="utf-8")
    plan = cli("logpush", "apply", str(path), "--zone", zone, "--json")
    assert plan.code == 0, plan.err
    [entry] = plan.json()["jobs"]  # type: ignore[index]
    assert entry["action"] == "unchanged" and entry["id"] == 1, entry
    # Changed in the file, the job is found by its id and updated in place.
    path.write_text(exported.out.replace("500", "502"), encoding="utf-8")
    assert cli("logpush", "apply", str(path), "--zone", zone).code == 0
    [job] = api.client().zone(zone).logpush.jobs()
    assert job["id"] == 1 and "502" in job["filter"] and job.get("name") in (None, "")


def test_the_plan_of_apply_writes_no_control_character() -> None:
    """Of the class of issue 33, item 18: the plan `apply` and `ensure` print shows the stored
    job's values, which come from the API; what does not print reaches the terminal escaped."""
    from escpush.cli.logpush import _change_lines

    [line] = _change_lines([{"field": "name", "before": "a\x1b]0;x\x07\r\nb", "after": {"k": "\u009b"}}])
    for raw in ("\x1b", "\x07", "\r", "\n", "\u009b"):
        assert raw not in line, repr(line)
    assert "\\u001b]0;x\\u0007" in line, line
