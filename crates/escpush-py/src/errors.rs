//! The one place where Rust errors become Python exceptions.
//!
//! The exception classes are defined in Python (`escpush/errors.py`), so that they can
//! inherit from both `EscpushError` and `ValueError` and carry rich methods; the package
//! registers them at import (`registry.rs`), and each Rust error variant (escpush-core,
//! escpush-http, escpush-scan) maps to exactly one of them. The test hook `_raise_error(kind)`
//! (built with the `test-hooks` feature, as `make develop` does; not in wheels) raises a
//! sample of every variant, so that the test suite checks the mapping is complete.

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use pyo3::IntoPyObject;

use escpush_core::{ApiMessage, Error as CoreError};
use escpush_filter::{FilterError, Problem};
use escpush_http::Error as HttpError;
use escpush_scan::ScanError;

use crate::registry::ErrorClass as Class;

/// One problem as the dict `FilterError.errors()` returns.
#[derive(IntoPyObject)]
struct ProblemArg {
    path: String,
    code: &'static str,
    message: String,
}

/// One entry of `ApiError.errors`.
#[derive(IntoPyObject)]
struct ApiMessageArg {
    code: i64,
    message: String,
}

fn problem_args(problems: &[Problem]) -> Vec<ProblemArg> {
    problems
        .iter()
        .map(|p| ProblemArg {
            path: p.path.clone(),
            code: p.code.as_str(),
            message: p.message.clone(),
        })
        .collect()
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
    Class::Filter.new_err(py, (err.to_string(), problem_args(err.problems())))
}

pub(crate) fn invalid_input(py: Python<'_>, message: impl Into<String>) -> PyErr {
    Class::InvalidInput.new_err(py, (message.into(),))
}

/// `InvalidInput` with every problem, each with its path (`logpull_options.fields[1]`).
pub(crate) fn invalid_problems(py: Python<'_>, message: String, problems: &[Problem]) -> PyErr {
    Class::InvalidInput.new_err(py, (message, problem_args(problems)))
}

/// Every escpush-core error, mapped to its own Python class; an escpush-filter error as
/// the core error it becomes (`From<escpush_filter::Error>`: the same variant and message).
pub(crate) fn core_error<E: Clone + Into<CoreError>>(py: Python<'_>, err: &E) -> PyErr {
    let err: CoreError = err.clone().into();
    let err = &err;
    match err {
        CoreError::Filter(e) => filter_error(py, e),
        CoreError::Invalid { problems } => invalid_problems(py, err.to_string(), problems),
        CoreError::UnknownDataset { .. } | CoreError::InvalidInput { .. } => invalid_input(py, err.to_string()),
        CoreError::Api { status, errors } => api_error(py, err.to_string(), *status, errors),
        CoreError::MalformedResponse { .. } => Class::Transport.new_err(py, (err.to_string(),)),
        // The enum is non-exhaustive: a variant added later is still an escpush error, and
        // `_raise_error`'s test fails until it gets its own class here.
        _ => Class::Escpush.new_err(py, (err.to_string(),)),
    }
}

/// An API error answer, as the class of its status: `AuthenticationError` (401, 403),
/// `NotFoundError` (404), `RateLimitError` (429), `ServerError` (5xx), else `ApiError`.
fn api_error(py: Python<'_>, message: String, status: u16, errors: &[ApiMessage]) -> PyErr {
    let errors: Vec<ApiMessageArg> = errors
        .iter()
        .map(|e| ApiMessageArg {
            code: e.code,
            message: e.message.clone(),
        })
        .collect();
    let args = (message, status, errors);
    match status {
        401 | 403 => Class::Authentication.new_err(py, args),
        404 => Class::NotFound.new_err(py, args),
        429 => Class::RateLimit.new_err(py, args),
        500..=599 => Class::Server.new_err(py, args),
        _ => Class::Api.new_err(py, args),
    }
}

