//! `Filter.scan`, `Filter.select` and `escpush.ScanResult`: a filter run over NDJSON log
//! files by escpush-scan, with the GIL released.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::Duration;

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString, PyTuple};

use escpush_filter::Filter;
use escpush_filter::{format_time, percent, share, Dataset, GroupValue};
use escpush_scan::{
    parse_every, parse_time, Breakdown, BreakdownResult, Counts, Input, InputResult, Malformed, ScanError, ScanResult,
    Scanner, Selection, MAX_BUCKETS, OTHER_LABEL,
};

use crate::errors;

/// What a scan found: lines read (blank lines not counted), lines that match, malformed
/// lines, bytes of NDJSON read (after decompression) and kept, seconds taken, and the same per
/// input.
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
    /// Bytes of the lines that pass the filter, with their line breaks.
    #[pyo3(get)]
    matched_bytes: u64,
    /// The input these counts are about (in `per_input`), None for a whole scan.
    #[pyo3(get)]
    source: Option<String>,
    /// The counts of each input, in input order (folders, globs and prefixes expanded).
    #[pyo3(get)]
    per_input: Vec<PyScanResult>,
    /// With `limit=N`: the first N matching lines, in input order, without line breaks.
    #[pyo3(get)]
    lines: Option<Vec<String>>,
    /// With `group_by` or `every`: the counts by group and by time bucket.
    breakdown: Option<BreakdownResult>,
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
            matched_bytes: r.matched_bytes,
            source: None,
            per_input: r.inputs.iter().map(PyScanResult::from_input).collect(),
            lines: None,
            breakdown: r.breakdown.clone(),
        }
    }

    fn from_input(r: &InputResult) -> Self {
        PyScanResult {
            total: r.total,
            matched: r.matched,
            malformed: r.malformed,
            bytes: r.bytes,
            seconds: 0.0,
            first_malformed: None,
            matched_bytes: r.matched_bytes,
            source: Some(r.name.clone()),
            per_input: Vec::new(),
            lines: None,
            breakdown: None,
        }
    }
}

/// `part` of `whole` as core prints a share (`23.1%`, `0.012%`, `< 0.001%`), or None when
/// `whole` is 0: for the command line and the notebook display (`escpush._format.percent`).
#[pyfunction]
pub fn _percent(part: u64, whole: u64) -> Option<String> {
    percent(part, whole)
}

/// `lines`, `matched`, `bytes`, `matched_bytes`, `line_share`, `byte_share` of a row.
fn put_row(d: &Bound<'_, PyDict>, c: &Counts) -> PyResult<()> {
    d.set_item("lines", c.lines)?;
    d.set_item("matched", c.matched)?;
    d.set_item("bytes", c.bytes)?;
    d.set_item("matched_bytes", c.matched_bytes)?;
    d.set_item("line_share", share(c.matched, c.lines))?;
    d.set_item("byte_share", share(c.matched_bytes, c.bytes))
}

/// The counts of a whole scan or an input, as `to_dict` and `--json` give them.
fn put_counts(d: &Bound<'_, PyDict>, r: &PyScanResult) -> PyResult<()> {
    d.set_item("total", r.total)?;
    d.set_item("matched", r.matched)?;
    d.set_item("malformed", r.malformed)?;
    d.set_item("bytes", r.bytes)?;
    d.set_item("matched_bytes", r.matched_bytes)?;
    d.set_item("line_share", share(r.matched, r.total))?;
    d.set_item("byte_share", share(r.matched_bytes, r.bytes))
}

fn row<'py>(py: Python<'py>, c: &Counts) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    put_row(&d, c)?;
    Ok(d)
}

/// A group value as `json.loads` gives it (`None` for `Missing`: the caller leaves it out).
fn group_value<'py>(py: Python<'py>, v: &GroupValue) -> PyResult<Option<Bound<'py, PyAny>>> {
    let json = || py.import("json")?.getattr("loads");
    Ok(Some(match v {
        GroupValue::Missing => return Ok(None),
        GroupValue::Null => py.None().into_bound(py),
        GroupValue::Bool(b) => pyo3::types::PyBool::new(py, *b).to_owned().into_any(),
        GroupValue::Int(text) => match text.parse::<i64>() {
            Ok(n) => n.into_pyobject(py)?.into_any(),
            Err(_) => py.get_type::<pyo3::types::PyInt>().call1((text,))?,
        },
        GroupValue::Float(f) => f.into_pyobject(py)?.into_any(),
        // Not UTF-8 only around an escaped lone surrogate, which `json.loads` keeps as such.
        GroupValue::Str(bytes) => match std::str::from_utf8(bytes) {
            Ok(text) => PyString::new(py, text).into_any(),
            Err(_) => pyo3::types::PyBytes::new(py, bytes).call_method1("decode", ("utf-8", "surrogatepass"))?,
        },
        GroupValue::Array(text) | GroupValue::Object(text) => json()?.call1((text,))?,
    }))
}

