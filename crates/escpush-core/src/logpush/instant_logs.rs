//! Instant Logs jobs of a zone (`GET`/`POST /zones/{zone_id}/logpush/edge/jobs`): a live
//! session that streams a zone's HTTP requests to a WebSocket address.
//!
//! The rules, with their sources:
//! - the path is `.../logpush/edge/jobs` (SDK 5.9 `resources/logpush/edge.py`; docs
//!   `src/content/docs/logs/instant-logs.mdx`); the 2024 schema's `.../logpush/edge` is out of
//!   date (its operationId already says `...-edge-jobs`), and escpush neither sends nor answers it;
//! - zones only (schema and SDK: no account path);
//! - the body's keys are `fields` (a comma-separated list), `filter` (a string) and `sample`
//!   (an integer), all optional (schema `P:~1zones~1{zone_id}~1logpush~1edge/post`); the docs'
//!   example also sends `"kind": "instant-logs"` (instant-logs.mdx), taken and never sent;
//! - "For the moment, HTTP requests is the only dataset supported" (instant-logs.mdx): the
//!   fields must be `http_requests` fields, and the filter is checked as a job's filter on
//!   that dataset (an empty string, as the docs' example sends, is no filter);
//! - the filter is read as instant-logs.mdx writes its examples: `neq` for `!eq` (also the
//!   official SDK's example, `tests/api_resources/logpush/test_edge.py`), and the values of
//!   `in` / `!in` as one comma-separated string (`"200,201"`), besides the Filters page's
//!   names and arrays, to which the page sends the reader ("All supported operators can be
//!   found in the Filters page"); it is sent in the canonical form those name (`!eq`,
//!   `["200","201"]`). The page's third example is not JSON (its brackets do not close) and
//!   is refused as such;
//! - "Only one active Instant Logs session per zone" (instant-logs.mdx, Limits):
//!   [`MAX_ACTIVE_SESSIONS`], which the emulator enforces;
//! - "`sample`: 1 is 100% of records, 10 is 10% and so on" (schema `S:logpush_sample`): one
//!   record in `sample`, so at least 1;
//! - the answer is the session: `destination_conf` (its `wss://` address, schema
//!   `S:logpush_schemas-destination_conf`), `fields`, `filter`, `sample`, `session_id`
//!   (schema `S:logpush_instant_logs_job`); the docs' example adds `id` and `kind`.

use serde_json::{Map, Value};

use crate::envelope::read_list;
use crate::error::Error;
use escpush_filter::json_kind;
use escpush_filter::suggest;
use escpush_filter::Dataset;
use escpush_filter::{Filter, Limits, Operator};
use escpush_filter::{Problem, ProblemCode};

use super::fields::JobRule;
use escpush_filter::field_list_problems;

/// The only dataset Instant Logs streams (instant-logs.mdx).
pub const INSTANT_LOGS_DATASET: &str = "http_requests";

/// The value of `kind` the docs' example sends (and the API may give back): taken, never sent.
const KIND: &str = "instant-logs";

/// The scheme of a session's address (schema `S:logpush_schemas-destination_conf`).
const SESSION_SCHEME: &str = "wss://";

/// "Only one active Instant Logs session per zone." (cloudflare/cloudflare-docs,
/// `src/content/docs/logs/instant-logs.mdx`, "Limits"; the emulator refuses a second.)
pub const MAX_ACTIVE_SESSIONS: usize = 1;

