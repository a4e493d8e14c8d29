"""The ESC endpoints (`/{zones|accounts}/{id}/disable_esc`) as the seed describes them.

No published schema, SDK or Terraform provider has them (shared/api/README.md): the seed
(SPEC 2.1, 3 and 4) is their only description, so these shapes are written by hand from it,
in the schema's own terms, and checked by the same validator. Where the seed says "not shown"
(the answers of POST and DELETE), only the v4 envelope is checked.
"""

from __future__ import annotations

from typing import Any

# SPEC 2.1: `always` shows only the value true; `with_secret` holds at most 100 characters.
_SETTING = {
    "type": "object",
    "properties": {
        "always": {"type": "boolean", "enum": [True]},
        "with_secret": {"type": "string", "maxLength": 100},
    },
}
_ENVELOPE = {"$ref": "#/components/schemas/logpush_api-response-common"}
_FAILURE = {
    "4XX": {
        "description": "the v4 envelope's failure",
        "content": {
            "application/json": {"schema": {"$ref": "#/components/schemas/logpush_api-response-common-failure"}}
        },
    }
}


def _ok(result: dict[str, Any]) -> dict[str, Any]:
    schema = {"allOf": [_ENVELOPE, {"properties": {"result": result}}]}
    return {"200": {"description": "SPEC 4", "content": {"application/json": {"schema": schema}}}, **_FAILURE}


def esc_paths() -> dict[str, Any]:
    """SPEC 4's eight operations: GET (the setting), POST (`{always: true}` or
    `{with_secret}`), DELETE (no body), on a zone and on an account."""
    paths = {}
    for scope in ("zone_id", "account_id"):
        parameter = [{"in": "path", "name": scope, "required": True, "schema": {"type": "string"}}]
        post_body = {
            "oneOf": [
                {
                    "type": "object",
                    "properties": {"always": {"type": "boolean", "enum": [True]}},
                    "required": ["always"],
                },
                {
                    "type": "object",
                    "properties": {"with_secret": {"type": "string", "maxLength": 100}},
                    "required": ["with_secret"],
                },
            ]
        }
        paths[f"/{scope.split('_')[0]}s/{{{scope}}}/disable_esc"] = {
            "get": {"parameters": parameter, "responses": _ok(_SETTING)},
            "post": {
                "parameters": parameter,
                "requestBody": {"required": True, "content": {"application/json": {"schema": post_body}}},
                "responses": _ok({}),
            },
            "delete": {"parameters": parameter, "responses": _ok({})},
        }
    return paths
