#!/usr/bin/env python3
"""Screenshots of the notebooks as JupyterLab and the classic notebook show them.

    .venv/bin/python scripts/screenshot-notebooks.py [OUT_DIR] [NOTEBOOK ...]

Two ways, for each notebook (default: every one in notebooks/), in headless Chromium (Debian's
`chromium` and `chromedriver`, installed by scripts/ensure-chromium.sh when missing):

- in a real JupyterLab: a JupyterLab server of this interpreter on loopback (a random port and
  token, a scratch folder and settings, no browser of its own) opens the notebook, runs every
  cell in its kernel (widgets too: the filter builder of notebook 01 is drawn by its own front
  end) and is photographed in the light and the dark theme: `<notebook>.jupyterlab-light.png`
  and `.jupyterlab-dark.png`; without NOTEBOOK arguments, also a notebook holding only the
  filter builder on a sample broken down by a field (`filter_builder_widget.*.png`; or name
  it: `widget`);
- rendered to HTML with nbconvert's `lab` template (JupyterLab's own CSS) and its `classic`
  template, after running it with nbclient: `<notebook>.<template>.html` and `.png`.

Writes into OUT_DIR (default /tmp/escpush-screenshots). Look at them: escpush's tables are
left-aligned, the caret of a text-form error sits under its spot, the widget's copy buttons
are beside the text form and the JSON (not over them), the plots' legends beside the data.
`--jupyterlab-only` skips the nbconvert pages.

Needs the `test` extra (nbclient, nbconvert, ipykernel, matplotlib, selenium) and JupyterLab
(`pip install 'jupyterlab>=4'`).
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

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


# JupyterLab's settings for the pictures: every cell drawn (not only those in view), and no
# pop-up asking about news or updates over the notebook.
LAB_SETTINGS = {
    "@jupyterlab/notebook-extension/tracker.jupyterlab-settings": {"windowingMode": "none"},
    "@jupyterlab/apputils-extension/notification.jupyterlab-settings": {"fetchNews": "false", "checkForUpdates": False},
}
THEMES = {"light": "JupyterLab Light", "dark": "JupyterLab Dark"}


class JupyterLab:
    """A JupyterLab server of this interpreter on loopback, serving ``folder``."""

    def __init__(self, folder: Path) -> None:
        import json
        import secrets
        import socket

        self.folder = folder
        self.token = secrets.token_hex(16)
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        settings = folder / ".lab-settings"
        for name, values in LAB_SETTINGS.items():
            (settings / name).parent.mkdir(parents=True, exist_ok=True)
            (settings / name).write_text(json.dumps(values))
        self.log = (folder / ".lab.log").open("w")
        self.process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "jupyterlab.labapp",
                "--no-browser",
                "--allow-root",
                "--ServerApp.ip=127.0.0.1",
                f"--ServerApp.port={self.port}",
                "--ServerApp.port_retries=0",
                f"--IdentityProvider.token={self.token}",
                f"--ServerApp.root_dir={folder}",
                f"--LabApp.user_settings_dir={settings}",
                f"--LabApp.workspaces_dir={folder / '.lab-workspaces'}",
                "--LabApp.expose_app_in_browser=True",
            ],
            stdout=self.log,
            stderr=subprocess.STDOUT,
        )
        self._wait_up()

    def _wait_up(self, seconds: float = 120) -> None:
        import time
        import urllib.request

        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError("JupyterLab stopped:\n" + Path(self.log.name).read_text()[-3000:])
            try:
                urllib.request.urlopen(f"{self.url('api/status')}", timeout=2).close()
                return
            except OSError:
                time.sleep(0.5)
        raise RuntimeError(f"JupyterLab did not start in {seconds} s: see {self.log.name}")

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}/{path}?token={self.token}"

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(30)
        except subprocess.TimeoutExpired:
            self.process.kill()
        self.log.close()


# The notebook's cells once it has run: how many code cells, and whether each has its
# execution count and the kernel is idle again.
_PROGRESS = """
const panel = window.jupyterapp.shell.currentWidget;
if (!panel || !panel.content || !panel.sessionContext || !panel.sessionContext.session) return null;
const cells = panel.content.widgets.filter((c) => c.model.type === "code");
const done = cells.filter((c) => c.model.executionCount !== null).length;
return {cells: cells.length, done, status: panel.sessionContext.kernelDisplayStatus};
"""


# What the pictures must show, checked in the page as well: each copy button of the filter
# builder beside the text of its box (inside the box's padding), not over it.
_CHECKS = """
const problems = [];
for (const box of document.querySelectorAll(".ep-code-box")) {
  const pre = box.querySelector("pre"), button = box.querySelector(".ep-copy");
  if (!pre || !button) continue;
  const style = getComputedStyle(pre), r = pre.getBoundingClientRect(), b = button.getBoundingClientRect();
  const textRight = r.right - parseFloat(style.paddingRight) - parseFloat(style.borderRightWidth);
  const name = pre.dataset.testid;
  if (b.left < textRight) problems.push(`the copy button of ${name} is over its text (padding ${style.paddingRight})`);
}
return problems;
"""


def lab_screenshots(lab: JupyterLab, driver: object, notebook: Path, out: Path) -> list[Path]:
    """Opens the notebook in JupyterLab, runs every cell, and photographs it in each theme."""
    import shutil
    import time

    from selenium.webdriver.support.ui import WebDriverWait

    shutil.copy(notebook, lab.folder / notebook.name)
    d: Any = driver
    d.set_window_size(1280, 1000)
    d.get(lab.url(f"lab/tree/{notebook.name}"))
    wait = WebDriverWait(d, 300)
    wait.until(lambda _: d.execute_script("return !!(window.jupyterapp && window.jupyterapp.shell.currentWidget)"))
    wait.until(lambda _: (d.execute_script(_PROGRESS) or {}).get("status") == "idle")
    d.execute_script("window.jupyterapp.shell.collapseLeft(); window.jupyterapp.shell.collapseRight();")
    d.execute_script("window.jupyterapp.commands.execute('notebook:run-all-cells')")
    wait.until(lambda _: (p := d.execute_script(_PROGRESS)) and p["done"] == p["cells"] and p["status"] == "idle")
    time.sleep(2)  # widgets and images drawn after the last output arrived
    shots = []
    for name, theme in THEMES.items():
        d.execute_script(f"return window.jupyterapp.commands.execute('apputils:change-theme', {{theme: '{theme}'}})")
        time.sleep(2)
        height = d.execute_script(
            "const s = document.querySelector('.jp-NotebookPanel:not(.lm-mod-hidden) .jp-WindowedPanel-outer');"
            "return s ? s.scrollHeight : 3000;"
        )
        d.set_window_size(1280, min(int(height) + 200, 16000))
        time.sleep(1)
        d.execute_script(
            "document.querySelectorAll('.jp-NotebookPanel:not(.lm-mod-hidden) .jp-WindowedPanel-outer')"
            ".forEach((s) => s.scrollTo(0, 0));"
        )
        time.sleep(1)
        png = out / f"{notebook.stem}.jupyterlab-{name}.png"
        d.save_screenshot(str(png))
        for problem in d.execute_script(_CHECKS):
            print(f"{png.name}: {problem}", file=sys.stderr)
        shots.append(png)
        d.set_window_size(1280, 1000)
    # The kernel shut down (the next notebook opens in a page loaded anew).
    d.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "window.jupyterapp.shell.currentWidget.sessionContext.shutdown().then(() => done(), () => done());"
    )
    return shots


# A notebook holding only the filter builder, on a sample broken down by country: the widget
# with every part shown (rows, problems, limits, text form, JSON and their copy buttons, the
# sample's counts and the breakdown table).
WIDGET_NOTEBOOK = """\
import gzip, json, random, tempfile
from pathlib import Path

