"""What a filter may do with each field, from Python (issue 29): ``escpush.field_operators``
(SPEC table B.1 per field, the core's answer), the operators' meanings and value shapes the
builder widget lists, and ``Field.op``, a condition with an operator given by name."""

from __future__ import annotations

import pytest

import escpush
from escpush import Filter, FilterError, field
from escpush._escpush import _OPERATORS

B1 = {
    "string": ["eq", "!eq", "startsWith", "endsWith", "!startsWith", "!endsWith", "contains", "!contains", "in", "!in"],
    "int": ["eq", "!eq", "lt", "leq", "gt", "geq", "in", "!in"],
    "bool": ["eq", "!eq"],
    "array[string]": ["contains", "!contains", "in", "!in"],
    "object": [],
}


def test_field_operators_follow_table_b1_by_the_fields_type() -> None:
    types = escpush.dataset_fields("http_requests")
    ops = escpush.field_operators("http_requests")
    assert list(ops) == list(types)
    assert ops["ClientRequestHost"] == B1["string"]
    assert ops["EdgeResponseStatus"] == B1["int"]
    assert ops["WorkerSubrequest"] == B1["bool"]
    assert ops["RequestHeaders"] == B1["object"]
    assert ops["EdgeStartTimestamp"] == B1["string"][:2] + B1["int"][2:6] + B1["string"][2:]  # int or string


def test_fields_that_validation_refuses_take_no_operator() -> None:
    # Unfilterable by the dataset's docs (firewall_events' limitations) or with no documented type.
    firewall = escpush.field_operators("firewall_events", "zone")
    assert escpush.dataset_fields("firewall_events", "zone")["WAFRequestSignatureRefs"] == "unknown"
    assert firewall["WAFRequestSignatureRefs"] == []
    assert escpush.field_operators("http_requests")["MatchedRules"] == []
    for name, offered in escpush.field_operators("http_requests").items():
        for op, _meaning, takes_set in _OPERATORS:
            value = ["1"] if takes_set else "1"
            problems = field(name).op(op, value).problems("http_requests")
            refused = any(p["path"].endswith((".key", ".operator")) for p in problems)
            assert (op in offered) == (not refused), (name, op, problems)


def test_unknown_dataset_is_refused_with_a_hint() -> None:
    with pytest.raises(escpush.InvalidInput, match="http_requests"):
        escpush.field_operators("http_request")


def test_operators_in_table_order_with_their_meaning_and_shape() -> None:
    assert [name for name, _, _ in _OPERATORS] == B1["string"][:2] + B1["int"][2:6] + B1["string"][2:]
    meanings = {name: meaning for name, meaning, _ in _OPERATORS}
    assert meanings["!startsWith"] == "does not start with"
    assert meanings["in"] == "value is in a set"
    assert [name for name, _, takes_set in _OPERATORS if takes_set] == ["in", "!in"]


@pytest.mark.parametrize(
    ("name", "value", "built"),
    [
        ("eq", "x", field("A").eq("x")),
        ("!eq", True, field("A").ne(True)),
        ("geq", 500, field("A").ge(500)),
        ("lt", "5", field("A").lt("5")),
        ("startsWith", "/api", field("A").starts_with("/api")),
        ("!endsWith", ".js", field("A").not_ends_with(".js")),
        ("contains", "bot", field("A").contains("bot")),
        ("in", [200, 201], field("A").is_in([200, 201])),
        ("!in", {"b", "a"}, field("A").not_in({"a", "b"})),
    ],
)
def test_op_builds_as_the_named_builder(name: str, value: object, built: Filter) -> None:
    assert field("A").op(name, value) == built  # type: ignore[arg-type]


def test_op_refuses_an_unknown_operator_as_parse_does() -> None:
    with pytest.raises(FilterError) as err:
        field("A").op("gte", 500)
    with pytest.raises(FilterError) as parsed:
        Filter.parse('{"where": {"key": "A", "operator": "gte", "value": 500}}')
    [problem] = err.value.errors()
    assert problem == {**parsed.value.errors()[0], "path": "operator"}
    assert problem["message"] == "unknown operator `gte`; did you mean `geq`?"
    with pytest.raises(FilterError, match="takes a str"):
        field("A").op("startsWith", 5)
