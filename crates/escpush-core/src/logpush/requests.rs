//! The requests of the log-push job endpoints, described once as [`JobOp`], and the readers
//! of their answers ([`read_job`], [`read_job_list`]).

use serde_json::{Map, Value};

use crate::dataset::DatasetScope;
use crate::error::Error;
use crate::esc::Scope;
use crate::json::json_kind;
use crate::operation::Operation;
use crate::request::{Method, Request};

use super::destination::DestinationConf;
use super::job::JobSpec;
use super::update::JobUpdate;

/// The dataset scope a zone or an account holds.
pub fn dataset_scope(scope: &Scope) -> DatasetScope {
    match scope {
        Scope::Zone(_) => DatasetScope::Zone,
        Scope::Account(_) => DatasetScope::Account,
    }
}

pub(super) fn jobs_path(scope: &Scope) -> String {
    format!("{}/logpush/jobs", scope.path())
}

impl JobSpec {
    /// Refuses a `scope` that does not hold the job's dataset (a zone dataset on an account).
    fn check_scope(&self, scope: &Scope) -> Result<(), Error> {
        if dataset_scope(scope) == self.dataset().scope() {
            return Ok(());
        }
        Err(Error::InvalidInput {
            what: "scope",
            message: format!(
                "`{}` is a {} dataset; create the job on the {} it belongs to, not on {scope}",
                self.dataset().name(),
                self.dataset().scope(),
                self.dataset().scope()
            ),
        })
    }
}

