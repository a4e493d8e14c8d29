"""Filter.to_transformer proven as the other dialects are (test_sql.py): the transformer it
prints, run by DataFusion (the engine of Cloudflare Pipelines' SQL, and so of transformers)
over the generated records of every column type, delivers exactly the records
`Filter.matches` keeps; core's check accepts it, and reads it back as the same filter."""

from __future__ import annotations

from typing import Any

import pytest

import escpush
from engines import need
from escpush import Filter
from test_sql import DATASET, FILTERS, RECORDS, arrow_table


def expressible(filters: list[Filter]) -> list[Filter]:
    """The filters the transformer dialect can say (no arrays, no integer comparison of an
    `int or string` field: to_transformer refuses those, tested below)."""
    out = []
    for f in filters:
        try:
            f.to_transformer(dataset=DATASET)
        except escpush.InvalidInput:
            continue
        out.append(f)
    return out


def test_datafusion_delivers_the_records_matches_keeps() -> None:
    datafusion = need("datafusion")
    ctx = datafusion.SessionContext()
    ctx.register_record_batches(DATASET, [arrow_table(RECORDS).to_batches()])
    filters = expressible(FILTERS)
    assert len(filters) > 100, "most generated filters have a transformer"
    wrong = []
    for f in filters:
        sql = f.to_transformer(dataset=DATASET)
        got = sorted(ctx.sql(sql).to_pydict()["id"])
        want = [i for i, r in enumerate(RECORDS) if f.matches(r)]
        if got != want:
            wrong.append(f"{f.to_json()}\n{sql}\n  DataFusion {got}\n  matches    {want}")
    assert not wrong, "\n".join(wrong[:5])


def test_core_accepts_every_printed_transformer_and_reads_the_same_filter_back() -> None:
    read_back = 0
    for f in expressible(FILTERS):
        sql = f.to_transformer(dataset=DATASET, fields=["ClientIP", "RayID"])
        assert escpush.check_transformer(sql) == {"dataset": DATASET, "scope": "zone"}
        back: Any = escpush.transformer_to_filter(sql)
        if back is None:
            # A condition no value of its column can meet is printed as the constant it is
            # (`COALESCE(FALSE, FALSE)`): no field to read a filter's condition back from.
            assert "(FALSE, FALSE)" in sql, sql
            continue
        read_back += 1
        assert back["fields"] == ["ClientIP", "RayID"]
        assert back["filter"].equivalent(f, dataset=DATASET), sql
    assert read_back > 50


def test_a_filter_the_dialect_cannot_say_and_an_unknown_field_are_refused() -> None:
    with pytest.raises(escpush.InvalidInput):
        escpush.field("SecuritySources").contains("waf").to_transformer(dataset=DATASET)
    with pytest.raises(escpush.FilterError, match="did you mean `ClientIP`"):
        escpush.field("EdgeResponseStatus").ge(500).to_transformer(dataset=DATASET, fields=["ClientIp"])
