"""escpush.widget.FilterBuilder from Python (issue 29): what its rows say for every operator on
every field type, nesting, an incomplete row (its problem shown, ``filter`` refusing as
``Filter.parse`` does), the round trip from existing filters, the text form, the dataset, the
sample's counts, and the error naming the extra when anywidget is missing. The front end in a
browser: test_browser.py."""

from __future__ import annotations

import copy
import gzip
import json
import os
import re
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import escpush
from escpush import Filter, FilterError, field
from escpush._escpush import _OPERATORS
from escpush._format import percent, plural, size
from escpush.widget import FilterBuilder
from strategies import FILTERS

TAKES_SET = {name for name, _, takes_set in _OPERATORS if takes_set}


def row(key: str, operator: str, value: Any, row_id: str = "n1") -> dict[str, Any]:
    return {"id": row_id, "key": key, "operator": operator, "value": value}


def group(join: str, *items: dict[str, Any], group_id: str = "g0") -> dict[str, Any]:
    return {"id": group_id, "join": join, "items": list(items)}


def edit(builder: FilterBuilder, tree: dict[str, Any]) -> None:
    """What the front end does: sends a new tree, as JSON (so no Python object is shared)."""
    builder.set_state({"tree": json.loads(json.dumps(tree))})


def one_field_per_type(dataset: str = "http_requests") -> dict[str, str]:
    """A filterable field of every documented type the dataset has."""
    out: dict[str, str] = {}
    ops = escpush.field_operators(dataset)
    for name, t in escpush.dataset_fields(dataset).items():
        if ops[name] and t not in out:
            out[t] = name
    return out


def test_the_front_end_gets_the_cores_fields_types_and_operators() -> None:
    b = FilterBuilder()
    fields = {f["name"]: f for f in b.schema["fields"]}
    assert list(fields) == list(escpush.dataset_fields("http_requests"))
    for name, ops in escpush.field_operators("http_requests").items():
        assert fields[name]["operators"] == ops
        assert fields[name]["type"] == escpush.dataset_fields("http_requests")[name]
    assert [(o["name"], o["meaning"], o["takes_set"]) for o in b.schema["operators"]] == list(_OPERATORS)
    assert {"name": "gateway_dns", "scope": "account"} in b.schema["datasets"]
    assert b.filter is None and b.report["empty"] and b.report["valid"]


FIELDS = one_field_per_type()


TEXT_OPERATORS = {"startsWith", "endsWith", "!startsWith", "!endsWith"}
# What a person types for a field of each kind, and what the filter then holds (before the
# builders' writing of single integers as strings): two values, for the lists of in / !in.
TYPED = {"number": [("500", 500), ("501", 501)], "bool": [("true", True)], "text": [("/api", "/api"), ("/b", "/b")]}
OPERATOR_TYPE = [(t, op) for t, name in FIELDS.items() for op in escpush.field_operators("http_requests")[name]]


@pytest.mark.parametrize(("field_type", "operator"), OPERATOR_TYPE)
def test_every_operator_on_every_field_type(field_type: str, operator: str) -> None:
    key = FIELDS[field_type]
    b = FilterBuilder()
    kind = next(f["kind"] for f in b.schema["fields"] if f["name"] == key)
    typed = TYPED["text" if operator in TEXT_OPERATORS else kind]  # text operators take text everywhere
    if operator in TAKES_SET:
        shown: Any = [text for text, _ in typed]
        expected = field(key).op(operator, [value for _, value in typed])
    else:
        shown, value = typed[0]
        expected = field(key).op(operator, value)
    edit(b, group("and", row(key, operator, shown)))
    assert b.filter == expected, (b.filter, expected)
    assert b.report["valid"], b.problems
    assert b.report["json"] == expected.to_json()
    assert b.report["text"] == expected.to_text()
    assert (b.report["operator_count"], b.report["byte_size"]) == (1, expected.byte_size)


def test_every_type_and_operator_of_table_b1_is_covered() -> None:
    assert set(FIELDS) >= {"string", "int", "float", "bool", "array[string]", "array[int]", "int or string"}
    assert {op for _, op in OPERATOR_TYPE} == {op for op, _, _ in _OPERATORS}


REFUSING = [t for t, name in FIELDS.items() if len(escpush.field_operators("http_requests")[name]) < len(_OPERATORS)]


