//! The pricing table of Logpush as data ([`PRICES`], from pricing.mdx) and [`Pricing`]: the
//! table with an account's overrides (an Enterprise contract's rates or included amounts).

use std::fmt;

use crate::error::Error;
use crate::logpush::destination::Billing;

/// Bytes in a GB as escpush bills them: 10^9. Cloudflare's pricing pages do not say (a
/// choice of [`COST_CHOICES`](super::COST_CHOICES)); the API counts its own sizes in decimal
/// units (`max_upload_bytes`: "at least 5 MB", 5,000,000).
pub const BYTES_PER_GB: u64 = 1_000_000_000;

/// Requests in a million: the unit of Workers Trace Events' rate.
pub const REQUESTS_PER_MILLION: u64 = 1_000_000;

/// The days of the month a projection fills: 30 (R2's pricing page counts a billing period
/// as 30 days; Logpush's says "monthly" and no more).
pub const DAYS_PER_MONTH: u32 = 30;

/// The seconds of that month.
pub const SECONDS_PER_MONTH: u64 = DAYS_PER_MONTH as u64 * 86_400;

/// Where the table is read from, and when.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct PricingSource {
    /// The page, in cloudflare/cloudflare-docs.
    pub page: &'static str,
    /// The commit of cloudflare-docs it was read at.
    pub commit: &'static str,
    /// The first day it bills (Free, Pro and Business; Enterprise contracts keep theirs). The
    /// page gives no date; this one is the project's API notes' (`/work/shared/api/README.md`)
    /// and issue 35's.
    pub effective: &'static str,
    /// The day escpush's table was checked against it.
    pub read: &'static str,
}

/// The source of [`PRICES`].
pub const PRICING_SOURCE: PricingSource = PricingSource {
    page: "src/content/docs/logs/logpush/pricing.mdx",
    commit: "47a2db921963ce0287a93900895d4db7495a986b",
    effective: "2026-09-28",
    read: "2026-11-29",
};

/// An amount of money, exact to the billionth of a dollar (no float is summed): a charge, a
/// rate, a difference of two costs (negative). Shown to the cent, or to four places under one.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Money {
    nanos: i128,
}

/// The most dollars a rate or an amount given may be: far past any price, and the bound that
/// keeps every product exact in 128 bits.
const MAX_DOLLARS: f64 = 1e9;

impl Money {
    pub const ZERO: Money = Money { nanos: 0 };

    /// `nanos` billionths of a dollar.
    pub const fn from_nanos(nanos: i128) -> Money {
        Money { nanos }
    }

    /// The billionths of a dollar.
    pub fn nanos(self) -> i128 {
        self.nanos
    }

    /// Dollars given by a person, to the nearest billionth: refused (naming `what`) when not
    /// a number of 0 or more, up to a billion.
    pub fn from_dollars(dollars: f64, what: &'static str) -> Result<Money, Error> {
        if !(0.0..=MAX_DOLLARS).contains(&dollars) {
            return Err(Error::InvalidInput {
                what,
                message: format!("{dollars} is not a price: give dollars, 0 or more (at most {MAX_DOLLARS:e})"),
            });
        }
        // In range: a float of at most 1e18 nanodollars converts exactly enough.
        #[allow(clippy::cast_possible_truncation)]
        let nanos = (dollars * 1e9).round() as i128;
        Ok(Money { nanos })
    }

    /// In dollars (the nearest float).
    #[allow(clippy::cast_precision_loss)]
    pub fn dollars(self) -> f64 {
        self.nanos as f64 / 1e9
    }
}

impl std::ops::Add for Money {
    type Output = Money;
    fn add(self, other: Money) -> Money {
        Money {
            nanos: self.nanos + other.nanos,
        }
    }
}

impl std::ops::Sub for Money {
    type Output = Money;
    fn sub(self, other: Money) -> Money {
        Money {
            nanos: self.nanos - other.nanos,
        }
    }
}

impl std::iter::Sum for Money {
    fn sum<I: Iterator<Item = Money>>(iter: I) -> Money {
        iter.fold(Money::ZERO, |a, b| a + b)
    }
}

/// `$4.11`, `-$3.80`, `$0.0042` (under a cent, four places), `$0.00`.
impl fmt::Display for Money {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let sign = if self.nanos < 0 { "-" } else { "" };
        let abs = self.nanos.unsigned_abs();
        let (places, unit) = if abs != 0 && abs < 10_000_000 {
            (4, 100_000)
        } else {
            (2, 10_000_000)
        };
        let scaled = (abs + unit / 2) / unit;
        if scaled == 0 {
            return f.write_str("$0.00");
        }
        let per_dollar = 10u128.pow(places);
        write!(
            f,
            "{sign}${}.{:0width$}",
            scaled / per_dollar,
            scaled % per_dollar,
            width = places as usize
        )
    }
}

/// What a price counts: GB (of delivered or transformed bytes) or millions of requests.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Unit {
    /// [`BYTES_PER_GB`] bytes.
    Gb,
    /// A million requests (Workers Trace Events).
    MillionRequests,
}

