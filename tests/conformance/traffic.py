"""Which logged requests a test's traffic check judges, and what it found: every answer, and
every request escpush's client sent (a test that forges requests on purpose is marked
`forges_requests`). Whatever does not conform fails the test that caused it; the only
allowances are the explained corrections of deviations.py."""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping
from typing import Any

from .check import Checker, Violation

CLIENT_AGENT = "escpush/"


def from_client(entry: Mapping[str, Any]) -> bool:
    """Whether escpush's client sent the logged request (its User-Agent)."""
    headers = entry.get("headers") or {}
    return str(headers.get("user-agent", "")).startswith(CLIENT_AGENT)


def violations(checker: Checker, entries: Iterable[Mapping[str, Any]], *, forged: bool) -> list[Violation]:
    """Every violation of `entries`: the answers always, the requests when escpush's client
    sent them or the test forges none."""
    out: list[Violation] = []
    for entry in entries:
        if checker.in_scope(entry):
            out.extend(checker.check(entry, request=not forged or from_client(entry)))
    return out


def unexpected(checker: Checker, entries: Iterable[Mapping[str, Any]], *, forged: bool) -> list[Violation]:
    """The violations of `entries` (see `violations`). With ESCPUSH_CONFORMANCE_LOG set to a
    file, each is also appended to it, one JSON line each."""
    found = violations(checker, entries, forged=forged)
    log = os.environ.get("ESCPUSH_CONFORMANCE_LOG")
    if log and found:
        with open(log, "a", encoding="utf-8") as f:
            for v in found:
                f.write(json.dumps(v.__dict__) + "\n")
    return found
