#!/usr/bin/env python3
"""The peers of the breakdown case of `scan_bench.py`: the same counts by group and by hour
as `Filter.scan(group_by=[...], every="1h")`, computed by DuckDB (`GROUP BY` over the SQL
escpush prints, given as an argument so that this process times DuckDB alone) or by polars
(`group_by` over the filter as a `polars.Expr`).

    breakdown_peers.py duckdb SQL LOGS     (SQL: the filter as a DuckDB boolean expression)
    breakdown_peers.py polars FILTER LOGS  (FILTER: a file of the filter's JSON)

Prints `matched total`, then `G <tab> country <tab> status <tab> lines <tab> kept` per group
(`(missing)` for a missing field) and `B <tab> unix start <tab> lines <tab> kept` per hour, as
`scan_count --group-by ... --every 3600` prints them. The logs are the generator's: the
timestamps are RFC 3339 text, the grouped fields a string and an int.
"""

from __future__ import annotations

import sys

FIELDS = {"ClientCountry": "VARCHAR", "EdgeResponseStatus": "BIGINT", "EdgeStartTimestamp": "VARCHAR"}


def show(value: object) -> str:
    return "(missing)" if value is None else str(value)


def duckdb_peer(sql: str, logs: str) -> None:
    import duckdb

    # Every column the filter may name, typed as escpush.dataset_schema types them.
    con = duckdb.connect()
    source = f"read_ndjson('{logs}', columns={{{', '.join(f'{k}: {v!r}' for k, v in COLUMNS.items())}}})"
    con.execute(f"CREATE TEMP VIEW logs AS SELECT * FROM {source}")
    kept = f"CASE WHEN {sql} THEN 1 ELSE 0 END"
    rows = con.execute(
        f"SELECT ClientCountry, EdgeResponseStatus, NULL, count(*), sum({kept}), 0 FROM logs GROUP BY ALL "
        "UNION ALL SELECT NULL, NULL, epoch(CAST(EdgeStartTimestamp AS TIMESTAMPTZ))::BIGINT // 3600 * 3600 AS b, "
        f"count(*), sum({kept}), 1 FROM logs GROUP BY b"
    ).fetchall()
    emit([(r[0], r[1], r[3], int(r[4])) for r in rows if r[5] == 0], [(r[2], r[3], int(r[4])) for r in rows if r[5]])


def polars_peer(filter_path: str, logs: str) -> None:
    import polars as pl

    from escpush import Filter, dataset_schema

    f = Filter.parse(open(filter_path).read())
    schema = dataset_schema("http_requests", "polars")
    gzipped = logs.endswith(".gz")
    frame = pl.read_ndjson(logs, schema=schema).lazy() if gzipped else pl.scan_ndjson(logs, schema=schema)
    kept = f.to_polars(dataset="http_requests").cast(pl.Int64).alias("kept")
    hour = (pl.col("EdgeStartTimestamp").str.to_datetime(time_zone="UTC").dt.epoch("s") // 3600 * 3600).alias("b")
    both = frame.with_columns(kept, hour)
    groups = both.group_by("ClientCountry", "EdgeResponseStatus").agg(pl.len(), pl.col("kept").sum())
    buckets = both.group_by("b").agg(pl.len(), pl.col("kept").sum())
    g, b = pl.collect_all([groups, buckets])
    emit(list(g.iter_rows()), list(b.iter_rows()))


def emit(groups: list[tuple[object, ...]], buckets: list[tuple[object, ...]]) -> None:
    total = sum(int(r[2]) for r in groups)
    kept = sum(int(r[3]) for r in groups)
    out = [f"{kept} {total}"]
    out += [f"G\t{show(c)}\t{show(s)}\t{n}\t{k}" for c, s, n, k in sorted(groups, key=lambda r: (-r[2], str(r[:2])))]
    out += [f"B\t{b}\t{n}\t{k}" for b, n, k in sorted(buckets, key=lambda r: r[0])]
    sys.stdout.write("\n".join(out) + "\n")


COLUMNS: dict[str, str] = {}

if __name__ == "__main__":
    peer, arg, logs = sys.argv[1:4]
    if peer == "duckdb":
        COLUMNS.update(dict(a.split("=", 1) for a in sys.argv[4:]))
        duckdb_peer(arg, logs)
    else:
        polars_peer(arg, logs)
