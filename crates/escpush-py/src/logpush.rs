//! `escpush.Logpush`: the log-push jobs of one zone or account (`zone.logpush`), their
//! endpoints and Instant Logs. What a job is given and gives back is `job.rs`, its
//! `logpull_options` `logpull_options.rs`, the documents of `apply` and Terraform plans `plan.rs`.

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString};

use escpush_core::{DestinationConf, InstantLogsSpec, JobSpec, OriginCheck, PlanOptions, Scope};
use escpush_filter::Limits;
use escpush_http::{Client, Error as HttpError};

use crate::convert;
use crate::convert::{repr, Int, Text};
use crate::cost::PyPricing;
use crate::delivery::Pricer;
use crate::errors;
use crate::filter::filter_from_py;
use crate::job::{filter_field, job_fields, job_from_json};
use crate::logpull_options::{logpull_options_arg, options_field, PyLogpullOptions};
use crate::plan::{jobs_doc, variable_map};

/// Core's default limits (operators, bytes), as the defaults of `create_job`.
fn default_limits() -> (Int, Int) {
    let limits = Limits::default();
    let wide = |n: usize| Int::Fits(i64::try_from(n).unwrap_or(i64::MAX));
    (wide(limits.max_operators), wide(limits.max_bytes))
}

/// A limit given from Python: 0 or more.
fn limit(py: Python<'_>, what: &str, value: Int) -> PyResult<usize> {
    value.count(py, what, 0, i64::MAX)
}

/// The log-push jobs of one zone or account: `zone.logpush` / `account.logpush`.
#[pyclass(name = "Logpush", module = "escpush", frozen)]
#[derive(Clone, Debug)]
pub struct PyLogpush {
    pub(crate) client: Client,
    pub(crate) scope: Scope,
}

#[pymethods]
impl PyLogpush {
    /// The account's transformers (`escpush.Transformers`): SQL run on a job's every batch
    /// (transformers.mdx). Accounts only: on a zone, `InvalidInput`.
    #[getter]
    fn transformers(&self, py: Python<'_>) -> PyResult<crate::transformer::PyTransformers> {
        if self.scope.kind() != escpush_filter::DatasetScope::Account {
            return Err(errors::invalid_input(
                py,
                format!(
                    "transformers belong to an account, not to {}: use account.logpush.transformers \
                     (transformers.mdx: accounts/:account_id/logpush/transformers)",
                    self.scope
                ),
            ));
        }
        Ok(crate::transformer::PyTransformers {
            client: self.client.clone(),
            scope: self.scope.clone(),
        })
    }

