"""The filter builder's rows and what they say, without any widget package.

The rows are the dashboard's form (SPEC B.3): a group (``and`` or ``or``) of rows (Field,
Operator, Value) and of groups. This module turns rows into the filter document they say and
a filter into rows, and reports on them. Every rule it shows comes from escpush's core: the
fields and their types (``dataset_fields``), the operators each field takes (``field_operators``,
table B.1), the operators' meaning and value shape (``_OPERATORS``), how a value becomes a
filter value (``field(key).op(...)``), problems, limits, the text form and canonical JSON (the
``Filter`` itself). What is its own is how a row's text box is read (``read_scalar``).
"""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Mapping, Sequence
from typing import Any, TypedDict, Union

from .. import _escpush, _format  # _format.plural: the one wording of a count
from .._escpush import (
    DEFAULT_MAX_BYTES,
    DEFAULT_MAX_OPERATORS,
    Filter,
    dataset_fields,
    datasets,
    field,
    field_operators,
)
from ..errors import FilterError, InvalidInput

# How a row's value box is read, by the field's documented type: integers for number fields
# (and timestamps, `int or string`), true/false for bool fields, the text as typed otherwise.
_NUMBER_TYPES = frozenset({"int", "float", "array[int]", "int or string"})
_BOOL_TYPES = frozenset({"bool"})
_INTEGER = re.compile(r"-?[0-9]+")

RowValue = Union[str, list[str]]


class FieldInfo(TypedDict):
    name: str
    type: str
    operators: list[str]
    kind: str


class OperatorInfo(TypedDict):
    name: str
    meaning: str
    takes_set: bool


def kind_of(field_type: str | None) -> str:
    """How the value box of a field of this documented type is read: ``number``, ``bool``
    or ``text``."""
    if field_type in _NUMBER_TYPES:
        return "number"
    if field_type in _BOOL_TYPES:
        return "bool"
    return "text"


def read_scalar(text: str, kind: str) -> str | int | bool:
    """A value box's text as a filter value: an integer on a number field, true or false on a
    bool field, else the text as typed (which the core then judges)."""
    if kind == "number" and _INTEGER.fullmatch(text.strip()):
        return int(text.strip())
    if kind == "bool" and text.strip() in ("true", "false"):
        return text.strip() == "true"
    return text


