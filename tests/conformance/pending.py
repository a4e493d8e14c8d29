"""What escpush's traffic is known not to conform in yet, pending fixes that other work
items of issue 24 are making (the operation table and new endpoints; the job field rules
and records). Each entry names the violations it stands for and a probe that produces one;
tests/test_conformance.py fails when a probe no longer does, so that the entry is removed
as its fix lands. Anything else that does not conform fails the test that caused it."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import escpush
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
HTTPS = "https://logs.example.com/in?header_Authorization=Basic%20c2VjcmV0"
_RECORD = re.compile(r"^result(\[\d+\])?")


def _in_record(v: Violation, key: str) -> bool:
    """A violation of `key` in a job record of an answer (one record, or one of a list)."""
    if v.side != "answer" or not _RECORD.match(v.where):
        return False
    rest = _RECORD.sub("", v.where)
    return rest == f".{key}" or rest.startswith(f".{key}.") or (rest == "" and f"'{key}' was unexpected" in v.message)


def _quietly(call: Callable[[], object]) -> None:
    """Runs a client call that a fix may make the client refuse (then nothing is sent)."""
    try:
        call()
    except escpush.EscpushError:
        pass


def _probe_challenge_echo(emu: Emulator) -> None:
    logpush = emu.client().zone(ZONE).logpush
    job = logpush.create_job(destination_conf=HTTPS, dataset="http_requests", ownership_challenge="token-1")
    logpush.job(job["id"])


def _probe_name_pattern(emu: Emulator) -> None:
    logpush = emu.client().zone(ZONE).logpush
    _quietly(lambda: logpush.create_job(destination_conf=HTTPS, dataset="http_requests", name="my job_1"))


def _probe_output_options(emu: Emulator) -> None:
    logpush = emu.client().zone(ZONE).logpush
    options = {"bogus": True}
    _quietly(lambda: logpush.create_job(destination_conf=HTTPS, dataset="http_requests", output_options=options))


def _probe_validation_message(emu: Emulator) -> None:
    logpush = emu.client().zone(ZONE).logpush
    logpush.ownership_challenge(S3)
    logpush.validate_ownership(S3, emu.ownership_challenges()[-1]["challenge"])


PENDING: list[Pending] = [
    Pending(
        "records echo ownership_challenge",
        "the emulator's job records hold the `ownership_challenge` they were created or updated with; the "
        "schema's record (and SDK 5.9's LogpushJob) has no such key",
        "fields (issue 24: records with the documented fields only)",
        lambda v: _in_record(v, "ownership_challenge"),
        _probe_challenge_echo,
    ),
    Pending(
        "name outside the schema's pattern",
        "the client sends, and the emulator stores, a `name` with spaces, underscores or other characters "
        "outside `^[a-zA-Z0-9\\-\\.]*$` (or over 512 characters)",
        "fields (issue 24: refuse what the API refuses)",
        lambda v: (v.side == "request" and v.where == "name") or _in_record(v, "name"),
        _probe_name_pattern,
    ),
    Pending(
        "output_options keys and values",
        "the client sends, and the emulator stores, `output_options` keys the schema does not have and values "
        "out of its ranges (no check of output_options yet)",
        "fields (issue 24: unknown output_options keys and bad values)",
        lambda v: (
            (v.side == "request" and v.where.split(".")[0].split("[")[0] == "output_options")
            or _in_record(v, "output_options")
        ),
        _probe_output_options,
    ),
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
