#!/usr/bin/env python3
"""Equivalence speed: adversarial pairs of filters within the API's limits.

Each family of pairs is grown to the largest size whose two filters both fit the limits
(30 operators, 1000 bytes of JSON), then decided with and without a dataset by
``Filter.equivalent`` (which runs the whole decision: atoms, the diagram of f xor g, and
the search for a counterexample). The figure is the worst of 5 runs. The target is 50 ms
for any two filters within the limits. Run on a release build (`make bench` does).
"""

from __future__ import annotations

import random
import sys
import time
from collections.abc import Callable

from escpush import DEFAULT_MAX_BYTES, DEFAULT_MAX_OPERATORS, Filter, FilterError


def fits(f: Filter) -> bool:
    return f.operator_count <= DEFAULT_MAX_OPERATORS and f.byte_size <= DEFAULT_MAX_BYTES


def ors(parts: list[str]) -> str:
    return " or ".join(parts)


def ands(parts: list[str]) -> str:
    return " and ".join(parts)


def quoted(items: list[str]) -> str:
    return ", ".join(f'"{s}"' for s in items)


def prefixes(n: int) -> list[str]:
    return [f'A startsWith "/p{i}"' for i in range(n)]


def excluded(n: int) -> list[str]:
    return [f'A !contains "x{i}"' for i in range(n)]


def mixed(n: int, negated: bool) -> list[str]:
    ops = ("!=", "!startsWith", "!contains") if negated else ("==", "startsWith", "contains")
    return [f'A {ops[i % 3]} "v{i}"' for i in range(n)]


