//! `escpush.LogpullOptions`: the `logpull_options` of a log-push job, and the forms a job's
//! `logpull_options` are given in from Python.

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString, PyType};

use escpush_core::{LogpullOptions, Timestamps};

use crate::convert;
use crate::convert::Text;
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
        fields: Vec<Text>,
        timestamps: Option<Text>,
        flags: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Self> {
        let mut inner = LogpullOptions::new(fields.into_iter().map(|f| f.0));
        if let Some(t) = timestamps {
            let t: Timestamps = t
                .parse()
                .map_err(|message: String| errors::invalid_input(py, format!("invalid timestamps: {message}")))?;
            inner = inner.timestamps(t);
        }
        if let Some(flags) = flags {
            for (name, on) in flags.iter() {
                inner = inner.flag(name.extract::<Text>()?.0, on.extract::<bool>()?);
            }
        }
        // The same checks as the text form: print, then parse.
        let checked = LogpullOptions::parse(&inner.to_query()).map_err(|e| errors::core_error(py, &e))?;
        Ok(PyLogpullOptions { inner: checked })
    }

    /// Parses the query-string form, `fields=ClientIP,EdgeResponseStatus&timestamps=rfc3339`.
    #[classmethod]
    fn parse(_cls: &Bound<'_, PyType>, py: Python<'_>, text: Text) -> PyResult<Self> {
        let text = &*text;
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
        self.inner.unknown_options()
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

/// `logpull_options` given as an argument: `LogpullOptions`, or its query string parsed.
pub(crate) fn logpull_options_arg(py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<LogpullOptions> {
    if let Ok(opts) = o.cast::<PyLogpullOptions>() {
        return Ok(opts.get().inner.clone());
    }
    let text = options_field(py, o)?;
    LogpullOptions::parse(text.as_str().unwrap_or_default()).map_err(|e| errors::core_error(py, &e))
}

/// `logpull_options` given for a job field: `LogpullOptions` or its query string.
pub(crate) fn options_field(py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<serde_json::Value> {
    if let Ok(opts) = o.cast::<PyLogpullOptions>() {
        return Ok(opts.get().inner.to_query().into());
    }
    if let Ok(text) = o.cast::<PyString>() {
        return Ok(convert::utf8(text, "logpull_options")?.into());
    }
    Err(errors::invalid_input(
        py,
        "invalid logpull_options: give an escpush.LogpullOptions or its query string",
    ))
}
