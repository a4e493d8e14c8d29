//! Log-push jobs (SPEC 2.3): the creation payload, checked before anything is sent.
//!
//! - [`LogpullOptions`]: the query-string options (`fields=A,B&timestamps=rfc3339&CVE-2021-44228=true`);
//! - [`DestinationConf`]: `<scheme>://<path>?<params>`, whose parameters may hold credentials
//!   and are therefore never printed;
//! - [`JobSpec`]: the whole payload, validated against its dataset (field names, the filter
//!   with its limits, the dataset's scope).

use std::fmt;
use std::str::FromStr;

use serde_json::{Map, Value};

use crate::dataset::{Dataset, DatasetScope};
use crate::error::Error;
use crate::esc::Scope;
use crate::filter::{Filter, Limits, Problem, ProblemCode};
use crate::request::{Method, Request};
use crate::suggest;

/// The `timestamps` option: how the job writes timestamp fields.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Timestamps {
    /// Nanoseconds since the epoch.
    UnixNano,
    /// Seconds since the epoch.
    Unix,
    /// RFC 3339 text.
    Rfc3339,
}

impl Timestamps {
    /// The option's value (`"rfc3339"`).
    pub fn as_str(self) -> &'static str {
        match self {
            Timestamps::UnixNano => "unixnano",
            Timestamps::Unix => "unix",
            Timestamps::Rfc3339 => "rfc3339",
        }
    }
}

impl FromStr for Timestamps {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "unixnano" => Ok(Timestamps::UnixNano),
            "unix" => Ok(Timestamps::Unix),
            "rfc3339" => Ok(Timestamps::Rfc3339),
            other => Err(format!(
                "`{other}` is not a timestamp format; use unixnano, unix or rfc3339{}",
                suggest::did_you_mean(suggest::closest(
                    other,
                    ["unixnano", "unix", "rfc3339"].into_iter().map(|s| (s, s))
                ))
            )),
        }
    }
}

/// Boolean flags the API documents for `logpull_options`.
const KNOWN_FLAGS: &[&str] = &["CVE-2021-44228"];

/// `logpull_options`: which fields a job writes, how it writes timestamps, and flags.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LogpullOptions {
    fields: Vec<String>,
    timestamps: Option<Timestamps>,
    flags: Vec<(String, bool)>,
    /// Options escpush does not know, kept in order and reported by [`LogpullOptions::unknown_options`].
    other: Vec<(String, String)>,
}

impl LogpullOptions {
    /// Options with these fields and nothing else.
    pub fn new<S: Into<String>>(fields: impl IntoIterator<Item = S>) -> Self {
        LogpullOptions {
            fields: fields.into_iter().map(Into::into).collect(),
            ..LogpullOptions::default()
        }
    }

    /// Sets the timestamp format.
    #[must_use]
    pub fn timestamps(mut self, timestamps: Timestamps) -> Self {
        self.timestamps = Some(timestamps);
        self
    }

    /// Sets a boolean flag (`CVE-2021-44228`).
    #[must_use]
    pub fn flag(mut self, name: impl Into<String>, on: bool) -> Self {
        let name = name.into();
        self.flags.retain(|(n, _)| *n != name);
        self.flags.push((name, on));
        self
    }

    /// Parses `fields=A,B&timestamps=rfc3339&CVE-2021-44228=true` (a leading `?` is allowed).
    /// Every problem is reported, each with its path (`logpull_options.timestamps`).
    pub fn parse(text: &str) -> Result<Self, Error> {
        let mut problems = Vec::new();
        let mut options = LogpullOptions::default();
        let text = text.trim().strip_prefix('?').unwrap_or(text.trim());
        let mut seen: Vec<&str> = Vec::new();
        for part in text.split('&').filter(|p| !p.is_empty()) {
            let Some((key, value)) = part.split_once('=') else {
                problems.push(Problem::new(
                    format!("logpull_options.{part}"),
                    ProblemCode::InvalidOption,
                    format!("option `{part}` has no value; write `{part}=true` or `{part}=<value>`"),
                ));
                continue;
            };
            let path = format!("logpull_options.{key}");
            if seen.contains(&key) {
                problems.push(Problem::new(
                    path,
                    ProblemCode::InvalidOption,
                    format!("option `{key}` is given twice"),
                ));
                continue;
            }
            seen.push(key);
            match key {
                "fields" => {
                    for (i, name) in value.split(',').enumerate() {
                        if name.is_empty() {
                            problems.push(Problem::new(
                                format!("{path}[{i}]"),
                                ProblemCode::InvalidOption,
                                "an empty field name in `fields`; separate names with one comma",
                            ));
                        } else {
                            options.fields.push(name.to_owned());
                        }
                    }
                }
                "timestamps" => match value.parse() {
                    Ok(t) => options.timestamps = Some(t),
                    Err(message) => problems.push(Problem::new(path, ProblemCode::InvalidOption, message)),
                },
                _ if KNOWN_FLAGS.contains(&key) => match value {
                    "true" => options.flags.push((key.to_owned(), true)),
                    "false" => options.flags.push((key.to_owned(), false)),
                    other => problems.push(Problem::new(
                        path,
                        ProblemCode::InvalidOption,
                        format!("`{key}` is a flag: write `{key}=true` or `{key}=false`, not `{other}`"),
                    )),
                },
                _ => options.other.push((key.to_owned(), value.to_owned())),
            }
        }
        if problems.is_empty() {
            Ok(options)
        } else {
            Err(Error::Invalid { problems })
        }
    }