# Each family: a name, the dataset it also runs under, and texts of the pair for size n.
FAMILIES: list[tuple[str, str | None, Callable[[int], tuple[str, str]]]] = [
    (
        "dnf on two fields (worst order), reordered",
        "http_requests",
        lambda n: (
            ors([f'(BotScore == {i} and JA4 == "c{i}")' for i in range(n)]),
            ors([f'(BotScore == {i} and JA4 == "c{i}")' for i in reversed(range(n))]),
        ),
    ),
    (
        "dnf on two fields, one pair changed",
        "http_requests",
        lambda n: (
            ors([f'(BotScore == {i} and JA4 == "c{i}")' for i in range(n)]),
            ors(
                [*(f'(BotScore == {i} and JA4 == "c{i}")' for i in range(n - 1)), f'(BotScore == {n} and JA4 == "c0")']
            ),
        ),
    ),
    (
        "dnf with crossed values (A=i and B=j, i != j)",
        None,
        lambda n: (
            ors([f"(A == {i} and B == {(i * 7) % n})" for i in range(n)]),
            ors([f"(B == {(i * 7) % n} and A == {i})" for i in reversed(range(n))]),
        ),
    ),
    (
        "cnf on two fields, reordered",
        None,
        lambda n: (
            ands([f"(A == {i} or B != {i})" for i in range(n)]),
            ands([f"(B != {i} or A == {i})" for i in reversed(range(n))]),
        ),
    ),
    (
        "cnf on two fields vs one clause dropped",
        None,
        lambda n: (
            ands([f"(A == {i} or B != {i})" for i in range(n)]),
            ands([f"(A == {i} or B != {i})" for i in range(1, n)]),
        ),
    ),
    (
        "or of eq vs in (array field differs)",
        "http_requests",
        lambda n: (ors([f"BotScore == {i}" for i in range(n)]), f"BotScore in [{', '.join(map(str, range(n)))}]"),
    ),
    (
        "prefixes and excluded substrings",
        None,
        lambda n: (
            "(" + ors(prefixes(n // 2)) + ") and " + ands(excluded(n - n // 2)),
            ands(excluded(n - n // 2)[::-1]) + " and (" + ors(prefixes(n // 2)[::-1]) + ")",
        ),
    ),
    (
        "prefixes subsumed by a shorter one",
        None,
        lambda n: (ors([*(f'A startsWith "/p{i}"' for i in range(n - 1)), 'A startsWith "/p"']), 'A startsWith "/p"'),
    ),
    (
        "adjacent intervals vs one interval",
        "http_requests",
        lambda n: (
            ors([f"(BotScore >= {10 * i} and BotScore < {10 * i + 10})" for i in range(n // 2)]),
            f"BotScore >= 0 and BotScore < {10 * (n // 2)}",
        ),
    ),
    (
        "clauses on many fields",
        None,
        lambda n: (
            ands([f"(F{i} == 1 or G{i} == 1)" for i in range(n // 2)]),
            ands([f"(G{i} == 1 or F{i} == 1)" for i in reversed(range(n // 2))]),
        ),
    ),
    (
        "array contains vs in",
        "http_requests",
        lambda n: (
            ors([f'BotTags contains "s{i}"' for i in range(n)]),
            f"BotTags in [{quoted([f's{i}' for i in range(n)])}]",
        ),
    ),
    (
        "mixed operators on one field, negated by De Morgan",
        None,
        lambda n: ("not (" + ors(mixed(n, False)) + ")", ands(mixed(n, True)[::-1])),
    ),
]


def largest(make: Callable[[int], tuple[str, str]]) -> tuple[Filter, Filter]:
    best = None
    for n in range(2, DEFAULT_MAX_OPERATORS + 1):
        try:
            f, g = (Filter.from_text(x) for x in make(n))
        except FilterError:
            break
        if not (fits(f) and fits(g)):
            break
        best = (f, g)
    assert best is not None
    return best


def random_pairs(count: int) -> list[tuple[Filter, Filter]]:
    """Random filters within the limits on three fields, each paired with a random other and
    with its own compact form (equal: the search must prove it)."""
    rng = random.Random(2026)
    ops = ["==", "!=", "<", ">=", "startsWith", "!endsWith", "contains", "in", "!in"]

    def condition() -> str:
        key, op = rng.choice(["A", "B", "C"]), rng.choice(ops)
        if op in ("<", ">="):
            return f"{key} {op} {rng.randint(0, 9)}"
        if op in ("in", "!in"):
            return f"{key} {op} [{', '.join(str(rng.randint(0, 9)) for _ in range(2))}]"
        return f'{key} {op} "{rng.choice("abc")}{rng.randint(0, 9)}"'

    def expr(depth: int) -> str:
        if depth == 0 or rng.random() < 0.3:
            return condition()
        joiner = rng.choice([" and ", " or "])
        return "(" + joiner.join(expr(depth - 1) for _ in range(rng.randint(2, 4))) + ")"

    def fitting() -> Filter:
        while True:
            f = Filter.from_text(expr(4))
            if fits(f) and f.operator_count >= 12:
                return f

    out = []
    for _ in range(count):
        f = fitting()
        out.append((f, fitting()))
        out.append((f, f.compact()))
    return out


def main() -> int:
    worst = 0.0
    print(f"{'pair':<52} {'ops':>7} {'dataset':>14} {'equal':>6} {'worst ms':>9}")
    for name, dataset, make in FAMILIES:
        f, g = largest(make)
        for ds in (None, dataset) if dataset else (None,):
            runs = []
            for _ in range(5):
                start = time.perf_counter()
                same = f.equivalent(g, ds)
                runs.append(time.perf_counter() - start)
            ms = max(runs) * 1000
            worst = max(worst, ms)
            ops = f"{f.operator_count}+{g.operator_count}"
            print(f"{name:<52} {ops:>7} {ds or '-':>14} {same!s:>6} {ms:9.2f}")
    times = []
    for f, g in random_pairs(150):
        start = time.perf_counter()
        f.equivalent(g)
        times.append((time.perf_counter() - start) * 1000)
    times.sort()
    worst = max(worst, times[-1])
    print(
        f"{len(times)} random pairs within the limits (12-30 operators, 3 fields): "
        f"median {times[len(times) // 2]:.2f} ms, "
        f"max {times[-1]:.2f} ms"
    )
    print(f"\nworst case: {worst:.2f} ms (target: 50 ms)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
