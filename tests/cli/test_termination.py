"""SIGTERM and SIGHUP (what `timeout`, Kubernetes and CI cancellation send) while escpush holds
a state it must put back: real processes, real signals, against the emulator (issue 22, items
1 and 14). Ended by either one, `esc assess`, `zone.esc.assess(...)`, `esc.disabled()` and
`Filter.select` put back what they changed (or remove their temporary file) and end with the
status 128 + N, as Ctrl-C already did with 130."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import escpush
from escpush.testing import Emulator

pytestmark = pytest.mark.skipif(not hasattr(signal, "SIGHUP"), reason="POSIX signals")

SIGNALS = [signal.SIGTERM, signal.SIGHUP] if hasattr(signal, "SIGHUP") else []
FILTER = '{"where":{"key":"A","operator":"eq","value":1}}'


# The child starts with SIGTERM and SIGHUP at their defaults, whatever this process inherited
# (`nohup` ignores SIGHUP, and an ignored signal stays ignored across exec): a launcher sets
# them, then becomes the command (a handler, unlike "ignored", is reset on exec).
LAUNCHER = [
    sys.executable,
    "-c",
    "import os, signal, sys\n"
    "for s in (signal.SIGTERM, signal.SIGHUP): signal.signal(s, signal.SIG_DFL)\n"
    "os.execv(sys.argv[1], sys.argv[1:])",
]


def start(argv: list[str], emu: Emulator | None = None, **kwargs: Any) -> subprocess.Popen[str]:
    env = dict(os.environ)
    if emu is not None:
        env.update(CLOUDFLARE_BASE_URL=emu.base_url, CLOUDFLARE_API_TOKEN=emu.api_token)
        env.pop("CLOUDFLARE_API_KEY", None)
    return subprocess.Popen(
        [*LAUNCHER, *argv], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kwargs
    )


def wait_for(proc: subprocess.Popen[str], *marks: str) -> None:
    """Reads stderr until every mark was seen, in order."""
    assert proc.stderr is not None
    marks_left = list(marks)
    for line in proc.stderr:
        if marks_left and marks_left[0] in line:
            marks_left.pop(0)
            if not marks_left:
                return
    raise AssertionError(f"the process ended before {marks_left}: {proc.wait()}")


def finish(proc: subprocess.Popen[str]) -> tuple[str, str]:
    """What the process printed, once it ended (killed after 30 s: a hang is a failure)."""
    try:
        return proc.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
        raise AssertionError(f"still running 30 s after the signal: {out!r} {err!r}") from None


def esc_of(emu: Emulator, kind: str = "zones", id: str = "z1") -> dict[str, Any]:
    """The ESC setting of a scope (the default one before the first request touches it)."""
    esc: dict[str, Any] = emu.state()[kind].get(id, {}).get("esc", {"always": False})
    return esc


@pytest.fixture
def emu(escpush_emulator: Emulator) -> Iterator[Emulator]:
    yield escpush_emulator


# -- esc assess: the command line ------------------------------------------------------------


@pytest.mark.parametrize("signum", SIGNALS, ids=lambda s: signal.Signals(s).name)
@pytest.mark.parametrize("stage", ["zone", "account"])
def test_esc_assess_ended_by_a_signal_restores_and_exits_128_plus_n(emu: Emulator, signum: int, stage: str) -> None:
    site = emu.serve_site("z1", account="a1")
    argv = [sys.executable, "-m", "escpush", "esc", "assess", "--zone", "z1", "--account", "a1"]
    proc = start([*argv, "--url", f"{site}/", "--settle", "3"], emu)
    try:
        if stage == "zone":
            wait_for(proc, "disabling ESC for zone z1", "to reach the edge")
            assert esc_of(emu)["always"] is True
        else:
            wait_for(proc, "disabling ESC for account a1", "to reach the edge")
            assert esc_of(emu, "accounts", "a1")["always"] is True
        proc.send_signal(signum)
    finally:
        out, err = finish(proc)
    assert proc.returncode == 128 + signum, (proc.returncode, out, err)
    name = signal.Signals(signum).name
    assert f"interrupted: {name}" in out, out
    assert "restored: every scope is as it was found" in out, out
    assert "NOT RESTORED" not in out + err
    assert "Traceback" not in err, err
    assert esc_of(emu)["always"] is False
    assert esc_of(emu, "accounts", "a1")["always"] is False


def test_esc_assess_json_ended_by_sigterm_prints_the_restored_result(emu: Emulator) -> None:
    site = emu.serve_site("z1")
    argv = [sys.executable, "-m", "escpush", "esc", "assess", "--zone", "z1", "--url", f"{site}/"]
    # No progress lines with --json: wait until the API shows the zone disabled.
    proc = start([*argv, "--settle", "30", "--json"], emu)
    try:
        for _ in range(600):
            if esc_of(emu)["always"]:
                break
            threading.Event().wait(0.05)
        assert esc_of(emu)["always"] is True
        proc.send_signal(signal.SIGTERM)
    finally:
        out, err = finish(proc)
    assert proc.returncode == 128 + signal.SIGTERM, err
    data = json.loads(out)
    assert data["restored"] is True and data["error"] == "interrupted: SIGTERM"
    assert err == ""
    assert esc_of(emu)["always"] is False


# -- zone.esc.assess(...) and esc.disabled(): the library ------------------------------------

SCRIPT_PRELUDE = """
import json, sys, time
import escpush
client = escpush.Client(api_token=sys.argv[1], base_url=sys.argv[2])
zone = client.zone("z1")
def progress(line):
    print(line, file=sys.stderr, flush=True)
