//! `escpush.LogpullOptions`: the `logpull_options` of a log-push job.

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString, PyType};

use escpush_core::{dataset_scope, JobSpec, Limits, LogpullOptions, Scope, Timestamps};
use escpush_http::Client;

use crate::client::{int_in_range, quote};
use crate::convert;
use crate::errors;
use crate::filter::filter_from_py;

/// The `logpull_options` of a log-push job: fields, timestamp format, flags.
#[pyclass(name = "LogpullOptions", module = "escpush", frozen, eq)]
#[derive(Clone, Debug, PartialEq)]
pub struct PyLogpullOptions {
    pub(crate) inner: LogpullOptions,
}

#[pymethods]
impl PyLogpullOptions {
    /// `LogpullOptions(fields=["ClientIP"], timestamps="rfc3339", flags={"CVE-2021-44228": True})`.
    #[new]
    #[pyo3(signature = (fields, *, timestamps=None, flags=None))]
    fn py_new(
        py: Python<'_>,
        fields: Vec<String>,
        timestamps: Option<&str>,
        flags: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Self> {
        let mut inner = LogpullOptions::new(fields);
        if let Some(t) = timestamps {
            let t: Timestamps = t
                .parse()
                .map_err(|message: String| errors::invalid_input(py, format!("invalid timestamps: {message}")))?;
            inner = inner.timestamps(t);
        }
        if let Some(flags) = flags {
            for (name, on) in flags.iter() {
                inner = inner.flag(name.extract::<String>()?, on.extract::<bool>()?);
            }
        }
        // The same checks as the text form: print, then parse.
        let checked = LogpullOptions::parse(&inner.to_query()).map_err(|e| errors::core_error(py, &e))?;
        Ok(PyLogpullOptions { inner: checked })
    }

    /// Parses the query-string form, `fields=ClientIP,EdgeResponseStatus&timestamps=rfc3339`.
    #[classmethod]
    fn parse(_cls: &Bound<'_, PyType>, py: Python<'_>, text: &str) -> PyResult<Self> {
        LogpullOptions::parse(text)
            .map(|inner| PyLogpullOptions { inner })
            .map_err(|e| errors::core_error(py, &e))
    }

    /// The field names, in order.
    #[getter]
    fn fields(&self) -> Vec<String> {
        self.inner.fields().to_vec()
    }

    /// `"unixnano"`, `"unix"`, `"rfc3339"` or None.
    #[getter]
    fn timestamps(&self) -> Option<&'static str> {
        self.inner.timestamps_format().map(Timestamps::as_str)
    }

    /// The boolean flags.
    #[getter]
    fn flags(&self) -> Vec<(String, bool)> {
        self.inner.flags().to_vec()
    }

    /// Options escpush does not know; kept and sent as given.
    #[getter]
    fn unknown_options(&self) -> Vec<(String, String)> {
        self.inner.unknown_options().to_vec()
    }

    /// What is kept but not checked (unknown options), one sentence each.
    #[getter]
    fn warnings(&self) -> Vec<String> {
        self.inner.warnings()
    }

    /// The query string the API takes.
    fn __str__(&self) -> String {
        self.inner.to_query()
    }

    fn __repr__(&self) -> String {
        let fields: Vec<String> = self.inner.fields().iter().map(|f| format!("{f:?}")).collect();
        let mut parts = vec![format!("fields=[{}]", fields.join(", "))];
        if let Some(t) = self.inner.timestamps_format() {
            parts.push(format!("timestamps={:?}", t.as_str()));
        }
        if !self.inner.flags().is_empty() {
            let flags: Vec<String> = self
                .inner
                .flags()
                .iter()
                .map(|(k, v)| format!("{k:?}: {}", if *v { "True" } else { "False" }))
                .collect();
            parts.push(format!("flags={{{}}}", flags.join(", ")));
        }
        format!("LogpullOptions({})", parts.join(", "))
    }
}

/// Core's default limits (operators, bytes), as the defaults of `create_job`.
fn default_limits() -> (i64, i64) {
    let limits = Limits::default();
    let wide = |n: usize| i64::try_from(n).unwrap_or(i64::MAX);
    (wide(limits.max_operators), wide(limits.max_bytes))
}

/// A limit given from Python: 0 or more.
fn limit(py: Python<'_>, what: &str, value: i64) -> PyResult<usize> {
    Ok(usize::try_from(int_in_range(py, what, value, 0, i64::MAX)?).unwrap_or(usize::MAX))
}

