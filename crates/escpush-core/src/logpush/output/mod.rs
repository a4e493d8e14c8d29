//! What a job delivers: a log line turned into the bytes a log-push job writes for it, as
//! its `output_options` (or its older `logpull_options`) say
//! (`src/content/docs/logs/logpush/logpush-job/log-output-options.mdx` in
//! cloudflare/cloudflare-docs). The one owner of the job's formatter: a preview, a count of
//! delivered (billed) bytes and a cost are built on it.
//!
//! - [`OutputFormat`]: the settings, resolved: the keys given, checked by the job field
//!   table, and every other key at the default of its row of [`OUTPUT_OPTIONS`](super::OUTPUT_OPTIONS)
//!   (per `output_type` where the docs give one: ndjson `{` … `}\n`, csv … `\n`, `,` between
//!   fields), the fields in the order of `field_names`, which of them are timestamps (the
//!   dataset's `int or string` fields), the parsed `record_template` ([`RecordTemplate`]).
//! - [`Formatter`]: one line in, its record out (ndjson or csv values, the template,
//!   prefixes, suffixes, delimiters, timestamps converted to `timestamp_format` from any
//!   log-push form, read by escpush-filter's [`Timestamp`](escpush_filter::Timestamp)); the
//!   job's filter on the same walk of the line ([`Formatter::with_filter`]); `sample_rate`
//!   by a seeded deterministic rule ([`Formatter::sampled`]); batches ([`Batch`]:
//!   `batch_prefix`, `record_delimiter` between records, `batch_suffix`); `CVE-2021-44228`
//!   over every byte. No allocation per line: records are appended to the caller's buffer.
//!
//! Where the docs are silent, escpush's choice is a row of [`UNDOCUMENTED`], printed in
//! `docs/job-rules.md`.
//!
//! - [`Batcher`]: records cut into batches as log-push cuts them, under a job's
//!   [`BatchLimits`] (`max_upload_bytes`, `max_upload_records`, `max_upload_interval_seconds`),
//!   counted without a copy or written to a [`BatchSink`]; [`JobOutput`]: a job's dataset,
//!   filter, settings and limits read from its fields.
//!
//! Files: `resolve.rs` (the settings and their defaults), `template.rs` (the template
//! subset), `values.rs` (a value in ndjson or csv, timestamps), `writer.rs` (records,
//! batches, sampling, the CVE replacement), `batches.rs` (limits and the cutter), `job.rs`
//! (a job's delivery settings read from its fields).

#[cfg(test)]
mod batch_tests;
mod batches;
mod job;
mod resolve;
mod template;
#[cfg(test)]
mod tests;
mod values;
mod writer;

pub use batches::{Added, BatchInfo, BatchLimits, BatchSink, Batcher, RecordTime};
pub use job::JobOutput;
pub use resolve::{OutputFormat, OutputType, TimestampFormat};
pub use template::{RecordTemplate, TemplatePart};
pub(crate) use values::json_string;
pub use writer::{Batch, Delivery, Formatter};

/// A case log-output-options.mdx leaves open, and what escpush's formatter does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Undocumented {
    pub case: &'static str,
    pub choice: &'static str,
}

const fn case(case: &'static str, choice: &'static str) -> Undocumented {
    Undocumented { case, choice }
}

