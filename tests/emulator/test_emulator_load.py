"""The emulator holds up: hundreds of idle or half-sent connections, a cap on connections,
time limits for slow senders, and a short soak by concurrent clients whose every effect is
checked at the end. The full 100,000-request soak is ``benches/soak.py`` (RELIABILITY.md)."""

from __future__ import annotations

import socket
import sys
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path

import pytest

from escpush import InvalidInput
from escpush.testing import Emulator

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benches"))
import soak


@contextmanager
def half_sent(emu: Emulator, n: int) -> Iterator[list[socket.socket]]:
    """``n`` connections that each send half a request line and stall."""
    socks = []
    try:
        for _ in range(n):
            s = socket.create_connection(("127.0.0.1", emu.port))
            s.sendall(b"GET /client/v4/zo")
            socks.append(s)
        yield socks
    finally:
        for s in socks:
            s.close()


def test_hundreds_of_half_sent_connections_do_not_stop_a_well_behaved_client() -> None:
    with Emulator() as emu, half_sent(emu, 300):
        time.sleep(0.3)
        assert emu.stats()["open_connections"] <= 256
        esc = emu.client(timeout=5).zone("z1").esc
        for _ in range(20):
            started = time.monotonic()
            assert esc.status().state == "enabled"
            assert time.monotonic() - started < 1.0
        stats = emu.stats()
        assert stats["open_connections"] <= 256 and stats["evicted"] >= 300 - 256
        assert stats["requests"] == 20 and len(emu.requests()) == 20


def test_a_small_cap_evicts_the_longest_idle() -> None:
    with Emulator(max_connections=4) as emu, half_sent(emu, 40) as socks:
        time.sleep(0.2)
        assert emu.stats()["open_connections"] <= 4
        esc = emu.client(timeout=5).zone("z1").esc
        for _ in range(5):
            esc.disable()
            assert esc.status().disabled
        socks[0].settimeout(2)
        assert socks[0].recv(16) == b"", "the oldest was closed by the emulator"


def test_idle_and_slow_connections_are_closed_at_their_time_limits() -> None:
    with Emulator(idle_timeout=0.2, request_timeout=0.4) as emu:
        idle = socket.create_connection(("127.0.0.1", emu.port))
        idle.settimeout(3)
        started = time.monotonic()
        assert idle.recv(16) == b""
        assert time.monotonic() - started < 1
        idle.close()
        with half_sent(emu, 1) as (slow,):
            slow.settimeout(3)
            started = time.monotonic()
            assert slow.recv(1024) == b"", "closed unanswered once its request took too long"
            assert time.monotonic() - started < 1.5
        assert emu.stats()["requests"] == 0
        # A client that keeps asking is served past the idle time.
        esc = emu.client().zone("z1").esc
        for _ in range(3):
            assert esc.status().state == "enabled"
            time.sleep(0.1)


@pytest.mark.parametrize(
    ("kwargs", "what"),
    [
        ({"max_connections": 0}, "max_connections"),
        ({"idle_timeout": 0}, "idle_timeout"),
        ({"request_timeout": float("nan")}, "request_timeout"),
        ({"request_timeout": 1e9}, "request_timeout"),
    ],
)
def test_limits_out_of_range_are_invalid_input(kwargs: dict[str, float], what: str) -> None:
    with pytest.raises(InvalidInput, match=what):
        Emulator(**kwargs)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "kwargs",
    [{"stall": -1}, {"drip": float("inf")}, {"drop_after_apply": True, "drop": True}, {"stall": 1, "drip": 1}],
)
def test_the_new_faults_are_checked(kwargs: dict[str, float]) -> None:
    with Emulator() as emu, pytest.raises(InvalidInput):
        emu.fail_next(**kwargs)  # type: ignore[arg-type]


def test_a_short_soak_loses_or_corrupts_nothing() -> None:
    with Emulator() as emu:
        soak.run(emu, workers=8, requests=2_000, tag="warm")
        report = soak.run(emu, workers=8, requests=4_000, tag="soak")
    assert report.errors == 0
    assert report.requests >= 4_000
    # Flat: the last 90 % of the run adds less than 16 MiB.
    assert report.rss_kib[3] <= report.rss_kib[1] + 16 * 1024, report


def test_the_soak_counts_what_it_checks() -> None:
    with Emulator() as emu, ThreadPoolExecutor(1) as pool:
        report = pool.submit(soak.run, emu, workers=2, requests=50, tag="tiny").result()
        assert emu.stats()["requests"] == report.requests + 2
