#!/usr/bin/env python3
"""Screenshots of the notebooks as JupyterLab and the classic notebook show them.

    .venv/bin/python scripts/screenshot-notebooks.py [OUT_DIR] [NOTEBOOK ...]

Runs each notebook (default: every one in notebooks/) in a kernel of this interpreter, renders
it to HTML with nbconvert's `lab` template (JupyterLab's own CSS) and its `classic` template,
and takes a full-page screenshot of each in headless Chromium (Debian's `chromium`, installed
by scripts/ensure-chromium.sh when missing). Writes `<notebook>.<template>.html` and `.png`
into OUT_DIR (default /tmp/escpush-screenshots). Look at them: escpush's tables are
left-aligned and the caret of a text-form error sits under its spot in both.

Needs the `test` extra (nbclient, nbconvert, ipykernel, matplotlib).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TEMPLATES = ("lab", "classic")


def render(path: Path, out: Path) -> list[Path]:
    """Runs the notebook and writes its HTML with each template; returns the HTML files."""
    import nbformat
    from nbclient import NotebookClient
    from nbconvert import HTMLExporter

    nb = nbformat.read(path, as_version=4)
    NotebookClient(nb, timeout=600, resources={"metadata": {"path": str(path.parent)}}).execute()
    pages = []
    for template in TEMPLATES:
        html, _ = HTMLExporter(template_name=template).from_notebook_node(nb)
        page = out / f"{path.stem}.{template}.html"
        page.write_text(html, encoding="utf-8")
        pages.append(page)
    return pages


def screenshot(chromium: str, page: Path, height: int = 6000) -> Path:
    png = page.with_suffix(".png")
    subprocess.run(
        [
            chromium,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--hide-scrollbars",
            f"--window-size=1200,{height}",
            f"--screenshot={png}",
            page.as_uri(),
        ],
        check=True,
        capture_output=True,
    )
    return png


def main() -> None:
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else Path("/tmp/escpush-screenshots")
    out.mkdir(parents=True, exist_ok=True)
    names = sys.argv[2:]
    paths = [Path(n) for n in names] if names else sorted((ROOT / "notebooks").glob("*.ipynb"))
    chromium = subprocess.run(
        ["bash", str(ROOT / "scripts" / "ensure-chromium.sh")], check=True, capture_output=True, text=True
    ).stdout.strip()
    for path in paths:
        for page in render(path, out):
            print(screenshot(chromium, page))


if __name__ == "__main__":
    main()
