//! Jobs kept in code: the plan that brings a scope's jobs to what a file (or one
//! `ensure_job` call) says, by name. [`plan_jobs`] is a pure function of the desired jobs and
//! the stored ones; a transport executes its entries ([`PlanEntry::operation`]).
//!
//! Fields are compared by meaning (filters by the exact equivalence of `filter diff`,
//! [`Filter::equivalent`](crate::Filter::equivalent) with the job's dataset; `logpull_options`
//! as options, `output_options` key by key), only the fields a desired job names are compared
//! (the rest are the API's defaults, left alone), and secrets never appear in a change:
//! `destination_conf` is shown redacted (or as changed, when only a credential differs),
//! `ownership_challenge` as `***`.

use std::collections::BTreeMap;

use serde_json::{json, Map, Value};

use crate::dataset::DatasetScope;
use crate::error::Error;
use crate::problem::{Problem, ProblemCode};

use super::compare::{filter_value, logpull_options_equal};
use super::destination::DestinationConf;
use super::job::{JobSpec, SECRET_JOB_FIELDS};
use super::requests::JobOp;
use super::update::JobUpdate;

/// What a plan does with one job.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum PlanAction {
    /// No stored job has the name: create it.
    Create,
    /// A stored job has the name and differs: update the fields that differ.
    Update,
    /// A stored job has the name and matches: send nothing.
    Unchanged,
    /// A stored job the desired list does not name, removed because pruning was asked.
    Delete,
    /// A stored job the desired list does not name, left alone (no pruning).
    Untracked,
}

impl PlanAction {
    /// `"create"`, `"update"`, `"unchanged"`, `"delete"` or `"untracked"`.
    pub fn as_str(self) -> &'static str {
        match self {
            PlanAction::Create => "create",
            PlanAction::Update => "update",
            PlanAction::Unchanged => "unchanged",
            PlanAction::Delete => "delete",
            PlanAction::Untracked => "untracked",
        }
    }
}

/// One field that differs, both sides fit to print (secrets masked).
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct FieldChange {
    pub field: String,
    /// The stored value (`null` when the job has none).
    pub before: Value,
    /// The desired value.
    pub after: Value,
}

/// One job of a plan.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct PlanEntry {
    pub action: PlanAction,
    /// The job's name (a stored job may have none).
    pub name: Option<String>,
    /// The stored job's id (`None` for a creation).
    pub job_id: Option<u64>,
    pub dataset: String,
    /// For an update, the fields that differ.
    pub changes: Vec<FieldChange>,
    spec: Option<JobSpec>,
    update: Option<JobUpdate>,
}

impl PlanEntry {
    /// The request that carries this entry out, or `None` when there is nothing to send
    /// (`unchanged`, `untracked`).
    pub fn operation(&self) -> Option<JobOp<'_>> {
        match self.action {
            PlanAction::Create => self.spec.as_ref().map(JobOp::Create),
            PlanAction::Update => self.update.as_ref().map(JobOp::Update),
            PlanAction::Delete => self.job_id.map(JobOp::Delete),
            PlanAction::Unchanged | PlanAction::Untracked => None,
        }
    }

    /// The creation payload of a `create` entry.
    pub fn spec(&self) -> Option<&JobSpec> {
        self.spec.as_ref()
    }

    /// The entry fit to print: `{action, name, id, dataset, changes: [{field, before, after}]}`.
    pub fn to_json(&self) -> Value {
        let changes: Vec<Value> = self
            .changes
            .iter()
            .map(|c| json!({"field": c.field, "before": c.before, "after": c.after}))
            .collect();
        json!({
            "action": self.action.as_str(),
            "name": self.name,
            "id": self.job_id,
            "dataset": self.dataset,
            "changes": changes,
        })
    }
}

/// What a plan does, job by job: the desired jobs in their order, then the stored jobs
/// they do not name, by id.
#[derive(Clone, Debug, PartialEq, Default)]
#[non_exhaustive]
pub struct Plan {
    pub entries: Vec<PlanEntry>,
}

impl Plan {
    /// Whether carrying the plan out sends anything.
    pub fn is_noop(&self) -> bool {
        self.entries.iter().all(|e| e.operation().is_none())
    }

    /// The indexes of the entries in the order to carry them out: deletions first (a zone
    /// holds at most 4 jobs, so a job replaced by another must go before its successor
    /// comes), then updates, then creations; entries that send nothing last.
    pub fn steps(&self) -> Vec<usize> {
        let rank = |a: PlanAction| match a {
            PlanAction::Delete => 0,
            PlanAction::Update => 1,
            PlanAction::Create => 2,
            PlanAction::Unchanged | PlanAction::Untracked => 3,
        };
        let mut order: Vec<usize> = (0..self.entries.len()).collect();
        order.sort_by_key(|&i| rank(self.entries[i].action));
        order
    }

