"""The emulator's fault modes, its log and state, the standalone command, and that no
credential or secret ever shows."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request

import pytest

from escpush import (
    ApiError,
    EscpushError,
    InvalidInput,
    RateLimitError,
    ServerError,
    TransportError,
)
from escpush.testing import Emulator


def test_429_with_retry_after_is_retried(escpush_emulator: Emulator) -> None:
    esc = escpush_emulator.client().zone("z").esc
    escpush_emulator.fail_next(status=429, count=1, retry_after=1)
    started = time.monotonic()
    esc.disable()
    assert 0.9 < time.monotonic() - started < 5
    assert [(r["status"], r["fault"]) for r in escpush_emulator.requests()] == [(429, "status 429"), (200, None)]
    assert escpush_emulator.state()["zones"]["z"]["esc"]["always"] is True


@pytest.mark.parametrize("status", [500, 502, 503, 504])
def test_5xx_is_retried(escpush_emulator: Emulator, status: int) -> None:
    esc = escpush_emulator.client().zone("z").esc
    escpush_emulator.fail_next(status=status, count=2)
    assert esc.status().state == "enabled"
    assert len(escpush_emulator.requests()) == 3


def test_retries_run_out(escpush_emulator: Emulator) -> None:
    esc = escpush_emulator.client(max_retries=2).zone("z").esc
    escpush_emulator.fail_next(status=503, count=3)
    with pytest.raises(ServerError) as server:
        esc.status()
    assert server.value.status == 503
    assert server.value.errors == [{"code": 10503, "message": "injected fault"}]
    escpush_emulator.fail_next(status=429, count=3, retry_after=0)
    with pytest.raises(RateLimitError) as limited:
        esc.enable()
    assert limited.value.status == 429 and isinstance(limited.value, ApiError)
    escpush_emulator.fail_next(status=502, count=1)
    with pytest.raises(ServerError):
        escpush_emulator.client(max_retries=0).zone("z").esc.status()
    assert len(escpush_emulator.requests()) == 7


def test_other_4xx_are_not_retried(escpush_emulator: Emulator) -> None:
    escpush_emulator.fail_next(status=409, count=1)
    with pytest.raises(ApiError) as exc:
        escpush_emulator.client().zone("z").esc.status()
    assert type(exc.value) is ApiError and exc.value.status == 409
    assert len(escpush_emulator.requests()) == 1


def test_a_malformed_body_is_a_transport_error(escpush_emulator: Emulator) -> None:
    escpush_emulator.fail_next(malformed=True)
    with pytest.raises(TransportError, match="malformed response"):
        escpush_emulator.client().zone("z").esc.status()


@pytest.mark.parametrize("mode", ["truncated", "drop"])
def test_a_lost_answer_is_retried_then_reported(escpush_emulator: Emulator, mode: str) -> None:
    esc = escpush_emulator.client().zone("z").esc
    escpush_emulator.fail_next(count=1, **{mode: True})
    esc.disable()
    assert escpush_emulator.state()["zones"]["z"]["esc"]["always"] is True
    escpush_emulator.fail_next(count=3, **{mode: True})
    with pytest.raises(TransportError):
        esc.status()
    expected_status = None if mode == "drop" else 200
    assert escpush_emulator.requests()[0]["status"] == expected_status


def test_a_delay_is_waited_for_or_times_out(escpush_emulator: Emulator) -> None:
    escpush_emulator.fail_next(delay=0.1)
    assert escpush_emulator.client().zone("z").esc.status().state == "enabled"
    escpush_emulator.fail_next(delay=2.0)
    started = time.monotonic()
    with pytest.raises(TransportError, match="timed out"):
        escpush_emulator.client(timeout=0.2).zone("z").esc.status()
    assert time.monotonic() - started < 1.5


def test_connection_refused_is_a_transport_error() -> None:
    with Emulator() as emu:
        client = emu.client(max_retries=1)
    with pytest.raises(TransportError):
        client.zone("z").esc.status()


def test_fail_next_takes_one_mode() -> None:
    with Emulator() as emu:
        for kwargs in [{}, {"status": 500, "drop": True}, {"retry_after": 1, "drop": True}]:
            with pytest.raises(ValueError, match="status="):
                emu.fail_next(**kwargs)  # type: ignore[arg-type]
        with pytest.raises(InvalidInput):
            emu.fail_next(status=99)
        emu.fail_next(status=500, count=2)
        emu.clear_faults()
        assert emu.client().zone("z").esc.status().state == "enabled"


def test_reset_and_stop() -> None:
    emu = Emulator()
    emu.client().zone("z").esc.disable()
    emu.reset()
    assert emu.state() == {"zones": {}, "accounts": {}} and emu.requests() == []
    port = emu.port
    emu.close()
    emu.close()
    assert "stopped" in repr(emu)
    with pytest.raises(InvalidInput, match="stopped"):
        emu.state()
    with pytest.raises(OSError), socket.create_connection(("127.0.0.1", port), timeout=1):
        pass


def test_concurrent_clients(escpush_emulator: Emulator) -> None:
    from concurrent.futures import ThreadPoolExecutor

    client = escpush_emulator.client()

    def work(i: int) -> str:
        esc = client.zone(f"zone-{i}").esc
        esc.disable()
        esc.set_secret(f"secret-{i}")
        esc.enable()
        return esc.status().state

    with ThreadPoolExecutor(8) as pool:
        assert list(pool.map(work, range(32))) == ["secret"] * 32
    assert len(escpush_emulator.requests()) == 32 * 4
    assert len(escpush_emulator.state()["zones"]) == 32


def test_no_credential_or_secret_shows_anywhere() -> None:
    key, token, secret = "KEY-0123456789abcdef", "TOKEN-0123456789abcdef", "SECRET-0123456789abcdef"
    shown: list[str] = []
    with Emulator(api_key=key, api_token=token) as emu:
        for client in [emu.client(), emu.client(token=True)]:
            zone = client.zone("z")
            zone.esc.set_secret(secret)
            status = zone.esc.status()
            assert status.secret == secret
            shown += [repr(client), str(client), repr(zone), repr(zone.esc), repr(status), str(status)]
            for kwargs in [{"status": 403}, {"status": 500}, {"malformed": True}, {"drop": True}]:
                emu.fail_next(count=3, **kwargs)  # type: ignore[arg-type]
                with pytest.raises(EscpushError) as exc:
                    zone.esc.set_secret(secret)
                emu.clear_faults()
                shown += [str(exc.value), repr(exc.value), repr(getattr(exc.value, "errors", ""))]
        for bad in [secret + ";", secret * 5, secret + " "]:
            with pytest.raises(InvalidInput) as refused:
                emu.client().zone("z").esc.set_secret(bad)
            shown += [str(refused.value), repr(refused.value)]
        for kwargs in [
            {"api_key": key, "email": "e@x.io", "base_url": "http://example.com/"},
            {"api_token": token + "\n"},
        ]:
            with pytest.raises(InvalidInput) as refused:
                from escpush import Client

                Client(**kwargs)  # type: ignore[arg-type]
            shown.append(str(refused.value))
        bad_auth = Client(api_key=key + "x", email="e@x.io", base_url=emu.base_url)
        with pytest.raises(ApiError) as denied:
            bad_auth.zone("z").esc.status()
        shown.append(str(denied.value))
        shown += [repr(emu), json.dumps(emu.state()), json.dumps(emu.requests())]
    text = "\n".join(shown)
    for needle in [key, token, secret]:
        assert needle not in text


def test_the_standalone_command() -> None:
    with subprocess.Popen(
        [sys.executable, "-m", "escpush", "emulator", "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    ) as proc:
        _talk_to(proc)


def _talk_to(proc: subprocess.Popen[str]) -> None:
    try:
        assert proc.stdout is not None
        first = proc.stdout.readline()
        second = proc.stdout.readline()
        assert first.startswith("escpush emulator on http://127.0.0.1:")
        assert "emulator-api-key" not in first + second and "emulator-api-token" not in first + second
        base_url = first.split()[-1]
        req = urllib.request.Request(
            f"{base_url}/zones/z1/disable_esc", headers={"Authorization": "Bearer emulator-api-token"}
        )
        with urllib.request.urlopen(req, timeout=5) as resp:
            assert json.loads(resp.read()) == {"success": True, "errors": [], "messages": [], "result": {}}
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_the_esc_command(monkeypatch: pytest.MonkeyPatch, escpush_emulator: Emulator) -> None:
    env = {
        "CLOUDFLARE_API_TOKEN": escpush_emulator.api_token,
        "CLOUDFLARE_BASE_URL": escpush_emulator.base_url,
        "PATH": "",
    }

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "escpush", "esc", *args], capture_output=True, text=True, env=env, timeout=30
        )

    assert run("disable", "--zone", "z1").stdout == "zone z1: ESC disabled for every request\n"
    assert run("status", "--zone", "z1").stdout == "zone z1: ESC disabled for every request\n"
    assert run("enable", "--zone", "z1").stdout == "zone z1: ESC enabled\n"
    escpush_emulator.client().account("a1").esc.set_secret("not-printed")
    out = run("status", "--account", "a1")
    assert out.stdout == "account a1: ESC enabled; a test secret is set (11 characters)\n"
    failed = run("status", "--zone", "a/b")
    assert failed.returncode == 2 and "invalid zone id" in failed.stderr


@pytest.mark.parametrize(
    ("kwargs", "argument", "allowed"),
    [
        ({"delay": 1e30}, "delay", "from 0 to 86400"),
        ({"delay": -1}, "delay", "from 0 to 86400"),
        ({"delay": float("nan")}, "delay", "from 0 to 86400"),
        ({"delay": float("inf")}, "delay", "from 0 to 86400"),
        ({"delay": 10**400}, "delay", "from 0 to 86400"),
        ({"trickle": -0.1}, "trickle", "from 0 to 86400"),
        ({"status": 65536}, "status", "from 100 to 599"),
        ({"status": 2**70}, "status", "from 100 to 599"),
        ({"status": 99}, "status", "from 100 to 599"),
        ({"status": 429, "retry_after": -1}, "retry_after", "from 0 to 4294967295"),
        ({"status": 429, "retry_after": 2**40}, "retry_after", "from 0 to 4294967295"),
        ({"drop": True, "count": -1}, "count", "from 0 to 1000000"),
        ({"body": b"{}", "status": 700}, "status", "from 100 to 599"),
    ],
)
def test_fail_next_arguments_out_of_range_are_invalid_input(
    escpush_emulator: Emulator, kwargs: dict[str, object], argument: str, allowed: str
) -> None:
    with pytest.raises(InvalidInput) as exc:
        escpush_emulator.fail_next(**kwargs)  # type: ignore[arg-type]
    assert str(exc.value).startswith(f"invalid {argument}: ") and allowed in str(exc.value), str(exc.value)
    assert escpush_emulator.client().zone("z").esc.status().state == "enabled", "nothing was queued"


def test_the_request_log_is_a_ring() -> None:
    with Emulator(log_capacity=3) as emu:
        esc = emu.client().zone("z").esc
        for _ in range(5):
            esc.status()
        esc.disable()
        log = emu.requests()
        assert [r["method"] for r in log] == ["GET", "GET", "POST"]
    with Emulator(log_capacity=0) as emu:
        emu.client().zone("z").esc.status()
        assert emu.requests() == []
    with pytest.raises(InvalidInput, match="log_capacity"):
        Emulator(log_capacity=-1)


def test_a_body_fault_answers_exactly_that(escpush_emulator: Emulator) -> None:
    escpush_emulator.fail_next(body='{"success": true, "result": {"always": true}}')
    assert escpush_emulator.client().zone("z").esc.status().state == "disabled"
    assert "z" not in escpush_emulator.state()["zones"], "the state is untouched"
    escpush_emulator.fail_next(status=204, body=b"ignored")
    status, _ = _raw_get(escpush_emulator)
    assert status == 204
    assert escpush_emulator.requests()[-1]["fault"] == "body 204 (7 bytes)"


def _raw_get(emu: Emulator) -> tuple[int, bytes]:
    req = urllib.request.Request(
        f"{emu.base_url}/zones/z/disable_esc", headers={"Authorization": f"Bearer {emu.api_token}"}
    )
    with urllib.request.urlopen(req, timeout=5) as resp:
        return resp.status, resp.read()


def test_an_echo_fault_quotes_the_request_and_the_log_still_redacts(escpush_emulator: Emulator) -> None:
    token = escpush_emulator.api_token
    escpush_emulator.fail_next(echo=True)
    with pytest.raises(urllib.error.HTTPError) as exc:
        _raw_get(escpush_emulator)
    assert exc.value.code == 400 and token in exc.value.read().decode()
    assert token not in json.dumps(escpush_emulator.requests())


def test_a_port_out_of_range_is_invalid_input() -> None:
    for port in [-1, 65536]:
        with pytest.raises(InvalidInput, match="invalid port: must be from 0 to 65535"):
            Emulator(port=port)