    /// The field names, in order.
    pub fn fields(&self) -> &[String] {
        &self.fields
    }

    /// The timestamp format, if set.
    pub fn timestamps_format(&self) -> Option<Timestamps> {
        self.timestamps
    }

    /// The flags, in order.
    pub fn flags(&self) -> &[(String, bool)] {
        &self.flags
    }

    /// Options escpush does not know (kept and sent as given).
    pub fn unknown_options(&self) -> &[(String, String)] {
        &self.other
    }

    /// Notes on what is kept but not checked: unknown options.
    pub fn warnings(&self) -> Vec<String> {
        self.other
            .iter()
            .map(|(k, _)| {
                let hint = suggest::did_you_mean(suggest::closest(
                    k,
                    ["fields", "timestamps"].iter().chain(KNOWN_FLAGS).map(|s| (*s, *s)),
                ));
                format!("logpull_options: `{k}` is not an option escpush knows; it is sent as given{hint}")
            })
            .collect()
    }

    /// The problems of these options for a dataset: fields it does not have.
    pub fn problems(&self, dataset: &Dataset) -> Vec<Problem> {
        let mut problems = Vec::new();
        if self.fields.is_empty() {
            problems.push(Problem::new(
                "logpull_options.fields",
                ProblemCode::InvalidOption,
                "name at least one field in `fields`",
            ));
        }
        for (i, name) in self.fields.iter().enumerate() {
            if dataset.field(name).is_none() {
                let hint = suggest::did_you_mean(dataset.suggest_field(name));
                problems.push(Problem::new(
                    format!("logpull_options.fields[{i}]"),
                    ProblemCode::UnknownField,
                    format!("`{name}` is not a field of {}{hint}", dataset.name()),
                ));
            } else if self.fields[..i].contains(name) {
                problems.push(Problem::new(
                    format!("logpull_options.fields[{i}]"),
                    ProblemCode::InvalidOption,
                    format!("`{name}` is listed twice in `fields`"),
                ));
            }
        }
        problems
    }

    /// The query-string form the API takes.
    pub fn to_query(&self) -> String {
        let mut parts = Vec::new();
        if !self.fields.is_empty() {
            parts.push(format!("fields={}", self.fields.join(",")));
        }
        if let Some(t) = self.timestamps {
            parts.push(format!("timestamps={}", t.as_str()));
        }
        for (name, on) in &self.flags {
            parts.push(format!("{name}={on}"));
        }
        for (k, v) in &self.other {
            parts.push(format!("{k}={v}"));
        }
        parts.join("&")
    }
}

impl fmt::Display for LogpullOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_query())
    }
}

impl FromStr for LogpullOptions {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self, Error> {
        LogpullOptions::parse(s)
    }
}

/// Destination schemes the API documents.
pub const KNOWN_SCHEMES: &[&str] = &["r2", "s3", "gs", "azure", "https", "datadog", "splunk", "sumo"];

/// Query parameters whose values are shown; every other value may be a credential
/// (`secret-access-key`, `sig`, `header_DD-API-KEY`, a Splunk token, ...) and is masked.
const SHOWN_PARAMS: &[&str] = &[
    "region",
    "sse",
    "channel",
    "insecure-skip-verify",
    "service",
    "ddsource",
    "host",
];

/// `destination_conf`: where a job delivers, `<scheme>://<path>?<params>`.
///
/// Its parameters may hold credentials, so `Debug` and `Display` mask every parameter
/// value except a few harmless ones (`region`, ...); [`DestinationConf::expose`] gives the
/// full text, to send.
#[derive(Clone, PartialEq, Eq)]
pub struct DestinationConf {
    text: String,
    scheme: String,
    path: String,
    params: Vec<(String, String)>,
}

