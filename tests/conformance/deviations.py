"""Where Cloudflare's published schema (2024-08-07) is out of date or wrong, and what holds
instead: one entry each, with its source, applied as a patch to the loaded schema.

Only what escpush's traffic needs is here. Sources: the official Python SDK `cloudflare` 5.9
(Stainless generates it from a later schema; paths under its package), the repository
`cloudflare/cloudflare-docs` ("docs P" is `src/content/docs/P`, "changelog P" is
`src/content/changelog/P`), and the Terraform provider `cloudflare/terraform-provider-cloudflare`.
Each entry has a witness, an exchange that the schema judges one way without the entry and
the other way with it (tests/emulator/test_conformance.py checks both), so an entry that stops
mattering is noticed.

`loosens`: the schema refuses what the API does (the witness fails without the entry);
`tightens`: the schema accepts what the API does not (the witness passes without it).
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

Document = dict[str, Any]

SCOPES = ("/zones/{zone_id}", "/accounts/{account_id}")
JSON = {"content-type": "application/json"}


@dataclass(frozen=True)
class Deviation:
    name: str
    schema_says: str
    holds: str
    source: str
    patch: Callable[[Document], None]
    # The witness: a logged exchange (as Emulator.requests() gives it) and which side of it.
    witness: dict[str, Any]
    side: str  # "request" or "answer"
    effect: str  # "loosens" or "tightens"


def _schemas(doc: Document) -> dict[str, Any]:
    schemas: dict[str, Any] = doc["components"]["schemas"]
    return schemas


def _job_bodies(doc: Document, methods: tuple[str, ...] = ("post", "put")) -> list[dict[str, Any]]:
    """The job create (`post`) and update (`put`) request body schemas of both scopes."""
    out = []
    for scope in SCOPES:
        for method in methods:
            path = f"{scope}/logpush/jobs" if method == "post" else f"{scope}/logpush/jobs/{{job_id}}"
            out.append(doc["paths"][path][method]["requestBody"]["content"]["application/json"]["schema"])
    return out


def _kind(doc: Document) -> None:
    _schemas(doc)["logpush_kind"]["enum"] = ["", "edge"]


def _nullable_enums(doc: Document) -> None:
    for name in ("logpush_frequency", "logpush_kind"):
        _schemas(doc)[name]["enum"].append(None)


def _filter_in_bodies(doc: Document) -> None:
    for body in _job_bodies(doc):
        body["properties"]["filter"] = {"type": "string", "nullable": True}


def _name_in_update(doc: Document) -> None:
    for body in _job_bodies(doc, ("put",)):
        body["properties"]["name"] = {"$ref": "#/components/schemas/logpush_name"}


def _filter_attack_traffic(doc: Document) -> None:
    for body in _job_bodies(doc):
        body["properties"]["filter_attack_traffic"] = {"type": "boolean"}
    _schemas(doc)["logpush_logpush_job"]["properties"]["filter_attack_traffic"] = {"type": "boolean", "nullable": True}


def _filter_in_record(doc: Document) -> None:
    _schemas(doc)["logpush_logpush_job"]["properties"]["filter"] = {"type": "string", "nullable": True}


def _cve(doc: Document) -> None:
    props = _schemas(doc)["logpush_output_options"]["properties"]
    props["CVE-2021-44228"] = props.pop("CVE-2021-4428")


def _timestamps(doc: Document) -> None:
    options = _schemas(doc)["logpush_output_options"]["properties"]
    options["timestamp_format"]["enum"] = ["unixnano", "unix", "rfc3339", "rfc3339ms", "rfc3339ns"]


def _merge_subrequests(doc: Document) -> None:
    for body in _job_bodies(doc):
        body["properties"]["merge_subrequests"] = {"type": "boolean"}
    _schemas(doc)["logpush_logpush_job"]["properties"]["merge_subrequests"] = {"type": "boolean"}


def _newer_output_options(doc: Document) -> None:
    options = _schemas(doc)["logpush_output_options"]["properties"]
    for name in ("merge_subrequests", "stringify_object"):
        options[name] = {"type": "boolean", "nullable": True}


def _max_upload_zero(doc: Document) -> None:
    for name in ("logpush_max_upload_bytes", "logpush_max_upload_records", "logpush_max_upload_interval_seconds"):
        schema = _schemas(doc)[name]
        in_range = {"minimum": schema.pop("minimum"), "maximum": schema.pop("maximum")}
        schema["anyOf"] = [{"enum": [0]}, in_range]


def _validate_destination(doc: Document) -> None:
    for scope in SCOPES:
        op = copy.deepcopy(doc["paths"][f"{scope}/logpush/validate/destination/exists"]["post"])
        op["operationId"] = op["operationId"].replace("-exists", "").replace("delete-", "post-")
        op["responses"]["200"]["content"]["application/json"]["schema"] = {
            "$ref": "#/components/schemas/logpush_validate_response"
        }
        doc["paths"][f"{scope}/logpush/validate/destination"] = {"post": op}


def _instant_logs_path(doc: Document) -> None:
    doc["paths"]["/zones/{zone_id}/logpush/edge/jobs"] = doc["paths"].pop("/zones/{zone_id}/logpush/edge")


def _origin_dataset(doc: Document) -> None:
    for scope in SCOPES:
        body = doc["paths"][f"{scope}/logpush/validate/origin"]["post"]["requestBody"]["content"]["application/json"]
        body["schema"]["properties"]["dataset"] = {"$ref": "#/components/schemas/logpush_dataset"}


def _instant_logs_failures(doc: Document) -> None:
    for path, item in doc["paths"].items():
        if path.startswith("/zones/{zone_id}/logpush/edge"):
            for op in item.values():
                schema = {"$ref": "#/components/schemas/logpush_api-response-common-failure"}
                op["responses"]["4XX"]["content"]["application/json"]["schema"] = schema


def _fields_result(doc: Document) -> None:
    result = _schemas(doc)["logpush_logpush_field_response_collection"]["allOf"][1]["properties"]["result"]
    result.pop("items")
    result["additionalProperties"] = {"type": "string"}


def _delete_without_body(doc: Document) -> None:
    for scope in SCOPES:
        del doc["paths"][f"{scope}/logpush/jobs/{{job_id}}"]["delete"]["requestBody"]


def _transformer_id(doc: Document) -> None:
    for body in _job_bodies(doc):
        body["properties"]["transformer_id"] = {"type": "integer", "minimum": 1, "nullable": True}
    _schemas(doc)["logpush_logpush_job"]["properties"]["transformer_id"] = {"type": "integer", "nullable": True}


def _transformer_op(result: dict[str, Any] | None, *, body: dict[str, Any] | None = None) -> dict[str, Any]:
    """One transformer operation of SDK 5.9's shapes: its path parameters are added by the caller."""
    ok: dict[str, Any] = {"$ref": "#/components/schemas/logpush_api-response-common"}
    if result is not None:
        ok = {"allOf": [ok, {"properties": {"result": result}}]}
    op: dict[str, Any] = {
        "parameters": [],
        "responses": {
            "200": {"description": "success", "content": {"application/json": {"schema": ok}}},
            "4XX": {"description": "failure", "content": {"application/json": {"schema": {"$ref": FAILURE_REF}}}},
        },
    }
    if body is not None:
        op["requestBody"] = {"required": True, "content": {"application/json": {"schema": body}}}
    return op