@pytest.mark.parametrize("field_type", REFUSING)
def test_an_operator_the_type_does_not_take_is_shown_on_its_row(field_type: str) -> None:
    key = FIELDS[field_type]
    allowed = escpush.field_operators("http_requests")[key]
    op = next(op for op, _, _ in _OPERATORS if op not in allowed)
    b = FilterBuilder()
    edit(b, group("and", row(key, op, ["5"] if op in TAKES_SET else "5", row_id="bad")))
    [problem] = [p for p in b.problems if p["code"] == "operator_not_supported"]
    assert problem["node"] == "bad" and problem["path"] == "where.operator"
    assert ", ".join(allowed) in problem["message"]
    assert b.filter is not None and not b.report["valid"]  # a filter, which the dataset refuses


def test_groups_nest_as_the_spec_shows() -> None:
    b = FilterBuilder()
    x = row("ClientRequestHost", "endsWith", ".example.com", "x")
    y = row("EdgeResponseStatus", "geq", "500", "y")
    z = row("ClientCountry", "in", ["cn", "ru"], "z")
    edit(b, group("and", x, group("or", y, z, group_id="g1")))  # X AND (Y OR Z)
    fx = field("ClientRequestHost").ends_with(".example.com")
    fy = field("EdgeResponseStatus") >= 500
    fz = field("ClientCountry").is_in(["cn", "ru"])
    assert b.filter == fx & (fy | fz)
    edit(b, group("or", group("and", x, y, group_id="g1"), z))  # (X AND Y) OR Z
    assert b.filter == (fx & fy) | fz
    # Deeper, and a group of one: exactly the document the rows say.
    edit(b, group("and", group("or", group("and", x, group_id="g2"), y, group_id="g1")))
    assert b.filter == Filter.from_dict({"where": {"or": [{"and": [fx.to_dict()["where"]]}, fy.to_dict()["where"]]}})
    # Problems sit on the row they are about, however deep.
    edit(b, group("and", x, group("or", y, row("ClientCountry", "in", [], "empty"), group_id="g1")))
    [problem] = b.problems
    assert (problem["path"], problem["code"], problem["node"]) == ("where.and[1].or[1].value", "empty_set", "empty")


def test_an_incomplete_row_shows_its_problem_and_filter_raises_what_parse_raises() -> None:
    b = FilterBuilder()
    rows = group(
        "and",
        row("EdgeResponseStatus", "geq", "lots", "a"),
        row("", "eq", "x", "b"),
        row("ClientCountry", "in", [], "c"),
        group("or", group_id="g1"),
    )
    edit(b, rows)
    document = {
        "where": {
            "and": [
                {"key": "EdgeResponseStatus", "operator": "geq", "value": "lots"},
                {"key": "", "operator": "eq", "value": "x"},
                {"key": "ClientCountry", "operator": "in", "value": []},
                {"or": []},
            ]
        }
    }
    with pytest.raises(FilterError) as parsed:
        Filter.parse(json.dumps(document))
    with pytest.raises(FilterError) as got:
        b.filter  # noqa: B018 - the property raises
    assert got.value.errors() == parsed.value.errors()
    assert str(got.value) == str(parsed.value)
    assert [(p["node"], p["code"]) for p in b.problems] == [
        ("a", "not_an_integer"),
        ("b", "empty_key"),
        ("c", "empty_set"),
        ("g1", "empty_group"),
    ]
    assert not b.report["parsed"] and b.report["json"] is None
    assert repr(b) == "FilterBuilder(dataset='http_requests', filter=<not a filter: 4 problems>)"
    # Fixed, the filter is there again.
    edit(b, group("and", row("EdgeResponseStatus", "geq", "500", "a")))
    assert b.filter == (field("EdgeResponseStatus") >= 500)
    assert repr(b) == f"FilterBuilder(dataset='http_requests', filter={b.filter!r})"


def test_a_misspelt_field_is_shown_with_what_was_meant() -> None:
    b = FilterBuilder()
    edit(b, group("and", row("ClientRequestHots", "endsWith", ".example.com", "a")))
    [problem] = b.problems
    assert problem["node"] == "a" and problem["code"] == "unknown_field"
    assert "did you mean `ClientRequestHost`?" in problem["message"]
    edit(b, group("and", row("ClientRequestHost", "gte", "5", "a")))
    assert "did you mean `geq`?" in b.problems[0]["message"] and b.problems[0]["node"] == "a"


