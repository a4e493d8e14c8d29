"""What escpush's traffic is known not to conform in yet, pending a fix (each entry names the
work item that owns it). Each entry names the violations it stands for and a probe that
produces one; tests/test_conformance.py fails when a probe no longer does, so that the entry
is removed as its fix lands. Anything else that does not conform fails the test that caused
it."""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from escpush.testing import Emulator

from .check import Checker, Violation

CLIENT_AGENT = "escpush/"


@dataclass(frozen=True)
class Pending:
    name: str
    reason: str  # why it does not conform, and which fix removes it
    owner: str  # the work item whose fix removes it
    matches: Callable[[Violation], bool]
    probe: Callable[[Emulator], None]  # produces at least one matching violation


ZONE = "023e105f4ecef8ad9ca31a8372d0c353"
S3 = "s3://bucket/logs?region=us-east-1"


def _probe_validation_message(emu: Emulator) -> None:
    logpush = emu.client().zone(ZONE).logpush
    logpush.ownership_challenge(S3)
    logpush.validate_ownership(S3, emu.ownership_challenges()[-1]["challenge"])


PENDING: list[Pending] = [
    Pending(
        "ownership validation answers a message",
        "the emulator answers `POST .../ownership/validate` with `{valid, message}`; the schema's result (and "
        "SDK 5.9's OwnershipValidation, and the newer published schema) is `{valid}` alone",
        "unassigned: the emulator's ownership handler (not in this issue's work items; reported)",
        lambda v: (
            v.side == "answer"
            and (v.operation or "").endswith("/logpush/ownership/validate")
            and "'message' was unexpected" in v.message
        ),
        _probe_validation_message,
    ),
]


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
    """The violations no PENDING entry stands for. With ESCPUSH_CONFORMANCE_LOG set to a
    file, every violation (pending or not) is also appended to it, one JSON line each."""
    found = violations(checker, entries, forged=forged)
    log = os.environ.get("ESCPUSH_CONFORMANCE_LOG")
    if log and found:
        with open(log, "a", encoding="utf-8") as f:
            for v in found:
                f.write(json.dumps({**v.__dict__, "pending": [p.name for p in PENDING if p.matches(v)]}) + "\n")
    return [v for v in found if not any(p.matches(v) for p in PENDING)]
