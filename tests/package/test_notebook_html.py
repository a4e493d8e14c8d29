"""escpush's displays in notebooks rendered to HTML with nbconvert's JupyterLab ("lab") and
classic templates: the lab page's own CSS right-aligns table cells, which a style sheet in the
output does not beat; the alignment (and the monospace font the caret of a text-form error
needs) survive as inline styles in both. scripts/screenshot-notebooks.py takes the pictures
of the same pages in Chromium."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

import nbconvert
import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_notebook, new_output

from escpush import Filter, FilterError, field
from escpush._display import _INLINE


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
        assert style == _INLINE[tag], (template, tag, style)
    assert "monospace" in _INLINE["pre"] and "text-align:left" in _INLINE["pre"] and "text-align:left" in _INLINE["td"]
    # The caret line is under the line it points into, in the same <pre>.
    assert re.search(r"&gt;== 500\n\s+\^{8}", page) is not None
