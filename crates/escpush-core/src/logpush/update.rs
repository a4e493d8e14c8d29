//! The update of a stored job ([`JobUpdate`]), as the API does it: a `PUT` changes only
//! the fields it sends (the docs' `PUT {"enabled": true}`, example-logpush-curl.mdx; the
//! SDK's `jobs.update(id, zone_id=..., enabled=True)` sends that alone), so the body holds
//! the caller's changes and nothing else. `dataset` and `kind` cannot change (and are never
//! sent: api-configuration.mdx, "The kind parameter cannot be used to update existing
//! Logpush jobs"). The changes are checked as a creation would check them, on the stored
//! job with the changes applied ([`check_update`], which the emulator calls too).

use std::fmt;

use serde_json::{Map, Value};

use crate::error::Error;
use escpush_filter::Dataset;
use escpush_filter::DatasetScope;
use escpush_filter::{Problem, ProblemCode};

use super::compare::filter_value;
use super::destination::{same_conf, DestinationConf};
use super::fields::{JobField, JOB_FIELDS};
use super::job::{challenge_problem, JobSpec};

/// A checked `PUT {scope}/logpush/jobs/{id}` body: the fields the caller changes, and
/// nothing else (the API keeps every field a `PUT` does not send). Made by
/// [`JobUpdate::new`]; its `Debug` hides the destination's credentials.
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

