"""`escpush filter scan`: counts, --count, --output, --strict, stdin, and bad input."""

from __future__ import annotations

import gzip
import io
import subprocess
import sys
from pathlib import Path

import pytest

from escpush.cli import main

FILTER = '{"where":{"key":"EdgeResponseStatus","operator":"geq","value":"500"}}'
LINES = [
    '{"EdgeResponseStatus":503,"ClientRequestHost":"a.example.com"}',
    '{"EdgeResponseStatus":200}',
    "",
    '{"EdgeResponseStatus":"503"}',
    '{"EdgeResponseStatus":500',
    '{"EdgeResponseStatus":599.5}',
]


@pytest.fixture
def logs(tmp_path: Path) -> Path:
    p = tmp_path / "logs.ndjson"
    p.write_text("\n".join(LINES) + "\n")
    return p


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["filter", "scan", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_counts_in_words(capsys: pytest.CaptureFixture[str], logs: Path) -> None:
    code, out, err = run(capsys, FILTER, str(logs))
    assert code == 0 and err == ""
    first, second, third = out.splitlines()
    assert first == "2 of 5 lines match, 92 bytes of 175 bytes: keeps 40.0% of lines, 52.6% of bytes"
    assert second.startswith("read 1 input, 175 bytes in ")
    assert third == f"1 malformed line; the first: {logs} line 5: byte 25: the line ends inside the object"


def test_count_only(capsys: pytest.CaptureFixture[str], logs: Path, tmp_path: Path) -> None:
    gz = tmp_path / "more.ndjson.gz"
    gz.write_bytes(gzip.compress(logs.read_bytes()))
    assert run(capsys, FILTER, str(logs), str(gz), "--count") == (0, "4\n", "")


def test_filter_from_a_file_or_stdin(capsys: pytest.CaptureFixture[str], logs: Path, tmp_path: Path) -> None:
    f = tmp_path / "f.json"
    f.write_text(FILTER)
    assert run(capsys, str(f), str(logs), "--count") == (0, "2\n", "")
    sys_stdin = sys.stdin
    try:
        sys.stdin = io.StringIO(FILTER)
        assert run(capsys, "-", str(logs), "--count") == (0, "2\n", "")
    finally:
        sys.stdin = sys_stdin


def test_output_writes_the_matching_lines(capsys: pytest.CaptureFixture[str], logs: Path, tmp_path: Path) -> None:
    out_file = tmp_path / "kept.ndjson"
    code, out, _ = run(capsys, FILTER, str(logs), "--output", str(out_file))
    assert code == 0
    assert out_file.read_text() == LINES[0] + "\n" + LINES[5] + "\n"
    assert out.splitlines()[-1] == f"matching lines written to {out_file}"


def test_bad_input_exits_2_naming_it(capsys: pytest.CaptureFixture[str], logs: Path, tmp_path: Path) -> None:
    code, out, err = run(capsys, FILTER, str(tmp_path / "missing.ndjson"))
    assert (code, out) == (2, "")
    assert err == f"escpush: cannot open `{tmp_path / 'missing.ndjson'}`: No such file or directory (os error 2)\n"
    code, _, err = run(capsys, '{"where": {"key": "A", "operator": "gte", "value": "1"}}', str(logs))
    assert code == 2 and "did you mean `geq`?" in err
    code, _, err = run(capsys, str(tmp_path / "nofilter.json"), str(logs))
    assert code == 2 and "cannot read the filter file" in err
    code, _, err = run(capsys, FILTER, str(logs), "--strict")
    assert code == 2 and err.endswith(
        "line 5 is malformed: byte 25: the line ends inside the object; "
        "counts so far: 0 of 1 inputs read in full, 4 lines read, 1 matching, 1 malformed\n"
    )
    code, _, err = run(capsys, "-", "-")
    assert code == 2 and "cannot both be -" in err
    with pytest.raises(SystemExit) as exit_info:
        main(["filter", "scan", FILTER, str(logs), "--count", "--output", "x"])
    assert exit_info.value.code == 2


def test_logs_from_stdin_through_the_entry_point(logs: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "escpush", "filter", "scan", FILTER, "-", "--count"],
        input=logs.read_bytes(),
        capture_output=True,
        check=False,
    )
    assert (done.returncode, done.stdout, done.stderr) == (0, b"2\n", b"")


def test_a_time_range_is_refused_for_stdin(logs: Path) -> None:
    """Issue 22 item 6: --since/--until read a range from a file's name; stdin has none, so
    the range is refused (as for a named file without one), not ignored."""
    for option in ("--since", "--until"):
        done = subprocess.run(
            [sys.executable, "-m", "escpush", "filter", "scan", FILTER, "-", option, "2099-01-01"],
            input=logs.read_bytes(),
            capture_output=True,
            check=False,
        )
        assert done.returncode == 2, done
        assert done.stdout == b""
        assert b"`-`: --since/--until pick files by the time range" in done.stderr
        assert b"standard input has no such name" in done.stderr


