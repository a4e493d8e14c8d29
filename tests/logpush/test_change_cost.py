"""What a change costs (issue 35, "Changes"): ``apply(sample=...)`` / ``apply --dry-run
--sample``, ``ensure_job(sample=...)`` / ``ensure --sample`` and ``check_terraform_plan(sample=)``
/ ``check-plan --sample`` preview each job that changes before and after over the sample and
give the month before, after, and the difference in core's wording, before anything is sent."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

import escpush
from cli_support import Cli
from escpush import InvalidInput, ScanError, preview_job
from escpush.cli import EXIT_OK
from escpush.testing import Emulator

ZONE = "023e105f4ecef8ad9ca31a8372d0c353"
START = 1_795_305_600  # 2026-11-22T00:00:00Z
S3 = "s3://logs/http?region=us-east-1&access-key-id=AKID&secret-access-key=SAK-SECRET"
WIDE = ["RayID", "ClientIP", "ClientCountry", "ClientRequestPath", "EdgeResponseStatus", "EdgeStartTimestamp"]
NARROW = ["RayID", "EdgeResponseStatus"]


def request(i: int) -> dict[str, object]:
    return {
        "RayID": f"r{i:05}",
        "ClientIP": "192.0.2.1",
        "ClientCountry": ["de", "us"][i % 2],
        "ClientRequestPath": f"/shop/item/{i}",
        "EdgeResponseStatus": 503 if i % 5 == 0 else 200,
        "EdgeStartTimestamp": (START + i * 90) * 10**9,
    }


@pytest.fixture
def logs(tmp_path: Path) -> Path:
    """A day of requests, one every 90 s (86,310 s between the first and the last)."""
    folder = tmp_path / "logs"
    folder.mkdir()
    lines = [json.dumps(request(i)) for i in range(960)]
    (folder / "day.log.gz").write_bytes(gzip.compress(("\n".join(lines) + "\n").encode()))
    return folder


def job(fields: list[str], **more: object) -> dict[str, object]:
    return {"name": "requests", "dataset": "http_requests", "destination_conf": S3, "enabled": True,
            "output_options": {"field_names": fields}, **more}  # fmt: skip


def month(logs: Path, fields: list[str]) -> float:
    """The month of a job over the sample, as a preview and its cost say."""
    return preview_job(job(fields), logs).cost().gb_per_month


def test_apply_prices_each_change_before_sending(escpush_emulator: Emulator, logs: Path) -> None:
    zone = escpush_emulator.client().zone(ZONE)
    stored = zone.logpush.create_job(**job(WIDE))
    plan = zone.logpush.apply(
        {"jobs": [job(NARROW), {**job(WIDE), "name": "new", "destination_conf": "r2://b/x?account-id=a"}]},
        dry_run=True,
        sample=logs,
    )
    update, create = plan["jobs"]
    assert (update["action"], create["action"]) == ("update", "create")
    before, after = month(logs, WIDE), month(logs, NARROW)
    d = update["delivery"]
    assert d["before"]["gb_per_month"] == pytest.approx(before)
    assert d["after"]["gb_per_month"] == pytest.approx(after)
    assert d["gb_per_month"] == pytest.approx(after - before) and d["gb_per_month"] < 0
    assert d["change"].startswith("-") and "GB/month" in d["change"] and "$" in d["change"]
    assert "GB/month, $" in d["before"]["short"] and "GB/month" in d["before"]["text"]
    # A creation: nothing before; its month at the internal rate (R2).
    c = create["delivery"]
    assert c["before"] is None and c["after"]["gb_per_month"] == pytest.approx(before)
    assert c["after"]["dollars_per_month"] == pytest.approx(before * 0.03, abs=1e-9)
    # A dry run: nothing sent, the job is as it was.
    assert zone.logpush.job(stored["id"])["output_options"]["field_names"] == WIDE
    assert "SAK-SECRET" not in json.dumps(plan)
    # requests_per_day scales the sample's 960 lines instead of its span.
    by_requests = zone.logpush.apply({"jobs": [job(NARROW)]}, dry_run=True, sample=logs, requests_per_day=9600)
    assert by_requests["jobs"][0]["delivery"]["after"]["gb_per_month"] == pytest.approx(
        preview_job(job(NARROW), logs).delivered_bytes * 10 * 30 / 1e9
    )


def test_a_disabled_job_delivers_nothing(escpush_emulator: Emulator, logs: Path) -> None:
    # Turning a job on adds its whole month; a job created disabled (the API's default) costs
    # nothing yet, and says what it would cost enabled.
    zone = escpush_emulator.client().zone(ZONE)
    zone.logpush.create_job(**job(WIDE, enabled=False))
    on = zone.logpush.apply({"jobs": [job(WIDE)]}, dry_run=True, sample=logs)["jobs"][0]["delivery"]
    assert on["before"]["gb_per_month"] == 0 and on["before"]["short"].startswith("nothing (disabled; enabled: ")
    assert on["gb_per_month"] == pytest.approx(month(logs, WIDE))
    new = {**job(NARROW, enabled=None), "name": "new"}
    del new["enabled"]
    created = zone.logpush.apply({"jobs": [job(WIDE, enabled=False), new]}, dry_run=True, sample=logs)["jobs"][1]
    assert created["action"] == "create" and created["delivery"]["after"]["enabled"] is False
    assert created["delivery"]["gb_per_month"] == 0 and created["delivery"]["change"] == "no change"


def test_a_stored_job_escpush_cannot_read_is_not_priced(escpush_emulator: Emulator, logs: Path) -> None:
    # A job the API holds with a field list escpush cannot deliver (none): its side is left
    # unpriced with a note, and the change goes on.
    zone = escpush_emulator.client().zone(ZONE)
    zone.logpush.create_job(name="requests", dataset="http_requests", destination_conf=S3, enabled=True)
    d = zone.logpush.apply({"jobs": [job(NARROW)]}, dry_run=True, sample=logs)["jobs"][0]["delivery"]
    assert d["before"] is None and "not priced" in d["note"], d
    assert d["after"]["gb_per_month"] == pytest.approx(month(logs, NARROW))


def test_a_sample_that_cannot_be_read_sends_nothing(escpush_emulator: Emulator, logs: Path, tmp_path: Path) -> None:
    zone = escpush_emulator.client().zone(ZONE)
    stored = zone.logpush.create_job(**job(WIDE))
    missing = tmp_path / "nowhere"
    with pytest.raises(ScanError):
        zone.logpush.apply({"jobs": [job(NARROW)]}, sample=missing)
    with pytest.raises(ScanError):
        zone.logpush.ensure_job(**job(NARROW), sample=missing)  # type: ignore[arg-type]
    assert zone.logpush.job(stored["id"])["output_options"]["field_names"] == WIDE
    with pytest.raises(InvalidInput, match="stdin"):
        zone.logpush.apply({"jobs": [job(NARROW)]}, dry_run=True, sample="-")
    with pytest.raises(InvalidInput, match="give the sample too"):
        zone.logpush.apply({"jobs": [job(NARROW)]}, dry_run=True, scale=2.0)


def test_ensure_job_prices_the_change_then_writes_it(escpush_emulator: Emulator, logs: Path) -> None:
    zone = escpush_emulator.client().zone(ZONE)
    zone.logpush.create_job(**job(WIDE))
    result = zone.logpush.ensure_job(**job(NARROW), sample=logs)  # type: ignore[arg-type]
    assert result["action"] == "updated"
    assert result["delivery"]["gb_per_month"] == pytest.approx(month(logs, NARROW) - month(logs, WIDE))
    assert result["job"]["output_options"]["field_names"] == NARROW
    again = zone.logpush.ensure_job(**job(NARROW), sample=logs)  # type: ignore[arg-type]
    assert again["action"] == "unchanged" and "delivery" not in again


def test_the_cli_shows_a_changes_price(cli: Cli, api: Emulator, logs: Path, tmp_path: Path) -> None:
    api.client().zone(ZONE).logpush.create_job(**job(WIDE))
    jobs = tmp_path / "jobs.json"
    jobs.write_text(json.dumps({"jobs": [job(NARROW)]}))
    run = cli("logpush", "apply", str(jobs), "--zone", ZONE, "--dry-run", "--sample", str(logs))
    assert run.code == EXIT_OK, run.err
    assert "a month over the sample: " in run.out and " -> " in run.out, run.out
    line = next(x for x in run.out.splitlines() if "a month over the sample" in x)
    assert line.rstrip().split(": ")[-1].startswith("-"), line
    assert "SAK-SECRET" not in run.out
    as_json = cli("logpush", "apply", str(jobs), "--zone", ZONE, "--dry-run", "--sample", str(logs), "--json")
    assert as_json.json()["jobs"][0]["delivery"]["gb_per_month"] < 0
    lonely = cli("logpush", "apply", str(jobs), "--zone", ZONE, "--dry-run", "--scale", "2")
    assert lonely.code != EXIT_OK and "--sample" in lonely.err


def tf_plan(before: list[str], after: list[str]) -> dict[str, object]:
    side = lambda fields: {  # noqa: E731
        "zone_id": ZONE, "dataset": "http_requests", "destination_conf": S3, "name": "requests", "enabled": True,
        "filter": None, "output_options": {"field_names": fields, "cve_2021_44228": False},
    }  # fmt: skip
    return {"format_version": "1.2", "resource_changes": [{
        "address": "cloudflare_logpush_job.requests", "mode": "managed", "type": "cloudflare_logpush_job",
        "name": "requests", "change": {"actions": ["update"], "before": side(before), "after": side(after),
                                        "after_unknown": {}, "before_sensitive": {}, "after_sensitive": {}},
    }]}  # fmt: skip


def test_check_plan_prices_a_terraform_change(cli: Cli, logs: Path, tmp_path: Path) -> None:
    report = escpush.check_terraform_plan(tf_plan(WIDE, NARROW), sample=logs)
    d = report["changes"][0]["delivery"]
    assert d["gb_per_month"] == pytest.approx(month(logs, NARROW) - month(logs, WIDE))
    path = tmp_path / "plan.json"
    path.write_text(json.dumps(tf_plan(WIDE, NARROW)))
    run = cli("logpush", "check-plan", str(path), "--sample", str(logs))
    assert "a month over the sample: " in run.out, run.out
    assert "SAK-SECRET" not in run.out
    # A job the plan leaves without field_names names its address.
    with pytest.raises(InvalidInput, match=r"cloudflare_logpush_job\.requests"):
        escpush.check_terraform_plan(tf_plan(WIDE, []), sample=logs)
