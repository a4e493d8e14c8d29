// The worked example and the projections are exact: their floats are compared exactly, on purpose.
#![allow(clippy::float_cmp)]

use super::*;
use crate::error::Error;
use crate::logpush::destination::{Billing, DestinationConf};

const GB: u64 = BYTES_PER_GB;

fn refusal(err: Error) -> (&'static str, String) {
    let text = err.to_string();
    match err {
        Error::InvalidInput { what, .. } => (what, text),
        other => panic!("not InvalidInput: {other:?}"),
    }
}

/// pricing.mdx's worked example, to the nanodollar: 40 GB internal, 60 GB external, 5 GB
/// transformed = $0.45 + $3.50 + $0.16 = $4.11.
#[test]
fn the_worked_example_of_pricing_mdx() {
    let usage = MonthlyUsage::new()
        .with(Component::InternalExport, 40 * GB)
        .with(Component::ExternalExport, 60 * GB)
        .with(Component::Transformation, 5 * GB);
    let cost = Pricing::cloudflare().charge(&usage, true);
    let charges: Vec<(Component, Money)> = cost.components.iter().map(|c| (c.component, c.charge)).collect();
    assert_eq!(
        charges,
        [
            (Component::InternalExport, Money::from_nanos(450_000_000)),
            (Component::ExternalExport, Money::from_nanos(3_500_000_000)),
            (Component::Transformation, Money::from_nanos(160_000_000)),
        ]
    );
    assert_eq!(cost.total(), Money::from_nanos(4_110_000_000));
    assert_eq!(cost.total().dollars(), 4.11);
    assert_eq!(cost.total().to_string(), "$4.11");
    assert!(cost.allowance_subtracted);
    // The same, given in GB as a person gives them.
    let by_units = MonthlyUsage::new()
        .with_units(Component::InternalExport, 40.0, "internal_gb")
        .and_then(|u| u.with_units(Component::ExternalExport, 60.0, "external_gb"))
        .and_then(|u| u.with_units(Component::Transformation, 5.0, "transform_gb"))
        .unwrap();
    assert_eq!(by_units, usage);
    let (what, text) = refusal(
        MonthlyUsage::new()
            .with_units(Component::ExternalExport, -1.0, "external_gb")
            .unwrap_err(),
    );
    assert_eq!(what, "external_gb");
    assert!(text.contains("-1 is not an amount: give GB"), "{text}");
    // Delivered: the two exports, not the transformer's input.
    assert_eq!(cost.usage.delivered_bytes(), 100 * GB);
    // Deliveries of both classes: no one rate to show.
    assert_eq!(cost.delivery(), None);
    assert_eq!(cost.to_string(), "100 GB/month, $4.11");
}

/// The same three as an account's jobs, summed by component first, then the allowance once.
#[test]
fn an_accounts_jobs_sum_by_component_before_the_allowance() {
    let p = Pricing::cloudflare();
    let jobs = [
        p.charge(&MonthlyUsage::new().with(Component::InternalExport, 20 * GB), false),
        p.charge(&MonthlyUsage::new().with(Component::InternalExport, 20 * GB), false),
        p.charge(
            &MonthlyUsage::new()
                .with(Component::ExternalExport, 60 * GB)
                .with(Component::Transformation, 5 * GB),
            false,
        ),
    ];
    let account = p.account_cost(&jobs, true);
    assert_eq!(account.total().to_string(), "$4.11");
    // Each job alone, the allowance not subtracted: its first GB priced.
    assert_eq!(jobs[0].total().to_string(), "$0.60");
}

#[test]
fn the_allowance_is_shown_and_subtracted_only_when_asked() {
    let usage = MonthlyUsage::new().with(Component::ExternalExport, 30 * GB);
    let shown = Pricing::cloudflare().charge(&usage, false);
    assert_eq!(shown.total().to_string(), "$3.00");
    assert_eq!(shown.allowance_saves().to_string(), "$2.50");
    assert_eq!(shown.components[0].included_units(), 25.0);
    let subtracted = Pricing::cloudflare().charge(&usage, true);
    assert_eq!(subtracted.total().to_string(), "$0.50");
    assert_eq!(subtracted.allowance_saves().to_string(), "$2.50");
    // Under the allowance: nothing charged, never less than zero.
    let small = Pricing::cloudflare().charge(&MonthlyUsage::new().with(Component::InternalExport, GB), true);
    assert_eq!(small.total(), Money::ZERO);
    assert_eq!(small.allowance_saves().to_string(), "$0.03");
    // With a transformation, the wording's allowance is the delivery's own (25 GB at $0.10),
    // not the sum with the transformation's (1 GB at $0.04).
    let both = MonthlyUsage::new()
        .with(Component::ExternalExport, 30 * GB)
        .with(Component::Transformation, 5 * GB);
    let cost = Pricing::cloudflare().charge(&both, false);
    assert_eq!(cost.allowance_saves().to_string(), "$2.54");
    assert!(
        cost.to_string()
            .ends_with("the account's 25 GB included would save $2.50)"),
        "{cost}"
    );
    assert_eq!(cost.short(), "30 GB/month, $3.20", "GB delivered; the dollars of both");
}

