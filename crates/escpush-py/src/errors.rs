//! The one place where Rust errors become Python exceptions.
//!
//! The exception classes are defined in Python (`escpush/errors.py`) so that they can
//! inherit from both `EscpushError` and `ValueError` and carry rich methods; each Rust
//! error variant maps to exactly one of them here.

use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

use escpush_core::{Error as CoreError, FilterError, Problem};
use escpush_scan::ScanError;

/// Builds an exception of the class `name` from `escpush.errors`, called with `args`.
pub(crate) fn raise<'py, A>(py: Python<'py>, name: &str, args: A) -> PyErr
where
    A: pyo3::call::PyCallArgs<'py>,
{
    let made = py
        .import("escpush.errors")
        .and_then(|module| module.getattr(name))
        .and_then(|class| class.call1(args));
    match made {
        Ok(exception) => PyErr::from_value(exception),
        Err(err) => PyRuntimeError::new_err(format!("escpush could not raise {name}: {err}")),
    }
}

/// One problem as the dict `FilterError.errors()` returns.
pub(crate) fn problem_dict<'py>(py: Python<'py>, problem: &Problem) -> PyResult<Bound<'py, PyDict>> {
    let dict = PyDict::new(py);
    dict.set_item("path", &problem.path)?;
    dict.set_item("code", problem.code.as_str())?;
    dict.set_item("message", &problem.message)?;
    Ok(dict)
}

pub(crate) fn problem_list<'py>(py: Python<'py>, problems: &[Problem]) -> PyResult<Bound<'py, PyList>> {
    let dicts = problems
        .iter()
        .map(|p| problem_dict(py, p))
        .collect::<PyResult<Vec<_>>>()?;
    PyList::new(py, dicts)
}

pub(crate) fn filter_error(py: Python<'_>, err: &FilterError) -> PyErr {
    match problem_list(py, err.problems()) {
        Ok(list) => raise(py, "FilterError", (err.to_string(), list)),
        Err(e) => e,
    }
}

pub(crate) fn invalid_input(py: Python<'_>, message: impl Into<String>) -> PyErr {
    raise(py, "InvalidInput", (message.into(),))
}

/// `InvalidInput` with every problem, each with its path (`logpull_options.fields[1]`).
pub(crate) fn invalid_problems(py: Python<'_>, message: String, problems: &[Problem]) -> PyErr {
    match problem_list(py, problems) {
        Ok(list) => raise(py, "InvalidInput", (message, list)),
        Err(e) => e,
    }
}

/// Every escpush-core error, mapped to its own Python class.
pub(crate) fn core_error(py: Python<'_>, err: &CoreError) -> PyErr {
    match err {
        CoreError::Filter(e) => filter_error(py, e),
        CoreError::Invalid { problems } => invalid_problems(py, err.to_string(), problems),
        CoreError::UnknownDataset { .. } | CoreError::InvalidInput { .. } => invalid_input(py, err.to_string()),
        CoreError::Api { status, errors } => api_error(py, err.to_string(), *status, errors),
        CoreError::MalformedResponse { .. } => raise(py, "TransportError", (err.to_string(),)),
        // The enum is non-exhaustive: a variant added later is still an escpush error.
        _ => raise(py, "EscpushError", (err.to_string(),)),
    }
}

/// The envelope's errors as the list of dicts `ApiError.errors` holds.
fn api_error_list<'py>(py: Python<'py>, errors: &[escpush_core::ApiMessage]) -> PyResult<Bound<'py, PyList>> {
    let dicts = errors
        .iter()
        .map(|e| {
            let dict = PyDict::new(py);
            dict.set_item("code", e.code)?;
            dict.set_item("message", &e.message)?;
            Ok(dict)
        })
        .collect::<PyResult<Vec<_>>>()?;
    PyList::new(py, dicts)
}

/// An API error answer, as the class of its status: `AuthenticationError` (401, 403),
/// `NotFoundError` (404), `RateLimitError` (429), `ServerError` (5xx), else `ApiError`.
pub(crate) fn api_error(py: Python<'_>, message: String, status: u16, errors: &[escpush_core::ApiMessage]) -> PyErr {
    let class = match status {
        401 | 403 => "AuthenticationError",
        404 => "NotFoundError",
        429 => "RateLimitError",
        500..=599 => "ServerError",
        _ => "ApiError",
    };
    match api_error_list(py, errors) {
        Ok(list) => raise(py, class, (message, status, list)),
        Err(e) => e,
    }
}

/// Every escpush-http error, mapped to its own Python class.
pub(crate) fn http_error(py: Python<'_>, err: &escpush_http::Error) -> PyErr {
    use escpush_http::Error as HttpError;
    match err {
        HttpError::Core(e) => core_error(py, e),
        HttpError::Api { status, errors } => api_error(py, err.to_string(), *status, errors),
        HttpError::MalformedResponse { .. }
        | HttpError::ResponseTooLarge { .. }
        | HttpError::Timeout { .. }
        | HttpError::Transport { .. } => raise(py, "TransportError", (err.to_string(),)),
        // The enum is non-exhaustive: a variant added later is still an escpush error.
        _ => raise(py, "EscpushError", (err.to_string(),)),
    }
}

/// Every escpush-scan error, mapped to `ScanError` with the input (or output) it is about.
/// `output` names the file `select` writes, for write errors.
pub(crate) fn scan_error(py: Python<'_>, err: &ScanError, output: Option<&str>) -> PyErr {
    let none = || None::<u64>;
    match err {
        ScanError::Open { source_name, .. }
        | ScanError::Read { source_name, .. }
        | ScanError::Gzip { source_name, .. } => raise(py, "ScanError", (err.to_string(), source_name, none())),
        ScanError::Malformed { source_name, line, .. } => {
            raise(py, "ScanError", (err.to_string(), source_name, Some(*line)))
        }
        ScanError::Write { error } => match output {
            Some(path) => raise(
                py,
                "ScanError",
                (format!("cannot write `{path}`: {error}"), path, none()),
            ),
            None => raise(py, "ScanError", (err.to_string(), None::<&str>, none())),
        },
        ScanError::Cancelled | ScanError::Thread { .. } => {
            raise(py, "ScanError", (err.to_string(), None::<&str>, none()))
        }
        // The enum is non-exhaustive: a variant added later is still a scan error.
        _ => raise(py, "ScanError", (err.to_string(), None::<&str>, none())),
    }
}
