//! `docs/job-rules.md` is the rendering of core's job rules (`JOB_FIELDS`, `OUTPUT_OPTIONS`,
//! `DESTINATIONS`, `JOB_LIMITS`, `JOB_RULES`, the formatter's `UNDOCUMENTED` choices): this test fails when the two differ, so the
//! page a user reads is what escpush enforces. `ESCPUSH_BLESS=1 cargo test -p escpush-core
//! --test job_rules_doc` writes the page again after a change of the rules.

mod common;

use std::fmt::Write as _;

use escpush_core::{
    AllowedValues, AppliesTo, Challenge, InRecord, JobFieldType, OptionDefault, OptionValue, RecordDefault,
    DESTINATIONS, INSTANT_LOGS_RULES, JOB_FIELDS, JOB_LIMITS, JOB_RULES, OUTPUT_OPTIONS, UNDOCUMENTED,
};

fn yes(b: bool) -> &'static str {
    if b {
        "yes"
    } else {
        "no"
    }
}

fn datasets(applies: AppliesTo) -> String {
    match applies {
        AppliesTo::Only(names) => names.join(", "),
        _ => "all".to_owned(),
    }
}

/// A cell's text: `|` escaped.
fn cell(text: &str) -> String {
    text.replace('|', "\\|")
}

fn values(ty: JobFieldType, allowed: AllowedValues) -> String {
    match allowed {
        AllowedValues::OneOf(choices) => choices
            .iter()
            .map(|c| match c.datasets {
                AppliesTo::All => format!("`{:?}`", c.value),
                only => format!("`{:?}` ({} only)", c.value, datasets(only)),
            })
            .collect::<Vec<_>>()
            .join(", "),
        AllowedValues::RangeOrOff { least, most } => format!("{least} to {most}, or 0 (off)"),
        AllowedValues::Text { max_len, chars } => format!("at most {max_len} characters of `{}`", chars.pattern()),
        AllowedValues::Options(_) => "an object of the keys below".to_owned(),
        _ => match ty {
            JobFieldType::Dataset => "a dataset of the scope".to_owned(),
            JobFieldType::Destination => "see Destinations".to_owned(),
            JobFieldType::Filter | JobFieldType::LogpullOptions => "see Other rules".to_owned(),
            JobFieldType::Time => "an RFC 3339 time".to_owned(),
            other => other.describe().to_owned(),
        },
    }
}

fn record(r: InRecord) -> String {
    match r {
        InRecord::Never => "never".to_owned(),
        InRecord::WhenGiven => "when given".to_owned(),
        InRecord::Always(RecordDefault::Assigned) => "always (given by the API)".to_owned(),
        InRecord::Always(d) => format!("always (else `{}`)", d.to_value()),
        _ => "?".to_owned(),
    }
}

fn option_values(v: OptionValue) -> String {
    match v {
        OptionValue::OneOf(values) => values.iter().map(|v| format!("`{v:?}`")).collect::<Vec<_>>().join(", "),
        other => other.describe().to_owned(),
    }
}

fn option_default(d: OptionDefault) -> String {
    match d {
        OptionDefault::Json(text) => format!("`{text}`"),
        OptionDefault::PerOutputType(pairs) => pairs
            .iter()
            .map(|(t, text)| format!("{t}: `{text:?}`"))
            .collect::<Vec<_>>()
            .join(", "),
        _ => "none".to_owned(),
    }
}

/// The formatter's choices where the docs are silent.
fn undocumented(out: &mut String) {
    out.push_str(
        "\n## What a job delivers, where the docs are silent\n\n\
         escpush's formatter (`crates/escpush-core/src/logpush/output/`) writes a log line as the job's \
         `output_options` say (log-output-options.mdx: the defaults above, each `output_type`, prefixes, \
         suffixes, delimiters, `record_template`, `timestamp_format`, `sample_rate`, `CVE-2021-44228`); every \
         example of that page is one of its tests. What the page does not say, escpush chooses:\n\n\
         | case | not documented; escpush does |\n|---|---|\n",
    );
    for u in UNDOCUMENTED {
        let _ = writeln!(out, "| {} | {} |", cell(u.case), cell(u.choice));
    }
}

