#!/usr/bin/env python3
"""Filter model speed: parse, validate and evaluate the six sample filters.

Compares `Filter.parse` with `json.loads` (the floor for reading the same text) and
`Filter.matches` on dict records with the plain-Python reference evaluator. Figures are
medians of 5 runs; run on a release build (`make bench` does).
"""

from __future__ import annotations

import json
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from escpush import Filter  # noqa: E402
from reference_eval import evaluate  # noqa: E402

FILTERS = sorted((ROOT / "tests" / "data" / "filters").glob("*.json"))


def timed(fn, n: int) -> float:  # type: ignore[no-untyped-def]
    runs = []
    for _ in range(5):
        start = time.perf_counter()
        for _ in range(n):
            fn()
        runs.append((time.perf_counter() - start) / n)
    return statistics.median(runs)


def records(count: int) -> list[dict[str, object]]:
    rng = random.Random(42)
    hosts = ["www.example.com", "shop.shop-demo.com", "api.example.com", "docs-hub.org"]
    return [
        {
            "ClientRequestHost": rng.choice(hosts),
            "EdgeResponseStatus": rng.choice([200, 200, 206, 304, 404, 500, 503]),
            "ClientRequestMethod": rng.choice(["GET", "GET", "POST", "PUT"]),
            "BotScore": rng.randint(1, 99),
            "CacheCacheStatus": rng.choice(["hit", "miss", "expired"]),
            "EdgeResponseBytes": rng.randint(100, 2_000_000),
            "ClientRequestPath": rng.choice(["/", "/wp-login.php", "/api/v1", "/static/app.js"]),
            "SecuritySources": rng.choice([[], ["firewallManaged"], ["rateLimit", "waf"]]),
            "WorkerSubrequest": rng.random() < 0.1,
            "ClientCountry": rng.choice(["us", "de", "cn", "ru"]),
            "ClientASN": rng.choice([13335, 15169, 7922]),
            "ClientIP": f"10.0.{rng.randint(0, 255)}.{rng.randint(0, 255)}",
        }
        for _ in range(count)
    ]


def main() -> None:
    recs = records(20_000)
    print("| filter | bytes | parse µs | json.loads µs | validate µs | matches ns/rec | reference ns/rec | x |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for path in FILTERS:
        text = path.read_text().strip()
        f = Filter.parse(text)
        doc = json.loads(text)["where"]
        parse = timed(lambda: Filter.parse(text), 2000)
        loads = timed(lambda: json.loads(text), 2000)
        validate = timed(lambda: f.validate("http_requests"), 2000)
        ours = timed(lambda: [f.matches(r) for r in recs], 1) / len(recs)
        ref = timed(lambda: [evaluate(doc, r) for r in recs], 1) / len(recs)
        assert [f.matches(r) for r in recs] == [evaluate(doc, r) for r in recs]
        print(
            f"| {path.stem} | {len(text)} | {parse * 1e6:.1f} | {loads * 1e6:.1f} | {validate * 1e6:.1f} "
            f"| {ours * 1e9:.0f} | {ref * 1e9:.0f} | {ref / ours:.1f} |"
        )


if __name__ == "__main__":
    main()
