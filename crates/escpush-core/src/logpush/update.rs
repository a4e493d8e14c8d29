//! The safe update of a stored job ([`JobUpdate`]): the stored record, the fields the caller
//! names applied on top, `output_options` merged key by key, and the whole checked as a
//! creation would be, against the job's dataset. Nothing the caller did not mention is
//! reset, because a `PUT` replaces what it is given.

use std::fmt;

use serde_json::{Map, Value};

use crate::dataset::{Dataset, DatasetScope};
use crate::error::Error;
use crate::problem::{Problem, ProblemCode};

use super::compare::filter_value;
use super::fields::JOB_FIELDS;
use super::job::JobSpec;

/// A checked `PUT {scope}/logpush/jobs/{id}` body: the stored job with the caller's
/// changes. Made by [`JobUpdate::new`]; its `Debug` hides the destination's credentials.
#[derive(Clone, PartialEq)]
pub struct JobUpdate {
    job_id: u64,
    dataset: &'static Dataset,
    body: Map<String, Value>,
    changed: Vec<String>,
}

impl fmt::Debug for JobUpdate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("JobUpdate")
            .field("job_id", &self.job_id)
            .field("dataset", &self.dataset.name())
            .field("changed", &self.changed)
            .finish_non_exhaustive()
    }
}

fn invalid(what: &'static str, message: String) -> Error {
    Error::InvalidInput { what, message }
}

impl JobUpdate {
    /// The update of `stored` (the job as the API gave it, read in `scope`) by `changes`
    /// (field → new value; `null` clears a field). `filter` may be its JSON text, the quoted
    /// form or the object form, and is sent as canonical JSON; `output_options` given as an
    /// object is merged onto the stored one (the `PUT` replaces it whole, so the stored keys
    /// the caller did not name are sent unchanged).
    ///
    /// Refused before anything is sent: a change of `dataset` or `kind` (neither can
    /// change), of `id`, and every problem a creation would have in the changed fields
    /// (problems of stored fields the caller did not touch are not the caller's to fix, and
    /// do not block, say, disabling a job).
    pub fn new(stored: &Map<String, Value>, changes: &Map<String, Value>, scope: DatasetScope) -> Result<Self, Error> {
        let job_id = stored
            .get("id")
            .and_then(Value::as_u64)
            .ok_or_else(|| Error::malformed("the stored job has no integer `id`"))?;
        let dataset_name = stored
            .get("dataset")
            .and_then(Value::as_str)
            .ok_or_else(|| Error::malformed(format!("job {job_id} has no `dataset`")))?;
        let dataset = Dataset::get(dataset_name, Some(scope))?;
        let mut body = Map::new();
        for field in JOB_FIELDS.iter().filter(|f| f.update) {
            if let Some(value) = stored.get(field.name).filter(|v| !v.is_null()) {
                body.insert(field.name.to_owned(), value.clone());
            }
        }
        let mut named = Vec::new();
        for (key, value) in changes {
            match key.as_str() {
                "id" => return Err(invalid("id", format!("a job's id cannot change (job {job_id})"))),
                "dataset" => {
                    if value.as_str() != Some(dataset_name) {
                        return Err(invalid(
                            "dataset",
                            format!(
                                "a job's dataset cannot change: job {job_id} pushes `{dataset_name}`; create a new \
                                 job for {value}"
                            ),
                        ));
                    }
                    continue;
                }
                "kind" => {
                    let kind = |v: Option<&Value>| v.and_then(Value::as_str).unwrap_or_default().to_owned();
                    if kind(Some(value)) != kind(stored.get("kind")) {
                        return Err(invalid(
                            "kind",
                            format!(
                                "a job's kind cannot change: job {job_id} is of kind {:?}; create a new job instead",
                                kind(stored.get("kind"))
                            ),
                        ));
                    }
                }
                _ => {}
            }
            let value = match (key.as_str(), value, body.get(key)) {
                ("output_options", Value::Object(given), Some(Value::Object(old))) => {
                    let mut merged = old.clone();
                    merged.extend(given.clone());
                    Value::Object(merged)
                }
                ("filter", v, _) if !v.is_null() => match filter_value(Some(v)) {
                    Ok(Some(f)) => Value::String(f.to_json()),
                    Ok(None) => Value::Null,
                    // Text that reads as neither JSON nor the text form: its own problems
                    // (a text-form one with its line and column).
                    Err(Error::Filter(e)) if v.is_string() => {
                        let problems = e.into_problems().into_iter().map(|p| p.within("filter")).collect();
                        return Err(Error::Invalid { problems });
                    }
                    // Reported by the check below, with every other problem.
                    Err(_) => v.clone(),
                },
                _ => value.clone(),
            };
            body.insert(key.clone(), value);
            named.push(key.clone());
        }
        check_changed(&body, &named, dataset)?;
        Ok(JobUpdate {
            job_id,
            dataset,
            body,
            changed: named,
        })
    }

    /// The job's id.
    pub fn job_id(&self) -> u64 {
        self.job_id
    }

    /// The job's dataset (which the update cannot change).
    pub fn dataset(&self) -> &'static Dataset {
        self.dataset
    }

    /// The fields the caller changed, in the order given.
    pub fn changed(&self) -> &[String] {
        &self.changed
    }

    /// The body of the `PUT`: every updatable field of the stored job, with the changes.
    /// Holds credentials of the destination.
    pub fn to_body(&self) -> Value {
        Value::Object(self.body.clone())
    }
}

/// Every problem a creation would have, in the fields that changed.
fn check_changed(body: &Map<String, Value>, changed: &[String], dataset: &'static Dataset) -> Result<(), Error> {
    let mut whole = body.clone();
    whole.insert("dataset".to_owned(), dataset.name().into());
    if let Some(Value::Object(_)) = whole.get("filter") {
        // from_body takes the API's string form; the object form was normalized above
        // unless it is malformed, and then its problems are the filter's.
        let text = whole["filter"].to_string();
        whole.insert("filter".to_owned(), Value::String(text));
    }
    let Err(err) = JobSpec::from_body(&Value::Object(whole), dataset.scope()) else {
        return Ok(());
    };
    let (problems, only_filter) = match err {
        Error::Invalid { problems } => (problems, false),
        Error::Filter(f) => (f.into_problems(), true),
        other => return Err(other),
    };
    let root = |p: &Problem| -> String {
        let end = p.path.find(['.', '[']).unwrap_or(p.path.len());
        p.path[..end].to_owned()
    };
    let mine: Vec<Problem> = problems
        .into_iter()
        .filter(|p| changed.iter().any(|c| *c == root(p)))
        .collect();
    if mine.is_empty() {
        Ok(())
    } else if only_filter
        || mine
            .iter()
            .all(|p| root(p) == "filter" && p.code != ProblemCode::InvalidJson)
    {
        Err(Error::Filter(crate::filter::FilterError::new(mine)))
    } else {
        Err(Error::Invalid { problems: mine })
    }
}
