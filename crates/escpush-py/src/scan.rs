//! `Filter.scan` and `Filter.select`: a filter run over NDJSON log files by escpush-scan,
//! with the GIL released; their arguments read. What a scan gives back, `escpush.ScanResult`,
//! is `scan_result.rs`.

use std::path::{Path, PathBuf};
use std::time::Duration;

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyList, PyString, PyTuple};

use escpush_core::transformer::LineTransformer;
use escpush_filter::{Dataset, Filter};
use escpush_scan::{parse_every, parse_time, Breakdown, Input, ScanError, ScanResult, Scanner, Selection};

use crate::errors;
pub(crate) use crate::scan_result::PyScanResult;

/// One argument naming inputs: a string (a path, a folder, a glob, a URL, or `"-"`) or a
/// path object (a path or folder).
#[derive(Clone, Debug)]
pub(crate) enum Arg {
    Text(String),
    Path(PathBuf),
}

/// The arguments of a scan: one path or a list (tuple) of them.
pub(crate) fn args(paths: &Bound<'_, PyAny>) -> PyResult<Vec<Arg>> {
    let one = |obj: &Bound<'_, PyAny>| -> PyResult<Arg> {
        if let Ok(s) = obj.cast::<PyString>() {
            return match s.to_cow() {
                Ok(text) => Ok(Arg::Text(text.into_owned())),
                // A file name that is not UTF-8, as os.listdir gives it (bytes kept as
                // surrogates by surrogateescape), is a path of those bytes; any other lone
                // surrogate names no file.
                Err(err) => obj.extract::<PathBuf>().map(Arg::Path).map_err(|_| {
                    crate::errors::invalid_input(
                        obj.py(),
                        format!("a log input {}", crate::convert::lone_surrogate(&err, s)),
                    )
                }),
            };
        }
        let path: PathBuf = obj.extract().map_err(|_| {
            PyTypeError::new_err(format!(
                "a log input is a path, folder or glob (str or os.PathLike), an object storage URL, or \"-\" \
                 for stdin, not {}",
                obj.get_type().name().map_or_else(|_| "?".to_owned(), |n| n.to_string())
            ))
        })?;
        Ok(Arg::Path(path))
    };
    if paths.is_instance_of::<PyList>() || paths.is_instance_of::<PyTuple>() {
        paths.try_iter()?.map(|item| one(&item?)).collect()
    } else {
        Ok(vec![one(paths)?])
    }
}

/// The inputs the arguments stand for (listing folders and object storage, without the GIL).
pub(crate) fn expand(py: Python<'_>, args: Vec<Arg>, selection: &Selection) -> PyResult<Vec<Input>> {
    let expanded = py.detach(|| {
        let mut inputs = Vec::new();
        for arg in args {
            match arg {
                Arg::Text(text) => inputs.extend(selection.expand([text])?),
                Arg::Path(path) => selection.expand_path(&path, &mut inputs)?,
            }
        }
        Ok::<_, ScanError>(inputs)
    });
    expanded.map_err(|err| errors::scan_error(py, &err, None))
}

/// A time for `since`/`until`: a datetime (naive means UTC), a date (its midnight, UTC), an
/// ISO-8601 string, or unix seconds; as unix seconds.
fn time_arg(py: Python<'_>, name: &str, value: Option<&Bound<'_, PyAny>>) -> PyResult<Option<i64>> {
    let Some(value) = value.filter(|v| !v.is_none()) else {
        return Ok(None);
    };
    if let Ok(text) = value.cast::<PyString>() {
        return parse_time(&crate::convert::utf8(text, name)?)
            .map(Some)
            .map_err(|e| errors::invalid_input(py, format!("{name}: {e}")));
    }
    let timegm = py.import("calendar")?.getattr("timegm")?;
    if value.hasattr("utctimetuple")? {
        // A datetime: an aware one converted to UTC, a naive one taken as UTC.
        return Ok(Some(timegm.call1((value.call_method0("utctimetuple")?,))?.extract()?));
    }
    if value.hasattr("timetuple")? {
        return Ok(Some(timegm.call1((value.call_method0("timetuple")?,))?.extract()?));
    }
    if value.is_instance_of::<pyo3::types::PyBool>() {
        return Err(PyTypeError::new_err(format!(
            "{name} is a datetime, an ISO-8601 string or unix seconds, not bool"
        )));
    }
    if let Ok(seconds) = value.extract::<i64>() {
        return Ok(Some(seconds));
    }
    if let Ok(seconds) = value.extract::<f64>() {
        if seconds.is_nan() {
            // `nan as i64` is 0: a NaN would silently mean 1970.
            return Err(errors::invalid_input(py, format!("{name} is NaN, not a time")));
        }
        // Beyond i64 seconds (inf, 2**1000) saturates: the far past or future.
        #[allow(clippy::cast_possible_truncation)] // whole seconds, as the names have
        return Ok(Some(seconds.floor() as i64));
    }
    Err(PyTypeError::new_err(format!(
        "{name} is a datetime, an ISO-8601 string or unix seconds, not {}",
        value
            .get_type()
            .name()
            .map_or_else(|_| "?".to_owned(), |n| n.to_string())
    )))
}