def show_scalar(value: object) -> str:
    """A filter value as its value box shows it."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return value
    return json.dumps(value)


def show_value(value: object) -> RowValue:
    if isinstance(value, list):
        return [show_scalar(v) for v in value]
    return show_scalar(value)


def resolve_scope(dataset: str, scope: str | None) -> str:
    """The scope the dataset is taken from: the one given, else zone where the name is a zone
    dataset (as the core takes it), else account. Raises ``InvalidInput`` for an unknown
    dataset (with what was probably meant), as ``dataset_fields`` does."""
    dataset_fields(dataset, scope)  # the core's check and its message
    if scope is not None:
        return scope
    return "zone" if dataset in datasets("zone") else "account"


def schema(dataset: str, scope: str) -> dict[str, Any]:
    """What the front end needs to draw rows for ``dataset``: its fields with their types and
    the operators each takes, the operators, and the datasets to choose from."""
    types = dataset_fields(dataset, scope)
    operators = field_operators(dataset, scope)
    fields: list[FieldInfo] = [
        {"name": name, "type": t, "operators": operators[name], "kind": kind_of(t)} for name, t in types.items()
    ]
    ops: list[OperatorInfo] = [
        {"name": name, "meaning": meaning, "takes_set": takes_set} for name, meaning, takes_set in _escpush._OPERATORS
    ]
    return {
        "dataset": dataset,
        "scope": scope,
        "fields": fields,
        "operators": ops,
        "datasets": [{"name": d, "scope": s} for s in ("zone", "account") for d in datasets(s)],
    }


_TAKES_SET = {name: takes_set for name, _meaning, takes_set in _escpush._OPERATORS}


class Rows:
    """A tree of rows and groups, the originals of the values drawn from a filter, and the
    filter document the rows say.

    A tree is ``{"id", "join": "and" | "or", "items": [...]}``; an item is a row
    ``{"id", "key", "operator", "value"}`` (``value`` the text of the value box, a list of
    texts for ``in`` / ``!in``) or a group. The top group stands for ``where``: with one item,
    ``where`` is that item; with more, the group itself. A value drawn from a filter keeps its
    exact form (``500`` or ``"500"``) until its row is edited.
    """

    def __init__(self) -> None:
        self._ids = itertools.count(1)
        # row id -> (key, operator, value as shown, the filter's value)
        self.originals: dict[str, tuple[str, str, RowValue, Any]] = {}

    def new_id(self, prefix: str = "r") -> str:
        return f"{prefix}{next(self._ids)}"

    def empty(self) -> dict[str, Any]:
        return {"id": self.new_id("g"), "join": "and", "items": []}

    # -- a filter to rows -------------------------------------------------------------------

    def draw(self, f: Filter | None) -> dict[str, Any]:
        """The tree of rows that says ``f`` (an empty tree for no filter)."""
        self.originals.clear()
        if f is None:
            return self.empty()
        where = f.to_dict()["where"]
        if "key" in where:
            return {"id": self.new_id("g"), "join": "and", "items": [self._draw(where)]}
        join = "and" if "and" in where else "or"
        if len(where[join]) == 1:  # a group of one stays a group, so that the rows say `f`
            return {"id": self.new_id("g"), "join": "and", "items": [self._draw(where)]}
        return {"id": self.new_id("g"), "join": join, "items": [self._draw(e) for e in where[join]]}

    def _draw(self, expr: dict[str, Any]) -> dict[str, Any]:
        if "key" in expr:
            row_id = self.new_id()
            key, operator, value = expr["key"], expr["operator"], expr["value"]
            shown = show_value(value)
            self.originals[row_id] = (key, operator, shown, value)
            return {"id": row_id, "key": key, "operator": operator, "value": shown}
        join = "and" if "and" in expr else "or"
        return {"id": self.new_id("g"), "join": join, "items": [self._draw(e) for e in expr[join]]}

    # -- rows to a filter document ----------------------------------------------------------

    def document(self, tree: dict[str, Any], kinds: dict[str, str]) -> tuple[dict[str, Any] | None, dict[str, str]]:
        """The filter document the rows say (None for no rows), and the path in it of every
        row and group (``where.and[1].or[0]``), to put each problem beside its row."""
        paths: dict[str, str] = {}
        items = tree.get("items") or []
        if not items:
            return None, paths
        if len(items) == 1:
            where = self._expr(items[0], "where", kinds, paths)
        else:
            paths[str(tree.get("id"))] = "where"
            where = self._group(tree, "where", kinds, paths)
        return {"where": where}, paths

    def _group(self, node: dict[str, Any], path: str, kinds: dict[str, str], paths: dict[str, str]) -> dict[str, Any]:
        join = "or" if node.get("join") == "or" else "and"
        items = node.get("items") or []
        return {join: [self._expr(item, f"{path}.{join}[{i}]", kinds, paths) for i, item in enumerate(items)]}

    def _expr(self, node: dict[str, Any], path: str, kinds: dict[str, str], paths: dict[str, str]) -> dict[str, Any]:
        paths[str(node.get("id"))] = path
        if "items" in node:
            return self._group(node, path, kinds, paths)
        return self.condition(node, kinds)

    def condition(self, row: dict[str, Any], kinds: dict[str, str]) -> dict[str, Any]:
        """A row as a condition: the value drawn from a filter while the row is as drawn,
        else the value box read for the field's type and written as ``field(key).op`` writes
        it; what the builder refuses goes as read, for the filter's parse to report in place."""
        key = str(row.get("key", ""))
        operator = str(row.get("operator", ""))
        shown: RowValue = row.get("value", "")
        original = self.originals.get(str(row.get("id")))
        if original is not None and original[:3] == (key, operator, shown):
            return {"key": key, "operator": operator, "value": original[3]}
        kind = kinds.get(key, "text")
        value: Any
        if isinstance(shown, list):
            value = [read_scalar(str(v), kind) for v in shown]
            if not _TAKES_SET.get(operator, True) and len(value) == 1:
                value = value[0]
        else:
            value = read_scalar(str(shown), kind)
            if _TAKES_SET.get(operator, False):
                value = [value] if shown != "" else []
        try:
            built: dict[str, Any] = field(key).op(operator, value).to_dict()["where"]
        except (FilterError, InvalidInput):
            return {"key": key, "operator": operator, "value": value}
        return built


