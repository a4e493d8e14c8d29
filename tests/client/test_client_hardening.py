"""The client never hangs or double-sends: every ``Retry-After`` a server may send, servers
that stall or trickle, writes applied and then dropped, 16 threads on one client, the
client-side rate limit through a 429 storm. Real sockets on loopback."""

from __future__ import annotations

import email.utils
import socket
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import pytest

from escpush import Client, InvalidInput, RateLimitError, TransportError
from escpush.testing import Emulator

ZONE = "023e105f4ecef8ad9ca31a8372d0c353"
S3 = "s3://bucket/logs?region=us-east-1&access-key-id=AKID-TEST&secret-access-key=SAK-TEST"
OK = b'{"success":true,"errors":[],"messages":[],"result":{}}'
SLOW_DOWN = b'{"success":false,"errors":[{"code":10000,"message":"slow down"}],"messages":[],"result":null}'


class Scripted:
    """A server that answers the n-th request with a 429 carrying the n-th ``Retry-After``
    of ``script`` (None: a 200), then 200s; counts the requests. Its own thread accepts and
    closes the listening socket, so that no other thread's socket can take its descriptor."""

    def __init__(self, script: list[str | None]) -> None:
        self.script = list(script)
        self.count = 0
        self.closing = False
        sock = socket.create_server(("127.0.0.1", 0))
        self.port = sock.getsockname()[1]
        self.thread = threading.Thread(target=self._serve, args=(sock,), daemon=True)
        self.thread.start()

    def _serve(self, sock: socket.socket) -> None:
        with sock:
            while True:
                conn, _ = sock.accept()
                if self.closing:
                    conn.close()
                    return
                with conn:
                    self._answer(conn)

    def _answer(self, conn: socket.socket) -> None:
        data = b""
        while b"\r\n\r\n" not in data:
            chunk = conn.recv(4096)
            if not chunk:
                return
            data += chunk
        retry_after = self.script[self.count] if self.count < len(self.script) else None
        self.count += 1
        if retry_after is None:
            head, body = b"HTTP/1.1 200 OK\r\n", OK
        else:
            head = b"HTTP/1.1 429 Too Many Requests\r\nRetry-After: " + retry_after.encode() + b"\r\n"
            body = SLOW_DOWN
        conn.sendall(head + b"Content-Length: %d\r\nConnection: close\r\n\r\n" % len(body) + body)

    def client(self, timeout: float) -> Client:
        return Client(
            api_token="t", base_url=f"http://127.0.0.1:{self.port}/client/v4", timeout=timeout, retry_backoff=0.02
        )

    def close(self) -> None:
        """Wakes the accepting thread, which closes the socket, and waits for it."""
        self.closing = True
        socket.create_connection(("127.0.0.1", self.port)).close()
        self.thread.join(5)


@pytest.fixture
def scripted() -> Iterator[type[Scripted]]:
    made: list[Scripted] = []

    class Tracked(Scripted):
        def __init__(self, script: list[str | None]) -> None:
            super().__init__(script)
            made.append(self)

    yield Tracked
    for s in made:
        s.close()


@pytest.mark.parametrize("value", ["-5", "1.5", "soon", "", "Sun, 06 Nov 1994 08:49:37 CET"])
def test_an_unreadable_retry_after_is_ignored_and_the_backoff_applies(scripted: type[Scripted], value: str) -> None:
    server = scripted([value])
    started = time.monotonic()
    assert server.client(1.0).zone(ZONE).esc.status().state == "enabled"
    assert time.monotonic() - started < 0.9
    assert server.count == 2


def test_a_retry_after_date_in_the_past_means_now(scripted: type[Scripted]) -> None:
    server = scripted(["Sun, 06 Nov 1994 08:49:37 GMT"])
    started = time.monotonic()
    server.client(1.0).zone(ZONE).esc.status()
    assert time.monotonic() - started < 0.9
    assert server.count == 2


def test_a_near_retry_after_date_is_waited_for(scripted: type[Scripted]) -> None:
    server = scripted([email.utils.formatdate(time.time() + 2, usegmt=True)])
    started = time.monotonic()
    server.client(5.0).zone(ZONE).esc.status()
    assert time.monotonic() - started >= 0.9
    assert server.count == 2


@pytest.mark.parametrize(
    "value", ["3600", "Fri, 31 Dec 9999 23:59:59 GMT", "99999999999999999999999999", str(2**64 - 1)]
)
def test_a_retry_after_past_the_deadline_ends_the_call_at_once(scripted: type[Scripted], value: str) -> None:
    server = scripted([value])
    started = time.monotonic()
    with pytest.raises(RateLimitError) as exc:
        server.client(1.0).zone(ZONE).esc.status()
    assert time.monotonic() - started < 0.9
    message = str(exc.value)
    assert "asks to retry in" in message and "GMT" in message and "timeout of 1 s" in message
    assert exc.value.status == 429
    assert server.count == 1, "nothing sent again"


