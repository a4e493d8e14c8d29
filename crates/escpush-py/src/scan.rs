//! `Filter.scan`, `Filter.select` and `escpush.ScanResult`: a filter run over NDJSON log
//! files by escpush-scan, with the GIL released.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::Duration;

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyList, PyString, PyTuple};

use escpush_core::Filter;
use escpush_scan::{Input, Malformed, ScanError, ScanResult, Scanner};

use crate::errors;

/// What a scan found: lines read (blank lines not counted), lines that match, malformed
/// lines, bytes of NDJSON read (after decompression) and seconds taken.
#[pyclass(name = "ScanResult", module = "escpush", frozen, eq)]
#[derive(Clone, Debug, PartialEq)]
pub struct PyScanResult {
    /// Lines read, blank lines not counted (malformed lines are).
    #[pyo3(get)]
    total: u64,
    /// Lines that pass the filter.
    #[pyo3(get)]
    matched: u64,
    /// Lines that are not one JSON object.
    #[pyo3(get)]
    malformed: u64,
    /// Bytes of NDJSON read (after decompression).
    #[pyo3(get)]
    bytes: u64,
    /// Wall time of the scan, in seconds.
    #[pyo3(get)]
    seconds: f64,
    /// The first malformed line as (input, 1-based line number, what is wrong), or None.
    #[pyo3(get)]
    first_malformed: Option<(String, u64, String)>,
}

impl PyScanResult {
    fn from_result(r: &ScanResult) -> Self {
        PyScanResult {
            total: r.total,
            matched: r.matched,
            malformed: r.malformed,
            bytes: r.bytes,
            seconds: r.seconds,
            first_malformed: r
                .first_malformed
                .as_ref()
                .map(|m: &Malformed| (m.source_name.clone(), m.line, m.reason.to_string())),
        }
    }
}

#[pymethods]
impl PyScanResult {
    #[new]
    #[pyo3(signature = (total, matched, malformed=0, bytes=0, seconds=0.0, first_malformed=None))]
    fn py_new(
        total: u64,
        matched: u64,
        malformed: u64,
        bytes: u64,
        seconds: f64,
        first_malformed: Option<(String, u64, String)>,
    ) -> Self {
        PyScanResult {
            total,
            matched,
            malformed,
            bytes,
            seconds,
            first_malformed,
        }
    }

    /// In Jupyter: the counts with their shares, the first malformed line, the throughput.
    fn _repr_html_(slf: &Bound<'_, Self>) -> PyResult<String> {
        crate::display::html(slf.py(), "scan_result_html", (slf,))
    }

    fn __repr__(&self, py: Python<'_>) -> String {
        let mut out = format!(
            "ScanResult(total={}, matched={}, malformed={}, bytes={}, seconds={:.3}",
            self.total, self.matched, self.malformed, self.bytes, self.seconds
        );
        if let Some((source, line, reason)) = &self.first_malformed {
            let repr = |s: &str| {
                PyString::new(py, s)
                    .repr()
                    .map_or_else(|_| format!("{s:?}"), |r| r.to_string())
            };
            let _ = write!(out, ", first_malformed=({}, {line}, {})", repr(source), repr(reason));
        }
        out.push(')');
        out
    }
}

/// The inputs of a scan: one path or a list (tuple) of them; `"-"` is stdin.
fn inputs(paths: &Bound<'_, PyAny>) -> PyResult<Vec<Input>> {
    let one = |obj: &Bound<'_, PyAny>| -> PyResult<Input> {
        if let Ok(s) = obj.cast::<PyString>() {
            return Ok(Input::from_arg(&s.to_cow()?));
        }
        let path: PathBuf = obj.extract().map_err(|_| {
            PyTypeError::new_err(format!(
                "a log input is a path (str or os.PathLike) or \"-\" for stdin, not {}",
                obj.get_type().name().map_or_else(|_| "?".to_owned(), |n| n.to_string())
            ))
        })?;
        Ok(Input::Path(path))
    };
    if paths.is_instance_of::<PyList>() || paths.is_instance_of::<PyTuple>() {
        paths.try_iter()?.map(|item| one(&item?)).collect()
    } else {
        Ok(vec![one(paths)?])
    }
}

/// Progress reports go back to Python about every this often: to check for Ctrl-C and to
/// call the caller's callback.
const REPORT_EVERY: Duration = Duration::from_millis(100);

/// Runs `run` on a scanner with the GIL released. Every `REPORT_EVERY` the scan re-attaches
/// to check for signals (so Ctrl-C stops it) and to call `progress(bytes, lines)`; a Python
/// exception from either cancels the scan and is raised.
fn run_detached<F>(
    py: Python<'_>,
    filter: &Filter,
    strict: bool,
    threads: Option<usize>,
    progress: Option<Py<PyAny>>,
    output: Option<&str>,
    run: F,
) -> PyResult<PyScanResult>
where
    F: for<'s> FnOnce(&mut Scanner<'s>) -> Result<ScanResult, ScanError> + Send,
{
    let mut raised: Option<PyErr> = None;
    let result = {
        let raised = &mut raised;
        let mut scanner = Scanner::new(filter)
            .strict(strict)
            .threads(threads.unwrap_or(0))
            .progress(REPORT_EVERY, move |p| {
                Python::attach(|py| {
                    let outcome = py.check_signals().and_then(|()| match &progress {
                        Some(callback) => callback.call1(py, (p.bytes, p.lines)).map(drop),
                        None => Ok(()),
                    });
                    match outcome {
                        Ok(()) => true,
                        Err(err) => {
                            raised.get_or_insert(err);
                            false
                        }
                    }
                })
            });
        py.detach(move || run(&mut scanner))
    };
    match result {
        Ok(r) => Ok(PyScanResult::from_result(&r)),
        Err(ScanError::Cancelled) if raised.is_some() => Err(raised.take().expect("checked")),
        Err(err) => Err(errors::scan_error(py, &err, output)),
    }
}

/// `Filter.scan(paths, *, strict=False, threads=None, progress=None)`.
pub(crate) fn scan(
    py: Python<'_>,
    filter: &Filter,
    paths: &Bound<'_, PyAny>,
    strict: bool,
    threads: Option<usize>,
    progress: Option<Py<PyAny>>,
) -> PyResult<PyScanResult> {
    let inputs = inputs(paths)?;
    run_detached(py, filter, strict, threads, progress, None, move |scanner| {
        scanner.scan(inputs)
    })
}

/// `Filter.select(src, dst, *, strict=False, threads=None, progress=None)`: escpush-scan's
/// `select_to_file`, which refuses an output that is an input and replaces `dst` only when the
/// scan succeeds.
pub(crate) fn select(
    py: Python<'_>,
    filter: &Filter,
    src: &Bound<'_, PyAny>,
    dst: &Path,
    strict: bool,
    threads: Option<usize>,
    progress: Option<Py<PyAny>>,
) -> PyResult<PyScanResult> {
    let inputs = inputs(src)?;
    let output = dst.display().to_string();
    run_detached(py, filter, strict, threads, progress, Some(&output), move |scanner| {
        scanner.select_to_file(inputs, dst)
    })
}
