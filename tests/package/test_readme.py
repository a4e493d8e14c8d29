"""The README's examples run as written: Python blocks in order, the pytest example through
pytest itself, the command-line session against its printed output, and the Rust excerpt
against the example that `make test` runs."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from escpush.cli import main

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text()
PYTHON = re.findall(r"```python\n(.*?)```", README, flags=re.S)
CONSOLE = re.findall(r"```console\n(.*?)```", README, flags=re.S)
RUST = re.findall(r"```rust\n(.*?)```", README, flags=re.S)


def test_readme_has_every_kind_of_example() -> None:
    assert len(PYTHON) >= 5 and CONSOLE and RUST
    assert any("def test_" in block for block in PYTHON)


def test_readme_python_examples_run_in_order(capsys: pytest.CaptureFixture[str]) -> None:
    namespace: dict[str, object] = {}
    for block in PYTHON:
        exec(compile(block, "README.md", "exec"), namespace)
    out = capsys.readouterr().out
    assert "3 221" in out
    assert "did you mean `geq`?" in out
    assert "did you mean `ClientRequestHost`?" in out
    assert "keeps 50.0% of lines, 59.1% of bytes" in out  # the filter builder's sample


def test_readme_pytest_example_passes_under_pytest(tmp_path: Path) -> None:
    """The block with a test runs as a user's test suite would, with the installed plugin."""
    (block,) = [b for b in PYTHON if "def test_" in b]
    (tmp_path / "test_from_readme.py").write_text(block)
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(tmp_path)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 passed" in done.stdout


def _session(block: str) -> list[tuple[str, str]]:
    """``$ command`` lines with the output printed under each."""
    steps: list[tuple[str, str]] = []
    for line in block.splitlines(keepends=True):
        if line.startswith("$ "):
            steps.append((line[2:].strip(), ""))
        else:
            command, out = steps[-1]
            steps[-1] = (command, out + line)
    return steps


@pytest.mark.parametrize("step", [s for block in CONSOLE for s in _session(block)], ids=lambda s: s[0][:60])
def test_readme_command_line_session(step: tuple[str, str], capsys: pytest.CaptureFixture[str]) -> None:
    command, expected = step
    argv = shlex.split(command)
    assert argv[0] == "escpush"
    main(argv[1:])
    assert capsys.readouterr().out == expected


def test_readme_rust_excerpt_is_the_runnable_example() -> None:
    """Each line of the README's Rust block is in crates/escpush-http/examples/tour.rs, in order."""
    example = [line.strip() for line in (ROOT / "crates/escpush-http/examples/tour.rs").read_text().splitlines()]
    at = 0
    for line in (line.strip() for block in RUST for line in block.splitlines()):
        if not line:
            continue
        assert line in example[at:], f"README's Rust line is not in the example (in order): {line}"
        at = example.index(line, at) + 1