"""


def run_script(emu: Emulator, body: str) -> subprocess.Popen[str]:
    code = SCRIPT_PRELUDE + textwrap.dedent(body)
    return start([sys.executable, "-c", code, emu.api_token, emu.base_url])


@pytest.mark.parametrize("signum", SIGNALS, ids=lambda s: signal.Signals(s).name)
def test_assess_in_python_ended_by_a_signal_restores_then_raises_terminated(emu: Emulator, signum: int) -> None:
    site = emu.serve_site("z1", account="a1")
    proc = run_script(
        emu,
        f"""
        try:
            zone.esc.assess(["{site}/"], account="a1", settle=60, progress=progress)
        except BaseException as exc:
            result = exc.assessment
            print(json.dumps([type(exc).__name__, exc.code, result.restored, result.error]), flush=True)
            raise
        """,
    )
    try:
        wait_for(proc, "disabling ESC for zone z1", "to reach the edge")
        proc.send_signal(signum)
    finally:
        out, err = finish(proc)
    name = signal.Signals(signum).name
    # Uncaught, Terminated ends the process with 128 + N, silently (it is a SystemExit).
    assert proc.returncode == 128 + signum, err
    assert json.loads(out) == ["Terminated", 128 + signum, True, f"interrupted: {name}"]
    assert "Traceback" not in err
    assert esc_of(emu)["always"] is False and esc_of(emu, "accounts", "a1")["always"] is False


def test_esc_disabled_ended_by_sigterm_enables_esc_again(emu: Emulator) -> None:
    proc = run_script(
        emu,
        """
        with zone.esc.disabled():
            print("disabled", file=sys.stderr, flush=True)
            time.sleep(60)
        """,
    )
    try:
        wait_for(proc, "disabled")
        assert esc_of(emu)["always"] is True
        proc.send_signal(signal.SIGTERM)
    finally:
        _, err = finish(proc)
    assert proc.returncode == 128 + signal.SIGTERM, err
    assert esc_of(emu)["always"] is False


def test_handlers_are_put_back_and_never_replace_the_callers(escpush_emulator: Emulator) -> None:
    """In-process: the handlers are ours only during the call, and only where they were the
    default; another handler, an ignored signal and another thread are left alone."""
    emu = escpush_emulator
    site = emu.serve_site("z1")
    zone = emu.client().zone("z1")
    seen: list[object] = []

    def progress(line: str) -> None:
        seen.append(signal.getsignal(signal.SIGTERM))

    before = (signal.getsignal(signal.SIGTERM), signal.getsignal(signal.SIGHUP))
    assert before == (signal.SIG_DFL, signal.SIG_DFL)
    zone.esc.assess([f"{site}/"], settle=0, progress=progress)
    assert (signal.getsignal(signal.SIGTERM), signal.getsignal(signal.SIGHUP)) == before
    assert seen and all(h not in (signal.SIG_DFL, None) for h in seen), seen
    with zone.esc.disabled():
        assert signal.getsignal(signal.SIGHUP) not in (signal.SIG_DFL, None)
    assert (signal.getsignal(signal.SIGTERM), signal.getsignal(signal.SIGHUP)) == before

    def mine(signum: int, frame: object) -> None:
        pass

    seen.clear()
    signal.signal(signal.SIGTERM, mine)
    signal.signal(signal.SIGHUP, signal.SIG_IGN)
    try:
        zone.esc.assess([f"{site}/"], settle=0, progress=progress)
        with zone.esc.disabled():
            assert signal.getsignal(signal.SIGHUP) == signal.SIG_IGN
        assert set(seen) == {mine}
        assert signal.getsignal(signal.SIGTERM) is mine
        assert signal.getsignal(signal.SIGHUP) == signal.SIG_IGN
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        signal.signal(signal.SIGHUP, signal.SIG_DFL)
    # Another thread cannot install handlers: it runs as before, without them.
    results: list[object] = []
    worker = threading.Thread(target=lambda: results.append(zone.esc.assess([f"{site}/"], settle=0).ok))
    worker.start()
    worker.join(60)
    assert results == [True]


def test_terminated_is_a_system_exit_with_the_shells_status() -> None:
    from escpush import Terminated

    stop = Terminated(signal.SIGTERM)
    assert isinstance(stop, SystemExit) and not isinstance(stop, Exception)
    assert (stop.code, stop.signal, str(stop)) == (128 + signal.SIGTERM, signal.SIGTERM, "SIGTERM")
    assert escpush.errors.Terminated is Terminated
    assert repr(stop) == "Terminated(15)"


# -- filter scan --output and Filter.select: the temporary file --------------------------------


def ended(proc: subprocess.Popen[str]) -> int:
    """The exit status, waited for with stdin still open: a scan that waits for more input
    must stop all the same."""
    try:
        return proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()
        finish(proc)
        raise AssertionError("still running 20 s after the signal, waiting for stdin") from None


def temp_files(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".escpush-tmp"))


def feed_until_the_temp_file_shows(proc: subprocess.Popen[str], folder: Path) -> None:
    assert proc.stdin is not None
    proc.stdin.write('{"A":1}\n' * 10_000)
    proc.stdin.flush()
    for _ in range(600):
        if temp_files(folder):
            return
        threading.Event().wait(0.05)
    raise AssertionError("no temporary file")


@pytest.mark.parametrize("signum", SIGNALS, ids=lambda s: signal.Signals(s).name)
def test_filter_scan_output_ended_by_a_signal_leaves_no_temporary_file(tmp_path: Path, signum: int) -> None:
    out = tmp_path / "kept.ndjson"
    out.write_text("the previous output\n")
    argv = [sys.executable, "-m", "escpush", "filter", "scan", FILTER, "-", "--output", str(out)]
    # stdin stays open and idle: the scan waits for more lines when the signal comes.
    proc = start(argv, stdin=subprocess.PIPE, cwd=tmp_path)
    try:
        feed_until_the_temp_file_shows(proc, tmp_path)
        proc.send_signal(signum)
        assert ended(proc) == 128 + signum
    finally:
        _, err = finish(proc)
    assert temp_files(tmp_path) == []
    assert out.read_text() == "the previous output\n"
    assert err == f"escpush: terminated by {signal.Signals(signum).name}\n"


def test_filter_select_in_python_ended_by_sigterm_leaves_no_temporary_file(tmp_path: Path) -> None:
    out = tmp_path / "kept.ndjson"
    code = f"import escpush; escpush.Filter.parse({FILTER!r}).select('-', {str(out)!r})"
    proc = start([sys.executable, "-c", code], stdin=subprocess.PIPE, cwd=tmp_path)
    try:
        feed_until_the_temp_file_shows(proc, tmp_path)
        proc.send_signal(signal.SIGTERM)
        assert ended(proc) == 128 + signal.SIGTERM
    finally:
        finish(proc)
    assert temp_files(tmp_path) == [] and not out.exists()


def test_ctrl_c_stops_a_scan_waiting_for_stdin(tmp_path: Path) -> None:
    """A scan of an idle stdin (`tail -f ... | escpush filter scan F -`) stops on Ctrl-C; it
    waited for the next line, or the end of the input."""
    argv = [sys.executable, "-m", "escpush", "filter", "scan", FILTER, "-", "--output", "kept.ndjson"]
    proc = start(argv, stdin=subprocess.PIPE, cwd=tmp_path)
    try:
        feed_until_the_temp_file_shows(proc, tmp_path)
        proc.send_signal(signal.SIGINT)
        assert ended(proc) == 130
    finally:
        _, err = finish(proc)
    assert err == "escpush: interrupted\n"
    assert temp_files(tmp_path) == []


def test_esc_secret_save_ended_by_sigterm_leaves_no_temporary_file(emu: Emulator, tmp_path: Path) -> None:
    saved = tmp_path / "secret.txt"
    emu.fail_next(delay=30)  # the POST of the secret hangs, until the client's deadline
    argv = [sys.executable, "-m", "escpush", "esc", "secret", "--zone", "z1", "--save", str(saved)]
    argv += ["--timeout", "2", "--retries", "0"]
    proc = start(argv, emu)
    try:
        for _ in range(600):
            if temp_files(tmp_path):
                break
            threading.Event().wait(0.05)
        assert temp_files(tmp_path)
        proc.send_signal(signal.SIGTERM)
    finally:
        _, err = finish(proc)
    emu.clear_faults()
    assert proc.returncode == 128 + signal.SIGTERM, err
    assert temp_files(tmp_path) == [] and not saved.exists()


# -- logpush apply: stops between writes, says what was done -------------------------------------


@pytest.mark.parametrize("as_json", [False, True], ids=["text", "json"])
def test_logpush_apply_ended_by_sigterm_stops_between_writes_and_says_what_was_done(
    emu: Emulator, tmp_path: Path, as_json: bool
) -> None:
    # With the bucket's keys: an S3 job needs them or an ownership challenge (logpush-ownership-challenge.mdx).
    conf = "s3://logs/http?region=us-east-1&access-key-id=AKID-TERM&secret-access-key=SAK-TERM"
    jobs = tmp_path / "jobs.json"
    names = ["a", "b", "c"]
    jobs.write_text(
        json.dumps({"jobs": [{"name": n, "dataset": "http_requests", "destination_conf": conf} for n in names]})
    )
    emu.fail_next(delay=1.0, count=1000)  # every request is held a second before it is answered

    def stored() -> list[str]:
        zone = emu.state()["zones"].get("z1", {})
        return [job["name"] for job in zone.get("logpush_jobs", [])]

    received = emu.stats()["requests"]
    argv = [sys.executable, "-m", "escpush", "logpush", "apply", str(jobs), "--zone", "z1"]
    proc = start(argv + (["--json"] if as_json else []), emu)
    try:
        # The list, a's creation, then b's: the signal comes while b's is held.
        for _ in range(600):
            if emu.stats()["requests"] - received >= 3:
                break
            threading.Event().wait(0.02)
        proc.send_signal(signal.SIGTERM)
    finally:
        _, err = finish(proc)
    emu.clear_faults()
    assert proc.returncode == 128 + signal.SIGTERM, err
    # The write under way ends; none is started after the signal.
    assert stored() == ["a", "b"]
    if as_json:
        error = json.loads(err)["error"]
        assert (error["message"], error["exit_code"]) == ("terminated by SIGTERM", 128 + signal.SIGTERM)
        assert [(j["name"], j["done"]) for j in error["plan"]["jobs"]] == [("a", True), ("b", True), ("c", False)]
        assert "SAK-TERM" not in err
        return
    assert "+ 'a' job 1 (http_requests): created" in err
    assert "+ 'b' job 2 (http_requests): created" in err
    assert "+ 'c' (http_requests): create" in err
    assert err.endswith("escpush: terminated by SIGTERM\n"), err


def test_esc_disabled_ended_by_sigterm_during_its_post_enables_esc_again(emu: Emulator) -> None:
    """The signal comes while `__enter__` disables ESC: the body does not run, and ESC is
    enabled again before the process ends."""
    emu.fail_next(delay=1.5, count=2)  # the status read, then the POST, answer late
    received = emu.stats()["requests"]
    proc = run_script(
        emu,
        """
        with zone.esc.disabled():
            print("the body ran", flush=True)
        """,
    )
    try:
        for _ in range(600):
            if emu.stats()["requests"] >= received + 2:
                break
            threading.Event().wait(0.02)
        proc.send_signal(signal.SIGTERM)  # while the POST waits for its answer
    finally:
        out, err = finish(proc)
    emu.clear_faults()
    assert proc.returncode == 128 + signal.SIGTERM, err
    assert out == ""
    assert [r["method"] for r in emu.requests() if r["path"].endswith("/disable_esc")] == ["GET", "POST", "DELETE"]
    assert esc_of(emu)["always"] is False