def test_a_retry_after_above_max_retry_after_is_cut_to_it(scripted: type[Scripted]) -> None:
    server = scripted(["30"])
    client = Client(
        api_token="t",
        base_url=f"http://127.0.0.1:{server.port}/client/v4",
        timeout=60,
        max_retry_after=0.05,
    )
    started = time.monotonic()
    client.zone(ZONE).esc.status()
    assert time.monotonic() - started < 0.8
    assert server.count == 2


def test_a_timeout_too_large_for_the_clock_is_accepted(escpush_emulator: Emulator) -> None:
    # 1e19 s fits a duration but not the clock: the deadline is capped, not an overflow.
    assert escpush_emulator.client(timeout=1e19).zone(ZONE).esc.status().state == "enabled"


def test_a_server_that_stalls_after_its_headers_is_cut_at_the_deadline(escpush_emulator: Emulator) -> None:
    esc = escpush_emulator.client(timeout=0.7).zone(ZONE).esc
    escpush_emulator.fail_next(stall=3600, count=5)
    started = time.monotonic()
    with pytest.raises(TransportError, match=r"timed out: .*timeout of 0\.7 s"):
        esc.status()
    assert 0.65 <= time.monotonic() - started < 1.2


def test_a_server_that_trickles_a_byte_a_second_is_cut_at_the_deadline(escpush_emulator: Emulator) -> None:
    esc = escpush_emulator.client(timeout=1.5).zone(ZONE).esc
    escpush_emulator.fail_next(drip=1.0, count=5)
    started = time.monotonic()
    with pytest.raises(TransportError, match="timed out"):
        esc.status()
    assert 1.4 <= time.monotonic() - started < 2.0
    escpush_emulator.clear_faults()
    escpush_emulator.fail_next(drip=0.002)
    assert escpush_emulator.client(timeout=5).zone(ZONE).esc.status().state == "enabled"


def _job_posts(emu: Emulator) -> int:
    return sum(1 for r in emu.requests() if r["method"] == "POST" and r["path"].endswith("/logpush/jobs"))


def _zone_jobs(emu: Emulator) -> list[dict[str, object]]:
    jobs: list[dict[str, object]] = emu.state()["zones"].get(ZONE, {}).get("logpush_jobs", [])
    return jobs


def test_a_creation_applied_then_dropped_is_sent_once_and_says_what_to_check(escpush_emulator: Emulator) -> None:
    logpush = escpush_emulator.client(max_retries=5).zone(ZONE).logpush
    escpush_emulator.fail_next(drop_after_apply=True)
    with pytest.raises(TransportError) as exc:
        logpush.create_job(destination_conf=S3, dataset="http_requests", name="edge-errors")
    message = str(exc.value)
    assert "may have taken effect" in message and "the job may exist" in message
    assert f"list the jobs of zone {ZONE}" in message and "`edge-errors`" in message
    assert "never retried" in message
    assert _job_posts(escpush_emulator) == 1, "sent exactly once"
    assert escpush_emulator.requests()[0]["status"] is None
    assert [j["name"] for j in _zone_jobs(escpush_emulator)] == ["edge-errors"], "it took effect"
    assert [j["name"] for j in logpush.jobs()] == ["edge-errors"], "looking finds it"
    # A 5xx may follow a change: not retried. A 429 refused it: retried, one job made.
    escpush_emulator.clear_requests()
    escpush_emulator.fail_next(status=502)
    with pytest.raises(Exception, match="502"):
        logpush.create_job(destination_conf=S3, dataset="http_requests", name="second")
    assert _job_posts(escpush_emulator) == 1
    escpush_emulator.clear_requests()
    escpush_emulator.fail_next(status=429, retry_after=0, count=2)
    logpush.create_job(destination_conf=S3, dataset="http_requests", name="third")
    assert _job_posts(escpush_emulator) == 3
    assert [j["name"] for j in _zone_jobs(escpush_emulator)] == ["edge-errors", "third"]


def test_a_creation_cut_at_the_deadline_is_sent_once(escpush_emulator: Emulator) -> None:
    logpush = escpush_emulator.client(timeout=0.3, max_retries=5).zone(ZONE).logpush
    escpush_emulator.fail_next(stall=3600)
    with pytest.raises(TransportError, match="the job may exist"):
        logpush.create_job(destination_conf=S3, dataset="http_requests", name="slow")
    assert _job_posts(escpush_emulator) == 1


def test_idempotent_writes_are_retried_after_an_applied_write_was_dropped(escpush_emulator: Emulator) -> None:
    zone = escpush_emulator.client().zone(ZONE)
    escpush_emulator.fail_next(drop_after_apply=True)
    zone.esc.disable()
    posts = [r for r in escpush_emulator.requests() if r["method"] == "POST"]
    assert [r["status"] for r in posts] == [None, 200], "retried once"
    assert zone.esc.status().disabled
    escpush_emulator.fail_next(drop_after_apply=True)
    zone.esc.enable()
    assert zone.esc.status().state == "enabled"
    job = zone.logpush.create_job(destination_conf=S3, dataset="http_requests", name="j")
    escpush_emulator.clear_requests()
    escpush_emulator.fail_next(delay=0)  # the GET that reads the job: answered
    escpush_emulator.fail_next(drop_after_apply=True)  # the PUT: applied, its answer lost
    assert zone.logpush.update_job(job["id"], enabled=True)["enabled"] is True
    assert sum(1 for r in escpush_emulator.requests() if r["method"] == "PUT") == 2
    assert len(_zone_jobs(escpush_emulator)) == 1


