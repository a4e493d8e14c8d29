"""``escpush esc assess`` and the emulator's edge flags: exit codes, ``--json``, Ctrl-C in a
real process (scopes restored before it exits)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from typing import Any

import pytest

from escpush.cli import EXIT_API, EXIT_CHECK_FAILED, EXIT_OK, EXIT_USAGE, main
from escpush.testing import Emulator


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["esc", "assess", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_every_stage_passed_exits_0_with_the_json_of_the_issue(
    api: Emulator, capsys: pytest.CaptureFixture[str]
) -> None:
    site = api.serve_site("z1", account="a1")
    urls = ["--url", f"{site}/", "--url", f"{site}/old"]
    code, out, err = run(capsys, "--zone", "z1", "--account", "a1", *urls, "--settle", "0.05", "--json")
    assert code == EXIT_OK, err
    data: dict[str, Any] = json.loads(out)
    assert data["ok"] is True and data["restored"] is True
    assert [(s["name"], s["outcome"]) for s in data["stages"]] == [
        ("request", "passed"),
        ("zone", "passed"),
        ("account", "passed"),
    ]
    assert {d["what"] for d in data["differences"]} >= {"status", "location", "header"}
    assert set(data["differences"][0]) == {"url", "what", "name", "with_esc", "without_esc", "replacement"}
    assert data["initial"][1] == {
        "scope": "account",
        "id": "a1",
        "state": "enabled",
        "disabled": False,
        "secret_set": False,
        "secret_length": None,
    }
    assert err == ""  # no progress lines with --json


def test_text_output_and_progress(api: Emulator, capsys: pytest.CaptureFixture[str]) -> None:
    site = api.serve_site("z1")
    code, out, err = run(capsys, "--zone", "z1", "--url", f"{site}/old", "--settle", "0")
    assert code == EXIT_OK
    assert out.startswith("ESC assessment of zone z1: every stage passed")
    assert "-> single or bulk redirect rules" in out
    assert "escpush: disabling ESC for zone z1" in err
    secret = api.client().zone("z1").esc.status().secret
    assert secret is not None and secret not in out + err


def test_a_failed_stage_exits_1_and_bad_usage_2(api: Emulator, capsys: pytest.CaptureFixture[str]) -> None:
    site = api.serve_site("z1", pages={"/": {"status": 500}}, esc=[{"path": "/", "respond": "ok"}])
    code, out, _ = run(capsys, "--zone", "z1", "--url", f"{site}/", "--json")
    assert code == EXIT_CHECK_FAILED
    assert json.loads(out)["stages"][0]["outcome"] == "failed"
    assert api.state()["zones"]["z1"]["esc"]["always"] is False
    for argv, says in [
        (["--zone", "z1", "--url", "ftp://x/"], "must start with http"),
        (["--zone", "z1"], "at least one URL"),
        (["--account", "a1", "--url", f"{site}/"], "give the zone"),
        (["--zone", "z1", "--url", f"{site}/", "--settle", "-1"], "settle"),
    ]:
        code, _, err = run(capsys, *argv)
        assert code == EXIT_USAGE and says in err, (argv, err)


def test_an_api_error_exits_3_with_the_restore_status(api: Emulator, capsys: pytest.CaptureFixture[str]) -> None:
    site = api.serve_site("z1")
    api.fail_next(status=403, count=1000)
    code, out, _ = run(capsys, "--zone", "z1", "--url", f"{site}/", "--json")
    api.clear_faults()
    assert code == EXIT_API
    data = json.loads(out)
    assert data["ok"] is False and data["restored"] is True and "403" in data["error"]


def test_ctrl_c_in_a_real_process_restores_and_exits_130(escpush_emulator: Emulator) -> None:
    emu = escpush_emulator
    site = emu.serve_site("z1")
    env = dict(os.environ, CLOUDFLARE_BASE_URL=emu.base_url, CLOUDFLARE_API_TOKEN=emu.api_token)
    env.pop("CLOUDFLARE_API_KEY", None)
    proc = subprocess.Popen(
        [sys.executable, "-m", "escpush", "esc", "assess", "--zone", "z1", "--url", f"{site}/", "--settle", "60"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stderr is not None
    try:
        for line in proc.stderr:
            if "to reach the edge" in line:
                break
        assert emu.state()["zones"]["z1"]["esc"]["always"] is True
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, err
    assert "interrupted: KeyboardInterrupt" in out
    assert "restored: every scope is as it was found" in out
    assert emu.state()["zones"]["z1"]["esc"]["always"] is False


def test_the_emulator_serves_sites(tmp_path: Any) -> None:
    config = tmp_path / "site.json"
    config.write_text(json.dumps({"zone": "z2", "pages": {"/": {"body": "hi"}}, "esc": []}))
    proc = subprocess.Popen(
        [sys.executable, "-m", "escpush", "emulator", "--port", "0", "--site", "z1:a1", "--site-config", str(config)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    try:
        lines = [proc.stdout.readline() for _ in range(3)]
        proc.send_signal(signal.SIGINT)
        proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert lines[0].startswith("escpush emulator on http://127.0.0.1:")
    assert lines[1].startswith("site of zone z1 on http://127.0.0.1:")
    assert lines[2].startswith("site of zone z2 on http://127.0.0.1:")
    bad = tmp_path / "bad.json"
    bad.write_text('{"zone": "z3", "esc": [{"path": "*"}]}')
    done = subprocess.run(
        [sys.executable, "-m", "escpush", "emulator", "--port", "0", "--site-config", str(bad)],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert done.returncode == EXIT_USAGE and "exactly one" in done.stderr


def test_a_site_that_reflects_the_cookie_never_shows_the_secret(
    api: Emulator, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 22 item 2: the text and the JSON of a site that echoes the Cookie header."""
    pages = {
        "/": {"headers": {"X-Seen-Cookie": "{cookie}"}, "body": "you sent {cookie}", "reflect_cookie": True},
        "/go": {"status": 302, "headers": {"Location": "/login?{cookie}"}, "reflect_cookie": True},
    }
    site = api.serve_site("z1", pages=pages)
    urls = ["--url", f"{site}/", "--url", f"{site}/go", "--settle", "0"]
    code, text, err = run(capsys, "--zone", "z1", *urls)
    assert code == EXIT_OK, err
    code, as_json, _ = run(capsys, "--zone", "z1", *urls, "--json")
    assert code == EXIT_OK
    secret = api.client().zone("z1").esc.status().secret
    assert secret is not None
    assert secret not in text + err + as_json
    assert "reflects the test cookie (body, x-seen-cookie)" in text
    assert "/login?disable_esc=***" in as_json


def test_the_cli_never_shows_a_urls_password_or_query_token(api: Emulator, capsys: pytest.CaptureFixture[str]) -> None:
    # Issue 33, item 15: text, progress lines and --json alike.
    site = api.serve_site("z1")
    url = site.replace("http://", "http://me:pa55-w0rd-SECRET@", 1) + "/old?token=t0k3n-SECRET"
    for extra in ([], ["--json"]):
        code, out, err = run(capsys, "--zone", "z1", "--url", url, "--settle", "0", *extra)
        assert code == EXIT_OK, err
        assert "pa55-w0rd-SECRET" not in out + err and "t0k3n-SECRET" not in out + err, out + err
        assert "?token=***" in out