def test_limits_are_shown_against_the_filter() -> None:
    b = FilterBuilder(max_operators=2, max_bytes=120)
    edit(b, group("or", *(row("ClientCountry", "eq", c, f"r{c}") for c in ("aa", "bb", "cc"))))
    assert (b.report["operator_count"], b.report["max_operators"], b.report["max_bytes"]) == (3, 2, 120)
    assert {p["code"] for p in b.problems} == {"too_many_operators", "too_large"}
    assert all(p["node"] is None for p in b.problems)
    assert b.report["byte_size"] == b.filter.byte_size  # type: ignore[union-attr]


ROUND_TRIPS = [
    field("EdgeResponseStatus") >= 500,
    Filter.parse('{"where":{"key":"EdgeResponseStatus","operator":"geq","value":500}}'),  # 500, not "500"
    Filter.parse('{"where":{"key":"EdgeResponseStatus","operator":"eq","value":"abc"}}'),
    Filter.parse('{"where":{"key":"WorkerSubrequest","operator":"eq","value":"true"}}'),
    Filter.parse('{"where":{"key":"ClientRequestHost","operator":"eq","value":5}}'),
    Filter.parse('{"where":{"and":[{"key":"ClientCountry","operator":"in","value":["cn",1,true]}]}}'),
    Filter.parse('{"where":{"or":[{"and":[{"or":[{"key":"A","operator":"eq","value":" x "}]}]}]}}'),
    (field("ClientRequestHost").ends_with(".example.com") & (field("EdgeResponseStatus") >= 500))
    | field("ClientCountry").is_in(["cn", "ru"]),
]


@pytest.mark.parametrize("f", ROUND_TRIPS, ids=str)
def test_a_builder_opened_on_a_filter_says_that_filter(f: Filter) -> None:
    for given_as in (f, f.to_json(), f.to_text(), f.to_dict(), json.dumps(f.to_json())):
        b = FilterBuilder(filter=given_as)
        assert b.mode == "rows"
        assert b.filter == f
        edit(b, copy.deepcopy(b.tree))  # the front end sends the rows back untouched
        assert b.filter == f


@settings(max_examples=60, deadline=None)
@given(FILTERS)
def test_any_filter_round_trips_through_the_rows(document: dict[str, Any]) -> None:
    f = Filter.from_dict(document)
    b = FilterBuilder(filter=f)
    edit(b, b.tree)
    assert b.filter == f
    # Every value typed again as it is shown: the same filter in meaning.
    retyped = json.loads(json.dumps(b.tree))

    def forget(node: dict[str, Any]) -> None:
        node["id"] = "typed-" + node["id"]
        for item in node.get("items", []):
            forget(item)

    forget(retyped)
    edit(b, retyped)
    assert b.filter is not None and b.filter.equivalent(f)


def test_editing_a_drawn_row_writes_the_value_as_the_builders_do() -> None:
    f = Filter.parse('{"where":{"key":"EdgeResponseStatus","operator":"geq","value":500}}')
    b = FilterBuilder(filter=f)
    tree = copy.deepcopy(b.tree)
    tree["items"][0]["value"] = "502"
    edit(b, tree)
    assert b.filter == (field("EdgeResponseStatus") >= 502)
    assert b.report["json"] == '{"where":{"key":"EdgeResponseStatus","operator":"geq","value":"502"}}'
    tree["items"][0]["value"] = "500"  # typed back as it was: the value as it was
    edit(b, tree)
    assert b.filter == f
    tree["items"][0]["operator"] = "gt"  # another operator: read again, as the builders write it
    edit(b, tree)
    assert b.filter == (field("EdgeResponseStatus") > 500)
    b.filter = f  # the setter draws a filter again
    assert b.filter == f and b.tree["items"][0]["value"] == "500"


