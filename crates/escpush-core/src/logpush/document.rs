//! A jobs document (`{"jobs": [...]}`, a jobs file's or what escpush-terraform reads of a
//! Terraform file) read as the jobs it wants: [`desired_jobs`] (each named and checked as a
//! creation is, problems named as the file names its jobs) and [`resolve_references`] (the
//! `${NAME}` references of its destinations filled from the caller's variables). What a
//! plan does with them is `plan.rs`.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use crate::error::Error;
use escpush_filter::DatasetScope;
use escpush_filter::{Problem, ProblemCode};

use super::compare::filter_value;
use super::job::JobSpec;

/// Reads the desired jobs of a file, `{"jobs": [{"name": ..., "dataset": ..., ...}]}`: each
/// named (unique names), each checked as a creation is; every problem reported with its path
/// (`jobs[1].filter.where.value`; `jobs[1].filter, line 1, column 20` in the text form). A
/// `filter` may be the JSON text, the quoted form, the text form or the object form.
///
/// A document may say where each job was read from, `"addresses": [...]`, one string per
/// job in the order of `jobs` (what escpush-terraform's `read_terraform_jobs`
/// gives: each job's resource address); its problems then name each job by it
/// (`cloudflare_logpush_job.errors.dataset`) instead of `jobs[i]`.
///
/// The `ownership_challenge` a destination needs is not asked here: it is a one-time token,
/// needed when a job is created or moved to the destination, and [`plan_jobs`](super::plan_jobs) refuses such
/// an entry without one before anything is written; a job that already exists there needs
/// none.
pub fn desired_jobs(doc: &Value, scope: DatasetScope) -> Result<Vec<Map<String, Value>>, Error> {
    let problem = |path: String, message: String| Problem::new(path, ProblemCode::InvalidValue, message);
    let Some(items) = doc.get("jobs").and_then(Value::as_array) else {
        return Err(Error::Invalid {
            problems: vec![Problem::new(
                "jobs",
                ProblemCode::MissingMember,
                "the file lists its jobs under `jobs`: {\"jobs\": [{\"name\": ..., \"dataset\": ..., ...}]}",
            )],
        });
    };
    let labels = job_labels(doc, items.len());
    // A Terraform resource is known by its address: one without a name is read (the plan
    // finds it by the id its import block gives, or refuses to create it).
    let by_address = doc
        .get("addresses")
        .and_then(Value::as_array)
        .is_some_and(|a| a.len() == items.len());
    let mut problems = Vec::new();
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    let mut ids: BTreeMap<u64, usize> = BTreeMap::new();
    let mut out = Vec::new();
    for (i, (item, at)) in items.iter().zip(&labels).enumerate() {
        let Some(obj) = item.as_object() else {
            problems.push(problem(at.clone(), "a job is an object of its fields".to_owned()));
            continue;
        };
        let id = obj.get("id").map(|v| v.as_u64().filter(|n| *n > 0));
        match id {
            Some(Some(id)) => {
                if let Some(first) = ids.insert(id, i) {
                    problems.push(problem(
                        format!("{at}.id"),
                        format!("job {id} is {} too; a job is one entry", labels[first]),
                    ));
                }
            }
            Some(None) => problems.push(problem(
                format!("{at}.id"),
                "`id` names the job this entry is (the API's id, an integer of 1 or more)".to_owned(),
            )),
            None => {}
        }
        let id = id.flatten();
        match obj.get("name").and_then(Value::as_str).map(str::trim) {
            Some(name) if !name.is_empty() => {
                if let Some(first) = seen.insert(name.to_owned(), i) {
                    problems.push(problem(
                        format!("{at}.name"),
                        format!(
                            "`{name}` is the name of {} too; jobs are kept by name, so names are unique",
                            labels[first]
                        ),
                    ));
                }
            }
            _ if id.is_some() || by_address => {}
            _ => problems.push(problem(
                format!("{at}.name"),
                "a job kept in a file needs a name, or the `id` of the job it is: it is how the job is found again"
                    .to_owned(),
            )),
        }
        let desired = match normalize(obj) {
            Ok(desired) => desired,
            Err(filter) => {
                let at = format!("{at}.filter");
                problems.extend(filter.into_problems().into_iter().map(|p| p.within(&at)));
                continue;
            }
        };
        let mut body = desired.clone();
        body.remove("id");
        if let Err(err) = JobSpec::read_body(&Value::Object(body), scope, false) {
            let found = match err {
                Error::Invalid { problems } => problems,
                Error::Filter(f) => f.into_problems(),
                other => vec![Problem::new("", ProblemCode::InvalidValue, other.to_string())],
            };
            problems.extend(found.into_iter().map(|p| p.within(at)));
        }
        out.push(desired);
    }
    if problems.is_empty() {
        Ok(out)
    } else {
        Err(Error::Invalid { problems })
    }
}

/// How the problems of a jobs document name each of its `count` jobs: by the document's
/// `addresses` when it gives one string per job, else `jobs[i]`.
pub(super) fn job_labels(doc: &Value, count: usize) -> Vec<String> {
    let given: Vec<String> = doc
        .get("addresses")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).map(str::to_owned).collect())
        .unwrap_or_default();
    if given.len() == count {
        given
    } else {
        (0..count).map(|i| format!("jobs[{i}]")).collect()
    }
}

/// A desired job with its filter as canonical JSON text (the form a creation sends). A
/// file's filter may be written in the text form too (`EdgeResponseStatus >= 500`); one that
/// reads as neither is refused with its problems (a text-form problem with its line and
/// column).
pub(super) fn normalize(obj: &Map<String, Value>) -> Result<Map<String, Value>, escpush_filter::FilterError> {
    let mut out = obj.clone();
    if let Some(filter) = obj.get("filter") {
        let text = match filter_value(Some(filter)) {
            Ok(Some(f)) => Value::String(f.to_json()),
            Ok(None) => Value::Null,
            Err(Error::Filter(e)) if filter.is_string() => return Err(e),
            Err(_) => Value::String(filter.to_string()), // from_body reports it, with its path
        };
        out.insert("filter".to_owned(), text);
    }
    Ok(out)
}

/// Replaces in each job's `destination_conf` of `doc` (`{"jobs": [...]}`) the references
/// whose variable `lookup` gives, leaving the others (see the `credentials` module). A job
/// or a value of another shape is left as it is (the checks of [`desired_jobs`] report it).
///
/// Refused: a variable set to the empty string or only spaces (how CI expands a secret it
/// does not have), which would send the destination without its credential; the problem
/// names the variable and the job (by the document's `addresses` when it has one per job,
/// else `jobs[i]`). Nothing is replaced then.
pub fn resolve_references(doc: &mut Value, lookup: impl Fn(&str) -> Option<String>) -> Result<(), Error> {
    let labels = job_labels(doc, doc.get("jobs").and_then(Value::as_array).map_or(0, Vec::len));
    let Some(jobs) = doc.get_mut("jobs").and_then(Value::as_array_mut) else {
        return Ok(());
    };
    let mut problems = Vec::new();
    for (job, label) in jobs.iter().zip(&labels) {
        if let Some(job) = job.as_object() {
            problems.extend(
                super::credentials::empty_variables(job, &lookup)
                    .into_iter()
                    .map(|p| p.within(label)),
            );
        }
    }
    if !problems.is_empty() {
        return Err(Error::Invalid { problems });
    }
    for job in jobs.iter_mut().filter_map(Value::as_object_mut) {
        super::credentials::resolve_job_references(job, &lookup)?;
    }
    Ok(())
}
