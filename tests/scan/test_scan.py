"""Filter.scan and Filter.select end to end on generated log files."""

from __future__ import annotations

import gzip
import json
import os
import pickle
import random
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings

import escpush
from escpush import Filter, InvalidInput, ScanError, ScanResult
from reference_eval import evaluate
from strategies import FILTERS

KEYS = ["A", "B", "C", 'Héllo "k"']


def random_value(rng: random.Random, depth: int = 0) -> Any:
    kind = rng.randrange(9 if depth < 2 else 7)
    if kind == 0:
        return None
    if kind == 1:
        return rng.random() < 0.5
    if kind == 2:
        return rng.choice([0, 1, 200, 404, 500, -5, 2**63, -(2**63), 10**30])
    if kind == 3:
        return rng.choice([200.0, -0.5, 1e300, 2.5])
    if kind in (4, 5, 6):
        return rng.choice(["", "200", "0200", "a", "ab", "é", '"', "\\", "\n", "true", "x/y", "😀"])
    if kind == 7:
        return [random_value(rng, depth + 1) for _ in range(rng.randrange(4))]
    return {rng.choice(KEYS): random_value(rng, depth + 1) for _ in range(rng.randrange(3))}


def random_line(rng: random.Random) -> str:
    record = {k: random_value(rng) for k in KEYS if rng.random() < 0.7}
    return json.dumps(record, ensure_ascii=rng.random() < 0.5, separators=(",", ":") if rng.random() < 0.5 else None)


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    """Three files: plain, gzip, and plain with blank and malformed lines."""
    rng = random.Random(7)
    d = tmp_path_factory.mktemp("logs")
    plain = d / "a.ndjson"
    plain.write_text("".join(random_line(rng) + "\n" for _ in range(700)))
    zipped = d / "b.ndjson.gz"
    zipped.write_bytes(gzip.compress("".join(random_line(rng) + "\n" for _ in range(500)).encode()))
    mixed = d / "c.ndjson"
    lines = [random_line(rng) for _ in range(300)]
    lines[10] = ""
    lines[20] = '{"A": 1,'
    lines[30] = "[1, 2]"
    lines[40] = "   "
    mixed.write_text("\n".join(lines))  # no final line break
    return [plain, zipped, mixed]


def read_lines(paths: list[Path]) -> list[str]:
    out: list[str] = []
    for p in paths:
        data = gzip.decompress(p.read_bytes()) if p.suffix == ".gz" else p.read_bytes()
        out.extend(data.decode().split("\n"))
        if out and out[-1] == "":
            out.pop()
    return out


@settings(max_examples=40, deadline=None)
@given(FILTERS)
def test_scan_agrees_with_matches_and_the_reference(logs: list[Path], doc: dict[str, Any]) -> None:
    f = Filter.from_dict(doc)
    expected = 0
    total = 0
    for line in read_lines(logs):
        if not line.strip():
            continue
        total += 1
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if not isinstance(record, dict):
            continue
        assert f.matches(record) == evaluate(doc["where"], record)
        expected += evaluate(doc["where"], record)
    r = f.scan(logs)
    assert (r.total, r.matched, r.malformed) == (total, expected, 2)
    assert r.first_malformed == (str(logs[2]), 21, "byte 8: the line ends inside the object")


def test_select_writes_the_matching_lines_in_order(logs: list[Path], tmp_path: Path) -> None:
    f = escpush.field("A").is_in(["200", "a", "true"]) | escpush.field("B").contains("é")
    out = tmp_path / "out.ndjson"
    r = f.select(logs, out)
    kept = []
    for line in read_lines(logs):
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if isinstance(record, dict) and f.matches(record):
            kept.append(line + "\n")
    assert out.read_text() == "".join(kept)
    assert r.matched == len(kept)
    # Bytes kept: the lines with their line breaks (c.ndjson's last line has none).
    last = read_lines(logs[2:])[-1]
    unterminated = int(kept[-1] == last + "\n")
    assert r.matched_bytes == len("".join(kept).encode()) - unterminated
    assert r.summary == f"keeps {100 * r.line_share:.1f}% of lines, {100 * r.byte_share:.1f}% of bytes"
    counted = f.scan(logs)
    assert counted == ScanResult(
        r.total,
        r.matched,
        r.malformed,
        r.bytes,
        counted.seconds,
        r.first_malformed,
        matched_bytes=r.matched_bytes,
        per_input=r.per_input,
    )
    # Per input: the same counts, each input once, in order, summing to the whole.
    assert [p.source for p in r.per_input] == [str(p) for p in logs]
    for name in ("total", "matched", "malformed", "bytes", "matched_bytes"):
        assert sum(getattr(p, name) for p in r.per_input) == getattr(r, name), name
    for threads in (1, 2, 5):
        again = tmp_path / f"again-{threads}.ndjson"
        assert f.select([str(p) for p in logs], again, threads=threads).matched == r.matched
        assert again.read_bytes() == out.read_bytes()


def test_scan_takes_one_path_str_or_pathlike(logs: list[Path]) -> None:
    f = escpush.field("A").eq("a")
    assert f.scan(logs[0]).total == 700
    assert f.scan(str(logs[1])).total == 500
    assert f.scan((logs[0], logs[1])).total == 1200
    with pytest.raises(TypeError, match="a log input is a path"):
        f.scan(3)  # type: ignore[arg-type]


