//! `docs/cost.md` is the rendering of core's pricing (`PRICES`, `PRICING_SOURCE`, the units,
//! `COST_CHOICES`): this test fails when the two differ, so the page a user reads is what
//! escpush computes. `ESCPUSH_BLESS=1 cargo test -p escpush-core --test cost_doc` writes the
//! page again after a change of the table.

mod common;

use std::fmt::Write as _;

use escpush_core::{
    Billing, Pricing, BYTES_PER_GB, COST_CHOICES, DAYS_PER_MONTH, DESTINATIONS, PRICES, PRICING_SOURCE,
    SECONDS_PER_MONTH,
};

/// A cell's text: `|` escaped.
fn cell(text: &str) -> String {
    text.replace('|', "\\|")
}

fn render() -> String {
    let s = PRICING_SOURCE;
    let mut out = String::new();
    let _ = write!(
        out,
        "# What a log-push job costs\n\n\
         Since {effective} (the date of the announcement; the pricing page gives none), Logpush bills Free, Pro and Business accounts by the uncompressed bytes it \
         delivers (Enterprise contracts keep their pricing: give escpush its rates, below). escpush prices a \
         job from a sample of its logs: the bytes the job's formatter would deliver for it, made a month, at \
         the rate of the destination's class. The table is core's (`crates/escpush-core/src/logpush/cost/`), \
         read from cloudflare-docs `{page}` at commit `{commit}` on {read}; this page is generated from it \
         (`crates/escpush-core/tests/cost_doc.rs` fails when they differ).\n\n",
        effective = s.effective,
        page = s.page,
        commit = &s.commit[..8],
        read = s.read,
    );
    out.push_str("## The table\n\n");
    out.push_str(
        "Each component is computed on its own: billable = max(0, usage - included) x rate. The included \
         amounts are per account, each month.\n\n",
    );
    out.push_str("| component | usage | applies to | included a month | rate | override | source |\n");
    out.push_str("|---|---|---|---|---|---|---|\n");
    for p in &PRICES {
        let unit = p.component.unit().as_str();
        let _ = writeln!(
            out,
            "| `{}` | {} | {} | {} {unit} | {} per {} | `{}`, `{}` | {} |",
            p.component.name(),
            cell(p.usage),
            cell(p.applies_to),
            p.included_units(),
            p.rate,
            if unit == "GB" { "GB" } else { "million" },
            p.component.rate_option(),
            p.component.included_option(),
            cell(p.source),
        );
    }
    let _ = write!(
        out,
        "\nA GB is {BYTES_PER_GB} bytes; a month is {DAYS_PER_MONTH} days ({SECONDS_PER_MONTH} seconds). \
         The published table's worked example, 40 GB internal, 60 GB external and 5 GB transformed, \
         comes to {} (a test of core).\n\n",
        worked_example()
    );
    out.push_str("## The destination's class\n\nRead from `destination_conf`'s scheme (the Destinations table of job-rules.md):\n\n");
    for b in Billing::ALL {
        let schemes: Vec<String> = DESTINATIONS
            .iter()
            .filter(|d| d.billing == b)
            .map(|d| format!("`{}`", d.scheme))
            .collect();
        let _ = writeln!(out, "- {}: {}", b.as_str(), schemes.join(", "));
    }
    out.push_str("\n## Where the docs are silent\n\n| case | not documented; escpush does |\n|---|---|\n");
    for c in COST_CHOICES {
        let _ = writeln!(out, "| {} | {} |", cell(c.case), cell(c.choice));
    }
    out
}

fn worked_example() -> String {
    use escpush_core::{Component, MonthlyUsage};
    let gb = BYTES_PER_GB;
    let usage = MonthlyUsage::new()
        .with(Component::InternalExport, 40 * gb)
        .with(Component::ExternalExport, 60 * gb)
        .with(Component::Transformation, 5 * gb);
    let cost = Pricing::cloudflare().charge(&usage, true);
    let parts: Vec<String> = cost.components.iter().map(|c| c.charge.to_string()).collect();
    format!("{} = {}", parts.join(" + "), cost.total())
}

#[test]
fn the_cost_page_is_the_table() {
    common::page_is_current("docs/cost.md", &render(), "cost_doc");
}
