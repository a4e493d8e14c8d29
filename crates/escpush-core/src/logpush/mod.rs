//! Log-push jobs (SPEC 2.3): the creation payload, checked before anything is sent.
//!
//! - [`LogpullOptions`]: the query-string options (`fields=A,B&timestamps=rfc3339&CVE-2021-44228=true`);
//! - [`DestinationConf`]: `<scheme>://<path>?<params>`, whose parameters may hold credentials
//!   and are therefore never printed;
//! - [`JobSpec`]: the whole payload, validated against its dataset (field names, the filter
//!   with its limits, the dataset's scope).

//! - [`JobOp`]: every request of the job endpoints, in the one shape of the core's operations.
//!
//! - [`JobUpdate`]: the update of a stored job as the API takes it: the fields that change
//!   and nothing else, checked as a creation on the stored job with the changes;
//! - [`plan_jobs`] / [`plan_job`]: jobs kept in code, by name: what to create, update (field
//!   by field), leave alone or delete, compared by meaning (filters by
//!   [`Filter::equivalent`](escpush_filter::Filter::equivalent)), refused past the API's job limits
//!   ([`JOB_LIMITS`]) and ordered so that a failure loses no job.
//!
//! Files: `fields` (the job field table, [`JOB_FIELDS`]: every field's type, values, secrecy,
//! when it may be set, the record; a record's redaction), `options` (logpull_options),
//! `destination` (destination_conf and its redaction), `job` (the payload, its builder and
//! checks), `requests` (JobOp and the
//! readers of the answers), `update` (the safe update), `compare` (fields by meaning),
//! `limits` (how many jobs a scope holds), `document` (a jobs document's desired jobs and
//! references), `plan` (ensure and apply), `origin` (the
//! `validate/origin` check of `logpull_options`), `instant_logs` (a zone's Instant Logs
//! sessions), `output` (what a job delivers: its formatter, [`OutputFormat`] and
//! [`Formatter`]), `cost` (what it costs: the pricing table, [`Pricing`], a sample made a
//! month, [`Cost`], [`CostChange`]).

mod compare;
mod cost;
mod credentials;
mod destination;
mod document;
mod fields;
mod instant_logs;
mod job;
mod limits;
mod options;
mod origin;
mod output;
mod plan;
mod requests;
#[cfg(test)]
mod tests;
pub mod transformer;
mod update;

pub use compare::{field_drift, filter_value, job_filter, logpull_options_equal, sent_filter_value, FieldDrift};
pub use cost::{
    billing_of, format_gb, month_scale, project, Basis, Component, ComponentCost, Cost, CostChange, Money,
    MonthlyUsage, Price, Pricing, PricingSource, Projection, Sample, Unit, BYTES_PER_GB, COST_CHOICES, DAYS_PER_MONTH,
    PER_REQUEST_DATASET, PRICES, PRICING_SOURCE, REQUESTS_PER_MILLION, SECONDS_PER_MONTH,
};
pub use credentials::{escape_references, resolve_job_references};
pub use destination::{known_schemes, Billing, Challenge, Destination, DestinationConf, DESTINATIONS};
pub use document::{desired_jobs, resolve_references};
#[cfg(any(test, feature = "emulator"))]
pub use fields::job_record;
pub(crate) use fields::job_secrets;
pub use fields::{
    redact_job, shown_value, AllowedValues, AppliesTo, Charset, Choice, InRecord, JobField, JobFieldType, JobRule,
    OptionDefault, OptionValue, OutputOption, RecordDefault, JOB_FIELDS, JOB_RULES, OUTPUT_OPTIONS,
};
pub use instant_logs::{
    read_instant_logs_job, read_instant_logs_jobs, InstantLogsSpec, InstantLogsSpecBuilder, INSTANT_LOGS_DATASET,
    INSTANT_LOGS_RULES, MAX_ACTIVE_SESSIONS,
};
pub use job::{JobSpec, JobSpecBuilder};
#[cfg(feature = "emulator")]
pub use limits::limit_reached;
pub use limits::{job_limits, JobLimit, JOB_LIMITS, MAX_JOBS_MESSAGE};
pub use options::{LogpullOptions, Timestamps};
pub use origin::OriginCheck;
pub use output::{
    Added, Batch, BatchInfo, BatchLimits, BatchSink, Batcher, Delivery, Formatter, JobOutput, OutputFormat, OutputType,
    RecordTemplate, RecordTime, TemplatePart, TimestampFormat, Undocumented, UNDOCUMENTED,
};
pub use plan::{plan_document, plan_job, plan_jobs, FieldChange, Plan, PlanAction, PlanEntry, PlanOptions};
pub use requests::{read_deleted, read_exists, read_fields, read_ownership_challenge, read_valid, OwnershipChallenge};
pub use requests::{read_job, read_job_list, JobOp};
pub use update::{check_update, updated_record, JobUpdate};
