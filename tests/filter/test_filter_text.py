"""The text form of a filter: Filter.from_text / to_text / str, errors with a position and a
caret, and the command line (every FILTER argument, ``escpush filter fmt --to text``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from escpush import Filter, FilterError, field
from escpush.cli import EXIT_CHECK_FAILED, EXIT_OK, main

EXAMPLE = '(ClientCountry in ["cn", "ru"] or ClientASN == 13335) and not ClientRequestPath startsWith "/health"'


def test_the_issue_example_reads_as_the_filter_it_means() -> None:
    f = Filter.from_text(EXAMPLE)
    assert f == (
        (field("ClientCountry").is_in(["cn", "ru"]) | Filter.from_text("ClientASN == 13335"))
        & field("ClientRequestPath").not_starts_with("/health")
    )
    assert f.to_dict()["where"]["and"][0]["or"][1] == {"key": "ClientASN", "operator": "eq", "value": "13335"}
    assert (
        str(f)
        == f.to_text()
        == ('(ClientCountry in ["cn", "ru"] or ClientASN == 13335) and ClientRequestPath !startsWith "/health"')
    )
    assert Filter.from_text(str(f)) == f
    assert Filter.from_text(b"EdgeResponseStatus >= 500") == Filter.from_text("EdgeResponseStatus geq 500")


def test_values_keep_their_type_through_the_text_form() -> None:
    for f in (field("A").eq("500"), Filter.from_text("A == 500"), field("A").eq(True), field("A").eq("true")):
        assert Filter.from_text(f.to_text()) == f
    # One spelling for a single integer (issue 33, item 14): as its text, as SPEC B.1 writes it.
    assert Filter.from_text('A == "500"') == Filter.from_text("A == 500") == (field("A") == 500)
    assert Filter.from_text('A in ["500"]') != Filter.from_text("A in [500]")


def test_parse_any_takes_json_the_quoted_form_and_text() -> None:
    f = Filter.from_text('A == "x"')
    assert Filter.parse_any(f.to_json()) == Filter.parse_any(json.dumps(f.to_json())) == Filter.parse_any(str(f)) == f


@pytest.mark.parametrize(
    ("text", "path", "code", "needle"),
    [
        ("A >== 5", "line 1, column 3", "unknown_operator", "did you mean `>=`?"),
        ("A gte 5", "line 1, column 3", "unknown_operator", "did you mean `geq`?"),
        ("A neq 5", "line 1, column 3", "unknown_operator", "did you mean `!eq`?"),
        ('A endswith "x"', "line 1, column 3", "unknown_operator", "did you mean `endsWith`?"),
        ('A matches "a.*"', "line 1, column 3", "unsupported", "no regular expressions"),
        ('lower(A) == "x"', "line 1, column 1", "unsupported", "no functions"),
        ("B == 1 and\n not (A < 5)", "line 2, column 2", "unsupported", "fails both `<` and its opposite `>=`"),
        ("A == ", "line 1, column 6", "invalid_syntax", ""),
    ],
)
def test_errors_have_line_column_and_a_caret(text: str, path: str, code: str, needle: str) -> None:
    with pytest.raises(FilterError) as info:
        Filter.from_text(text)
    (problem,) = info.value.errors()
    assert (problem["path"], problem["code"]) == (path, code)
    assert needle in problem["message"]
    assert problem["message"].splitlines()[-1].strip().startswith("^")


def test_field_names_are_checked_when_a_dataset_is_given() -> None:
    with pytest.raises(FilterError, match="did you mean `ClientRequestHost`") as info:
        Filter.from_text('ClientRequestHots == "x"', "http_requests")
    assert info.value.errors()[0]["code"] == "unknown_field"
    assert Filter.from_text('ClientRequestHots == "x"').fields == ["ClientRequestHots"]


def test_the_notebook_display_shows_the_text_form() -> None:
    html = Filter.from_text('A == "<b>"')._repr_html_()
    assert "<code>A == &quot;&lt;b&gt;&quot;</code>" in html


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_fmt_prints_either_form(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    f = Filter.from_text(EXAMPLE)
    assert _run(capsys, "filter", "fmt", EXAMPLE) == (EXIT_OK, f.to_json() + "\n", "")
    assert _run(capsys, "filter", "fmt", f.to_json(), "--to", "text") == (EXIT_OK, f.to_text() + "\n", "")
    path = tmp_path / "f.txt"
    path.write_text(EXAMPLE + "\n")
    assert _run(capsys, "filter", "fmt", str(path), "--to", "text") == (EXIT_OK, f.to_text() + "\n", "")
    assert _run(capsys, "filter", "fmt", f.to_text(), "--to", "text", "--check")[0] == EXIT_OK
    assert _run(capsys, "filter", "fmt", EXAMPLE, "--to", "text", "--check")[0] == EXIT_CHECK_FAILED
    code, _, err = _run(capsys, "filter", "fmt", EXAMPLE, "--to", "text", "--indent", "2")
    assert code != EXIT_OK and "--to text" in err


def test_cli_validate_and_explain_take_the_text_form(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "filter", "validate", "EdgeResponseStatus >= 500", "--dataset", "http_requests")
    assert code == EXIT_OK and out.startswith("valid for http_requests")
    code, out, _ = _run(capsys, "filter", "validate", "EdgeResponseStatus >== 500", "--json")
    assert code == EXIT_CHECK_FAILED
    problem = json.loads(out)["problems"][0]
    assert problem["path"] == "line 1, column 20" and "did you mean `>=`" in problem["message"]
    code, out, _ = _run(capsys, "filter", "explain", 'A == 1 or B startsWith "x"')
    assert code == EXIT_OK and "startsWith" in out


def test_cli_prints_the_caret_under_the_problem(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "filter", "validate", 'EdgeResponseStatus >== 500 and ClientCountry == "cn"')
    assert code == EXIT_CHECK_FAILED
    assert out.splitlines()[1:] == [
        "  line 1, column 20: unknown operator `>==`; did you mean `>=`? [unknown_operator]",
        '      EdgeResponseStatus >== 500 and ClientCountry == "cn"',
        "                         ^^^",
    ]