def test_text_that_is_not_a_filter_is_shown_as_text_with_its_problems() -> None:
    b = FilterBuilder(filter="EdgeResponseStatus >== 500")
    assert b.mode == "text" and b.text == "EdgeResponseStatus >== 500"
    with pytest.raises(FilterError) as parsed:
        Filter.parse_any("EdgeResponseStatus >== 500")
    with pytest.raises(FilterError) as got:
        b.filter  # noqa: B018
    assert got.value.errors() == parsed.value.errors()
    assert "did you mean `>=`?" in b.problems[0]["message"]
    b.set_state({"mode": "rows"})  # cannot be drawn yet: stays text
    assert b.mode == "text"
    b.set_state({"text": 'EdgeResponseStatus >= 500 and ClientCountry in ["cn"]'})
    assert b.filter == Filter.from_text('EdgeResponseStatus >= 500 and ClientCountry in ["cn"]')
    b.set_state({"mode": "rows"})
    assert b.mode == "rows" and len(b.tree["items"]) == 2
    assert b.filter == Filter.from_text('EdgeResponseStatus >= 500 and ClientCountry in ["cn"]')
    b.set_state({"mode": "text"})  # and back: the text form of the rows
    assert b.text == b.filter.to_text()  # type: ignore[union-attr]


def test_the_dataset_can_change_and_the_rows_are_judged_against_it() -> None:
    b = FilterBuilder("http_requests", filter=field("ClientRequestHost") == "a.example.com")
    assert b.report["valid"]
    b.set_state({"dataset": "dns_logs", "scope": "zone"})
    assert b.schema["dataset"] == "dns_logs"
    assert [f["name"] for f in b.schema["fields"]] == list(escpush.dataset_fields("dns_logs"))
    assert [p["code"] for p in b.problems] == ["unknown_field"]
    account = FilterBuilder("firewall_events", scope="account")
    assert account.scope == "account" and account.schema["scope"] == "account"
    assert FilterBuilder("gateway_dns").scope == "account"
    with pytest.raises(escpush.InvalidInput, match="http_requests"):
        FilterBuilder("http_request")


def write_logs(path: Path) -> Path:
    with gzip.open(path, "wt") as out:
        for status, country in [(200, "us"), (503, "cn"), (502, "de"), (404, "ru")]:
            out.write(json.dumps({"EdgeResponseStatus": status, "ClientCountry": country}) + "\n")
        out.write('{"EdgeResponseStatus": 500\n')
    return path


def test_the_sample_shows_what_the_filter_keeps(tmp_path: Path) -> None:
    logs = write_logs(tmp_path / "sample.ndjson.gz")
    f = field("EdgeResponseStatus") >= 500
    b = FilterBuilder(filter=f, sample=logs, debounce=0.0)
    result = b.wait_for_sample(30)
    scanned = f.scan(logs, limit=5)
    assert result is not None
    counts = ("total", "matched", "malformed", "bytes", "matched_bytes", "first_malformed", "lines")
    assert [getattr(result, c) for c in counts] == [getattr(scanned, c) for c in counts]
    shown = b.sample_report
    assert shown["status"] == "done" and shown["filter"] == f.to_json()
    assert (shown["matched"], shown["total"], shown["malformed"]) == (2, 5, 1)
    assert shown["summary"] == f.scan(logs).summary
    assert shown["lines"] == f.scan(logs, limit=5).lines
    assert shown["sample"] == str(logs)
    # Another filter: scanned again; back to the first: from the counts already made.
    edit(b, group("and", row("ClientCountry", "in", ["cn"], "a")))
    again = b.wait_for_sample(30)
    assert again is not None and again.matched == 1 and b.sample_report["matched"] == 1
    b.filter = f
    assert b.sample_report["status"] == "done" and b.sample_report["filter"] == f.to_json()
    cached = b.wait_for_sample(0)
    assert cached is not None and cached.matched == 2


def test_the_scans_kept_are_bounded(tmp_path: Path) -> None:
    """A long session keeps at most the last 32 scans of the sample, the newest at hand."""
    from escpush import widget

    logs = write_logs(tmp_path / "sample.ndjson.gz")
    b = FilterBuilder(filter=field("EdgeResponseStatus") >= 0, sample=logs, debounce=0.0)
    assert b.wait_for_sample(30) is not None
    for n in range(1, widget._SCANS_KEPT + 8):
        b.filter = field("EdgeResponseStatus") >= n
        assert b.wait_for_sample(30) is not None
    assert len(b._scanned) == widget._SCANS_KEPT
    assert (b.filter.to_json(), b.breakdown) in b._scanned  # type: ignore[union-attr]


