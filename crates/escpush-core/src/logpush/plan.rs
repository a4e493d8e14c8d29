//! Jobs kept in code: the plan that brings a scope's jobs to what a file (or one
//! `ensure_job` call) says, by name. [`plan_jobs`] is a pure function of the desired jobs and
//! the stored ones; a transport executes its entries ([`PlanEntry::operation`]).
//!
//! Fields are compared by meaning (filters by the exact equivalence of `filter diff`,
//! [`Filter::equivalent`](escpush_filter::Filter::equivalent) with the job's dataset; `logpull_options`
//! as options, `output_options` key by key), only the fields a desired job names are compared
//! (the rest are the API's defaults, left alone), and secrets never appear in a change:
//! `destination_conf` is shown redacted (or as changed, when only a credential differs),
//! `ownership_challenge` as `***`.
//!
//! A plan is refused before anything is written when carrying it out would break one of
//! the API's documented job limits ([`JOB_LIMITS`](super::JOB_LIMITS)), and its writes go in
//! an order where a failure loses no job: updates and creations first, deletions last (a
//! renamed job is created under its new name before the old one is deleted), unless the
//! caller asks to delete first ([`PlanOptions::delete_first`]).

use serde_json::{json, Map, Value};

use crate::error::Error;
use crate::scope::Scope;
use escpush_filter::DatasetScope;
use escpush_filter::{Problem, ProblemCode};

use super::compare::{filter_value, logpull_options_equal};
use super::credentials::{fill_from_stored, matches_template, unescape, unresolved, unresolved_error};
use super::destination::same_conf;
use super::document::{desired_jobs, job_labels, normalize};
use super::fields::{redact_job, shown_value, JobField};
use super::job::JobSpec;
use super::limits::{JobLimit, JOB_LIMITS, MAX_JOBS_MESSAGE};
use super::requests::JobOp;
use super::update::{updated_record, JobUpdate};

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
#[derive(Clone, PartialEq)]
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
    /// The stored job (`None` for a creation).
    stored: Option<Map<String, Value>>,
}

/// The stored job with its secrets masked, as `JobSpec` and `JobUpdate` show theirs.
impl std::fmt::Debug for PlanEntry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let stored = self.stored.clone().map(|mut job| {
            redact_job(&mut job);
            job
        });
        f.debug_struct("PlanEntry")
            .field("action", &self.action)
            .field("name", &self.name)
            .field("job_id", &self.job_id)
            .field("dataset", &self.dataset)
            .field("changes", &self.changes)
            .field("spec", &self.spec)
            .field("update", &self.update)
            .field("stored", &stored)
            .finish()
    }
}

impl PlanEntry {
    /// The entry of a stored job, with no changes yet.
    fn of_stored(
        action: PlanAction,
        name: Option<String>,
        job_id: Option<u64>,
        dataset: String,
        job: &Map<String, Value>,
    ) -> PlanEntry {
        PlanEntry {
            action,
            name,
            job_id,
            dataset,
            changes: Vec::new(),
            spec: None,
            update: None,
            stored: Some(job.clone()),
        }
    }

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

    /// The job as the API holds it before the entry is carried out: the stored record
    /// (`None` for a creation). It holds the destination's credentials: to print, use
    /// [`PlanEntry::to_json`]. What the job delivers is read from it ([`OutputFormat`](super::OutputFormat)).
    pub fn job_before(&self) -> Option<&Map<String, Value>> {
        self.stored.as_ref()
    }