/// The rules of an Instant Logs session, for `docs/job-rules.md`; each is enforced by
/// [`InstantLogsSpec`] (the client and the emulator) or, for the sessions a zone holds, by
/// the emulator with [`MAX_ACTIVE_SESSIONS`].
pub const INSTANT_LOGS_RULES: &[JobRule] = &[
    JobRule {
        rule: "A session is opened on a zone (`POST /zones/{zone_id}/logpush/edge/jobs`); an account has none.",
        source: "instant-logs.mdx (Instant Logs via CLI); SDK 5.9 resources/logpush/edge.py",
    },
    JobRule {
        rule: "Its fields, when given, are fields of http_requests, the one dataset of Instant Logs; its sample is \
               1 or more (1 streams every request, 10 one in ten).",
        source: "instant-logs.mdx (Datasets available: \"HTTP requests is the only dataset supported\"; Sample); \
                 schema logpush_sample",
    },
    JobRule {
        rule: "Its filter is checked as a job's filter on http_requests, and read as the page writes its examples \
               too: `neq` for `!eq`, and the values of `in` / `!in` as one comma-separated string (`\"200,201\"`); \
               escpush sends the Filters page's form (`!eq`, `[\"200\",\"201\"]`). An empty filter is none.",
        source: "instant-logs.mdx (Filters: its examples, and \"All supported operators can be found in the Filters \
                 page\"); SDK 5.9 tests/api_resources/logpush/test_edge.py (`neq`); filters.mdx",
    },
    JobRule {
        rule: "A zone has at most one active Instant Logs session.",
        source: "instant-logs.mdx (Limits: \"Only one active Instant Logs session per zone\")",
    },
];

/// A filter as an Instant Logs session reads it: as a job's filter, else (when that refuses
/// it) with the spellings of instant-logs.mdx's examples replaced by the Filters page's
/// (`neq` by `!eq`, a comma-separated string given to `in` / `!in` by the array of its
/// trimmed parts); a filter still refused gives the job reader's problems.
fn read_filter(text: &str, any: bool) -> Result<Filter, Error> {
    let read = |text: &str| {
        if any {
            Filter::parse_any(text)
        } else {
            Filter::parse(text)
        }
    };
    let err = match read(text) {
        Ok(filter) => return Ok(filter),
        Err(err) => err,
    };
    let Ok(mut doc) = serde_json::from_str::<Value>(text) else {
        return Err(err.into());
    };
    if let Value::String(inner) = &doc {
        match serde_json::from_str::<Value>(inner) {
            Ok(inner) => doc = inner,
            Err(_) => return Err(err.into()),
        }
    }
    if !page_spelling(&mut doc) {
        return Err(err.into());
    }
    Filter::from_json(doc).map_err(|_| err.into())
}

/// Replaces the spellings of instant-logs.mdx's examples in a filter's JSON tree (see
/// [`read_filter`]); whether any was found. Without recursion: a tree of any depth is walked.
fn page_spelling(doc: &mut Value) -> bool {
    let mut changed = false;
    let mut stack = vec![doc];
    while let Some(node) = stack.pop() {
        match node {
            Value::Object(obj) => {
                let page_name = obj
                    .get("operator")
                    .and_then(Value::as_str)
                    .and_then(Operator::from_instant_logs_name);
                if let Some(op) = page_name {
                    obj.insert("operator".into(), op.as_str().into());
                    changed = true;
                }
                let takes_set = obj
                    .get("operator")
                    .and_then(Value::as_str)
                    .and_then(|name| name.parse::<Operator>().ok())
                    .is_some_and(Operator::takes_set);
                if let (true, Some(Value::String(list))) = (takes_set, obj.get("value")) {
                    let items: Vec<Value> = list.split(',').map(|s| Value::from(s.trim())).collect();
                    obj.insert("value".into(), Value::Array(items));
                    changed = true;
                }
                stack.extend(obj.values_mut());
            }
            Value::Array(items) => stack.extend(items.iter_mut()),
            _ => {}
        }
    }
    changed
}

/// What an Instant Logs session streams: some fields of `http_requests` (all when none are
/// named), the requests a filter keeps, one in `sample`. Built by [`InstantLogsSpec::builder`]
/// (the client) or [`InstantLogsSpec::from_body`] (the emulator), with the same checks.
#[derive(Clone, Debug, PartialEq, Default)]
#[non_exhaustive]
pub struct InstantLogsSpec {
    fields: Option<Vec<String>>,
    filter: Option<Filter>,
    sample: Option<u64>,
}

