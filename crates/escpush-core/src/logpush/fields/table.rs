//! The job field table as data: [`JOB_FIELDS`], one row per field of a log-push job (its
//! type, allowed values, nullability, secrecy, when it may be set, the record, the datasets
//! it applies to, its source), [`OUTPUT_OPTIONS`], one row per key of `output_options` (its
//! values and its default), and [`JOB_RULES`], the rules of two fields. The types of a
//! row and the checks that read it are the parent module's (`fields/mod.rs`); a new field is one row here.

use super::{
    AllowedValues, AppliesTo, Charset, Choice, InRecord, JobField, JobFieldType, JobRule, OptionDefault, OptionValue,
    OutputOption, RecordDefault,
};

/// Every field of a log-push job, in the order a job is shown.
///
/// The sources, in the project's order of authority: SPEC 2.3 (the seed) names `name`,
/// `logpull_options`, `dataset`, `filter` and `destination_conf`; where it is silent,
/// Cloudflare's published schema (`../shared/api/logpush-openapi-2024-08-07.json`, its
/// `#/components/schemas/logpush_*`), its docs (`src/content/docs/logs/logpush/...` of
/// cloudflare-docs) and the official Python SDK 5.9 (`LogpushJob`, `JobCreateParams`,
/// `JobUpdateParams`). The record holds the SDK's 16 `LogpushJob` keys and `filter` (which
/// Terraform reads back), never `ownership_challenge`.
pub const JOB_FIELDS: &[JobField] = &[
    JobField {
        name: "id",
        ty: JobFieldType::Id,
        allowed: AllowedValues::Any,
        nullable: false,
        secret: false,
        create: false,
        update: false,
        record: InRecord::Always(RecordDefault::Assigned),
        datasets: AppliesTo::All,
        about: "the job's id, given by the API",
        source: "schema logpush_id",
    },
    JobField {
        name: "name",
        ty: JobFieldType::Text,
        allowed: AllowedValues::Text {
            max_len: 512,
            chars: Charset::NameChars,
        },
        nullable: true,
        secret: false,
        create: true,
        update: true,
        record: InRecord::Always(RecordDefault::Null),
        datasets: AppliesTo::All,
        about: "the job's name (letters, digits, - and .)",
        source: "SPEC 2.3; schema logpush_name (pattern, maxLength 512); api-configuration.mdx (updatable)",
    },
    JobField {
        name: "dataset",
        ty: JobFieldType::Dataset,
        allowed: AllowedValues::Any,
        nullable: false,
        secret: false,
        create: true,
        update: false,
        record: InRecord::Always(RecordDefault::Null),
        datasets: AppliesTo::All,
        about: "the dataset the job pushes",
        source: "SPEC 2.3; SDK 5.9 (not in JobUpdateParams); example-logpush-curl.mdx (cannot be changed)",
    },
    JobField {
        name: "destination_conf",
        ty: JobFieldType::Destination,
        allowed: AllowedValues::Any,
        nullable: false,
        secret: false,
        create: true,
        update: true,
        record: InRecord::Always(RecordDefault::Null),
        datasets: AppliesTo::All,
        about: "where the job pushes, <scheme>://<path>?<params>; its credentials are masked",
        source: "SPEC 2.3; schema logpush_destination_conf; enable-destinations/*.mdx",
    },
    JobField {
        name: "enabled",
        ty: JobFieldType::Bool,
        allowed: AllowedValues::Any,
        nullable: false,
        secret: false,
        create: true,
        update: true,
        record: InRecord::Always(RecordDefault::Bool(false)),
        datasets: AppliesTo::All,
        about: "whether the job pushes (a new job is disabled unless this says otherwise)",
        source: "schema logpush_enabled; example-logpush-curl.mdx (false by default)",
    },
    JobField {
        name: "logpull_options",
        ty: JobFieldType::LogpullOptions,
        allowed: AllowedValues::Any,
        nullable: true,
        secret: false,
        create: true,
        update: true,
        record: InRecord::Always(RecordDefault::Null),
        datasets: AppliesTo::All,
        about: "fields=A,B&timestamps=rfc3339&CVE-2021-44228=true (deprecated: output_options)",
        source: "SPEC 2.3; schema logpush_logpull_options",
    },
    JobField {
        name: "filter",
        ty: JobFieldType::Filter,
        allowed: AllowedValues::Any,
        nullable: true,
        secret: false,
        create: true,
        update: true,
        record: InRecord::Always(RecordDefault::Null),
        datasets: AppliesTo::All,
        about: "which log lines the job pushes: a JSON document with `where`, as text",
        source: "SPEC 2.3, 4 rule 3, 8, App. B; filters.mdx; SDK 5.9",
    },
    JobField {
        name: "kind",
        ty: JobFieldType::Text,
        allowed: AllowedValues::OneOf(&[
            Choice::any(""),
            Choice {
                value: "edge",
                datasets: AppliesTo::Only(&["http_requests"]),
            },
        ]),
        nullable: true,
        secret: false,
        create: true,
        update: false,
        record: InRecord::Always(RecordDefault::Text("")),
        datasets: AppliesTo::All,
        about: "\"edge\" for an Edge Log Delivery job (http_requests only); empty (or left out) for a Logpush job",
        source: "api-configuration.mdx (Kind: cannot be used to update a job); edge-log-delivery.mdx; schema \
                 logpush_kind (nullable); SDK Literal[\"\", \"edge\"]",
    },
    JobField {
        name: "frequency",
        ty: JobFieldType::Text,
        allowed: AllowedValues::OneOf(&[Choice::any("high"), Choice::any("low")]),
        nullable: true,
        secret: false,
        create: true,
        update: true,
        record: InRecord::Always(RecordDefault::Text("high")),
        datasets: AppliesTo::All,
        about: "\"high\" or \"low\" (deprecated: use the max_upload_* fields)",
        source: "schema logpush_frequency (nullable, default high)",
    },
    JobField {
        name: "max_upload_bytes",
        ty: JobFieldType::Count,
        allowed: AllowedValues::RangeOrOff {
            least: 5_000_000,
            most: 1_000_000_000,
        },
        nullable: true,
        secret: false,
        create: true,
        update: true,
        record: InRecord::Always(RecordDefault::Null),
        datasets: AppliesTo::All,
        about: "largest upload, in bytes (0: no limit)",
        source: "schema logpush_max_upload_bytes; SDK Literal[0]",
    },
    JobField {
        name: "max_upload_records",
        ty: JobFieldType::Count,
        allowed: AllowedValues::RangeOrOff {
            least: 1_000,
            most: 1_000_000,
        },
        nullable: true,
        secret: false,
        create: true,
        update: true,
        record: InRecord::Always(RecordDefault::Null),
        datasets: AppliesTo::All,
        about: "most records per upload (0: no limit)",
        source: "schema logpush_max_upload_records; SDK Literal[0]",
    },
    JobField {
        name: "max_upload_interval_seconds",
        ty: JobFieldType::Count,
        allowed: AllowedValues::RangeOrOff { least: 30, most: 300 },
        nullable: true,
        secret: false,
        create: true,
        update: true,
        record: InRecord::Always(RecordDefault::Null),
        datasets: AppliesTo::All,
        about: "longest wait between uploads, in seconds (0: no limit)",
        source: "schema logpush_max_upload_interval_seconds; SDK Literal[0]",
    },
    JobField {
        name: "output_options",
        ty: JobFieldType::Object,
        allowed: AllowedValues::Options(OUTPUT_OPTIONS),
        nullable: true,
        secret: false,
        create: true,
        update: true,
        record: InRecord::Always(RecordDefault::Null),
        datasets: AppliesTo::All,
        about: "the output_options object, as JSON",
        source: "schema logpush_output_options; log-output-options.mdx; SDK 5.9 OutputOptions",
    },
    JobField {
        name: "ownership_challenge",
        ty: JobFieldType::Text,
        allowed: AllowedValues::Text {
            max_len: 4096,
            chars: Charset::TokenChars,
        },
        nullable: false,
        secret: true,
        create: true,
        update: true,
        record: InRecord::Never,
        datasets: AppliesTo::All,
        about: "the token the API wrote to the destination, proving it is yours",
        source: "schema logpush_ownership_challenge (not in logpush_logpush_job); logpush-ownership-challenge.mdx",
    },
    JobField {
        name: "filter_attack_traffic",
        ty: JobFieldType::Bool,
        allowed: AllowedValues::Any,
        // The record holds it on every job (SDK 5.9 `LogpushJob.filter_attack_traffic:
        // Optional[bool]`), `null` where it was never set, so `null` is a value of the field.
        nullable: true,
        secret: false,
        create: true,
        update: true,
        record: InRecord::Always(RecordDefault::Null),
        datasets: AppliesTo::Only(&["http_requests", "firewall_events", "network_analytics_logs"]),
        about: "leave out DDoS attack traffic",
        source: "changelog 2026-09-18-filter-ddos-attack-traffic.mdx; SDK 5.9 (LogpushJob: Optional[bool])",
    },
    JobField {
        name: "merge_subrequests",
        ty: JobFieldType::Bool,
        allowed: AllowedValues::Any,
        nullable: false,
        secret: false,
        create: true,
        update: true,
        record: InRecord::WhenGiven,
        datasets: AppliesTo::Only(&["http_requests"]),
        about: "merge subrequests into their parent request",
        source: "subrequests.mdx; changelog 2026-04-21-logpush-subrequests-merging.mdx",
    },
    JobField {
        name: "transformer_id",
        ty: JobFieldType::Id,
        allowed: AllowedValues::Any,
        // `null` detaches the transformer (transformers.mdx: "set transformer_id on the Logpush job").
        nullable: true,
        secret: false,
        create: true,
        update: true,
        record: InRecord::WhenGiven,
        datasets: AppliesTo::All,
        about: "the transformer (its SQL run on every batch) the job delivers through; null detaches it",
        source: "transformers.mdx (API: \"To attach or detach a transformer from a job, set transformer_id\"); \
                 not in SDK 5.9's LogpushJob",
    },
    JobField {
        name: "last_complete",
        ty: JobFieldType::Time,
        allowed: AllowedValues::Any,
        nullable: true,
        secret: false,
        create: false,
        update: false,
        record: InRecord::Always(RecordDefault::Null),
        datasets: AppliesTo::All,
        about: "the last time logs were pushed",
        source: "schema logpush_last_complete",
    },
    JobField {
        name: "last_error",
        ty: JobFieldType::Time,
        allowed: AllowedValues::Any,
        nullable: true,
        secret: false,
        create: false,
        update: false,
        record: InRecord::Always(RecordDefault::Null),
        datasets: AppliesTo::All,
        about: "the last time the job failed",
        source: "schema logpush_last_error",
    },
    JobField {
        name: "error_message",
        ty: JobFieldType::Text,
        allowed: AllowedValues::Any,
        nullable: true,
        secret: false,
        create: false,
        update: false,
        record: InRecord::Always(RecordDefault::Null),
        datasets: AppliesTo::All,
        about: "why the job is failing, if it is",
        source: "schema logpush_error_message",
    },
];

