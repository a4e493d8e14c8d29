//! What a job costs: Logpush's pricing table as data, a sample of deliveries made a month,
//! the month priced, and the difference of two costs.
//!
//! - [`PRICES`] / [`Pricing`]: the published rates and included amounts (pricing.mdx,
//!   [`PRICING_SOURCE`]), overridable for an Enterprise contract;
//! - [`project`]: a [`Sample`]'s measure (delivered bytes, records, lines read, the span of
//!   its timestamps) made a month's [`MonthlyUsage`], by its span, requests a day or a scale
//!   ([`Basis`]); the destination's class is [`DestinationConf::billing`](crate::DestinationConf::billing);
//! - [`Pricing::charge`] / [`Pricing::project_cost`] / [`Pricing::account_cost`]: a [`Cost`],
//!   each component on its own, the account's allowance shown and subtracted only when asked;
//! - [`CostChange`]: before and after of a change, `-38 GB/month, -$3.80`.
//!
//! Where the docs are silent, escpush's choice is a row of [`COST_CHOICES`], printed in
//! `docs/cost.md`.
//!
//! Files: `pricing.rs` (the table, units, [`Money`], overrides), `project.rs` (the month,
//! the charge, the difference).

mod pricing;
mod project;
#[cfg(test)]
mod tests;

pub use pricing::{
    Component, Money, Price, Pricing, PricingSource, Unit, BYTES_PER_GB, DAYS_PER_MONTH, PRICES, PRICING_SOURCE,
    REQUESTS_PER_MILLION, SECONDS_PER_MONTH,
};
pub use project::{
    billing_of, format_gb, month_scale, project, Basis, ComponentCost, Cost, CostChange, MonthlyUsage, Projection,
    Sample, PER_REQUEST_DATASET,
};

use crate::logpush::output::Undocumented;

const fn choice(case: &'static str, choice: &'static str) -> Undocumented {
    Undocumented { case, choice }
}

/// Every choice a cost makes where pricing.mdx is silent: the one place they are written
/// (`docs/cost.md` prints them; the code of each is in this module).
pub const COST_CHOICES: &[Undocumented] = &[
    choice(
        "A GB",
        "10^9 bytes (`BYTES_PER_GB`). Cloudflare's pricing pages do not say; the job API counts its own \
         sizes in decimal units (`max_upload_bytes`: \"at least 5 MB\" is 5,000,000).",
    ),
    choice(
        "A month",
        "30 days, 2,592,000 seconds (`DAYS_PER_MONTH`): pricing.mdx says \"monthly\"; R2's pricing page \
         counts a billing period as 30 days.",
    ),
    choice(
        "The time a sample covers",
        "The seconds from its first to its last timestamp. No timestamps, or all in one second (a span of \
         0), is refused: give the requests a day the sample stands for (`--requests-per-day`) or a scale \
         (`--scale`).",
    ),
    choice(
        "Requests a day",
        "The sample's lines read (before the filter) stand for that many requests a day: a month is the \
         sample times requests_per_day x 30 / lines read.",
    ),
    choice(
        "Workers Trace Events",
        "Billed per request (Workers Logpush): a record delivered is one request; the rate and the 10 \
         million included are per account, whatever the destination. Its bytes are shown, not priced by \
         the GB.",
    ),
    choice(
        "Pipelines",
        "Internal, as pricing.mdx says, but pipelines.mdx documents no `destination_conf` form (the \
         dashboard creates the job), so no scheme is read as Pipelines: give the class (`internal`) \
         yourself.",
    ),
    choice(
        "OpenTelemetry destinations",
        "Not in Logpush's GB pricing (pricing.mdx: event-based Workers Observability pricing) and no \
         `destination_conf` scheme: escpush does not price them.",
    ),
    choice(
        "The account's allowance",
        "Shown on every cost (what it would save) and subtracted only when asked: it is shared by every job \
         of the account, so a job's own cost is priced from its first GB. An account's jobs are summed by \
         component first, then the allowance taken once.",
    ),
    choice(
        "Rounding",
        "None of usage (pricing.mdx does not say a unit is rounded up): a charge is exact to the billionth \
         of a dollar and shown to the cent (under a cent, to four places).",
    ),
    choice(
        "Transformations",
        "Priced on the transformer's uncompressed input bytes when given (the caller measures them), \
         projected by the same factor as the deliveries; the deliveries after it are priced as exports.",
    ),
];