impl DestinationConf {
    /// Parses and checks: a known scheme, a non-empty path, and for `s3` a `region`.
    pub fn parse(text: &str) -> Result<Self, Error> {
        let problem = |message: String| Error::Invalid {
            problems: vec![Problem::new(
                "destination_conf",
                ProblemCode::InvalidDestination,
                message,
            )],
        };
        let text = text.trim();
        if text.is_empty() {
            return Err(problem(
                "a job needs a destination, like \"s3://bucket/logs?region=us-east-1\"".to_owned(),
            ));
        }
        let Some((scheme, rest)) = text.split_once("://") else {
            return Err(problem(
                "the destination is not of the form <scheme>://<path>?<params>, like \"s3://bucket/logs?region=us-east-1\""
                    .to_owned(),
            ));
        };
        if !KNOWN_SCHEMES.contains(&scheme) {
            let hint = suggest::did_you_mean(suggest::closest(scheme, KNOWN_SCHEMES.iter().map(|s| (*s, *s))));
            return Err(problem(format!(
                "`{scheme}` is not a destination scheme; use one of {}{hint}",
                KNOWN_SCHEMES.join(", ")
            )));
        }
        let (path, query) = rest.split_once('?').unwrap_or((rest, ""));
        if path.is_empty() || path == "/" {
            return Err(problem(format!("the {scheme} destination names no bucket or path")));
        }
        let mut params = Vec::new();
        for part in query.split('&').filter(|p| !p.is_empty()) {
            let (k, v) = part.split_once('=').unwrap_or((part, ""));
            params.push((k.to_owned(), v.to_owned()));
        }
        let conf = DestinationConf {
            text: text.to_owned(),
            scheme: scheme.to_owned(),
            path: path.to_owned(),
            params,
        };
        if scheme == "s3" && conf.param("region").is_none_or(str::is_empty) {
            return Err(problem(
                "an s3 destination names its region: append ?region=<region>, like \"s3://bucket/logs?region=us-east-1\""
                    .to_owned(),
            ));
        }
        Ok(conf)
    }

    /// `"s3"`, `"r2"`, ...
    pub fn scheme(&self) -> &str {
        &self.scheme
    }

    /// The bucket and path (or host and path).
    pub fn path(&self) -> &str {
        &self.path
    }

    /// A parameter's value. It may be a credential: do not print it.
    pub fn param(&self, name: &str) -> Option<&str> {
        self.params.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
    }

    /// Any `destination_conf` text made fit to print: [`DestinationConf::redacted`] when it
    /// parses, else `***` (text that is not a destination may still hold a credential).
    ///
    /// ```
    /// use escpush_core::DestinationConf;
    ///
    /// let text = "s3://logs/http?region=us-east-1&access-key-id=AKIA1&secret-access-key=s3cr3t";
    /// assert_eq!(DestinationConf::redact(text), "s3://logs/http?region=us-east-1&access-key-id=***&secret-access-key=***");
    /// assert_eq!(DestinationConf::redact("https://me:pw@logs.example.com/in"), "https://***@logs.example.com/in");
    /// assert_eq!(DestinationConf::redact("not a destination"), "***");
    /// ```
    pub fn redact(text: &str) -> String {
        DestinationConf::parse(text).map_or_else(|_| "***".to_owned(), |d| d.redacted())
    }

    /// The whole text, credentials included: the value to send.
    pub fn expose(&self) -> &str {
        &self.text
    }

    /// The text with every parameter value but harmless ones masked, and the parts of the
    /// path that carry credentials: a `user:password@` and a Sumo Logic collector code
    /// (`sumo://<endpoint>/receiver/v1/http/<code>`).
    pub fn redacted(&self) -> String {
        let mut path = self.path.as_str();
        let mut out = format!("{}://", self.scheme);
        let host_end = path.find('/').unwrap_or(path.len());
        if let Some(at) = path[..host_end].rfind('@') {
            out.push_str("***@");
            path = &path[at + 1..];
        }
        match (self.scheme.as_str(), path.find('/')) {
            ("sumo", Some(slash)) => {
                out.push_str(&path[..slash]);
                out.push_str("/***");
            }
            _ => out.push_str(path),
        }
        for (i, (k, v)) in self.params.iter().enumerate() {
            out.push(if i == 0 { '?' } else { '&' });
            out.push_str(k);
            out.push('=');
            out.push_str(if SHOWN_PARAMS.contains(&k.as_str()) { v } else { "***" });
        }
        out
    }
}

impl fmt::Display for DestinationConf {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.redacted())
    }
}

impl fmt::Debug for DestinationConf {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("DestinationConf").field(&self.redacted()).finish()
    }
}

impl FromStr for DestinationConf {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self, Error> {
        DestinationConf::parse(s)
    }
}

/// Job fields whose whole value is a secret (a token that proves control of the destination).
pub const SECRET_JOB_FIELDS: &[&str] = &["ownership_challenge"];

