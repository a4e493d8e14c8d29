"""The README's Python examples run as written."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

README = (Path(__file__).resolve().parent.parent / "README.md").read_text()
BLOCKS = re.findall(r"```python\n(.*?)```", README, flags=re.S)


def test_readme_has_python_examples() -> None:
    assert len(BLOCKS) >= 2


def test_readme_examples_run_in_order(capsys: pytest.CaptureFixture[str]) -> None:
    namespace: dict[str, object] = {}
    for block in BLOCKS:
        exec(compile(block, "README.md", "exec"), namespace)
    out = capsys.readouterr().out
    assert "3 221" in out
    assert "did you mean `geq`?" in out
    assert "did you mean `ClientRequestHost`?" in out
