#!/usr/bin/env python3
"""Compaction: a committed corpus of oversized filters, each a redundant expansion of a small
filter that fits the limits (or-chains of ``eq``, repeated conditions, distributed forms,
absorbed and subsumed conditions, redundant bounds). For each: whether ``Filter.compact``
(with the corpus entry's dataset) brings it within the limits, the size before and after,
that the result is equivalent to the input and to the small filter it was built from, and
the time taken. ``--regenerate`` rewrites the corpus (benches/data/compact_corpus.jsonl).
"""

from __future__ import annotations

import itertools
import json
import random
import statistics
import sys
import time
from pathlib import Path

from escpush import DEFAULT_MAX_BYTES, DEFAULT_MAX_OPERATORS, Filter

CORPUS = Path(__file__).resolve().parent / "data" / "compact_corpus.jsonl"
HOSTS = [f"h{i}.example.com" for i in range(12)]
COUNTRIES = ["cn", "ru", "kp", "ir", "sy", "cu", "by", "ve", "mm", "af", "iq", "ly", "so", "sd", "ye", "zw"]


def fits(f: Filter) -> bool:
    return f.operator_count <= DEFAULT_MAX_OPERATORS and f.byte_size <= DEFAULT_MAX_BYTES


def ors(parts: list[str]) -> str:
    return " or ".join(f"({p})" for p in parts)


def ands(parts: list[str]) -> str:
    return " and ".join(f"({p})" for p in parts)


def q(s: str) -> str:
    return json.dumps(s)