from escpush import field
from escpush.widget import FilterBuilder

rng = random.Random(33)
sample = Path(tempfile.mkdtemp()) / "sample.ndjson.gz"
with gzip.open(sample, "wt") as out:
    for _ in range(2000):
        out.write(json.dumps({
            "ClientRequestHost": rng.choice(["www.example.com", "shop.example.com", "static.example.net"]),
            "ClientCountry": rng.choice(["us", "de", "cn", "ru", "br"]),
            "EdgeResponseStatus": rng.choice([200] * 8 + [404, 503]),
        }) + "\\n")
f = field("ClientRequestHost").ends_with(".example.com") & (
    (field("EdgeResponseStatus") >= 500) | field("ClientCountry").is_in(["cn", "ru"])
)
builder = FilterBuilder("http_requests", filter=f, sample=sample, breakdown="ClientCountry")
builder
"""


def widget_notebook(folder: Path) -> Path:
    import nbformat
    from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

    path = folder / "filter_builder_widget.ipynb"
    cells = [new_markdown_cell("# The filter builder, on a sample"), new_code_cell(WIDGET_NOTEBOOK)]
    kernel = {"name": "python3", "display_name": "Python 3 (ipykernel)", "language": "python"}
    nbformat.write(new_notebook(cells=cells, metadata={"kernelspec": kernel}), path)
    return path


def main() -> None:
    args = [a for a in sys.argv[1:] if a != "--jupyterlab-only"]
    lab_only = len(args) != len(sys.argv) - 1
    out = Path(args[0]) if args else Path("/tmp/escpush-screenshots")
    out.mkdir(parents=True, exist_ok=True)
    names = args[1:]
    paths = (
        [Path(n).resolve() for n in names if n != "widget"] if names else sorted((ROOT / "notebooks").glob("*.ipynb"))
    )
    chromium = subprocess.run(
        ["bash", str(ROOT / "scripts" / "ensure-chromium.sh")], check=True, capture_output=True, text=True
    ).stdout.strip()
    sys.path.insert(0, str(ROOT / "tests"))
    from widget_harness import start_chromium

    with tempfile.TemporaryDirectory(prefix="escpush-lab-") as scratch:
        lab = JupyterLab(Path(scratch))
        driver = start_chromium(ROOT)
        try:
            if not names or "widget" in names:
                paths.append(widget_notebook(Path(tempfile.mkdtemp(prefix="escpush-widget-"))))
            for path in paths:
                for png in lab_screenshots(lab, driver, path, out):
                    print(png)
        finally:
            driver.quit()
            lab.stop()
    if not lab_only:
        for path in paths:
            if path.name == "filter_builder_widget.ipynb":
                continue  # a widget needs its kernel: nbconvert's page would not show it
            for page in render(path, out):
                print(screenshot(chromium, page))


if __name__ == "__main__":
    main()
