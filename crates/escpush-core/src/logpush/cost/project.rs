//! From a sample's measure to a month ([`project`]), from a month's usage to dollars
//! ([`Pricing::charge`]), and the difference of two costs ([`CostChange`]).

use std::fmt;

use crate::error::Error;
use crate::logpush::destination::Billing;

use super::pricing::{Component, Money, Pricing, Unit, BYTES_PER_GB, DAYS_PER_MONTH, SECONDS_PER_MONTH};

/// The dataset priced per request (pricing.mdx, "Workers Logpush").
pub const PER_REQUEST_DATASET: &str = "workers_trace_events";

/// The class a job is priced at: the caller's (`given`: a job sketched without a destination;
/// Pipelines, whose `destination_conf` form is not documented; or "what if it went to R2")
/// when given, else the one its `destination_conf` reads (`read`, by [`Billing::of`]). For
/// [`PER_REQUEST_DATASET`], priced per request whatever its destination, the class does not
/// matter (`External` when neither says one).
///
/// ```
/// use escpush_core::{billing_of, Billing};
/// assert_eq!(billing_of(Some(Billing::External), None, "http_requests").unwrap(), Billing::External);
/// assert_eq!(billing_of(Some(Billing::External), Some(Billing::Internal), "http_requests").unwrap(), Billing::Internal);
/// assert!(billing_of(None, None, "http_requests").is_err());
/// assert!(billing_of(None, None, "workers_trace_events").is_ok());
/// ```
pub fn billing_of(read: Option<Billing>, given: Option<Billing>, dataset: &str) -> Result<Billing, Error> {
    match (given, read) {
        (Some(class), _) | (None, Some(class)) => Ok(class),
        (None, None) if dataset == PER_REQUEST_DATASET => Ok(Billing::External),
        (None, None) => Err(Error::InvalidInput {
            what: "destination",
            message: "the job has no destination_conf, so its billing class is unknown: give a destination class \
                      (\"internal\" for R2 and Pipelines, \"external\" for the others)"
                .to_owned(),
        }),
    }
}

/// What a sample of logs measured, the job's formatter and filter applied.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[non_exhaustive]
pub struct Sample {
    /// Uncompressed bytes the job would deliver for it (the billed measure).
    pub delivered_bytes: u64,
    /// Records the job would deliver (the requests of `workers_trace_events`).
    pub delivered_records: Option<u64>,
    /// Lines read from the sample, before the filter (what `requests_per_day` counts).
    pub lines_read: Option<u64>,
    /// Seconds between its first and last timestamp; `None` when it has none.
    pub span_seconds: Option<f64>,
    /// Uncompressed bytes a transformer would read, when the job has one.
    pub transform_bytes: Option<u64>,
}

impl Sample {
    /// A sample that delivers `delivered_bytes`.
    pub fn new(delivered_bytes: u64) -> Sample {
        Sample {
            delivered_bytes,
            ..Sample::default()
        }
    }

    /// With the records it delivers.
    #[must_use]
    pub fn delivered_records(mut self, records: u64) -> Sample {
        self.delivered_records = Some(records);
        self
    }

    /// With the lines read.
    #[must_use]
    pub fn lines_read(mut self, lines: u64) -> Sample {
        self.lines_read = Some(lines);
        self
    }

    /// With the time span its timestamps cover.
    #[must_use]
    pub fn span_seconds(mut self, seconds: f64) -> Sample {
        self.span_seconds = Some(seconds);
        self
    }

    /// With a transformer's input bytes.
    #[must_use]
    pub fn transform_bytes(mut self, bytes: u64) -> Sample {
        self.transform_bytes = Some(bytes);
        self
    }
}

/// How a sample stands for a month.
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub enum Basis {
    /// The sample covers its timestamps' span: a month is [`SECONDS_PER_MONTH`] / span samples.
    Span,
    /// The sample's lines read stand for this many requests a day: a month is
    /// requests_per_day x [`DAYS_PER_MONTH`] / lines read samples.
    RequestsPerDay(f64),
    /// A month is the sample times this.
    Scale(f64),
}