/// Makes a job record fit to print, in place: `destination_conf` through
/// [`DestinationConf::redact`] (`***` if it is not text) and every [`SECRET_JOB_FIELDS`]
/// value that is set as `***`. The one rule for every printed job: the emulator's log and
/// state, and Python's `Job.redacted()`.
///
/// ```
/// use escpush_core::redact_job;
/// use serde_json::json;
///
/// let mut job = json!({"id": 1, "destination_conf": "s3://b/p?region=r&secret-access-key=k", "ownership_challenge": "c"});
/// redact_job(job.as_object_mut().unwrap());
/// assert_eq!(job, json!({"id": 1, "destination_conf": "s3://b/p?region=r&secret-access-key=***", "ownership_challenge": "***"}));
/// ```
pub fn redact_job(job: &mut Map<String, Value>) {
    if let Some(conf) = job.get_mut("destination_conf") {
        *conf = Value::String(conf.as_str().map_or_else(|| "***".to_owned(), DestinationConf::redact));
    }
    for name in SECRET_JOB_FIELDS {
        if let Some(value) = job.get_mut(*name).filter(|v| !v.is_null()) {
            *value = Value::String("***".to_owned());
        }
    }
}

/// The job fields the API documents beyond those of SPEC 2.3, passed through as given
/// (each checked for its JSON type).
pub const EXTRA_FIELDS: &[(&str, &str)] = &[
    ("enabled", "bool"),
    ("kind", "string"),
    ("frequency", "string"),
    ("max_upload_bytes", "int"),
    ("max_upload_records", "int"),
    ("max_upload_interval_seconds", "int"),
    ("output_options", "object"),
    ("ownership_challenge", "string"),
    ("filter_attack_traffic", "bool"),
];

/// A log-push job's creation payload, checked against its dataset.
#[derive(Clone, Debug, PartialEq)]
pub struct JobSpec {
    dataset: &'static Dataset,
    destination: DestinationConf,
    name: Option<String>,
    logpull_options: Option<LogpullOptions>,
    filter: Option<Filter>,
    extra: Map<String, Value>,
}

/// Builds a [`JobSpec`]; [`JobSpecBuilder::build`] checks everything at once.
#[derive(Clone, Debug, Default)]
#[must_use = "a builder does nothing until .build()"]
pub struct JobSpecBuilder {
    dataset: Option<String>,
    scope: Option<DatasetScope>,
    destination: Option<String>,
    name: Option<String>,
    logpull_options: Option<Result<LogpullOptions, Error>>,
    filter: Option<Result<Filter, Error>>,
    extra: Map<String, Value>,
    limits: Limits,
}

impl JobSpec {
    /// Starts a job for `dataset` in the given scope (zone or account datasets differ).
    pub fn builder(dataset: impl Into<String>, scope: DatasetScope) -> JobSpecBuilder {
        JobSpecBuilder {
            dataset: Some(dataset.into()),
            scope: Some(scope),
            ..JobSpecBuilder::default()
        }
    }

    /// The dataset the job pushes.
    pub fn dataset(&self) -> &'static Dataset {
        self.dataset
    }

    /// Where it pushes to.
    pub fn destination(&self) -> &DestinationConf {
        &self.destination
    }

    /// The filter, if any.
    pub fn filter(&self) -> Option<&Filter> {
        self.filter.as_ref()
    }

    /// The options, if any.
    pub fn logpull_options(&self) -> Option<&LogpullOptions> {
        self.logpull_options.as_ref()
    }

    /// The job's name, if any.
    pub fn name(&self) -> Option<&str> {
        self.name.as_deref()
    }

    /// The JSON body of `POST .../logpush/jobs`: `filter` is a string holding the canonical
    /// filter JSON, `logpull_options` the query string. Holds credentials of the destination.
    pub fn to_body(&self) -> Value {
        let mut body = Map::new();
        if let Some(name) = &self.name {
            body.insert("name".into(), name.clone().into());
        }
        body.insert("dataset".into(), self.dataset.name().into());
        body.insert("destination_conf".into(), self.destination.expose().into());
        if let Some(options) = &self.logpull_options {
            body.insert("logpull_options".into(), options.to_query().into());
        }
        if let Some(filter) = &self.filter {
            body.insert("filter".into(), filter.to_json().into());
        }
        for (k, v) in &self.extra {
            body.insert(k.clone(), v.clone());
        }
        Value::Object(body)
    }
}

