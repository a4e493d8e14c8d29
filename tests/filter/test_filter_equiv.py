"""Exact equivalence of filters: Filter.equivalent / counterexample (with and without a
dataset) and ``escpush filter diff``."""

from __future__ import annotations

import json
import random

import pytest

from escpush import Filter, dataset_fields, field
from escpush.cli import EXIT_CHECK_FAILED, EXIT_OK, main

ORS = 'ClientCountry == "cn" or ClientCountry == "ru"'
SET = 'ClientCountry in ["cn", "ru"]'


def test_an_or_of_eqs_is_in_only_where_the_field_cannot_be_an_array() -> None:
    f, g = Filter.from_text(ORS), Filter.from_text(SET)
    assert not f.equivalent(g)
    record = f.counterexample(g)
    assert record is not None and isinstance(record["ClientCountry"], list)
    assert f.matches(record) != g.matches(record)
    assert f.equivalent(g, "http_requests")
    assert f.counterexample(g, "http_requests") is None


def test_bounds_differ_on_floats_except_for_int_fields() -> None:
    f, g = Filter.from_text("BotScore < 10 or BotScore < 20"), Filter.from_text("BotScore <= 19")
    assert f.equivalent("BotScore < 20")
    record = f.counterexample(g)
    assert record is not None and 19 < record["BotScore"] < 20
    assert f.equivalent(g, "http_requests")


def test_counterexamples_fit_the_schema_they_were_asked_under() -> None:
    types = dataset_fields("http_requests")
    pairs = [
        ("EdgeResponseStatus >= 500", "EdgeResponseStatus > 500"),
        ('SecuritySources contains "waf"', 'SecuritySources in ["waf", "ratelimit"]'),
        ('ClientRequestHost endsWith ".example.com"', 'ClientRequestHost endsWith "example.com"'),
        ("EdgeResponseStatus > 9223372036854775806", "EdgeResponseStatus == 9223372036854775807"),
    ]
    python_type = {"int": int, "string": str, "array[string]": list}
    for a, b in pairs:
        record = Filter.from_text(a).counterexample(b, "http_requests")
        assert record is not None, (a, b)
        for key, value in record.items():
            assert type(value) is python_type[types[key]], (key, value)
        assert Filter.from_text(a).matches(record) != Filter.from_text(b).matches(record)


def test_integers_of_any_size() -> None:
    record = Filter.from_text("A < -9223372036854775808").counterexample("A == 1 and A != 1")
    assert record == {"A": -9223372036854775809}


def test_other_takes_any_filter_form() -> None:
    f = field("A").eq("x")
    assert f.equivalent(f.to_json()) and f.equivalent(f.to_dict()) and f.equivalent('A == "x"')


def test_rewrites_are_equal_and_random_records_agree_with_every_verdict() -> None:
    rng = random.Random(7)
    keys, texts = ["A", "B"], ['"a"', '"ab"', '"b"', "1", "5", "true"]
    ops = ["==", "!=", "<", ">=", "startsWith", "!contains", "in", "!in"]

    def condition() -> str:
        key, op = rng.choice(keys), rng.choice(ops)
        if op in ("<", ">="):
            return f"{key} {op} {rng.randint(0, 6)}"
        if op in ("in", "!in"):
            return f"{key} {op} [{', '.join(rng.sample(texts, 2))}]"
        if op in ("startsWith", "!contains"):
            return f"{key} {op} {rng.choice(texts[:3])}"
        return f"{key} {op} {rng.choice(texts)}"

    values: list[object] = [None, 1, 5, 4.5, "a", "ab", "b", "5", True, ["a", 5], ["b"]]
    for _ in range(150):
        a, b, c = condition(), condition(), condition()
        f = Filter.from_text(f"{a} and ({b} or {c})")
        assert f.equivalent(f"({a} and {b}) or ({c} and {a})")
        g = Filter.from_text(f"{a} or ({b} and {c})")
        record = f.counterexample(g)
        if record is None:
            for _ in range(30):
                rec = {k: v for k in keys if (v := rng.choice(values)) is not None}
                assert f.matches(rec) == g.matches(rec), (str(f), str(g), rec)
        else:
            assert f.matches(record) != g.matches(record)


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_diff(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "filter", "diff", ORS, SET, "--dataset", "http_requests")
    assert (code, out) == (
        EXIT_OK,
        "equivalent on records of http_requests: the two filters match exactly the same records\n",
    )
    code, out, _ = _run(capsys, "filter", "diff", ORS, SET)
    assert code == EXIT_CHECK_FAILED
    assert out.startswith("not equivalent: only B matches the record\n  {")
    code, out, _ = _run(capsys, "filter", "diff", ORS, Filter.from_text(SET).to_json(), "--json")
    data = json.loads(out)
    assert code == EXIT_CHECK_FAILED and data["equivalent"] is False and data["counterexample"]["ClientCountry"]


# -- compaction ----------------------------------------------------------------------------


def test_compact_merges_eqs_into_in_where_the_dataset_allows_it() -> None:
    big = Filter.from_text(" or ".join(f'ClientCountry == "c{i:02d}"' for i in range(40)))
    assert big.operator_count == 40
    small = big.compact("http_requests")
    assert str(small).startswith('ClientCountry in ["c00", "c01"')
    assert small.operator_count == 1 and small.equivalent(big, "http_requests")
    # Without a dataset ClientCountry may be an array, where `in` is not an `or` of `eq`s.
    assert big.compact().operator_count == 40


def test_compact_factors_absorbs_and_merges_bounds() -> None:
    f = Filter.from_text(
        "(A == 1 and B == 2) or (A == 1 and C == 3) or (A == 1 and B == 2 and D == 4) or "
        "(N < 10 and N < 20 and N >= 0 and N >= -5)"
    )
    c = f.compact()
    assert str(c) == "A == 1 and (B == 2 or C == 3) or N < 10 and N >= 0"
    assert c.equivalent(f)


def test_validate_says_when_compact_brings_a_filter_within_the_limits() -> None:
    big = Filter.from_text(" or ".join(f'ClientCountry == "c{i:02d}"' for i in range(40)))
    (ops, size) = big.problems("http_requests")
    assert ops["code"] == "too_many_operators"
    assert (
        "`compact()` (escpush filter fmt --compact) rewrites it to an equivalent filter of 1 operators"
        in ops["message"]
    )
    assert size["code"] == "too_large" and "compact()" not in size["message"]
    assert all("compact()" not in p["message"] for p in big.problems())  # not without a dataset
    long = Filter.from_text(" and ".join(['A == "' + "x" * 300 + '"'] * 4))
    (only,) = long.problems()
    assert only["code"] == "too_large" and "equivalent filter of 1 operators" in only["message"]


def test_cli_fmt_compact(capsys: pytest.CaptureFixture[str]) -> None:
    text = " or ".join(f'ClientCountry == "c{i}"' for i in range(3))
    code, out, _ = _run(capsys, "filter", "fmt", text, "--compact", "--dataset", "http_requests", "--to", "text")
    assert (code, out) == (EXIT_OK, 'ClientCountry in ["c0", "c1", "c2"]\n')
    code, out, _ = _run(capsys, "filter", "fmt", text, "--compact", "--to", "text")
    assert (code, out) == (EXIT_OK, text + "\n")
    code, _, err = _run(capsys, "filter", "fmt", text, "--dataset", "http_requests")
    assert code != EXIT_OK and "--compact" in err
