#!/usr/bin/env python3
"""Soak of the emulator by concurrent Python clients (RELIABILITY.md has the figures).

    nice -n 10 .venv/bin/python benches/soak.py [REQUESTS] [WORKERS]

Default: 100,000 requests from 16 threads, each with its own ``escpush.Client`` and zone.
Per round a worker switches ESC off and on (each switch read back), sets a secret every
tenth round, and creates, reads and deletes a log-push job (the last one kept). At the end
the emulator's state and request count must be exactly what the workers did (this raises
otherwise); the process's RSS is sampled at the start, 10 %, 50 % and the end. Prints
requests, wall time, requests per second, errors and the RSS samples.

``tests/emulator/test_emulator_load.py`` runs a short soak through ``run``; the Rust side has the
same soak as ``cargo run --release -p escpush-http --example soak``.
"""

from __future__ import annotations

import sys
import threading
import time
from dataclasses import dataclass, field

from escpush.testing import Emulator

PER_ROUND = 7  # plus one every tenth round, for the secret
S3 = "s3://soak?region=r&access-key-id=AKID&secret-access-key=SAK"  # keys: no ownership challenge needed


def rss_kib() -> int:
    """This process's resident set in KiB (Linux; 0 elsewhere)."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


@dataclass
class Report:
    requests: int = 0
    errors: int = 0
    wall: float = 0.0
    rss_kib: list[int] = field(default_factory=lambda: [0, 0, 0, 0])

    @property
    def per_second(self) -> float:
        return self.requests / self.wall if self.wall else 0.0


def run(emu: Emulator, *, workers: int, requests: int, tag: str) -> Report:
    """``workers`` threads doing at least ``requests`` requests on zones ``{tag}-{n}``;
    raises AssertionError unless the state and the request count are exactly what they did."""
    rounds = max(1, -(-requests // (workers * PER_ROUND)))
    expected = workers * (rounds * PER_ROUND + -(-rounds // 10))
    report = Report()
    report.rss_kib[0] = rss_kib()
    lock = threading.Lock()
    before = emu.stats()["requests"]
    ids: list[int] = []

    def count(ok: bool) -> None:
        with lock:
            report.requests += 1
            report.errors += not ok
            if report.requests == expected // 10:
                report.rss_kib[1] = rss_kib()
            elif report.requests == expected // 2:
                report.rss_kib[2] = rss_kib()

    def attempt(call: object) -> object:
        try:
            return call()  # type: ignore[operator]
        except Exception:  # every failure is counted, and fails the run
            return None

    def worker(w: int) -> None:
        scope = emu.client(token=True, retry_backoff=0.005).zone(f"{tag}-{w}")
        esc, logpush = scope.esc, scope.logpush
        secret = f"soak-secret-{w}"
        mine = []
        for r in range(rounds):
            count(attempt(esc.disable) is None)
            count(getattr(attempt(esc.status), "disabled", False) is True)
            count(attempt(esc.enable) is None)
            count(getattr(attempt(esc.status), "disabled", True) is False)
            if r % 10 == 0:
                count(attempt(lambda: esc.set_secret(secret)) == secret)
            name = f"w{w}-r{r}"
            job = attempt(lambda: logpush.create_job(destination_conf=S3, dataset="http_requests", name=name))
            job_id = job["id"] if isinstance(job, dict) else 0
            count(job_id != 0)
            mine.append(job_id)
            got = attempt(lambda: logpush.job(job_id))
            count(isinstance(got, dict) and got["name"] == name)
            if r + 1 < rounds:
                count(attempt(lambda: logpush.delete_job(job_id)) == job_id)
            else:
                listed = attempt(logpush.jobs)
                count(isinstance(listed, list) and [j["name"] for j in listed] == [name])
        status = esc.status()
        assert status.state == "secret" and status.secret == secret, status
        with lock:
            ids.extend(mine)

    started = time.monotonic()
    threads = [threading.Thread(target=worker, args=(w,)) for w in range(workers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    report.wall = time.monotonic() - started
    report.rss_kib[3] = rss_kib()
    # Exactly what the workers did: every request received, each zone as left, ids distinct.
    assert report.requests == expected, (report.requests, expected)
    received = emu.stats()["requests"] - before
    assert received == expected + workers, (received, expected + workers)
    assert len(set(ids)) == len(ids), "job ids are unique"
    zones = emu.state()["zones"]
    for w in range(workers):
        z = zones[f"{tag}-{w}"]
        assert z["esc"]["always"] is False and z["esc"]["secret_length"] == len(f"soak-secret-{w}"), z
        assert [j["name"] for j in z["logpush_jobs"]] == [f"w{w}-r{rounds - 1}"], z
    return report


def main() -> int:
    requests = int(sys.argv[1]) if len(sys.argv) > 1 else 100_000
    workers = int(sys.argv[2]) if len(sys.argv) > 2 else 16
    with Emulator() as emu:
        report = run(emu, workers=workers, requests=requests, tag="soak")
        stats = emu.stats()
    start, tenth, half, end = report.rss_kib
    print(
        f"soak: {report.requests} requests from {workers} threads (a Client each) in {report.wall:.2f} s "
        f"({report.per_second:.0f} req/s), {report.errors} errors; state and request count exact; "
        f"RSS {start} KiB at start, {tenth} at 10 %, {half} at 50 %, {end} at the end; emulator {stats}"
    )
    return 1 if report.errors else 0


if __name__ == "__main__":
    sys.exit(main())