impl Basis {
    /// From the two options a person may give (`--requests-per-day`, `--scale`): neither is
    /// [`Basis::Span`]; both are refused.
    pub fn from_options(requests_per_day: Option<f64>, scale: Option<f64>) -> Result<Basis, Error> {
        match (requests_per_day, scale) {
            (Some(_), Some(_)) => Err(Error::InvalidInput {
                what: "projection",
                message: "give requests per day (--requests-per-day) or a scale (--scale), not both".to_owned(),
            }),
            (Some(r), None) => Ok(Basis::RequestsPerDay(r)),
            (None, Some(s)) => Ok(Basis::Scale(s)),
            (None, None) => Ok(Basis::Span),
        }
    }

    /// `span`, `requests_per_day` or `scale`.
    pub fn name(self) -> &'static str {
        match self {
            Basis::Span => "span",
            Basis::RequestsPerDay(_) => "requests_per_day",
            Basis::Scale(_) => "scale",
        }
    }
}

/// What to do next, in every refusal of a projection.
const ASK: &str = "give the requests a day the sample stands for (--requests-per-day, Python `requests_per_day=`) \
                   or a scale (--scale, `scale=`)";

fn refuse(what: &'static str, message: String) -> Error {
    Error::InvalidInput { what, message }
}

/// A number a person gave (a scale, requests per day), refused when negative, NaN or
/// infinite.
fn amount(what: &'static str, value: f64) -> Result<f64, Error> {
    if value.is_finite() && value >= 0.0 {
        Ok(value)
    } else {
        Err(refuse(what, format!("{value} is not a number of 0 or more")))
    }
}

/// The factor that makes the sample a month, by `basis`; every refusal names what is
/// missing and how to give it.
pub fn month_scale(sample: &Sample, basis: Basis) -> Result<f64, Error> {
    match basis {
        Basis::Scale(s) => amount("scale", s),
        Basis::RequestsPerDay(r) => {
            let r = amount("requests_per_day", r)?;
            match sample.lines_read {
                Some(lines) if lines > 0 => {
                    #[allow(clippy::cast_precision_loss)]
                    let lines = lines as f64;
                    Ok(r * f64::from(DAYS_PER_MONTH) / lines)
                }
                _ => Err(refuse(
                    "requests_per_day",
                    "the sample read no lines, so they cannot stand for requests a day: give a scale (--scale) instead"
                        .to_owned(),
                )),
            }
        }
        Basis::Span => match sample.span_seconds {
            None => Err(refuse(
                "projection",
                format!("the sample has no timestamps, so the time it covers is unknown: {ASK}"),
            )),
            Some(s) if s.is_nan() || s < 0.0 || s.is_infinite() => Err(refuse(
                "span_seconds",
                format!("{s} is not a time span: give seconds, more than 0"),
            )),
            Some(0.0) => Err(refuse(
                "projection",
                format!(
                    "the sample's timestamps cover 0 seconds (every line of the same second): a month cannot be \
                     projected from one instant; {ASK}"
                ),
            )),
            #[allow(clippy::cast_precision_loss)]
            Some(s) => Ok(SECONDS_PER_MONTH as f64 / s),
        },
    }
}

/// `amount` times `scale`, a month's count; refused when past 2^64.
fn scaled(amount: u64, scale: f64, what: &'static str) -> Result<u64, Error> {
    #[allow(clippy::cast_precision_loss)]
    let month = (amount as f64 * scale).round();
    #[allow(clippy::cast_precision_loss)]
    if month >= u64::MAX as f64 {
        return Err(refuse(
            what,
            format!("the sample times {scale} is {month:e} a month, past what escpush counts (2^64)"),
        ));
    }
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    Ok(month as u64)
}

/// A month's usage, by component (in [`Unit::base`]: bytes, requests), with the bytes
/// delivered (billed by the GB, or shown beside requests); sums over jobs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MonthlyUsage {
    amounts: [Option<u64>; 4],
    delivered_bytes: u64,
}

fn slot(component: Component) -> usize {
    Component::ALL.iter().position(|c| *c == component).unwrap_or(0)
}

