//! The requests of the log-push job endpoints, described once as [`JobOp`], and the readers
//! of their answers ([`read_job`], [`read_job_list`]).

use serde_json::{Map, Value};

use crate::dataset::DatasetScope;
use crate::error::Error;
use crate::esc::Scope;
use crate::json::json_kind;
use crate::operation::Operation;
use crate::request::{Method, Request};

use super::job::JobSpec;

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
/// A new endpoint (update, delete, ...) is a new variant here and one arm in `request`.
#[derive(Clone, Debug, PartialEq)]
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
