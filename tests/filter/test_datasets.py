"""The embedded dataset schemas against Cloudflare's docs (issue 24): the account
``websocket_analytics`` fields, the fields typed from the docs' pages, a field whose type the
docs do not give (reported, not let through every operator), and the emulator's fields
endpoint answering the docs' descriptions."""

from __future__ import annotations

import pytest

import escpush
from escpush import FilterError, field
from escpush.testing import Emulator

# The account page as published (2026-06-29, 2026-09-14) and the 2026-09-15 field list.
WEBSOCKET = {
    "BytesReceivedClient": "int",
    "BytesReceivedOrigin": "int",
    "BytesSentClient": "int",
    "BytesSentOrigin": "int",
    "ClientASN": "int",
    "ClientIP": "string",
    "ClientRequestHost": "string",
    "ClientRequestPath": "string",
    "ClientRequestUserAgent": "string",
    "ColoCode": "string",
    "ConnectionCloseReason": "string",
    "ConnectionCloseSource": "string",
    "ConnectionID": "string",
    "ConnectionTransportCloseCode": "int",
    "EdgeEndTimestamp": "int or string",
    "EdgeStartTimestamp": "int or string",
    "RayID": "string",
}

# The fields no docs page gives a type for (scripts/dataset_corrections.json, `undocumented`).
UNDOCUMENTED = [
    ("zone", "firewall_events", "WAFRequestSignatureCategories"),
    ("zone", "firewall_events", "WAFRequestSignatureRefs"),
    ("account", "dex_application_tests", "HTTPRedirectEndMs"),
    ("account", "dex_application_tests", "HTTPRedirectStartMs"),
    ("account", "dex_application_tests", "HTTPResponseBody"),
    ("account", "dex_application_tests", "HTTPResponseHeaders"),
    ("account", "firewall_events", "WAFRequestSignatureCategories"),
    ("account", "firewall_events", "WAFRequestSignatureRefs"),
    ("account", "gateway_http", "ExperimentalFeatures"),
    ("account", "gateway_http", "PackageInfo"),
]


def test_account_websocket_analytics_has_the_account_page_fields() -> None:
    assert escpush.dataset_fields("websocket_analytics", scope="account") == WEBSOCKET
    assert escpush.dataset_fields("websocket_analytics", scope="zone") == WEBSOCKET
    [problem] = (field("byteRecvDownlink") > 0).problems("websocket_analytics", scope="account")
    assert problem["code"] == "unknown_field"


def test_only_the_undocumented_fields_are_untyped() -> None:
    untyped = [
        (scope, name, key)
        for scope in ("zone", "account")
        for name in escpush.datasets(scope)
        for key, ty in escpush.dataset_fields(name, scope=scope).items()
        if ty == "unknown"
    ]
    assert untyped == UNDOCUMENTED


def test_fields_typed_from_the_docs_pages() -> None:
    zone = escpush.dataset_fields("firewall_events", scope="zone")
    assert (zone["AISecurityCustomTopicCategories"], zone["ZoneName"]) == ("object", "string")
    assert escpush.dataset_fields("warp_config_changes")["UserEmail"] == "string"
    # An object: no operator applies (it was untyped, so every one passed).
    [problem] = field("AISecurityCustomTopicCategories").contains("x").problems("firewall_events")
    assert (problem["code"], problem["path"]) == ("field_not_filterable", "where.key")
    assert (field("ZoneName").ends_with(".example.com")).problems("firewall_events") == []
    [problem] = (field("ZoneName") > 3).problems("firewall_events")
    assert problem["code"] == "operator_not_supported"


@pytest.mark.parametrize(("scope", "dataset", "key"), UNDOCUMENTED)
def test_a_filter_on_an_untyped_field_is_reported(scope: str, dataset: str, key: str) -> None:
    f = field(key) == "x"
    [problem] = f.problems(dataset, scope=scope)
    assert problem == {
        "path": "where.key",
        "code": "untyped_field",
        "message": f"`{key}` has no documented type in {dataset} ({scope}): Cloudflare's docs do not give it, "
        "so which operators apply cannot be checked",
    }
    with pytest.raises(FilterError, match="untyped_field"):
        f.validate(dataset, scope=scope)
    # Only validation against the dataset is concerned: the filter evaluates as before.
    assert f.problems() == []
    assert f.matches({key: "x"}) and not f.matches({key: "y"})


def test_the_fields_endpoint_answers_the_docs_descriptions(escpush_emulator: Emulator) -> None:
    client = escpush_emulator.client()
    zone = client.zone("023e105f4ecef8ad9ca31a8372d0c353").logpush
    account = client.account("01a7362d577a6c3019a474fd6f485823").logpush
    http = zone.fields("http_requests")
    assert http["ClientIP"] == "IP address of the client."
    assert http["EdgeResponseStatus"] == "HTTP status code returned by Cloudflare to the client."
    assert zone.fields("firewall_events")["ZoneName"] == (
        "The human-readable name of the zone (for example, 'cloudflare.com')."
    )
    websocket = account.fields("websocket_analytics")
    assert websocket["ConnectionID"] == "Unique identifier of the WebSocket connection, hex-encoded."
    assert list(websocket) == sorted(WEBSOCKET)
    # A field the docs neither type nor describe answers an empty description.
    assert account.fields("gateway_http")["PackageInfo"] == ""
    for name in escpush.datasets("zone"):
        assert not any(d.endswith(" field") for d in zone.fields(name).values()), name
