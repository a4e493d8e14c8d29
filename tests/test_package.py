"""The package as a whole: version, exports, and the stub file against the built module."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import escpush

ROOT = Path(__file__).resolve().parent.parent


def test_version_comes_from_cargo_toml() -> None:
    cargo = (ROOT / "Cargo.toml").read_text()
    version = next(line.split('"')[1] for line in cargo.splitlines() if line.startswith("version = "))
    assert escpush.__version__ == version


def test_all_names_exist() -> None:
    for name in escpush.__all__:
        assert hasattr(escpush, name), name


def test_stub_file_matches_the_module() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "mypy.stubtest", "escpush._escpush"],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_default_limits_are_cores() -> None:
    def conditions(n: int) -> escpush.Filter:
        where = {"or": [{"key": "ClientCountry", "operator": "eq", "value": "cn"}] * n}
        return escpush.Filter.from_dict({"where": where})

    at, over = conditions(escpush.DEFAULT_MAX_OPERATORS), conditions(escpush.DEFAULT_MAX_OPERATORS + 1)
    assert "too_many_operators" not in {p["code"] for p in at.problems()}
    assert "too_many_operators" in {p["code"] for p in over.problems()}
    assert escpush.DEFAULT_MAX_BYTES > 0