def test_the_sample_is_broken_down_by_a_chosen_field(tmp_path: Path) -> None:
    logs = write_logs(tmp_path / "sample.ndjson.gz")
    f = field("EdgeResponseStatus") >= 500
    b = FilterBuilder(filter=f, sample=logs, debounce=0.0, breakdown="ClientCountry")
    assert b.wait_for_sample(30) is not None
    expected = f.scan(logs, group_by="ClientCountry", top=10).breakdown
    assert expected is not None
    assert b.sample_report["breakdown"]["groups"] == expected["groups"]
    assert {g["label"]: (g["matched"], g["lines"]) for g in expected["groups"]} == {
        "cn": (1, 1),
        "de": (1, 1),
        "us": (0, 1),
        "ru": (0, 1),
    }
    # What the table shows is made by escpush's formatters and `_breakdown.rows`, the rest row
    # included, not restated by the front end (issue 34).
    shown = b.sample_report["shown"]
    assert [(g["label"], g["kept"], g["share"], g["rest"]) for g in shown["groups"]] == [
        (g["label"], f"{g['matched']} / {g['lines']}", percent(g["matched"], g["lines"]), False)
        for g in expected["groups"]
    ]
    report = b.sample_report
    assert (shown["line_share"], shown["bytes"]) == (percent(report["matched"], report["total"]), size(report["bytes"]))
    b.set_state({"breakdown": "EdgeResponseStatus"})  # chosen in the widget: scanned again
    result = b.wait_for_sample(30)
    assert result is not None and result.breakdown is not None
    assert result.breakdown["group_by"] == ["EdgeResponseStatus"]
    assert b.sample_report["breakdown"] == result.breakdown
    b.set_state({"breakdown": ""})
    assert b.wait_for_sample(30) is not None and b.sample_report["breakdown"] is None


def test_the_sample_is_scanned_only_for_a_valid_filter_and_after_a_pause(tmp_path: Path) -> None:
    logs = write_logs(tmp_path / "sample.ndjson.gz")
    b = FilterBuilder(sample=[logs], debounce=0.2)
    assert b.sample_report["status"] == "empty"
    edit(b, group("and", row("ClientRequestHots", "eq", "x", "a")))  # a problem: no scan
    assert b.sample_report["status"] == "invalid"
    assert b.wait_for_sample(5) is None
    # Keystrokes: each change cancels the scan waiting; the last filter is the one scanned.
    for typed in ("5", "50", "503"):
        edit(b, group("and", row("EdgeResponseStatus", "eq", typed, "a")))
        assert b.sample_report["status"] == "waiting"
    result = b.wait_for_sample(30)
    assert result is not None and result.matched == 1
    assert b.sample_report["filter"] == (field("EdgeResponseStatus") == 503).to_json()


def test_a_scan_of_rows_changed_since_is_stopped(tmp_path: Path) -> None:
    # The sample is a pipe fed a line every 50 ms for minutes: the scan of the first rows is
    # under way when they change, and must stop then (its reader closes the pipe), not run on.
    fifo = tmp_path / "live.ndjson"
    os.mkfifo(fifo)
    stopped = threading.Event()

    def feed() -> None:
        try:
            with fifo.open("w") as out:
                for _ in range(4000):
                    out.write('{"EdgeResponseStatus": 503}\n')
                    out.flush()
                    time.sleep(0.05)
        except BrokenPipeError:
            stopped.set()

    threading.Thread(target=feed, daemon=True).start()
    b = FilterBuilder(filter=field("EdgeResponseStatus") >= 500, sample=fifo, debounce=0.0)
    deadline = time.monotonic() + 30
    while "read_lines" not in b.sample_report and time.monotonic() < deadline:
        time.sleep(0.05)  # until the scan reports its progress: it is reading
    assert b.sample_report["status"] == "scanning"
    edit(b, group("and", row("EdgeResponseStatus", "geq", "lots", "a")))  # not a filter: nothing to scan
    assert stopped.wait(30), "the superseded scan went on reading"
    assert b.sample_report["status"] == "invalid" and b.wait_for_sample(5) is None


def test_a_sample_that_cannot_be_read_is_reported(tmp_path: Path) -> None:
    b = FilterBuilder(filter=field("EdgeResponseStatus") >= 500, sample=tmp_path / "missing.gz", debounce=0.0)
    assert b.wait_for_sample(30) is None
    assert b.sample_report["status"] == "error" and "missing.gz" in b.sample_report["error"]


