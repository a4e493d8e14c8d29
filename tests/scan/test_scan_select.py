"""Which inputs a scan reads: folders (recursive, sorted, log files only), globs expanded by
escpush, log-push time ranges (--since/--until), and --limit in input order."""

from __future__ import annotations

import datetime
import gzip
import json
from pathlib import Path

import pytest

import escpush
from escpush import InvalidInput, ScanError
from escpush.cli import main

FILTER = escpush.field("EdgeResponseStatus").ge(500)
UTC = datetime.timezone.utc


def lines(tag: str, n: int = 6) -> str:
    return "".join(
        json.dumps({"EdgeResponseStatus": 503 if i % 2 else 200, "RayID": f"{tag}-{i}"}) + "\n" for i in range(n)
    )


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """A log-push destination on disk: date folders of gzip batches, plus files that are not logs."""
    root = tmp_path / "logs"
    for day in ("20261122", "20261123"):
        for start, end in (("000000", "000030"), ("000030", "000100"), ("120000", "120030")):
            p = root / day / f"{day}T{start}Z_{day}T{end}Z_{start}ab.log.gz"
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_bytes(gzip.compress(lines(p.name[:33]).encode()))
    (root / "ownership-challenge-1a2b.txt").write_text("challenge")
    (root / ".hidden").mkdir()
    (root / ".hidden" / "x.ndjson").write_text(lines("hidden"))
    (root / "20261122" / ".swap.log").write_text("not logs")
    return root


def sources(r: escpush.ScanResult) -> list[str]:
    return [Path(p.source or "").name for p in r.per_input]


def test_a_folder_is_read_recursively_in_sorted_order(tree: Path) -> None:
    r = FILTER.scan(tree)
    names = sorted(p.name for p in tree.rglob("*.log.gz"))
    assert sources(r) == names  # log-push names sort by time
    assert (r.total, r.matched) == (36, 18)
    assert sources(FILTER.scan(str(tree))) == sources(FILTER.scan([tree])) == names  # str or Path, alone or listed


def test_globs_are_expanded_by_escpush(tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    r = FILTER.scan(f"{tree}/2026112*/*T0000*.log.gz")
    assert len(r.per_input) == 4 and sources(r) == sorted(sources(r))
    assert len(FILTER.scan(f"{tree}/**/*.gz").per_input) == 6
    assert len(FILTER.scan(f"{tree}/*/2026112[2]T12*").per_input) == 1
    monkeypatch.chdir(tree)
    r = FILTER.scan("20261123/*.log.gz")
    assert r.per_input[0].source == f"20261123/{sources(r)[0]}"
    with pytest.raises(ScanError, match=r"the pattern matches no files"):
        FILTER.scan("2027*/*.gz")


def test_time_range_picks_files_by_name(tree: Path) -> None:
    r = FILTER.scan(tree, since="2026-11-22T00:00:30Z", until=datetime.datetime(2026, 11, 23, 0, 0, 30, tzinfo=UTC))
    starts = [n[:16] for n in sources(r)]
    assert starts == ["20261122T000030Z", "20261122T120000Z", "20261123T000000Z"]
    # A naive datetime and a date are UTC; an offset is honoured.
    assert (
        FILTER.scan(tree, since=datetime.date(2026, 11, 23)).per_input
        == FILTER.scan(tree, since="2026-11-23T01:00:00+01:00").per_input
    )
    assert len(FILTER.scan(tree, until=datetime.datetime(2026, 11, 22, 0, 0, 1)).per_input) == 1
    with pytest.raises(InvalidInput, match="not an ISO-8601 time"):
        FILTER.scan(tree, since="yesterday")
    with pytest.raises(ScanError, match="the time range is empty"):
        FILTER.scan(tree, since="2026-11-23", until="2026-11-22")
    # A file without a range in its name cannot be placed in time.
    plain = tree / "20261122" / "extra.ndjson"
    plain.write_text(lines("x"))
    with pytest.raises(ScanError, match=r"extra\.ndjson`: --since/--until pick files by the time range"):
        FILTER.scan(tree, since="2026-11-22")
    assert len(FILTER.scan(tree).per_input) == 7


def test_limit_writes_the_first_lines_in_input_order(tree: Path, tmp_path: Path) -> None:
    everything = tmp_path / "all.ndjson"
    full = FILTER.select(tree, everything, threads=2)
    r = FILTER.scan(tree, limit=4, threads=2)
    assert r.lines == everything.read_text().splitlines()[:4]
    assert [json.loads(line)["RayID"] for line in r.lines][:3] == [
        "20261122T000000Z_20261122T000030Z-1",
        "20261122T000000Z_20261122T000030Z-3",
        "20261122T000000Z_20261122T000030Z-5",
    ]
    assert (r.total, r.matched) == (full.total, full.matched)  # the counts cover everything
    first = tmp_path / "first.ndjson"
    FILTER.select(tree, first, limit=5)
    assert first.read_text().splitlines() == everything.read_text().splitlines()[:5]
    assert FILTER.scan(tree).lines is None and FILTER.scan(tree, limit=0).lines == []


def test_gz_name_that_is_not_gzip_is_an_error(tmp_path: Path) -> None:
    p = tmp_path / "x.log.gz"
    p.write_text(lines("x"))
    with pytest.raises(ScanError, match=r"x\.log\.gz` is not valid gzip data.*does not start like gzip"):
        FILTER.scan(p)


def test_cli_per_file_limit_and_json(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = FILTER.to_json()
    assert main(["filter", "scan", f, str(tree), "--per-file", "--since", "2026-11-23"]) == 0
    out, err = capsys.readouterr()
    first, second, *per_file = out.splitlines()
    assert first == "9 of 18 lines match, 684 bytes of 1.3 KiB: keeps 50.0% of lines, 50.0% of bytes"
    assert second.startswith("read 3 inputs, 1.3 KiB in ")
    assert len(per_file) == 3 and per_file[0].startswith(f"  {tree}/20261123/20261123T000000Z_")
    assert per_file[0].endswith(": 3 of 6 lines, 50.0% of lines, 50.0% of bytes")
    assert main(["filter", "scan", f, str(tree), "--limit", "2"]) == 0
    out, err = capsys.readouterr()
    assert [json.loads(line)["RayID"][-1] for line in out.splitlines()] == ["1", "3"]
    assert err.startswith("18 of 36 lines match")
    assert main(["filter", "scan", f, f"{tree}/*/*.gz", "--json", "--limit", "1"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert (data["matched"], data["inputs"], len(data["lines"])) == (18, 6, 1)
    assert sum(p["matched_bytes"] for p in data["per_input"]) == data["matched_bytes"]
    assert data["summary"] == "keeps 50.0% of lines, 50.0% of bytes"
    assert main(["filter", "scan", f, str(tree), "--limit", "1", "--count"]) == 2


def test_a_time_range_is_refused_for_stdin() -> None:
    """Issue 22 item 6: stdin has no name to read a time range from."""
    with pytest.raises(ScanError, match=r"`-`: --since/--until .* standard input has no such name"):
        FILTER.scan("-", since="2099-01-01")
    with pytest.raises(ScanError, match="standard input has no such name"):
        FILTER.scan(["-"], until=datetime.date(2000, 1, 1))
