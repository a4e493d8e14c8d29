"""Schema conformance of escpush's traffic: every request the client sends and every answer
the emulator gives, checked against Cloudflare's published log-push schema
(`tests/data/cloudflare-logpush-openapi-2024-08-07.json`) corrected by `deviations.py`, and
the ESC endpoints against the seed's shapes (`esc.py`). `traffic.py` picks what a test's
traffic check judges. tests/conftest.py applies the check to every emulator a test starts;
tests/emulator/test_conformance.py drives every operation."""

from __future__ import annotations

from functools import cache

from .check import Checker, Violation, load_document
from .deviations import DEVIATIONS, patched
from .esc import esc_paths

__all__ = ["DEVIATIONS", "Checker", "Violation", "checker", "document"]


def document(*, without: str | None = None) -> dict[str, object]:
    """The published schema with the deviations (all, or all but `without`) and the ESC paths."""
    doc = patched(load_document(), without=without)
    doc["paths"].update(esc_paths())
    return doc


@cache
def checker() -> Checker:
    """The check every test's traffic goes through."""
    return Checker(document())