/// The parts of an [`InstantLogsSpec`] before their checks.
#[derive(Clone, Debug, Default)]
#[must_use]
pub struct InstantLogsSpecBuilder {
    fields: Option<Vec<String>>,
    filter: Option<Result<Filter, Error>>,
    sample: Option<i128>,
    limits: Limits,
}

impl InstantLogsSpec {
    /// The parts, checked at [`InstantLogsSpecBuilder::build`].
    pub fn builder() -> InstantLogsSpecBuilder {
        InstantLogsSpecBuilder::default()
    }

    /// The fields streamed (`None`: not named).
    pub fn fields(&self) -> Option<&[String]> {
        self.fields.as_deref()
    }

    /// The filter.
    pub fn filter(&self) -> Option<&Filter> {
        self.filter.as_ref()
    }

    /// One record in `sample` is streamed.
    pub fn sample(&self) -> Option<u64> {
        self.sample
    }

    /// The body of `POST .../logpush/edge/jobs`: `fields` comma-separated, `filter` as its
    /// canonical JSON text; what was not given is left out.
    pub fn to_body(&self) -> Value {
        let mut body = Map::new();
        if let Some(fields) = &self.fields {
            body.insert("fields".into(), fields.join(",").into());
        }
        if let Some(filter) = &self.filter {
            body.insert("filter".into(), filter.to_json().into());
        }
        if let Some(sample) = self.sample {
            body.insert("sample".into(), sample.into());
        }
        Value::Object(body)
    }

    /// Reads a creation body as the API receives it, with every check of
    /// [`InstantLogsSpecBuilder::build`]; `kind` may be `"instant-logs"` (the docs' example),
    /// any other key is refused.
    pub fn from_body(body: &Value) -> Result<InstantLogsSpec, Error> {
        let Some(obj) = body.as_object() else {
            return Err(invalid(vec![Problem::new(
                "",
                ProblemCode::NotAnObject,
                format!(
                    "an Instant Logs job is a JSON object {{fields, filter, sample}}, not {}",
                    json_kind(body)
                ),
            )]));
        };
        let mut problems = Vec::new();
        let mut builder = InstantLogsSpec::builder();
        for (key, value) in obj {
            match (key.as_str(), value) {
                (_, Value::Null) => {}
                ("fields", Value::String(text)) => builder = builder.fields_text(text),
                // An empty filter is no filter (the docs' example sends `"filter": ""`).
                ("filter", Value::String(text)) if text.is_empty() => {}
                ("filter", Value::String(text)) => builder = builder.filter_text(text),
                ("sample", Value::Number(n)) if n.is_i64() || n.is_u64() => {
                    let n = n.as_i64().map(i128::from).or(n.as_u64().map(i128::from));
                    builder = builder.sample(n.unwrap_or_default());
                }
                ("kind", Value::String(kind)) if kind == KIND => {}
                ("fields" | "filter" | "kind", other) => problems.push(Problem::new(
                    key.clone(),
                    ProblemCode::InvalidType,
                    format!(
                        "`{key}` takes {}, not {}",
                        if key == "kind" { "\"instant-logs\"" } else { "a string" },
                        json_kind(other)
                    ),
                )),
                ("sample", other) => problems.push(Problem::new(
                    "sample",
                    ProblemCode::InvalidType,
                    format!("`sample` takes an integer, not {}", json_kind(other)),
                )),
                _ => {
                    let hint = suggest::did_you_mean(suggest::closest(
                        key,
                        ["fields", "filter", "sample"].into_iter().map(|k| (k, k)),
                    ));
                    problems.push(Problem::new(
                        key.clone(),
                        ProblemCode::UnknownMember,
                        format!(
                            "`{}` is not a field of an Instant Logs job (fields, filter, sample){hint}",
                            escpush_filter::shown::escape(key)
                        ),
                    ));
                }
            }
        }
        match builder.build() {
            Ok(spec) if problems.is_empty() => Ok(spec),
            Ok(_) => Err(invalid(problems)),
            Err(err) => {
                problems.extend(into_problems(err));
                Err(invalid(problems))
            }
        }
    }
}