@pytest.mark.parametrize("sample", [123, [123], ["logs/", 5], b"logs/"])
def test_a_sample_of_the_wrong_type_is_refused_when_the_builder_is_made(sample: object) -> None:
    with pytest.raises(TypeError, match=r"sample is a log file, folder or glob .* not (int|bytes)"):
        FilterBuilder(sample=sample)  # type: ignore[arg-type]


def test_without_anywidget_the_error_names_the_extra() -> None:
    code = (
        "import sys\n"
        "sys.modules['anywidget'] = None  # as if not installed\n"
        "import escpush\n"
        "try:\n"
        "    import escpush.widget\n"
        "except ImportError as err:\n"
        "    print(err)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == (
        "escpush.widget needs the anywidget package, which is not installed: pip install 'escpush[widget]'"
        " (the notebook widget: https://escpush.github.io/escpush/widget/)"
    )


def test_notebook_01_shows_the_builder() -> None:
    notebook = Path(__file__).resolve().parents[2] / "notebooks" / "01_build_and_validate_filters.ipynb"
    sources = "".join("".join(c["source"]) for c in json.loads(notebook.read_text())["cells"])
    assert "FilterBuilder(" in sources and "builder.filter" in sources


def test_property_filter_has_no_stale_state() -> None:
    b = FilterBuilder()
    edit(b, group("and", row("ClientCountry", "eq", "us", "a")))
    first = b.filter
    edit(b, group("and", row("ClientCountry", "eq", "de", "a")))
    assert first == (field("ClientCountry") == "us") and b.filter == (field("ClientCountry") == "de")
    edit(b, group("and"))
    assert b.filter is None and b.report["empty"]


def test_typed_values_follow_the_fields_type() -> None:
    b = FilterBuilder()
    cases = [
        ("EdgeResponseStatus", "in", [" 200", "201 "], [200, 201]),
        ("EdgeResponseStatus", "eq", "abc", "abc"),
        ("WorkerSubrequest", "eq", "false", False),
        ("ClientRequestHost", "eq", "200", "200"),
        ("ClientRequestHost", "eq", " spaced ", " spaced "),
        ("EdgeStartTimestamp", "geq", "1700000000", "1700000000"),
        ("EdgeStartTimestamp", "eq", "2026-11-22T00:00:00Z", "2026-11-22T00:00:00Z"),
    ]
    for key, op, typed, value in cases:
        edit(b, group("and", row(key, op, typed, "a")))
        assert b.filter is not None and b.filter.to_dict()["where"]["value"] == value, (key, typed)
    # The value box keeps its text when the operator changes shape (a list for `in`).
    edit(b, group("and", row("ClientCountry", "in", "cn", "a")))
    assert b.filter == field("ClientCountry").is_in(["cn"])
    edit(b, group("and", row("ClientCountry", "eq", ["cn"], "a")))
    assert b.filter == (field("ClientCountry") == "cn")


@given(st.sampled_from(sorted(FIELDS)))
def test_kinds_come_from_the_documented_types(field_type: str) -> None:
    b = FilterBuilder()
    kinds = {f["name"]: f["kind"] for f in b.schema["fields"]}
    expected = {"int": "number", "float": "number", "array[int]": "number", "int or string": "number", "bool": "bool"}
    assert kinds[FIELDS[field_type]] == expected.get(field_type, "text")


BAD_CHOICES = [
    ({"dataset": "nope"}, "dataset"),
    ({"scope": "account"}, "scope"),  # http_requests is a zone dataset
    ({"scope": "nope"}, "scope"),
    ({"dataset": "gateway_dns", "scope": "nope"}, "scope"),
]


@pytest.mark.parametrize(
    ("given", "named"),
    [*BAD_CHOICES, ({"dataset": "gateway_dns", "scope": "zone"}, "scope")],  # an account dataset, zone asked
)
def test_a_bad_dataset_or_scope_is_refused_when_the_builder_is_made(given: dict[str, str], named: str) -> None:
    with pytest.raises((escpush.InvalidInput, ValueError)) as refused:
        FilterBuilder(**given)
    assert repr(given[named]) in str(refused.value) or given[named] in str(refused.value)


