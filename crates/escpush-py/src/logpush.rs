//! `escpush.LogpullOptions`: the `logpull_options` of a log-push job.

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyType};

use escpush_core::{LogpullOptions, Timestamps};

use crate::errors;

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