def test_group_by_and_every_print_tables_with_shares(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    import json

    logs = tmp_path / "logs.ndjson"
    rows = [("cn", 503, "2026-11-22T00:10:00Z")] * 3 + [("us", 200, 1795305630)] * 2 + [("us", 500, "bad")]
    logs.write_text(
        "".join(
            json.dumps({"ClientCountry": c, "EdgeResponseStatus": s, "EdgeStartTimestamp": t}) + "\n"
            for c, s, t in rows
        )
        + '{"EdgeResponseStatus": 200}\n'
    )
    argv = [FILTER, str(logs), "--group-by", "ClientCountry", "--every", "1h", "--top", "1"]
    code, out, err = run(capsys, *argv)
    assert (code, err) == (0, "")
    lines = out.splitlines()
    at = lines.index("by ClientCountry: 3 groups, the 1 with the most lines:")
    assert lines[at + 1].split() == ["group", "lines", "of", "all", "kept", "kept", "%", "bytes", "kept", "of", "bytes"]
    assert lines[at + 2].split()[:6] == ["cn", "3", "42.9%", "3", "100.0%", "291"]
    assert lines[at + 3].split()[:6] == ["(other:", "2", "groups)", "4", "57.1%", "1"]
    assert "every 1h of EdgeStartTimestamp:" in lines
    assert any(line.split()[:3] == ["2026-11-22T00:00:00Z", "5", "71.4%"] for line in lines)
    assert any(line.split()[:4] == ["no", "time", "1", "14.3%"] for line in lines)
    assert any(line.split()[:4] == ["unreadable", "time", "1", "14.3%"] for line in lines)
    code, out, err = run(capsys, *argv, "--json")
    data = json.loads(out)
    assert data["breakdown"]["groups"][0]["key"] == {"ClientCountry": "cn"}
    assert data["breakdown"]["other"]["groups"] == 2
    assert [b["start"] for b in data["breakdown"]["buckets"]] == ["2026-11-22T00:00:00Z"]
    assert data["inputs"] == 1 and data["total"] == 7
    # Mistakes are usage errors naming the option's problem.
    code, out, err = run(capsys, FILTER, str(logs), "--group-by", "ClientCountyr", "--dataset", "http_requests")
    assert code == 2 and "did you mean `ClientCountry`" in err
    code, out, err = run(capsys, FILTER, str(logs), "--every", "soon")
    assert code == 2 and "not an interval" in err
    # Options that need another name it, by its option.
    for extra, message in (
        (["--count", "--group-by", "ClientCountry"], "--count prints only the number of matching lines"),
        (["--top", "3"], "--top lists the largest groups of --group-by: give --group-by too"),
        (["--time-field", "EdgeStartTimestamp"], "--time-field names the field of the --every buckets"),
    ):
        code, out, err = run(capsys, FILTER, str(logs), *extra)
        assert (code, out) == (2, "") and message in err, err
        assert "group_by" not in err and "time_field" not in err
    # A field no line holds is said, misspelt or not: without --dataset nothing else checks it.
    code, out, err = run(capsys, FILTER, str(logs), "--group-by", "ClientCountyr", "--every", "1h", "--time-field", "T")
    assert code == 0, err
    assert "note: no line read has ClientCountyr (misspelt? --dataset checks field names)" in out.splitlines()
    assert "note: no line read has T (misspelt? --dataset checks field names)" in out.splitlines()
    code, out, err = run(capsys, *argv[:4])
    assert "note:" not in out


def test_json_output_is_strict_json(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """A group value beyond a double (``1e400``) is written as the number ``1e999``, not the
    bare ``Infinity`` that strict JSON parsers refuse, nor the string ``"Infinity"``, which is
    another group (issue 33, item 17)."""
    import json

    logs = tmp_path / "logs.ndjson"
    logs.write_text('{"S":1e400}\n{"S":-1e400}\n{"S":200}\n{"S":"Infinity"}\n')

    def refuse(constant: str) -> None:
        raise ValueError(constant)

    code, out, err = run(capsys, "S == 200", str(logs), "--group-by", "S", "--json")
    assert code == 0, err
    data = json.loads(out, parse_constant=refuse)
    keys = sorted(json.dumps(g["key"]["S"]) for g in data["breakdown"]["groups"])
    assert keys == ['"Infinity"', "-Infinity", "200", "Infinity"]
    assert '"S": 1e999' in out and '"S": -1e999' in out
