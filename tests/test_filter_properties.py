"""Generated filters and records: round trips, and the Rust evaluator against a plain one."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from escpush import Filter
from reference_eval import evaluate

KEYS = ["A", "B", "C", 'Héllo "k"']
OPERATORS = ["eq", "!eq", "lt", "leq", "gt", "geq", "startsWith", "endsWith", "!startsWith", "!endsWith"]
OPERATORS += ["contains", "!contains", "in", "!in"]
NUMERIC = {"lt", "leq", "gt", "geq"}

INT64 = st.integers(min_value=-(2**63), max_value=2**63 - 1)
TEXT = st.one_of(
    st.text(max_size=6),
    st.sampled_from(["", "200", "0200", "-5", "true", "false", "a", "ab", "é", '"', "\\", "\n"]),
)
SCALAR = st.one_of(TEXT, INT64, st.booleans(), st.integers(-300, 300))


@st.composite
def conditions(draw: st.DrawFn) -> dict[str, Any]:
    op = draw(st.sampled_from(OPERATORS))
    if op in ("in", "!in"):
        value: Any = draw(st.lists(SCALAR, min_size=1, max_size=4))
    elif op in NUMERIC:
        n = draw(st.one_of(st.integers(-300, 300), INT64))
        value = draw(st.sampled_from([n, str(n)]))
    else:
        value = draw(SCALAR)
    return {"key": draw(st.sampled_from(KEYS)), "operator": op, "value": value}


EXPRS = st.recursive(
    conditions(),
    lambda children: st.one_of(
        st.builds(lambda xs: {"and": xs}, st.lists(children, min_size=1, max_size=4)),
        st.builds(lambda xs: {"or": xs}, st.lists(children, min_size=1, max_size=4)),
    ),
    max_leaves=12,
)
FILTERS = st.builds(lambda e: {"where": e}, EXPRS)

FIELD_VALUE = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-300, 300),
    INT64,
    st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from([200.0, -5.0, 0.5]),
    TEXT,
    st.lists(st.one_of(TEXT, st.integers(-300, 300), st.booleans(), st.none()), max_size=4),
    st.dictionaries(st.text(max_size=2), st.integers(), max_size=2),
)
RECORDS = st.dictionaries(st.sampled_from(KEYS), FIELD_VALUE, max_size=len(KEYS))


def has_numeric(expr: dict[str, Any]) -> bool:
    if "and" in expr or "or" in expr:
        return any(has_numeric(e) for e in expr.get("and", expr.get("or", [])))
    return expr["operator"] in NUMERIC


@settings(max_examples=300, deadline=None)
@given(FILTERS)
def test_parse_print_round_trip(doc: dict[str, Any]) -> None:
    f = Filter.from_dict(doc)
    assert f.to_dict() == doc
    text = f.to_json()
    assert json.loads(text) == doc
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
