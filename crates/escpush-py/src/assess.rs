//! `escpush.EscAssessment` (what `zone.esc.assess(...)` gives), the assessment's run from
//! Python with Ctrl-C and a progress callback checked during every wait, and
//! `escpush.esc_replacements()`.

use pyo3::prelude::*;
use pyo3::types::{PyList, PyString};

use escpush_core::{esc_replacements as core_replacements, AssessPlan, AssessReport, Scope};
use escpush_http::Client;

use crate::convert;
use crate::errors;
use crate::signals::Termination;

/// The outcome of an ESC impact assessment: the stages, what ESC does to each URL, and
/// where each scope was left. `str()` is the text summary; `to_dict()` the JSON form of
/// `escpush esc assess --json`.
#[pyclass(name = "EscAssessment", module = "escpush", frozen)]
#[derive(Debug)]
pub struct PyEscAssessment {
    report: AssessReport,
    json: serde_json::Value,
}

impl PyEscAssessment {
    fn member(&self, py: Python<'_>, key: &str) -> PyResult<Py<PyAny>> {
        convert::from_json(py, &self.json[key])
    }
}

#[pymethods]
impl PyEscAssessment {
    /// Every stage that ran passed, nothing stopped the assessment and every scope is
    /// where it should be (as found, or kept disabled when asked).
    #[getter]
    fn ok(&self) -> bool {
        self.report.ok()
    }

    /// Every scope is as it was found (or kept disabled as asked); False means NOT
    /// RESTORED: `not_restored` holds the command that restores each scope.
    #[getter]
    fn restored(&self) -> bool {
        self.report.restored()
    }

    /// `[{"name": "request"|"zone"|"account", "outcome": "passed"|"failed"|"rolled_back"|"skipped",
    /// "problem", "urls": [...]}]`.
    #[getter]
    fn stages(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        self.member(py, "stages")
    }

    /// What ESC does: `[{"url", "what", "name", "with_esc", "without_esc", "replacement"}]`.
    #[getter]
    fn differences(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        self.member(py, "differences")
    }

    /// The API error or the interruption that stopped the assessment, or None.
    #[getter]
    fn error(&self) -> Option<&str> {
        self.report.error.as_deref()
    }

    /// `[{"scope", "id", "action", "error", "command"}]`: what could not be put back.
    #[getter]
    fn not_restored(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        self.member(py, "not_restored")
    }

    /// The JSON form: `{"ok", "restored", "initial", "final", "stages", "differences",
    /// "error", "not_restored", "kept_disabled", "secret_left", "notes"}`.
    fn to_dict(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        convert::from_json(py, &self.json)
    }

    /// The text summary (as `escpush esc assess` prints it).
    fn summary(&self) -> String {
        self.report.to_text()
    }

    fn __str__(&self) -> String {
        self.report.to_text()
    }

    fn __repr__(&self) -> String {
        let outcomes: Vec<&str> = self.report.stages.iter().map(|s| s.outcome.as_str()).collect();
        format!(
            "EscAssessment(ok={}, restored={}, stages='{}', differences={})",
            py_bool(self.report.ok()),
            py_bool(self.report.restored()),
            outcomes.join("/"),
            self.report.differences.len()
        )
    }
}

fn py_bool(b: bool) -> &'static str {
    if b {
        "True"
    } else {
        "False"
    }
}

/// The arguments of `esc.assess`, converted.
#[derive(Debug)]
pub(crate) struct AssessArgs {
    pub urls: Vec<String>,
    pub account: Option<String>,
    pub keep_disabled: bool,
    pub settle: f64,
    pub timeout: f64,
    pub expect_status: Option<Vec<i64>>,
    pub ignore_headers: Option<Vec<String>>,
}

/// `expect_status`: an int or an iterable of ints.
pub(crate) fn statuses(value: Option<&Bound<'_, PyAny>>) -> PyResult<Option<Vec<i64>>> {
    let Some(value) = value.filter(|v| !v.is_none()) else {
        return Ok(None);
    };
    // An int of any size is one status: one beyond 64 bits saturates, for the core's range
    // check to name (it was iterated: "'int' object is not iterable").
    let status = |item: &Bound<'_, PyAny>| {
        item.extract::<crate::convert::Int>()
            .map(crate::convert::Int::saturating)
    };
    if value.is_instance_of::<pyo3::types::PyInt>() {
        return Ok(Some(vec![status(value)?]));
    }
    value
        .try_iter()?
        .map(|item| status(&item?))
        .collect::<PyResult<_>>()
        .map(Some)
}

