"""`escpush demo` (what `make demo` runs) works end to end."""

from __future__ import annotations

import subprocess
import sys

import pytest


@pytest.fixture(scope="module")
def demo_output() -> str:
    result = subprocess.run([sys.executable, "-m", "escpush", "demo"], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_demo_shows_a_valid_and_a_broken_filter(demo_output: str) -> None:
    assert "valid for http_requests: 3 operators, 221 of 1000 bytes" in demo_output
    assert "unknown operator `gte`; did you mean `geq`?" in demo_output
    assert "did you mean `ClientRequestHost`?" in demo_output


def test_demo_creates_a_job_on_the_emulator(demo_output: str) -> None:
    assert "refused before sending: invalid input: destination_conf: an s3 destination names its region" in demo_output
    assert "created job 1; the stored job:" in demo_output
    assert '"logpull_options": "fields=ClientIP,EdgeResponseStatus,ClientRequestHost&timestamps=rfc3339"' in demo_output


def test_version_flag() -> None:
    import escpush

    result = subprocess.run([sys.executable, "-m", "escpush", "--version"], capture_output=True, text=True)
    assert result.stdout.strip() == f"escpush {escpush.__version__}"