#[test]
fn the_table_is_pricing_mdx() {
    let rows: Vec<(&str, f64, f64, &str)> = PRICES
        .iter()
        .map(|p| {
            (
                p.component.name(),
                p.included_units(),
                p.rate.dollars(),
                p.component.unit().as_str(),
            )
        })
        .collect();
    assert_eq!(
        rows,
        [
            ("internal", 25.0, 0.03, "GB"),
            ("external", 25.0, 0.10, "GB"),
            ("transform", 1.0, 0.04, "GB"),
            ("workers", 10.0, 0.05, "million requests"),
        ]
    );
    assert_eq!(PRICING_SOURCE.effective, "2026-09-28");
    assert_eq!(SECONDS_PER_MONTH, 2_592_000);
}

#[test]
fn the_destination_class_is_the_destinations_row() {
    let r2 = DestinationConf::parse("r2://logs/{DATE}?account-id=abc&access-key-id=k&secret-access-key=s").unwrap();
    assert_eq!(r2.billing(), Billing::Internal);
    let s3 = DestinationConf::parse("s3://bucket/logs?region=us-east-1").unwrap();
    assert_eq!(s3.billing(), Billing::External);
    for d in crate::logpush::DESTINATIONS {
        let expected = if d.scheme == "r2" {
            Billing::Internal
        } else {
            Billing::External
        };
        assert_eq!(d.billing, expected, "{}", d.scheme);
    }
    assert_eq!(Billing::of("r2://logs?account-id=abc").unwrap(), Billing::Internal);
    assert_eq!(
        Billing::of("datadog://intake?header_DD-API-KEY=k").unwrap(),
        Billing::External
    );
    // A bad destination is refused as destination_conf is, its text (a possible secret) not echoed.
    let err = Billing::of("ftp://host/logs?password=hunter22")
        .unwrap_err()
        .to_string();
    assert!(err.contains("`ftp` is not a destination scheme"), "{err}");
    assert!(!err.contains("hunter22"), "{err}");
    assert_eq!(Billing::parse("internal").unwrap(), Billing::Internal);
    let (what, text) = refusal(Billing::parse("pipelines").unwrap_err());
    assert_eq!(what, "destination class");
    assert!(text.contains("`pipelines` is neither"), "{text}");
}

#[test]
fn overrides_change_a_row_and_refuse_bad_numbers_by_name() {
    let contract = Pricing::cloudflare()
        .with_override("external_rate", 0.08)
        .unwrap()
        .with_override("external_included", 0.0)
        .unwrap();
    assert!(!contract.is_cloudflare());
    let cost = contract.charge(&MonthlyUsage::new().with(Component::ExternalExport, 10 * GB), true);
    assert_eq!(cost.total().to_string(), "$0.80");
    assert!(!cost.published_prices);

    for (name, value) in [
        ("external_rate", -0.1),
        ("internal_rate", f64::NAN),
        ("transform_rate", f64::INFINITY),
        ("workers_included", -1.0),
        ("internal_included", f64::NAN),
    ] {
        let (what, text) = refusal(Pricing::cloudflare().with_override(name, value).unwrap_err());
        assert_eq!(what, name);
        assert!(text.starts_with(&format!("invalid {name}: ")), "{text}");
    }
    let (what, text) = refusal(Pricing::cloudflare().with_override("externl_rate", 1.0).unwrap_err());
    assert_eq!(what, "pricing override");
    assert!(text.contains("did you mean `external_rate`?"), "{text}");
    let (what, _) = refusal(Component::parse("egress").unwrap_err());
    assert_eq!(what, "pricing component");
}

