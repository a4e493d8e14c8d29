"""Rules the command line, the binding and the displays read from one owner (issue 34): the
scan thread cap (escpush-scan's `MAX_THREADS`), the shortest interval (escpush-scan's
`MIN_EVERY`), the export formats and filter forms (core's `ExportFormat::NAMES`,
`FilterForm::NAMES`), the wording of a count (`escpush._format.plural`). The shape of a secret escpush makes (core's
`EscSecret::from_random`) is checked in tests/esc (`set_secret()`, an assessment's). Each test fails if a second copy of
the rule comes back: the CLI's choices are checked against the native module's, patched."""

from __future__ import annotations

from pathlib import Path

import pytest

from escpush import Filter, _escpush
from escpush.cli import main
from escpush.errors import InvalidInput


def test_the_scan_thread_cap_is_escpush_scans_for_the_binding_and_the_cli(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    logs = tmp_path / "logs.ndjson"
    logs.write_text('{"A":1}\n')
    cap = _escpush._MAX_SCAN_THREADS
    assert cap == 256
    f = Filter.parse_any("A == 1")
    assert f.scan([str(logs)], threads=cap).matched == 1
    # the binding took up to 4096 (escpush-scan ran 256 at most); now the cap is the one rule
    with pytest.raises(InvalidInput, match="threads"):
        f.scan([str(logs)], threads=cap + 1)
    with pytest.raises(SystemExit):
        main(["filter", "scan", "A == 1", str(logs), "--threads", str(cap + 1)])
    assert f"give 0 to {cap}" in capsys.readouterr().err
    # the command line's range is the native module's, read when the parser is built
    monkeypatch.setattr(_escpush, "_MAX_SCAN_THREADS", 3)
    with pytest.raises(SystemExit):
        main(["filter", "scan", "A == 1", str(logs), "--threads", "4"])
    assert "give 0 to 3" in capsys.readouterr().err


@pytest.mark.parametrize("every", [0, -5, "0s", "0h"])
def test_an_interval_shorter_than_a_second_is_refused_in_one_wording(tmp_path: Path, every: object) -> None:
    logs = tmp_path / "logs.ndjson"
    logs.write_text('{"A":1}\n')
    with pytest.raises(InvalidInput, match="an interval is at least one second"):
        Filter.parse_any("A == 1").scan([str(logs)], every=every)


def test_export_names_are_cores_for_the_binding_and_the_cli(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    assert _escpush._EXPORT_FORMATS == ("toml", "json", "terraform")
    assert _escpush._FILTER_FORMS == ("string", "jsonencode")
    # the command line offers the native module's names, no list of its own
    monkeypatch.setattr(_escpush, "_EXPORT_FORMATS", ("toml", "yaml"))
    monkeypatch.setattr(_escpush, "_FILTER_FORMS", ("hcl",))
    with pytest.raises(SystemExit):
        main(["logpush", "export", "--help"])
    out = capsys.readouterr().out
    assert "{toml,yaml}" in out and "{hcl}" in out and "terraform" not in out.split("--format")[1].split("\n")[0]


def test_a_count_reads_the_same_in_the_widget_and_the_tables() -> None:
    from escpush import _format
    from escpush.widget import _rows

    assert _format.plural(10_000, "group") == "10,000 groups"
    # the widget has no wording of its own (it said `10000 groups`)
    assert not hasattr(_rows, "plural")