/// The rules of a job that tie fields together, or come from elsewhere than a field's row
/// (each is tested where it is enforced). The destinations' rules are
/// [`DESTINATIONS`](super::DESTINATIONS)' rows, the job limits
/// [`JOB_LIMITS`](super::JOB_LIMITS)'.
pub const JOB_RULES: &[JobRule] = &[
    JobRule {
        rule: "A job with a transformer_id delivers ndjson (output_options.output_type is not csv); the \
               transformer is the account's and its dataset is the job's (the emulator checks both; see \
               transformer rules below).",
        source: "transformers.mdx (Before you begin: \"Transformers are only available for NDJSON jobs\"; API errors)",
    },
    JobRule {
        rule: "A creation names a dataset of its scope (a zone dataset on a zone, an account dataset on an account) \
               and a destination_conf.",
        source: "SPEC 2.3; schema (destination_conf required); dataset pages (zone, account)",
    },
    JobRule {
        rule: "A filter, when given, is a JSON document with `where`; its conditions name fields of the dataset, \
               with the operators table B.1 allows for their type (`in` and `!in` on arrays too, as the seed \
               says, though the current filters.mdx marks them unsupported there).",
        source: "SPEC 4 rule 3, App. B; filters.mdx",
    },
    JobRule {
        rule: "A filter holds at most 30 comparison operators and 1000 bytes (its compact JSON).",
        source: "SPEC 8; filters.mdx (\"approximately 30 operators and 1000 bytes\")",
    },
    JobRule {
        rule: "logpull_options name at least one field, each a field of the dataset, once; timestamps is one of \
               unixnano, unix, rfc3339.",
        source: "SPEC 2.3; api-configuration.mdx (Options)",
    },
    JobRule {
        rule: "output_options.field_names name at least one field, each a field of the dataset, once, as \
               logpull_options' fields do (and an Instant Logs session's fields, when given).",
        source: "api-configuration.mdx (Options: \"Refer to Datasets for the currently available fields\"; \
                 \"you need to specify the fields names\")",
    },
    JobRule {
        rule: "A destination that needs an ownership challenge (see Destinations) is created with \
               ownership_challenge, and an update that changes destination_conf to one sends a new challenge \
               with it.",
        source: "logpush-ownership-challenge.mdx; example-logpush-curl.mdx (\"To modify destination_conf, you will \
                 need to request an ownership challenge\")",
    },
    JobRule {
        rule: "An update changes only the fields it sends; escpush sends only the fields the caller changed \
               (output_options merged onto the stored one and sent whole, as the API replaces it whole), checked \
               as a creation would check them on the stored job with the changes.",
        source: "example-logpush-curl.mdx (PUT {\"enabled\": true}); SDK 5.9 jobs.update",
    },
    JobRule {
        rule: "An update cannot change dataset or kind; escpush never sends kind in an update.",
        source: "example-logpush-curl.mdx (dataset \"cannot be changed\"); api-configuration.mdx (Kind)",
    },
    JobRule {
        rule: "A job record never holds ownership_challenge; a value escpush shows as `***` (a masked credential) \
               is refused, not sent.",
        source: "schema logpush_logpush_job; SDK 5.9 LogpushJob",
    },
];

