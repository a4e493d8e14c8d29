"""A plain reference evaluator for log-push filters, written from DESIGN.md's rules.

It works on the JSON form of a filter (a dict) and a record (a dict), with nothing
clever, so that the Rust evaluator can be checked against it:

* a missing (or None) field makes a condition false, so its ``!`` form is true;
* scalars compare by canonical text: bool -> "true"/"false", int -> decimal, str as is;
  floats, lists and dicts have none;
* lt/leq/gt/geq: the field must be a number (not a bool), the value an integer;
* startsWith/endsWith: the field must be a str;
* contains: substring of a str, element equality in a list;
* in: the field's text (or any element's, for a list) is in the set.
"""

from __future__ import annotations

from typing import Any

NEGATIONS = {"!eq": "eq", "!startsWith": "startsWith", "!endsWith": "endsWith", "!contains": "contains", "!in": "in"}


def canon(v: Any) -> str | None:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, str)):
        return str(v)
    return None


def _holds(op: str, x: Any, value: Any) -> bool:
    if op == "eq":
        return canon(x) is not None and canon(x) == canon(value)
    if op in ("lt", "leq", "gt", "geq"):
        if isinstance(x, bool) or not isinstance(x, (int, float)):
            return False
        v = int(value)
        return {"lt": x < v, "leq": x <= v, "gt": x > v, "geq": x >= v}[op]
    if op == "startsWith":
        return isinstance(x, str) and x.startswith(canon(value) or "")
    if op == "endsWith":
        return isinstance(x, str) and x.endswith(canon(value) or "")
    if op == "contains":
        if isinstance(x, str):
            return (canon(value) or "") in x
        return isinstance(x, list) and any(canon(e) is not None and canon(e) == canon(value) for e in x)
    if op == "in":
        texts = {canon(v) for v in value}
        if isinstance(x, list):
            return any(canon(e) is not None and canon(e) in texts for e in x)
        return canon(x) is not None and canon(x) in texts
    raise AssertionError(op)


def evaluate(expr: dict[str, Any], record: dict[str, Any]) -> bool:
    """Evaluates the expression under ``where`` on one record."""
    if "and" in expr:
        return all(evaluate(e, record) for e in expr["and"])
    if "or" in expr:
        return any(evaluate(e, record) for e in expr["or"])
    op = expr["operator"]
    negated = op in NEGATIONS
    base = NEGATIONS.get(op, op)
    x = record.get(expr["key"])
    held = x is not None and _holds(base, x, expr["value"])
    return held != negated