    /// Creates a log-push job and returns the stored job, an `escpush.Job` (a dict).
    ///
    /// Everything the API would refuse is checked first, and nothing is sent when
    /// something is wrong: the dataset (and its scope), `destination_conf` (and the
    /// `ownership_challenge` it needs: S3 without keys, Google Cloud Storage, Azure, Sumo
    /// Logic), the fields and options of `logpull_options`, the filter against the dataset
    /// and the limits (`FilterError`), and the other job fields given as keywords
    /// (`enabled`, `frequency`, `max_upload_bytes`, `output_options`, ...; `InvalidInput`),
    /// each as core's job field table says (docs/job-rules.md). The filter is sent as a
    /// string holding its canonical JSON. A creation is never retried.
    #[pyo3(signature = (
        *, destination_conf, dataset, name=None, filter=None, logpull_options=None,
        max_operators=default_limits().0, max_bytes=default_limits().1, **fields
    ))]
    #[allow(clippy::too_many_arguments)]
    fn create_job(
        &self,
        py: Python<'_>,
        destination_conf: Text,
        dataset: Text,
        name: Option<Text>,
        filter: Option<&Bound<'_, PyAny>>,
        logpull_options: Option<&Bound<'_, PyAny>>,
        max_operators: Int,
        max_bytes: Int,
        fields: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Py<PyAny>> {
        let destination_conf = &*destination_conf;
        let dataset = &*dataset;
        let mut builder = JobSpec::builder(dataset, self.scope.kind())
            .destination_conf(destination_conf)
            .limits(Limits::new(
                limit(py, "max_operators", max_operators)?,
                limit(py, "max_bytes", max_bytes)?,
            ));
        if let Some(name) = name {
            builder = builder.name(name.0);
        }
        match filter {
            None => {}
            Some(f) if f.is_none() => {}
            Some(f) => match f.cast::<PyString>() {
                // Text is parsed by the builder, so its problems join the others.
                Ok(text) => builder = builder.filter_source(&convert::utf8(text, "filter")?),
                Err(_) => builder = builder.filter(filter_from_py(py, f)?),
            },
        }
        match logpull_options {
            None => {}
            Some(o) if o.is_none() => {}
            Some(o) => {
                if let Ok(opts) = o.cast::<PyLogpullOptions>() {
                    builder = builder.logpull_options(opts.get().inner.clone());
                } else if let Ok(text) = o.cast::<PyString>() {
                    builder = builder.logpull_options_text(&convert::utf8(text, "logpull_options")?);
                } else {
                    return Err(errors::invalid_input(
                        py,
                        "invalid logpull_options: give an escpush.LogpullOptions or its query string",
                    ));
                }
            }
        }
        if let Some(fields) = fields {
            for (key, value) in fields.iter() {
                let key: String = key.extract::<Text>()?.0;
                let json = convert::to_json(&value, &key).map_err(|m| errors::invalid_input(py, m))?;
                builder = builder.extra(key, json.into());
            }
        }
        let spec = builder.build().map_err(|e| errors::core_error(py, &e))?;
        let job = crate::logging::detach(py, || self.client.create_job(&self.scope, &spec))
            .map_err(|e| errors::http_error(py, &e))?;
        job_from_json(py, &job)
    }

    /// Every log-push job of the zone or account, each an `escpush.Job` (a dict); with
    /// `dataset`, only that dataset's jobs (`GET .../logpush/datasets/{dataset}/jobs`).
    #[pyo3(signature = (dataset=None))]
    fn jobs<'py>(&self, py: Python<'py>, dataset: Option<Text>) -> PyResult<Bound<'py, PyList>> {
        let jobs = crate::logging::detach(py, || match dataset {
            None => self.client.jobs(&self.scope),
            Some(d) => self.client.dataset_jobs(&self.scope, &d),
        })
        .map_err(|e| errors::http_error(py, &e))?;
        let items = jobs
            .iter()
            .map(|j| job_from_json(py, j))
            .collect::<PyResult<Vec<_>>>()?;
        PyList::new(py, items)
    }

    /// One log-push job, by its id, as an `escpush.Job` (a dict).
    fn job(&self, py: Python<'_>, job_id: Int) -> PyResult<Py<PyAny>> {
        let job_id = checked_id(py, job_id)?;
        let job = crate::logging::detach(py, || self.client.job(&self.scope, job_id))
            .map_err(|e| errors::http_error(py, &e))?;
        job_from_json(py, &job)
    }

    /// What `job` would deliver for the logs of `sample` (a path, folder, glob or `"-"`, or a
    /// list of them, as `escpush.scan` takes), and how many bytes: a `PreviewResult`.
    /// `job` is a dict of a job's fields as `create_job` takes them (`dataset`, `filter`,
    /// `output_options` or `logpull_options`, `max_upload_*`; a destination is not needed),
    /// an `escpush.Job`, or a job id (read from the API). The job's filter, `field_names`,
    /// `output_options`, `sample_rate` (seeded by `seed`) and batches (`max_upload_*`) are
    /// core's, as log-push applies them; a job the API would refuse (an unknown
    /// `output_type`, a template action the docs do not allow, a `sample_rate` out of
    /// (0, 1]) raises `InvalidInput` naming the option, and nothing is written. `out`: None
    /// counts only; a folder (new or empty) gets one file per batch, named as log-push names
    /// them, gzip unless `gzip=False`, written in a temporary folder renamed at the end; `"-"`
    /// writes the batches to stdout. `group_by` / `every` break the counts down as
    /// `escpush.scan` does.
    #[pyo3(signature = (job, sample, *, seed=None, group_by=None, every=None, out=None, gzip=true, threads=None, strict=false, progress=None))]
    #[allow(clippy::too_many_arguments)] // Python keyword arguments
    fn preview(
        &self,
        py: Python<'_>,
        job: &Bound<'_, PyAny>,
        sample: &Bound<'_, PyAny>,
        seed: Option<Int>,
        group_by: Option<&Bound<'_, PyAny>>,
        every: Option<&Bound<'_, PyAny>>,
        out: Option<&Bound<'_, PyAny>>,
        gzip: bool,
        threads: Option<Int>,
        strict: bool,
        progress: Option<Py<PyAny>>,
    ) -> PyResult<crate::preview::PyPreviewResult> {
        let args = crate::preview::PreviewArgs {
            seed,
            group_by,
            every,
            out,
            gzip,
            threads,
            strict,
            progress,
        };
        if !job.is_instance_of::<PyDict>() {
            if let Ok(id) = job.extract::<Int>() {
                let stored = self.job(py, id)?;
                return crate::preview::preview(py, stored.bind(py), sample, Some(self.scope.kind()), args);
            }
        }
        crate::preview::preview(py, job, sample, Some(self.scope.kind()), args)
    }

    /// Updates a job and returns the stored job: reads it, and sends only the fields given
    /// whose value differs from the stored one, never one the API sets (`None` clears one;
    /// `output_options` is merged onto the stored one and sent whole), as the API takes an
    /// update: a `PUT` changes only what it sends. The fields are checked
    /// as `create_job` checks them, on the stored job with the changes, before anything is
    /// written; `dataset` and `kind` cannot change, and a new `destination_conf` that needs
    /// an ownership challenge needs `ownership_challenge` too. Retried on 429, 5xx and
    /// dropped connections.
    #[pyo3(signature = (job_id, **fields))]
    fn update_job(&self, py: Python<'_>, job_id: Int, fields: Option<&Bound<'_, PyDict>>) -> PyResult<Py<PyAny>> {
        let job_id = checked_id(py, job_id)?;
        let changes = job_fields(py, fields)?;
        if changes.is_empty() {
            return Err(errors::invalid_input(
                py,
                "invalid fields: name at least one field to update, like enabled=False",
            ));
        }
        let job = crate::logging::detach(py, || self.client.update_job(&self.scope, job_id, &changes))
            .map_err(|e| errors::http_error(py, &e))?;
        job_from_json(py, &job)
    }

    /// Enables a job (an update of `enabled`); returns the stored job.
    fn enable_job(&self, py: Python<'_>, job_id: Int) -> PyResult<Py<PyAny>> {
        self.set_enabled(py, job_id, true)
    }

    /// Disables a job (an update of `enabled`); returns the stored job.
    fn disable_job(&self, py: Python<'_>, job_id: Int) -> PyResult<Py<PyAny>> {
        self.set_enabled(py, job_id, false)
    }

    /// Deletes a job and returns its id. Retried like a read; a job already gone raises
    /// `NotFoundError` saying so, unless an earlier attempt of this call deleted it (its
    /// answer lost, the retry answered 404): that is the deletion done, and the id is returned.
    fn delete_job(&self, py: Python<'_>, job_id: Int) -> PyResult<u64> {
        let job_id = checked_id(py, job_id)?;
        let deleted = crate::logging::detach(py, || self.client.delete_job(&self.scope, job_id))
            .map_err(|e| errors::http_error(py, &e))?;
        Ok(deleted.unwrap_or(job_id))
    }

    /// Makes the job named `name` be as given, idempotently: creates it when no job of the
    /// scope has the name, updates only the fields that differ when one has, and sends
    /// nothing when it matches. Filters compare by the exact equivalence of
    /// `Filter.equivalent` (what `escpush filter diff` decides), so a server that writes
    /// filters back differently (member order, spacing, `"500"` for `500`, nesting) causes
    /// no update, nor does a redundant condition. Fields not given are left as stored.
    /// `ownership_challenge` is sent on creation, and with a new `destination_conf` (the
    /// API does not give it back, so it is not compared), and needed only then. A
    /// creation on a scope at its job limit raises `InvalidInput` before it is sent.
    ///
    /// A `${NAME}` in `destination_conf` is a credential by reference, given by `variables`
    /// (one set to `""` is refused, naming it) or else the one the stored job holds, for the
    /// place the job already pushes to only (see `apply`); a literal `${` is written `$${`.
    ///
    /// Returns `{"action": "created" | "updated" | "unchanged", "id": int, "changes":
    /// [{"field", "before", "after"}], "job": Job}`; changes and the job show secrets as
    /// `***` (`result["job"].reveal()` gives them). With `sample` (log files, folders or
    /// globs), a change is priced before it is written: `delivery` holds the month before
    /// and after and their difference (`"-38 GB/month, -$3.80"`), projected by the sample's
    /// span or `requests_per_day` / `scale` at `pricing` (see `apply`).
    #[pyo3(signature = (*, name, dataset, destination_conf, filter=None, logpull_options=None, variables=None, sample=None, requests_per_day=None, scale=None, pricing=None, **fields))]
    #[allow(clippy::too_many_arguments)]
    fn ensure_job(
        &self,
        py: Python<'_>,
        name: Text,
        dataset: Text,
        destination_conf: Text,
        filter: Option<&Bound<'_, PyAny>>,
        logpull_options: Option<&Bound<'_, PyAny>>,
        variables: Option<&Bound<'_, PyAny>>,
        sample: Option<&Bound<'_, PyAny>>,
        requests_per_day: Option<f64>,
        scale: Option<f64>,
        pricing: Option<PyRef<'_, PyPricing>>,
        fields: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Py<PyAny>> {
        let pricer = Pricer::new(py, sample, requests_per_day, scale, pricing)?;
        let name = &*name;
        let dataset = &*dataset;
        let destination_conf = &*destination_conf;
        let mut desired = job_fields(py, fields)?;
        desired.insert("name".into(), name.into());
        desired.insert("dataset".into(), dataset.into());
        desired.insert("destination_conf".into(), destination_conf.into());
        if let Some(f) = filter.filter(|f| !f.is_none()) {
            desired.insert("filter".into(), filter_field(py, f)?);
        }
        if let Some(o) = logpull_options.filter(|o| !o.is_none()) {
            desired.insert("logpull_options".into(), options_field(py, o)?);
        }
        if let Some(variables) = variables.map(variable_map).transpose()? {
            escpush_core::resolve_job_references(&mut desired, |name| variables.get(name).cloned())
                .map_err(|e| errors::core_error(py, &e))?;
        }
        let planned = crate::logging::detach(py, || self.client.plan_ensure(&self.scope, &desired))
            .map_err(|e| errors::http_error(py, &e))?;
        // With a sample, the change is priced before it is written (a sample that cannot be
        // read writes nothing).
        let delivery = match &pricer {
            Some(pricer) if planned.entry.operation().is_some() => {
                let after = planned.entry.job_after();
                Some(pricer.delivery(
                    py,
                    planned.entry.job_before(),
                    after.as_ref(),
                    Some(self.scope.kind()),
                    name,
                )?)
            }
            _ => None,
        };
        let (entry, job) = crate::logging::detach(py, || self.client.carry_out_ensure(&self.scope, planned))
            .map_err(|e| errors::http_error(py, &e))?;
        let mut shown = entry.to_json();
        let done = match entry.action {
            escpush_core::PlanAction::Create => "created",
            escpush_core::PlanAction::Update => "updated",
            _ => "unchanged",
        };
        shown["action"] = done.into();
        shown["id"] = job.get("id").cloned().unwrap_or_default();
        if let Some(delivery) = delivery {
            shown["delivery"] = delivery;
        }
        let out = convert::from_json(py, &shown)?;
        out.bind(py).set_item("job", job_from_json(py, &job)?)?;
        Ok(out)
    }

    /// The plan that brings the scope's jobs to `jobs` (`{"jobs": [{"name", "dataset",
    /// ...}]}`, as `escpush logpush apply` reads a file), and with `dry_run=False` carries it
    /// out. Jobs are matched by name; stored jobs the list does not name are `untracked`, or
    /// `delete` with `prune=True`. Every desired job is checked, and so are the API's job
    /// limits (4 per zone; 4 `dlp_forensic_copies` jobs per account), before anything is
    /// sent: a plan past a limit raises `InvalidInput` naming it, even as a dry run.
    ///
    /// The writes go so that a failure loses no job: updates and creations first, deletions
    /// last (a renamed job is created before the old one is deleted). A zone at its limit
    /// has no room for that: `delete_first=True` deletes first, and then a failed creation
    /// leaves the job it replaces deleted.
    ///
    /// A `destination_conf` may name a credential by a reference, `${NAME}` (what `export`
    /// writes, so that no credential is written out): `variables` (a mapping, such as
    /// `os.environ`) gives their values (one set to `""` is refused, naming it); one it does
    /// not give stands for the credential the stored job holds, so it compares equal, but a
    /// job is created or moved to another destination (another host, bucket or path) only
    /// with every credential given: the stored ones never go to another place. A literal `${`
    /// in a destination is written `$${`.
    ///
    /// Problems name each job by `jobs["addresses"]` when it gives one per job (what
    /// `read_terraform` gives: the resource addresses), else as `jobs[i]`.
    ///
    /// With `sample` (log files, folders or globs: read once for each side of each change),
    /// every job that changes is previewed before and after over the sample, before anything
    /// is sent, and priced a month (its span, else `requests_per_day` or `scale`; `pricing`,
    /// Cloudflare's published prices by default): its entry's `delivery` is `{"before",
    /// "after" (each `{"gb_per_month", "dollars_per_month", "short", "text"}`, `None` for a
    /// creation's before or a deletion's after), "change" ("-38 GB/month, -$3.80"),
    /// "gb_per_month", "dollars_per_month"}`.
    ///
    /// Returns `{"jobs": [{"action", "name", "id", "dataset", "changes", "done"}]}` (secrets
    /// as `***`); a deletion whose answer was lost and whose retry found the job gone (404)
    /// is done, and its entry says so in `note`. An error part-way raises the write's error, its message saying what was
    /// written before it and what was not sent, with the plan so far (each entry's `done`) as
    /// the exception's `plan` attribute; so do Ctrl-C, SIGTERM and SIGHUP (the latter as
    /// `escpush.Terminated`, in the main thread where their handler is the default), which
    /// stop it between writes: the write under way ends, no other starts.
    #[pyo3(signature = (jobs, *, prune=false, dry_run=false, delete_first=false, variables=None, sample=None, requests_per_day=None, scale=None, pricing=None))]
    #[allow(clippy::too_many_arguments)] // Python keyword arguments
    fn apply(
        &self,
        py: Python<'_>,
        jobs: &Bound<'_, PyAny>,
        prune: bool,
        dry_run: bool,
        delete_first: bool,
        variables: Option<&Bound<'_, PyAny>>,
        sample: Option<&Bound<'_, PyAny>>,
        requests_per_day: Option<f64>,
        scale: Option<f64>,
        pricing: Option<PyRef<'_, PyPricing>>,
    ) -> PyResult<Py<PyAny>> {
        let pricer = Pricer::new(py, sample, requests_per_day, scale, pricing)?;
        let mut doc = jobs_doc(py, jobs)?;
        if let Some(variables) = variables.map(variable_map).transpose()? {
            escpush_core::resolve_references(&mut doc, |name| variables.get(name).cloned())
                .map_err(|e| errors::core_error(py, &e))?;
        }
        let options = PlanOptions::new().prune(prune).delete_first(delete_first);
        let plan = crate::logging::detach(py, || self.client.plan_jobs(&self.scope, &doc, options))
            .map_err(|e| errors::http_error(py, &e))?;
        let mut shown = plan.to_json();
        if let Some(pricer) = &pricer {
            // Each job that changes, priced before anything is sent. The plan's first entries
            // are the document's jobs, in its order (named as its problems name them: by
            // `addresses`, else `jobs[i]`); the rest are stored jobs it does not list.
            let listed = doc["jobs"].as_array().map_or(0, Vec::len);
            for (i, entry) in plan.entries.iter().enumerate() {
                if entry.operation().is_some() {
                    let after = entry.job_after();
                    let label = match (i < listed, doc["addresses"][i].as_str()) {
                        (true, Some(address)) => address.to_owned(),
                        (true, None) => format!("jobs[{i}]"),
                        (false, _) => entry
                            .job_id
                            .map_or_else(|| "a stored job".to_owned(), |id| format!("job {id}")),
                    };
                    shown["jobs"][i]["delivery"] =
                        pricer.delivery(py, entry.job_before(), after.as_ref(), Some(self.scope.kind()), &label)?;
                }
            }
        }
        let termination = if dry_run {
            None
        } else {
            Some(crate::signals::Termination::catch(py)?)
        };
        // The signal that stops the plan between writes (Ctrl-C, or SIGTERM/SIGHUP above).
        let mut stopped: Option<PyErr> = None;
        let outcome = if dry_run {
            Ok(vec![None; plan.entries.len()])
        } else {
            crate::logging::detach(py, || {
                self.client.apply_plan_until(&self.scope, &plan, || {
                    stopped = Python::attach(|py| py.check_signals().err());
                    stopped.is_some()
                })
            })
        };
        let (done, ids): (Vec<bool>, Vec<Option<u64>>) = match &outcome {
            Ok(results) => results
                .iter()
                .map(|r| {
                    (
                        r.is_some(),
                        r.as_ref().and_then(|j| j.get("id")).and_then(serde_json::Value::as_u64),
                    )
                })
                .unzip(),
            Err(HttpError::PlanStopped { done, ids, .. }) => (done.clone(), ids.clone()),
            Err(_) => (vec![false; plan.entries.len()], vec![None; plan.entries.len()]),
        };
        for (i, (done, id)) in done.iter().zip(&ids).enumerate() {
            shown["jobs"][i]["done"] = (*done).into();
            if let Some(id) = id {
                shown["jobs"][i]["id"] = (*id).into();
            }
        }
        // What a write says of itself (a deletion whose answer was lost, done all the same).
        if let Ok(results) = &outcome {
            for (i, result) in results.iter().enumerate() {
                if let Some(note) = result.as_ref().and_then(|r| r.get("note")) {
                    shown["jobs"][i]["note"] = note.clone();
                }
            }
        }
        let mut failure = match outcome {
            Err(e) => Some(errors::http_error(py, &e)),
            Ok(_) => stopped,
        };
        if let Some(late) = termination.and_then(|t| t.release(py)) {
            failure = Some(match failure {
                Some(err) => crate::signals::with_late(py, Some(late), err),
                None => late,
            });
        }
        let out = convert::from_json(py, &shown)?;
        if let Some(err) = failure {
            err.value(py).setattr("plan", out)?;
            return Err(err);
        }
        Ok(out)
    }

    /// The scope's jobs (all, or those whose id is in `jobs`) as text: `format="toml"` or
    /// `"json"`, a jobs file that `apply` reads back as nothing to do (each job needs a
    /// name, and a name one job); `"terraform"`, `cloudflare_logpush_job` resources of the
    /// Terraform provider's v5 schema with an `import` block each (id
    /// `zones/<zone_id>/<job_id>` or `accounts/...`), the filter as its canonical JSON text
    /// (`filter_form="string"`) or as `jsonencode({...})` of its tree (`"jsonencode"`).
    ///
    /// No credential is written: each one of a `destination_conf` is a reference, `${NAME}`
    /// in a jobs file (an environment variable for `escpush logpush apply`, `variables` for
    /// `apply`), `${var.name}` in Terraform with a sensitive `variable` block.
    #[pyo3(signature = (*, format="toml", jobs=None, filter_form="string"))]
    fn export(&self, py: Python<'_>, format: &str, jobs: Option<Vec<Int>>, filter_form: &str) -> PyResult<String> {
        // core's names (`ExportFormat::NAMES`, `FilterForm::NAMES`), the form checked first
        let form: escpush_terraform::FilterForm = filter_form
            .parse()
            .map_err(|e: escpush_terraform::UnknownName| errors::invalid_input(py, e.to_string()))?;
        let format = format
            .parse::<escpush_terraform::ExportFormat>()
            .map_err(|e| errors::invalid_input(py, e.to_string()))?
            .with_filter_form(form);
        let only = jobs
            .map(|ids| {
                ids.into_iter()
                    .map(|id| checked_id(py, id))
                    .collect::<PyResult<Vec<u64>>>()
            })
            .transpose()?;
        let stored =
            crate::logging::detach(py, || self.client.jobs(&self.scope)).map_err(|e| errors::http_error(py, &e))?;
        let stored: Vec<serde_json::Map<String, serde_json::Value>> =
            stored.into_iter().filter_map(|j| j.as_object().cloned()).collect();
        escpush_terraform::export_jobs(&stored, &self.scope, format, only.as_deref())
            .map_err(|e| errors::core_error(py, &e))
    }

    /// The `cloudflare_logpush_job` resources of a Terraform file's text, in the native
    /// syntax (`.tf`) or the JSON syntax (`.tf.json`, told by its leading `{`), as desired
    /// jobs, `{"jobs": [...], "addresses": [...]}`, for `apply` (or one of them for
    /// `ensure_job`): what `export` writes, or hand-written resources of that shape.
    /// `addresses` holds each job's resource address, which `apply`'s problems name instead
    /// of `jobs[i]`. `${var.name}` in a `destination_conf` becomes `${TF_VAR_name}`
    /// (Terraform's own environment variable for it). A syntax error, an attribute escpush
    /// cannot evaluate (`local.x`, another resource's attribute, a function other than
    /// `jsonencode`, a template directive), a `zone_id` or `account_id` of another scope, or
    /// one escpush cannot evaluate (`var.zone_id`) that `scope_expressions` does not name as
    /// this scope, `count`, `for_each` and a job `apply` would refuse raise `InvalidInput`,
    /// each problem with its resource and line.
    #[pyo3(signature = (text, *, scope_expressions=None))]
    fn read_terraform(
        &self,
        py: Python<'_>,
        text: Text,
        scope_expressions: Option<Vec<String>>,
    ) -> PyResult<Py<PyAny>> {
        let assumed = scope_expressions.unwrap_or_default();
        let doc = escpush_terraform::read_terraform_jobs_for(&text, &self.scope, &assumed)
            .map_err(|e| errors::core_error(py, &e))?;
        convert::from_json(py, &doc)
    }

    /// The live field list of a dataset, `{field: description}`, as the API gives it.
    fn fields<'py>(&self, py: Python<'py>, dataset: Text) -> PyResult<Bound<'py, PyDict>> {
        let dataset = &*dataset;
        let fields = crate::logging::detach(py, || self.client.fields(&self.scope, dataset))
            .map_err(|e| errors::http_error(py, &e))?;
        let out = PyDict::new(py);
        for (name, description) in fields {
            out.set_item(name, description)?;
        }
        Ok(out)
    }

    /// Compares the live field list of each dataset of the scope (or of those named) with
    /// escpush's embedded schema: `{dataset: {"only_live": [...], "only_embedded": [...]}}`,
    /// for the datasets that differ. Fields only the API has mean escpush is stale.
    #[pyo3(signature = (datasets=None))]
    fn check_fields<'py>(&self, py: Python<'py>, datasets: Option<Vec<Text>>) -> PyResult<Bound<'py, PyDict>> {
        let names: Vec<String> = datasets.map_or_else(
            || {
                escpush_filter::datasets()
                    .iter()
                    .filter(|d| d.scope() == self.scope.kind())
                    .map(|d| d.name().to_owned())
                    .collect()
            },
            |names| names.into_iter().map(|n| n.0).collect(),
        );
        let out = PyDict::new(py);
        for name in names {
            let dataset =
                escpush_filter::Dataset::get(&name, Some(self.scope.kind())).map_err(|e| errors::core_error(py, &e))?;
            let live = crate::logging::detach(py, || self.client.fields(&self.scope, &name))
                .map_err(|e| errors::http_error(py, &e))?;
            let drift = escpush_core::field_drift(dataset, live.iter().map(|(n, _)| n.as_str()));
            if !drift.is_empty() {
                let entry = PyDict::new(py);
                entry.set_item("only_live", drift.only_live)?;
                entry.set_item("only_embedded", drift.only_embedded)?;
                out.set_item(name, entry)?;
            }
        }
        Ok(out)
    }

    /// Asks the API to write an ownership challenge file to the destination; returns
    /// `{"filename", "message"}` (the challenge itself is in that file; the destination's
    /// credentials are masked in both). An answer with `valid: false` raises `ApiError` with
    /// the API's message.
    fn ownership_challenge<'py>(&self, py: Python<'py>, destination_conf: Text) -> PyResult<Bound<'py, PyDict>> {
        let destination_conf = &*destination_conf;
        let conf = destination(py, destination_conf)?;
        let answer = crate::logging::detach(py, || self.client.ownership_challenge(&self.scope, &conf))
            .map_err(|e| errors::http_error(py, &e))?;
        let out = PyDict::new(py);
        out.set_item("filename", answer.filename)?;
        out.set_item("message", answer.message)?;
        Ok(out)
    }

    /// Checks the challenge read from the destination's challenge file; `valid: false`
    /// raises `ApiError`. The challenge never appears in errors or logs.
    fn validate_ownership(&self, py: Python<'_>, destination_conf: Text, challenge: Text) -> PyResult<()> {
        let destination_conf = &*destination_conf;
        let challenge = &*challenge;
        let conf = destination(py, destination_conf)?;
        crate::logging::detach(py, || self.client.validate_ownership(&self.scope, &conf, challenge))
            .map_err(|e| errors::http_error(py, &e))
    }

    /// Asks the API whether it can push to the destination; `valid: false` raises
    /// `ApiError` with its message. Returns the API's message (often empty).
    fn validate_destination(&self, py: Python<'_>, destination_conf: Text) -> PyResult<String> {
        let destination_conf = &*destination_conf;
        let conf = destination(py, destination_conf)?;
        crate::logging::detach(py, || self.client.validate_destination(&self.scope, &conf))
            .map_err(|e| errors::http_error(py, &e))
    }

    /// Whether a job of the scope already pushes to the destination: to the same place (the
    /// scheme, bucket or host and path, whatever the region, credentials or options; the
    /// emulator answers so). The destination is checked for its form only (the docs ask
    /// about `s3://foo`, without a region).
    fn destination_exists(&self, py: Python<'_>, destination_conf: Text) -> PyResult<bool> {
        let destination_conf = &*destination_conf;
        let conf =
            escpush_core::DestinationConf::parse_address(destination_conf).map_err(|e| errors::core_error(py, &e))?;
        crate::logging::detach(py, || self.client.destination_exists(&self.scope, &conf))
            .map_err(|e| errors::http_error(py, &e))
    }

    /// Asks the API whether `logpull_options` (a `LogpullOptions`, its query string, or None)
    /// is valid, for `dataset` when given (`POST .../logpush/validate/origin`, as the docs'
    /// example sends it). With a dataset, fields it does not have raise `InvalidInput`
    /// before anything is sent. Returns the API's message (often empty); `valid: false`
    /// raises `ApiError` with it.
    #[pyo3(signature = (logpull_options, *, dataset=None))]
    fn validate_origin(
        &self,
        py: Python<'_>,
        logpull_options: Option<&Bound<'_, PyAny>>,
        dataset: Option<Text>,
    ) -> PyResult<String> {
        let options = logpull_options
            .filter(|o| !o.is_none())
            .map(|o| logpull_options_arg(py, o))
            .transpose()?;
        let check = OriginCheck::new(options.as_ref(), dataset.as_deref(), self.scope.kind())
            .map_err(|e| errors::core_error(py, &e))?;
        crate::logging::detach(py, || self.client.validate_origin(&self.scope, &check))
            .map_err(|e| errors::http_error(py, &e))
    }

    /// The zone's Instant Logs jobs (`GET /zones/{zone_id}/logpush/edge/jobs`), each a dict
    /// with its `wss://` address (`destination_conf`), `session_id`, `fields`, `filter` and
    /// `sample`. An account has none: `InvalidInput` before anything is sent.
    fn instant_logs_jobs<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let jobs = crate::logging::detach(py, || self.client.instant_logs_jobs(&self.scope))
            .map_err(|e| errors::http_error(py, &e))?;
        let items = jobs
            .iter()
            .map(|j| convert::from_json(py, j))
            .collect::<PyResult<Vec<_>>>()?;
        PyList::new(py, items)
    }

    /// Opens an Instant Logs session on the zone and returns it (a dict; its
    /// `destination_conf` is the `wss://` address to listen on). `fields` (names, or one
    /// comma-separated string) must be fields of `http_requests`, the one dataset of Instant
    /// Logs; `filter` (a `Filter`, its JSON or text form) is checked as a job's filter on it;
    /// `sample` streams one record in that many (1: every one). Every problem raises
    /// `InvalidInput` (or `FilterError`) before anything is sent. Sent once, like a job
    /// creation: a zone has one active session at a time.
    #[pyo3(signature = (*, fields=None, filter=None, sample=None))]
    fn create_instant_logs_job(
        &self,
        py: Python<'_>,
        fields: Option<&Bound<'_, PyAny>>,
        filter: Option<&Bound<'_, PyAny>>,
        sample: Option<Int>,
    ) -> PyResult<Py<PyAny>> {
        let mut builder = InstantLogsSpec::builder();
        match fields.filter(|f| !f.is_none()) {
            None => {}
            Some(f) => match f.cast::<PyString>() {
                Ok(text) => builder = builder.fields_text(&convert::utf8(text, "fields")?),
                Err(_) => builder = builder.fields(f.extract::<Vec<Text>>()?.into_iter().map(|t| t.0)),
            },
        }
        match filter.filter(|f| !f.is_none()) {
            None => {}
            Some(f) => match f.cast::<PyString>() {
                Ok(text) => builder = builder.filter_source(&convert::utf8(text, "filter")?),
                Err(_) => builder = builder.filter(filter_from_py(py, f)?),
            },
        }
        match sample {
            None => {}
            Some(Int::Fits(n)) => builder = builder.sample(n),
            // Beyond 64 bits: core names the range it is outside.
            Some(Int::Huge { negative }) => builder = builder.sample(if negative { i128::MIN } else { i128::MAX }),
        }
        let spec = builder.build().map_err(|e| errors::core_error(py, &e))?;
        let job = crate::logging::detach(py, || self.client.create_instant_logs_job(&self.scope, &spec))
            .map_err(|e| errors::http_error(py, &e))?;
        convert::from_json(py, &job)
    }

    fn __repr__(&self, py: Python<'_>) -> String {
        format!("Logpush({}={})", self.scope.kind(), repr(py, self.scope.id()))
    }
}

impl PyLogpush {
    fn set_enabled(&self, py: Python<'_>, job_id: Int, on: bool) -> PyResult<Py<PyAny>> {
        let job_id = checked_id(py, job_id)?;
        let mut changes = serde_json::Map::new();
        changes.insert("enabled".into(), on.into());
        let job = crate::logging::detach(py, || self.client.update_job(&self.scope, job_id, &changes))
            .map_err(|e| errors::http_error(py, &e))?;
        job_from_json(py, &job)
    }
}

/// A job id from Python: 1 or more.
fn checked_id(py: Python<'_>, job_id: Int) -> PyResult<u64> {
    Ok(u64::try_from(job_id.within(py, "job id", 1, i64::MAX)?).unwrap_or_default())
}

/// A destination, checked before anything is sent (`InvalidInput` naming what is wrong).
fn destination(py: Python<'_>, text: &str) -> PyResult<DestinationConf> {
    DestinationConf::parse(text).map_err(|e| errors::core_error(py, &e))
}