#[test]
fn a_sample_is_made_a_month_by_its_span_requests_a_day_or_a_scale() {
    // One hour delivering 1 GB: 720 GB a month.
    let sample = Sample::new(GB).lines_read(1_000_000).span_seconds(3600.0);
    let p = project(&sample, Basis::Span, Billing::External, "http_requests").unwrap();
    assert_eq!(p.scale, 720.0);
    assert_eq!(p.usage.get(Component::ExternalExport), Some(720 * GB));
    assert_eq!(p.component, Component::ExternalExport);
    // The lines stand for 2 million requests a day: 60 million a month, 60 samples.
    let p = project(&sample, Basis::RequestsPerDay(2e6), Billing::Internal, "http_requests").unwrap();
    assert_eq!(p.scale, 60.0);
    assert_eq!(p.usage.get(Component::InternalExport), Some(60 * GB));
    assert_eq!(p.usage.get(Component::ExternalExport), None);
    // A plain scale, with a transformer's input.
    let p = project(
        &sample.transform_bytes(GB / 2),
        Basis::Scale(10.0),
        Billing::External,
        "dns_logs",
    )
    .unwrap();
    assert_eq!(p.usage.get(Component::Transformation), Some(5 * GB));
    assert_eq!(p.usage.delivered_bytes(), 10 * GB);

    let cost = Pricing::cloudflare()
        .project_cost(&sample, Basis::Span, Billing::External, "http_requests", false)
        .unwrap();
    assert_eq!(cost.gb_per_month(), 720.0);
    assert_eq!(cost.total().to_string(), "$72.00");
    assert_eq!(cost.delivery().unwrap().component, Component::ExternalExport);
    assert_eq!(cost.projection.unwrap().basis, Basis::Span);
    assert_eq!(
        cost.to_string(),
        "720 GB/month, $72.00 (external, $0.10 per GB; the account's 25 GB included would save $2.50)"
    );
    let subtracted = Pricing::cloudflare()
        .project_cost(&sample, Basis::Span, Billing::External, "http_requests", true)
        .unwrap();
    assert_eq!(
        subtracted.to_string(),
        "720 GB/month, $69.50 (external, $0.10 per GB; the account's 25 GB included takes off $2.50)"
    );
}

#[test]
fn workers_trace_events_is_priced_per_request() {
    let sample = Sample::new(GB).delivered_records(1_000_000).span_seconds(86_400.0);
    let cost = Pricing::cloudflare()
        .project_cost(&sample, Basis::Span, Billing::External, PER_REQUEST_DATASET, false)
        .unwrap();
    // 30 million requests a month: $1.50, its 30 GB shown, not priced by the GB.
    assert_eq!(cost.components.len(), 1);
    assert_eq!(cost.components[0].component, Component::WorkersRequests);
    assert_eq!(cost.components[0].usage, 30_000_000);
    assert_eq!(cost.total().to_string(), "$1.50");
    assert_eq!(cost.gb_per_month(), 30.0);
    assert_eq!(
        cost.to_string(),
        "30 GB/month, $1.50 (workers, $0.05 per million requests; the account's 10 million requests included would save $0.50)"
    );
    let with_allowance = Pricing::cloudflare()
        .project_cost(&sample, Basis::Span, Billing::Internal, PER_REQUEST_DATASET, true)
        .unwrap();
    assert_eq!(with_allowance.total().to_string(), "$1.00");

    let (what, text) = refusal(
        project(
            &Sample::new(GB).span_seconds(60.0),
            Basis::Span,
            Billing::External,
            PER_REQUEST_DATASET,
        )
        .unwrap_err(),
    );
    assert_eq!(what, "delivered_records");
    assert!(text.contains("billed per request"), "{text}");
}