impl Unit {
    /// `"GB"` or `"million requests"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Unit::Gb => "GB",
            Unit::MillionRequests => "million requests",
        }
    }

    /// What one unit counts: bytes or requests.
    pub fn base(self) -> &'static str {
        match self {
            Unit::Gb => "bytes",
            Unit::MillionRequests => "requests",
        }
    }

    /// How many of [`Unit::base`] one unit is.
    pub fn base_per_unit(self) -> u64 {
        match self {
            Unit::Gb => BYTES_PER_GB,
            Unit::MillionRequests => REQUESTS_PER_MILLION,
        }
    }

    /// `amount` of [`Unit::base`] in this unit (the nearest float).
    #[allow(clippy::cast_precision_loss)]
    pub fn of(self, amount: u64) -> f64 {
        amount as f64 / self.base_per_unit() as f64
    }
}

/// A component of a Logpush bill, each computed on its own (pricing.mdx, "Calculate monthly
/// charges").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Component {
    /// Uncompressed bytes delivered to R2 or Pipelines.
    InternalExport,
    /// Uncompressed bytes delivered to any other destination.
    ExternalExport,
    /// Uncompressed input bytes of a job's transformer.
    Transformation,
    /// Requests exported by a `workers_trace_events` job (Workers Logpush).
    WorkersRequests,
}

impl Component {
    /// Every component, in the order of the table.
    pub const ALL: [Component; 4] = [
        Component::InternalExport,
        Component::ExternalExport,
        Component::Transformation,
        Component::WorkersRequests,
    ];

    /// Its name: `internal`, `external`, `transform`, `workers`; the overrides are
    /// `<name>_rate` and `<name>_included`.
    pub fn name(self) -> &'static str {
        match self {
            Component::InternalExport => "internal",
            Component::ExternalExport => "external",
            Component::Transformation => "transform",
            Component::WorkersRequests => "workers",
        }
    }

    /// The override of its rate: `internal_rate`, ...
    pub fn rate_option(self) -> &'static str {
        match self {
            Component::InternalExport => "internal_rate",
            Component::ExternalExport => "external_rate",
            Component::Transformation => "transform_rate",
            Component::WorkersRequests => "workers_rate",
        }
    }

    /// The override of its included amount: `internal_included`, ...
    pub fn included_option(self) -> &'static str {
        match self {
            Component::InternalExport => "internal_included",
            Component::ExternalExport => "external_included",
            Component::Transformation => "transform_included",
            Component::WorkersRequests => "workers_included",
        }
    }

    /// Reads a name of [`Component::name`].
    pub fn parse(text: &str) -> Result<Component, Error> {
        Component::ALL
            .into_iter()
            .find(|c| c.name() == text)
            .ok_or_else(|| Error::InvalidInput {
                what: "pricing component",
                message: format!(
                    "`{}` is not one; use one of {}",
                    escpush_filter::suggest::cut(text),
                    Component::ALL.map(Component::name).join(", ")
                ),
            })
    }

    /// The export component of a destination class.
    pub fn export(billing: Billing) -> Component {
        match billing {
            Billing::Internal => Component::InternalExport,
            Billing::External => Component::ExternalExport,
        }
    }

    /// The unit its usage is counted in.
    pub fn unit(self) -> Unit {
        match self {
            Component::WorkersRequests => Unit::MillionRequests,
            _ => Unit::Gb,
        }
    }

    /// Whether its usage is delivered bytes.
    pub fn is_delivery(self) -> bool {
        matches!(self, Component::InternalExport | Component::ExternalExport)
    }
}

/// One row of the table: a component, what it applies to, the usage included each month
/// per account, the rate past it, and its source.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Price {
    pub component: Component,
    /// The table's words for it.
    pub usage: &'static str,
    /// The destinations and datasets it applies to.
    pub applies_to: &'static str,
    /// Included each month per account, in [`Unit::base`] (bytes, requests).
    pub included: u64,
    /// Dollars per [`Component::unit`] past the included amount.
    pub rate: Money,
    /// Where the row is written.
    pub source: &'static str,
}

impl Price {
    /// The included amount in the component's unit (GB, million requests).
    pub fn included_units(&self) -> f64 {
        self.component.unit().of(self.included)
    }

    /// The charge of `usage` (in [`Unit::base`]), the included amount subtracted or not,
    /// exact to the nanodollar (rounded half up).
    pub fn charge(&self, usage: u64, subtract_included: bool) -> Money {
        let billable = if subtract_included {
            usage.saturating_sub(self.included)
        } else {
            usage
        };
        let per = i128::from(self.component.unit().base_per_unit());
        // billable < 2^64 and rate <= 1e18: the product fits in 128 bits.
        Money::from_nanos((i128::from(billable) * self.rate.nanos() + per / 2) / per)
    }
}

const fn row(
    component: Component,
    usage: &'static str,
    applies_to: &'static str,
    included: u64,
    rate_nanos: i128,
    source: &'static str,
) -> Price {
    Price {
        component,
        usage,
        applies_to,
        included,
        rate: Money::from_nanos(rate_nanos),
        source,
    }
}