impl MonthlyUsage {
    /// No usage.
    pub fn new() -> MonthlyUsage {
        MonthlyUsage::default()
    }

    /// With `amount` more of `component` (bytes delivered count in [`MonthlyUsage::delivered_bytes`] too).
    #[must_use]
    pub fn with(mut self, component: Component, amount: u64) -> MonthlyUsage {
        let s = &mut self.amounts[slot(component)];
        *s = Some(s.unwrap_or(0).saturating_add(amount));
        if component.is_delivery() {
            self.delivered_bytes = self.delivered_bytes.saturating_add(amount);
        }
        self
    }

    /// With `units` more of `component` in its unit (GB, million requests), as a person gives
    /// them; refused (naming `what`) unless a number of 0 or more, up to 2^64 of the base unit.
    pub fn with_units(self, component: Component, units: f64, what: &'static str) -> Result<MonthlyUsage, Error> {
        let unit = component.unit();
        #[allow(clippy::cast_precision_loss)]
        let base = units * unit.base_per_unit() as f64;
        #[allow(clippy::cast_precision_loss)]
        if !units.is_finite() || units < 0.0 || base >= u64::MAX as f64 {
            return Err(refuse(
                what,
                format!("{units} is not an amount: give {}, 0 or more", unit.as_str()),
            ));
        }
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        Ok(self.with(component, base.round() as u64))
    }

    /// With `bytes` more delivered that no GB component bills (a `workers_trace_events` job's).
    #[must_use]
    pub fn with_delivered_bytes(mut self, bytes: u64) -> MonthlyUsage {
        self.delivered_bytes = self.delivered_bytes.saturating_add(bytes);
        self
    }

    /// The usage of `component`; `None` when none was given.
    pub fn get(&self, component: Component) -> Option<u64> {
        self.amounts[slot(component)]
    }

    /// The uncompressed bytes delivered, by every job.
    pub fn delivered_bytes(&self) -> u64 {
        self.delivered_bytes
    }
}

impl std::ops::Add for MonthlyUsage {
    type Output = MonthlyUsage;
    fn add(self, other: MonthlyUsage) -> MonthlyUsage {
        let mut sum = self.with_delivered_bytes(other.delivered_bytes);
        for (i, amount) in other.amounts.iter().enumerate() {
            if let Some(a) = amount {
                let s = &mut sum.amounts[i];
                *s = Some(s.unwrap_or(0).saturating_add(*a));
            }
        }
        sum
    }
}

impl std::iter::Sum for MonthlyUsage {
    fn sum<I: Iterator<Item = MonthlyUsage>>(iter: I) -> MonthlyUsage {
        iter.fold(MonthlyUsage::new(), |a, b| a + b)
    }
}

/// A sample made a month: how, by what factor, and the usage it comes to.
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub struct Projection {
    pub basis: Basis,
    /// A month is the sample times this.
    pub scale: f64,
    /// The destination's class.
    pub billing: Billing,
    /// The component the deliveries are billed as (`workers` for `workers_trace_events`).
    pub component: Component,
    pub usage: MonthlyUsage,
}

/// A job's month from a sample: its deliveries to a destination of class `billing`, of
/// `dataset` (`workers_trace_events` counts the records delivered, as requests), and its
/// transformer's input when the sample has one.
/// `dataset` is one of the embedded schemas' (refused with a did-you-mean otherwise).
pub fn project(sample: &Sample, basis: Basis, billing: Billing, dataset: &str) -> Result<Projection, Error> {
    escpush_filter::Dataset::get(dataset, None)?;
    let scale = month_scale(sample, basis)?;
    let bytes = scaled(sample.delivered_bytes, scale, "delivered_bytes")?;
    let mut usage = MonthlyUsage::new();
    let component = if dataset == PER_REQUEST_DATASET {
        let Some(records) = sample.delivered_records else {
            return Err(refuse(
                "delivered_records",
                format!(
                    "{PER_REQUEST_DATASET} is billed per request (Workers Logpush): give the records the sample delivers"
                ),
            ));
        };
        usage = usage
            .with(Component::WorkersRequests, scaled(records, scale, "delivered_records")?)
            .with_delivered_bytes(bytes);
        Component::WorkersRequests
    } else {
        let c = Component::export(billing);
        usage = usage.with(c, bytes);
        c
    };
    if let Some(t) = sample.transform_bytes {
        usage = usage.with(Component::Transformation, scaled(t, scale, "transform_bytes")?);
    }
    Ok(Projection {
        basis,
        scale,
        billing,
        component,
        usage,
    })
}