/// A stored job as an `escpush.Job`: a dict whose repr and display mask credentials.
fn job_from_json(py: Python<'_>, job: &serde_json::Value) -> PyResult<Py<PyAny>> {
    let dict = convert::from_json(py, job)?;
    Ok(py.import("escpush._job")?.getattr("Job")?.call1((dict,))?.unbind())
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
    /// Creates a log-push job and returns the stored job, an `escpush.Job` (a dict).
    ///
    /// Everything the API would refuse is checked first, and nothing is sent when
    /// something is wrong: the dataset (and its scope), `destination_conf`, the fields
    /// and options of `logpull_options`, the filter against the dataset and the limits
    /// (`FilterError`), and the other job fields given as keywords (`enabled`,
    /// `frequency`, `max_upload_bytes`, ...; `InvalidInput`). The filter is sent as a
    /// string holding its canonical JSON. A creation is never retried.
    #[pyo3(signature = (
        *, destination_conf, dataset, name=None, filter=None, logpull_options=None,
        max_operators=default_limits().0, max_bytes=default_limits().1, **fields
    ))]
    #[allow(clippy::too_many_arguments)]
    fn create_job(
        &self,
        py: Python<'_>,
        destination_conf: &str,
        dataset: &str,
        name: Option<String>,
        filter: Option<&Bound<'_, PyAny>>,
        logpull_options: Option<&Bound<'_, PyAny>>,
        max_operators: i64,
        max_bytes: i64,
        fields: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Py<PyAny>> {
        let mut builder = JobSpec::builder(dataset, dataset_scope(&self.scope))
            .destination_conf(destination_conf)
            .limits(Limits::new(
                limit(py, "max_operators", max_operators)?,
                limit(py, "max_bytes", max_bytes)?,
            ));
        if let Some(name) = name {
            builder = builder.name(name);
        }
        match filter {
            None => {}
            Some(f) if f.is_none() => {}
            Some(f) => match f.cast::<PyString>() {
                // Text is parsed by the builder, so its problems join the others.
                Ok(text) => builder = builder.filter_text(&text.to_cow()?),
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
                    builder = builder.logpull_options_text(&text.to_cow()?);
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
                let key: String = key.extract()?;
                let json = convert::to_json(&value, &key).map_err(|m| errors::invalid_input(py, m))?;
                builder = builder.extra(key, json.into());
            }
        }
        let spec = builder.build().map_err(|e| errors::core_error(py, &e))?;
        let job = py
            .detach(|| self.client.create_job(&self.scope, &spec))
            .map_err(|e| errors::http_error(py, &e))?;
        job_from_json(py, &job)
    }

    /// Every log-push job of the zone or account, each an `escpush.Job` (a dict).
    fn jobs<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let jobs = py
            .detach(|| self.client.jobs(&self.scope))
            .map_err(|e| errors::http_error(py, &e))?;
        let items = jobs
            .iter()
            .map(|j| job_from_json(py, j))
            .collect::<PyResult<Vec<_>>>()?;
        PyList::new(py, items)
    }

    /// One log-push job, by its id, as an `escpush.Job` (a dict).
    fn job(&self, py: Python<'_>, job_id: i64) -> PyResult<Py<PyAny>> {
        let job_id = u64::try_from(int_in_range(py, "job id", job_id, 1, i64::MAX)?).unwrap_or_default();
        let job = py
            .detach(|| self.client.job(&self.scope, job_id))
            .map_err(|e| errors::http_error(py, &e))?;
        job_from_json(py, &job)
    }

    fn __repr__(&self) -> String {
        format!("Logpush({}={})", self.scope.kind(), quote(self.scope.id()))
    }
}

/// A job record fit to print: core's `redact_job` applied to a copy of `job` (a dict).
/// Values that are not JSON are treated as opaque: masked where core masks the field, kept
/// as they are elsewhere; values core leaves alone stay the same objects.
#[pyfunction]
pub fn _redact_job<'py>(py: Python<'py>, job: &Bound<'py, PyDict>) -> PyResult<Bound<'py, PyDict>> {
    let out = job.copy()?;
    let mut given = serde_json::Map::new();
    for (key, value) in job.iter() {
        let Ok(key) = key.extract::<String>() else { continue };
        // Not JSON: a stand-in that is neither null nor text, so that core masks it where it
        // masks any value.
        let json = convert::to_json(&value, &key).map_or(serde_json::Value::Array(Vec::new()), Into::into);
        given.insert(key, json);
    }
    let mut redacted = given.clone();
    escpush_core::redact_job(&mut redacted);
    for (key, value) in &redacted {
        if given.get(key) != Some(value) {
            out.set_item(key, convert::from_json(py, value)?)?;
        }
    }
    Ok(out)
}

/// A `destination_conf` fit to print: every parameter value but harmless ones (`region`, ...)
/// masked, and a `user:password@` and a Sumo Logic collector code too; `***` for text that
/// is not a destination.
#[pyfunction]
pub fn redact_destination_conf(text: &str) -> String {
    escpush_core::DestinationConf::redact(text)
}