impl JobSpec {
    /// Reads a creation payload as the API receives it (`filter` and `logpull_options` as
    /// strings; `null` for "not given"), with every check of [`JobSpecBuilder::build`].
    /// The emulator validates what it receives with this, so both sides agree.
    pub fn from_body(body: &Value, scope: DatasetScope) -> Result<JobSpec, Error> {
        let Some(obj) = body.as_object() else {
            return Err(Error::Invalid {
                problems: vec![Problem::new(
                    "",
                    ProblemCode::NotAnObject,
                    "a job is a JSON object of its fields",
                )],
            });
        };
        let mut problems = Vec::new();
        let mut text = |key: &str| -> Option<String> {
            match obj.get(key) {
                None | Some(Value::Null) => None,
                Some(Value::String(s)) => Some(s.clone()),
                Some(_) => {
                    problems.push(Problem::new(
                        key,
                        ProblemCode::InvalidType,
                        format!("`{key}` takes a string"),
                    ));
                    None
                }
            }
        };
        let dataset = text("dataset");
        let destination = text("destination_conf");
        let name = text("name");
        let options = text("logpull_options");
        let filter = text("filter").filter(|f| !f.is_empty());
        let mut builder = JobSpec::builder(dataset.unwrap_or_default(), scope);
        if let Some(d) = destination {
            builder = builder.destination_conf(d);
        }
        if let Some(n) = name {
            builder = builder.name(n);
        }
        if let Some(o) = options.filter(|o| !o.is_empty()) {
            builder = builder.logpull_options_text(&o);
        }
        if let Some(f) = filter {
            builder = builder.filter_text(&f);
        }
        for (key, value) in obj {
            let core = ["dataset", "destination_conf", "name", "logpull_options", "filter"];
            if !core.contains(&key.as_str()) && !value.is_null() {
                builder = builder.extra(key.clone(), value.clone());
            }
        }
        match builder.build() {
            Ok(spec) if problems.is_empty() => Ok(spec),
            Ok(_) => Err(Error::Invalid { problems }),
            Err(err) if problems.is_empty() => Err(err),
            Err(err) => {
                problems.extend(match err {
                    Error::Invalid { problems } => problems,
                    Error::Filter(f) => f.into_problems(),
                    other => vec![Problem::new("", ProblemCode::InvalidValue, other.to_string())],
                });
                Err(Error::Invalid { problems })
            }
        }
    }

    /// `POST {scope}/logpush/jobs` with this payload. Never retried: the job may have been
    /// created even when the answer is lost. The body holds the destination's credentials,
    /// so the request's `Debug` hides it.
    pub fn create_request(&self, scope: &Scope) -> Result<Request, Error> {
        let kind = dataset_scope(scope);
        if kind != self.dataset.scope() {
            return Err(Error::InvalidInput {
                what: "scope",
                message: format!(
                    "`{}` is a {} dataset; create the job on the {} it belongs to, not on {scope}",
                    self.dataset.name(),
                    self.dataset.scope(),
                    self.dataset.scope()
                ),
            });
        }
        Ok(Request::new(Method::Post, jobs_path(scope))
            .with_body(self.to_body())
            .with_secret()
            .retry_safe(false))
    }
}

/// The dataset scope a zone or an account holds.
pub fn dataset_scope(scope: &Scope) -> DatasetScope {
    match scope {
        Scope::Zone(_) => DatasetScope::Zone,
        Scope::Account(_) => DatasetScope::Account,
    }
}

fn jobs_path(scope: &Scope) -> String {
    format!("{}/logpush/jobs", scope.path())
}

/// `GET {scope}/logpush/jobs`: every job of the zone or account.
pub fn list_jobs_request(scope: &Scope) -> Request {
    Request::new(Method::Get, jobs_path(scope)).retry_safe(true)
}

/// `GET {scope}/logpush/jobs/{job_id}`: one job.
pub fn get_job_request(scope: &Scope, job_id: u64) -> Request {
    Request::new(Method::Get, format!("{}/{job_id}", jobs_path(scope))).retry_safe(true)
}

impl JobSpecBuilder {
    /// The destination, `<scheme>://<path>?<params>`.
    pub fn destination_conf(mut self, conf: impl Into<String>) -> Self {
        self.destination = Some(conf.into());
        self
    }

    /// The job's name.
    pub fn name(mut self, name: impl Into<String>) -> Self {
        self.name = Some(name.into());
        self
    }

    /// The options.
    pub fn logpull_options(mut self, options: LogpullOptions) -> Self {
        self.logpull_options = Some(Ok(options));
        self
    }

    /// The options as their query string; parsed (and reported) at `build`.
    pub fn logpull_options_text(mut self, text: &str) -> Self {
        self.logpull_options = Some(LogpullOptions::parse(text));
        self
    }

    /// The filter.
    pub fn filter(mut self, filter: Filter) -> Self {
        self.filter = Some(Ok(filter));
        self
    }

    /// The filter as JSON text (or the quoted form); parsed (and reported) at `build`.
    pub fn filter_text(mut self, text: &str) -> Self {
        self.filter = Some(Filter::parse(text).map_err(Error::from));
        self
    }

    /// The filter limits to enforce (the API's by default).
    pub fn limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    /// One of [`EXTRA_FIELDS`] (`enabled`, `frequency`, ...), checked for its type at `build`.
    pub fn extra(mut self, name: impl Into<String>, value: Value) -> Self {
        self.extra.insert(name.into(), value);
        self
    }

