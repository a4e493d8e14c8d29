"""`escpush demo` (what `make demo` runs) works end to end."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from escpush import DEFAULT_MAX_BYTES, DEFAULT_MAX_OPERATORS, Filter


@pytest.fixture(scope="module")
def demo_output() -> str:
    result = subprocess.run([sys.executable, "-m", "escpush", "demo"], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_demo_shows_a_valid_and_a_broken_filter(demo_output: str) -> None:
    # The filter's size, as the demo prints it, is that of the filter it printed, within
    # core's default limits.
    built = next(line for line in demo_output.splitlines() if line.startswith("built:"))
    f = eval(built.split(":", 1)[1].strip(), {"Filter": Filter})
    valid = next(line for line in demo_output.splitlines() if line.startswith("valid for http_requests:"))
    m = re.fullmatch(r"valid for http_requests: (\d+) of (\d+) operators, (\d+) of (\d+) bytes", valid)
    assert m is not None, valid
    ops, op_limit, size, byte_limit = map(int, m.groups())
    assert (ops, size) == (f.operator_count, f.byte_size)
    assert (op_limit, byte_limit) == (DEFAULT_MAX_OPERATORS, DEFAULT_MAX_BYTES)
    assert 0 < ops <= op_limit and 0 < size <= byte_limit
    assert f.problems("http_requests") == []
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
