"""A standard stream closed when escpush starts (`>&-`, `2>&-`, `<&-`) or whose reader leaves
(`2>&1 | head -1`): a clear error where it matters, never a traceback, and diagnostics that
cannot be shown never change what a command does (issue 22, items 11 and 12)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from escpush.testing import Emulator

pytestmark = pytest.mark.skipif(os.name != "posix", reason="closes descriptors with sh")

FILTER = '{"where":{"key":"A","operator":"eq","value":"1"}}'


def escpush(*argv: str, redirect: str, emu: Emulator | None = None, **kwargs: Any) -> subprocess.CompletedProcess[str]:
    """`escpush ARGV` run by sh with `redirect` (`>&-`, `2>&-`, `<&-`)."""
    env = dict(os.environ)
    if emu is not None:
        env.update(CLOUDFLARE_BASE_URL=emu.base_url, CLOUDFLARE_API_TOKEN=emu.api_token)
        env.pop("CLOUDFLARE_API_KEY", None)
    script = f'exec "$@" {redirect}'
    argv_all = ["sh", "-c", script, "sh", sys.executable, "-m", "escpush", *argv]
    return subprocess.run(argv_all, capture_output=True, text=True, env=env, timeout=120, **kwargs)


# -- stdout closed -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "argv",
    [("filter", "fmt", FILTER), ("filter", "scan", FILTER, "-")],
    ids=["fmt", "scan"],
)
def test_a_closed_stdout_is_one_line_and_exit_2(argv: tuple[str, ...]) -> None:
    done = escpush(*argv, redirect=">&-", input='{"A":1}\n')
    assert done.returncode == 2, done
    assert done.stderr == "escpush: standard output is closed: nothing could be written\n"


def test_a_closed_stdout_with_json_is_one_json_error() -> None:
    done = escpush("filter", "validate", FILTER, "--json", redirect=">&-")
    assert done.returncode == 2, done
    error = json.loads(done.stderr)["error"]
    assert (error["message"], error["exit_code"]) == ("standard output is closed: nothing could be written", 2)


def test_a_closed_stdout_does_not_matter_to_a_command_that_prints_nothing() -> None:
    done = escpush("filter", "fmt", FILTER, "--check", redirect=">&-")
    assert (done.returncode, done.stderr) == (0, "")


# -- stdin closed ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("argv", "what"),
    [
        (("filter", "validate", "-"), "the filter"),
        (("filter", "scan", FILTER, "-"), "the logs"),
        (("filter", "scan", FILTER, "-", "--output", "out.ndjson"), "the logs"),
        (("logpush", "apply", "-", "--zone", "z1", "--dry-run"), "the jobs file"),
    ],
    ids=["validate -", "scan -", "scan - --output", "apply -"],
)
def test_a_closed_stdin_is_bad_input(argv: tuple[str, ...], what: str, tmp_path: Path) -> None:
    done = escpush(*argv, redirect="<&-", cwd=tmp_path)
    assert done.returncode == 2, done
    assert done.stderr == f"escpush: standard input is closed: {what} cannot be read from -\n"
    assert done.stdout == ""
    assert list(tmp_path.iterdir()) == []


# -- stderr closed, or its reader gone -----------------------------------------------------------


def test_errors_never_land_on_stdout_when_stderr_is_closed() -> None:
    done = escpush("filter", "fmt", "A ==", redirect="2>&-")
    assert (done.returncode, done.stdout) == (2, "")
    done = escpush("filter", "fmt", "A ==", "--json", redirect="2>&-")
    assert (done.returncode, done.stdout) == (2, "")
    done = escpush("filter", "fmt", "--indent", "x", FILTER, redirect="2>&-")  # a usage error
    assert (done.returncode, done.stdout) == (2, "")


def test_esc_assess_with_stderr_closed_goes_on_and_prints_its_result(escpush_emulator: Emulator) -> None:
    emu = escpush_emulator
    site = emu.serve_site("z1")
    done = escpush("esc", "assess", "--zone", "z1", "--url", f"{site}/", "--settle", "0", redirect="2>&-", emu=emu)
    assert done.returncode == 0, done
    assert done.stdout.startswith("ESC assessment of zone z1: every stage passed"), done.stdout
    assert "escpush: " not in done.stdout  # no progress line in the result
    assert emu.state()["zones"]["z1"]["esc"]["always"] is False


def test_esc_assess_with_stderr_into_head_goes_on_and_prints_its_result(escpush_emulator: Emulator) -> None:
    emu = escpush_emulator
    site = emu.serve_site("z1")
    env = dict(os.environ, CLOUDFLARE_BASE_URL=emu.base_url, CLOUDFLARE_API_TOKEN=emu.api_token)
    env.pop("CLOUDFLARE_API_KEY", None)
    argv = [sys.executable, "-m", "escpush", "esc", "assess", "--zone", "z1", "--url", f"{site}/", "--settle", "0.2"]
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    assert proc.stdout is not None and proc.stderr is not None
    first = proc.stderr.readline()
    proc.stderr.close()  # as `2>&1 | head -1` does: the next progress line has no reader
    out = proc.stdout.read()
    proc.stdout.close()
    assert proc.wait(timeout=60) == 0, out
    assert first.startswith(b"escpush: reading the ESC status of zone z1")
    assert out.startswith(b"ESC assessment of zone z1: every stage passed"), out
    assert emu.state()["zones"]["z1"]["esc"]["always"] is False


def test_esc_assess_json_with_stderr_closed(escpush_emulator: Emulator) -> None:
    emu = escpush_emulator
    site = emu.serve_site("z1")
    argv = ("esc", "assess", "--zone", "z1", "--url", f"{site}/", "--settle", "0", "--json")
    done = escpush(*argv, redirect="2>&-", emu=emu)
    assert done.returncode == 0, done
    assert json.loads(done.stdout)["ok"] is True


def test_a_scan_of_a_closed_stdin_in_python_is_a_scan_error() -> None:
    """`Filter.scan("-")` with descriptor 0 closed: an error, not an empty input."""
    code = (
        "import escpush\n"
        "try:\n"
        f"    escpush.Filter.parse({FILTER!r}).scan('-')\n"
        "except escpush.ScanError as err:\n"
        "    print(err)\n"
    )
    argv = ["sh", "-c", 'exec "$@" <&-', "sh", sys.executable, "-c", code]
    done = subprocess.run(argv, capture_output=True, text=True, check=False)
    assert done.stdout.startswith("cannot open `<stdin>`: standard input is closed"), done
