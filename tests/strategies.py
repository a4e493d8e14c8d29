"""Hypothesis strategies of filters and records, shared by the property tests of several
areas (tests/filter/, tests/scan/, tests/reliability/): filter documents over a few keys with
every operator, and records whose values are of every JSON kind."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

__all__ = ["FILTERS", "KEYS", "NUMERIC", "RECORDS", "has_numeric"]

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