impl InstantLogsSpecBuilder {
    /// The fields to stream, by name.
    pub fn fields<S: Into<String>>(mut self, fields: impl IntoIterator<Item = S>) -> Self {
        self.fields = Some(fields.into_iter().map(Into::into).collect());
        self
    }

    /// The fields as the API takes them, comma-separated (`ClientIP,RayID`).
    pub fn fields_text(self, text: &str) -> Self {
        self.fields(text.split(','))
    }

    /// The filter.
    pub fn filter(mut self, filter: Filter) -> Self {
        self.filter = Some(Ok(filter));
        self
    }

    /// The filter as JSON text (or the quoted form), as the API reads it: also in the
    /// spellings of instant-logs.mdx's examples (`neq`, `"value":"200,201"` for `in`; see
    /// the [module docs](self)).
    pub fn filter_text(mut self, text: &str) -> Self {
        self.filter = Some(read_filter(text, false));
        self
    }

    /// The filter as a person gives it: JSON (also in the spellings of instant-logs.mdx's
    /// examples), its quoted form or the text form.
    pub fn filter_source(mut self, text: &str) -> Self {
        self.filter = Some(read_filter(text, true));
        self
    }

    /// One record in `sample` (1: every record).
    pub fn sample(mut self, sample: impl Into<i128>) -> Self {
        self.sample = Some(sample.into());
        self
    }

    /// The filter limits (the API's by default, as for a job's filter).
    pub fn limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    /// Checks everything and gives the spec, or every problem: an empty list of fields, a
    /// field `http_requests` does not have (or named twice, or empty), a filter that is malformed, over the limits
    /// or does not fit `http_requests`, a `sample` below 1. An error holding only filter
    /// problems is [`Error::Filter`], any other mix [`Error::Invalid`] (as for a job).
    pub fn build(self) -> Result<InstantLogsSpec, Error> {
        let dataset = Dataset::get(INSTANT_LOGS_DATASET, None)?;
        let mut problems = Vec::new();
        if let Some(fields) = &self.fields {
            problems.extend(field_list_problems(
                "fields",
                fields.iter().map(|f| Some(f.as_str())),
                dataset,
                ProblemCode::InvalidValue,
            ));
        }
        let mut others = problems.len();
        let filter = match self.filter {
            Some(Ok(f)) => {
                problems.extend(
                    f.problems(Some(dataset), self.limits)
                        .into_iter()
                        .map(|p| p.within("filter")),
                );
                Some(f)
            }
            Some(Err(err)) => {
                problems.extend(into_problems(err).into_iter().map(|p| p.within("filter")));
                None
            }
            None => None,
        };
        let sample = match self.sample.map(u64::try_from) {
            None => None,
            Some(Ok(n)) if n >= 1 => Some(n),
            Some(wrong) => {
                let rule = if wrong.is_ok() || self.sample < Some(0) {
                    "takes 1 or more: 1 streams every record, 10 one in ten".to_owned()
                } else {
                    format!("takes at most {}", u64::MAX)
                };
                problems.push(Problem::new(
                    "sample",
                    ProblemCode::InvalidValue,
                    format!("`sample` {rule}"),
                ));
                others += 1;
                None
            }
        };
        // As for a job: an error holding only filter problems is a filter error.
        if others == 0 && !problems.is_empty() {
            return Err(Error::Filter(escpush_filter::FilterError::new(problems)));
        }
        if !problems.is_empty() {
            return Err(invalid(problems));
        }
        Ok(InstantLogsSpec {
            fields: self.fields,
            filter,
            sample,
        })
    }
}

fn invalid(problems: Vec<Problem>) -> Error {
    Error::Invalid { problems }
}

fn into_problems(err: Error) -> Vec<Problem> {
    match err {
        Error::Invalid { problems } => problems,
        Error::Filter(f) => f.into_problems(),
        other => vec![Problem::new("", ProblemCode::InvalidValue, other.to_string())],
    }
}