FAILURE_REF = "#/components/schemas/logpush_api-response-common-failure"


def _transformers(doc: Document) -> None:
    text = {"type": "string", "nullable": True}
    stamp = {"type": "string", "format": "date-time", "nullable": True}
    _schemas(doc)["logpush_transformer"] = {
        "type": "object",
        "properties": {
            "id": {"type": "integer"},
            "name": text,
            "description": text,
            "dataset": text,
            "associated_jobs": {
                "type": "array",
                "nullable": True,
                "items": {
                    "type": "object",
                    "properties": {
                        "id": {"type": "integer", "nullable": True},
                        "name": text,
                        "object_tag": text,
                        "object_type": {"type": "string", "enum": ["zone", "account"], "nullable": True},
                    },
                },
            },
            "created_at": stamp,
            "updated_at": stamp,
        },
    }
    record = {"$ref": "#/components/schemas/logpush_transformer"}
    code = {"type": "string"}
    create = {
        "type": "object",
        "required": ["name", "code"],
        "properties": {"name": {"type": "string"}, "code": code, "description": {"type": "string"}},
    }
    update = {
        "type": "object",
        "required": ["name"],
        "properties": {"name": {"type": "string"}, "code": code, "description": {"type": "string"}},
    }
    preview = {
        "type": "object",
        "required": ["sql", "input"],
        "properties": {"sql": code, "input": {"type": "object", "additionalProperties": True}},
    }
    version = {
        "type": "object",
        "properties": {"id": {"type": "integer"}, "version": {"type": "integer"}, "created_at": stamp},
    }
    identifier = {"$ref": "#/components/schemas/logpush_identifier"}
    account = {"in": "path", "name": "account_id", "required": True, "schema": identifier}
    one = {"in": "path", "name": "transformer_id", "required": True, "schema": {"type": "integer"}}
    base = "/accounts/{account_id}/logpush/transformers"
    paths = {
        base: {
            "get": _transformer_op({"type": "array", "items": record}),
            "post": _transformer_op(record, body=create),
        },
        f"{base}/preview": {
            "post": _transformer_op(
                {"type": "array", "items": {"type": "object", "additionalProperties": True}}, body=preview
            )
        },
        f"{base}/{{transformer_id}}": {
            "get": _transformer_op(record),
            "put": _transformer_op(record, body=update),
            "delete": _transformer_op({"type": "object", "nullable": True, "properties": {"id": {"type": "integer"}}}),
        },
        f"{base}/{{transformer_id}}/content": {
            "get": _transformer_op({"type": "object", "properties": {"content": {"type": "string", "nullable": True}}})
        },
        f"{base}/{{transformer_id}}/versions": {"get": _transformer_op({"type": "array", "items": version})},
    }
    for path, item in paths.items():
        for method, op in item.items():
            op["operationId"] = f"{method}-{path.replace('/', '-').replace('{', '').replace('}', '')}"
            op["parameters"] = [account, one] if "{transformer_id}" in path else [account]
        doc["paths"][path] = item


