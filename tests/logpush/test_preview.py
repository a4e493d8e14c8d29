"""A job's preview (issue 35): ``Logpush.preview``, ``Job.preview``, ``escpush.preview_job``,
``PreviewResult`` and ``escpush logpush preview``: a folder of gzipped logs and a jobs file
give, in one command, the bytes the job delivers; bad options name themselves and write
nothing."""

from __future__ import annotations

import gzip
import html
import json
from pathlib import Path

import pytest

from cli_support import Cli
from escpush import InvalidInput, PreviewResult, ScanError, preview_job
from escpush.cli import EXIT_OK, EXIT_USAGE
from escpush.testing import Emulator

ZONE = "023e105f4ecef8ad9ca31a8372d0c353"
START = 1_795_305_600  # 2026-11-22T00:00:00Z


def http_lines(n: int, start: int = 0) -> str:
    out = []
    for i in range(start, start + n):
        line = {
            "RayID": f"r{i}",
            "ClientCountry": ["de", "us", "fr"][i % 3],
            "EdgeResponseStatus": 503 if i % 4 == 0 else 200,
            "EdgeStartTimestamp": (START + i * 60) * 1_000_000_000,
            "ClientRequestPath": f"/a/{i}",
            "ClientIP": "192.0.2.1",
        }
        out.append(json.dumps(line, separators=(",", ":")))
    return "\n".join(out) + "\n"


@pytest.fixture
def logs(tmp_path: Path) -> Path:
    """A folder of gzipped log-push files: 3 x 500 lines a minute apart."""
    folder = tmp_path / "logs"
    folder.mkdir()
    for k in range(3):
        (folder / f"part{k}.log.gz").write_bytes(gzip.compress(http_lines(500, k * 500).encode()))
    return folder


JOB = {
    "name": "errors",
    "dataset": "http_requests",
    "destination_conf": "r2://bucket/logs?account-id=A&access-key-id=K&secret-access-key=S",
    "filter": {"where": {"key": "EdgeResponseStatus", "operator": "geq", "value": 500}},
    "output_options": {"field_names": ["RayID", "EdgeStartTimestamp"], "timestamp_format": "rfc3339"},
    "max_upload_records": 1000,
}


