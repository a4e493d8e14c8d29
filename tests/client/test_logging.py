"""Python's `logging`: each request of the native transport at DEBUG on the `escpush` logger
(method, URL, status, attempt, retry and rate-limit waits), every secret masked; turned on by
the logging configuration, by CLOUDFLARE_LOG=debug (as Cloudflare's SDK) and by the CLI's -v."""

from __future__ import annotations

import logging
import os
import subprocess
import sys

import pytest

import escpush
from cli_support import Cli
from escpush.testing import Emulator

ZONE = "023e105f4ecef8ad9ca31a8372d0c353"
SECRET = "s3cret-for-the-log-test"


def _lines(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == "escpush"]


def test_each_request_and_retry_is_logged_at_debug_with_no_secret(
    escpush_emulator: Emulator, caplog: pytest.LogCaptureFixture
) -> None:
    client = escpush_emulator.client()
    zone = client.zone(ZONE)
    caplog.set_level(logging.DEBUG, logger="escpush")
    escpush_emulator.fail_next(status=429, count=1, retry_after=0)
    zone.esc.set_secret(SECRET)
    lines = _lines(caplog)
    path = f"/zones/{ZONE}/disable_esc"
    assert lines[0].startswith(
        f'POST {escpush_emulator.base_url}{path} {{"with_secret":"***"}} -> HTTP 429 (attempt 1, '
    )
    assert lines[1].startswith(f"POST {path}: retrying in 0 s, HTTP 429 asked for it (Retry-After); attempt 2 of 3")
    assert "-> HTTP 200 (attempt 2, " in lines[2] and len(lines) == 3
    assert all(r.levelno == logging.DEBUG for r in caplog.records if r.name == "escpush")
    # The credentials and the secret appear in no record (the job's destination credentials
    # neither, masked by core's redaction).
    zone.logpush.create_job(
        destination_conf="s3://bucket/logs?region=us-east-1&access-key-id=AKIAEXAMPLE&secret-access-key=SECRETKEY123",
        dataset="http_requests",
    )
    shown = "\n".join(_lines(caplog))
    for secret in (SECRET, escpush_emulator.api_key, escpush_emulator.api_token, "SECRETKEY123", "AKIAEXAMPLE"):
        assert secret not in shown, secret
    assert "secret-access-key=***" in shown


def test_nothing_is_logged_below_debug_and_a_change_shows_at_the_next_call(
    escpush_emulator: Emulator, caplog: pytest.LogCaptureFixture
) -> None:
    zone = escpush_emulator.client().zone(ZONE)
    caplog.set_level(logging.DEBUG, logger="escpush")  # the capture takes DEBUG; the logger, not yet
    logging.getLogger("escpush").setLevel(logging.INFO)
    zone.esc.status()
    assert _lines(caplog) == []
    logging.getLogger("escpush").setLevel(logging.DEBUG)
    zone.esc.status()
    assert len(_lines(caplog)) == 1
    logging.getLogger("escpush").setLevel(logging.WARNING)
    zone.esc.status()
    assert len(_lines(caplog)) == 1


def test_the_logger_name_is_the_transports_target() -> None:
    from escpush import _logging

    assert _logging.LOGGER_NAME == "escpush"


def _env(emu: Emulator, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("CLOUDFLARE_")}
    env.update(CLOUDFLARE_BASE_URL=emu.base_url, CLOUDFLARE_API_TOKEN=emu.api_token, **extra)
    return env


def test_cloudflare_log_debug_shows_the_requests_on_stderr(escpush_emulator: Emulator) -> None:
    """`CLOUDFLARE_LOG=debug escpush esc status --zone Z`, as with Cloudflare's SDK."""
    run = [sys.executable, "-m", "escpush", "esc", "status", "--zone", ZONE]
    done = subprocess.run(run, env=_env(escpush_emulator, CLOUDFLARE_LOG="debug"), capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert f"DEBUG] GET {escpush_emulator.base_url}/zones/{ZONE}/disable_esc -> HTTP 200 (attempt 1, " in done.stderr
    assert escpush_emulator.api_token not in done.stderr + done.stdout
    # and from Python, the same
    code = f"import escpush; c = escpush.Client.from_env(); c.zone({ZONE!r}).esc.set_secret({SECRET!r})"
    done = subprocess.run(
        [sys.executable, "-c", code], env=_env(escpush_emulator, CLOUDFLARE_LOG="debug"), capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert '{"with_secret":"***"} -> HTTP 200' in done.stderr and SECRET not in done.stderr
    # Without it, nothing.
    done = subprocess.run(run, env=_env(escpush_emulator), capture_output=True, text=True)
    assert done.returncode == 0 and done.stderr == ""
    # With -v too, each request once (-v's line), not twice.
    done = subprocess.run(
        [*run, "-v"], env=_env(escpush_emulator, CLOUDFLARE_LOG="debug"), capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr.count("/disable_esc -> HTTP 200") == 1, done.stderr


def test_cli_verbose_shows_the_requests(cli: Cli, api: Emulator) -> None:
    for argv in (["-v", "esc", "status", "--zone", ZONE], ["esc", "status", "--zone", ZONE, "--verbose"]):
        run = cli(*argv)
        assert run.code == 0, run.err
        assert run.err.startswith(f"escpush: GET {api.base_url}/zones/{ZONE}/disable_esc -> HTTP 200"), run.err
        assert api.api_token not in run.err
    # Only for that command.
    run = cli("esc", "status", "--zone", ZONE)
    assert run.code == 0 and run.err == ""
    assert logging.getLogger("escpush").level == logging.NOTSET


def test_escpush_does_not_import_logging(tmp_path: object) -> None:
    """The forwarder costs nothing until the program imports `logging` itself."""
    code = "import sys, escpush; print('logging' in sys.modules)"
    env = {k: v for k, v in os.environ.items() if k != "CLOUDFLARE_LOG"}
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"
    assert escpush.__version__