    /// The plan fit to print: `{"jobs": [entry, ...]}` (see [`PlanEntry::to_json`]).
    pub fn to_json(&self) -> Value {
        json!({"jobs": self.entries.iter().map(PlanEntry::to_json).collect::<Vec<_>>()})
    }
}

/// Reads the desired jobs of a file, `{"jobs": [{"name": ..., "dataset": ..., ...}]}`: each
/// named (unique names), each checked as a creation is; every problem reported with its path
/// (`jobs[1].filter.where.value`; `jobs[1].filter, line 1, column 20` in the text form). A
/// `filter` may be the JSON text, the quoted form, the text form or the object form.
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
    let mut problems = Vec::new();
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    let mut out = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let at = format!("jobs[{i}]");
        let Some(obj) = item.as_object() else {
            problems.push(problem(at, "a job is an object of its fields".to_owned()));
            continue;
        };
        match obj.get("name").and_then(Value::as_str).map(str::trim) {
            Some(name) if !name.is_empty() => {
                if let Some(first) = seen.insert(name.to_owned(), i) {
                    problems.push(problem(
                        format!("{at}.name"),
                        format!(
                            "`{name}` is the name of jobs[{first}] too; jobs are kept by name, so names are unique"
                        ),
                    ));
                }
            }
            _ => problems.push(problem(
                format!("{at}.name"),
                "a job kept in a file needs a name: it is how the job is found again".to_owned(),
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
        if let Err(err) = JobSpec::from_body(&Value::Object(desired.clone()), scope) {
            let found = match err {
                Error::Invalid { problems } => problems,
                Error::Filter(f) => f.into_problems(),
                other => vec![Problem::new("", ProblemCode::InvalidValue, other.to_string())],
            };
            problems.extend(found.into_iter().map(|p| p.within(&at)));
        }
        out.push(desired);
    }
    if problems.is_empty() {
        Ok(out)
    } else {
        Err(Error::Invalid { problems })
    }
}

/// A desired job with its filter as canonical JSON text (the form a creation sends). A
/// file's filter may be written in the text form too (`EdgeResponseStatus >= 500`); one that
/// reads as neither is refused with its problems (a text-form problem with its line and
/// column).
fn normalize(obj: &Map<String, Value>) -> Result<Map<String, Value>, crate::FilterError> {
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

/// The plan bringing `stored` (the scope's jobs, as the API lists them) to `desired` (from
/// [`desired_jobs`]), jobs matched by name. Stored jobs no desired job names are `delete`
/// when `prune`, else `untracked`.
///
/// Refused: a desired name that two stored jobs share (which one is meant?), and a desired
/// job whose stored namesake pushes another dataset (a dataset cannot change).
pub fn plan_jobs(
    desired: &[Map<String, Value>],
    stored: &[Map<String, Value>],
    scope: DatasetScope,
    prune: bool,
) -> Result<Plan, Error> {
    let name_of = |j: &Map<String, Value>| j.get("name").and_then(Value::as_str).map(|n| n.trim().to_owned());
    let mut entries = Vec::new();
    let mut claimed = Vec::new();
    for want in desired {
        let entry = plan_job(want, stored, scope)?;
        if let Some(id) = entry.job_id {
            claimed.push(id);
        }
        entries.push(entry);
    }
    let mut rest: Vec<&Map<String, Value>> = stored
        .iter()
        .filter(|j| {
            !j.get("id")
                .and_then(Value::as_u64)
                .is_some_and(|id| claimed.contains(&id))
        })
        .collect();
    rest.sort_by_key(|j| j.get("id").and_then(Value::as_u64));
    for job in rest {
        entries.push(PlanEntry {
            action: if prune {
                PlanAction::Delete
            } else {
                PlanAction::Untracked
            },
            name: name_of(job),
            job_id: job.get("id").and_then(Value::as_u64),
            dataset: job
                .get("dataset")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned(),
            changes: Vec::new(),
            spec: None,
            update: None,
        });
    }
    Ok(Plan { entries })
}

/// The entry for one desired job (already checked by [`desired_jobs`] or built the same
/// way): `create`, `update` or `unchanged`.
pub fn plan_job(
    want: &Map<String, Value>,
    stored: &[Map<String, Value>],
    scope: DatasetScope,
) -> Result<PlanEntry, Error> {
    let want = normalize(want)?;
    let name = want.get("name").and_then(Value::as_str).map(|n| n.trim().to_owned());
    let dataset = want
        .get("dataset")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    let namesakes: Vec<&Map<String, Value>> = stored
        .iter()
        .filter(|j| name.is_some() && j.get("name").and_then(Value::as_str).map(str::trim) == name.as_deref())
        .collect();
    let Some(&job) = namesakes.first() else {
        let spec = JobSpec::from_body(&Value::Object(want.clone()), scope)?;
        return Ok(PlanEntry {
            action: PlanAction::Create,
            name,
            job_id: None,
            dataset,
            changes: Vec::new(),
            spec: Some(spec),
            update: None,
        });
    };
    let label = name.as_deref().unwrap_or_default();
    if namesakes.len() > 1 {
        let ids: Vec<String> = namesakes
            .iter()
            .map(|j| j.get("id").map_or_else(|| "?".to_owned(), ToString::to_string))
            .collect();
        return Err(Error::InvalidInput {
            what: "name",
            message: format!(
                "{} jobs are named `{label}` (ids {}); delete or rename all but one so the name finds one job",
                namesakes.len(),
                ids.join(", ")
            ),
        });
    }
    let stored_dataset = job.get("dataset").and_then(Value::as_str).unwrap_or_default();
    if stored_dataset != dataset {
        return Err(Error::InvalidInput {
            what: "dataset",
            message: format!(
                "job `{label}` pushes `{stored_dataset}`, the desired job `{dataset}`; a dataset cannot change: \
                 delete the job or give the new one another name"
            ),
        });
    }
    let ds = crate::dataset::Dataset::get(stored_dataset, Some(scope))?;
    let mut changes = Map::new();
    let mut shown = Vec::new();
    for (key, value) in &want {
        if matches!(key.as_str(), "name" | "dataset") || SECRET_JOB_FIELDS.contains(&key.as_str()) {
            // A secret the API does not give back cannot be compared; it is sent on creation.
            continue;
        }
        let before = job.get(key).unwrap_or(&Value::Null);
        if same(key, before, value, ds) {
            continue;
        }
        shown.push(FieldChange {
            field: key.clone(),
            before: printable(key, before, value),
            after: printable_after(key, before, value),
        });
        changes.insert(key.clone(), value.clone());
    }
    let job_id = job.get("id").and_then(Value::as_u64);
    if changes.is_empty() {
        return Ok(PlanEntry {
            action: PlanAction::Unchanged,
            name,
            job_id,
            dataset,
            changes: Vec::new(),
            spec: None,
            update: None,
        });
    }
    let update = JobUpdate::new(job, &changes, scope)?;
    Ok(PlanEntry {
        action: PlanAction::Update,
        name,
        job_id,
        dataset,
        changes: shown,
        spec: None,
        update: Some(update),
    })
}

/// Whether the stored value of `key` means what the desired one says.
fn same(key: &str, before: &Value, after: &Value, dataset: &crate::dataset::Dataset) -> bool {
    let blank = |v: &Value| v.is_null() || v.as_str().is_some_and(|s| s.trim().is_empty());
    match key {
        "filter" => match (filter_value(Some(before)), filter_value(Some(after))) {
            // The one decision `filter diff` makes too: exact, on the records the dataset allows.
            (Ok(Some(a)), Ok(Some(b))) => a.equivalent(&b, Some(dataset)),
            (Ok(None), Ok(None)) => true,
            _ => false,
        },
        "logpull_options" => match (before.as_str(), after.as_str()) {
            (Some(a), Some(b)) => logpull_options_equal(a, b),
            _ => blank(before) && blank(after),
        },
        "destination_conf" => before.as_str().map(str::trim) == after.as_str().map(str::trim),
        "output_options" => match (before, after) {
            (Value::Object(old), Value::Object(new)) => new.iter().all(|(k, v)| old.get(k) == Some(v)),
            _ => before == after,
        },
        "kind" => before.as_str().unwrap_or_default() == after.as_str().unwrap_or_default(),
        _ => before == after,
    }
}

/// A value of a change fit to print: destinations redacted, filters canonical.
fn printable(key: &str, value: &Value, _other: &Value) -> Value {
    match (key, value) {
        ("destination_conf", Value::String(s)) => Value::String(DestinationConf::redact(s)),
        ("destination_conf", Value::Null) => Value::Null,
        ("destination_conf", _) => Value::String("***".to_owned()),
        ("filter", v) => match filter_value(Some(v)) {
            Ok(Some(f)) => Value::String(f.to_json()),
            Ok(None) => Value::Null,
            Err(_) => v.clone(),
        },
        (k, v) if SECRET_JOB_FIELDS.contains(&k) && !v.is_null() => Value::String("***".to_owned()),
        (_, v) => v.clone(),
    }
}

/// The desired side: when only a credential of the destination differs, both redacted
/// texts are equal, so the desired side says so instead.
fn printable_after(key: &str, before: &Value, after: &Value) -> Value {
    let shown = printable(key, after, before);
    if key == "destination_conf" && shown == printable(key, before, after) {
        return Value::String(format!("{} (a credential changed)", shown.as_str().unwrap_or("***")));
    }
    shown
}
