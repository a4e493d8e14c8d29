//! The pure core of escpush: Cloudflare's API for log-push jobs and its Edge Side Code
//! deprecation controls, described as requests and answers: the job rules (the job field
//! table, destinations, options, creations, updates, the API's job limits, plans), the ESC
//! controls and their impact assessment, and which parts of a request are secrets.
//!
//! Nothing here does I/O: the core decides, a transport (escpush-http, or your own HTTP
//! stack) moves bytes. The API is described once, as the table of its endpoints
//! ([`Endpoint`]: method, path, scopes, retry class); every API call is an [`Operation`]
//! ([`EscOp`], [`JobOp`]) that describes its [`Request`] from its row; the answers are read
//! by [`parse_response`] and the readers beside each operation.
//!
//! The filter language and the dataset schemas are the crate escpush-filter, re-exported as
//! the module [`filter`] (`escpush_core::filter::Filter` is `escpush_filter::Filter`);
//! Terraform is escpush-terraform, on top of this crate. The records a server of the job API
//! keeps are the module `emulator`, behind the cargo feature `emulator` (off by default).
//!
//! Modules: `endpoints` (the table of the API's endpoints), `request`, `operation`,
//! `envelope` (the v4 answer), `scope` (zones and accounts), `esc`, `logpush` (the job
//! rules, and what a job delivers: [`OutputFormat`] and its [`Formatter`], a log line in,
//! the bytes the job writes for it out), `assess` (the ESC assessment), `retry` (the retry decisions a transport obeys: a
//! state machine it drives), `redact` (which parts of a request are secrets), `error`.
//!
//! ```
//! use escpush_core::filter::{field, DatasetScope};
//! use escpush_core::{JobOp, JobSpec, LogpullOptions, Method, Operation, Scope};
//!
//! let job = JobSpec::builder("http_requests", DatasetScope::Zone)
//!     .name("errors")
//!     .destination_conf("r2://logs/http?account-id=a&access-key-id=k&secret-access-key=topsecret")
//!     .logpull_options(LogpullOptions::new(["ClientIP", "EdgeResponseStatus"]))
//!     .filter(field("EdgeResponseStatus").ge(500))
//!     .build()?;
//! let zone = Scope::zone("023e105f4ecef8ad9ca31a8372d0c353")?;
//! let request = JobOp::Create(&job).request(&zone)?;
//! assert_eq!(request.method, Method::Post);
//! assert_eq!(request.path, "/zones/023e105f4ecef8ad9ca31a8372d0c353/logpush/jobs");
//! assert!(!format!("{request:?}").contains("topsecret"));
//! # Ok::<(), escpush_core::Error>(())
//! ```
#![deny(unsafe_code)]

mod assess;
mod endpoints;
mod envelope;
mod error;
mod esc;
mod logpush;
mod operation;
mod redact;
mod request;
mod retry;
mod scope;

/// The filter language and the dataset schemas: the crate `escpush-filter`, of the version
/// this crate is built with (so that a [`Filter`](filter::Filter) given to a job is the type
/// the job takes). Its names are the filter crate's own: `escpush_core::filter::Filter` is
/// `escpush_filter::Filter`.
pub use escpush_filter as filter;

/// What a server of the job API keeps and checks, for escpush-emulator (the cargo feature
/// `emulator`, off by default): the record a creation makes and the record after a `PUT`, as
/// the emulator stores them, and the job limit a creation would break. A client has no use
/// for the first and the last; [`updated_record`] is public too (a plan reads the job after
/// an update from it); the judgement of a `PUT` body both share is [`check_update`], public, and a
/// client's plan checks the limits with [`JOB_LIMITS`].
#[cfg(feature = "emulator")]
pub mod emulator {
    pub use crate::logpush::{job_record, limit_reached, updated_record};
}

pub use assess::{
    esc_replacements, status_json, AssessPlan, AssessPlanBuilder, AssessReport, Assessment, DiffKind, Difference,
    Event, Fetched, NotRestored, Outcome, Replacement, ScopeReport, SiteResponse, SiteUrl, StageName, StageReport,
    Step, UrlResult, DEFAULT_FETCH_TIMEOUT_SECS, DEFAULT_IGNORED_HEADERS, DEFAULT_SETTLE_SECS, DEFAULT_WAIT_LIMIT_SECS,
    MAX_URLS,
};
pub use endpoints::{Endpoint, Route, Routed};
pub use envelope::{parse_response, read_answer, Answer, AnswerForm, Envelope};
pub use error::{ApiMessage, Error};
pub use esc::{
    esc_cookie, EscOp, EscSecret, EscState, EscStatus, ESC_COOKIE_NAME, GENERATED_SECRET_LEN, MAX_SECRET_LEN,
    SECRET_RANDOM_BYTES,
};
pub use logpush::transformer;
pub use logpush::{
    billing_of, format_gb, month_scale, project, Basis, Billing, Component, ComponentCost, Cost, CostChange, Money,
    MonthlyUsage, Price, Pricing, PricingSource, Projection, Sample, Unit, BYTES_PER_GB, COST_CHOICES, DAYS_PER_MONTH,
    PER_REQUEST_DATASET, PRICES, PRICING_SOURCE, REQUESTS_PER_MILLION, SECONDS_PER_MONTH,
};
pub use logpush::{
    check_update, desired_jobs, field_drift, job_filter, job_limits, logpull_options_equal, plan_document, plan_job,
    plan_jobs, read_deleted, read_exists, read_fields, read_instant_logs_job, read_instant_logs_jobs,
    read_ownership_challenge, read_valid, updated_record, FieldChange, FieldDrift, InstantLogsSpec,
    InstantLogsSpecBuilder, JobLimit, JobUpdate, OriginCheck, OwnershipChallenge, Plan, PlanAction, PlanEntry,
    PlanOptions, INSTANT_LOGS_DATASET, INSTANT_LOGS_RULES, JOB_LIMITS, MAX_ACTIVE_SESSIONS, MAX_JOBS_MESSAGE,
};
pub use logpush::{
    escape_references, filter_value, resolve_job_references, resolve_references, sent_filter_value, shown_value,
};
pub use logpush::{
    known_schemes, read_job, read_job_list, redact_job, AllowedValues, AppliesTo, Challenge, Charset, Choice,
    Destination, DestinationConf, InRecord, JobField, JobFieldType, JobOp, JobRule, JobSpec, JobSpecBuilder,
    LogpullOptions, OptionDefault, OptionValue, OutputOption, RecordDefault, Timestamps, DESTINATIONS, JOB_FIELDS,
    JOB_RULES, OUTPUT_OPTIONS,
};
pub use logpush::{
    Added, Batch, BatchInfo, BatchLimits, BatchSink, Batcher, Delivery, Formatter, JobOutput, OutputFormat, OutputType,
    RecordTemplate, RecordTime, TemplatePart, TimestampFormat, Undocumented, UNDOCUMENTED,
};
pub use operation::Operation;
pub use redact::{body_secrets, is_secret_header, redact_body, secret_body_keys, ESC_SECRET_KEY, SECRET_HEADERS};
pub use request::{Method, Request, RetryClass};
pub use retry::{
    Attempt, Retry, RetryEnd, RetryPolicy, RetryReason, RetryStep, DEFAULT_OUTCOME_CHECK, MAX_CALL_TIMEOUT,
};
pub use scope::{Scope, ScopeId};
