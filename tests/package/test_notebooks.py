"""The notebooks in notebooks/: committed without outputs, and every cell runs.

Each notebook runs top to bottom in a fresh kernel of this interpreter (so it imports the
escpush under test), with no network, and with only the packages of the extras its text named
before each cell (a reader who followed it has no others). A cell that raises, or writes to stderr (a warning,
say), fails the test. Matplotlib draws with the inline backend, which renders with Agg and
needs no display: set explicitly, so that a developer's MPLBACKEND or matplotlibrc cannot
open windows.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

import nbformat
import pytest
from nbclient import NotebookClient
from nbformat.v4 import new_code_cell

from extras import allowed_distributions, blocked_modules, import_blocker, named_extras

NOTEBOOKS = Path(__file__).resolve().parents[2] / "notebooks"
PATHS = sorted(NOTEBOOKS.glob("*.ipynb"))
KERNEL = "escpush-tests"


def test_the_first_notebooks_are_there() -> None:
    assert [p.name for p in PATHS][:3] == [
        "01_build_and_validate_filters.ipynb",
        "02_preview_filter_on_logs.ipynb",
        "03_esc_test_run_with_emulator.ipynb",
    ]


@pytest.mark.parametrize("path", PATHS, ids=lambda p: p.stem)
def test_committed_without_outputs(path: Path) -> None:
    nb = nbformat.read(path, as_version=4)
    nbformat.validate(nb)
    for i, cell in enumerate(nb.cells):
        if cell.cell_type == "code":
            assert cell.outputs == [], f"cell {i} of {path.name} has outputs: clear them before committing"
            assert cell.execution_count is None, f"cell {i} of {path.name} has an execution count"
        assert "attachments" not in cell or not cell.attachments, f"cell {i} of {path.name} has attachments"


@pytest.fixture(scope="module")
def kernel_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A kernelspec running this interpreter, so that no other Python's `python3` kernel
    (a user-wide or system one) runs the notebooks."""
    base = tmp_path_factory.mktemp("jupyter")
    spec = base / "kernels" / KERNEL
    spec.mkdir(parents=True)
    argv = [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"]
    (spec / "kernel.json").write_text(json.dumps({"argv": argv, "display_name": KERNEL, "language": "python"}))
    return base


def run(path: Path, cwd: Path) -> Any:
    """Runs the notebook's cells in order, each with only the packages a reader has who
    installed escpush, Jupyter's kernel and the extras the notebook's text named before the
    cell (or the cell's comments name): a cell needing another one fails (tests/extras.py)."""
    nb = nbformat.read(path, as_version=4)
    client = NotebookClient(
        nb, kernel_name=KERNEL, timeout=120, startup_timeout=60, resources={"metadata": {"path": str(cwd)}}
    )
    named: set[str] = set()
    blocker = ""
    with client.setup_kernel():
        for index, cell in enumerate(nb.cells):
            if cell.cell_type == "markdown":
                named |= named_extras(cell.source)
            if cell.cell_type != "code":
                continue
            comments = "\n".join(line for line in cell.source.splitlines() if "#" in line)
            blocked = blocked_modules(allowed_distributions(named | named_extras(comments), also=("ipykernel",)))
            if not blocker:
                blocker = import_blocker(blocked)
                client.execute_cell(new_code_cell(blocker), index)  # not a cell of the notebook
            else:
                client.execute_cell(
                    new_code_cell(f"_escpush_blocked.clear(); _escpush_blocked |= {set(blocked)!r}"), index
                )
            client.execute_cell(cell, index)
    return nb


def outputs(nb: Any, kind: str) -> list[Any]:
    """Every output of the executed notebook's code cells of one MIME type (or stream name)."""
    found = []
    for cell in nb.cells:
        for out in cell.get("outputs", []):
            if out.output_type == "stream" and out.name == kind:
                found.append(out.text)
            elif kind in out.get("data", {}):
                found.append(out.data[kind])
    return found


@pytest.mark.parametrize("path", PATHS, ids=lambda p: p.stem)
def test_every_cell_runs(path: Path, kernel_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("JUPYTER_PATH", str(kernel_dir))
    monkeypatch.setenv("MPLBACKEND", "module://matplotlib_inline.backend_inline")
    nb = run(path, tmp_path)
    assert outputs(nb, "stderr") == [], "a cell wrote to stderr"
    html = "\n".join(outputs(nb, "text/html"))
    if path.stem.startswith("01_"):
        assert 'class="escpush escpush-filter"' in html
        assert 'class="escpush escpush-problems"' in html
        assert "over the limit" in html
    if path.stem.startswith("02_"):
        assert 'class="escpush escpush-scan-result"' in html
        assert outputs(nb, "image/png"), "the plot was drawn"
    if path.stem.startswith("03_"):
        assert 'class="escpush escpush-esc-status"' in html
        assert 'class="escpush escpush-job"' in html
        everything = json.dumps([cell.get("outputs", []) for cell in nb.cells])
        for secret in ("AKIAEXAMPLE", "EXAMPLEKEY"):
            assert secret not in everything, "a credential reached the notebook's outputs"
        # set_secret() makes 43 URL-safe characters; none such may show.
        assert not re.search(r"[A-Za-z0-9_-]{43}", everything), "the ESC secret reached the outputs"
    if path.stem.startswith("04_"):
        assert 'class="escpush escpush-esc-assessment"' in html
        assert len(outputs(nb, "image/png")) == 1, "result.plot() was drawn, once"
    if path.stem.startswith("06_"):
        # The previews show their month (priced, never typeset as mathematics), and their plots.
        assert 'class="escpush escpush-preview-result"' in html
        assert "a month, projected" in html and 'class="tex2jax_ignore mathjax_ignore"' in html
        assert len(outputs(nb, "image/png")) == 2, "both plots were drawn"