#[test]
fn every_refusal_of_a_projection_names_what_is_missing() {
    let no_time = Sample::new(100).lines_read(10);
    let cases: Vec<(Sample, Basis, &str, &str)> = vec![
        (no_time, Basis::Span, "projection", "no timestamps"),
        (no_time.span_seconds(0.0), Basis::Span, "projection", "cover 0 seconds"),
        (
            no_time.span_seconds(-5.0),
            Basis::Span,
            "span_seconds",
            "-5 is not a time span",
        ),
        (
            no_time.span_seconds(f64::NAN),
            Basis::Span,
            "span_seconds",
            "NaN is not a time span",
        ),
        (no_time, Basis::Scale(-1.0), "scale", "-1 is not a number of 0 or more"),
        (no_time, Basis::Scale(f64::NAN), "scale", "NaN is not"),
        (no_time, Basis::Scale(f64::INFINITY), "scale", "inf is not"),
        (no_time, Basis::RequestsPerDay(-3.0), "requests_per_day", "-3 is not"),
        (
            Sample::new(100),
            Basis::RequestsPerDay(1e6),
            "requests_per_day",
            "read no lines",
        ),
        (
            no_time.lines_read(0),
            Basis::RequestsPerDay(1e6),
            "requests_per_day",
            "read no lines",
        ),
        (
            Sample::new(u64::MAX),
            Basis::Scale(1e10),
            "delivered_bytes",
            "past what escpush counts",
        ),
    ];
    for (sample, basis, what, words) in cases {
        let (w, text) = refusal(project(&sample, basis, Billing::External, "http_requests").unwrap_err());
        assert_eq!(w, what, "{text}");
        assert!(text.contains(words), "{text}");
    }
    let err = project(
        &no_time.span_seconds(60.0),
        Basis::Span,
        Billing::External,
        "http_request",
    )
    .unwrap_err();
    assert!(matches!(err, Error::UnknownDataset { .. }), "{err:?}");
    assert!(err.to_string().contains("did you mean `http_requests`?"), "{err}");
    // The two that need a way out say which.
    let (_, text) = refusal(project(&no_time, Basis::Span, Billing::External, "http_requests").unwrap_err());
    assert!(
        text.contains("--requests-per-day") && text.contains("--scale"),
        "{text}"
    );
    let (what, text) = refusal(Basis::from_options(Some(1.0), Some(2.0)).unwrap_err());
    assert_eq!(what, "projection");
    assert!(text.contains("not both"), "{text}");
    assert_eq!(Basis::from_options(None, None).unwrap(), Basis::Span);
    assert_eq!(Basis::from_options(None, Some(2.0)).unwrap(), Basis::Scale(2.0));
}

#[test]
fn a_change_is_written_once() {
    let p = Pricing::cloudflare();
    let before = p.charge(&MonthlyUsage::new().with(Component::ExternalExport, 100 * GB), false);
    let after = p.charge(&MonthlyUsage::new().with(Component::ExternalExport, 62 * GB), false);
    let change = CostChange::between(&before, &after).unwrap();
    assert_eq!(change.to_string(), "-38 GB/month, -$3.80");
    assert_eq!(change.dollars, Money::from_nanos(-3_800_000_000));
    assert_eq!(
        CostChange::between(&after, &before).unwrap().to_string(),
        "+38 GB/month, +$3.80"
    );
    let small = p.charge(
        &MonthlyUsage::new().with(Component::ExternalExport, 62 * GB + GB / 2),
        false,
    );
    assert_eq!(
        CostChange::between(&after, &small).unwrap().to_string(),
        "+0.50 GB/month, +$0.05"
    );
    assert_eq!(CostChange::between(&after, &after).unwrap().to_string(), "no change");
    // Under the allowance, more GB may cost nothing more.
    let a = p.charge(&MonthlyUsage::new().with(Component::ExternalExport, 10 * GB), true);
    let b = p.charge(&MonthlyUsage::new().with(Component::ExternalExport, 12 * GB), true);
    assert_eq!(CostChange::between(&a, &b).unwrap().to_string(), "+2.0 GB/month, $0.00");
    let (what, _) = refusal(CostChange::between(&a, &after).unwrap_err());
    assert_eq!(what, "cost change");
}

#[test]
fn money_and_gb_are_shown_with_the_digits_that_matter() {
    assert_eq!(Money::from_nanos(0).to_string(), "$0.00");
    assert_eq!(Money::from_nanos(4_200_000).to_string(), "$0.0042");
    assert_eq!(Money::from_nanos(-3_800_000_000).to_string(), "-$3.80");
    assert_eq!(Money::from_nanos(-10).to_string(), "$0.00");
    assert_eq!(Money::from_nanos(1_234_565_000_000).to_string(), "$1234.57");
    assert_eq!(format_gb(38.4), "38");
    assert_eq!(format_gb(1.54), "1.5");
    assert_eq!(format_gb(0.0423), "0.042");
    assert_eq!(format_gb(0.0), "0");
    assert_eq!(Money::from_dollars(0.03, "x").unwrap(), Money::from_nanos(30_000_000));
}
