//! A job's creation payload ([`JobSpec`] and its builder), checked field by field as the
//! job field table ([`JOB_FIELDS`](super::JOB_FIELDS)) says.

use serde_json::{Map, Value};

use crate::error::Error;
use escpush_filter::suggest;
use escpush_filter::Dataset;
use escpush_filter::DatasetScope;
use escpush_filter::{Filter, Limits};
use escpush_filter::{Problem, ProblemCode};

use super::destination::DestinationConf;
use super::fields::{redact_job, JobField, JobFieldType, JOB_FIELDS, MASKED};
use super::options::LogpullOptions;
use super::output::{OutputFormat, RecordTemplate};

/// A log-push job's creation payload, checked against its dataset. Its `Debug` masks the
/// destination's credentials and the secret fields (the table's).
///
/// The fields read by a type of their own (the dataset, the destination, the options, the
/// filter) are held as that type; every other field of the table as the JSON given.
#[derive(Clone, PartialEq)]
pub struct JobSpec {
    dataset: &'static Dataset,
    destination: DestinationConf,
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
    logpull_options: Option<Result<LogpullOptions, Error>>,
    filter: Option<Result<Filter, Error>>,
    extra: Map<String, Value>,
    limits: Limits,
    /// Whether the destination's `ownership_challenge` goes unchecked ([`JobSpec::read_body`]).
    skip_challenge: bool,
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

    /// What the job delivers: its `output_options`, else its `logpull_options`, resolved
    /// ([`OutputFormat::from_job_fields`]); refused when it has neither (it names no field).
    pub fn output_format(&self) -> Result<OutputFormat, Error> {
        let mut fields = self.extra.clone();
        if let Some(options) = &self.logpull_options {
            fields.insert("logpull_options".into(), options.to_query().into());
        }
        OutputFormat::from_job_fields(&fields, self.dataset)
    }

    /// The job's name, if any.
    pub fn name(&self) -> Option<&str> {
        self.extra.get("name").and_then(Value::as_str)
    }

    /// The JSON body of `POST .../logpush/jobs`: `filter` is a string holding the canonical
    /// filter JSON, `logpull_options` the query string. Holds credentials of the destination.
    pub fn to_body(&self) -> Value {
        let mut body = Map::new();
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
        JobSpec::read_body(body, scope, true)
    }

