//! The requests of the log-push job endpoints, described once as [`JobOp`] on the rows of
//! the endpoint table, and the readers of their answers ([`read_job`], [`read_job_list`],
//! ...).

use serde_json::{Map, Value};

use crate::endpoints::Endpoint;
use crate::envelope::read_list;
use crate::error::Error;
use crate::operation::Operation;
use crate::request::Request;
use crate::scope::Scope;
use escpush_filter::json_kind;
use escpush_filter::Dataset;

use super::destination::DestinationConf;
use super::fields::JobField;
use super::instant_logs::InstantLogsSpec;
use super::job::JobSpec;
use super::origin::OriginCheck;
use super::update::JobUpdate;

/// One operation on the log-push jobs of a zone or an account. Each variant names its
/// endpoint; [`Operation::request`] describes the request, and the answer is read with
/// [`read_job`] or [`read_job_list`].
///
/// A new endpoint is its row in the endpoint table, a new variant here with its arms in
/// `request` and `Debug` (and a reader below when its answer has a new shape).
#[derive(Clone, PartialEq)]
#[non_exhaustive]
pub enum JobOp<'a> {
    /// `POST {scope}/logpush/jobs` with the payload: creates a job. The body holds the
    /// destination's credentials, so the request's `Debug` hides it.
    Create(&'a JobSpec),
    /// `GET {scope}/logpush/jobs`: every job of the zone or account.
    List,
    /// `GET {scope}/logpush/jobs/{job_id}`: one job.
    Get(u64),
    /// `PUT {scope}/logpush/jobs/{job_id}` with the fields that change ([`JobUpdate`]; the
    /// API keeps the others). May hold credentials.
    Update(&'a JobUpdate),
    /// `DELETE {scope}/logpush/jobs/{job_id}`: a job already gone answers 404.
    Delete(u64),
    /// `GET {scope}/logpush/datasets/{dataset}/jobs`: the jobs of one dataset.
    DatasetJobs(&'a str),
    /// `GET {scope}/logpush/datasets/{dataset}/fields`: the live field list of a dataset.
    Fields(&'a str),
    /// `POST {scope}/logpush/ownership {destination_conf}`: the API writes a challenge file
    /// to the destination.
    OwnershipChallenge(&'a DestinationConf),
    /// `POST {scope}/logpush/ownership/validate {destination_conf, ownership_challenge}`.
    ValidateOwnership(&'a DestinationConf, &'a str),
    /// `POST {scope}/logpush/validate/destination {destination_conf}`.
    ValidateDestination(&'a DestinationConf),
    /// `POST {scope}/logpush/validate/destination/exists {destination_conf}`.
    DestinationExists(&'a DestinationConf),
    /// `POST {scope}/logpush/validate/origin {logpull_options, dataset?}`.
    ValidateOrigin(&'a OriginCheck),
    /// `GET /zones/{zone_id}/logpush/edge/jobs`: the zone's Instant Logs jobs.
    InstantLogsJobs,
    /// `POST /zones/{zone_id}/logpush/edge/jobs {fields?, filter?, sample?}`: opens an
    /// Instant Logs session.
    CreateInstantLogsJob(&'a InstantLogsSpec),
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
                .field(&escpush_filter::MASK)
                .finish(),
            JobOp::ValidateDestination(conf) => f.debug_tuple("ValidateDestination").field(conf).finish(),
            JobOp::DestinationExists(conf) => f.debug_tuple("DestinationExists").field(conf).finish(),
            JobOp::ValidateOrigin(check) => f.debug_tuple("ValidateOrigin").field(check).finish(),
            JobOp::InstantLogsJobs => f.write_str("InstantLogsJobs"),
            JobOp::CreateInstantLogsJob(spec) => f.debug_tuple("CreateInstantLogsJob").field(spec).finish(),
        }
    }
}

/// A destination check (`POST {scope}/logpush/{ownership,validate/...}`): the body holds
/// the destination's credentials (and the ownership challenge).
fn destination_check(
    endpoint: Endpoint,
    scope: &Scope,
    conf: &DestinationConf,
    challenge: Option<&str>,
) -> Result<Request, Error> {
    let mut body = serde_json::json!({"destination_conf": conf.expose()});
    if let Some(challenge) = challenge {
        body["ownership_challenge"] = challenge.into();
    }
    Ok(endpoint.request(scope, &[])?.with_body(body).with_secret())
}

impl Operation for JobOp<'_> {
    fn request(&self, scope: &Scope) -> Result<Request, Error> {
        Ok(match self {
            JobOp::Create(spec) => {
                spec.dataset().check_scope(scope.kind())?;
                let named = spec.name().map_or_else(
                    || format!("of dataset `{}`", spec.dataset().name()),
                    |n| format!("named `{n}`"),
                );
                Endpoint::JobCreate
                    .request(scope, &[])?
                    .with_body(spec.to_body())
                    .with_secret()
                    .with_outcome_check(format!(
                        "the job may exist; list the jobs of {scope} and look for one {named} before creating it \
                         again (a creation that may have reached the API is never retried)"
                    ))
            }
            JobOp::List => Endpoint::JobList.request(scope, &[])?,
            JobOp::Get(job_id) => Endpoint::JobGet.request(scope, &[&job_id.to_string()])?,
            JobOp::Update(update) => {
                update.dataset().check_scope(scope.kind())?;
                Endpoint::JobUpdate
                    .request(scope, &[&update.job_id().to_string()])?
                    .with_body(update.to_body())
                    .with_secret()
            }
            JobOp::Delete(job_id) => Endpoint::JobDelete.request(scope, &[&job_id.to_string()])?,
            JobOp::DatasetJobs(name) => {
                Endpoint::DatasetJobs.request(scope, &[Dataset::get(name, Some(scope.kind()))?.name()])?
            }
            JobOp::Fields(name) => {
                Endpoint::DatasetFields.request(scope, &[Dataset::get(name, Some(scope.kind()))?.name()])?
            }
            JobOp::OwnershipChallenge(conf) => destination_check(Endpoint::OwnershipChallenge, scope, conf, None)?,
            JobOp::ValidateOwnership(conf, challenge) => {
                if challenge.trim().is_empty() {
                    return Err(Error::InvalidInput {
                        what: "ownership_challenge",
                        message: "the challenge is empty; give the token the API wrote to the destination".to_owned(),
                    });
                }
                // The token's own rule (the schema's pattern and length), as a creation checks it.
                let field = JobField::get("ownership_challenge").expect("a row of JOB_FIELDS");
                let problems = field.problems(&Value::from(*challenge), None);
                if !problems.is_empty() {
                    return Err(Error::Invalid { problems });
                }
                destination_check(Endpoint::OwnershipValidate, scope, conf, Some(challenge))?
            }
            JobOp::ValidateDestination(conf) => destination_check(Endpoint::ValidateDestination, scope, conf, None)?,
            JobOp::DestinationExists(conf) => destination_check(Endpoint::DestinationExists, scope, conf, None)?,
            JobOp::ValidateOrigin(check) => {
                if let Some(d) = check.dataset() {
                    d.check_scope(scope.kind())?;
                }
                Endpoint::ValidateOrigin.request(scope, &[])?.with_body(check.to_body())
            }
            JobOp::InstantLogsJobs => Endpoint::InstantLogsList.request(scope, &[])?,
            JobOp::CreateInstantLogsJob(spec) => Endpoint::InstantLogsCreate
                .request(scope, &[])?
                .with_body(spec.to_body()),
        })
    }
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
    read_list(result, "the job list", |i, item| match item {
        Value::Object(job) => Ok(job),
        other => Err(Error::malformed(format!(
            "job {i} of the list is {}, not an object",
            json_kind(&other)
        ))),
    })
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
/// The file's content (the challenge) is at the destination, never in this answer; the
/// destination's credentials are masked in both texts ([`read_ownership_challenge`]).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct OwnershipChallenge {
    /// The file the API wrote at the destination, holding the challenge token.
    pub filename: String,
    /// The API's message.
    pub message: String,
}

/// Reads the `result` of `POST .../logpush/ownership` about `conf`: `{filename, message,
/// valid}`; `valid: false` is an [`Error::Api`] with the API's message. The filename and the
/// message are masked of `conf`'s credentials ([`DestinationConf::scrub`]), as every text
/// escpush shows: a server may write the file under a path that holds one (a Sumo Logic collector
/// code, a `user:password@`).
pub fn read_ownership_challenge(result: Value, conf: &DestinationConf) -> Result<OwnershipChallenge, Error> {
    let obj = object(result, "the ownership challenge answer")?;
    let message = conf.scrub(obj.get("message").and_then(Value::as_str).unwrap_or_default());
    if !member_bool(&obj, "valid", "the ownership challenge answer")? {
        return Err(not_valid("the destination", Some(&message)));
    }
    let filename = obj
        .get("filename")
        .and_then(Value::as_str)
        .ok_or_else(|| Error::malformed("the ownership challenge answer has no `filename`"))?;
    Ok(OwnershipChallenge {
        filename: conf.scrub(filename),
        message,
    })
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
