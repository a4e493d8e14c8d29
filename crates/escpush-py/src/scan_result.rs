//! `escpush.ScanResult`: what a scan found, given to Python as plain data once (`to_dict`, the
//! getters); Python renders it (`escpush/_presentation.py`, `_breakdown.py`).

use std::fmt::Write as _;

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString};

use escpush_filter::{format_time, percent, share, GroupValue};
use escpush_scan::{BreakdownResult, Counts, InputResult, Malformed, ScanResult, MAX_BUCKETS, OTHER_LABEL};

/// What a scan found: lines read (blank lines not counted), lines that match, malformed
/// lines, bytes of NDJSON read (after decompression) and kept, seconds taken, and the same per
/// input.
#[pyclass(name = "ScanResult", module = "escpush", frozen, eq)]
#[derive(Clone, Debug, PartialEq)]
pub struct PyScanResult {
    /// Lines read, blank lines not counted (malformed lines are).
    #[pyo3(get)]
    pub(crate) total: u64,
    /// Lines that pass the filter.
    #[pyo3(get)]
    pub(crate) matched: u64,
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
    pub(crate) lines: Option<Vec<String>>,
    /// With `group_by` or `every`: the counts by group and by time bucket.
    breakdown: Option<BreakdownResult>,
}

impl PyScanResult {
    pub(crate) fn from_result(r: &ScanResult) -> Self {
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

/// Each `(part, whole)` as core prints a share (`23.1%`, `0.012%`, `< 0.001%`), or None when
/// `whole` is 0: every share of a table in one call, for the command line and the notebook
/// display (`escpush._format.percents`).
#[pyfunction]
pub fn _percents(pairs: Vec<(u64, u64)>) -> Vec<Option<String>> {
    pairs.into_iter().map(|(part, whole)| percent(part, whole)).collect()
}

/// `lines`, `matched`, `bytes`, `matched_bytes`, `line_share`, `byte_share` of a row; a
/// preview's rows (`preview`) also `delivered` and `delivered_bytes`.
fn put_row(d: &Bound<'_, PyDict>, c: &Counts, preview: bool) -> PyResult<()> {
    if preview {
        d.set_item("delivered", c.delivered)?;
        d.set_item("delivered_bytes", c.delivered_bytes)?;
    }
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

fn row<'py>(py: Python<'py>, c: &Counts, preview: bool) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    put_row(&d, c, preview)?;
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

/// The groups of a breakdown, as `breakdown["groups"]` gives them.
fn group_list<'py>(py: Python<'py>, b: &BreakdownResult, preview: bool) -> PyResult<Bound<'py, PyList>> {
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
        put_row(&item, &g.counts, preview)?;
        groups.append(item)?;
    }
    Ok(groups)
}

/// The time buckets of a breakdown, as `breakdown["buckets"]` gives them.
fn bucket_list<'py>(py: Python<'py>, b: &BreakdownResult, preview: bool) -> PyResult<Bound<'py, PyList>> {
    let buckets = PyList::empty(py);
    for bucket in &b.buckets {
        let item = PyDict::new(py);
        item.set_item("start", format_time(bucket.start))?;
        item.set_item("end", format_time(bucket.end))?;
        put_row(&item, &bucket.counts, preview)?;
        buckets.append(item)?;
    }
    Ok(buckets)
}

/// The breakdown as `to_dict()["breakdown"]` gives it (a preview's rows with their
/// delivered counts too).
pub(crate) fn breakdown_dict<'py>(py: Python<'py>, b: &BreakdownResult, preview: bool) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("group_by", &b.group_by)?;
    d.set_item("groups", group_list(py, b, preview)?)?;
    let other = row(py, &b.other, preview)?;
    other.set_item("groups", b.other_groups)?;
    other.set_item("label", OTHER_LABEL)?;
    d.set_item("other", other)?;
    d.set_item("exact", b.exact)?;
    d.set_item("peak_groups", b.peak_groups)?;
    d.set_item("time_field", b.every.as_ref().map(|(f, _)| f))?;
    d.set_item("every", b.every.as_ref().map(|(_, s)| *s))?;
    d.set_item("buckets", bucket_list(py, b, preview)?)?;
    d.set_item("max_buckets", MAX_BUCKETS)?;
    d.set_item("no_time", row(py, &b.no_time, preview)?)?;
    d.set_item("unreadable_time", row(py, &b.unreadable_time, preview)?)?;
    let other_buckets = row(py, &b.other_buckets, preview)?;
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
        self.breakdown
            .as_ref()
            .map(|b| breakdown_dict(py, b, false))
            .transpose()
    }

    /// With `group_by`: the groups, most lines first (the first `top`), each a dict of
    /// `key` (the grouped fields' values; a missing field is left out), `label`, and the
    /// counts; else None.
    #[getter]
    fn groups<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyList>>> {
        match &self.breakdown {
            Some(b) if !b.group_by.is_empty() => group_list(py, b, false).map(Some),
            _ => Ok(None),
        }
    }

    /// With `every`: the time buckets that hold lines, in time order (the first 100,000), each
    /// a dict of `start`, `end` (ISO-8601, UTC; clipped to the years 0001 to 9999) and the
    /// counts; else None.
    #[getter]
    fn buckets<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyList>>> {
        match &self.breakdown {
            Some(b) if b.every.is_some() => bucket_list(py, b, false).map(Some),
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