    /// [`JobSpec::from_body`], with the `ownership_challenge` a destination needs checked only
    /// when `challenge` is true. A job kept in a file is read without it: the challenge is a
    /// one-time token needed when the job is created or moved to the destination, which the
    /// plan checks then (a creation through `from_body`, a move through [`JobUpdate`](super::JobUpdate)),
    /// not for a job that already exists there.
    pub(super) fn read_body(body: &Value, scope: DatasetScope, challenge: bool) -> Result<JobSpec, Error> {
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
        let mut dataset = None;
        let mut builder = JobSpecBuilder {
            scope: Some(scope),
            skip_challenge: !challenge,
            ..JobSpecBuilder::default()
        };
        for (key, value) in obj {
            // The fields read by a type of their own take a string (null: not given).
            let ty = JobField::get(key).map(|f| f.ty);
            let own = ty.is_some_and(JobFieldType::has_own_reader);
            let text = match value {
                // Not given (a type of its own reads none); a null elsewhere is the table's to judge.
                Value::Null if own => continue,
                Value::String(s) if own => s.clone(),
                _ if own => {
                    problems.push(Problem::new(
                        key.clone(),
                        ProblemCode::InvalidType,
                        format!("`{key}` takes a string"),
                    ));
                    continue;
                }
                _ => {
                    builder = builder.extra(key.clone(), value.clone());
                    continue;
                }
            };
            match ty {
                Some(JobFieldType::Dataset) => dataset = Some(text),
                Some(JobFieldType::Destination) => builder = builder.destination_conf(text),
                Some(JobFieldType::LogpullOptions) if !text.is_empty() => builder = builder.logpull_options_text(&text),
                Some(JobFieldType::Filter) if !text.is_empty() => builder = builder.filter_text(&text),
                _ => {}
            }
        }
        builder.dataset = Some(dataset.unwrap_or_default());
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
        self.extra.insert("name".to_owned(), Value::String(name.into()));
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

    /// Any other field of the table (`enabled`, `frequency`, ...), checked as the table says
    /// at `build`.
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
            Some(Ok(d)) if d.secret_values().contains(&escpush_filter::MASK) => {
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
        check_extra(&self.extra, dataset, &mut found);
        // The template's own grammar (the table checks that it is text), as the API refuses it.
        if let Some(Value::String(template)) = self.extra.get("output_options").and_then(|o| o.get("record_template")) {
            if let Err(problem) = RecordTemplate::parse(template) {
                found.job(problem);
            }
        }
        // Only an ndjson job takes a transformer (transformers.mdx; core's transformer rules).
        if self.extra.get("transformer_id").is_some_and(|v| !v.is_null()) {
            if let Some(r) = super::transformer::ndjson_refusal(self.extra.get("output_options")) {
                found.job(Problem::new("transformer_id", ProblemCode::InvalidValue, r.message));
            }
        }
        if let Some(problem) = destination
            .as_ref()
            .filter(|_| !self.skip_challenge)
            .and_then(|d| challenge_problem(d, self.extra.get("ownership_challenge")))
        {
            found.job(problem);
        }
        match (found.into_error(), dataset, destination) {
            (None, Some(dataset), Some(destination)) => Ok(JobSpec {
                dataset,
                destination,
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
            Some(Error::Filter(escpush_filter::FilterError::new(self.problems)))
        }
    }
}

fn check_dataset(name: &str, scope: Option<DatasetScope>, found: &mut Found) -> Option<&'static Dataset> {
    let message = match Dataset::get(name, Some(scope.unwrap_or(DatasetScope::Zone))) {
        Ok(d) => return Some(d),
        Err(_) if name.is_empty() => "a job needs a dataset, like \"http_requests\"".to_owned(),
        // A dataset of the other scope, in `Dataset::check_scope`'s words.
        Err(escpush_filter::Error::InvalidInput { message, .. }) => message,
        Err(err) => err.to_string(),
    };
    found.job(Problem::new("dataset", ProblemCode::UnknownDataset, message));
    None
}

/// The fields a creation sets beyond those read by a type of their own, each as the table
/// says: unknown fields (with a did-you-mean), fields the API sets, and each value's problems.
fn check_extra(extra: &Map<String, Value>, dataset: Option<&Dataset>, found: &mut Found) {
    for (key, value) in extra {
        let Some(field) = JobField::get(key) else {
            let hint = suggest::did_you_mean(suggest::closest(
                key,
                JOB_FIELDS.iter().filter(|f| f.create).map(|f| (f.name, f.name)),
            ));
            found.job(Problem::new(
                key.clone(),
                ProblemCode::UnknownMember,
                format!(
                    "`{}` is not a field of a log-push job{hint}",
                    escpush_filter::shown::escape(key)
                ),
            ));
            continue;
        };
        if field.ty.has_own_reader() {
            found.job(Problem::new(
                key.clone(),
                ProblemCode::InvalidValue,
                format!("`{key}` is given through its own setter of the builder, not as another field"),
            ));
            continue;
        }
        if !field.create {
            found.job(Problem::new(
                key.clone(),
                ProblemCode::UnknownMember,
                format!(
                    "`{key}` is set by the API ({}); a job cannot be created with it",
                    field.about
                ),
            ));
            continue;
        }
        for problem in field.problems(value, dataset) {
            found.job(problem);
        }
    }
}

/// The problem of a job to `destination` without the `ownership_challenge` its kind needs
/// (logpush-ownership-challenge.mdx: AWS S3 unless it carries an access key and its secret,
/// Google Cloud Storage, Azure, Sumo Logic), if there is one. Judged on a creation and on an
/// update that changes the destination.
pub(crate) fn challenge_problem(destination: &DestinationConf, challenge: Option<&Value>) -> Option<Problem> {
    if !destination.needs_challenge() || challenge.is_some_and(|c| c.as_str().is_some_and(|c| !c.is_empty())) {
        return None;
    }
    let kind = destination.destination();
    let unless = if kind.scheme == "s3" {
        "; or give the bucket's access-key-id and secret-access-key in the destination"
    } else {
        ""
    };
    Some(Problem::new(
        "ownership_challenge",
        ProblemCode::MissingMember,
        format!(
            "a job to {} needs an ownership challenge (logpush-ownership-challenge.mdx): ask the API for one \
             (`logpush.ownership_challenge(destination_conf)` in Python) and give the token it writes to the \
             destination{unless}",
            kind.name
        ),
    ))
}