def test_sixteen_threads_share_one_client(escpush_emulator: Emulator) -> None:
    client = escpush_emulator.client()
    calls = 30

    def work(t: int) -> int:
        esc = client.zone(f"zone-{t}").esc
        done = 0
        for i in range(calls):
            if i % 2 == 0:
                esc.disable()
                assert esc.status().disabled
            else:
                esc.enable()
                assert esc.status().state == "enabled"
            done += 2
        return done

    started = time.monotonic()
    with ThreadPoolExecutor(16) as pool:
        assert list(pool.map(work, range(16))) == [2 * calls] * 16
    log = escpush_emulator.requests()
    assert len(log) == 16 * calls * 2
    assert all(r["status"] == 200 for r in log)
    zones = escpush_emulator.state()["zones"]
    assert len(zones) == 16 and all(z["esc"]["always"] is False for z in zones.values())
    assert time.monotonic() - started < 30


def test_the_gil_is_released_while_a_call_waits(escpush_emulator: Emulator) -> None:
    esc = escpush_emulator.client(timeout=5).zone(ZONE).esc
    escpush_emulator.fail_next(delay=0.5, count=4)
    ticks = 0
    stop = threading.Event()

    def tick() -> None:
        nonlocal ticks
        while not stop.is_set():
            ticks += 1
            time.sleep(0.001)

    ticker = threading.Thread(target=tick)
    ticker.start()
    started = time.monotonic()
    with ThreadPoolExecutor(4) as pool:
        list(pool.map(lambda _: esc.status(), range(4)))
    elapsed = time.monotonic() - started
    stop.set()
    ticker.join()
    assert elapsed < 1.5, "four delayed calls ran at once"
    assert ticks > 20, "Python ran while the calls waited"


def _assert_within_limit(log: list[dict[str, object]], requests: int, seconds: float) -> None:
    at = sorted(float(r["received"]) for r in log)  # type: ignore[arg-type]
    for i in range(len(at) - requests):
        assert at[i + requests] - at[i] >= seconds, f"{requests + 1} requests within {at[i + requests] - at[i]:.3f} s"


def test_the_rate_limit_spaces_requests_from_many_threads(escpush_emulator: Emulator) -> None:
    client = escpush_emulator.client(rate_limit=(5, 0.5), timeout=10)
    assert client.rate_limit == (5, 0.5)
    assert escpush_emulator.client().rate_limit is None
    esc = client.zone(ZONE).esc
    started = time.monotonic()
    with ThreadPoolExecutor(4) as pool:
        list(pool.map(lambda _: esc.status(), range(12)))
    assert time.monotonic() - started >= 1.0
    log = escpush_emulator.requests()
    assert len(log) == 12
    _assert_within_limit(log, 5, 0.5)


def test_a_429_storm_is_survived_within_the_rate_limit(escpush_emulator: Emulator) -> None:
    client = escpush_emulator.client(rate_limit=(5, 0.5), timeout=20, max_retries=50, retry_backoff=0.001)
    escpush_emulator.fail_next(status=429, retry_after=0, count=20)

    def work(t: int) -> bool:
        esc = client.zone(f"storm-{t}").esc
        esc.disable()
        return esc.status().disabled

    with ThreadPoolExecutor(3) as pool:
        assert list(pool.map(work, range(3))) == [True] * 3
    log = escpush_emulator.requests()
    assert len(log) == 26
    assert sum(1 for r in log if r["status"] == 429) == 20
    _assert_within_limit(log, 5, 0.5)


def test_a_rate_limit_wait_past_the_deadline_fails_at_once(escpush_emulator: Emulator) -> None:
    esc = escpush_emulator.client(rate_limit=(2, 10), timeout=0.3).zone(ZONE).esc
    esc.status()
    esc.status()
    started = time.monotonic()
    with pytest.raises(TransportError, match=r"rate limit of 2 requests per 10 s .* was not sent"):
        esc.status()
    assert time.monotonic() - started < 0.25
    assert len(escpush_emulator.requests()) == 2


@pytest.mark.parametrize("bad", [(0, 1.0), (5, 0.0), (5, -1.0), (5, float("nan")), (5, 86_401.0), (2_000_000, 1.0)])
def test_a_bad_rate_limit_is_invalid_input(bad: tuple[int, float]) -> None:
    with pytest.raises(InvalidInput, match=r"rate_limit|rate limit"):
        Client(api_token="t", rate_limit=bad)


def test_from_env_takes_a_rate_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CLOUDFLARE_API_TOKEN", "env-token-value")
    client = Client.from_env(rate_limit=(1200, 300))
    assert client.rate_limit == (1200, 300.0)
    assert "env-token-value" not in repr(client)