/// The breakdown keywords of `scan` and `select`.
pub(crate) struct BreakdownArgs<'a, 'py> {
    pub(crate) group_by: Option<&'a Bound<'py, PyAny>>,
    pub(crate) every: Option<&'a Bound<'py, PyAny>>,
    pub(crate) top: Option<crate::convert::Int>,
    pub(crate) time_field: Option<&'a Bound<'py, PyAny>>,
    pub(crate) dataset: Option<&'a Bound<'py, PyAny>>,
}

/// An optional text argument (`None` is absent); a lone surrogate is `InvalidInput`.
fn text_arg(name: &str, value: Option<&Bound<'_, PyAny>>) -> PyResult<Option<String>> {
    let Some(value) = value.filter(|v| !v.is_none()) else {
        return Ok(None);
    };
    let text = value.cast::<PyString>().map_err(|_| {
        PyTypeError::new_err(format!(
            "{name} is a str, not {}",
            value
                .get_type()
                .name()
                .map_or_else(|_| "?".to_owned(), |n| n.to_string())
        ))
    })?;
    crate::convert::utf8(text, name).map(Some)
}

/// A bucket width: `"1h"` (escpush-scan's `parse_every`), whole seconds, or a `timedelta` of
/// whole seconds.
fn every_arg(py: Python<'_>, value: Option<&Bound<'_, PyAny>>) -> PyResult<Option<u64>> {
    let Some(value) = value.filter(|v| !v.is_none()) else {
        return Ok(None);
    };
    let wrong = || {
        PyTypeError::new_err(format!(
            "every is an interval such as \"1h\", a number of seconds or a timedelta, not {}",
            value
                .get_type()
                .name()
                .map_or_else(|_| "?".to_owned(), |n| n.to_string())
        ))
    };
    if let Ok(text) = value.cast::<PyString>() {
        return parse_every(&crate::convert::utf8(text, "every")?)
            .map(Some)
            .map_err(|e| errors::invalid_input(py, format!("every: {e}")));
    }
    if value.is_instance_of::<pyo3::types::PyBool>() {
        return Err(wrong());
    }
    let seconds: f64 = if value.hasattr("total_seconds")? {
        value.call_method0("total_seconds")?.extract()?
    } else if let Ok(n) = value.extract::<i64>() {
        if n < escpush_scan::MIN_EVERY.cast_signed() {
            return Err(errors::invalid_input(
                py,
                format!("every: {}", escpush_scan::EVERY_TOO_SHORT),
            ));
        }
        return Ok(Some(n.cast_unsigned()));
    } else {
        return Err(wrong());
    };
    #[allow(clippy::cast_precision_loss)] // a small constant
    let least = escpush_scan::MIN_EVERY as f64;
    if seconds < least || seconds.fract() != 0.0 || !seconds.is_finite() {
        return Err(errors::invalid_input(
            py,
            format!("every: {seconds} s; an interval is a whole number of seconds, at least one"),
        ));
    }
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)] // whole, positive, finite
    Ok(Some(seconds as u64))
}

/// The keyword arguments every scan takes.
pub(crate) struct Options<'a, 'py> {
    pub(crate) strict: bool,
    pub(crate) threads: Option<usize>,
    pub(crate) progress: Option<Py<PyAny>>,
    pub(crate) since: Option<&'a Bound<'py, PyAny>>,
    pub(crate) until: Option<&'a Bound<'py, PyAny>>,
    pub(crate) limit: Option<u64>,
    pub(crate) breakdown: Option<Breakdown>,
}