/// A list of strings from any iterable that is not itself a string.
pub(crate) fn strings(py: Python<'_>, what: &str, value: &Bound<'_, PyAny>) -> PyResult<Vec<String>> {
    if value.is_instance_of::<PyString>() {
        return Err(errors::invalid_input(
            py,
            format!("invalid {what}: give a list of strings, not one string"),
        ));
    }
    value
        .try_iter()?
        .map(|item| item?.extract::<crate::convert::Text>().map(|t| t.0))
        .collect()
}

/// Runs the assessment of `zone` from Python: the network waits without the GIL; Ctrl-C
/// (`check_signals`) and `progress` are checked before each step and every 50 ms of a
/// wait. An exception from either interrupts the assessment, which restores the scopes it
/// changed and then raises that exception with the result as its `assessment` attribute.
/// SIGTERM and SIGHUP take the same way (`escpush.Terminated`) while it runs: see
/// `signals.rs` for where their handlers are installed and where not.
pub(crate) fn run(
    py: Python<'_>,
    client: &Client,
    zone: &Scope,
    args: AssessArgs,
    progress: Option<&Bound<'_, PyAny>>,
) -> PyResult<PyEscAssessment> {
    let core_err = |e: escpush_core::Error| errors::core_error(py, &e);
    let mut b = AssessPlan::builder(zone.clone())
        .urls(args.urls)
        .keep_disabled(args.keep_disabled)
        .settle_secs(args.settle)
        .timeout_secs(args.timeout);
    if let Some(account) = args.account {
        b = b.account(Scope::account(account).map_err(core_err)?);
    }
    if let Some(list) = args.expect_status {
        b = b.expect_status(list);
    }
    if let Some(names) = args.ignore_headers {
        b = b.ignore_headers(names);
    }
    let plan = b.build().map_err(core_err)?;
    let progress: Option<Py<PyAny>> = progress.filter(|p| !p.is_none()).map(|p| p.clone().unbind());
    let mut raised: Option<PyErr> = None;
    let termination = Termination::catch(py)?;
    let report = crate::logging::detach(py, || {
        client.assess(plan, None, &mut |step| {
            Python::attach(|py| {
                if raised.is_none() {
                    let called = match (step, &progress) {
                        (Some(step), Some(cb)) => cb.call1(py, (step.describe(),)).map(drop),
                        _ => Ok(()),
                    };
                    if let Err(e) = called.and_then(|()| py.check_signals()) {
                        raised = Some(e);
                    }
                }
                match &raised {
                    // Once interrupted, every later step is asked to stop too (the driver
                    // does not stop a restore).
                    Some(e) => Err(reason(py, e)),
                    None => Ok(()),
                }
            })
        })
    });
    // A signal that came after the last check raises now, the scopes already put back.
    if let Some(late) = termination.release(py) {
        raised = Some(match raised {
            Some(err) => crate::signals::with_late(py, Some(late), err),
            None => late,
        });
    }
    let report = match report {
        Ok(report) => report,
        Err(e) => return Err(raised.unwrap_or_else(|| errors::http_error(py, &e))),
    };
    let json = report.to_json();
    let result = PyEscAssessment { report, json };
    if let Some(err) = raised {
        let value = err.value(py);
        let shown = Py::new(py, result)?;
        value.setattr("assessment", shown)?;
        return Err(err);
    }
    Ok(result)
}

/// Why the assessment stopped, as its report says it (`interrupted: ...`): the exception's
/// type (`KeyboardInterrupt`), or the signal's name (`SIGTERM`) for `escpush.Terminated`.
fn reason(py: Python<'_>, e: &PyErr) -> String {
    if crate::signals::is_terminated(py, e) {
        if let Ok(name) = e.value(py).str() {
            return name.to_string();
        }
    }
    e.get_type(py)
        .name()
        .map_or_else(|_| "an exception".to_owned(), |n| n.to_string())
}

/// The spec's guide of ESC use cases and their replacements: `[{"use_case",
/// "replacement", "note"}]`, in the spec's order.
#[pyfunction]
pub fn esc_replacements(py: Python<'_>) -> PyResult<Bound<'_, PyList>> {
    let rows: Vec<Py<PyAny>> = core_replacements()
        .iter()
        .map(|r| convert::from_json(py, &r.to_json()))
        .collect::<PyResult<_>>()?;
    PyList::new(py, rows)
}