/// Logpush's prices (pricing.mdx, [`PRICING_SOURCE`]), one row a component, as data.
pub const PRICES: [Price; 4] = [
    row(
        Component::InternalExport,
        "Logs exported to internal destinations",
        "R2 (`r2://`) and Pipelines; every dataset but workers_trace_events",
        25 * BYTES_PER_GB,
        30_000_000,
        "pricing.mdx, \"Logpush pricing\": 25 GB per Cloudflare account, $0.03 per additional GB; \"R2 and Pipelines are internal destinations\"",
    ),
    row(
        Component::ExternalExport,
        "Logs exported to external destinations",
        "every other destination; every dataset but workers_trace_events",
        25 * BYTES_PER_GB,
        100_000_000,
        "pricing.mdx, \"Logpush pricing\": 25 GB per Cloudflare account, $0.10 per additional GB; \"All other destinations are external\"",
    ),
    row(
        Component::Transformation,
        "Logs transformed",
        "the uncompressed input bytes of a job's transformer",
        BYTES_PER_GB,
        40_000_000,
        "pricing.mdx, \"Logpush pricing\" and \"Measure usage\": 1 GB per Cloudflare account, $0.04 per additional GB of input",
    ),
    row(
        Component::WorkersRequests,
        "Workers Logpush requests",
        "the dataset workers_trace_events, whatever its destination (Workers Paid plan)",
        10 * REQUESTS_PER_MILLION,
        50_000_000,
        "pricing.mdx, \"Workers Logpush\": 10 million requests per month, $0.05 per additional million",
    ),
];

/// The prices an account pays: [`PRICES`] with its overrides (an Enterprise contract's
/// rates or included amounts). Every rule of a cost is computed from one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pricing {
    prices: [Price; 4],
}

impl Default for Pricing {
    fn default() -> Self {
        Pricing::cloudflare()
    }
}

impl Pricing {
    /// The published table, [`PRICES`].
    pub fn cloudflare() -> Pricing {
        Pricing { prices: PRICES }
    }

    /// Its rows, in the table's order.
    pub fn prices(&self) -> &[Price] {
        &self.prices
    }

    /// The row of `component`.
    pub fn price(&self, component: Component) -> &Price {
        self.prices
            .iter()
            .find(|p| p.component == component)
            .unwrap_or(&self.prices[0])
    }

    /// Whether it is the published table, no override.
    pub fn is_cloudflare(&self) -> bool {
        self.prices == PRICES
    }

    fn price_mut(&mut self, component: Component) -> &mut Price {
        let i = self.prices.iter().position(|p| p.component == component).unwrap_or(0);
        &mut self.prices[i]
    }

    /// With `component`'s rate, in dollars per its unit; refused (naming the rate, like
    /// `external_rate`) when negative, NaN or infinite.
    pub fn with_rate(mut self, component: Component, dollars: f64) -> Result<Pricing, Error> {
        self.price_mut(component).rate = Money::from_dollars(dollars, component.rate_option())?;
        Ok(self)
    }

    /// With `component`'s included amount, in its unit (GB, million requests); refused
    /// (naming it, like `internal_included`) when negative, NaN or infinite.
    pub fn with_included(mut self, component: Component, units: f64) -> Result<Pricing, Error> {
        let what = component.included_option();
        let per = component.unit().base_per_unit();
        #[allow(clippy::cast_precision_loss)]
        let most = u64::MAX as f64 / per as f64;
        if !units.is_finite() || units < 0.0 || units > most {
            return Err(Error::InvalidInput {
                what,
                message: format!(
                    "{units} is not an included amount: give {}, 0 or more",
                    component.unit().as_str()
                ),
            });
        }
        #[allow(
            clippy::cast_possible_truncation,
            clippy::cast_sign_loss,
            clippy::cast_precision_loss
        )]
        let base = (units * per as f64).round() as u64;
        self.price_mut(component).included = base;
        Ok(self)
    }

    /// With an override by its name (`external_rate`, `internal_included`, ...), the value in
    /// dollars per unit or in units: how the command line and Python give them.
    pub fn with_override(self, name: &str, value: f64) -> Result<Pricing, Error> {
        for c in Component::ALL {
            if name == c.rate_option() {
                return self.with_rate(c, value);
            }
            if name == c.included_option() {
                return self.with_included(c, value);
            }
        }
        let names: Vec<&str> = Component::ALL
            .iter()
            .flat_map(|c| [c.rate_option(), c.included_option()])
            .collect();
        let hint = escpush_filter::suggest::did_you_mean(escpush_filter::suggest::closest(
            name,
            names.iter().map(|n| (*n, *n)),
        ));
        Err(Error::InvalidInput {
            what: "pricing override",
            message: format!(
                "`{}` is not one; use one of {}{hint}",
                escpush_filter::suggest::cut(name),
                names.join(", ")
            ),
        })
    }
}
