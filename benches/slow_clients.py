#!/usr/bin/env python3
"""The emulator among slow and idle clients (RELIABILITY.md has the figures).

    .venv/bin/python benches/slow_clients.py [STALLED] [REQUESTS]

Opens STALLED connections (default 600) that each send half a request line and stall, plus
as many that connect and send nothing, then times REQUESTS (default 200) calls of a
well-behaved ``escpush.Client``. Prints the latency (median, 99th percentile, max), the
emulator's connection counts and this process's threads (the emulator runs in it) before and
after: threads stay bounded by the connection cap (256) whatever the number of sockets.
"""

from __future__ import annotations

import socket
import statistics
import sys
import time

from escpush.testing import Emulator


def threads() -> int:
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("Threads:"))


def main() -> int:
    stalled = int(sys.argv[1]) if len(sys.argv) > 1 else 600
    requests = int(sys.argv[2]) if len(sys.argv) > 2 else 200
    with Emulator() as emu:
        before = threads()
        socks = []
        for i in range(2 * stalled):
            s = socket.create_connection(("127.0.0.1", emu.port))
            if i % 2 == 0:
                s.sendall(b"GET /client/v4/zo")
            socks.append(s)
        time.sleep(0.5)
        during = threads()
        esc = emu.client(timeout=5).zone("z1").esc
        latencies = []
        for _ in range(requests):
            started = time.perf_counter()
            esc.status()
            latencies.append((time.perf_counter() - started) * 1000)
        stats = emu.stats()
        for s in socks:
            s.close()
    latencies.sort()
    p99 = latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))]
    print(
        f"slow clients: {stalled} half-sent + {stalled} silent connections; {requests} calls of a well-behaved "
        f"client: median {statistics.median(latencies):.2f} ms, p99 {p99:.2f} ms, max {latencies[-1]:.2f} ms; "
        f"process threads {before} before, {during} with the sockets open; emulator {stats}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