/// The breakdown as `to_dict()["breakdown"]` gives it.
fn breakdown_dict<'py>(py: Python<'py>, b: &BreakdownResult) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("group_by", &b.group_by)?;
    let groups = PyList::empty(py);
    for g in &b.groups {
        let key = PyDict::new(py);
        for (name, value) in b.group_by.iter().zip(&g.key) {
            if let Some(value) = group_value(py, value)? {
                key.set_item(name, value)?;
            }
        }
        let item = PyDict::new(py);
        item.set_item("key", key)?;
        item.set_item("label", g.label())?;
        put_row(&item, &g.counts)?;
        groups.append(item)?;
    }
    d.set_item("groups", groups)?;
    let other = row(py, &b.other)?;
    other.set_item("groups", b.other_groups)?;
    other.set_item("label", OTHER_LABEL)?;
    d.set_item("other", other)?;
    d.set_item("exact", b.exact)?;
    d.set_item("peak_groups", b.peak_groups)?;
    d.set_item("time_field", b.every.as_ref().map(|(f, _)| f))?;
    d.set_item("every", b.every.as_ref().map(|(_, s)| *s))?;
    let buckets = PyList::empty(py);
    for bucket in &b.buckets {
        let item = PyDict::new(py);
        item.set_item("start", format_time(bucket.start))?;
        item.set_item("end", format_time(bucket.end))?;
        put_row(&item, &bucket.counts)?;
        buckets.append(item)?;
    }
    d.set_item("buckets", buckets)?;
    d.set_item("max_buckets", MAX_BUCKETS)?;
    d.set_item("no_time", row(py, &b.no_time)?)?;
    d.set_item("unreadable_time", row(py, &b.unreadable_time)?)?;
    let other_buckets = row(py, &b.other_buckets)?;
    other_buckets.set_item("from", b.other_buckets_from.map(format_time))?;
    d.set_item("other_buckets", other_buckets)?;
    Ok(d)
}

#[pymethods]
impl PyScanResult {
    #[new]
    #[pyo3(signature = (total, matched, malformed=0, bytes=0, seconds=0.0, first_malformed=None, *, matched_bytes=0, source=None, per_input=Vec::new(), lines=None))]
    #[allow(clippy::too_many_arguments, clippy::needless_pass_by_value)] // the fields, as keywords, extracted by value
    fn py_new(
        total: u64,
        matched: u64,
        malformed: u64,
        bytes: u64,
        seconds: f64,
        first_malformed: Option<(String, u64, String)>,
        matched_bytes: u64,
        source: Option<String>,
        per_input: Vec<Bound<'_, PyScanResult>>,
        lines: Option<Vec<String>>,
    ) -> Self {
        PyScanResult {
            total,
            matched,
            malformed,
            bytes,
            seconds,
            first_malformed,
            matched_bytes,
            source,
            per_input: per_input.iter().map(|r| r.get().clone()).collect(),
            lines,
            breakdown: None,
        }
    }

    /// The share of lines kept, `matched / total` (None when no line was read).
    #[getter]
    fn line_share(&self) -> Option<f64> {
        share(self.matched, self.total)
    }

    /// The share of bytes kept, `matched_bytes / bytes` (None when no byte was read).
    #[getter]
    fn byte_share(&self) -> Option<f64> {
        share(self.matched_bytes, self.bytes)
    }

    /// The answer in one line: `keeps 23.1% of lines, 18.4% of bytes`.
    #[getter]
    fn summary(&self) -> String {
        match (
            percent(self.matched, self.total),
            percent(self.matched_bytes, self.bytes),
        ) {
            (Some(lines), Some(bytes)) => format!("keeps {lines} of lines, {bytes} of bytes"),
            _ => "read no lines".to_owned(),
        }
    }

    /// With `group_by` or `every`: the whole breakdown as a dict (see `to_dict`), else None.
    #[getter]
    fn breakdown<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyDict>>> {
        self.breakdown.as_ref().map(|b| breakdown_dict(py, b)).transpose()
    }