def expected_records(lines: str) -> bytes:
    """What the job above delivers: the 5xx lines, two fields, the time in RFC 3339."""
    import datetime

    out = []
    for text in lines.splitlines():
        line = json.loads(text)
        if line["EdgeResponseStatus"] >= 500:
            at = datetime.datetime.fromtimestamp(line["EdgeStartTimestamp"] // 10**9, tz=datetime.timezone.utc)
            stamp = at.strftime("%Y-%m-%dT%H:%M:%SZ")
            out.append(f'{{"RayID":"{line["RayID"]}","EdgeStartTimestamp":"{stamp}"}}\n')
    return "".join(out).encode()


def test_preview_job_counts_and_writes_gzip_batches(logs: Path, tmp_path: Path) -> None:
    counted = preview_job(JOB, logs)
    assert isinstance(counted, PreviewResult)
    assert (counted.lines, counted.kept, counted.delivered) == (1500, 375, 375)
    all_lines = "".join(http_lines(500, k * 500) for k in range(3))
    expected = expected_records(all_lines)
    assert counted.delivered_bytes == len(expected)
    assert counted.compressed_bytes is None
    # 375 records a minute... apart by 4 minutes: the 30 s default interval cuts each alone.
    assert counted.batches == 375
    assert counted.span_seconds == 1499 * 60
    assert counted.timed_lines == 1500
    assert counted.time_field == "EdgeStartTimestamp"
    out = tmp_path / "out"
    written = preview_job({**JOB, "max_upload_interval_seconds": 0}, [str(logs)], out=str(out))
    assert written.batches == 1
    assert written.delivered_bytes == len(expected)
    files = written.files
    assert len(files) == 1 and files[0].startswith("20261122/20261122T000000Z_20261123T005600Z_")
    body = (out / files[0]).read_bytes()
    assert written.compressed_bytes == len(body)
    assert gzip.decompress(body) == expected
    data = written.to_dict()
    assert data["per_input"][0]["source"].endswith("part0.log.gz")
    assert sum(i["delivered_bytes"] for i in data["per_input"]) == data["delivered_bytes"]
    assert "PreviewResult(lines=1500, kept=375, delivered=375, batches=1" in repr(written)


def test_bad_options_name_themselves_and_write_nothing(logs: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    for options, named in [
        ({"field_names": ["RayID"], "output_type": "xml"}, "output_type"),
        ({"field_names": ["RayID"], "record_template": "{{ .RayID | printf }}"}, "record_template"),
        ({"field_names": ["RayID"], "sample_rate": 0}, "sample_rate"),
        ({"field_names": ["RayID"], "sample_rate": 1.5}, "sample_rate"),
    ]:
        with pytest.raises(InvalidInput, match=named):
            preview_job({**JOB, "output_options": options}, logs, out=str(out))
        assert not out.exists()
    with pytest.raises(InvalidInput, match="max_upload_records"):
        preview_job({**JOB, "max_upload_records": 5}, logs)
    # A folder that holds an input is refused.
    with pytest.raises(InvalidInput, match="also an input"):
        preview_job(JOB, logs, out=str(logs.parent))


def test_errors_name_the_input_and_line(tmp_path: Path) -> None:
    bad = tmp_path / "bad.log"
    bad.write_text(http_lines(3) + '{"RayID":\n')
    with pytest.raises(ScanError, match=r"bad\.log` line 4"):
        preview_job(JOB, bad, strict=True, out=str(tmp_path / "out"))
    assert not (tmp_path / "out").exists()
    result = preview_job(JOB, bad)
    assert result.malformed == 1
    assert result.to_dict()["first_malformed"]["line"] == 4


def test_breakdown_and_views(logs: Path) -> None:
    result = preview_job(JOB, logs, group_by="ClientCountry", every="1d", seed=3)
    data = result.to_dict()
    groups = data["breakdown"]["groups"]
    assert sum(g["delivered_bytes"] for g in groups) == result.delivered_bytes
    assert sum(g["delivered"] for g in groups) == result.delivered
    buckets = data["breakdown"]["buckets"]
    assert [b["start"] for b in buckets] == ["2026-11-22T00:00:00Z", "2026-11-23T00:00:00Z"]
    pd = pytest.importorskip("pandas")
    frame = result.to_pandas("groups")
    assert isinstance(frame, pd.DataFrame)
    assert int(frame["delivered_bytes"].sum()) == result.delivered_bytes
    assert list(result.to_pandas()["lines"]) == [500, 500, 500]
    assert "bytes delivered" in result._repr_html_()
    pl = pytest.importorskip("polars")
    assert isinstance(result.to_polars("buckets"), pl.DataFrame)
    pytest.importorskip("matplotlib")
    fig = result.plot(top=2)
    assert [ax.get_title() for ax in fig.axes] == [
        "delivered every 1d of EdgeStartTimestamp (uncompressed, as billed)",
        "delivered by ClientCountry: the top 2 by bytes delivered (uncompressed, as billed)",
    ]


def test_the_display_shows_the_month_or_why_it_cannot(logs: Path, tmp_path: Path) -> None:
    """The notebook display is a table as the other displays are (left-aligned, scoped
    class), with the month projected by the sample's span and priced by the job's destination,
    as `escpush logpush preview` prints it, and its breakdown with each row's GB a month; a
    preview that cannot be projected says why, and does not fail."""
    result = preview_job(JOB, logs, group_by="ClientCountry", every="1d")
    page = result._repr_html_()
    assert page.startswith('<div class="escpush escpush-preview-result">')
    assert "text-align:left" in page
    cost = result.cost()
    assert "a month, projected" in page and html.escape(str(cost)) in page
    assert "GB/month" in page and "by ClientCountry" in page and "every 1d of EdgeStartTimestamp" in page
    cell = '<td style="text-align:left;vertical-align:top;padding:.1em 1em .1em 0;white-space:nowrap;">'
    for g in result.to_dict()["breakdown"]["groups"]:
        assert f"{cell}{g['label']}</td>" in page
    # No destination: the class is unknown; no timestamps: no span. Said, not raised.
    no_destination = {k: v for k, v in JOB.items() if k != "destination_conf"}
    page = preview_job(no_destination, logs)._repr_html_()
    assert "not projected: " in page and "destination class" in page
    untimed = tmp_path / "untimed.log"
    untimed.write_text('{"RayID":"a","EdgeResponseStatus":500}\n{"RayID":"b","EdgeResponseStatus":503}\n')
    page = preview_job(JOB, untimed)._repr_html_()
    assert "not projected: " in page and "timestamp" in page
    # A value from the logs is shown, never interpreted.
    odd = tmp_path / "odd.log"
    odd.write_text(json.dumps({"RayID": "x", "ClientCountry": "<b>x</b>", "EdgeResponseStatus": 500}) + "\n")
    page = preview_job(JOB, odd, group_by="ClientCountry")._repr_html_()
    assert "<b>x</b>" not in page and "&lt;b&gt;x&lt;/b&gt;" in page


def test_the_plot_ranks_groups_by_bytes_delivered_in_decimal_units(tmp_path: Path) -> None:
    """Groups ranked by what they deliver (what is billed), not by the lines read; the axes in
    the bill's decimal units (10^9 bytes a GB), never a bare exponent."""
    pytest.importorskip("matplotlib")
    lines = []
    for i in range(300):
        # `de` has the most lines but its records are short; `us` has fewer, longer ones.
        country, path = ("de", "/") if i % 3 else ("us", "/" + "p" * 5000)
        lines.append(
            json.dumps(
                {
                    "RayID": f"r{i}",
                    "ClientCountry": country,
                    "ClientRequestPath": path,
                    "EdgeResponseStatus": 500,
                    "EdgeStartTimestamp": (START + i) * 10**9,
                }
            )
        )
    sample = tmp_path / "s.log"
    sample.write_text("\n".join(lines) + "\n")
    job = {**JOB, "output_options": {"field_names": ["RayID", "ClientRequestPath"]}}
    result = preview_job(job, sample, group_by="ClientCountry", every="1h")
    fig = result.plot(top=1)
    by_time, by_group = fig.axes
    assert [t.get_text() for t in by_group.get_yticklabels()] == ["us"]
    assert by_group.get_xlabel() == "kB delivered" and by_time.get_ylabel() == "kB delivered"
    fig.canvas.draw()
    assert not by_group.xaxis.get_offset_text().get_text()
    assert not by_time.yaxis.get_offset_text().get_text()
    fig2 = preview_job(job, sample, group_by="ClientCountry").plot(top=2)
    assert [t.get_text() for t in fig2.axes[0].get_yticklabels()] == ["de", "us"]  # the largest on top


def test_a_scans_breakdown_keeps_its_shape(logs: Path) -> None:
    from escpush import Filter

    scan = Filter.parse('{"where":{"key":"EdgeResponseStatus","operator":"geq","value":500}}').scan(
        logs, group_by="ClientCountry"
    )
    row = scan.to_dict()["breakdown"]["groups"][0]
    assert set(row) == {"key", "label", "lines", "matched", "bytes", "matched_bytes", "line_share", "byte_share"}


def test_logpush_preview_and_job_preview_from_the_api(escpush_emulator: Emulator, logs: Path) -> None:
    zone = escpush_emulator.client().zone(ZONE)
    bucket = "r2://bucket/logs?account-id=A&access-key-id=K&secret-access-key=S"
    job = zone.logpush.create_job(
        destination_conf=bucket,
        dataset="http_requests",
        filter=JOB["filter"],
        output_options=JOB["output_options"],
        max_upload_records=1000,
    )
    by_id = zone.logpush.preview(job["id"], logs)
    assert (by_id.kept, by_id.delivered_bytes) == (375, preview_job(JOB, logs).delivered_bytes)
    assert job.preview(logs).delivered_bytes == by_id.delivered_bytes
    assert zone.logpush.preview(dict(JOB), logs).delivered_bytes == by_id.delivered_bytes


def test_cli_one_command_from_a_folder_and_a_jobs_file(cli: Cli, logs: Path, tmp_path: Path) -> None:
    jobs = tmp_path / "jobs.json"
    jobs.write_text(json.dumps({"jobs": [JOB]}))
    run = cli("logpush", "preview", "--jobs", str(jobs), "--name", "errors", "--sample", str(logs), "--json")
    assert run.code == EXIT_OK, run.err
    data = run.json()
    assert (data["lines"], data["kept"], data["delivered"]) == (1500, 375, 375)
    assert data["delivered_bytes"] == preview_job(JOB, logs).delivered_bytes
    text = cli("logpush", "preview", "--jobs", str(jobs), "--name", "errors", "--sample", str(logs))
    assert "bytes delivered (uncompressed, billed)" in text.out
    assert "lines read" in text.out
    out = tmp_path / "out"
    wrote = cli(
        "logpush", "preview", "--dataset", "http_requests", "--output-options", json.dumps(JOB["output_options"]),
        "--filter", json.dumps(JOB["filter"]), "--max-upload-interval-seconds", "0",
        "--sample", str(logs), "--out", str(out), "--json",
    )  # fmt: skip
    assert wrote.code == EXIT_OK, wrote.err
    assert wrote.json()["compressed_bytes"] == sum(p.stat().st_size for p in out.rglob("*.log.gz"))
    bad = cli(
        "logpush", "preview", "--dataset", "http_requests", "--output-options",
        '{"field_names": ["RayID"], "sample_rate": 2}', "--sample", str(logs), "--out", str(tmp_path / "no"),
    )  # fmt: skip
    assert bad.code != EXIT_OK
    assert "sample_rate" in bad.err
    assert not (tmp_path / "no").exists()
    missing = cli("logpush", "preview", "--sample", str(logs))
    assert missing.code == EXIT_USAGE


def test_cli_one_command_gives_the_month_and_the_dollars(cli: Cli, logs: Path, tmp_path: Path) -> None:
    # A folder of gzipped logs and a jobs file: the GB a month and the dollars, in one command.
    # The 1,500 lines are a minute apart (89,940 s); the job pushes to R2, internal: $0.03 a GB.
    jobs = tmp_path / "jobs.json"
    jobs.write_text(json.dumps({"jobs": [JOB]}))
    base = ["logpush", "preview", "--jobs", str(jobs), "--name", "errors", "--sample", str(logs)]
    delivered = preview_job(JOB, logs).delivered_bytes
    run = cli(*base, "--json")
    assert run.code == EXIT_OK, run.err
    cost = run.json()["cost"]
    month_gb = delivered * (30 * 86_400 / 89_940) / 1e9
    assert cost["gb_per_month"] == pytest.approx(month_gb)
    assert cost["dollars_per_month"] == pytest.approx(month_gb * 0.03, abs=1e-9)  # nanodollars
    assert (cost["destination_class"], cost["basis"], cost["allowance_subtracted"]) == ("internal", "span", False)
    text = cli(*base)
    assert "a month, projected" in text.out and "GB/month" in text.out and "$" in text.out, text.out
    assert "internal, $0.03 per GB" in text.out, text.out
    by_requests = cli(*base, "--requests-per-day", "1500000", "--subtract-allowance", "--json").json()["cost"]
    assert by_requests["basis"] == "requests_per_day"
    assert by_requests["gb_per_month"] == pytest.approx(delivered * 1000 * 30 / 1e9)
    assert by_requests["allowance_subtracted"] is True
    # A sample without timestamps: the preview is shown, the month is not (and says why) ...
    untimed = tmp_path / "untimed.ndjson"
    untimed.write_text('{"RayID": "a", "EdgeResponseStatus": 503}\n')
    note = cli("logpush", "preview", "--jobs", str(jobs), "--name", "errors", "--sample", str(untimed))
    assert note.code == EXIT_OK, note.err
    assert "not projected: " in note.out and "--requests-per-day" in note.out, note.out
    # ... unless a cost option asks for it: then it is an error, naming what to give.
    asked = cli("logpush", "preview", "--jobs", str(jobs), "--name", "errors", "--sample", str(untimed),
                "--subtract-allowance")  # fmt: skip
    assert asked.code != EXIT_OK and "no timestamps" in asked.err, asked.err
    nowhere = cli("logpush", "preview", "--dataset", "http_requests", "--output-options",
                  '{"field_names": ["RayID"]}', "--sample", str(logs), "--scale", "2")  # fmt: skip
    assert nowhere.code != EXIT_OK and "give a destination class" in nowhere.err, nowhere.err
    assert cli("logpush", "preview", "--dataset", "http_requests", "--output-options", '{"field_names": ["RayID"]}',
               "--sample", str(logs), "--scale", "2", "--destination-class", "external").code == EXIT_OK  # fmt: skip
    # A destination given as an option is the job's: its class prices it (R2: internal).
    given = cli("logpush", "preview", "--dataset", "http_requests", "--output-options", '{"field_names": ["RayID"]}',
                "--destination-conf", JOB["destination_conf"], "--sample", str(logs), "--json")  # fmt: skip
    assert given.code == EXIT_OK, given.err
    assert given.json()["cost"]["destination_class"] == "internal"
    assert "secret-access-key=S" not in given.out


def test_cli_job_id_from_the_api(cli: Cli, api: Emulator, logs: Path) -> None:
    zone = api.client().zone(ZONE)
    job = zone.logpush.create_job(
        destination_conf="r2://bucket/logs?account-id=A&access-key-id=K&secret-access-key=S",
        dataset="http_requests",
        filter=JOB["filter"],
        output_options=JOB["output_options"],
    )
    run = cli("logpush", "preview", "--zone", ZONE, "--job-id", str(job["id"]), "--sample", str(logs), "--json")
    assert run.code == EXIT_OK, run.err
    assert run.json()["delivered_bytes"] == preview_job(JOB, logs).delivered_bytes
    assert "secret-access-key=S" not in run.out


def test_cli_writes_the_batches_to_stdout(tmp_path: Path) -> None:
    import subprocess
    import sys

    sample = tmp_path / "a.log"
    sample.write_text(http_lines(40))
    jobs = tmp_path / "jobs.json"
    jobs.write_text(json.dumps({"jobs": [JOB]}))
    argv = ["logpush", "preview", "--jobs", str(jobs), "--name", "errors", "--sample", str(sample), "--out", "-"]
    done = subprocess.run([sys.executable, "-m", "escpush", *argv, "--no-gzip"], capture_output=True, check=True)
    assert done.stdout == expected_records(http_lines(40))
    assert "bytes delivered" in done.stderr.decode()
    zipped = subprocess.run([sys.executable, "-m", "escpush", *argv, "--json"], capture_output=True, check=True)
    assert gzip.decompress(zipped.stdout) == expected_records(http_lines(40))
    assert json.loads(zipped.stderr)["compressed_bytes"] == len(zipped.stdout)


def test_cli_json_preview_imports_only_what_it_prints(logs: Path, tmp_path: Path) -> None:
    """`--count --json` is the benchmark's preview (issue 35, at most 25% more CPU than a scan):
    its start-up imports neither the text table's views (nor the modules they pull in) nor
    `secrets`, which only a result holding an infinity needs; the text run still has its table."""
    import subprocess
    import sys

    jobs = tmp_path / "jobs.json"
    jobs.write_text(json.dumps({"jobs": [JOB]}))
    argv = ["logpush", "preview", "--jobs", str(jobs), "--name", "errors", "--sample", str(logs), "--count"]
    probe = (
        "import runpy, sys\n"
        "sys.argv = ['escpush', *sys.argv[1:]]\n"
        "try:\n"
        "    runpy.run_module('escpush', run_name='__main__')\n"
        "finally:\n"
        "    print(sorted(m for m in ('escpush._preview_views', 'secrets') if m in sys.modules), file=sys.stderr)\n"
    )
    done = subprocess.run([sys.executable, "-c", probe, *argv, "--json"], capture_output=True, text=True)
    assert done.returncode == EXIT_OK, done.stderr
    assert json.loads(done.stdout)["kept"] > 0
    assert done.stderr.strip().splitlines()[-1] == "[]"
    shown = subprocess.run([sys.executable, "-c", probe, *argv], capture_output=True, text=True)
    assert shown.returncode == EXIT_OK, shown.stderr
    assert "bytes delivered" in shown.stdout
    assert "escpush._preview_views" in shown.stderr.strip().splitlines()[-1]


def test_the_preview_table_says_bytes_in_the_bills_decimal_units() -> None:
    """The bill counts a GB as 10^9 bytes (the cost's GB/month): the table's bytes are in the
    same decimal units, not MiB."""
    from escpush._preview_views import table_rows

    data = {
        "lines": 1000, "kept": 900, "delivered": 900, "batches": 3, "delivered_bytes": 231_236_304,
        "compressed_bytes": 1_500, "bytes_read": 1_476_015_331, "malformed": 0, "span_seconds": None,
    }  # fmt: skip
    rows = dict(table_rows(data))
    assert rows["bytes delivered (uncompressed, billed)"] == "231,236,304 (231.2 MB)"
    assert rows["compressed (gzip written)"] == "1,500 (1.5 kB)"
    assert rows["bytes read"] == "1,476,015,331 (1.5 GB)"
    assert (
        dict(table_rows({**data, "delivered_bytes": 512}))["bytes delivered (uncompressed, billed)"]
        == "512 (512 bytes)"
    )