/// Reads an Instant Logs job (the `result` of a creation, an item of the list): an object
/// whose `destination_conf` is a `wss://` address and whose `fields`, `filter`,
/// `session_id` are strings and `sample` an integer when present (`null` counts as absent;
/// other keys, like the docs' `id` and `kind`, are kept). Anything else is
/// [`Error::MalformedResponse`] naming what was found.
pub fn read_instant_logs_job(result: Value) -> Result<Map<String, Value>, Error> {
    let job = match result {
        Value::Object(job) => job,
        other => {
            return Err(Error::malformed(format!(
                "the Instant Logs job is {}, not an object",
                json_kind(&other)
            )))
        }
    };
    match job.get("destination_conf") {
        Some(Value::String(conf)) if conf.starts_with(SESSION_SCHEME) => {}
        Some(Value::String(_)) => {
            return Err(Error::malformed(format!(
                "the Instant Logs job's `destination_conf` is not a {SESSION_SCHEME} address"
            )))
        }
        Some(other) => {
            return Err(Error::malformed(format!(
                "the Instant Logs job's `destination_conf` is {}, not a string",
                json_kind(other)
            )))
        }
        None => return Err(Error::malformed("the Instant Logs job has no `destination_conf`")),
    }
    for key in ["fields", "filter", "session_id"] {
        if let Some(other) = job.get(key).filter(|v| !v.is_null() && !v.is_string()) {
            return Err(Error::malformed(format!(
                "the Instant Logs job's `{key}` is {}, not a string",
                json_kind(other)
            )));
        }
    }
    if let Some(other) = job.get("sample").filter(|v| !v.is_null() && !v.is_i64() && !v.is_u64()) {
        return Err(Error::malformed(format!(
            "the Instant Logs job's `sample` is {}, not an integer",
            json_kind(other)
        )));
    }
    Ok(job)
}