def parse_rows(document: dict[str, Any] | None) -> Filter | None:
    """The filter a rows document says: exactly what ``Filter.parse`` makes of its JSON."""
    if document is None:
        return None
    return Filter.parse(json.dumps(document))


def parse_text(text: str) -> Filter | None:
    """The filter of the text box: JSON or the text form (``Filter.parse_any``); None if blank."""
    if not text.strip():
        return None
    return Filter.parse_any(text)


# What the panel beside the rows shows: parsed, valid, empty, problems (and their count in
# words, `problem_count`: `_format.plural`'s `2 problems`), operator_count, byte_size,
# max_operators, max_bytes, text, json.
Report = dict[str, Any]


def place(problems: Sequence[Mapping[str, Any]], paths: dict[str, str]) -> list[dict[str, Any]]:
    """Each problem with the id of the row or group it is about (the longest path of one that
    starts its path), or None for the filter as a whole."""
    placed = []
    for p in problems:
        path = str(p.get("path", ""))
        best: tuple[int, str | None] = (-1, None)
        for node, at in paths.items():
            if (path == at or path.startswith(at + ".")) and len(at) > best[0]:
                best = (len(at), node)
        placed.append({**p, "node": best[1]})
    return placed


def report(
    make: Any,
    paths: dict[str, str],
    dataset: str,
    scope: str,
    max_operators: int | None,
    max_bytes: int | None,
) -> tuple[Report, Filter | None, FilterError | None]:
    """What the rows (or the text) say, for the panel beside them: the problems (those of
    parsing, else those of ``problems(dataset)``), the operator count and byte size against the
    limits, the text form and canonical JSON; with the filter, or the error of making it.
    ``make`` returns the filter or raises ``FilterError``."""
    limits_ops = DEFAULT_MAX_OPERATORS if max_operators is None else max_operators
    limits_bytes = DEFAULT_MAX_BYTES if max_bytes is None else max_bytes
    base: Report = {
        "parsed": False,
        "valid": False,
        "empty": False,
        "problems": [],
        "problem_count": _format.plural(0, "problem"),
        "operator_count": None,
        "byte_size": None,
        "max_operators": limits_ops,
        "max_bytes": limits_bytes,
        "text": None,
        "json": None,
    }
    try:
        f = make()
    except FilterError as err:
        base["problems"] = place(err.errors(), paths)
        base["problem_count"] = _format.plural(len(base["problems"]), "problem")
        return base, None, err
    if f is None:
        base.update({"parsed": True, "valid": True, "empty": True})
        return base, None, None
    problems = f.problems(dataset, scope=scope, max_operators=max_operators, max_bytes=max_bytes)
    base.update(
        {
            "parsed": True,
            "valid": not problems,
            "problems": place(problems, paths),
            "problem_count": _format.plural(len(problems), "problem"),
            "operator_count": f.operator_count,
            "byte_size": f.byte_size,
            "text": f.to_text(),
            "json": f.to_json(),
        }
    )
    return base, f, None
