"""Input that once crashed or misled: cycles and deep nesting, truthiness, numbers and
strings the parser misread, the one depth limit, linear building, closed job fields."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest

from escpush import Filter, FilterError, InvalidInput, field
from escpush.testing import Emulator

MAX_DEPTH = 64  # escpush_filter::MAX_DEPTH
ZONE = "023e105f4ecef8ad9ca31a8372d0c353"
S3 = "s3://bucket/logs?region=us-east-1&access-key-id=AKID-TEST&secret-access-key=SAK-TEST"
COND = {"key": "A", "operator": "in", "value": ["x"]}


def nested(groups: int) -> dict[str, Any]:
    expr: dict[str, Any] = COND
    for i in range(groups):
        expr = {"and" if i % 2 else "or": [expr]}
    return {"where": expr}


def codes(exc: pytest.ExceptionInfo[FilterError]) -> list[str]:
    return [p["code"] for p in exc.value.errors()]


# Issue 17.1: cycles and deep nesting raise, like json.dumps, instead of crashing.


def test_a_record_list_that_contains_itself_is_refused() -> None:
    loop: list[Any] = ["a"]
    loop.append(loop)
    with pytest.raises(ValueError, match="Circular reference"):
        json.dumps(loop)
    with pytest.raises(InvalidInput, match="contains itself"):
        field("A").contains("a").matches({"A": loop})


def test_a_very_deep_record_list_is_refused() -> None:
    deep: list[Any] = ["a"]
    for _ in range(10_000):
        deep = [deep]
    with pytest.raises(InvalidInput, match="nests lists more than"):
        field("A").contains("a").matches({"A": deep})
    # A shared (not cyclic) list is fine, as json.dumps finds it.
    shared = ["a"]
    assert field("A").contains("a").matches({"A": [shared, shared, "a"]})


def test_a_filter_dict_that_contains_itself_is_refused() -> None:
    loop: dict[str, Any] = {"key": "A", "operator": "eq"}
    loop["value"] = loop
    with pytest.raises(FilterError, match="contains itself") as exc:
        Filter.from_dict({"where": loop})
    assert exc.value.errors()[0]["path"] == "where.value"
    group: dict[str, Any] = {"and": []}
    group["and"].append(group)
    with pytest.raises(FilterError, match="contains itself"):
        Filter.from_dict({"where": group})


def test_ten_thousand_nested_groups_from_a_dict_are_too_deep() -> None:
    with pytest.raises(FilterError) as exc:
        Filter.from_dict(nested(10_000))
    assert codes(exc) == ["too_deep"]


# Issue 17.6: a Filter has no truth value.


def test_a_filter_has_no_truth_value() -> None:
    f = field("EdgeResponseStatus") >= 500
    with pytest.raises(TypeError, match="no truth value"):
        bool(f)
    with pytest.raises(TypeError, match="chained comparison"):
        500 <= field("EdgeResponseStatus") < 600  # noqa: B015
    with pytest.raises(TypeError, match="no truth value"):
        field("ClientCountry") in ["cn", "ru"]  # noqa: B015
    # What works without truthiness keeps working: equality, membership by equality.
    assert f == (field("EdgeResponseStatus") >= 500)
    assert f in [field("A") == "x", f]
    assert f is not None


# Issue 17.11: numbers and strings read as the line evaluator reads them.


def test_minus_zero_is_the_integer_zero() -> None:
    f = Filter.parse('{"where": {"key": "A", "operator": "geq", "value": -0}}')
    assert f.to_dict()["where"]["value"] == "0"  # a single value is held as its text (SPEC B.1)
    assert f.matches('{"A": -0}') and f.matches({"A": 0})


@pytest.mark.parametrize(
    ("value", "code", "message"),
    [
        (str(2**70), "integer_out_of_range", f"{2**70} is outside the 64-bit integer range"),
        ("1e400", "invalid_value", "1e400 is not an integer"),
        ("-1E400", "invalid_value", "-1E400 is not an integer"),
    ],
)
def test_numbers_are_named_as_written(value: str, code: str, message: str) -> None:
    with pytest.raises(FilterError) as exc:
        Filter.parse(f'{{"where": {{"key": "A", "operator": "eq", "value": {value}}}}}')
    [problem] = exc.value.errors()
    assert (problem["path"], problem["code"]) == ("where.value", code)
    assert problem["message"].startswith(message)


def test_a_lone_surrogate_is_named_as_such() -> None:
    with pytest.raises(FilterError) as exc:
        Filter.parse(r'{"where": {"key": "A", "operator": "eq", "value": "\ud800"}}')
    [problem] = exc.value.errors()
    assert problem["code"] == "invalid_value"
    assert "`\\ud800` is a lone surrogate" in problem["message"]
    assert "never equals a filter value" in problem["message"]
    # The scanner accepts it in a log line, as documented; prefixes still match.
    assert field("A").starts_with("x").matches(r'{"A": "x\ud800"}')


# Issue 17.12: one depth limit everywhere; linear building.


def test_the_depth_limit_is_the_same_for_parse_dicts_and_builders() -> None:
    at_limit = Filter.from_dict(nested(MAX_DEPTH))
    assert Filter.parse(at_limit.to_json()) == at_limit
    assert Filter.from_dict(at_limit.to_dict()) == at_limit
    assert "<" in at_limit._repr_html_()
    with pytest.raises(FilterError) as exc:
        Filter.from_dict(nested(MAX_DEPTH + 1))
    assert codes(exc) == ["too_deep"]
    with pytest.raises(FilterError) as exc:
        Filter.parse(json.dumps(nested(MAX_DEPTH + 1)))
    assert codes(exc) == ["too_deep"]
    with pytest.raises(FilterError) as exc:
        Filter.parse('{"where": ' + '{"and": [' * 500 + json.dumps(COND) + "]}" * 500 + "}")
    assert codes(exc) == ["too_deep"]
    leaf = field("A") == "x"
    built = leaf
    for i in range(MAX_DEPTH):
        built = (leaf & built) if i % 2 else (leaf | built)
    assert Filter.parse(built.to_json()) == built
    with pytest.raises(FilterError) as exc:
        _ = (leaf & built) if MAX_DEPTH % 2 else (leaf | built)
    assert codes(exc) == ["too_deep"]


def test_combining_in_a_loop_is_linear() -> None:
    conditions = [field("ClientIP") == f"10.0.{i // 256}.{i % 256}" for i in range(40_000)]
    started = time.perf_counter()
    f = conditions[0]
    for c in conditions[1:]:
        f = f & c
    assert f.operator_count == 40_000
    assert len(f.to_dict()["where"]["and"]) == 40_000
    # Quadratic copying took over a minute here; linear building takes a fraction of a second.
    assert time.perf_counter() - started < 20


# Issue 17.10: closed job fields.


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"frequency": "medium"}, '`frequency` is "medium"; it takes one of "high", "low"'),
        ({"kind": "bogus"}, '`kind` is "bogus"; it takes one of "", "edge"'),
        ({"max_upload_records": 5}, "`max_upload_records` is 5; it takes 1000 to 1000000, or 0 to turn it off"),
    ],
)
def test_closed_job_fields_are_checked_before_sending(
    escpush_emulator: Emulator, fields: dict[str, Any], message: str
) -> None:
    zone = escpush_emulator.client().zone(ZONE)
    with pytest.raises(InvalidInput) as exc:
        zone.logpush.create_job(destination_conf=S3, dataset="http_requests", **fields)
    [name] = fields
    assert [(p["path"], p["code"]) for p in exc.value.errors()] == [(name, "invalid_value")]
    assert message in str(exc.value)
    assert escpush_emulator.requests() == []
    job = zone.logpush.create_job(destination_conf=S3, dataset="http_requests", frequency="low", kind="")
    assert job["frequency"] == "low"


def test_a_job_field_that_contains_itself_is_refused(escpush_emulator: Emulator) -> None:
    loop: dict[str, Any] = {}
    loop["self"] = loop
    zone = escpush_emulator.client().zone(ZONE)
    with pytest.raises(InvalidInput, match="contains itself"):
        zone.logpush.create_job(destination_conf=S3, dataset="http_requests", output_options=loop)
    assert escpush_emulator.requests() == []
