//! The pure core of escpush: the model of Cloudflare's log-push job filters (parse,
//! print, validate, evaluate on records and on NDJSON lines), of log-push job payloads, and
//! of its Edge Side Code deprecation controls.
//!
//! Nothing here does I/O: the core decides, a transport (escpush-http, or your own HTTP
//! stack) moves bytes. The API is described once, as the table of its endpoints
//! ([`Endpoint`]: method, path, scopes, retry class); every API call is an [`Operation`]
//! ([`EscOp`], [`JobOp`]) that describes its [`Request`] from its row; the answers are read
//! by [`parse_response`] and the readers beside each operation.
//!
//! Modules: `filter` (tree, parser, builders, validation, printers, evaluators), `dataset`
//! (the embedded schemas), `problem` (what input checks report), `scope` (zones and
//! accounts), `endpoints` (the table of the API's endpoints), `esc`, `logpush`,
//! `operation`, `request`, `retry` (the
//! retry decisions a transport obeys: a state machine it drives), `redact` (what is secret and how it is masked), `envelope` (the
//! v4 answer), `json` (an order-keeping JSON tree and
//! its bounded reader), `error`, `suggest` (did-you-mean), `shown` (how a person's text is
//! shown in messages: line breaks, escapes, terminal widths), `share` (a share of a count as
//! a percentage, for every place that prints one).
//!
//! ```
//! use escpush_core::{field, Dataset, Filter, Limits};
//!
//! let f = field("ClientRequestHost").ends_with(".example.com") & field("EdgeResponseStatus").ge(500);
//! assert_eq!(
//!     f.to_json(),
//!     r#"{"where":{"and":[{"key":"ClientRequestHost","operator":"endsWith","value":".example.com"},{"key":"EdgeResponseStatus","operator":"geq","value":"500"}]}}"#
//! );
//! let http = Dataset::get("http_requests", None)?;
//! f.validate(Some(http), Limits::default())?;
//!
//! let parsed = Filter::parse(&f.to_json())?;
//! assert_eq!(parsed, f);
//! # Ok::<(), escpush_core::Error>(())
//! ```
#![deny(unsafe_code)]

mod assess;
mod dataset;
mod dataset_scope;
mod endpoints;
mod envelope;
mod error;
mod esc;
pub mod filter;
mod json;
mod logpush;
mod operation;
mod problem;
mod redact;
mod request;
mod retry;
mod scope;
mod share;
mod shown;
mod suggest;
mod time;

pub use assess::{
    esc_replacements, status_json, AssessPlan, AssessPlanBuilder, AssessReport, Assessment, DiffKind, Difference,
    Event, Fetched, NotRestored, Outcome, Replacement, ScopeReport, SiteResponse, SiteUrl, StageName, StageReport,
    Step, UrlResult, DEFAULT_FETCH_TIMEOUT_SECS, DEFAULT_IGNORED_HEADERS, DEFAULT_SETTLE_SECS, DEFAULT_WAIT_LIMIT_SECS,
    MAX_URLS,
};
pub use dataset::{datasets, Dataset, FieldSchema, FieldType};
pub use endpoints::{Endpoint, Route, Routed};
pub use envelope::{parse_response, read_answer, Answer, AnswerForm, Envelope};
pub use error::{ApiMessage, Error};
pub use esc::{
    esc_cookie, EscOp, EscSecret, EscState, EscStatus, ESC_COOKIE_NAME, GENERATED_SECRET_LEN, MAX_SECRET_LEN,
    SECRET_RANDOM_BYTES,
};
pub use filter::print::sql::{columns as dataset_columns, create_table, ColumnType, Dialect};
pub use filter::{
    field, is_blank, CompiledFilter, Condition, Expr, Field, FieldValue, Filter, GroupValue, Limits, LineValue,
    Malformation, MalformedLine, Operator, Record, Scalar, SharedFilter, Value, MAX_DEPTH, MAX_JSON_DEPTH,
};
pub use json::{json_kind, Json, JsonError, JsonErrorKind};
pub use logpush::{
    check_terraform_plan, export_jobs, read_terraform_jobs, read_terraform_jobs_for, resolve_job_references,
    resolve_references, terraform_import_id, ExportFormat, FilterForm, UnknownName, TERRAFORM_ATTRIBUTES,
    TERRAFORM_OUTPUT_OPTIONS, TERRAFORM_PROVIDER_VERSION, TERRAFORM_RESOURCE,
};
pub use logpush::{
    check_update, desired_jobs, field_drift, field_list_problems, job_filter, job_limits, limit_reached,
    logpull_options_equal, plan_document, plan_job, plan_jobs, read_deleted, read_exists, read_fields,
    read_instant_logs_job, read_instant_logs_jobs, read_ownership_challenge, read_valid, updated_record, FieldChange,
    FieldDrift, InstantLogsSpec, InstantLogsSpecBuilder, JobLimit, JobUpdate, OriginCheck, OwnershipChallenge, Plan,
    PlanAction, PlanEntry, PlanOptions, INSTANT_LOGS_DATASET, INSTANT_LOGS_RULES, JOB_LIMITS, MAX_ACTIVE_SESSIONS,
    MAX_JOBS_MESSAGE,
};
pub use logpush::{
    job_record, known_schemes, read_job, read_job_list, redact_job, AllowedValues, AppliesTo, Challenge, Charset,
    Choice, Destination, DestinationConf, InRecord, JobField, JobFieldType, JobOp, JobRule, JobSpec, JobSpecBuilder,
    LogpullOptions, OptionValue, OutputOption, RecordDefault, Timestamps, DESTINATIONS, JOB_FIELDS, JOB_RULES,
    OUTPUT_OPTIONS,
};
pub use operation::Operation;
pub use problem::{FilterError, Problem, ProblemCode};
pub use redact::{
    is_secret_header, mask_secret, mask_secret_bytes, mask_urls, redact_body, redact_url, secret_body_keys,
    secret_forms, url_credentials, Secrets, ESC_SECRET_KEY, MASK, MIN_SCRUBBED_LEN, SECRET_HEADERS,
};
pub use request::{Method, Request, RetryClass};
pub use retry::{Attempt, Retry, RetryEnd, RetryPolicy, RetryReason, RetryStep, DEFAULT_OUTCOME_CHECK};
pub use scope::{DatasetScope, Scope, ScopeId};
pub use share::{percent, share};
pub use suggest::closest_name;
pub use time::{format_time, unix_from_civil, Timestamp, FIRST_SECOND, LAST_SECOND};