/// One component of a cost: the month's usage, what is included, the rate, and the charge.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct ComponentCost {
    pub component: Component,
    /// The month's usage, in [`Unit::base`].
    pub usage: u64,
    /// Included each month per account, in [`Unit::base`].
    pub included: u64,
    /// Dollars per [`Component::unit`].
    pub rate: Money,
    /// The usage at the rate, nothing included.
    pub gross: Money,
    /// What the account's included amount takes off it (all of the allowance: shared by
    /// every job of the account).
    pub allowance_saves: Money,
    /// What is charged: `gross`, less `allowance_saves` when the allowance is subtracted.
    pub charge: Money,
}

impl ComponentCost {
    /// The usage in the component's unit (GB, million requests).
    pub fn usage_units(&self) -> f64 {
        self.component.unit().of(self.usage)
    }

    /// The included amount in its unit.
    pub fn included_units(&self) -> f64 {
        self.component.unit().of(self.included)
    }
}

/// A month's cost: each component computed on its own (pricing.mdx, "Calculate monthly
/// charges"), the allowance shown and subtracted only when asked.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct Cost {
    pub usage: MonthlyUsage,
    /// The components given, in the table's order.
    pub components: Vec<ComponentCost>,
    pub allowance_subtracted: bool,
    /// How a sample was made a month, for a job's cost.
    pub projection: Option<Projection>,
    /// Whether the prices were the published ones.
    pub published_prices: bool,
}

impl Pricing {
    /// The cost of a month's usage: each component's usage (less what is included, when
    /// `subtract_allowance`), at its rate.
    pub fn charge(&self, usage: &MonthlyUsage, subtract_allowance: bool) -> Cost {
        let components = Component::ALL
            .into_iter()
            .filter_map(|c| {
                let amount = usage.get(c)?;
                let price = self.price(c);
                let gross = price.charge(amount, false);
                let allowance_saves = gross - price.charge(amount, true);
                Some(ComponentCost {
                    component: c,
                    usage: amount,
                    included: price.included,
                    rate: price.rate,
                    gross,
                    allowance_saves,
                    charge: if subtract_allowance {
                        gross - allowance_saves
                    } else {
                        gross
                    },
                })
            })
            .collect();
        Cost {
            usage: *usage,
            components,
            allowance_subtracted: subtract_allowance,
            projection: None,
            published_prices: self.is_cloudflare(),
        }
    }

    /// A job's month from a sample ([`project`]), and its cost.
    pub fn project_cost(
        &self,
        sample: &Sample,
        basis: Basis,
        billing: Billing,
        dataset: &str,
        subtract_allowance: bool,
    ) -> Result<Cost, Error> {
        let projection = project(sample, basis, billing, dataset)?;
        let mut cost = self.charge(&projection.usage, subtract_allowance);
        cost.projection = Some(projection);
        Ok(cost)
    }

    /// The cost of an account's jobs together: their usage summed by component, then each
    /// component priced once (the allowance is the account's, not each job's).
    pub fn account_cost<'a>(&self, jobs: impl IntoIterator<Item = &'a Cost>, subtract_allowance: bool) -> Cost {
        let usage: MonthlyUsage = jobs.into_iter().map(|c| c.usage).sum();
        self.charge(&usage, subtract_allowance)
    }
}

impl Cost {
    /// Dollars a month: the components' charges.
    pub fn total(&self) -> Money {
        self.components.iter().map(|c| c.charge).sum()
    }

    /// What the account's included amounts take off (shown whether or not subtracted).
    pub fn allowance_saves(&self) -> Money {
        self.components.iter().map(|c| c.allowance_saves).sum()
    }

