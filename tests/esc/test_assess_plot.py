"""``EscAssessment.plot``: what changed without ESC, by stage and URL, drawn from real
assessments against the emulator's edge mode and read back from the figure's artists."""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from engines import need
from escpush import Filter
from escpush.testing import Emulator

FAST: dict[str, Any] = {"settle": 0.05, "timeout": 5.0}
# The site of notebook 04: ESC sets a header everywhere, redirects /old, answers /shop itself.
PAGES = {"/": {"body": "home"}, "/new": {"body": "new"}, "/shop": {"status": 404, "body": "not here"}}
ESC = [
    {"path": "*", "set_header": {"X-Frame-Options": "DENY"}},
    {"path": "/old", "redirect": "/new", "status": 301},
    {"path": "/shop", "respond": "shop closed", "status": 200},
]
PASSED, FAILED, NOT_FETCHED = 1, 0, -1  # the grid's cell values


@pytest.fixture(autouse=True)
def agg() -> None:
    need("matplotlib").use("Agg")


def grid_of(ax: Any) -> dict[tuple[str, str], tuple[str, int]]:
    """{(URL label, stage tick label): (the cell's text, its value)}, read back from the axes."""
    rows = [t.get_text() for t in ax.get_yticklabels()]
    columns = [t.get_text() for t in ax.get_xticklabels()]
    values = ax.images[0].get_array()
    cells = {}
    for text in ax.texts:
        j, i = (round(v) for v in text.get_position())
        cells[rows[i], columns[j]] = (text.get_text(), int(values[i][j]))
    assert len(cells) == len(rows) * len(columns)
    return cells


def bars_of(ax: Any) -> dict[tuple[str, str], float]:
    """{(URL label, kind): bar length}, read back from the stacked bars and their legend."""
    rows = [t.get_text() for t in ax.get_yticklabels()]
    bars = {}
    for container in ax.containers:
        for row, bar in zip(rows, container):
            if bar.get_width():
                bars[row, container.get_label()] = bar.get_width()
    return bars


def test_plot_shows_each_url_in_each_stage_and_the_differences(escpush_emulator: Emulator) -> None:
    emu = escpush_emulator
    site = emu.serve_site("z1", account="a1", pages=PAGES, esc=ESC)
    result = emu.client().zone("z1").esc.assess([f"{site}/", f"{site}/old", f"{site}/shop"], account="a1", **FAST)
    assert result.ok
    fig = result.plot()
    grid, diffs = fig.axes
    cells = grid_of(grid)
    stages = ["request\npassed", "zone\npassed", "account\npassed"]
    # Every stage: ESC's status (fetched in the request stage) → the status without ESC.
    expected = {"/": "200 → 200", "/old": "301 → 404", "/shop": "200 → 404"}
    assert cells == {(path, stage): (shown, PASSED) for path, shown in expected.items() for stage in stages}
    assert [t.get_text() for t in diffs.get_legend().get_texts()] == ["header", "status", "location", "body"]
    counts = Counter((d["url"].removeprefix(site), d["what"]) for d in result.differences)
    assert bars_of(diffs) == counts
    assert counts["/old", "location"] == 1 and counts["/shop", "header"] == 2  # x-frame-options, content-type
    assert "ESC" in grid.get_title()


def test_plot_shows_a_rolled_back_stage_and_what_it_did_not_fetch(escpush_emulator: Emulator) -> None:
    emu = escpush_emulator
    # The zone's change never reaches the site in time: the zone stage still sees ESC at /old
    # and is rolled back before it fetches /.
    site = emu.serve_site("z1", delay=3600)
    result = emu.client().zone("z1").esc.assess([f"{site}/old", f"{site}/"], **FAST)
    assert [s["outcome"] for s in result.stages] == ["passed", "rolled_back", "skipped"]
    grid, diffs = result.plot().axes
    assert grid_of(grid) == {
        ("/old", "request\npassed"): ("301 → 404", PASSED),
        ("/", "request\npassed"): ("200 → 200", PASSED),
        ("/old", "zone\nrolled_back"): ("301 → 301", FAILED),
        ("/", "zone\nrolled_back"): ("not fetched", NOT_FETCHED),
    }
    assert bars_of(diffs)["/", "header"] == 1


def test_plot_draws_into_the_axes_given(escpush_emulator: Emulator) -> None:
    plt = need("matplotlib.pyplot")
    emu = escpush_emulator
    site = emu.serve_site("z1")
    result = emu.client().zone("z1").esc.assess([f"{site}/"], **FAST)
    fig, (left, right) = plt.subplots(1, 2)
    assert result.plot((left, right)) is fig
    assert [t.get_text() for t in left.get_yticklabels()] == ["/"]
    assert right.containers and right.get_legend() is not None
    fig, only = plt.subplots()
    assert result.plot(ax=only) is fig and len(fig.axes) == 1
    assert grid_of(only) == {
        ("/", "request\npassed"): ("200 → 200", PASSED),
        ("/", "zone\npassed"): ("200 → 200", PASSED),
    }
    plt.close("all")
    with pytest.raises(TypeError, match="Axes or a pair"):
        result.plot(ax=(left, right, only))
    with pytest.raises(TypeError):
        result.plot(ax="grid")


def test_urls_of_several_hosts_are_named_with_their_host(escpush_emulator: Emulator) -> None:
    emu = escpush_emulator
    site = emu.serve_site("z1")
    other = site.replace("127.0.0.1", "localhost")
    result = emu.client().zone("z1").esc.assess([f"{site}/?a=1", f"{other}/old"], **FAST)
    labels = [t.get_text() for t in result.plot().axes[0].get_yticklabels()]
    # A query value may be a token: the plot shows the URLs as the report does (issue 33).
    assert labels == [f"{site.removeprefix('http://')}/?a=***", f"{other.removeprefix('http://')}/old"]


def test_nothing_to_plot_when_no_stage_fetched(escpush_emulator: Emulator) -> None:
    emu = escpush_emulator
    site = emu.serve_site("z1")
    emu.fail_next(status=403)
    result = emu.client().zone("z1").esc.assess([f"{site}/"], **FAST)
    assert result.error is not None
    with pytest.raises(ValueError, match=r"nothing to plot: no stage fetched a URL: .*403"):
        result.plot()


def test_without_matplotlib_plot_names_the_extra(
    escpush_emulator: Emulator, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    emu = escpush_emulator
    site = emu.serve_site("z1")
    result = emu.client().zone("z1").esc.assess([f"{site}/"], **FAST)
    logs = tmp_path / "logs.ndjson"
    logs.write_text('{"EdgeStartTimestamp": "2024-01-01T00:00:00Z"}\n', encoding="utf-8")
    scan = Filter.parse('{"where": {"key": "A", "operator": "eq", "value": 1}}').scan(logs, every="1h")
    for name in ("matplotlib", "matplotlib.pyplot"):
        monkeypatch.setitem(sys.modules, name, None)  # import fails as if not installed
    message = (
        r"needs the matplotlib package, which is not installed: pip install 'escpush\[plot\]'"
        r" \(the extras: https://escpush\.github\.io/escpush/install/#the-extras\)"
    )
    with pytest.raises(ImportError, match=rf"^EscAssessment.plot {message}$"):
        result.plot()
    # The one rule of every optional package: ScanResult.plot says the same.
    with pytest.raises(ImportError, match=rf"^ScanResult.plot {message}$"):
        scan.plot()
