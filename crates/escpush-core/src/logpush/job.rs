//! A job's creation payload ([`JobSpec`] and its builder), the checks of every field
//! ([`EXTRA_FIELDS`] and their allowed values), and the masking of a job record for printing
//! ([`redact_job`], [`SECRET_JOB_FIELDS`]).

use serde_json::{Map, Value};

use crate::dataset::Dataset;
use crate::error::Error;
use crate::filter::{Filter, Limits};
use crate::problem::{Problem, ProblemCode};
use crate::scope::DatasetScope;
use crate::suggest;

use super::destination::DestinationConf;
use super::options::LogpullOptions;

/// Job fields whose whole value is a secret (a token that proves control of the destination).
pub const SECRET_JOB_FIELDS: &[&str] = &["ownership_challenge"];

/// What [`redact_job`] shows in place of a credential.
const MASK: &str = "***";

/// Why a value that is the mask is refused: sent, it would store a job that cannot push.
const MASKED: &str = "holds `***` where a credential goes: that is the mask escpush prints (and every \
    escpush.Job holds) in its place, so the value was copied from a printed or serialised job and has lost \
    its credential";

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
        *conf = Value::String(conf.as_str().map_or_else(|| MASK.to_owned(), DestinationConf::redact));
    }
    for name in SECRET_JOB_FIELDS {
        if let Some(value) = job.get_mut(*name).filter(|v| !v.is_null()) {
            *value = Value::String(MASK.to_owned());
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

/// The job fields of [`EXTRA_FIELDS`] whose value is one of a closed set, as Cloudflare
/// documents them: `frequency` (`high` or `low`) and `kind` (empty, or `edge` for Edge Log
/// Delivery).
pub const CLOSED_JOB_FIELDS: &[(&str, &[&str])] = &[("frequency", &["high", "low"]), ("kind", &["", "edge"])];

/// The integer job fields of [`EXTRA_FIELDS`] with a documented range, `(field, least,
/// most)`; `0` (off) is allowed besides the range.
pub const JOB_FIELD_RANGES: &[(&str, u64, u64)] = &[
    ("max_upload_bytes", 5_000_000, 1_000_000_000),
    ("max_upload_records", 1_000, 1_000_000),
    ("max_upload_interval_seconds", 30, 300),
];

/// A log-push job's creation payload, checked against its dataset. Its `Debug` masks the
/// destination's credentials and the secret fields ([`SECRET_JOB_FIELDS`]).
#[derive(Clone, PartialEq)]
pub struct JobSpec {
    dataset: &'static Dataset,
    destination: DestinationConf,
    name: Option<String>,
    logpull_options: Option<LogpullOptions>,
    filter: Option<Filter>,
    extra: Map<String, Value>,
}

impl std::fmt::Debug for JobSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut extra = self.extra.clone();
        redact_job(&mut extra);
        f.debug_struct("JobSpec")
            .field("dataset", &self.dataset.name())
            .field("destination", &self.destination)
            .field("name", &self.name)
            .field("logpull_options", &self.logpull_options)
            .field("filter", &self.filter)
            .field("extra", &extra)
            .finish()
    }
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

    /// The filter as a person gives it: JSON text, its quoted form, or the text form
    /// (`EdgeResponseStatus >= 500`); parsed (and reported) at `build`. (A job body as the
    /// API reads it takes JSON only: [`JobSpec::from_body`] uses [`JobSpecBuilder::filter_text`].)
    pub fn filter_source(mut self, text: &str) -> Self {
        self.filter = Some(Filter::parse_any(text).map_err(Error::from));
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
            Some(Ok(d)) if d.secret_values().contains(&MASK) => {
                found.job(Problem::new(
                    "destination_conf",
                    ProblemCode::InvalidDestination,
                    format!("{MASKED}; give the real destination (in Python, `job.reveal()[\"destination_conf\"]`)"),
                ));
                None
            }
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
        self.problems.extend(problems.into_iter().map(|p| p.within("filter")));
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
                format!("`{}` is not a field of a log-push job{hint}", crate::shown::escape(key)),
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
            continue;
        }
        if SECRET_JOB_FIELDS.contains(&key.as_str()) && value.as_str() == Some(MASK) {
            found.job(Problem::new(
                key.clone(),
                ProblemCode::InvalidValue,
                format!("{MASKED}; give the real value (in Python, `job.reveal()[\"{key}\"]`)"),
            ));
            continue;
        }
        let range = JOB_FIELD_RANGES.iter().find(|(k, _, _)| k == key);
        if let (Some((_, least, most)), Some(n)) = (range, value.as_u64()) {
            if n != 0 && !(*least..=*most).contains(&n) {
                found.job(Problem::new(
                    key.clone(),
                    ProblemCode::InvalidValue,
                    format!("`{key}` is {n}; it takes {least} to {most}, or 0 to turn it off"),
                ));
            }
        }
        let closed = CLOSED_JOB_FIELDS.iter().find(|(k, _)| k == key);
        if let (Some((_, allowed)), Some(given)) = (closed, value.as_str()) {
            if !allowed.contains(&given) {
                let allowed: Vec<String> = allowed.iter().map(|a| format!("{a:?}")).collect();
                found.job(Problem::new(
                    key.clone(),
                    ProblemCode::InvalidValue,
                    format!(
                        "`{key}` is {}; it takes one of {}",
                        crate::shown::json_string(given),
                        allowed.join(", ")
                    ),
                ));
            }
        }
    }
}
