"""A scan's tables cross from the native module once, as data (issue 34).

Every view of a ``ScanResult`` — the command line's text tables, the notebook's HTML, the
DataFrames and the plot — reads one ``to_dict()`` and renders it in Python: no getter read
again and again (``per_input`` builds a list of results at each read), no second or third
``to_dict()`` (the plot made three), and the shares of a table formatted by core in one call
(``_percents``), not one native call per cell. A spy counts every call into the native
module a render makes.
"""

from __future__ import annotations

import types
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from engines import need
from escpush import _escpush, field
from escpush.cli import main

# The Python methods `escpush._presentation` puts on the class: renderers, not native calls.
_PYTHON = {"to_pandas", "to_polars", "plot", "_repr_html_"}


def spy(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    """Counts each call into the native module a render may make: every getter and method of
    ``ScanResult`` and the share formatters."""
    calls: Counter[str] = Counter()
    cls = _escpush.ScanResult
    for name, attr in list(vars(cls).items()):
        if name.startswith("__") or name in _PYTHON:
            continue
        if isinstance(attr, types.GetSetDescriptorType):

            def get(self: Any, _attr: Any = attr, _name: str = name) -> Any:
                calls[_name] += 1
                return _attr.__get__(self, type(self))

            monkeypatch.setattr(cls, name, property(get))
        elif callable(attr):

            def method(self: Any, *args: Any, _attr: Any = attr, _name: str = name, **kwargs: Any) -> Any:
                calls[_name] += 1
                return _attr(self, *args, **kwargs)

            monkeypatch.setattr(cls, name, method)
    for name in ("_percent", "_percents"):
        if hasattr(_escpush, name):
            native = getattr(_escpush, name)

            def formatter(*args: Any, _native: Any = native, _name: str = name) -> Any:
                calls[_name] += 1
                return _native(*args)

            monkeypatch.setattr(_escpush, name, formatter)
    return calls


@pytest.fixture
def logs(tmp_path: Path) -> Path:
    path = tmp_path / "logs.ndjson"
    countries = ["cn", "us", "de", "fr", "jp", "br", "in", "gb"]
    path.write_text(
        "".join(
            f'{{"EdgeResponseStatus": {500 if i % 3 else 200}, "ClientCountry": "{countries[i % 8]}", '
            f'"EdgeStartTimestamp": {1795305630 + 600 * i}}}\n'
            for i in range(40)
        )
        + "not json\n"
    )
    return path


def scan(logs: Path) -> Any:
    return (field("EdgeResponseStatus") >= 500).scan([logs, logs], group_by="ClientCountry", every="1h", top=5)


def test_the_notebook_display_reads_the_data_once(logs: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    result = scan(logs)
    calls = spy(monkeypatch)
    html = result._repr_html_()
    assert "(other: 3 groups)" in html and "no time" not in html
    assert calls == {"to_dict": 1, "_percents": 1}, calls


def test_the_command_line_reads_the_data_once(
    logs: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    calls = spy(monkeypatch)
    argv = ["filter", "scan", (field("EdgeResponseStatus") >= 500).to_json(), str(logs), str(logs)]
    assert main([*argv, "--group-by", "ClientCountry", "--every", "1h", "--top", "5", "--per-file"]) == 0
    out = capsys.readouterr().out
    assert "(other: 3 groups)" in out and f"  {logs}: 26 of 41 lines" in out
    assert calls == {"to_dict": 1, "_percents": 1}, calls


def test_dataframes_and_plots_read_the_data_once(logs: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    need("pandas")
    need("polars")
    need("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    result = scan(logs)
    calls = spy(monkeypatch)
    for make in (
        lambda: result.to_pandas(),
        lambda: result.to_pandas("buckets"),
        lambda: result.to_polars("inputs"),
        lambda: result.plot(),
    ):
        calls.clear()
        make()
        assert calls == {"to_dict": 1}, calls


def test_one_function_builds_the_rows_of_every_view(
    logs: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The command line, the notebook display and the DataFrames take their rows from
    ``_breakdown.rows``; the rest row's two wordings, ``(other: 3 groups)`` in text and
    ``(other)`` in a DataFrame, are its one named parameter, ``count_rest``."""
    need("pandas")
    from escpush import _breakdown

    made: list[tuple[str, bool]] = []
    rows = _breakdown.rows

    def spied(breakdown: Any, table: str, *, count_rest: bool = False) -> Any:
        made.append((table, count_rest))
        return rows(breakdown, table, count_rest=count_rest)

    monkeypatch.setattr(_breakdown, "rows", spied)
    result = scan(logs)
    views = {
        "cli": lambda: main(["filter", "scan", "EdgeResponseStatus >= 500", str(logs), "--group-by", "ClientCountry"]),
        "html": result._repr_html_,
        "pandas": result.to_pandas,
    }
    asked = {}
    for name, view in views.items():
        made.clear()
        view()
        asked[name] = list(made)
    capsys.readouterr()
    assert asked == {
        "cli": [("groups", True)],
        "html": [("groups", True), ("buckets", False)],
        "pandas": [("groups", False)],
    }
    other = (result.breakdown or {})["other"]
    assert (rows_of := rows((result.breakdown or {}), "groups"))[-1]["label"] == "(other)" == other["label"]
    assert rows_of[-1]["groups"] == 3 and _breakdown.rest_label(other, count_rest=True) == "(other: 3 groups)"
    assert list(result.to_pandas()["group"])[-1] == "(other)"


def test_groups_and_buckets_are_the_data_of_to_dict(logs: Path) -> None:
    result = scan(logs)
    breakdown = result.to_dict()["breakdown"]
    assert result.groups == breakdown["groups"] and result.buckets == breakdown["buckets"]
    assert (field("A") == 1).scan(logs).groups is None and (field("A") == 1).scan(logs, group_by="A").buckets is None
