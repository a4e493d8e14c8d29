"""What a job costs, from Python and the command line: ``escpush.Pricing`` (the published
table, overrides), ``project_cost`` (a sample made a month), ``account_cost``,
``monthly_cost`` (pricing.mdx's worked example), ``Cost.change_to`` and ``escpush logpush
pricing``. The rules are core's (``crates/escpush-core/src/logpush/cost/``); these check the
conversion."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

import escpush
from cli_support import Cli
from escpush import InvalidInput, Pricing, account_cost, monthly_cost, project_cost
from escpush.cli import EXIT_OK, EXIT_USAGE

GB = 10**9
SECRET = "SAK-cost-secret"
S3 = f"s3://logs/http?region=us-east-1&access-key-id=AKID&secret-access-key={SECRET}"
R2 = f"r2://logs/{{DATE}}?account-id=abc&access-key-id=AKID&secret-access-key={SECRET}"


def test_the_worked_example_of_pricing_mdx() -> None:
    cost = monthly_cost(internal_gb=40, external_gb=60, transform_gb=5, subtract_allowance=True)
    assert cost.dollars_per_month == 4.11
    assert [c["dollars"] for c in cost.components] == [0.45, 3.5, 0.16]
    assert cost.gb_per_month == 100.0
    assert cost.destination_class is None
    # Deliveries of both classes: no one rate; one class alone has its own.
    assert (cost.component, cost.rate) == (None, None)
    assert str(cost) == "100 GB/month, $4.11"
    assert (monthly_cost(external_gb=30).component, monthly_cost(external_gb=30).rate) == ("external", 0.1)
    # The same as three jobs of an account, each priced without the allowance.
    jobs = [
        monthly_cost(internal_gb=40),
        monthly_cost(external_gb=60),
        monthly_cost(transform_gb=5),
    ]
    assert [j.dollars_per_month for j in jobs] == [1.2, 6.0, 0.2]
    assert account_cost(iter(jobs)).dollars_per_month == 4.11
    assert account_cost(jobs, subtract_allowance=False).dollars_per_month == 7.4


def test_the_published_table_and_overrides() -> None:
    pricing = Pricing()
    assert pricing.published and pricing == Pricing()
    assert repr(pricing) == "Pricing()"
    rows = {r["component"]: r for r in pricing.rows()}
    assert (rows["internal"]["included"], rows["internal"]["rate"]) == (25.0, 0.03)
    assert (rows["external"]["included"], rows["external"]["rate"]) == (25.0, 0.10)
    assert (rows["transform"]["included"], rows["transform"]["rate"]) == (1.0, 0.04)
    assert (rows["workers"]["included"], rows["workers"]["unit"]) == (10.0, "million requests")
    table = pricing.to_dict()
    assert table["source"]["page"] == "src/content/docs/logs/logpush/pricing.mdx"
    assert table["source"]["effective"] == "2026-09-28"
    assert (table["bytes_per_gb"], table["days_per_month"]) == (GB, 30)

    contract = Pricing(external_rate=0.08, external_included=0)
    assert not contract.published
    assert repr(contract) == "Pricing(external_rate=0.08, external_included=0.0)"
    assert contract == Pricing().with_override("external_rate", 0.08).with_override("external_included", 0)
    cost = monthly_cost(external_gb=10, subtract_allowance=True, pricing=contract)
    assert cost.dollars_per_month == 0.8
    assert not cost.published_prices


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"external_rate": -0.1}, "external_rate"),
        ({"internal_rate": math.nan}, "internal_rate"),
        ({"transform_rate": math.inf}, "transform_rate"),
        ({"workers_included": -1}, "workers_included"),
    ],
)
def test_a_bad_override_is_refused_by_name(kwargs: dict[str, float], name: str) -> None:
    with pytest.raises(InvalidInput, match=f"^invalid {name}: "):
        Pricing(**kwargs)
    with pytest.raises(InvalidInput, match=f"^invalid {name}: "):
        Pricing().with_override(name, next(iter(kwargs.values())))


def test_an_unknown_override_gets_a_did_you_mean() -> None:
    with pytest.raises(InvalidInput, match="did you mean `external_rate`"):
        Pricing().with_override("externl_rate", 1.0)


def test_a_job_from_a_sample_by_its_span() -> None:
    # An hour of logs delivering 1 GB to S3: 720 GB a month at $0.10.
    cost = project_cost(GB, dataset="http_requests", destination_conf=S3, span_seconds=3600, lines_read=10**6)
    assert (cost.gb_per_month, cost.dollars_per_month) == (720.0, 72.0)
    assert (cost.destination_class, cost.component, cost.rate, cost.unit) == ("external", "external", 0.1, "GB")
    assert (cost.included, cost.allowance_saves, cost.allowance_subtracted) == (25.0, 2.5, False)
    assert (cost.basis, cost.scale) == ("span", 720.0)
    assert str(cost) == "720 GB/month, $72.00 (external, $0.10 per GB; the account's 25 GB included would save $2.50)"
    assert repr(cost) == "Cost(gb_per_month=720.0, dollars_per_month=72.0, allowance_subtracted=False)"
    data = cost.to_dict()
    assert data["dollars_per_month"] == 72.0 and data["components"][0]["usage"] == 720.0
    assert SECRET not in str(cost) + repr(cost) + str(data)

    subtracted = project_cost(
        GB, dataset="http_requests", destination_conf=S3, span_seconds=3600, subtract_allowance=True
    )
    assert subtracted.dollars_per_month == 69.5


def test_the_class_comes_from_the_destination_or_is_given() -> None:
    to_r2 = project_cost(GB, dataset="http_requests", destination_conf=R2, scale=60)
    assert (to_r2.destination_class, to_r2.dollars_per_month) == ("internal", 1.8)
    # Pipelines has no destination_conf form in the docs: its class is given.
    pipelines = project_cost(GB, dataset="http_requests", destination_class="internal", scale=60)
    assert pipelines.dollars_per_month == 1.8
    by_day = project_cost(GB, dataset="dns_logs", destination_conf=S3, lines_read=1000, requests_per_day=2000)
    assert (by_day.basis, by_day.scale, by_day.gb_per_month) == ("requests_per_day", 60.0, 60.0)
    with_transform = project_cost(GB, dataset="http_requests", destination_conf=S3, scale=10, transform_bytes=GB)
    assert [c["component"] for c in with_transform.components] == ["external", "transform"]
    assert with_transform.dollars_per_month == 1.4


def test_workers_trace_events_is_priced_per_request() -> None:
    cost = project_cost(
        GB,
        dataset="workers_trace_events",
        destination_conf=S3,
        delivered_records=10**6,
        span_seconds=86_400,
    )
    assert (cost.component, cost.unit, cost.rate) == ("workers", "million requests", 0.05)
    assert (cost.dollars_per_month, cost.gb_per_month) == (1.5, 30.0)


@pytest.mark.parametrize(
    ("kwargs", "words"),
    [
        ({}, "no timestamps"),
        ({"span_seconds": 0}, "cover 0 seconds"),
        ({"span_seconds": -1}, "invalid span_seconds"),
        ({"scale": -2}, "invalid scale"),
        ({"scale": math.nan}, "invalid scale"),
        ({"requests_per_day": 5, "lines_read": 0}, "read no lines"),
        ({"requests_per_day": 5, "scale": 2}, "not both"),
        ({"scale": 1, "dataset": "workers_trace_events"}, "invalid delivered_records"),
        ({"scale": 1, "dataset": "http_request"}, "did you mean `http_requests`"),
        ({"scale": 1, "destination_conf": None}, "billing class is unknown"),
        ({"scale": 1, "destination_conf": None, "destination_class": "pipelines"}, "neither"),
        ({"scale": 1, "destination_conf": f"ftp://h/x?password={SECRET}"}, "not a destination scheme"),
        ({"scale": 1, "lines_read": -1}, "invalid lines_read"),
    ],
)
def test_every_refusal_names_what_is_wrong(kwargs: dict[str, object], words: str) -> None:
    args: dict[str, object] = {"dataset": "http_requests", "destination_conf": S3, **kwargs}
    with pytest.raises(InvalidInput, match=words) as raised:
        project_cost(GB, **args)  # type: ignore[arg-type]
    assert SECRET not in str(raised.value)


def test_a_destination_class_prices_as_it_says_or_stands_for_none() -> None:
    agreed = project_cost(GB, dataset="http_requests", destination_conf=S3, destination_class="external", scale=1)
    assert agreed.destination_class == "external"
    what_if = project_cost(GB, dataset="http_requests", destination_conf=S3, destination_class="internal", scale=1)
    assert what_if.destination_class == "internal" and what_if.rate == 0.03
    given = project_cost(GB, dataset="http_requests", destination_class="internal", scale=1)
    assert given.rate == 0.03
    # Workers are priced per request: no class is needed.
    workers = project_cost(GB, dataset="workers_trace_events", delivered_records=10**6, scale=30)
    assert workers.component == "workers"


def test_no_timestamps_asks_for_requests_a_day_or_a_scale() -> None:
    with pytest.raises(InvalidInput) as raised:
        project_cost(GB, dataset="http_requests", destination_conf=S3)
    assert "--requests-per-day" in str(raised.value) and "--scale" in str(raised.value)


def test_a_change_is_worded_once() -> None:
    before = monthly_cost(external_gb=100)
    after = monthly_cost(external_gb=62)
    change = before.change_to(after)
    assert str(change) == "-38 GB/month, -$3.80"
    assert repr(change) == "CostChange('-38 GB/month, -$3.80')"
    assert change.to_dict() == {"gb_per_month": -38.0, "dollars_per_month": -3.8, "text": "-38 GB/month, -$3.80"}
    assert str(after.change_to(before)) == "+38 GB/month, +$3.80"
    assert str(after.change_to(after)) == "no change"
    with pytest.raises(InvalidInput, match="compare two of the same kind"):
        before.change_to(monthly_cost(external_gb=62, subtract_allowance=True))


def test_the_names_are_public() -> None:
    for name in ("Pricing", "Cost", "CostChange", "project_cost", "account_cost", "monthly_cost"):
        assert name in escpush.__all__


def test_the_pricing_command(cli: Cli) -> None:
    done = cli("logpush", "pricing")
    assert done.code == EXIT_OK, done.err
    assert "pricing.mdx at 47a2db92, effective 2026-09-28, read 2026-11-29" in done.out
    assert "external   25 GB" in done.out and "$0.10 per GB" in done.out
    assert "$0.05 per million" in done.out

    done = cli("logpush", "pricing", "--json", "--override", "external_rate=0.08")
    assert done.code == EXIT_OK, done.err
    table = done.json()
    assert isinstance(table, dict) and not table["published"]
    assert [r["rate"] for r in table["rows"]] == [0.03, 0.08, 0.04, 0.05]


@pytest.mark.parametrize(
    ("override", "words"),
    [
        ("external_rate=-1", "invalid external_rate"),
        ("external_rate", "NAME=VALUE"),
        ("external_rate=cheap", "is not a number"),
        ("egress_rate=1", "not one"),
    ],
)
def test_the_pricing_command_refuses_a_bad_override(cli: Cli, override: str, words: str) -> None:
    done = cli("logpush", "pricing", "--override", override)
    assert done.code == EXIT_USAGE, (done.code, done.out, done.err)
    assert words in done.err


def test_the_cost_options_of_a_command_that_measures_a_sample(tmp_path: Path) -> None:
    """``add_cost_options`` / ``cost_of``: what a preview adds to price its sample."""
    import argparse

    from escpush.cli.logpush_pricing import add_cost_options, asked_for_cost, cost_of

    parser = argparse.ArgumentParser()
    add_cost_options(parser)
    # Two lines an hour apart: the sample spans 3,600 s, a month is 720 of it.
    logs = tmp_path / "logs.ndjson"
    logs.write_text(
        '{"EdgeStartTimestamp": 1700000000000000000, "RayID": "a"}\n'
        '{"EdgeStartTimestamp": 1700003600000000000, "RayID": "b"}\n'
    )
    job = {"dataset": "http_requests", "destination_conf": S3, "output_options": {"field_names": ["RayID"]}}
    preview = escpush.preview_job(job, str(logs))
    untimed_logs = tmp_path / "untimed.ndjson"
    untimed_logs.write_text('{"RayID": "a"}\n')
    untimed = escpush.preview_job({**job, "destination_conf": None}, str(untimed_logs))

    def cost(*argv: str, of: escpush.PreviewResult = preview) -> escpush.Cost:
        return cost_of(parser.parse_args(list(argv)), of)

    month = preview.delivered_bytes * 720
    assert cost().gb_per_month == pytest.approx(month / 1e9)
    assert cost().dollars_per_month == pytest.approx(month / 1e9 * 0.10)
    assert cost("--subtract-allowance").dollars_per_month == 0.0
    assert cost("--scale", "10").gb_per_month == pytest.approx(preview.delivered_bytes * 10 / 1e9)
    assert cost("--requests-per-day", "2000").scale == 30_000.0  # 2,000 a day x 30 days / 2 lines
    assert cost("--destination-class", "internal").rate == 0.03  # what if the S3 job went to R2
    assert cost("--override", "external_rate=0.5").dollars_per_month == pytest.approx(month / 1e9 * 0.5)
    assert not asked_for_cost(parser.parse_args([]))
    assert asked_for_cost(parser.parse_args(["--scale", "2"]))
    with pytest.raises(InvalidInput, match="no destination_conf"):
        cost(of=untimed)
    with pytest.raises(InvalidInput, match="no timestamps"):
        cost("--destination-class", "external", of=untimed)
    assert cost("--destination-class", "external", "--scale", "1000", of=untimed).gb_per_month > 0
    with pytest.raises(InvalidInput, match="invalid scale"):
        cost("--scale", "-1")