/// Reads the `result` of the Instant Logs job list: an array of jobs, each read by
/// [`read_instant_logs_job`] (its place named in the error); `null` is an empty list.
pub fn read_instant_logs_jobs(result: Value) -> Result<Vec<Map<String, Value>>, Error> {
    read_list(result, "the Instant Logs job list", |i, item| {
        read_instant_logs_job(item).map_err(|e| match e {
            Error::MalformedResponse { status, message } => Error::MalformedResponse {
                status,
                message: format!("item {i} of the list: {message}"),
            },
            other => other,
        })
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use escpush_filter::field;

    fn codes(err: &Error) -> Vec<(String, &'static str)> {
        match err {
            Error::Invalid { problems } => problems.iter().map(|p| (p.path.clone(), p.code.as_str())).collect(),
            other => panic!("not a list of problems: {other}"),
        }
    }

    #[test]
    fn a_session_is_checked_against_http_requests() {
        let spec = InstantLogsSpec::builder()
            .fields(["ClientIP", "RayID"])
            .filter(field("ClientCountry").ne("ca"))
            .sample(10)
            .build()
            .unwrap();
        let body = spec.to_body();
        assert_eq!(
            body,
            json!({
                "fields": "ClientIP,RayID",
                "filter": r#"{"where":{"key":"ClientCountry","operator":"!eq","value":"ca"}}"#,
                "sample": 10
            })
        );
        // The emulator reads what the client sends the same way.
        assert_eq!(InstantLogsSpec::from_body(&body).unwrap(), spec);
        assert_eq!(InstantLogsSpec::builder().build().unwrap().to_body(), json!({}));
        // The docs' example body: an empty filter and `kind: "instant-logs"`.
        let docs = json!({"fields": "ClientIP,RayID", "sample": 100, "filter": "", "kind": "instant-logs"});
        let read = InstantLogsSpec::from_body(&docs).unwrap();
        assert_eq!((read.filter(), read.sample()), (None, Some(100)));
    }

    #[test]
    fn the_filters_of_the_instant_logs_page_are_read_as_it_writes_them() {
        // instant-logs.mdx's first two examples, as written there (the third is not JSON);
        // the official SDK's example is the first.
        let neq = r#"{"where":{"and":[{"key":"ClientCountry","operator":"neq","value":"ca"}]}}"#;
        let set = r#"{"where":{"and":[{"key":"EdgeResponseStatus","operator":"in","value":"200,201"}]}}"#;
        let means = |text: &str| Filter::parse(text).unwrap();
        for (given, meant) in [
            (
                neq,
                means(r#"{"where":{"and":[{"key":"ClientCountry","operator":"!eq","value":"ca"}]}}"#),
            ),
            (
                set,
                means(r#"{"where":{"and":[{"key":"EdgeResponseStatus","operator":"in","value":["200","201"]}]}}"#),
            ),
            (
                r#"{"where":{"key":"EdgeResponseStatus","operator":"!in","value":" 500 , 503"}}"#,
                means(r#"{"where":{"key":"EdgeResponseStatus","operator":"!in","value":["500","503"]}}"#),
            ),
        ] {
            // The emulator (a body as sent), the client (JSON, its quoted form, a person's text).
            let body = json!({"fields": "ClientIP", "filter": given, "sample": 1});
            assert_eq!(
                InstantLogsSpec::from_body(&body).unwrap().filter(),
                Some(&meant),
                "{given}"
            );
            let quoted = serde_json::Value::from(given).to_string();
            for built in [
                InstantLogsSpec::builder().filter_text(given),
                InstantLogsSpec::builder().filter_text(&quoted),
                InstantLogsSpec::builder().filter_source(given),
            ] {
                assert_eq!(built.build().unwrap().filter(), Some(&meant), "{given}");
            }
        }
        // What the page does not write is refused as before, with the reader's problem.
        let err = InstantLogsSpec::builder()
            .filter_text(r#"{"where":{"key":"ClientCountry","operator":"nq","value":"ca"}}"#)
            .build()
            .unwrap_err();
        assert!(err.to_string().contains("unknown operator `nq`"), "{err}");
        // A log-push job keeps the Filters page's names: `neq` is not one.
        assert!(Filter::parse(neq).is_err());
    }

    #[test]
    fn what_the_api_refuses_is_refused_with_its_path() {
        let err = InstantLogsSpec::builder()
            .fields_text("ClientIP,ClientIPP,,ClientIP")
            .filter(field("DstIP").eq("1.1.1.1"))
            .sample(0)
            .build()
            .unwrap_err();
        assert_eq!(
            codes(&err),
            [
                ("fields[1]".into(), "unknown_field"),
                ("fields[2]".into(), "invalid_value"),
                ("fields[3]".into(), "invalid_value"),
                ("filter.where.key".into(), "unknown_field"),
                ("sample".into(), "invalid_value"),
            ]
        );
        assert!(err.to_string().contains("did you mean `ClientIP`"), "{err}");
        for (body, path, code) in [
            (json!({"sample": "10"}), "sample", "invalid_type"),
            (json!({"sample": 1.5}), "sample", "invalid_type"),
            (json!({"sample": -1}), "sample", "invalid_value"),
            (json!({"fields": ["ClientIP"]}), "fields", "invalid_type"),
            (json!({"filter": "{}"}), "filter", "missing_where"),
            (json!({"kind": "edge"}), "kind", "invalid_type"),
            (json!({"dataset": "http_requests"}), "dataset", "unknown_member"),
            (json!([]), "", "not_an_object"),
        ] {
            let err = InstantLogsSpec::from_body(&body).unwrap_err();
            assert_eq!(codes(&err)[0], (path.to_owned(), code), "{body}");
        }
    }

    #[test]
    fn answers_are_read_or_refused() {
        let session = json!({
            "destination_conf": "wss://logs.cloudflare.com/instant-logs/ws/sessions/99d471b1",
            "session_id": "99d471b1", "fields": "ClientIP", "filter": "", "sample": 1
        });
        assert_eq!(
            read_instant_logs_job(session.clone()).unwrap()["session_id"],
            "99d471b1"
        );
        // The docs' form, with `id` and `kind`, and without `session_id`.
        let docs = json!({"id": 3, "kind": "instant-logs", "destination_conf": "wss://x/y", "sample": 100});
        assert!(read_instant_logs_job(docs).is_ok());
        assert_eq!(
            read_instant_logs_jobs(json!(null)).unwrap(),
            Vec::<Map<String, Value>>::new()
        );
        assert_eq!(read_instant_logs_jobs(json!([session])).unwrap().len(), 1);
        for (bad, said) in [
            (json!(null), "is null, not an object"),
            (json!({}), "has no `destination_conf`"),
            (json!({"destination_conf": "s3://b"}), "not a wss:// address"),
            (json!({"destination_conf": 5}), "is a number, not a string"),
            (
                json!({"destination_conf": "wss://x", "sample": "1"}),
                "`sample` is a string",
            ),
            (
                json!({"destination_conf": "wss://x", "fields": []}),
                "`fields` is an array",
            ),
        ] {
            let err = read_instant_logs_job(bad.clone()).unwrap_err();
            assert!(matches!(err, Error::MalformedResponse { .. }), "{bad}");
            assert!(err.to_string().contains(said), "{bad}: {err}");
        }
        let err = read_instant_logs_jobs(json!([{"destination_conf": "wss://x"}, 5])).unwrap_err();
        assert!(err.to_string().contains("item 1 of the list"), "{err}");
        assert!(read_instant_logs_jobs(json!({})).is_err());
    }

    #[test]
    fn the_new_operations_describe_their_requests() {
        use crate::logpush::{JobOp, LogpullOptions, OriginCheck};
        use crate::operation::Operation;
        use crate::request::{Method, RetryClass};
        use crate::scope::Scope;
        use escpush_filter::DatasetScope;

        let zone = Scope::zone("z1").unwrap();
        let account = Scope::account("a1").unwrap();
        let spec = InstantLogsSpec::builder()
            .fields(["ClientIP"])
            .sample(1)
            .build()
            .unwrap();
        let create = JobOp::CreateInstantLogsJob(&spec).request(&zone).unwrap();
        assert_eq!(
            (create.method, create.path.as_str(), create.retry),
            (Method::Post, "/zones/z1/logpush/edge/jobs", RetryClass::WhenUnprocessed)
        );
        assert_eq!(create.body.unwrap(), json!({"fields": "ClientIP", "sample": 1}));
        // Not safe to repeat: it says how to find out what became of a lost answer.
        let check = create.outcome_check.unwrap();
        assert!(check.contains("list the Instant Logs jobs of zone z1"), "{check}");
        let list = JobOp::InstantLogsJobs.request(&zone).unwrap();
        assert_eq!((list.method, list.retry), (Method::Get, RetryClass::Safe));
        // Zones only: refused on an account before anything is sent.
        for op in [JobOp::InstantLogsJobs, JobOp::CreateInstantLogsJob(&spec)] {
            assert!(matches!(
                op.request(&account),
                Err(Error::InvalidInput { what: "scope", .. })
            ));
        }
        let options = LogpullOptions::parse("fields=ClientIP").unwrap();
        let check = OriginCheck::new(Some(&options), Some("http_requests"), DatasetScope::Zone).unwrap();
        let req = JobOp::ValidateOrigin(&check).request(&zone).unwrap();
        assert_eq!(
            (req.method, req.path.as_str(), req.retry),
            (Method::Post, "/zones/z1/logpush/validate/origin", RetryClass::Safe)
        );
        assert_eq!(
            req.body.unwrap(),
            json!({"logpull_options": "fields=ClientIP", "dataset": "http_requests"})
        );
        let err = JobOp::ValidateOrigin(&check).request(&account).unwrap_err();
        assert!(
            err.to_string()
                .contains("`http_requests` is a zone dataset: use it on a zone, not on an account"),
            "{err}"
        );
        let bare = OriginCheck::new(Some(&options), None, DatasetScope::Zone).unwrap();
        assert_eq!(
            JobOp::ValidateOrigin(&bare).request(&account).unwrap().path,
            "/accounts/a1/logpush/validate/origin"
        );
    }
}