/// One operation on the log-push jobs of a zone or an account. Each variant names its
/// endpoint; [`Operation::request`] describes the request, and the answer is read with
/// [`read_job`] or [`read_job_list`].
///
/// A new endpoint is a new variant here and one arm in `request` (and a reader below when
/// its answer has a new shape).
#[derive(Clone, PartialEq)]
#[non_exhaustive]
pub enum JobOp<'a> {
    /// `POST {scope}/logpush/jobs` with the payload: creates a job. Never retried: the job
    /// may exist even when the answer is lost. The body holds the destination's
    /// credentials, so the request's `Debug` hides it.
    Create(&'a JobSpec),
    /// `GET {scope}/logpush/jobs`: every job of the zone or account.
    List,
    /// `GET {scope}/logpush/jobs/{job_id}`: one job.
    Get(u64),
    /// `PUT {scope}/logpush/jobs/{job_id}` with the whole updatable job ([`JobUpdate`]):
    /// safe to repeat (the same body gives the same job). Holds credentials.
    Update(&'a JobUpdate),
    /// `DELETE {scope}/logpush/jobs/{job_id}`: safe to repeat; a job already gone answers 404.
    Delete(u64),
    /// `GET {scope}/logpush/datasets/{dataset}/jobs`: the jobs of one dataset.
    DatasetJobs(&'a str),
    /// `GET {scope}/logpush/datasets/{dataset}/fields`: the live field list of a dataset.
    Fields(&'a str),
    /// `POST {scope}/logpush/ownership {destination_conf}`: the API writes a challenge file
    /// to the destination. Repeating it writes another one, harmlessly.
    OwnershipChallenge(&'a DestinationConf),
    /// `POST {scope}/logpush/ownership/validate {destination_conf, ownership_challenge}`.
    ValidateOwnership(&'a DestinationConf, &'a str),
    /// `POST {scope}/logpush/validate/destination {destination_conf}`.
    ValidateDestination(&'a DestinationConf),
    /// `POST {scope}/logpush/validate/destination/exists {destination_conf}`.
    DestinationExists(&'a DestinationConf),
}

/// Every part shown but the ownership challenge, a secret (destinations and updates hide
/// their credentials themselves).
impl std::fmt::Debug for JobOp<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            JobOp::Create(spec) => f.debug_tuple("Create").field(spec).finish(),
            JobOp::List => f.write_str("List"),
            JobOp::Get(id) => f.debug_tuple("Get").field(id).finish(),
            JobOp::Update(update) => f.debug_tuple("Update").field(update).finish(),
            JobOp::Delete(id) => f.debug_tuple("Delete").field(id).finish(),
            JobOp::DatasetJobs(d) => f.debug_tuple("DatasetJobs").field(d).finish(),
            JobOp::Fields(d) => f.debug_tuple("Fields").field(d).finish(),
            JobOp::OwnershipChallenge(conf) => f.debug_tuple("OwnershipChallenge").field(conf).finish(),
            JobOp::ValidateOwnership(conf, _) => f
                .debug_tuple("ValidateOwnership")
                .field(conf)
                .field(&crate::shown::MASK)
                .finish(),
            JobOp::ValidateDestination(conf) => f.debug_tuple("ValidateDestination").field(conf).finish(),
            JobOp::DestinationExists(conf) => f.debug_tuple("DestinationExists").field(conf).finish(),
        }
    }
}

/// A dataset name the scope holds, or why not (an unknown name, a zone dataset on an account).
fn scoped_dataset(name: &str, scope: &Scope) -> Result<&'static crate::dataset::Dataset, Error> {
    let err = match crate::dataset::Dataset::get(name, Some(dataset_scope(scope))) {
        Ok(d) => return Ok(d),
        Err(err) => err,
    };
    match crate::dataset::Dataset::get(name, None) {
        Ok(other) => Err(Error::InvalidInput {
            what: "dataset",
            message: format!(
                "`{name}` is {} dataset; ask the {} it belongs to, not {scope}",
                if other.scope() == DatasetScope::Zone {
                    "a zone"
                } else {
                    "an account"
                },
                other.scope()
            ),
        }),
        Err(_) => Err(err),
    }
}

/// `GET {scope}/logpush/datasets/{dataset}/{what}`, for a dataset the scope holds: a read.
fn dataset_get(scope: &Scope, name: &str, what: &str) -> Result<Request, Error> {
    let d = scoped_dataset(name, scope)?;
    Ok(Request::new(
        Method::Get,
        format!("{}/logpush/datasets/{}/{what}", scope.path(), d.name()),
    )
    .retry_safe(true))
}

/// `POST {scope}/logpush/{tail}` of a destination (and an ownership challenge): a check,
/// safe to repeat (the ownership request writes a new challenge file, which is harmless);
/// the body holds credentials.
fn destination_post(scope: &Scope, tail: &str, conf: &DestinationConf, challenge: Option<&str>) -> Request {
    let mut body = serde_json::json!({"destination_conf": conf.expose()});
    if let Some(challenge) = challenge {
        body["ownership_challenge"] = challenge.into();
    }
    Request::new(Method::Post, format!("{}/logpush/{tail}", scope.path()))
        .with_body(body)
        .with_secret()
        .retry_safe(true)
}

impl Operation for JobOp<'_> {
    fn request(&self, scope: &Scope) -> Result<Request, Error> {
        Ok(match self {
            JobOp::Create(spec) => {
                spec.check_scope(scope)?;
                Request::new(Method::Post, jobs_path(scope))
                    .with_body(spec.to_body())
                    .with_secret()
                    .retry_safe(false)
            }
            JobOp::List => read_request(scope, None),
            JobOp::Get(job_id) => read_request(scope, Some(*job_id)),
            JobOp::Update(update) => {
                if update.dataset().scope() != dataset_scope(scope) {
                    return Err(Error::InvalidInput {
                        what: "scope",
                        message: format!("job {} is not a job of {scope}", update.job_id()),
                    });
                }
                Request::new(Method::Put, format!("{}/{}", jobs_path(scope), update.job_id()))
                    .with_body(update.to_body())
                    .with_secret()
                    .retry_safe(true)
            }
            JobOp::Delete(job_id) => {
                Request::new(Method::Delete, format!("{}/{job_id}", jobs_path(scope))).retry_safe(true)
            }
            JobOp::DatasetJobs(name) => dataset_get(scope, name, "jobs")?,
            JobOp::Fields(name) => dataset_get(scope, name, "fields")?,
            JobOp::OwnershipChallenge(conf) => destination_post(scope, "ownership", conf, None),
            JobOp::ValidateOwnership(conf, challenge) => {
                if challenge.trim().is_empty() {
                    return Err(Error::InvalidInput {
                        what: "ownership_challenge",
                        message: "the challenge is empty; give the token the API wrote to the destination".to_owned(),
                    });
                }
                destination_post(scope, "ownership/validate", conf, Some(challenge))
            }
            JobOp::ValidateDestination(conf) => destination_post(scope, "validate/destination", conf, None),
            JobOp::DestinationExists(conf) => destination_post(scope, "validate/destination/exists", conf, None),
        })
    }
}

/// `GET` of the job list, or of one job: safe to repeat.
fn read_request(scope: &Scope, job_id: Option<u64>) -> Request {
    let path = match job_id {
        Some(id) => format!("{}/{id}", jobs_path(scope)),
        None => jobs_path(scope),
    };
    Request::new(Method::Get, path).retry_safe(true)
}

/// Reads the `result` of a job answer (create, get): a JSON object, the job record.
/// Anything else is [`Error::MalformedResponse`] naming what was found.
pub fn read_job(result: Value) -> Result<Map<String, Value>, Error> {
    match result {
        Value::Object(job) => Ok(job),
        other => Err(Error::malformed(format!(
            "the job is {}, not an object",
            json_kind(&other)
        ))),
    }
}

/// Reads the `result` of a job list answer: an array of job objects. `null` (the API's
/// `result` of a zone without jobs in some answers) is an empty list; anything else is
/// [`Error::MalformedResponse`] naming what was found, and where.
pub fn read_job_list(result: Value) -> Result<Vec<Map<String, Value>>, Error> {
    let items = match result {
        Value::Null => return Ok(Vec::new()),
        Value::Array(items) => items,
        other => {
            return Err(Error::malformed(format!(
                "the job list is {}, not an array",
                json_kind(&other)
            )))
        }
    };
    items
        .into_iter()
        .enumerate()
        .map(|(i, item)| match item {
            Value::Object(job) => Ok(job),
            other => Err(Error::malformed(format!(
                "job {i} of the list is {}, not an object",
                json_kind(&other)
            ))),
        })
        .collect()
}

fn object(result: Value, what: &str) -> Result<Map<String, Value>, Error> {
    match result {
        Value::Object(obj) => Ok(obj),
        other => Err(Error::malformed(format!(
            "{what} is {}, not an object",
            json_kind(&other)
        ))),
    }
}

fn member_bool(obj: &Map<String, Value>, key: &str, what: &str) -> Result<bool, Error> {
    obj.get(key)
        .and_then(Value::as_bool)
        .ok_or_else(|| Error::malformed(format!("{what} has no boolean `{key}`")))
}

/// A `200` answer that says `valid: false`: the API refused, in its message's words.
fn not_valid(what: &str, message: Option<&str>) -> Error {
    let said = message.filter(|m| !m.is_empty()).unwrap_or("no reason given");
    Error::Api {
        status: 200,
        errors: vec![crate::error::ApiMessage::new(0, format!("{what} is not valid: {said}"))],
    }
}

/// Reads the `result` of a `DELETE` of a job: `{"id": N}` (or `null`), the id removed.
pub fn read_deleted(result: Value) -> Result<Option<u64>, Error> {
    if result.is_null() {
        return Ok(None);
    }
    let obj = object(result, "the deleted job")?;
    match obj.get("id") {
        Some(Value::Number(n)) if n.as_u64().is_some() => Ok(n.as_u64()),
        None | Some(Value::Null) => Ok(None),
        Some(other) => Err(Error::malformed(format!(
            "the deleted job's `id` is {}, not an integer",
            json_kind(other)
        ))),
    }
}

/// Reads the `result` of a dataset's live field list: `{Field: description}`, in the
/// order the API gave.
pub fn read_fields(result: Value) -> Result<Vec<(String, String)>, Error> {
    object(result, "the field list")?
        .into_iter()
        .map(|(name, description)| match description {
            Value::String(d) => Ok((name, d)),
            Value::Null => Ok((name, String::new())),
            other => Err(Error::malformed(format!(
                "the description of field `{name}` is {}, not a string",
                json_kind(&other)
            ))),
        })
        .collect()
}

/// The answer to an ownership challenge request: where the API wrote the challenge file.
/// The file's content (the challenge) is at the destination, never in this answer.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct OwnershipChallenge {
    /// The file the API wrote at the destination, holding the challenge token.
    pub filename: String,
    /// The API's message.
    pub message: String,
}