/// Every escpush-http error, mapped to its own Python class.
pub(crate) fn http_error(py: Python<'_>, err: &HttpError) -> PyErr {
    match err {
        HttpError::Core(e) => core_error(py, e),
        HttpError::RetryLater { error, .. } => match error {
            CoreError::Api { status, errors } => api_error(py, err.to_string(), *status, errors),
            other => core_error(py, other),
        },
        HttpError::OutcomeUnknown { .. }
        | HttpError::ResponseTooLarge { .. }
        | HttpError::Timeout { .. }
        | HttpError::Transport { .. } => Class::Transport.new_err(py, (err.to_string(),)),
        // The class of the write that failed, its message saying what was written before it.
        HttpError::PlanStopped { error, .. } => with_message(py, http_error(py, error), &err.to_string()),
        // The enum is non-exhaustive: a variant added later is still an escpush error, and
        // `_raise_error`'s test fails until it gets its own class here.
        _ => Class::Escpush.new_err(py, (err.to_string(),)),
    }
}

/// `err` with `message` as its text (`args[0]`, which every escpush exception's `str` and
/// pickling read).
fn with_message(py: Python<'_>, err: PyErr, message: &str) -> PyErr {
    let value = err.value(py);
    let mut args: Vec<Py<PyAny>> = value.getattr("args").and_then(|a| a.extract()).unwrap_or_default();
    let text = pyo3::types::PyString::new(py, message).into_any().unbind();
    if args.is_empty() {
        args.push(text);
    } else {
        args[0] = text;
    }
    // Setting `args` cannot fail on an exception; if it did, the error keeps its own text.
    let _ = pyo3::types::PyTuple::new(py, args).and_then(|t| value.setattr("args", t));
    err
}

/// Every escpush-scan error, mapped to `ScanError` with the input (or output) it is about.
/// `output` names the file `select` writes, for write errors.
pub(crate) fn scan_error(py: Python<'_>, err: &ScanError, output: Option<&str>) -> PyErr {
    let none = || None::<u64>;
    match err {
        ScanError::Open { source_name, .. }
        | ScanError::Read { source_name, .. }
        | ScanError::Gzip { source_name, .. } => {
            Class::Scan.new_err(py, (err.to_string(), source_name.clone(), none()))
        }
        ScanError::Malformed { source_name, line, .. } | ScanError::Transform { source_name, line, .. } => {
            Class::Scan.new_err(py, (err.to_string(), source_name.clone(), Some(*line)))
        }
        ScanError::Write { error } => match output {
            Some(path) => Class::Scan.new_err(py, (format!("cannot write `{path}`: {error}"), path.to_owned(), none())),
            None => Class::Scan.new_err(py, (err.to_string(), None::<String>, none())),
        },
        // Which inputs to read could not be settled (a glob without match, a time range, a
        // store that cannot be listed): the scan's error, naming what it is about.
        ScanError::Select { what, .. } => Class::Scan.new_err(py, (err.to_string(), what.clone(), none())),
        // A mistake in the arguments (the output is one of the inputs), not a failure to read.
        ScanError::OutputIsInput { .. } => Class::InvalidInput.new_err(py, (err.to_string(),)),
        ScanError::Cancelled | ScanError::Thread { .. } => {
            Class::Scan.new_err(py, (err.to_string(), None::<String>, none()))
        }
        // The enum is non-exhaustive: a variant added later is still a scan error.
        _ => Class::Scan.new_err(py, (err.to_string(), None::<String>, none())),
    }
}

// -- the completeness check ------------------------------------------------------------

/// The test hooks, built with the `test-hooks` feature only (`make develop`; not in wheels).
#[cfg(feature = "test-hooks")]
pub(crate) mod hooks {
    use pyo3::prelude::*;

    use escpush_core::{ApiMessage, Error as CoreError};
    use escpush_http::Error as HttpError;
    use escpush_scan::ScanError;

    use super::{core_error, http_error, scan_error};