    /// Checks everything and gives the spec, or every problem found: an unknown dataset,
    /// an account dataset on a zone (and the reverse), no or a bad destination, fields the
    /// dataset lacks, a bad timestamp format or flag, a filter that is malformed, over the
    /// limits or does not fit the dataset, an unknown or mistyped extra field.
    /// An error holding only filter problems is [`Error::Filter`]; any other mix is
    /// [`Error::Invalid`].
    pub fn build(self) -> Result<JobSpec, Error> {
        let mut found = Found::default();
        let dataset = check_dataset(self.dataset.as_deref().unwrap_or_default(), self.scope, &mut found);
        let destination = match self.destination.as_deref().map(DestinationConf::parse) {
            Some(Ok(d)) => Some(d),
            Some(Err(err)) => {
                found.job_error(err, "destination_conf", ProblemCode::InvalidDestination);
                None
            }
            None => {
                found.job(Problem::new(
                    "destination_conf",
                    ProblemCode::InvalidDestination,
                    "a job needs a destination, like \"s3://bucket/logs?region=us-east-1\"",
                ));
                None
            }
        };
        let options = match self.logpull_options {
            Some(Ok(o)) => {
                for p in dataset.map(|d| o.problems(d)).unwrap_or_default() {
                    found.job(p);
                }
                Some(o)
            }
            Some(Err(err)) => {
                found.job_error(err, "logpull_options", ProblemCode::InvalidOption);
                None
            }
            None => None,
        };
        let filter = match self.filter {
            Some(Ok(f)) => {
                found.filter(f.problems(dataset, self.limits));
                Some(f)
            }
            Some(Err(Error::Filter(e))) => {
                found.filter(e.into_problems());
                None
            }
            Some(Err(err)) => {
                found.job_error(err, "filter", ProblemCode::InvalidJson);
                None
            }
            None => None,
        };
        check_extra(&self.extra, &mut found);
        match (found.into_error(), dataset, destination) {
            (None, Some(dataset), Some(destination)) => Ok(JobSpec {
                dataset,
                destination,
                name: self.name,
                logpull_options: options,
                filter,
                extra: self.extra,
            }),
            (Some(err), _, _) => Err(err),
            (None, _, _) => unreachable!("a missing dataset or destination is a problem"),
        }
    }
}

/// The problems a job check collects, and whether they are all the filter's.
#[derive(Default)]
struct Found {
    problems: Vec<Problem>,
    job: bool,
}

impl Found {
    fn job(&mut self, problem: Problem) {
        self.job = true;
        self.problems.push(problem);
    }

    fn job_error(&mut self, err: Error, path: &str, code: ProblemCode) {
        match err {
            Error::Invalid { problems } => problems.into_iter().for_each(|p| self.job(p)),
            other => self.job(Problem::new(path, code, other.to_string())),
        }
    }

    fn filter(&mut self, problems: Vec<Problem>) {
        self.problems
            .extend(problems.into_iter().map(|p| prefixed("filter", p)));
    }

    fn into_error(self) -> Option<Error> {
        if self.problems.is_empty() {
            None
        } else if self.job {
            Some(Error::Invalid {
                problems: self.problems,
            })
        } else {
            Some(Error::Filter(crate::filter::FilterError::new(self.problems)))
        }
    }
}

fn check_dataset(name: &str, scope: Option<DatasetScope>, found: &mut Found) -> Option<&'static Dataset> {
    let scope = scope.unwrap_or(DatasetScope::Zone);
    let err = match Dataset::get(name, Some(scope)) {
        Ok(d) => return Some(d),
        Err(err) => err,
    };
    let other = match scope {
        DatasetScope::Zone => DatasetScope::Account,
        DatasetScope::Account => DatasetScope::Zone,
    };
    let article = |s: DatasetScope| {
        if s == DatasetScope::Zone {
            "a zone"
        } else {
            "an account"
        }
    };
    let message = if name.is_empty() {
        "a job needs a dataset, like \"http_requests\"".to_owned()
    } else if Dataset::get(name, Some(other)).is_ok() {
        format!(
            "`{name}` is {} dataset; create the job on {}, not on {}",
            article(other),
            article(other),
            article(scope)
        )
    } else {
        err.to_string()
    };
    found.job(Problem::new("dataset", ProblemCode::UnknownDataset, message));
    None
}

fn check_extra(extra: &Map<String, Value>, found: &mut Found) {
    for (key, value) in extra {
        let Some((_, ty)) = EXTRA_FIELDS.iter().find(|(k, _)| k == key) else {
            let known = ["name", "dataset", "destination_conf", "logpull_options", "filter"];
            let hint = suggest::did_you_mean(suggest::closest(
                key,
                EXTRA_FIELDS.iter().map(|(k, _)| *k).chain(known).map(|k| (k, k)),
            ));
            found.job(Problem::new(
                key.clone(),
                ProblemCode::UnknownMember,
                format!("`{key}` is not a field of a log-push job{hint}"),
            ));
            continue;
        };
        let (fits, want) = match *ty {
            "bool" => (value.is_boolean(), "true or false"),
            "int" => (value.as_u64().is_some(), "a non-negative integer"),
            "string" => (value.is_string(), "a string"),
            _ => (value.is_object(), "an object"),
        };
        if !fits {
            found.job(Problem::new(
                key.clone(),
                ProblemCode::InvalidValue,
                format!("`{key}` takes {want}"),
            ));
        }
    }
}