def _record(**fields: Any) -> dict[str, Any]:
    return {
        "method": "GET",
        "path": "/client/v4/zones/z1/logpush/jobs/1",
        "status": 200,
        "answer": {"success": True, "errors": [], "messages": [], "result": {"id": 1, **fields}},
    }


def _create(**fields: Any) -> dict[str, Any]:
    return {
        "method": "POST",
        "path": "/client/v4/zones/z1/logpush/jobs",
        "headers": JSON,
        "body": {"destination_conf": "https://logs.example.com/in", **fields},
    }


DEVIATIONS: list[Deviation] = [
    Deviation(
        "kind may be empty",
        '`logpush_kind` has `enum: [edge]` (while its default and every example are `""`)',
        '`kind` is `""` (a Logpush job) or `"edge"` (Edge Log Delivery)',
        'SDK 5.9 types/logpush/job_create_params.py (`kind: Literal["", "edge"]`); docs '
        "logs/logpush/logpush-job/api-configuration.mdx, Kind",
        _kind,
        _record(kind=""),
        "answer",
        "loosens",
    ),
    Deviation(
        "frequency and kind take null",
        "`logpush_frequency` and `logpush_kind` are `nullable`, but their enums omit null (which OpenAPI 3.0.3 "
        "then refuses)",
        "both take null, as their `nullable: true` means",
        'SDK 5.9 types/logpush/job_create_params.py (`frequency: Optional[Literal["high", "low"]]`) and '
        "logpush_job.py (`kind: Optional[...]`); the schema's own `nullable: true`",
        _nullable_enums,
        _create(frequency=None),
        "request",
        "loosens",
    ),
    Deviation(
        "filter in the create and update bodies",
        "the job create and update request bodies have no `filter`",
        "both take `filter`, the filter's JSON text (null: none)",
        "SDK 5.9 types/logpush/job_create_params.py and job_update_params.py (`filter: Optional[str]`); "
        "docs logs/logpush/logpush-job/filters.mdx (its create example)",
        _filter_in_bodies,
        _create(filter='{"where":{"key":"ClientCountry","operator":"eq","value":"ca"}}'),
        "request",
        "loosens",
    ),
    Deviation(
        "name in the update body",
        "the job update request body has no `name`",
        "an update may change `name`",
        "SDK 5.9 types/logpush/job_update_params.py (`name`); docs logs/logpush/logpush-job/"
        'api-configuration.mdx ("You can update the name later")',
        _name_in_update,
        {
            "method": "PUT",
            "path": "/client/v4/zones/z1/logpush/jobs/1",
            "headers": JSON,
            "body": {"name": "example.com"},
        },
        "request",
        "loosens",
    ),
    Deviation(
        "filter_attack_traffic",
        "neither the job bodies nor the job record have `filter_attack_traffic`",
        "a boolean of create and update (`bool`), and of the record (`Optional[bool]`: null when unset)",
        "SDK 5.9 types/logpush/job_create_params.py, job_update_params.py, logpush_job.py; "
        "changelog logs/2026-09-18-filter-ddos-attack-traffic.mdx",
        _filter_attack_traffic,
        _create(dataset="http_requests", filter_attack_traffic=True),
        "request",
        "loosens",
    ),
    Deviation(
        "merge_subrequests on the job",
        "neither the job bodies nor the job record have `merge_subrequests`",
        "a boolean of create and update, held by the record when it was given (http_requests only)",
        "docs logs/logpush/logpush-job/subrequests.mdx; changelog logs/2026-04-21-logpush-subrequests-merging.mdx "
        "(core's job field table, docs/job-rules.md)",
        _merge_subrequests,
        _create(dataset="http_requests", merge_subrequests=True),
        "request",
        "loosens",
    ),
    Deviation(
        "the record may hold filter",
        "the job record `logpush_logpush_job` has no `filter`",
        "the API returns the job's `filter` (a string, null: none)",
        "Terraform provider v5.22 internal/services/logpush_job/model.go (reads `filter` back) and "
        "resource_test.go (TestAccCloudflareLogpushJob_Full, ImportStateVerify); the SDK's record omits it",
        _filter_in_record,
        _record(filter=None),
        "answer",
        "loosens",
    ),
    Deviation(
        "CVE-2021-44228",
        "`output_options` spells the key `CVE-2021-4428`",
        "the key is `CVE-2021-44228`",
        'SDK 5.9 types/logpush/output_options.py (`FieldInfo(alias="CVE-2021-44228")`); docs '
        "logs/logpush/logpush-job/log-output-options.mdx",
        _cve,
        _create(output_options={"CVE-2021-44228": True}),
        "request",
        "loosens",
    ),
    Deviation(
        "rfc3339ms and rfc3339ns",
        "`output_options.timestamp_format` is one of unixnano, unix, rfc3339",
        "also rfc3339ms and rfc3339ns",
        "SDK 5.9 types/logpush/output_options.py; changelog logs/2026-03-25-logpush-granular-timestamps.mdx",
        _timestamps,
        _create(output_options={"timestamp_format": "rfc3339ms"}),
        "request",
        "loosens",
    ),
    Deviation(
        "merge_subrequests and stringify_object",
        "`output_options` has neither `merge_subrequests` nor `stringify_object`",
        "both are booleans of `output_options` (BigQuery: `stringify_object` true serializes object fields)",
        "SDK 5.9 types/logpush/output_options_param.py (`merge_subrequests: Optional[bool]`); docs logs/logpush/"
        "logpush-job/enable-destinations/bigquery.mdx (`stringify_object`)",
        _newer_output_options,
        _create(output_options={"merge_subrequests": True, "stringify_object": True}),
        "request",
        "loosens",
    ),
    Deviation(
        "max_upload_* take 0",
        "`max_upload_bytes`, `_records`, `_interval_seconds` have minimums 5000000, 1000, 30",
        "each also takes 0 (off), as its own description says",
        'the schema\'s descriptions ("or `0` to disable it"); SDK 5.9 types/logpush/job_create_params.py '
        "(`Union[Literal[0], int, None]`)",
        _max_upload_zero,
        _create(max_upload_bytes=0),
        "request",
        "loosens",
    ),
    Deviation(
        "validate/destination",
        "there is no `POST .../logpush/validate/destination` (only `.../destination/exists`)",
        "it exists for zones and accounts: `{destination_conf}` in, `{message, valid}` out",
        "SDK 5.9 resources/logpush/validate.py (`destination`) and types/logpush/validate_destination_response.py",
        _validate_destination,
        {
            "method": "POST",
            "path": "/client/v4/accounts/a1/logpush/validate/destination",
            "headers": JSON,
            "body": {"destination_conf": "https://logs.example.com/in"},
        },
        "request",
        "loosens",
    ),
    Deviation(
        "Instant Logs at edge/jobs",
        "Instant Logs jobs are at `/zones/{zone_id}/logpush/edge`",
        "they are at `/zones/{zone_id}/logpush/edge/jobs`",
        'SDK 5.9 resources/logpush/edge.py (`"/zones/{zone_id}/logpush/edge/jobs"`); docs logs/instant-logs.mdx',
        _instant_logs_path,
        {"method": "GET", "path": "/client/v4/zones/z1/logpush/edge/jobs"},
        "request",
        "loosens",
    ),
    Deviation(
        "validate/origin may name the dataset",
        "the validate/origin body is `{logpull_options}`",
        "it may also carry `dataset`, whose fields the options are checked against",
        "docs logs/logpush/logpush-job/api-configuration.mdx (Options: the validate/origin example sends "
        '`"dataset": "http_requests"`)',
        _origin_dataset,
        {
            "method": "POST",
            "path": "/client/v4/zones/z1/logpush/validate/origin",
            "headers": JSON,
            "body": {"logpull_options": "fields=RayID&timestamps=rfc3339", "dataset": "http_requests"},
        },
        "request",
        "loosens",
    ),
    Deviation(
        "Instant Logs failures are the v4 failure",
        "a failure of the Instant Logs operations is `allOf` the success answer and the failure, which no answer "
        "satisfies (`success` both true and false)",
        "it is the v4 failure envelope, as for every other operation",
        "the schema itself: every other log-push operation's 4XX is `logpush_api-response-common-failure` alone",
        _instant_logs_failures,
        {
            "method": "POST",
            "path": "/client/v4/zones/z1/logpush/edge/jobs",
            "status": 400,
            "answer": {"success": False, "errors": [{"code": 1004, "message": "no"}], "messages": [], "result": None},
        },
        "answer",
        "loosens",
    ),
    Deviation(
        "the fields result is a flat map",
        "the fields result is an object with `items` (an array keyword, so any object passes)",
        "`{field name: description}`, every description a string",
        'the operation\'s own description ("keys are field names, and values are descriptions"); SDK 5.9 '
        "types/logpush/datasets/field_get_response.py (`Dict[str, str]`)",
        _fields_result,
        {
            "method": "GET",
            "path": "/client/v4/zones/z1/logpush/datasets/http_requests/fields",
            "status": 200,
            "answer": {"success": True, "errors": [], "messages": [], "result": {"ClientIP": 1}},
        },
        "answer",
        "tightens",
    ),
    Deviation(
        "DELETE has no body",
        "deleting a job requires a JSON request body (of no schema)",
        "the delete sends no body",
        "SDK 5.9 resources/logpush/jobs.py (`delete` sends none); docs logs/logpush/examples/"
        "example-logpush-curl.mdx (Delete a job)",
        _delete_without_body,
        {"method": "DELETE", "path": "/client/v4/zones/z1/logpush/jobs/1"},
        "request",
        "loosens",
    ),
    Deviation(
        "transformer_id on a job",
        "a job has no `transformer_id`",
        "a job's create and update bodies and its record take `transformer_id` (an integer; null detaches it)",
        'docs logs/logpush/transformers.mdx (API: "To attach or detach a transformer from a job, set '
        '`transformer_id` on the Logpush job")',
        _transformer_id,
        _create(transformer_id=1),
        "request",
        "loosens",
    ),
    Deviation(
        "transformers",
        "there are no `.../logpush/transformers` paths",
        "eight account operations: list, create, preview, get, content, versions, update, delete, of SDK 5.9's shapes",
        "docs logs/logpush/transformers.mdx (API table); SDK 5.9 resources/logpush/transformers/ and "
        "types/logpush/transformer_*.py, types/logpush/transformers/",
        _transformers,
        {"method": "GET", "path": "/client/v4/accounts/a1/logpush/transformers"},
        "request",
        "loosens",
    ),
]


def patched(document: Document, *, without: str | None = None) -> Document:
    """A copy of `document` with every deviation applied (but the one named `without`)."""
    doc = copy.deepcopy(document)
    for deviation in DEVIATIONS:
        if deviation.name != without:
            deviation.patch(doc)
    return doc