def test_unreadable_inputs_raise_scan_error_naming_them(tmp_path: Path) -> None:
    f = escpush.field("A").eq("a")
    missing = tmp_path / "missing.ndjson"
    with pytest.raises(ScanError, match=r"cannot open `.*missing\.ndjson`") as info:
        f.scan(missing)
    assert info.value.path == str(missing) and info.value.line is None
    assert isinstance(info.value, escpush.EscpushError)
    bad = tmp_path / "bad.gz"
    bad.write_bytes(gzip.compress(b'{"A":"a"}\n' * 10_000)[:200])
    with pytest.raises(ScanError, match=r"bad\.gz` is not valid gzip data"):
        f.scan(bad)
    with pytest.raises(ScanError, match="cannot open"):
        f.select(bad, tmp_path / "no-such-dir" / "out.ndjson")


def test_strict_mode_stops_at_the_first_malformed_line(tmp_path: Path) -> None:
    p = tmp_path / "s.ndjson"
    p.write_bytes(b'{"A":"a"}\n\n{"A":"a"}\n{"A":\xff}\n{"A":"a"}\n')
    f = escpush.field("A").eq("a")
    r = f.scan(p)
    assert (r.total, r.matched, r.malformed) == (4, 3, 1)
    assert r.first_malformed == (str(p), 4, "byte 5: the bytes are not UTF-8")
    with pytest.raises(ScanError, match=r"line 4 is malformed: byte 5") as info:
        f.scan(p, strict=True)
    assert (info.value.path, info.value.line) == (str(p), 4)
    # A failed select leaves no output, and an existing one as it was.
    out = tmp_path / "out.ndjson"
    with pytest.raises(ScanError):
        f.select(p, out, strict=True)
    assert not out.exists()
    out.write_text("old\n")
    with pytest.raises(ScanError):
        f.select(p, out, strict=True)
    assert out.read_text() == "old\n"
    assert sorted(x.name for x in tmp_path.iterdir()) == ["out.ndjson", "s.ndjson"], "no temporary file left"
    err = pickle.loads(pickle.dumps(info.value))
    assert (str(err), err.path, err.line) == (str(info.value), str(p), 4)


def test_select_refuses_to_overwrite_an_input(logs: list[Path], tmp_path: Path) -> None:
    with pytest.raises(InvalidInput, match="is also an input"):
        escpush.field("A").eq("a").select(logs, logs[1])
    # A hard link to an input is the same file: refused, the input kept whole.
    copy = tmp_path / "in.ndjson"
    copy.write_bytes(logs[0].read_bytes())
    link = tmp_path / "link.ndjson"
    os.link(copy, link)
    with pytest.raises(InvalidInput, match="is also an input"):
        escpush.field("A").eq("a").select([copy], link)
    assert copy.read_bytes() == logs[0].read_bytes()


def test_select_keeps_an_existing_output_when_an_input_cannot_be_read(logs: list[Path], tmp_path: Path) -> None:
    out = tmp_path / "out.ndjson"
    out.write_text("kept\n")
    with pytest.raises(ScanError, match=r"missing\.ndjson"):
        escpush.field("A").eq("a").select([logs[0], tmp_path / "missing.ndjson"], out)
    assert out.read_text() == "kept\n"
    # On success it is replaced.
    r = escpush.field("A").eq("a").select([logs[0]], out)
    assert len(out.read_text().splitlines()) == r.matched


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="needs Linux /proc")
def test_proc_files_are_read_though_they_report_no_size() -> None:
    r = escpush.field("A").eq("a").scan("/proc/self/status")
    assert r.total > 0 and r.bytes > 0 and r.malformed == r.total


def test_gzip_with_zero_padding_scans_as_gzip_reads_it(tmp_path: Path) -> None:
    p = tmp_path / "padded.ndjson.gz"
    p.write_bytes(gzip.compress(b'{"A":"a"}\n{"A":"b"}\n') + bytes(512))
    r = escpush.field("A").eq("a").scan(p)
    assert (r.total, r.matched, r.malformed) == (2, 1, 0)


def test_progress_is_called_and_its_exceptions_stop_the_scan(tmp_path: Path) -> None:
    p = tmp_path / "big.ndjson"
    p.write_text(('{"A":"a","B":"' + "x" * 200 + '"}\n') * 20_000)
    seen: list[tuple[int, int]] = []
    r = escpush.field("A").eq("a").scan(p, progress=lambda b, n: seen.append((b, n)))
    assert seen and seen[-1] == (r.bytes, r.total) == (p.stat().st_size, 20_000)

    def stop(b: int, n: int) -> None:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        escpush.field("A").eq("a").scan(p, progress=stop)


def test_scan_result_looks_like_its_constructor() -> None:
    r = ScanResult(10, 3, malformed=1, bytes=120, seconds=0.25, first_malformed=("x.ndjson", 7, "byte 0: ..."))
    assert repr(r) == (
        "ScanResult(total=10, matched=3, malformed=1, bytes=120, seconds=0.250, "
        "first_malformed=('x.ndjson', 7, 'byte 0: ...'))"
    )
    kept = ScanResult(4, 1, bytes=100, matched_bytes=20, source="a.gz")
    assert repr(kept) == (
        "ScanResult(total=4, matched=1, malformed=0, bytes=100, seconds=0.000, matched_bytes=20, source='a.gz')"
    )
    assert eval(repr(kept), {"ScanResult": ScanResult}) == kept
    assert (kept.line_share, kept.byte_share, kept.summary) == (0.25, 0.2, "keeps 25.0% of lines, 20.0% of bytes")
    assert ScanResult(0, 0).summary == "read no lines" and ScanResult(0, 0).line_share is None
    assert ScanResult(100_000, 1, bytes=10**6, matched_bytes=10).summary == "keeps 0.001% of lines, 0.001% of bytes"
    assert eval(repr(r), {"ScanResult": ScanResult}) == r
    assert repr(ScanResult(1, 0)) == "ScanResult(total=1, matched=0, malformed=0, bytes=0, seconds=0.000)"
    assert (r.total, r.matched, r.malformed, r.bytes, r.seconds) == (10, 3, 1, 120, 0.25)