    /// Sets `_error_kinds` and `_raise_error` on the module, left out of its `__all__` (and
    /// of the stub, which describes the module wheels ship).
    pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
        m.setattr("_error_kinds", wrap_pyfunction!(_error_kinds, m)?)?;
        m.setattr("_raise_error", wrap_pyfunction!(_raise_error, m)?)
    }

    /// Every error kind `_raise_error` takes: `core.<Variant>`, `http.<Variant>`, `scan.<Variant>`.
    /// The names come from each crate's own `VARIANT_NAMES`, which its tests keep complete (its
    /// `variant_name` matches without a wildcard).
    #[pyfunction]
    pub fn _error_kinds() -> Vec<String> {
        let names = |crate_name: &str, variants: &[&str]| -> Vec<String> {
            variants.iter().map(|v| format!("{crate_name}.{v}")).collect()
        };
        [
            names("core", CoreError::VARIANT_NAMES),
            names("http", HttpError::VARIANT_NAMES),
            names("scan", ScanError::VARIANT_NAMES),
        ]
        .concat()
    }

    fn sample_core(variant: &str) -> Option<CoreError> {
        let api = || CoreError::Api {
            status: 429,
            errors: vec![ApiMessage::new(10_429, "slow down")],
        };
        Some(match variant {
            "Filter" => CoreError::Filter(escpush_filter::Filter::parse("{}").err()?),
            "UnknownDataset" => escpush_filter::Dataset::get("no_such_dataset", None).err()?.into(),
            "Invalid" => escpush_core::LogpullOptions::parse("fields=&timestamps=bogus").err()?,
            "InvalidInput" => escpush_core::Scope::zone("").err()?,
            "Api" => api(),
            "MalformedResponse" => CoreError::MalformedResponse {
                status: Some(200),
                message: "not JSON".into(),
            },
            _ => return None,
        })
    }

    fn sample_http(variant: &str) -> Option<HttpError> {
        use std::time::{Duration, SystemTime};
        let transport = || HttpError::Transport {
            message: "connection reset".into(),
        };
        Some(match variant {
            "Core" => HttpError::Core(sample_core("InvalidInput")?),
            "RetryLater" => HttpError::RetryLater {
                error: sample_core("Api")?,
                retry_after: Duration::from_secs(60),
                at: SystemTime::now(),
                reason: String::new(),
            },
            "OutcomeUnknown" => HttpError::OutcomeUnknown {
                cause: Box::new(transport()),
                check: "list the jobs".into(),
            },
            "ResponseTooLarge" => HttpError::ResponseTooLarge { limit: 1 },
            "Timeout" => HttpError::Timeout { message: "late".into() },
            "Transport" => transport(),
            "PlanStopped" => HttpError::PlanStopped {
                error: Box::new(HttpError::Core(sample_core("Api")?)),
                failed: 1,
                done: vec![true, false],
                ids: vec![Some(7), None],
                progress: "stopped at creating `b`; before it, apply created `a` (job 7)".into(),
            },
            _ => return None,
        })
    }

    fn sample_scan(variant: &str) -> Option<ScanError> {
        let io = || std::io::Error::other("sample");
        let source_name = || "in.ndjson".to_owned();
        Some(match variant {
            "Open" => ScanError::Open {
                source_name: source_name(),
                error: io(),
            },
            "Read" => ScanError::Read {
                source_name: source_name(),
                error: io(),
            },
            "Gzip" => ScanError::Gzip {
                source_name: source_name(),
                error: io(),
            },
            "Malformed" => ScanError::Malformed {
                source_name: source_name(),
                line: 3,
                reason: escpush_scan::MalformedReason::TooLong(16 << 20),
            },
            "Transform" => ScanError::Transform {
                source_name: source_name(),
                line: 3,
                message: "division by zero".into(),
            },
            "OutputIsInput" => ScanError::OutputIsInput {
                output: "out.ndjson".into(),
                input: source_name(),
            },
            "Write" => ScanError::Write { error: io() },
            "Select" => ScanError::Select {
                what: "logs/2026*/".into(),
                message: "no file matches".into(),
            },
            "Cancelled" => ScanError::Cancelled,
            "Thread" => ScanError::Thread { error: io() },
            _ => return None,
        })
    }

    /// Raises a sample error of `kind` (one of `_error_kinds()`) through the mapping above; a
    /// `ValueError` for a kind without a sample. For the test suite only.
    #[pyfunction]
    pub fn _raise_error(py: Python<'_>, kind: &str) -> PyResult<()> {
        let missing = || pyo3::exceptions::PyValueError::new_err(format!("no sample error for `{kind}`"));
        let err = match kind.split_once('.') {
            Some(("core", v)) => core_error(py, &sample_core(v).ok_or_else(missing)?),
            Some(("http", v)) => http_error(py, &sample_http(v).ok_or_else(missing)?),
            Some(("scan", v)) => scan_error(py, &sample_scan(v).ok_or_else(missing)?, None),
            _ => return Err(missing()),
        };
        Err(err)
    }
}