impl JobUpdate {
    /// The update of `stored` (the job as the API gave it, read in `scope`) by `changes`
    /// (field → new value; `null` clears a field). `filter` may be its JSON text, the quoted
    /// form or the object form, and is sent as canonical JSON; `output_options` given as an
    /// object is merged onto the stored one and sent whole (the API replaces it whole, so the
    /// stored keys the caller did not name are sent unchanged).
    ///
    /// The body holds only what changes: a field whose value (so read) equals the stored one
    /// is not sent, so `changes` may be the whole stored record with a field changed; a field
    /// the API sets or an update cannot change (`id`, `dataset`, `kind`, `last_complete`, ...)
    /// is never sent. Refused before anything is sent: a change of one of those, a new
    /// destination without the `ownership_challenge` its kind needs, and every problem a
    /// creation would have in the changed fields (problems of stored fields the caller did
    /// not touch are not the caller's to fix, and do not block, say, disabling a job).
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
        check_unchangeable(stored, changes)?;
        let mut body = Map::new();
        let mut option_keys = Vec::new();
        for (key, value) in changes {
            if JobField::get(key).is_some_and(|f| !f.update) {
                continue; // the same as stored (a change was refused above): never sent
            }
            let value = match (key.as_str(), value, stored.get(key)) {
                ("output_options", Value::Object(given), Some(Value::Object(old))) => {
                    option_keys.extend(given.keys().cloned());
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
                ("output_options", Value::Object(given), _) => {
                    option_keys.extend(given.keys().cloned());
                    value.clone()
                }
                // The text checked is the text sent: trimmed, as `DestinationConf` reads it
                // (one that does not read is reported by the check below).
                ("destination_conf", Value::String(text), _) => DestinationConf::parse(text)
                    .map_or_else(|_| value.clone(), |d| Value::String(d.expose().to_owned())),
                _ => value.clone(),
            };
            if is_stored(key, &value, stored.get(key)) {
                continue;
            }
            body.insert(key.clone(), value);
        }
        check_body(stored, &body, dataset, Some(&option_keys))?;
        Ok(JobUpdate {
            job_id,
            dataset,
            changed: body.keys().cloned().collect(),
            body,
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

    /// The fields the body sends: those whose value differs from the stored one.
    pub fn changed(&self) -> &[String] {
        &self.changed
    }

    /// The body of the `PUT`: the changed fields only. Holds credentials of the destination.
    pub fn to_body(&self) -> Value {
        Value::Object(self.body.clone())
    }
}

/// Whether `value` (as the body would send it) is what the job stores under `key`, so that
/// sending it would change nothing: the same JSON, the same destination, or the same
/// filter once both are canonical (a server may store it reprinted). A key the record lacks
/// stores nothing, as `null` does.
fn is_stored(key: &str, value: &Value, stored: Option<&Value>) -> bool {
    let stored = stored.unwrap_or(&Value::Null);
    match key {
        "destination_conf" => same_conf(Some(stored), Some(value)),
        "filter" => match (filter_value(Some(stored)), filter_value(Some(value))) {
            (Ok(a), Ok(b)) => a.map(|f| f.to_json()) == b.map(|f| f.to_json()),
            _ => stored == value,
        },
        _ => stored == value,
    }
}

/// Refuses a change of what cannot change: `id`, and the fields a creation sets that an
/// update may not (`dataset`, `kind`: the table's `update: false`). The same value is no
/// change (`kind` null or empty alike).
fn check_unchangeable(stored: &Map<String, Value>, body: &Map<String, Value>) -> Result<(), Error> {
    let job_id = stored.get("id").map_or_else(|| "?".to_owned(), ToString::to_string);
    for (key, value) in body {
        let Some(field) = JobField::get(key) else { continue };
        if field.update {
            continue;
        }
        let as_text = |v: Option<&Value>| match v {
            None | Some(Value::Null) => Some(String::new()),
            Some(Value::String(s)) => Some(s.clone()),
            Some(other) => Some(other.to_string()),
        };
        if as_text(Some(value)) == as_text(stored.get(key)) {
            continue;
        }
        let was = stored.get(key).cloned().unwrap_or(Value::Null);
        return Err(Error::InvalidInput {
            what: field.name,
            message: if field.create {
                format!(
                    "a job's {key} cannot change: job {job_id} has {key} {was}; create a new job instead ({})",
                    field.source
                )
            } else {
                format!("a job's {key} cannot change (job {job_id}): the API sets it")
            },
        });
    }
    Ok(())
}

/// Checks a `PUT` body against the stored job, as the API would judge it: nothing that
/// cannot change changes (`id`, `dataset`, `kind`), the fields sent have no problem a
/// creation would find in them (judged on the stored job with the body applied, so that a
/// rule of two fields, like `kind: edge` only on http_requests, reads the stored side too),
/// and a new destination comes with the `ownership_challenge` its kind needs. The client
/// checks its body with it before sending ([`JobUpdate::new`]); the emulator checks what it
/// receives with it, so both refuse the same updates.
///
/// The body is read as the API reads it: `filter` is a string (its JSON text; schema, SDK
/// 5.9 `filter: Optional[str]`), as on creation ([`JobSpec::from_body`]).
pub fn check_update(stored: &Map<String, Value>, body: &Map<String, Value>, scope: DatasetScope) -> Result<(), Error> {
    let name = stored
        .get("dataset")
        .and_then(Value::as_str)
        .ok_or_else(|| Error::malformed("the stored job has no `dataset`"))?;
    check_unchangeable(stored, body)?;
    if body.get("filter").is_some_and(|f| !f.is_null() && !f.is_string()) {
        return Err(Error::Invalid {
            problems: vec![Problem::new(
                "filter",
                ProblemCode::InvalidType,
                "`filter` takes a string (the filter's JSON text)",
            )],
        });
    }
    check_body(stored, body, Dataset::get(name, Some(scope))?, None)
}

/// The record after a `PUT` of `body` (judged by [`check_update`]), as the emulator keeps
/// it: each field the body sends that an update may change and the record holds, set as
/// a creation stores it (the destination as [`DestinationConf`] reads it, trimmed; a filter
/// as its canonical JSON text, [`JobSpec::to_body`]'s); the rest as it was (a `PUT` changes
/// only what it sends: example-logpush-curl.mdx). The challenge is never kept. A plan reads
/// the job after an update from it ([`PlanEntry::job_after`](super::PlanEntry::job_after)).
pub fn updated_record(record: &Map<String, Value>, body: &Map<String, Value>) -> Map<String, Value> {
    use super::fields::{InRecord, JobFieldType};
    use escpush_filter::Filter;

    let mut out = record.clone();
    for (key, value) in body {
        let Some(field) = JobField::get(key).filter(|f| f.update && f.record != InRecord::Never) else {
            continue;
        };
        let value = match (field.ty, value) {
            (JobFieldType::Destination, Value::String(text)) => {
                DestinationConf::parse(text).map_or_else(|_| value.clone(), |d| Value::String(d.expose().to_owned()))
            }
            (JobFieldType::Filter, Value::String(text)) if !text.trim().is_empty() => {
                Filter::parse(text).map_or_else(|_| value.clone(), |f| Value::String(f.to_json()))
            }
            _ => value.clone(),
        };
        out.insert(key.clone(), value);
    }
    out
}

/// [`check_update`] after the unchangeable fields; `option_keys`: the `output_options` keys
/// the caller named (the others were merged from the stored job, and their problems are
/// not the caller's), or every key when `None`.
fn check_body(
    stored: &Map<String, Value>,
    body: &Map<String, Value>,
    dataset: &'static Dataset,
    option_keys: Option<&[String]>,
) -> Result<(), Error> {
    let mut whole = Map::new();
    for field in JOB_FIELDS.iter().filter(|f| f.create) {
        if let Some(value) = stored.get(field.name).filter(|v| !v.is_null()) {
            whole.insert(field.name.to_owned(), value.clone());
        }
    }
    for (key, value) in body {
        if JobField::get(key).is_none_or(|f| f.update) {
            whole.insert(key.clone(), value.clone());
        }
    }
    whole.insert("dataset".to_owned(), dataset.name().into());
    if let Some(Value::Object(_)) = whole.get("filter") {
        // from_body takes the API's string form; the object form was normalized by the
        // client unless it is malformed, and then its problems are the filter's.
        let text = whole["filter"].to_string();
        whole.insert("filter".to_owned(), Value::String(text));
    }
    let (problems, only_filter) = match JobSpec::from_body(&Value::Object(whole), dataset.scope()) {
        Ok(_) => (Vec::new(), false),
        Err(Error::Invalid { problems }) => (problems, false),
        Err(Error::Filter(f)) => (f.into_problems(), true),
        Err(other) => return Err(other),
    };
    let root = |path: &str| -> String {
        let end = path.find(['.', '[']).unwrap_or(path.len());
        path[..end].to_owned()
    };
    let mut mine: Vec<Problem> = problems
        .into_iter()
        .filter(|p| body.contains_key(&root(&p.path)))
        .filter(|p| match (option_keys, p.path.strip_prefix("output_options.")) {
            (Some(keys), Some(rest)) => keys.iter().any(|k| root(rest) == *k),
            _ => true,
        })
        .collect();
    // A new destination needs its challenge in the same body (a record never holds one).
    if let Some(Value::String(conf)) = body.get("destination_conf") {
        if !same_conf(stored.get("destination_conf"), body.get("destination_conf")) {
            if let Some(problem) = DestinationConf::parse(conf)
                .ok()
                .and_then(|d| challenge_problem(&d, body.get("ownership_challenge")))
            {
                if !mine.iter().any(|p| p.path == problem.path) {
                    mine.push(problem);
                }
            }
        }
    }
    if mine.is_empty() {
        Ok(())
    } else if only_filter
        || mine
            .iter()
            .all(|p| root(&p.path) == "filter" && p.code != ProblemCode::InvalidJson)
    {
        Err(Error::Filter(escpush_filter::FilterError::new(mine)))
    } else {
        Err(Error::Invalid { problems: mine })
    }
}