    /// Uncompressed GB delivered a month.
    pub fn gb_per_month(&self) -> f64 {
        Unit::Gb.of(self.usage.delivered_bytes())
    }

    /// The component of the deliveries: the projection's, else the one component of
    /// deliveries given (`None` for an account's jobs to both classes).
    pub fn delivery(&self) -> Option<&ComponentCost> {
        if let Some(p) = self.projection {
            return self.components.iter().find(|c| c.component == p.component);
        }
        let mut deliveries = self
            .components
            .iter()
            .filter(|c| c.component != Component::Transformation);
        match (deliveries.next(), deliveries.next()) {
            (Some(one), None) => Some(one),
            _ => None,
        }
    }
}

impl Cost {
    /// `720 GB/month, $72.00`: the month and its total, without the rate (the before and
    /// after of a change).
    pub fn short(&self) -> String {
        format!("{} GB/month, {}", format_gb(self.gb_per_month()), self.total())
    }
}

/// `720 GB/month, $72.00 (external, $0.10 per GB; the account's 25 GB included would save
/// $2.50)`: the one wording of a cost (the allowance "takes off" when subtracted; what it
/// saves is the delivery's own, a transformation's aside).
impl fmt::Display for Cost {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.short())?;
        if let Some(c) = self.delivery() {
            let unit = c.component.unit().as_str();
            let allowance = if self.allowance_subtracted {
                "takes off"
            } else {
                "would save"
            };
            write!(
                f,
                " ({}, {} per {unit}; the account's {} {unit} included {allowance} {})",
                c.component.name(),
                c.rate,
                format_gb(c.included_units()),
                c.allowance_saves
            )?;
        }
        Ok(())
    }
}

/// `38`, `1.5`, `0.042`: GB with the digits that matter (whole from 10, one place from 1,
/// two significant digits under 1).
pub fn format_gb(gb: f64) -> String {
    let a = gb.abs();
    if a == 0.0 || !a.is_finite() {
        return format!("{a}");
    }
    let places = if a >= 10.0 {
        0
    } else if a >= 1.0 {
        1
    } else {
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        let p = (-a.log10()).floor() as usize + 2;
        p.min(9)
    };
    format!("{a:.places$}")
}

/// The difference of two costs, after minus before: what a change of a job (its filter, its
/// `field_names`) does to the bill. The one wording of it: `-38 GB/month, -$3.80`.
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub struct CostChange {
    /// GB a month, after minus before.
    pub gb_per_month: f64,
    /// Dollars a month, after minus before.
    pub dollars: Money,
}

impl CostChange {
    /// `after` minus `before`; refused when one subtracts the allowance and the other not
    /// (the difference would be of two different things).
    pub fn between(before: &Cost, after: &Cost) -> Result<CostChange, Error> {
        if before.allowance_subtracted != after.allowance_subtracted {
            return Err(refuse(
                "cost change",
                "one cost subtracts the account's allowance and the other does not: compare two of the same kind"
                    .to_owned(),
            ));
        }
        #[allow(clippy::cast_precision_loss)]
        let bytes = after.usage.delivered_bytes() as f64 - before.usage.delivered_bytes() as f64;
        #[allow(clippy::cast_precision_loss)]
        let gb_per_month = bytes / BYTES_PER_GB as f64;
        Ok(CostChange {
            gb_per_month,
            dollars: after.total() - before.total(),
        })
    }
}

/// `-38 GB/month, -$3.80`; `+1.5 GB/month, +$0.15`; `no change` when both show as zero.
impl fmt::Display for CostChange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let gb = format_gb(self.gb_per_month);
        let dollars = self.dollars.to_string();
        let zero_gb = gb.trim_start_matches(['0', '.']).is_empty();
        if zero_gb && (dollars == "$0.00") {
            return f.write_str("no change");
        }
        let gb_sign = if zero_gb {
            ""
        } else if self.gb_per_month < 0.0 {
            "-"
        } else {
            "+"
        };
        let money = if self.dollars.nanos() > 0 {
            format!("+{dollars}")
        } else {
            dollars
        };
        write!(f, "{gb_sign}{gb} GB/month, {money}")
    }
}
