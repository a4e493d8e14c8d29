"""The optional engines the tests run (DuckDB, polars, pandas, ...): imported, or the test is
skipped naming the package, and fails instead under CI or with ESCPUSH_REQUIRE_ENGINES=1."""

from __future__ import annotations

import importlib
import os
from typing import Any

import pytest

__all__ = ["need"]


def need(module: str) -> Any:
    """The engine's module, or a skip naming it (a failure under CI)."""
    try:
        return importlib.import_module(module)
    except ImportError:
        message = f"{module} is not installed (pip install -e '.[test]')"
        if os.environ.get("CI") or os.environ.get("ESCPUSH_REQUIRE_ENGINES"):
            pytest.fail(message)
        pytest.skip(message)
