"""Generated filters and records: round trips, and the Rust evaluator against a plain one."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings

from escpush import Filter
from reference_eval import evaluate
from strategies import FILTERS, RECORDS, has_numeric


def canonical(expr: Any) -> Any:
    """``expr`` in the spelling every filter holds (SPEC B.1): an integer compared by a
    single-value operator as its text, the values of ``in`` / ``!in`` as written."""
    if isinstance(expr, dict) and "key" in expr:
        value = expr["value"]
        single = expr["operator"] not in ("in", "!in")
        if single and isinstance(value, int) and not isinstance(value, bool):
            value = str(value)
        return {**expr, "value": value}
    if isinstance(expr, dict):
        return {k: canonical(v) if k == "where" else [canonical(e) for e in v] for k, v in expr.items()}
    return expr


@settings(max_examples=300, deadline=None)
@given(FILTERS)
def test_parse_print_round_trip(doc: dict[str, Any]) -> None:
    f = Filter.from_dict(doc)
    assert f.to_dict() == canonical(doc)
    text = f.to_json()
    assert json.loads(text) == canonical(doc)
    again = Filter.parse(text)
    assert again == f and hash(again) == hash(f)
    assert again.to_json() == text, "printing is deterministic"
    assert Filter.parse(json.dumps(text)) == f, "the quoted form"
    assert Filter.parse(json.dumps(doc, indent=1, ensure_ascii=True)) == f
    assert f.byte_size == len(text.encode())


@settings(max_examples=500, deadline=None)
@given(FILTERS, RECORDS)
def test_matches_agrees_with_the_reference_evaluator(doc: dict[str, Any], record: dict[str, Any]) -> None:
    f = Filter.from_dict(doc)
    expected = evaluate(doc["where"], record)
    assert f.matches(record) == expected
    assert f.matches(json.dumps(record)) == expected, "the same record as a JSON line"


@settings(max_examples=300, deadline=None)
@given(FILTERS, RECORDS)
def test_invert_is_exact_without_numeric_operators(doc: dict[str, Any], record: dict[str, Any]) -> None:
    f = Filter.from_dict(doc)
    if not has_numeric(doc["where"]):
        assert (~f).matches(record) == (not f.matches(record))
    assert ~~f == f


@settings(max_examples=200, deadline=None)
@given(FILTERS, FILTERS, RECORDS)
def test_and_or_combine_like_python(a: dict[str, Any], b: dict[str, Any], record: dict[str, Any]) -> None:
    fa, fb = Filter.from_dict(a), Filter.from_dict(b)
    assert (fa & fb).matches(record) == (fa.matches(record) and fb.matches(record))
    assert (fa | fb).matches(record) == (fa.matches(record) or fb.matches(record))
    assert (fa & fb).operator_count == fa.operator_count + fb.operator_count