fn prefixed(prefix: &str, mut p: Problem) -> Problem {
    p.path = if p.path.is_empty() {
        prefix.to_owned()
    } else {
        format!("{prefix}.{}", p.path)
    };
    p
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::field;
    use serde_json::json;

    fn codes(err: &Error) -> Vec<(String, &'static str)> {
        let problems = match err {
            Error::Invalid { problems } => problems.clone(),
            Error::Filter(f) => f.problems().to_vec(),
            other => panic!("unexpected {other:?}"),
        };
        problems.into_iter().map(|p| (p.path, p.code.as_str())).collect()
    }

    #[test]
    fn logpull_options_parse_and_print() {
        let text = "fields=ClientIP,EdgeResponseStatus&timestamps=rfc3339&CVE-2021-44228=true";
        let o = LogpullOptions::parse(text).unwrap();
        assert_eq!(o.fields(), ["ClientIP", "EdgeResponseStatus"]);
        assert_eq!(o.timestamps_format(), Some(Timestamps::Rfc3339));
        assert_eq!(o.flags(), [("CVE-2021-44228".to_owned(), true)]);
        assert_eq!(o.to_query(), text);
        assert_eq!(LogpullOptions::parse(&format!("?{text}")).unwrap(), o);
        let built = LogpullOptions::new(["ClientIP", "EdgeResponseStatus"])
            .timestamps(Timestamps::Rfc3339)
            .flag("CVE-2021-44228", true);
        assert_eq!(built, o);
        let kept = LogpullOptions::parse("fields=A&sample=0.1").unwrap();
        assert_eq!(kept.unknown_options(), [("sample".to_owned(), "0.1".to_owned())]);
        assert_eq!(kept.to_query(), "fields=A&sample=0.1");
        assert_eq!(kept.warnings().len(), 1);
    }

    #[test]
    fn logpull_options_report_every_problem() {
        let err = LogpullOptions::parse("fields=A,,B&timestamps=iso&CVE-2021-44228=yes&flag&fields=C").unwrap_err();
        assert_eq!(
            codes(&err),
            [
                ("logpull_options.fields[1]".into(), "invalid_option"),
                ("logpull_options.timestamps".into(), "invalid_option"),
                ("logpull_options.CVE-2021-44228".into(), "invalid_option"),
                ("logpull_options.flag".into(), "invalid_option"),
                ("logpull_options.fields".into(), "invalid_option"),
            ]
        );
        let err = LogpullOptions::parse("timestamps=rfc3339x").unwrap_err();
        assert!(err.to_string().contains("did you mean `rfc3339`?"), "{err}");
    }

    #[test]
    fn destinations_are_checked_and_never_print_credentials() {
        let d = DestinationConf::parse("s3://bucket/logs?region=us-east-1").unwrap();
        assert_eq!(
            (d.scheme(), d.path(), d.param("region")),
            ("s3", "bucket/logs", Some("us-east-1"))
        );
        let r2 =
            DestinationConf::parse("r2://bucket/logs?account-id=abc&access-key-id=AKIA123&secret-access-key=topsecret")
                .unwrap();
        assert_eq!(
            r2.to_string(),
            "r2://bucket/logs?account-id=***&access-key-id=***&secret-access-key=***"
        );
        assert!(!format!("{r2:?}").contains("topsecret"));
        assert!(r2.expose().contains("topsecret"));
        for (text, shown) in [
            (
                "sumo://endpoint1.collection.sumologic.com/receiver/v1/http/ZaVnC4dhaV2topsecret",
                "sumo://endpoint1.collection.sumologic.com/***",
            ),
            (
                "https://user:topsecret@logs.example.com/ingest?header_Authorization=Basic%20topsecret",
                "https://***@logs.example.com/ingest?header_Authorization=***",
            ),
            ("https://me:p@ss@logs.example.com/in", "https://***@logs.example.com/in"),
            ("https://logs.example.com/a@b?x=1", "https://logs.example.com/a@b?x=***"),
            (
                "splunk://h.example.com:8088/services/collector/raw?channel=c1",
                "splunk://h.example.com:8088/services/collector/raw?channel=c1",
            ),
            ("not a destination topsecret", "***"),
        ] {
            assert_eq!(DestinationConf::redact(text), shown, "{text}");
        }
        for (bad, says) in [
            ("", "needs a destination"),
            ("bucket/logs", "<scheme>://<path>?<params>"),
            ("s4://bucket?region=x", "did you mean `s3`?"),
            ("s3://bucket/logs", "names its region"),
            ("s3://?region=x", "names no bucket"),
        ] {
            let err = DestinationConf::parse(bad).unwrap_err().to_string();
            assert!(err.contains(says), "{bad}: {err}");
        }
    }

    #[test]
    fn a_good_job_and_its_body() {
        let f = field("EdgeResponseStatus").ge(500);
        let job = JobSpec::builder("http_requests", DatasetScope::Zone)
            .name("errors")
            .destination_conf("s3://bucket/logs?region=us-east-1")
            .logpull_options(LogpullOptions::new(["ClientIP", "EdgeResponseStatus"]).timestamps(Timestamps::Rfc3339))
            .filter(f.clone())
            .extra("enabled", json!(true))
            .build()
            .unwrap();
        let body = job.to_body();
        assert_eq!(
            body,
            json!({
                "name": "errors",
                "dataset": "http_requests",
                "destination_conf": "s3://bucket/logs?region=us-east-1",
                "logpull_options": "fields=ClientIP,EdgeResponseStatus&timestamps=rfc3339",
                "filter": f.to_json(),
                "enabled": true,
            })
        );
        assert_eq!(Filter::parse(body["filter"].as_str().unwrap()).unwrap(), f);
    }

    #[test]
    fn every_mistake_is_caught_before_sending() {
        let err = JobSpec::builder("gateway_dns", DatasetScope::Zone)
            .logpull_options_text("fields=Nope&timestamps=iso")
            .filter_text("{}")
            .extra("frequncy", json!("high"))
            .extra("max_upload_bytes", json!(-1))
            .build()
            .unwrap_err();
        assert_eq!(
            codes(&err),
            [
                ("dataset".into(), "unknown_dataset"),
                ("destination_conf".into(), "invalid_destination"),
                ("logpull_options.timestamps".into(), "invalid_option"),
                ("filter".into(), "missing_where"),
                ("frequncy".into(), "unknown_member"),
                ("max_upload_bytes".into(), "invalid_value"),
            ]
        );
        assert!(err
            .to_string()
            .contains("`gateway_dns` is an account dataset; create the job on an account, not on a zone"));
        let err = JobSpec::builder("http_requests", DatasetScope::Zone)
            .destination_conf("s3://b?region=r")
            .logpull_options(LogpullOptions::new(["ClientIP", "ClientIPP"]))
            .build()
            .unwrap_err();
        assert_eq!(codes(&err), [("logpull_options.fields[1]".into(), "unknown_field")]);
    }

    #[test]
    fn bodies_read_back_and_requests() {
        let f = field("EdgeResponseStatus").ge(500);
        let job = JobSpec::builder("http_requests", DatasetScope::Zone)
            .destination_conf("r2://b/p?account-id=a&access-key-id=k&secret-access-key=topsecret")
            .filter(f.clone())
            .logpull_options(LogpullOptions::new(["ClientIP"]))
            .build()
            .unwrap();
        let back = JobSpec::from_body(&job.to_body(), DatasetScope::Zone).unwrap();
        assert_eq!(back, job);
        let zone = Scope::zone("z1").unwrap();
        let req = job.create_request(&zone).unwrap();
        assert_eq!(
            (req.method, req.path.as_str(), req.retry_safe),
            (Method::Post, "/zones/z1/logpush/jobs", false)
        );
        assert!(!format!("{req:?}").contains("topsecret"));
        assert!(job.create_request(&Scope::account("a1").unwrap()).is_err());
        assert_eq!(list_jobs_request(&zone).path, "/zones/z1/logpush/jobs");
        assert_eq!(get_job_request(&zone, 7).path, "/zones/z1/logpush/jobs/7");
        let err = JobSpec::from_body(
            &json!({"dataset": 5, "destination_conf": "s3://b?region=r", "filter": "{}", "enabled": null}),
            DatasetScope::Zone,
        )
        .unwrap_err();
        assert_eq!(
            codes(&err),
            [
                ("dataset".into(), "invalid_type"),
                ("dataset".into(), "unknown_dataset"),
                ("filter".into(), "missing_where")
            ]
        );
        assert!(JobSpec::from_body(&json!([]), DatasetScope::Zone).is_err());
    }

    #[test]
    fn filter_only_problems_are_a_filter_error() {
        let over = (0..31)
            .map(|i| field("ClientIP").eq(format!("{i}")))
            .reduce(|a, b| a | b)
            .unwrap();
        let err = JobSpec::builder("http_requests", DatasetScope::Zone)
            .destination_conf("s3://b?region=r")
            .filter(over & field("EdgeResponseStatus").starts_with("5"))
            .build()
            .unwrap_err();
        assert!(matches!(err, Error::Filter(_)));
        assert_eq!(
            codes(&err),
            [
                ("filter".into(), "too_many_operators"),
                ("filter".into(), "too_large"),
                ("filter.where.and[1].operator".into(), "operator_not_supported"),
            ]
        );
    }
}