@pytest.mark.parametrize(("given", "named"), BAD_CHOICES)
@pytest.mark.parametrize("how", ["assigned", "sent by the front end"])
def test_a_bad_dataset_or_scope_is_refused_when_set_and_the_builder_stays_usable(
    given: dict[str, str], named: str, how: str
) -> None:
    import traitlets

    b = FilterBuilder("http_requests", filter=field("EdgeResponseStatus") >= 500)
    before = (b.dataset, b.scope, copy.deepcopy(b.schema), b.filter)
    with pytest.raises(traitlets.TraitError) as refused:
        if how == "assigned":
            with b.hold_trait_notifications():  # several traits at once, as the front end sends them
                for name, value in given.items():
                    setattr(b, name, value)
        else:
            b.set_state(dict(given))
    message = str(refused.value)
    assert f"FilterBuilder.{named}" in message and given[named] in message, message
    assert (b.dataset, b.scope, b.schema, b.filter) == before  # nothing of it kept
    # Still usable: an edit is judged against the dataset it had, and a good choice is taken.
    edit(b, group("and", row("ClientCountry", "eq", "cn", "a")))
    assert b.filter == (field("ClientCountry") == "cn") and b.report["valid"]
    b.dataset = "gateway_dns"
    assert (b.scope, b.schema["dataset"]) == ("account", "gateway_dns")
    assert [p["code"] for p in b.problems] == ["unknown_field"]


def test_a_dataset_of_both_scopes_is_taken_in_the_scope_sent_with_it() -> None:
    """The front end sends the scope and the dataset of its choice together."""
    b = FilterBuilder("http_requests")
    b.set_state({"scope": "account", "dataset": "firewall_events"})
    assert (b.dataset, b.scope, b.schema["scope"]) == ("firewall_events", "account", "account")
    b.set_state({"scope": "zone", "dataset": "firewall_events"})
    assert (b.dataset, b.scope, b.schema["scope"]) == ("firewall_events", "zone", "zone")


def test_a_breakdown_that_is_not_a_field_of_the_dataset_is_refused() -> None:
    """The same class: a misspelt breakdown was scanned as given, every line in one group
    `(missing)`. It is refused with the core's did-you-mean, when made and when set."""
    import traitlets

    with pytest.raises(traitlets.TraitError, match="did you mean `ClientCountry`"):
        FilterBuilder(breakdown="ClientCountri")
    b = FilterBuilder(breakdown="ClientCountry")
    with pytest.raises(traitlets.TraitError, match=r"FilterBuilder\.breakdown = 'ClientCountri' refused"):
        b.set_state({"breakdown": "ClientCountri"})
    assert b.breakdown == "ClientCountry"
    b.dataset = "dns_logs"  # a dataset without that field: no breakdown, rather than a wrong one
    assert b.breakdown == "" and b.schema["dataset"] == "dns_logs"


def test_a_mode_other_than_rows_or_text_is_refused() -> None:
    import traitlets

    b = FilterBuilder(filter=field("EdgeResponseStatus") >= 500)
    with pytest.raises(traitlets.TraitError, match="rows"):
        b.mode = "table"
    assert b.mode == "rows" and b.filter == (field("EdgeResponseStatus") >= 500)


def test_the_front_end_restates_no_formatter_of_escpush(tmp_path: Path) -> None:
    """Issue 34: builder.js had its own share (``toFixed(1)``), size (``B``), plural and rest
    row label; the texts now come made by Python (``report["problem_count"]``,
    ``sample_report["shown"]``) from escpush's one formatter of each."""
    js = (Path(escpush.__file__).parent / "widget" / "builder.js").read_text()
    assert not re.search(r"=== 1 \?", js), "a plural of its own"
    assert "function percent" not in js and "function formatBytes" not in js
    assert "rest.label" not in js and '"groups"' not in js
    logs = tmp_path / "sample.ndjson"
    logs.write_text('{"EdgeResponseStatus": 503}\n{"EdgeResponseStatus": 200}\nnot json\n')
    b = FilterBuilder(filter=field("EdgeResponseStatus") >= 500, sample=logs, debounce=0.0)
    assert b.wait_for_sample(30) is not None
    shown = b.sample_report["shown"]
    assert (shown["malformed"], shown["lines"]) == ("1 malformed line", "1 matching line")
    assert b.report["problem_count"] == "0 problems"
    wrong = FilterBuilder(filter="EdgeResponseStatus >== 500")
    assert wrong.report["problem_count"] == plural(len(wrong.report["problems"]), "problem") == "1 problem"
