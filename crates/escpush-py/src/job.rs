//! A log-push job between Python and core: the fields a job is given from Python
//! (`create_job`, `update_job`, `ensure_job`, `apply`), a stored job as an `escpush.Job`, its
//! filter, its redaction for printing, and core's job field table as Python reads it.

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString};

use crate::convert;
use crate::convert::Text;
use crate::errors;
use crate::filter::PyFilter;
use crate::logpull_options::options_field;

/// A stored job as an `escpush.Job`: a dict whose items hold no credential (`Job.reveal()`
/// gives them).
pub(crate) fn job_from_json(py: Python<'_>, job: &serde_json::Value) -> PyResult<Py<PyAny>> {
    let dict = convert::from_json(py, job)?;
    crate::registry::job(py, dict)
}

/// A filter given for a job field: a `Filter` as its canonical JSON; text or a dict as
/// given, for core to parse and report with the other problems, each with its path.
pub(crate) fn filter_field(py: Python<'_>, f: &Bound<'_, PyAny>) -> PyResult<serde_json::Value> {
    if let Ok(filter) = f.cast::<PyFilter>() {
        return Ok(filter.get().filter().to_json().into());
    }
    convert::filter_json(f, "filter")
        .map(Into::into)
        .map_err(|p| errors::filter_error(py, &escpush_filter::FilterError::new(vec![p])))
}

/// Job fields given as keywords, as JSON: `filter` and `logpull_options` in every form
/// `create_job` takes; `None` is JSON null (clears the field in an update).
pub(crate) fn job_fields(
    py: Python<'_>,
    fields: Option<&Bound<'_, PyDict>>,
) -> PyResult<serde_json::Map<String, serde_json::Value>> {
    let mut out = serde_json::Map::new();
    let Some(fields) = fields else { return Ok(out) };
    for (key, value) in fields.iter() {
        let key: String = key.extract::<Text>()?.0;
        let json = match key.as_str() {
            "filter" if !value.is_none() => filter_field(py, &value)?,
            "logpull_options" if !value.is_none() => options_field(py, &value)?,
            _ => convert::to_json(&value, &key)
                .map_err(|m| errors::invalid_input(py, m))?
                .into(),
        };
        out.insert(key, json);
    }
    Ok(out)
}

/// A job's `filter` as an `escpush.Filter` (its string form, the quoted form or the object
/// form, however the server wrote it), or None when the job has none. Core's `job_filter`.
#[pyfunction]
pub fn _job_filter(py: Python<'_>, job: &Bound<'_, PyDict>) -> PyResult<Option<PyFilter>> {
    let mut map = serde_json::Map::new();
    if let Some(value) = job.get_item("filter")? {
        let json = convert::to_json(&value, "filter").map_err(|m| errors::invalid_input(py, m))?;
        map.insert("filter".into(), json.into());
    }
    escpush_core::job_filter(&map)
        .map(|f| f.map(PyFilter::from))
        .map_err(|e| errors::core_error(py, &e))
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
pub fn redact_destination_conf(text: &Bound<'_, PyString>) -> String {
    // Never raises (it is called on the way to printing an error): text that is not
    // Unicode is not a destination.
    text.to_cow().map_or_else(
        |_| escpush_filter::MASK.to_owned(),
        |t| escpush_core::DestinationConf::redact(&t),
    )
}

/// What Python reads of core's job field table (`JOB_FIELDS`), one dict per field in the
/// order a job is shown: `name`, `type` (`"int"`, `"string"`, `"bool"`, `"object"`),
/// `secret`, `always` (every record holds a value, never null), `nullable` (null is a value: it
/// clears the field), `create`, `update`, `parsed` (read by a type of its own: the dataset, the
/// destination, the options, the filter) and `about`. The rules stay in core.
pub fn job_field_table(py: Python<'_>) -> PyResult<Bound<'_, pyo3::types::PyTuple>> {
    let mut rows = Vec::new();
    for f in escpush_core::JOB_FIELDS {
        let row = PyDict::new(py);
        row.set_item("name", f.name)?;
        row.set_item("type", f.ty.json_type())?;
        row.set_item("secret", f.secret)?;
        row.set_item("always", f.always_in_record())?;
        row.set_item("nullable", f.nullable)?;
        row.set_item("create", f.create)?;
        row.set_item("update", f.update)?;
        row.set_item("parsed", f.ty.has_own_reader())?;
        row.set_item("about", f.about)?;
        rows.push(row);
    }
    pyo3::types::PyTuple::new(py, rows)
}