def generate() -> list[dict[str, str]]:
    rng = random.Random(12)
    out: list[dict[str, str]] = []

    def add(name: str, base: str, big: str, dataset: str = "http_requests") -> None:
        out.append({"name": name, "dataset": dataset, "base": base, "filter": big})

    for n in (31, 40, 60):
        values = [f"c{i:02d}" for i in range(n)]
        add(
            f"or-chain of {n} eq",
            f"ClientCountry in [{', '.join(map(q, values))}]",
            " or ".join(f"ClientCountry == {q(v)}" for v in values),
        )
        add(
            f"and-chain of {n} !eq",
            f"ClientCountry !in [{', '.join(map(q, values))}]",
            " and ".join(f"ClientCountry != {q(v)}" for v in values),
        )
    for k in (4, 6):
        conds = [
            "EdgeResponseStatus >= 500",
            f"ClientRequestHost endsWith {q('.example.com')}",
            f"ClientCountry in [{', '.join(map(q, COUNTRIES[:4]))}]",
            f"ClientRequestPath !startsWith {q('/health')}",
            "BotScore < 30",
            f"ClientRequestMethod == {q('POST')}",
        ][:k]
        repeated = conds * 5
        rng.shuffle(repeated)
        add(f"{k} conditions, each repeated 5 times in nested groups", " and ".join(conds),
            ands([" and ".join(repeated[i : i + 3]) for i in range(0, len(repeated), 3)]))  # fmt: skip
    clause_sets = [
        [["EdgeResponseStatus >= 500", "EdgeResponseStatus == 429"],
         [f"ClientRequestHost endsWith {q('.a.com')}", f"ClientRequestHost endsWith {q('.b.com')}"],
         [f"ClientCountry == {q('cn')}", f"ClientCountry == {q('ru')}"]],
        [["EdgeResponseStatus >= 500", "EdgeResponseStatus == 429"],
         [f"ClientRequestMethod == {q('POST')}", f"ClientRequestMethod == {q('PUT')}"],
         [f"ClientCountry == {q('cn')}", f"ClientCountry == {q('ru')}"],
         [f"ClientRequestPath startsWith {q('/api')}", f"ClientRequestPath startsWith {q('/admin')}"]],
        [["BotScore < 10", "BotScore > 90"],
         [f"ClientRequestHost == {q(h)}" for h in HOSTS[:3]],
         [f"CacheCacheStatus == {q('miss')}", f"CacheCacheStatus == {q('expired')}"]],
    ]  # fmt: skip
    for clauses in clause_sets:
        base = ands([" or ".join(c) for c in clauses])
        terms = [" and ".join(t) for t in itertools.product(*clauses)]
        add(f"distributed form of {len(clauses)} clauses ({len(terms)} terms)", base, ors(terms))
    for n in (16, 24):
        hosts = HOSTS[: n // 2] + [f"x{i}.example.org" for i in range(n - n // 2)]
        add(
            f"or of {n} (host and status) sharing the status",
            f"EdgeResponseStatus >= 500 and ClientRequestHost in [{', '.join(map(q, hosts))}]",
            ors([f"ClientRequestHost == {q(h)} and EdgeResponseStatus >= 500" for h in hosts]),
        )
    for n in (31, 45):
        add(
            f"a condition absorbing {n - 1} others",
            f"ClientCountry == {q('cn')}",
            " or ".join([f"ClientCountry == {q('cn')}"]
                        + [f"(ClientCountry == {q('cn')} and EdgeResponseStatus == {500 + i})" for i in range(n - 1)]),
        )  # fmt: skip
        add(
            f"{n} redundant bounds",
            "EdgeResponseStatus >= 500 and EdgeResponseStatus < 600",
            " and ".join([f"EdgeResponseStatus >= {500 - 10 * i}" for i in range(n // 2)]
                         + [f"EdgeResponseStatus < {600 + 10 * i}" for i in range(n - n // 2)]),
        )  # fmt: skip
        add(
            f"{n} prefixes subsumed by a shorter one",
            f"ClientRequestPath startsWith {q('/api/')}",
            " or ".join([f"ClientRequestPath startsWith {q(f'/api/v{i}/')}" for i in range(n - 1)]
                        + [f"ClientRequestPath startsWith {q('/api/')}"]),
        )  # fmt: skip
    add(
        "in sets split into 32 pieces, without a dataset",
        f"ClientCountry in [{', '.join(map(q, COUNTRIES))}]",
        " or ".join(f"ClientCountry in [{q(c)}, {q(c)}]" for c in COUNTRIES * 2),
        "",
    )
    return out


def main() -> int:
    if "--regenerate" in sys.argv:
        CORPUS.write_text("".join(json.dumps(e) + "\n" for e in generate()))
        print(f"wrote {CORPUS}")
    entries = [json.loads(line) for line in CORPUS.read_text().splitlines()]
    print(f"{'corpus entry':<72} {'before':>11} {'after':>10} {'fits':>5} {'ms':>7}")
    fitted, times, ops_saved, bytes_saved = 0, [], [], []
    for e in entries:
        ds = e["dataset"] or None
        f, base = Filter.from_text(e["filter"]), Filter.from_text(e["base"])
        assert not fits(f) and fits(base) and f.equivalent(base, ds), e["name"]
        start = time.perf_counter()
        c = f.compact(ds)
        ms = (time.perf_counter() - start) * 1000
        assert c.equivalent(f, ds), e["name"]
        assert (c.operator_count, c.byte_size) <= (f.operator_count, f.byte_size)
        fitted += fits(c)
        times.append(ms)
        ops_saved.append(1 - c.operator_count / f.operator_count)
        bytes_saved.append(1 - c.byte_size / f.byte_size)
        before = f"{f.operator_count}/{f.byte_size}"
        after = f"{c.operator_count}/{c.byte_size}"
        name = e["name"] + (f" ({ds})" if ds else "")
        print(f"{name:<72} {before:>11} {after:>10} {'yes' if fits(c) else 'NO':>5} {ms:7.1f}")
    print(
        f"\n{fitted} of {len(entries)} fit the limits after compaction (each has an equivalent that fits); "
        f"operators -{statistics.median(ops_saved):.0%}, bytes -{statistics.median(bytes_saved):.0%} (medians); "
        f"time median {statistics.median(times):.1f} ms, max {max(times):.1f} ms"
    )
    return 0 if fitted == len(entries) else 1


if __name__ == "__main__":
    sys.exit(main())
