"""escpush's displays in notebooks rendered to HTML with nbconvert's JupyterLab ("lab") and
classic templates: the lab page's own CSS right-aligns table cells, which a style sheet in the
output does not beat; the alignment (and the monospace font the caret of a text-form error
needs) survive as inline styles in both. scripts/screenshot-notebooks.py takes the pictures
of the same pages in Chromium."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path

import nbconvert
import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_notebook, new_output

from escpush import Filter, FilterError, field
from escpush._display import _INLINE, _ONE_LINE


class _Styled(HTMLParser):
    """The style attribute of every table, cell and <pre> inside an escpush display."""

    def __init__(self) -> None:
        super().__init__()
        self.divs: list[bool] = []  # for each open div: whether it is in an escpush display
        self.styles: list[tuple[str, str | None]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        inside = bool(self.divs) and self.divs[-1]
        if tag == "div":
            self.divs.append(inside or "escpush" in (found.get("class") or "").split())
        elif inside and tag in ("table", "th", "td", "pre"):
            self.styles.append((tag, found.get("style")))

    def handle_endtag(self, tag: str) -> None:
        if tag == "div" and self.divs:
            self.divs.pop()


def notebook(tmp_path: Path) -> nbformat.NotebookNode:
    logs = tmp_path / "logs.ndjson"
    logs.write_text('{"EdgeResponseStatus": 503, "ClientCountry": "cn", "EdgeStartTimestamp": 1795305630}\n')
    try:
        Filter.from_text('ClientRequestHost endswith ".example.com" and EdgeResponseStatus >== 500')
    except FilterError as err:
        error = err
    scanned = (field("EdgeResponseStatus") >= 500).scan(logs, group_by="ClientCountry")
    shown = [error._repr_html_(), scanned._repr_html_()]
    cells = []
    for html in shown:
        cell = new_code_cell("x")
        cell.outputs = [new_output("display_data", data={"text/html": html, "text/plain": "x"})]
        cells.append(cell)
    return new_notebook(cells=cells)


@pytest.mark.parametrize("template", ["lab", "classic"])
def test_escpush_displays_keep_their_alignment_in_both_templates(tmp_path: Path, template: str) -> None:
    page, _ = nbconvert.HTMLExporter(template_name=template).from_notebook_node(notebook(tmp_path))
    if template == "lab":
        # What the inline styles are for: JupyterLab's rule that right-aligns every cell.
        rule = re.search(r"\.jp-RenderedHTMLCommon td[^{]*\{[^}]*text-align:\s*right", page)
        assert rule is not None, "JupyterLab's CSS no longer right-aligns cells: is the inline style still needed?"
    parser = _Styled()
    parser.feed(page)
    assert {tag for tag, _ in parser.styles} == {"table", "th", "td", "pre"}
    for tag, style in parser.styles:
        # The breakdown tables' cells also stay on one line (below).
        assert style in (_INLINE[tag], _INLINE[tag] + _ONE_LINE), (template, tag, style)
    assert "monospace" in _INLINE["pre"] and "text-align:left" in _INLINE["pre"] and "text-align:left" in _INLINE["td"]
    # The caret line is under the line it points into, in the same <pre>.
    assert re.search(r"&gt;== 500\n\s+\^{8}", page) is not None


def _breakdown_scan(tmp_path: Path) -> object:
    """A scan as notebook 02's: two grouped fields (text and integer), hours, and an ``other`` row."""
    logs = tmp_path / "logs.ndjson"
    with logs.open("w") as out:
        for i in range(60):
            record = {
                "ClientCountry": ["cn", "us", "de", "fr"][i % 4],
                "EdgeResponseStatus": [200, 503, 404][i % 3],
                "EdgeStartTimestamp": 1_700_000_000 + 97 * i,
            }
            out.write(json.dumps(record) + "\n")
    return (field("EdgeResponseStatus") >= 500).scan(
        logs, group_by=["ClientCountry", "EdgeResponseStatus"], every="1h", top=3
    )


def test_the_breakdown_tables_keep_each_cell_on_one_line(tmp_path: Path) -> None:
    """Notebook 02's hourly table in JupyterLab wrapped its times (`2023-11-14T22:00:00Z` over
    two lines): the cells of escpush's breakdown tables are `white-space:nowrap` inline,
    which JupyterLab's `white-space: normal` for cells does not beat."""
    html = _breakdown_scan(tmp_path)._repr_html_()  # type: ignore[attr-defined]
    tables = re.findall(r"<table[^>]*><thead>.*?</table>", html, flags=re.S)
    assert len(tables) == 2 and "2023-11-14T22:00:00Z" in tables[1]
    for table in tables:
        cells = re.findall(r"<t[hd]( style=\"[^\"]*\")?>", table)
        assert cells and all("white-space:nowrap" in c for c in cells), table[:300]


def test_a_groups_table_shows_every_gap_alike(tmp_path: Path) -> None:
    """The ``(other)`` row has no value in the grouped fields: pandas showed the text field's gap
    as ``NaN`` beside the integer field's ``<NA>``. Every gap is ``<NA>`` (nullable dtypes)."""
    import pandas as pd

    from escpush._scan_views import _with_gaps

    groups = _breakdown_scan(tmp_path).to_pandas()  # type: ignore[attr-defined]
    assert groups["group"].iloc[-1] == "(other)"
    assert str(groups["ClientCountry"].dtype) == "string" and str(groups["EdgeResponseStatus"].dtype) == "Int64"
    assert groups["ClientCountry"].iloc[-1] is pd.NA and groups["EdgeResponseStatus"].iloc[-1] is pd.NA
    shown = groups._repr_html_() + groups.to_string()
    assert "NaN" not in shown and "None" not in shown and shown.count("&lt;NA&gt;") == 2
    # Values of two types in one field stay apart, the gap <NA> too.
    assert list(_with_gaps(pd, [1, "1", None])) == [1, "1", pd.NA]
    assert str(_with_gaps(pd, [0.5, None]).dtype) == "Float64" and str(_with_gaps(pd, [True, None]).dtype) == "boolean"


def test_the_plot_legends_sit_beside_the_data(tmp_path: Path) -> None:
    """Notebook 02's pictures: the legend covered the stacked areas and the bars. It is outside
    each plot, on its right, inside the figure."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    fig = _breakdown_scan(tmp_path).plot(top=3)  # type: ignore[attr-defined]
    canvas = FigureCanvasAgg(fig)  # as the inline backend draws it
    canvas.draw()
    renderer = canvas.get_renderer()
    figure_box = fig.bbox
    assert len(fig.axes) == 2
    for ax in fig.axes:
        legend = ax.get_legend()
        assert legend is not None
        box, plot = legend.get_window_extent(renderer), ax.get_window_extent(renderer)
        assert box.x0 >= plot.x1, (box, plot)  # beside the data, not over it
        assert box.x1 <= figure_box.x1 and box.y0 >= figure_box.y0 and box.y1 <= figure_box.y1  # not cut off