fn render() -> String {
    let mut out = String::new();
    out.push_str(
        "# The rules escpush enforces on a log-push job\n\n\
         Every rule below is checked before anything is sent (`create_job`, `update_job`, `ensure_job`, \
         `apply`, `escpush logpush ...`), and the emulator refuses the same, so a job that escpush refuses is \
         one the API would refuse, and why is written here. Each names its source, in the project's order of \
         authority: the seed spec (SPEC), Cloudflare's published schema (`logpush-openapi-2024-08-07.json`, \
         its `#/components/schemas/logpush_*`), its docs (the `.mdx` pages of cloudflare-docs, \
         `src/content/docs/logs/logpush/...`) and the official Python SDK (`cloudflare` 5.9).\n\n\
         This page is generated from core's tables (`crates/escpush-core/src/logpush/fields/table.rs`, `fields/mod.rs`, \
         `destination.rs`, `limits.rs`, `instant_logs.rs`, `output/mod.rs`); `crates/escpush-core/tests/job_rules_doc.rs` \
         fails when they differ.\n\n",
    );
    out.push_str("## Job fields\n\n");
    out.push_str(
        "| field | type | values | null | secret | create | update | in the record | datasets | source |\n\
         |---|---|---|---|---|---|---|---|---|---|\n",
    );
    for f in JOB_FIELDS {
        let _ = writeln!(
            out,
            "| `{}` | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            f.name,
            f.ty.json_type(),
            cell(&values(f.ty, f.allowed)),
            yes(f.nullable),
            yes(f.secret),
            yes(f.create),
            yes(f.update),
            cell(&record(f.record)),
            datasets(f.datasets),
            cell(f.source)
        );
    }
    out.push_str("\n## `output_options` keys\n\nAny other key is refused.\n\n");
    out.push_str("| key | values | null | default | datasets | source |\n|---|---|---|---|---|---|\n");
    for o in OUTPUT_OPTIONS {
        let _ = writeln!(
            out,
            "| `{}` | {} | {} | {} | {} | {} |",
            o.name,
            cell(&option_values(o.value)),
            yes(o.nullable),
            cell(&option_default(o.default)),
            datasets(o.datasets),
            cell(o.source)
        );
    }
    undocumented(&mut out);
    out.push_str(
        "\n## Destinations\n\n`destination_conf` is `<scheme>://<path>?<params>` with one of these schemes; \
         an `s3` destination names its `region` (the destination-exists check alone takes one without, as \
         api-configuration.mdx asks it about `s3://foo`). Every parameter value but harmless ones (`region`, \
         `sse`, ...) is masked wherever escpush shows a destination.\n\n",
    );
    out.push_str(
        "| scheme | destination | ownership challenge | billed as (see cost.md) | source |\n|---|---|---|---|---|\n",
    );
    for d in DESTINATIONS {
        let challenge = match d.challenge {
            Challenge::Required => "required".to_owned(),
            Challenge::Unless(sets) => format!(
                "required, unless it carries {}",
                sets.iter()
                    .map(|set| set.iter().map(|p| format!("`{p}`")).collect::<Vec<_>>().join(" and "))
                    .collect::<Vec<_>>()
                    .join(", or ")
            ),
            _ => "not needed".to_owned(),
        };
        let _ = writeln!(
            out,
            "| `{}` | {} | {} | {} | {} |",
            d.scheme,
            cell(d.name),
            challenge,
            d.billing.as_str(),
            cell(d.source)
        );
    }
    out.push_str("\n## Job limits\n\n| limit | source |\n|---|---|\n");
    for l in JOB_LIMITS {
        let _ = writeln!(out, "| {} | {} |", l.describe(), l.source);
    }
    out.push_str("\n## Other rules\n\n| rule | source |\n|---|---|\n");
    for r in JOB_RULES {
        let _ = writeln!(out, "| {} | {} |", cell(r.rule), cell(r.source));
    }
    out.push_str(
        "\n## Instant Logs sessions\n\nA zone's live stream of its HTTP requests to a `wss://` address \
         (`create_instant_logs_job`, `escpush logpush instant-logs create`), from \
         `src/content/docs/logs/instant-logs.mdx`; escpush checks each before sending, and the emulator \
         refuses the same.\n\n| rule | source |\n|---|---|\n",
    );
    for r in INSTANT_LOGS_RULES {
        let _ = writeln!(out, "| {} | {} |", cell(r.rule), cell(r.source));
    }
    transformers(&mut out);
    out
}

/// The transformer rules of a job and a transformer record (core's `RECORD_RULES`).
fn transformers(out: &mut String) {
    let _ = write!(
        out,
        "\n## Transformers\n\nAn account's SQL stages of its jobs (`account.logpush.transformers`, `escpush \
         logpush transformer`), from `src/content/docs/logs/logpush/transformers.mdx` and SDK 5.9; escpush \
         checks each before sending, and the emulator refuses the same with the API's status. The SQL may \
         hold at most {} bytes.\n\n| rule | source |\n|---|---|\n",
        escpush_core::transformer::MAX_CODE_BYTES
    );
    for r in escpush_core::transformer::RECORD_RULES {
        let _ = writeln!(out, "| {} | {} |", cell(r.rule), cell(r.source));
    }
}

#[test]
fn the_job_rules_page_is_the_tables() {
    common::page_is_current("docs/job-rules.md", &render(), "job_rules_doc");
}
