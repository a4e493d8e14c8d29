"""`escpush demo` (what `make demo` runs) works end to end."""

from __future__ import annotations

import subprocess
import sys


def test_demo_runs_and_shows_a_valid_and_a_broken_filter() -> None:
    result = subprocess.run([sys.executable, "-m", "escpush", "demo"], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "valid for http_requests: 3 operators, 221 of 1000 bytes" in out
    assert "unknown operator `gte`; did you mean `geq`?" in out
    assert "did you mean `ClientRequestHost`?" in out


def test_version_flag() -> None:
    import escpush

    result = subprocess.run([sys.executable, "-m", "escpush", "--version"], capture_output=True, text=True)
    assert result.stdout.strip() == f"escpush {escpush.__version__}"


def test_demo_creates_a_job_on_the_emulator() -> None:
    result = subprocess.run([sys.executable, "-m", "escpush", "demo"], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "refused before sending: invalid input: destination_conf: an s3 destination names its region" in out
    assert "created job 1; the stored job:" in out
    assert '"logpull_options": "fields=ClientIP,EdgeResponseStatus,ClientRequestHost&timestamps=rfc3339"' in out