    /// The job as the API will hold it after: a creation's body, the record after an
    /// update's `PUT` ([`updated_record`]: only the fields it sends change), the stored job
    /// for `unchanged` and `untracked`; `None` for a deletion. Credentials as in
    /// [`PlanEntry::job_before`].
    pub fn job_after(&self) -> Option<Map<String, Value>> {
        match self.action {
            PlanAction::Create => self.spec.as_ref().and_then(|spec| spec.to_body().as_object().cloned()),
            PlanAction::Update => match (&self.stored, &self.update) {
                (Some(stored), Some(update)) => update.to_body().as_object().map(|body| updated_record(stored, body)),
                _ => None,
            },
            PlanAction::Unchanged | PlanAction::Untracked => self.stored.clone(),
            PlanAction::Delete => None,
        }
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

/// How [`plan_jobs`] plans: whether the stored jobs the desired list does not name are
/// deleted, and whether deletions go before creations.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct PlanOptions {
    /// Delete the stored jobs the desired list does not name (else they are `untracked`).
    pub prune: bool,
    /// Delete before creating, for a scope at its job limit where a job is replaced by
    /// another: then a failed creation leaves the job it replaces deleted. By default the
    /// deletions come last, and a plan that needs room first is refused.
    pub delete_first: bool,
}

impl PlanOptions {
    /// No pruning, deletions last.
    pub fn new() -> Self {
        PlanOptions::default()
    }

    /// Sets [`PlanOptions::prune`].
    #[must_use]
    pub fn prune(mut self, on: bool) -> Self {
        self.prune = on;
        self
    }

    /// Sets [`PlanOptions::delete_first`].
    #[must_use]
    pub fn delete_first(mut self, on: bool) -> Self {
        self.delete_first = on;
        self
    }
}

/// What a plan does, job by job: the desired jobs in their order, then the stored jobs
/// they do not name, by id.
#[derive(Clone, Debug, PartialEq, Default)]
#[non_exhaustive]
pub struct Plan {
    pub entries: Vec<PlanEntry>,
    delete_first: bool,
}

impl Plan {
    /// Whether carrying the plan out sends anything.
    pub fn is_noop(&self) -> bool {
        self.entries.iter().all(|e| e.operation().is_none())
    }

    /// The indexes of the entries in the order to carry them out, so that a failure part-way
    /// loses no job: updates, then creations, then deletions (a job replaced by another is
    /// deleted only once its successor exists); with [`PlanOptions::delete_first`], the
    /// deletions first. Entries that send nothing come last.
    pub fn steps(&self) -> Vec<usize> {
        let rank = |a: PlanAction| match a {
            PlanAction::Delete if self.delete_first => 0,
            PlanAction::Update => 1,
            PlanAction::Create => 2,
            PlanAction::Delete => 3,
            PlanAction::Unchanged | PlanAction::Untracked => 4,
        };
        let mut order: Vec<usize> = (0..self.entries.len()).collect();
        order.sort_by_key(|&i| rank(self.entries[i].action));
        order
    }

    /// What carrying the plan out had done when the write of entry `failed` failed, for its
    /// error: `done[i]` says whether entry `i` was written, `ids[i]` the id its write gave
    /// (a created job's). "stopped at creating `b`; nothing was written before it; not sent:
    /// ...", or "stopped at creating `b`; before it, apply updated `a` (job 3) and created `x`
    /// (job 9); not sent: delete `c` (job 4)".
    pub fn progress(&self, done: &[bool], ids: &[Option<u64>], failed: usize) -> String {
        let label = |i: usize, verb: &str| {
            let e = &self.entries[i];
            let name = e
                .name
                .as_deref()
                .map_or_else(|| "(no name)".to_owned(), |n| format!("`{n}`"));
            match ids.get(i).copied().flatten().or(e.job_id) {
                Some(id) => format!("{verb} {name} (job {id})"),
                None => format!("{verb} {name}"),
            }
        };
        let verb = |i: usize, form: usize| {
            let forms = match self.entries[i].action {
                PlanAction::Create => ["create", "created", "creating"],
                PlanAction::Update => ["update", "updated", "updating"],
                PlanAction::Delete => ["delete", "deleted", "deleting"],
                PlanAction::Unchanged | PlanAction::Untracked => ["leave", "left", "leaving"],
            };
            forms[form]
        };
        let mut written = Vec::new();
        let mut unsent = Vec::new();
        for i in self.steps() {
            if self.entries[i].operation().is_none() || i == failed {
                continue;
            }
            if done.get(i).copied().unwrap_or(false) {
                written.push(label(i, verb(i, 1)));
            } else {
                unsent.push(label(i, verb(i, 0)));
            }
        }
        let mut out = match self.entries.get(failed) {
            Some(_) => format!("stopped at {}; ", label(failed, verb(failed, 2))),
            None => String::new(),
        };
        if written.is_empty() {
            out.push_str("nothing was written before it");
        } else {
            out.push_str("before it, apply ");
            out.push_str(&and_list(&written));
        }
        if !unsent.is_empty() {
            out.push_str("; not sent: ");
            out.push_str(&unsent.join(", "));
        }
        out
    }