    /// With `group_by`: the groups, most lines first (the first `top`), each a dict of
    /// `key` (the grouped fields' values; a missing field is left out), `label`, and the
    /// counts; else None.
    #[getter]
    fn groups<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        match &self.breakdown {
            Some(b) if !b.group_by.is_empty() => Ok(Some(breakdown_dict(py, b)?.as_any().get_item("groups")?)),
            _ => Ok(None),
        }
    }

    /// With `every`: the time buckets that hold lines, in time order (the first 100,000), each
    /// a dict of `start`, `end` (ISO-8601, UTC; clipped to the years 0001 to 9999) and the
    /// counts; else None.
    #[getter]
    fn buckets<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        match &self.breakdown {
            Some(b) if b.every.is_some() => Ok(Some(breakdown_dict(py, b)?.as_any().get_item("buckets")?)),
            _ => Ok(None),
        }
    }

    /// Everything as plain data (the shape of `escpush filter scan --json`): the counts and
    /// shares, `seconds`, `summary`, `first_malformed`, `per_input`, `lines` (with `limit`)
    /// and `breakdown` (None without `group_by` and `every`).
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        put_counts(&d, self)?;
        d.set_item("seconds", self.seconds)?;
        d.set_item("summary", self.summary())?;
        let first = match &self.first_malformed {
            Some((source, line, reason)) => {
                let m = PyDict::new(py);
                m.set_item("source", source)?;
                m.set_item("line", line)?;
                m.set_item("reason", reason)?;
                Some(m)
            }
            None => None,
        };
        d.set_item("first_malformed", first)?;
        let per_input = PyList::empty(py);
        for r in &self.per_input {
            let item = PyDict::new(py);
            item.set_item("source", &r.source)?;
            put_counts(&item, r)?;
            per_input.append(item)?;
        }
        d.set_item("per_input", per_input)?;
        if let Some(lines) = &self.lines {
            d.set_item("lines", lines)?;
        }
        d.set_item("breakdown", self.breakdown(py)?)?;
        Ok(d)
    }

    /// The constructor's form; `per_input` and `lines` are left out (see their attributes).
    fn __repr__(&self, py: Python<'_>) -> String {
        let repr = |s: &str| crate::convert::repr(py, s);
        let mut out = format!(
            "ScanResult(total={}, matched={}, malformed={}, bytes={}, seconds={:.3}",
            self.total, self.matched, self.malformed, self.bytes, self.seconds
        );
        if let Some((source, line, reason)) = &self.first_malformed {
            let _ = write!(out, ", first_malformed=({}, {line}, {})", repr(source), repr(reason));
        }
        if self.matched_bytes != 0 {
            let _ = write!(out, ", matched_bytes={}", self.matched_bytes);
        }
        if let Some(source) = &self.source {
            let _ = write!(out, ", source={}", repr(source));
        }
        out.push(')');
        out
    }
}

/// One argument naming inputs: a string (a path, a folder, a glob, a URL, or `"-"`) or a
/// path object (a path or folder).
enum Arg {
    Text(String),
    Path(PathBuf),
}

/// The arguments of a scan: one path or a list (tuple) of them.
fn args(paths: &Bound<'_, PyAny>) -> PyResult<Vec<Arg>> {
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
fn expand(py: Python<'_>, args: Vec<Arg>, selection: &Selection) -> PyResult<Vec<Input>> {
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

    fn selection(&self, py: Python<'_>) -> PyResult<Selection> {
        Ok(Selection::new()
            .since(time_arg(py, "since", self.since)?)
            .until(time_arg(py, "until", self.until)?))
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
        let mut scanner = Scanner::new(filter)
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
fn with_partial(py: Python<'_>, err: PyErr, partial: Option<&ScanResult>) -> PyErr {
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
        return run_detached(py, filter, options, None, move |scanner| scanner.scan(inputs));
    }
    let mut out = Vec::new();
    let mut result = {
        let out = &mut out;
        run_detached(py, filter, options, None, move |scanner| scanner.select(inputs, out))?
    };
    let text = String::from_utf8_lossy(&out);
    result.lines = Some(text.lines().map(str::to_owned).collect());
    Ok(result)
}

/// `Filter.select(src, dst, *, strict=False, threads=None, progress=None, since=None,
/// until=None, limit=None)`: escpush-scan's `select_to_file`, which refuses an output that is
/// an input and replaces `dst` only when the scan succeeds.
pub(crate) fn select(
    py: Python<'_>,
    filter: &Filter,
    src: &Bound<'_, PyAny>,
    dst: &Path,
    options: Options<'_, '_>,
) -> PyResult<PyScanResult> {
    let selection = options.selection(py)?;
    let inputs = expand(py, args(src)?, &selection)?;
    let output = dst.display().to_string();
    // SIGTERM and SIGHUP cancel the scan like Ctrl-C, so that its temporary file is removed.
    let termination = crate::signals::Termination::catch(py)?;
    let result = run_detached(py, filter, options, Some(&output), move |scanner| {
        scanner.select_to_file(inputs, dst)
    });
    match (result, termination.release(py)) {
        (result, None) => result,
        (Ok(_), Some(late)) => Err(late),
        (Err(err), late) => Err(crate::signals::with_late(py, late, err)),
    }
}