/// Every choice the formatter makes where the docs are silent: the one place they are
/// written (`docs/job-rules.md` prints them; the code of each is in this module).
pub const UNDOCUMENTED: &[Undocumented] = &[
    case(
        "A string in csv",
        "In double quotes, each `\"` in it doubled (RFC 4180); every other character as it is, a line \
         break too. The docs show csv strings quoted and say quoting differs from ndjson.",
    ),
    case(
        "A string in ndjson",
        "JSON's quotes: `\"` and `\\` escaped, control characters as `\\b \\f \\n \\r \\t` or `\\u00XX`, \
         everything else as UTF-8 (no HTML escapes); an escaped lone surrogate of the line as `\\uXXXX` \
         (in csv U+FFFD, the same three bytes).",
    ),
    case(
        "A field of `field_names` missing from the line, or null",
        "`null`: in ndjson the member `\"Name\":null`, in csv a bare `null` (a string `\"null\"` is \
         quoted), as the docs say of a template field that is not in `field_names`.",
    ),
    case(
        "An object or an array",
        "Its JSON text without the whitespace outside its strings (whose escapes are kept): bare in \
         ndjson, as a JSON string with `stringify_object`, and quoted as a string in csv.",
    ),
    case(
        "A `field_delimiter` (or any delimiter) inside a value",
        "Nothing is escaped but quotes: strings are always quoted, so a delimiter inside one stays \
         inside its quotes; numbers, `true`, `false` and `null` are bare.",
    ),
    case(
        "Numbers",
        "As the line writes them: an integer in its canonical text (`-0` is `0`), any size; a float \
         as written.",
    ),
    case(
        "A timestamp field",
        "The dataset's `int or string` fields are timestamps. A value that is a time in any \
         log-push form (escpush-filter's `Timestamp`: an integer read by its size, so nanoseconds \
         before March 1973 are not told from seconds) is written in `timestamp_format`: `unixnano` and `unix` as integers \
         (`unix` rounded down), `rfc3339` as text of whole seconds (rounded down), `rfc3339ms` \
         and `rfc3339ns` with 3 and 9 fraction digits, always in UTC (`Z`). A value that is no \
         time is written as the line holds it.",
    ),
    case(
        "`record_template` and the output type",
        "A field is written by the rules of `output_type` (quoted strings in both); text and \
         constants as they are; `record_prefix` and `record_suffix` still go around it; \
         `field_delimiter` is ignored (documented).",
    ),
    case(
        "Template syntax beyond the three tokens",
        "Refused at creation, naming the action and its character: Go's trim markers `{{-` \
         `-}}`, `{{ . }}`, `{{ .A.B }}`, pipelines, numbers, keywords, a comment not at the \
         delimiters (`{{ /* x */ }}`). A constant is a Go string literal (`\"...\"` with Go's \
         escapes, or raw `` `...` ``), kept to UTF-8.",
    ),
    case(
        "`sample_rate`",
        "The API samples at random; escpush keeps a line when SplitMix64's finaliser of \
         (the 64-bit FNV-1a hash of its bytes xor a seed, 0 unless given) is below rate × \
         2^64: the same lines for a seed on every run, that share of many distinct lines. \
         Sampling follows the filter.",
    ),
    case(
        "`CVE-2021-44228`",
        "`${` becomes `x{` in every delivered byte: values, prefixes, suffixes, delimiters and \
         templates, across their joins. It changes no byte count.",
    ),
    case(
        "Batches",
        "`batch_prefix` before a batch's first record, `record_delimiter` between two records \
         (never before the first or after the last), `batch_suffix` after the last; a batch \
         with no record is not delivered (no bytes).",
    ),
    case(
        "`max_upload_*` left null",
        "The API's defaults: `max_upload_records` 100,000 and `max_upload_interval_seconds` 30 \
         (schema defaults; api-configuration.mdx \"internal defaults of 30s, 100k records\"); \
         `max_upload_bytes` no limit (the docs' \"destinations globally defined limits\" are not \
         published). 0 is no limit of that kind.",
    ),
    case(
        "How a preview cuts batches",
        "In input order, a new batch when the next record would pass `max_upload_records`, or \
         `max_upload_bytes` counting the batch's framing (prefix, delimiters and suffix), or \
         when its time (the dataset's time field) is at or past the batch's earliest time plus \
         `max_upload_interval_seconds` (a record without a time never cuts). A record alone over \
         `max_upload_bytes` is a batch of its own, over the limit: a record is never split.",
    ),
    case(
        "A key a line holds twice",
        "The last one, as the filter reads it (and `json.loads`).",
    ),
    case(
        "`merge_subrequests`",
        "Kept, not modelled: each line is formatted as it is given.",
    ),
    case(
        "`logpull_options`",
        "Read as \"How to migrate\" maps them: `fields` as `field_names`, `sample` as \
         `sample_rate`, `timestamps` as `timestamp_format`, `CVE-2021-44228`; the rest at the \
         ndjson defaults. `output_options`, when set, wins.",
    ),
];