    /// The plan fit to print: `{"jobs": [entry, ...]}` (see [`PlanEntry::to_json`]).
    pub fn to_json(&self) -> Value {
        json!({"jobs": self.entries.iter().map(PlanEntry::to_json).collect::<Vec<_>>()})
    }
}

/// `a`, `a and b`, `a, b and c`.
fn and_list(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

/// The plan bringing `stored` (the scope's jobs, as the API lists them) to `desired` (from
/// [`desired_jobs`]), jobs matched by name. Stored jobs no desired job names are `delete`
/// when [`PlanOptions::prune`], else `untracked`.
///
/// Refused: a desired name that two stored jobs share (which one is meant?), a desired job
/// whose stored namesake pushes another dataset (a dataset cannot change), and a plan that
/// would make the scope hold more jobs than the API allows ([`JOB_LIMITS`](super::JOB_LIMITS))
/// at any point of its writes, in the order of [`Plan::steps`].
pub fn plan_jobs(
    desired: &[Map<String, Value>],
    stored: &[Map<String, Value>],
    scope: &Scope,
    options: PlanOptions,
) -> Result<Plan, Error> {
    let labels = job_labels(&Value::Null, desired.len());
    plan_labelled(desired, &labels, stored, scope, options)
}

/// [`plan_jobs`] for the jobs of a document (`{"jobs": [...]}`, read by [`desired_jobs`]),
/// its problems naming each job as the document's own do: by its `addresses` when it has
/// them (a Terraform file's resources), else `jobs[i]`.
pub fn plan_document(
    doc: &Value,
    stored: &[Map<String, Value>],
    scope: &Scope,
    options: PlanOptions,
) -> Result<Plan, Error> {
    let desired = desired_jobs(doc, scope.kind())?;
    plan_labelled(&desired, &job_labels(doc, desired.len()), stored, scope, options)
}

fn plan_labelled(
    desired: &[Map<String, Value>],
    labels: &[String],
    stored: &[Map<String, Value>],
    scope: &Scope,
    options: PlanOptions,
) -> Result<Plan, Error> {
    let name_of = |j: &Map<String, Value>| j.get("name").and_then(Value::as_str).map(|n| n.trim().to_owned());
    let mut entries = Vec::new();
    // The stored jobs the entries are, each with the entry that took it: two entries that
    // take one job (one by its import, the other by its name) are refused, since applying both
    // would send the job two conflicting updates, and every later run would flip it back.
    let mut claimed: Vec<(u64, &String)> = Vec::new();
    for (want, label) in desired.iter().zip(labels) {
        let entry = plan_entry(want, stored, scope).map_err(|err| match err {
            Error::Invalid { problems } => Error::Invalid {
                problems: problems.into_iter().map(|p| p.within(label)).collect(),
            },
            other => other,
        })?;
        if let Some(id) = entry.job_id {
            if let Some((_, first)) = claimed.iter().find(|(taken, _)| *taken == id) {
                return Err(Error::Invalid {
                    problems: vec![Problem::new(
                        "",
                        ProblemCode::InvalidValue,
                        format!(
                            "job {id} is both {first} and {label} (by an import block's id or a jobs file's `id`, \
                             and by its name): each job may be one entry only; rename one entry, or remove its id"
                        ),
                    )
                    .within(label)],
                });
            }
            claimed.push((id, label));
        }
        entries.push(entry);
    }
    let mut rest: Vec<&Map<String, Value>> = stored
        .iter()
        .filter(|j| {
            !j.get("id")
                .and_then(Value::as_u64)
                .is_some_and(|id| claimed.iter().any(|(taken, _)| *taken == id))
        })
        .collect();
    rest.sort_by_key(|j| j.get("id").and_then(Value::as_u64));
    for job in rest {
        entries.push(PlanEntry {
            action: if options.prune {
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
            stored: Some(job.clone()),
        });
    }
    check_limits(&entries, options.delete_first, stored, scope)?;
    Ok(Plan {
        entries,
        delete_first: options.delete_first,
    })
}

/// The entry for one desired job (already checked by [`desired_jobs`] or built the same
/// way): `create`, `update` or `unchanged`; a creation the scope has no room for (its job
/// limits, [`JOB_LIMITS`](super::JOB_LIMITS)) is refused.
pub fn plan_job(want: &Map<String, Value>, stored: &[Map<String, Value>], scope: &Scope) -> Result<PlanEntry, Error> {
    let entry = plan_entry(want, stored, scope)?;
    check_limits(std::slice::from_ref(&entry), false, stored, scope)?;
    Ok(entry)
}

/// Refuses the entries of a plan whose writes, in the order of [`Plan::steps`], would make
/// the scope hold more jobs than one of its limits allows at some point.
fn check_limits(
    entries: &[PlanEntry],
    delete_first: bool,
    stored: &[Map<String, Value>],
    scope: &Scope,
) -> Result<(), Error> {
    let kind = scope.kind();
    for limit in JOB_LIMITS.iter().filter(|l| l.scope == kind) {
        let counted = |action: PlanAction| {
            entries
                .iter()
                .filter(|e| e.action == action && limit.counts(&e.dataset))
                .count()
        };
        let (creates, deletes) = (counted(PlanAction::Create), counted(PlanAction::Delete));
        if creates == 0 {
            continue;
        }
        let held = stored
            .iter()
            .filter(|j| limit.counts(j.get("dataset").and_then(Value::as_str).unwrap_or_default()))
            .count();
        let after = (held + creates).saturating_sub(deletes);
        // The most the scope holds at once: before the deletions, unless they go first.
        let peak = if delete_first { after } else { held + creates };
        if peak > limit.max {
            return Err(limit_error(limit, scope, held, creates, deletes, after));
        }
    }
    Ok(())
}

fn limit_error(limit: &JobLimit, scope: &Scope, held: usize, creates: usize, deletes: usize, after: usize) -> Error {
    let of = limit.dataset.map_or_else(String::new, |d| format!(" of {d}"));
    let jobs = |n: usize| if n == 1 { "job" } else { "jobs" };
    let counts = format!(
        "it holds {held}, the plan creates {creates}{}",
        if deletes > 0 {
            format!(" and deletes {deletes}")
        } else {
            String::new()
        }
    );
    let message = if after > limit.max {
        format!(
            "{scope} would hold {after} log-push {}{of} ({counts}), and the API allows {} (\"{MAX_JOBS_MESSAGE}\", \
             {}); nothing was sent: create fewer jobs, or delete some first",
            jobs(after),
            limit.describe(),
            limit.source
        )
    } else {
        let peak = held + creates;
        format!(
            "{scope} would hold {peak} log-push {}{of} while the plan runs ({counts}: the deletions come last, so \
             that a failed creation loses no job), and the API allows {} (\"{MAX_JOBS_MESSAGE}\", {}); nothing was \
             sent: to delete before creating, apply with delete_first (`--delete-first` on the command line), \
             knowing that a failed creation then leaves the jobs it replaces deleted",
            jobs(peak),
            limit.describe(),
            limit.source
        )
    };
    Error::InvalidInput { what: "jobs", message }
}

/// One desired job's entry, without the limit check (the plan checks every entry at once).
fn plan_entry(want: &Map<String, Value>, stored: &[Map<String, Value>], place: &Scope) -> Result<PlanEntry, Error> {
    let scope: DatasetScope = place.kind();
    let mut want = normalize(want)?;
    let wanted_id = want.remove("id").and_then(|v| v.as_u64()); // the job it is, by `located`
    let name = want
        .get("name")
        .and_then(Value::as_str)
        .map(|n| n.trim().to_owned())
        .filter(|n| !n.is_empty());
    let dataset = want
        .get("dataset")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    let namesakes = located(stored, wanted_id, name.as_deref(), place)?;
    let Some(&job) = namesakes.first() else {
        sendable(&want, "creating the job")?;
        let spec = JobSpec::from_body(&Value::Object(settled(want.clone())), scope)?;
        return Ok(PlanEntry {
            action: PlanAction::Create,
            name,
            job_id: None,
            dataset,
            changes: Vec::new(),
            spec: Some(spec),
            update: None,
            stored: None,
        });
    };
    let label = &name.clone().or(wanted_id.map(|id| id.to_string())).unwrap_or_default();
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
    let want = with_job_credentials(want, job);
    let ds = escpush_filter::Dataset::get(stored_dataset, Some(scope))?;
    let mut changes = Map::new();
    let mut shown = Vec::new();
    for (key, value) in &want {
        if matches!(key.as_str(), "name" | "dataset") || JobField::get(key).is_some_and(|f| f.secret) {
            // A secret the API does not give back cannot be compared; it is sent on creation.
            continue;
        }
        let before = job.get(key).unwrap_or(&Value::Null);
        if same(key, before, value, ds) {
            continue;
        }
        shown.push(FieldChange {
            field: key.clone(),
            before: printable(key, before),
            after: printable_after(key, before, &sent_value(key, value)),
        });
        changes.insert(key.clone(), value.clone());
    }
    // A new destination is sent with the challenge the desired job gives (the API never
    // gives one back, so it is not compared).
    if changes.contains_key("destination_conf") {
        for (key, value) in want.iter().filter(|(k, _)| JobField::get(k).is_some_and(|f| f.secret)) {
            changes.insert(key.clone(), value.clone());
        }
    }
    sendable(&changes, "moving the job to another destination")?;
    let changes = settled(changes);
    let job_id = job.get("id").and_then(Value::as_u64);
    if changes.is_empty() {
        return Ok(PlanEntry::of_stored(PlanAction::Unchanged, name, job_id, dataset, job));
    }
    let update = JobUpdate::new(job, &changes, scope)?;
    Ok(PlanEntry {
        changes: shown,
        update: Some(update),
        ..PlanEntry::of_stored(PlanAction::Update, name, job_id, dataset, job)
    })
}

/// The stored jobs a desired one is: the job of its id (a Terraform import block's, or a
/// jobs file's `id`), whatever its name, else those of its name; none for a creation. An id
/// the scope has no job of is refused, and so is the creation of a job without a name, which
/// escpush (keeping no state) could not find again.
fn located<'a>(
    stored: &'a [Map<String, Value>],
    wanted_id: Option<u64>,
    name: Option<&str>,
    place: &Scope,
) -> Result<Vec<&'a Map<String, Value>>, Error> {
    let found: Vec<&Map<String, Value>> = stored
        .iter()
        .filter(|j| match wanted_id {
            Some(id) => j.get("id").and_then(Value::as_u64) == Some(id),
            None => name.is_some() && j.get("name").and_then(Value::as_str).map(str::trim) == name,
        })
        .collect();
    let refuse = |message: String| Error::Invalid {
        problems: vec![Problem::new("", ProblemCode::InvalidValue, message)],
    };
    if !found.is_empty() {
        return Ok(found);
    }
    if let Some(id) = wanted_id {
        return Err(refuse(format!(
            "{place} has no job {id}, which the entry names (its import block, or its `id`): it was deleted, or is \
             another scope's; remove the id to create the job"
        )));
    }
    if name.is_none() {
        return Err(refuse(
            "a job without a name, and no import block gives its id: escpush keeps no state, so a job it created \
             could not be found again (the next apply would create another); give it a name, or import the job \
             it is (an import block with its id)"
                .to_owned(),
        ));
    }
    Ok(found)
}

/// `want` with the credentials its `destination_conf` leaves to the stored `job` (references
/// no variable resolved) taken from the job's.
fn with_job_credentials(mut want: Map<String, Value>, job: &Map<String, Value>) -> Map<String, Value> {
    if let (Some(Value::String(wanted)), Some(stored)) = (
        want.get("destination_conf"),
        job.get("destination_conf").and_then(Value::as_str),
    ) {
        if !unresolved(wanted).is_empty() {
            let filled = fill_from_stored(wanted.trim(), stored.trim());
            want.insert("destination_conf".to_owned(), Value::String(filled));
        }
    }
    want
}

/// `fields` (checked by [`sendable`]) with its `destination_conf` as it is sent: see
/// [`sent_value`].
fn settled(mut fields: Map<String, Value>) -> Map<String, Value> {
    if let Some(value) = fields.get_mut("destination_conf") {
        *value = sent_value("destination_conf", value);
    }
    fields
}

/// The value of `key` as it is sent: a `destination_conf` that holds no reference with each
/// `$${` the literal `${` it stands for (see the `credentials` module); one that still holds
/// references is left as it is (compared as a template, refused if it is to be sent).
fn sent_value(key: &str, value: &Value) -> Value {
    match (key, value) {
        ("destination_conf", Value::String(text)) if unresolved(text).is_empty() => Value::String(unescape(text)),
        _ => value.clone(),
    }
}

/// Refuses `fields` whose `destination_conf`, to be sent (`doing`), still names a credential
/// by a reference no variable resolved.
fn sendable(fields: &Map<String, Value>, doing: &str) -> Result<(), Error> {
    match fields
        .get("destination_conf")
        .and_then(Value::as_str)
        .and_then(|d| unresolved_error(d, doing))
    {
        Some(err) => Err(err),
        None => Ok(()),
    }
}

/// Whether the stored value of `key` means what the desired one says.
fn same(key: &str, before: &Value, after: &Value, dataset: &escpush_filter::Dataset) -> bool {
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
        // A credential named by a reference left unresolved is the one the job holds.
        "destination_conf" => match (before.as_str(), after.as_str()) {
            (Some(stored), Some(wanted)) if !unresolved(wanted).is_empty() => {
                matches_template(wanted.trim(), stored.trim())
            }
            _ => same_conf(Some(before), Some(&sent_value(key, after))),
        },
        "output_options" => match (before, after) {
            (Value::Object(old), Value::Object(new)) => new.iter().all(|(k, v)| old.get(k) == Some(v)),
            _ => before == after,
        },
        // `kind: ""` and no kind say the same ([`JobField::means_none`]).
        _ => before == after || JobField::get(key).is_some_and(|f| f.means_none(before) && f.means_none(after)),
    }
}

/// A value of a change fit to print: filters canonical, the rest as a record shows it
/// (destinations redacted, secrets masked).
fn printable(key: &str, value: &Value) -> Value {
    match (key, value) {
        ("filter", v) => match filter_value(Some(v)) {
            Ok(Some(f)) => Value::String(f.to_json()),
            Ok(None) => Value::Null,
            Err(_) => v.clone(),
        },
        (k, v) => shown_value(k, v),
    }
}

/// The desired side: when only a credential of the destination differs, both redacted
/// texts are equal, so the desired side says so instead.
fn printable_after(key: &str, before: &Value, after: &Value) -> Value {
    let shown = printable(key, after);
    if key == "destination_conf" && shown == printable(key, before) {
        return Value::String(format!(
            "{} (a credential changed)",
            shown.as_str().unwrap_or(escpush_filter::MASK)
        ));
    }
    shown
}