impl<'a, 'py> Options<'a, 'py> {
    /// The options of `scan` and `select`, `threads` and `limit` checked (`InvalidInput`
    /// rather than `OverflowError`).
    #[allow(clippy::too_many_arguments)] // the keywords of `scan` and `select`
    pub(crate) fn new(
        py: Python<'_>,
        strict: bool,
        threads: Option<crate::convert::Int>,
        progress: Option<Py<PyAny>>,
        since: Option<&'a Bound<'py, PyAny>>,
        until: Option<&'a Bound<'py, PyAny>>,
        limit: Option<crate::convert::Int>,
    ) -> PyResult<Self> {
        let threads = threads
            .map(|t| {
                t.count(
                    py,
                    "threads",
                    0,
                    i64::try_from(escpush_scan::MAX_THREADS).unwrap_or(i64::MAX),
                )
            })
            .transpose()?;
        let limit = limit
            .map(|l| l.count(py, "limit", 0, i64::MAX).map(|l| l as u64))
            .transpose()?;
        Ok(Options {
            strict,
            threads,
            progress,
            since,
            until,
            limit,
            breakdown: None,
        })
    }

    /// Adds the breakdown of `group_by`, `every`, `top`, `time_field` and `dataset`, checked by
    /// escpush-scan (every problem at once, as `InvalidInput`).
    pub(crate) fn with_breakdown(mut self, py: Python<'_>, args: &BreakdownArgs<'_, '_>) -> PyResult<Self> {
        let group_by: Vec<String> = match args.group_by {
            None => Vec::new(),
            Some(g) if g.is_none() => Vec::new(),
            Some(g) => match g.cast::<PyString>() {
                Ok(one) => vec![crate::convert::utf8(one, "group_by")?],
                Err(_) => g
                    .try_iter()
                    .map_err(|_| PyTypeError::new_err("group_by is a field name or a list of field names"))?
                    .map(|item| {
                        let item = item?;
                        let s = item
                            .cast::<PyString>()
                            .map_err(|_| PyTypeError::new_err("group_by is a field name or a list of field names"))?;
                        crate::convert::utf8(s, "group_by")
                    })
                    .collect::<PyResult<_>>()?,
            },
        };
        let every = every_arg(py, args.every)?;
        let top = args.top.map(|t| t.count(py, "top", 0, i64::MAX)).transpose()?;
        let time_field = text_arg("time_field", args.time_field)?;
        let dataset = text_arg("dataset", args.dataset)?
            .map(|name| Dataset::get(&name, None))
            .transpose()
            .map_err(|e| errors::core_error(py, &e))?;
        if group_by.is_empty() && every.is_none() && top.is_none() && time_field.is_none() {
            return Ok(self);
        }
        let breakdown = Breakdown::checked(&group_by, every, time_field.as_deref(), top, dataset)
            .map_err(|e| errors::core_error(py, &e))?;
        self.breakdown = Some(breakdown);
        Ok(self)
    }

    pub(crate) fn selection(&self, py: Python<'_>) -> PyResult<Selection> {
        Ok(Selection::new()
            .since(time_arg(py, "since", self.since)?)
            .until(time_arg(py, "until", self.until)?))
    }
}

/// Progress reports go back to Python about every this often: to check for Ctrl-C and to
/// call the caller's callback.
pub(crate) const REPORT_EVERY: Duration = Duration::from_millis(100);

/// Runs `run` on a scanner with the GIL released. Every `REPORT_EVERY` the scan re-attaches
/// to check for signals (so Ctrl-C stops it) and to call `progress(bytes, lines)`; a Python
/// exception from either cancels the scan and is raised.
fn run_detached<F>(
    py: Python<'_>,
    filter: Option<&Filter>,
    options: Options<'_, '_>,
    output: Option<&str>,
    run: F,
) -> PyResult<PyScanResult>
where
    F: for<'s> FnOnce(&mut Scanner<'s>) -> Result<ScanResult, ScanError> + Send,
{
    let mut raised: Option<PyErr> = None;
    let Options {
        strict,
        threads,
        progress,
        limit,
        breakdown,
        ..
    } = options;
    let (result, partial) = {
        let raised = &mut raised;
        let scanner = filter.map_or_else(Scanner::every_line, Scanner::new);
        let mut scanner = scanner
            .strict(strict)
            .threads(threads.unwrap_or(0))
            .limit(limit)
            .breakdown(breakdown.unwrap_or_default())
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
        py.detach(move || {
            let result = run(&mut scanner);
            (result, scanner.partial().cloned())
        })
    };
    match result {
        Ok(r) => Ok(PyScanResult::from_result(&r)),
        Err(ScanError::Cancelled) if raised.is_some() => Err(raised.take().expect("checked")),
        Err(err) => Err(with_partial(py, errors::scan_error(py, &err, output), partial.as_ref())),
    }
}