const fn option(
    name: &'static str,
    value: OptionValue,
    nullable: bool,
    default: OptionDefault,
    source: &'static str,
) -> OutputOption {
    OutputOption {
        name,
        value,
        nullable,
        default,
        datasets: AppliesTo::All,
        source,
    }
}

/// The defaults log-output-options.mdx gives ("Default output_options for `ndjson`" and
/// "for CSV", and the list of settings), by key.
const NDJSON_CSV: &str = "log-output-options.mdx (Examples: the defaults of each output_type)";

/// Every key of `output_options` (schema `logpush_output_options`, SDK 5.9 `OutputOptions`,
/// log-output-options.mdx). Where they differ: the key is `CVE-2021-44228` (SDK, docs; the
/// schema misspells it `CVE-2021-4428`), `timestamp_format` also takes `rfc3339ms` and
/// `rfc3339ns` (SDK; changelog 2026-03-25), `sample_rate` excludes 0 (api-configuration.mdx
/// "from 0.0 (exclusive) to 1.0 (inclusive)"; the schema's minimum includes it), and
/// `merge_subrequests` (SDK) and `stringify_object` (bigquery.mdx) are newer than the schema.
pub const OUTPUT_OPTIONS: &[OutputOption] = &[
    option(
        "field_names",
        OptionValue::FieldNames,
        false,
        OptionDefault::Nothing,
        "schema; api-configuration.mdx",
    ),
    option(
        "output_type",
        OptionValue::OneOf(&["ndjson", "csv"]),
        false,
        OptionDefault::Json("\"ndjson\""),
        "schema; log-output-options.mdx",
    ),
    option(
        "batch_prefix",
        OptionValue::Text,
        true,
        OptionDefault::Nothing,
        "schema",
    ),
    option(
        "batch_suffix",
        OptionValue::Text,
        true,
        OptionDefault::Nothing,
        "schema",
    ),
    option(
        "record_prefix",
        OptionValue::Text,
        true,
        OptionDefault::PerOutputType(&[("ndjson", "{"), ("csv", "")]),
        NDJSON_CSV,
    ),
    option(
        "record_suffix",
        OptionValue::Text,
        true,
        OptionDefault::PerOutputType(&[("ndjson", "}\n"), ("csv", "\n")]),
        NDJSON_CSV,
    ),
    option(
        "record_template",
        OptionValue::Text,
        true,
        OptionDefault::Nothing,
        "schema; log-output-options.mdx (its subset of Go's text/template)",
    ),
    option(
        "record_delimiter",
        OptionValue::Text,
        true,
        OptionDefault::Nothing,
        "schema",
    ),
    option(
        "field_delimiter",
        OptionValue::Text,
        true,
        OptionDefault::PerOutputType(&[("ndjson", ","), ("csv", ",")]),
        NDJSON_CSV,
    ),
    option(
        "timestamp_format",
        OptionValue::OneOf(&["unixnano", "unix", "rfc3339", "rfc3339ms", "rfc3339ns"]),
        false,
        OptionDefault::Json("\"unixnano\""),
        "schema; SDK 5.9; changelog 2026-03-25; log-output-options.mdx (default unixnano)",
    ),
    option(
        "sample_rate",
        OptionValue::Fraction,
        true,
        OptionDefault::Json("1"),
        "api-configuration.mdx (Sampling rate); SDK 5.9; log-output-options.mdx (default 1.0)",
    ),
    option(
        "CVE-2021-44228",
        OptionValue::Bool,
        true,
        OptionDefault::Json("false"),
        "SDK 5.9; log-output-options.mdx",
    ),
    OutputOption {
        name: "merge_subrequests",
        value: OptionValue::Bool,
        nullable: true,
        default: OptionDefault::Json("false"),
        datasets: AppliesTo::Only(&["http_requests"]),
        source: "SDK 5.9 OutputOptions",
    },
    option(
        "stringify_object",
        OptionValue::Bool,
        true,
        OptionDefault::Json("false"),
        "bigquery.mdx",
    ),
];