/// Reads the `result` of `POST .../logpush/ownership`: `{filename, message, valid}`;
/// `valid: false` is an [`Error::Api`] with the API's message.
pub fn read_ownership_challenge(result: Value) -> Result<OwnershipChallenge, Error> {
    let obj = object(result, "the ownership challenge answer")?;
    let message = obj
        .get("message")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    if !member_bool(&obj, "valid", "the ownership challenge answer")? {
        return Err(not_valid("the destination", Some(&message)));
    }
    let filename = obj
        .get("filename")
        .and_then(Value::as_str)
        .ok_or_else(|| Error::malformed("the ownership challenge answer has no `filename`"))?
        .to_owned();
    Ok(OwnershipChallenge { filename, message })
}

/// Reads the `result` of an ownership or destination validation: `{valid, message?}`;
/// `valid: false` is an [`Error::Api`] naming `what` with the API's message. Gives the
/// message of a valid answer.
pub fn read_valid(result: Value, what: &str) -> Result<String, Error> {
    let obj = object(result, "the validation answer")?;
    let message = obj
        .get("message")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    if member_bool(&obj, "valid", "the validation answer")? {
        Ok(message)
    } else {
        Err(not_valid(what, Some(&message)))
    }
}

/// Reads the `result` of `POST .../validate/destination/exists`: `{exists}`.
pub fn read_exists(result: Value) -> Result<bool, Error> {
    member_bool(
        &object(result, "the destination check answer")?,
        "exists",
        "the destination check answer",
    )
}
