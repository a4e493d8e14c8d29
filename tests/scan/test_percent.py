"""A share of a count is printed by one formatter, escpush-filter's (`escpush_filter::percent`): the scan's
summary, the notebook display, and the command line's per-file lines and progress bar show
the same text for the same counts. Before, four copies disagreed (`< 0.1%` in the display,
`0.012%` elsewhere, `100.0%` for a share that was not all, `0%` on the progress bar)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from escpush import ScanResult, field
from escpush._format import percent
from escpush.cli import main
from escpush.cli.filter import _ProgressBar

CASES = [
    (0, 10, "0.0%"),
    (10, 10, "100.0%"),
    (231, 1000, "23.1%"),
    (12, 100_000, "0.012%"),
    (1, 10_000_000, "< 0.001%"),
    (9995, 10_000, "99.950%"),
    (9_999_999, 10_000_000, "> 99.999%"),
]


@pytest.mark.parametrize(("part", "whole", "text"), CASES)
def test_every_place_prints_a_share_alike(part: int, whole: int, text: str) -> None:
    assert percent(part, whole) == text
    result = ScanResult(whole, part, 0, whole, matched_bytes=part)
    assert result.summary == f"keeps {text} of lines, {text} of bytes"
    html = result._repr_html_()
    assert f"{part} ({text.replace('<', '&lt;').replace('>', '&gt;')})" in html, html


def test_nothing_to_share() -> None:
    assert percent(0, 0) is None
    assert ScanResult(0, 0).summary == "read no lines"


def test_the_command_line_prints_cores_shares(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    logs = tmp_path / "x.ndjson"
    logs.write_text('{"EdgeResponseStatus": 503}\n' + '{"EdgeResponseStatus": 200}\n' * 1999)
    f = field("EdgeResponseStatus") >= 500
    assert main(["filter", "scan", f.to_json(), str(logs), "--per-file"]) == 0
    out = capsys.readouterr().out
    result = f.scan(logs)
    lines = percent(result.matched, result.total)
    kept = percent(result.matched_bytes, result.bytes)
    assert lines == "0.050%", lines
    assert f"1 of 2,000 lines, {lines} of lines, {kept} of bytes" in out, out
    assert f"keeps {lines} of lines, {kept} of bytes" in out, out


def test_the_progress_bar_prints_cores_share(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    logs = tmp_path / "x.ndjson"
    logs.write_bytes(b"{}\n" * 1000)
    bar = _ProgressBar([str(logs)])
    bar.start -= 2.0  # drawn after a second
    bar(2999, 999)
    drawn = capsys.readouterr().err
    assert re.search(r"\] +99\.967% ", drawn), drawn  # not "100%": a line is still to read