/// A transformer's local run (`run_transformer`): escpush-scan's `transform_to_file` (the
/// query in the scan's workers, the records in input order), which refuses an output that is
/// an input and replaces `dst` only when the run succeeds; returns the scan's counts and the
/// records delivered.
pub(crate) fn transform(
    py: Python<'_>,
    transformer: &LineTransformer,
    src: &Bound<'_, PyAny>,
    dst: &Path,
    options: Options<'_, '_>,
) -> PyResult<(PyScanResult, u64)> {
    let mut delivered = 0;
    let result = {
        let delivered = &mut delivered;
        to_file(py, None, src, dst, options, move |scanner, inputs| {
            let run = scanner.transform_to_file(inputs, transformer, dst)?;
            *delivered = run.records;
            Ok(run.scan)
        })?
    };
    Ok((result, delivered))
}

/// `1,234,567`.
fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Adds the counts so far to a scan error: `; counts so far: ...` at the end of its message
/// (when anything was read), and the counts as its `partial` attribute (a `ScanResult`).
pub(crate) fn with_partial(py: Python<'_>, err: PyErr, partial: Option<&ScanResult>) -> PyErr {
    let Some(partial) = partial else { return err };
    let value = err.value(py);
    let complete = partial.inputs.iter().filter(|i| i.complete).count();
    let note = format!(
        "; counts so far: {} of {} inputs read in full, {} lines read, {} matching, {} malformed",
        thousands(complete as u64),
        thousands(partial.inputs.len() as u64),
        thousands(partial.total),
        thousands(partial.matched),
        thousands(partial.malformed)
    );
    if complete > 0 || partial.bytes > 0 {
        let message = value.str().map(|s| s.to_string()).unwrap_or_default();
        let _ = value.setattr("args", (format!("{message}{note}"),));
    }
    let _ = value.setattr("partial", PyScanResult::from_result(partial));
    err
}

/// `Filter.scan(paths, *, strict=False, threads=None, progress=None, since=None, until=None,
/// limit=None)`; with `limit`, the first matching lines come back in `lines`.
pub(crate) fn scan(
    py: Python<'_>,
    filter: &Filter,
    paths: &Bound<'_, PyAny>,
    options: Options<'_, '_>,
) -> PyResult<PyScanResult> {
    let selection = options.selection(py)?;
    let inputs = expand(py, args(paths)?, &selection)?;
    if options.limit.is_none() {
        return run_detached(py, Some(filter), options, None, move |scanner| scanner.scan(inputs));
    }
    let mut out = Vec::new();
    let mut result = {
        let out = &mut out;
        run_detached(py, Some(filter), options, None, move |scanner| {
            scanner.select(inputs, out)
        })?
    };
    let text = String::from_utf8_lossy(&out);
    result.lines = Some(text.lines().map(str::to_owned).collect());
    Ok(result)
}

/// `Filter.select(src, dst, *, strict=False, threads=None, progress=None, since=None,
/// until=None, limit=None)`: escpush-scan's `select_to_file`, which refuses an output that is
/// an input and replaces `dst` only when the scan succeeds; without a filter, every valid
/// line.
pub(crate) fn select(
    py: Python<'_>,
    filter: Option<&Filter>,
    src: &Bound<'_, PyAny>,
    dst: &Path,
    options: Options<'_, '_>,
) -> PyResult<PyScanResult> {
    to_file(py, filter, src, dst, options, move |scanner, inputs| {
        scanner.select_to_file(inputs, dst)
    })
}

/// Runs `run` on the inputs of `src` (a scan that writes the file `dst`, detached as
/// `run_detached` runs one): SIGTERM and SIGHUP cancel it like Ctrl-C, so that its temporary
/// file is removed, and a signal that came late is raised after it.
fn to_file<F>(
    py: Python<'_>,
    filter: Option<&Filter>,
    src: &Bound<'_, PyAny>,
    dst: &Path,
    options: Options<'_, '_>,
    run: F,
) -> PyResult<PyScanResult>
where
    F: for<'s> FnOnce(&mut Scanner<'s>, Vec<Input>) -> Result<ScanResult, ScanError> + Send,
{
    let selection = options.selection(py)?;
    let inputs = expand(py, args(src)?, &selection)?;
    let output = dst.display().to_string();
    let termination = crate::signals::Termination::catch(py)?;
    let result = run_detached(py, filter, options, Some(&output), move |scanner| run(scanner, inputs));
    match (result, termination.release(py)) {
        (result, None) => result,
        (Ok(_), Some(late)) => Err(late),
        (Err(err), late) => Err(crate::signals::with_late(py, late, err)),
    }
}
