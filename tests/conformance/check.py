"""The check of one exchange (a request and its answer, as the emulator's log keeps them)
against Cloudflare's published log-push schema, corrected by the deviations.

The validation itself is `openapi-schema-validator`'s (OpenAPI 3.0 schemas: `nullable`,
`enum`, `pattern`, ranges, `required`) with `jsonschema`'s format checks (`date-time`,
`uri`, `uri-reference`) and its own (`float`, `int32`, ...). What this module adds:

- the operation of a request: its path matched to the schema's path templates, the path's
  parameters checked against their schemas, the request body against the operation's
  `requestBody` and the answer against the response of its status (`200`, else `4XX`);
- `$ref`s inlined and `allOf`s merged into one schema, so that every object that lists its
  `properties` can be **closed** (`additionalProperties: false`): the published schema leaves
  its objects open (OpenAPI's default), which would let a misspelt key, or a record that
  echoes a secret, pass. Closing them is the one way this check is stricter than the file.

The log masks secrets (`***`), so what they were is not checked: an `ownership_challenge`,
or a `destination_conf` the log masks whole (one core cannot parse, like Instant Logs'
`wss://` session address), stands in as a value its schema accepts; a masked `with_secret`
(ESC) is checked as the string `***`, and a destination's credentials as `***` within its URI.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from jsonschema import FormatChecker
from openapi_schema_validator import OAS30ReadValidator, OAS30WriteValidator, oas30_format_checker

SCHEMA_FILE = Path(__file__).parent.parent / "data" / "cloudflare-logpush-openapi-2024-08-07.json"
BASE = "/client/v4"
# The paths checked: a zone's or an account's log-push paths (the published schema's subject)
# and `disable_esc` (the seed's shapes, conformance/esc.py).
CHECKED_PATH = re.compile(r"^/(zones|accounts)/[^/]+/(logpush(/|$)|disable_esc/?$)")
MASK = "***"
# What a value the log masked whole is checked as: one its schema accepts.
MASK_STANDINS = {"ownership_challenge": "masked-in-the-log", "destination_conf": "masked://in-the-log"}
# What the failure answer of any log-push path is (a path or method the API does not have).
FAILURE = "#/components/schemas/logpush_api-response-common-failure"


def load_document() -> dict[str, Any]:
    """The published document as embedded, unchanged."""
    with SCHEMA_FILE.open(encoding="utf-8") as f:
        document: dict[str, Any] = json.load(f)
    return document


def format_checker() -> FormatChecker:
    """jsonschema's checks (every format it knows) and OpenAPI 3.0's own."""
    checker = FormatChecker()
    for name, check in oas30_format_checker.checkers.items():
        checker.checkers[name] = check
    return checker


FORMATS = format_checker()


@dataclass(frozen=True)
class Violation:
    """One way an exchange departs from the schema."""

    side: str  # "request" or "answer"
    method: str
    path: str  # as sent, without /client/v4
    operation: str | None  # "POST /zones/{zone_id}/logpush/jobs", None when the schema has none
    status: int | None
    where: str  # the place in the body ("result.ownership_challenge"), "" for the whole
    message: str

    def __str__(self) -> str:
        status = f" -> {self.status}" if self.status is not None else ""
        at = f" at `{self.where}`" if self.where else ""
        return f"{self.side} of {self.method} {self.path}{status}{at}: {self.message}"


def _pointer(document: Mapping[str, Any], ref: str) -> Any:
    if not ref.startswith("#/"):
        raise ValueError(f"only local references are expected, not {ref!r}")
    node: Any = document
    for part in ref[2:].split("/"):
        node = node[part.replace("~1", "/").replace("~0", "~")]
    return node


# Keywords whose value is data (not a schema): merged branches may differ there.
_ANNOTATIONS = frozenset({"description", "example", "default", "title", "deprecated", "externalDocs"})


def _accepts_null(schema: Mapping[str, Any]) -> bool:
    return "type" not in schema or bool(schema.get("nullable", False))


class _Conflict(Exception):
    """Two `allOf` branches constrain one keyword differently."""


def _merge(a: dict[str, Any], b: Mapping[str, Any]) -> dict[str, Any]:
    """Two schemas an instance must both satisfy (two `allOf` branches), as one."""
    out = dict(a)
    for key, value in b.items():
        if key == "nullable":
            continue
        if key not in out:
            out[key] = value
        elif key == "properties":
            props = dict(out[key])
            for name, schema in value.items():
                props[name] = _merge(props[name], schema) if name in props else schema
            out[key] = props
        elif key == "required":
            out[key] = sorted(set(out[key]) | set(value))
        elif key in _ANNOTATIONS or out[key] == value:
            continue
        else:
            raise _Conflict(key)
    if "type" in out:
        out["nullable"] = _accepts_null(a) and _accepts_null(b)
    return out


def inline(document: Mapping[str, Any], node: Any, depth: int = 0) -> Any:
    """`node` with its `$ref`s replaced by their targets, its `allOf`s merged and every
    object that lists its properties closed."""
    if depth > 64:
        raise ValueError("the schema's references go too deep (a cycle?)")
    if not isinstance(node, dict):
        return node
    if "$ref" in node:  # OpenAPI 3.0: a reference's siblings are ignored
        return inline(document, _pointer(document, node["$ref"]), depth + 1)
    out = dict(node)
    if isinstance(out.get("properties"), dict):
        out["properties"] = {k: inline(document, v, depth + 1) for k, v in out["properties"].items()}
    for key in ("items", "not", "additionalProperties"):
        if isinstance(out.get(key), dict):
            out[key] = inline(document, out[key], depth + 1)
    for key in ("allOf", "anyOf", "oneOf"):
        if key in out:
            out[key] = [inline(document, s, depth + 1) for s in out[key]]
    if "allOf" in out:
        branches = out.pop("allOf")
        merged = out
        try:
            for branch in branches:
                merged = _merge(merged, branch)
            out = merged
        except _Conflict:  # kept as they are: each closed, the instance must pass both
            out["allOf"] = branches
    if "properties" in out and "additionalProperties" not in out:
        out["additionalProperties"] = False
    return out


@dataclass(frozen=True)
class Operation:
    method: str
    template: str
    pattern: re.Pattern[str]
    parameters: dict[str, dict[str, Any]]  # path parameter -> its schema (inlined)
    takes_body: bool  # whether the operation declares a request body
    body: dict[str, Any] | None  # its schema (inlined), None: none given
    body_required: bool
    responses: dict[str, dict[str, Any] | None]  # "200", "4XX" -> schema (None: no content)

    @property
    def key(self) -> str:
        return f"{self.method} {self.template}"


def _template_pattern(template: str) -> re.Pattern[str]:
    parts = re.split(r"(\{[^}]+\})", template)
    regex = "".join(f"(?P<{p[1:-1]}>[^/]+)" if p.startswith("{") else re.escape(p) for p in parts)
    return re.compile(f"^{regex}$")


def _json_schema(document: Mapping[str, Any], content: Mapping[str, Any] | None) -> dict[str, Any] | None:
    media = (content or {}).get("application/json")
    if media is None or "schema" not in media:
        return None
    schema: dict[str, Any] = inline(document, media["schema"])
    return schema


def operations(document: Mapping[str, Any]) -> list[Operation]:
    """Every operation of the document, its schemas inlined and closed."""
    out = []
    for template, item in document["paths"].items():
        for method, op in item.items():
            if method not in {"get", "put", "post", "delete", "patch"}:
                continue
            params = {
                p["name"]: inline(document, p["schema"])
                for p in (inline(document, p) for p in op.get("parameters", []) + item.get("parameters", []))
                if p["in"] == "path"
            }
            request = op.get("requestBody")
            responses = {
                str(status): _json_schema(document, inline(document, answer).get("content"))
                for status, answer in op["responses"].items()
            }
            out.append(
                Operation(
                    method=method.upper(),
                    template=template,
                    pattern=_template_pattern(template),
                    parameters=params,
                    takes_body=request is not None,
                    body=_json_schema(document, request.get("content")) if request else None,
                    body_required=bool(request and request.get("required")),
                    responses=responses,
                )
            )
    return out


def _where(error: Any) -> str:
    parts = []
    for p in error.absolute_path:
        parts.append(f"[{p}]" if isinstance(p, int) else (f".{p}" if parts else str(p)))
    return "".join(parts)


def _errors(validator: Any, instance: Any) -> list[tuple[str, str]]:
    found = []
    for error in validator.iter_errors(instance):
        found.append((_where(error), error.message if len(error.message) < 300 else error.message[:300] + "..."))
    return sorted(found)


def _unmask(body: Any) -> Any:
    """The logged body with each value masked whole replaced by a stand-in its schema accepts."""
    if isinstance(body, dict):
        return {k: MASK_STANDINS[k] if k in MASK_STANDINS and v == MASK else _unmask(v) for k, v in body.items()}
    if isinstance(body, list):
        return [_unmask(v) for v in body]
    return body


def _path_value(schema: Mapping[str, Any], text: str) -> Any:
    if schema.get("type") == "integer" and re.fullmatch(r"-?[0-9]+", text):
        return int(text)
    return text


class Checker:
    """The schema's operations (the document given, deviations applied by the caller)."""

    def __init__(self, document: Mapping[str, Any]) -> None:
        self.document = copy.deepcopy(dict(document))
        self.operations = operations(self.document)
        self.failure = inline(self.document, {"$ref": FAILURE})

    def operation(self, method: str, path: str) -> tuple[Operation | None, dict[str, str], bool]:
        """The operation of `method path` (without /client/v4), its path parameters, and
        whether the path is one of the schema's at all (with another method)."""
        known = False
        path = path.rstrip("/") or "/"  # the emulator reads `/x/` as `/x`
        for op in self.operations:
            m = op.pattern.match(path)
            if m:
                known = True
                if op.method == method:
                    return op, m.groupdict(), True
        return None, {}, known

    def in_scope(self, entry: Mapping[str, Any]) -> bool:
        """Whether the logged request is one the check describes (log-push or ESC)."""
        path = str(entry["path"])
        return path.startswith(BASE) and bool(CHECKED_PATH.match(path[len(BASE) :]))

    def check(self, entry: Mapping[str, Any], *, request: bool = True, answer: bool = True) -> list[Violation]:
        """Every violation of one logged exchange (`Emulator.requests()` entry): its request
        (when `request`), its answer (when `answer` and the API answered: not a fault, not a
        dropped connection)."""
        method, full = str(entry["method"]), str(entry["path"])
        path = full[len(BASE) :] if full.startswith(BASE) else full
        status = entry.get("status")
        op, params, known = self.operation(method, path)
        key = op.key if op else None
        found: list[Violation] = []

        def add(side: str, where: str, message: str) -> None:
            found.append(Violation(side, method, path, key, status, where, message))

        if request:
            if op is None:
                add(
                    "request",
                    "",
                    f"the schema has no {method} on this path" if known else "the schema has no such path",
                )
            else:
                for name, value in params.items():
                    validator = OAS30WriteValidator(op.parameters[name], format_checker=FORMATS)
                    for where, message in _errors(validator, _path_value(op.parameters[name], value)):
                        add("request", f"path parameter {name}{where}", message)
                body = entry.get("body")
                headers = entry.get("headers") or {}
                if body is None:
                    if op.body_required:
                        add("request", "", "the operation requires a JSON body; none was sent")
                elif not op.takes_body:
                    add("request", "", "the operation takes no body; one was sent")
                else:
                    content_type = str(headers.get("content-type", ""))
                    if not content_type.lower().startswith("application/json"):
                        add("request", "", f"a JSON body needs Content-Type: application/json, not {content_type!r}")
                    if op.body is not None:
                        validator = OAS30WriteValidator(op.body, format_checker=FORMATS)
                        for where, message in _errors(validator, _unmask(body)):
                            add("request", where, message)
        if answer and status is not None and entry.get("fault") is None:
            schema: dict[str, Any] | None
            if op is None:
                schema = self.failure if 400 <= status < 500 else None
                if schema is None:
                    add("answer", "", f"answered {status} to an operation the schema does not have")
            else:
                declared = op.responses.get(str(status), op.responses.get(f"{status // 100}XX", False))
                if declared is False:
                    declared = op.responses.get("default", False)
                if declared is False:
                    add("answer", "", f"the status {status} is not one the operation declares ({sorted(op.responses)})")
                    schema = None
                else:
                    schema = declared
            body = entry.get("answer")
            if schema is not None:
                if body is None:
                    add("answer", "", "the operation answers a JSON body; none was kept (empty?)")
                else:
                    validator = OAS30ReadValidator(schema, format_checker=FORMATS)
                    for where, message in _errors(validator, _unmask(body)):
                        add("answer", where, message)
        return found
