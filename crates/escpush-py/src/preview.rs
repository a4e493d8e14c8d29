//! `Logpush.preview`, `escpush.preview_job` (`Job.preview`): what a log-push job would
//! deliver for a sample of logs, run by escpush-scan's `Preview` (the job's formatter and
//! batches are core's) with the GIL released; and `escpush.PreviewResult`, what it gives
//! back as plain data once (`to_dict`, the getters). Python renders it
//! (`escpush/_preview_views.py`).

use std::fmt::Write as _;
use std::path::PathBuf;

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString};

use escpush_core::{billing_of, Basis, Billing, JobOutput};
use escpush_filter::{percent, DatasetScope};
use escpush_scan::{Breakdown, Preview, PreviewCounts, PreviewResult, ScanError};

use crate::convert::{Int, Text};
use crate::cost::{pricing_or_default, PyCost, PyPricing};
use crate::errors;
use crate::scan::{BreakdownArgs, Options, REPORT_EVERY};
use crate::scan_result::breakdown_dict;

/// The keywords of a preview.
pub(crate) struct PreviewArgs<'a, 'py> {
    pub(crate) seed: Option<Int>,
    pub(crate) group_by: Option<&'a Bound<'py, PyAny>>,
    pub(crate) every: Option<&'a Bound<'py, PyAny>>,
    pub(crate) out: Option<&'a Bound<'py, PyAny>>,
    pub(crate) gzip: bool,
    pub(crate) threads: Option<Int>,
    pub(crate) strict: bool,
    pub(crate) progress: Option<Py<PyAny>>,
}

/// The job a preview is given: a dict of a job's fields (as `create_job` takes them, or an
/// `escpush.Job`), read by core's `JobOutput` (every problem at once, each naming its field).
pub(crate) fn job_output(py: Python<'_>, job: &Bound<'_, PyAny>, scope: Option<DatasetScope>) -> PyResult<JobOutput> {
    let fields = job_dict(py, job)?;
    JobOutput::from_job(&fields, scope).map_err(|e| errors::core_error(py, &e))
}

/// A job's fields given as a dict (or an `escpush.Job`), as JSON.
pub(crate) fn job_dict(py: Python<'_>, job: &Bound<'_, PyAny>) -> PyResult<serde_json::Map<String, serde_json::Value>> {
    let dict = job.cast::<PyDict>().map_err(|_| {
        pyo3::exceptions::PyTypeError::new_err(format!(
            "job is a dict of a job's fields (or an escpush.Job), not {}",
            job.get_type().name().map_or_else(|_| "?".to_owned(), |n| n.to_string())
        ))
    })?;
    crate::job::job_fields(py, Some(dict))
}

/// Where the batches go: `None` counts only, `"-"` is stdout, any other text or path a folder.
pub(crate) enum Out {
    Count,
    Stdout,
    Dir(PathBuf),
}

fn out_arg(out: Option<&Bound<'_, PyAny>>) -> PyResult<Out> {
    let Some(out) = out.filter(|o| !o.is_none()) else {
        return Ok(Out::Count);
    };
    if let Ok(text) = out.cast::<PyString>() {
        if text.to_cow()? == "-" {
            return Ok(Out::Stdout);
        }
    }
    Ok(Out::Dir(out.extract::<PathBuf>().map_err(|_| {
        pyo3::exceptions::PyTypeError::new_err("out is a folder (str or os.PathLike), \"-\" for stdout, or None")
    })?))
}

/// Runs the preview of `job` over `sample` (one path, folder or glob, or a list of them).
pub(crate) fn preview(
    py: Python<'_>,
    job: &Bound<'_, PyAny>,
    sample: &Bound<'_, PyAny>,
    scope: Option<DatasetScope>,
    args: PreviewArgs<'_, '_>,
) -> PyResult<PyPreviewResult> {
    let job = job_output(py, job, scope)?;
    let out = out_arg(args.out)?;
    run(py, &job, sample, args, out)
}

/// Runs the preview of a job core made (`JobOutput`) over `sample` into `out`.
pub(crate) fn run(
    py: Python<'_>,
    job: &JobOutput,
    sample: &Bound<'_, PyAny>,
    args: PreviewArgs<'_, '_>,
    out: Out,
) -> PyResult<PyPreviewResult> {
    let (preview, options) = configured(py, job, args.seed, args.group_by, args.every, args.threads, args.strict)?;
    let inputs = crate::scan::expand(py, crate::scan::args(sample)?, &options.selection(py)?)?;
    let shown = match &out {
        Out::Dir(path) => Some(path.display().to_string()),
        Out::Stdout => Some("-".to_owned()),
        Out::Count => None,
    };
    let termination = crate::signals::Termination::catch(py)?;
    let mut raised: Option<PyErr> = None;
    let result = {
        let raised = &mut raised;
        let progress = args.progress;
        let mut preview = preview.progress(REPORT_EVERY, move |p| {
            Python::attach(|py| {
                let outcome = py.check_signals().and_then(|()| match &progress {
                    Some(callback) => callback.call1(py, (p.bytes, p.lines)).map(drop),
                    None => Ok(()),
                });
                outcome.map_err(|err| raised.get_or_insert(err)).is_ok()
            })
        });
        let gzip = args.gzip;
        py.detach(move || match out {
            Out::Count => preview.count(inputs),
            Out::Stdout => preview.write_to(inputs, &mut std::io::stdout().lock(), gzip),
            Out::Dir(dir) => preview.write_dir(inputs, dir, gzip),
        })
    };
    let result = match result {
        Ok(r) => Ok(PyPreviewResult {
            result: r,
            out: shown,
            dataset: job.dataset.name(),
            billing: job.billing,
        }),
        Err(ScanError::Cancelled) if raised.is_some() => Err(raised.take().expect("checked")),
        Err(err) => Err(errors::scan_error(py, &err, shown.as_deref())),
    };
    match (result, termination.release(py)) {
        (result, None) => result,
        (Ok(_), Some(late)) => Err(late),
        (Err(err), late) => Err(crate::signals::with_late(py, late, err)),
    }
}

/// A preview of `job` with its keywords checked (`seed`, and `group_by` / `every` by the
/// job's dataset), and the scan options they make (the inputs' selection).
pub(crate) fn configured<'a>(
    py: Python<'_>,
    job: &JobOutput,
    seed: Option<Int>,
    group_by: Option<&Bound<'_, PyAny>>,
    every: Option<&Bound<'_, PyAny>>,
    threads: Option<Int>,
    strict: bool,
) -> PyResult<(Preview<'a>, Options<'static, 'static>)> {
    let seed = seed
        .map(|s| s.within(py, "seed", 0, i64::MAX))
        .transpose()?
        .unwrap_or(0);
    let dataset = PyString::new(py, job.dataset.name());
    let dataset = dataset.as_any();
    let breakdown = BreakdownArgs {
        group_by,
        every,
        top: None,
        time_field: None,
        dataset: Some(dataset),
    };
    let mut options = Options::new(py, strict, threads, None, None, None, None)?.with_breakdown(py, &breakdown)?;
    let preview = Preview::new(job)
        .seed(seed.cast_unsigned())
        .threads(options.threads.unwrap_or(0))
        .strict(options.strict)
        .breakdown(options.breakdown.take().unwrap_or_else(Breakdown::new));
    Ok((preview, options))
}

/// `escpush.preview_job(job, sample, ...)`: a preview of a job given as a dict or an
/// `escpush.Job` (`Job.preview` calls it); `scope` ("zone" or "account") picks the dataset
/// where both have one of its name.
#[pyfunction]
#[pyo3(signature = (job, sample, *, scope=None, seed=None, group_by=None, every=None, out=None, gzip=true, threads=None, strict=false, progress=None))]
#[allow(clippy::too_many_arguments)] // Python keyword arguments
pub fn preview_job(
    py: Python<'_>,
    job: &Bound<'_, PyAny>,
    sample: &Bound<'_, PyAny>,
    scope: Option<&str>,
    seed: Option<Int>,
    group_by: Option<&Bound<'_, PyAny>>,
    every: Option<&Bound<'_, PyAny>>,
    out: Option<&Bound<'_, PyAny>>,
    gzip: bool,
    threads: Option<Int>,
    strict: bool,
    progress: Option<Py<PyAny>>,
) -> PyResult<PyPreviewResult> {
    let scope = crate::filter::scope_arg(py, scope)?;
    let args = PreviewArgs {
        seed,
        group_by,
        every,
        out,
        gzip,
        threads,
        strict,
        progress,
    };
    preview(py, job, sample, scope, args)
}

/// What a job's preview found and delivered: lines read, malformed, kept by the filter,
/// delivered (kept after sampling too), batches, the uncompressed bytes delivered (the billed
/// measure, framing included), the gzip bytes written, the bytes read, the time span of the
/// lines, the same per input, and the breakdown with `group_by` / `every`.
#[pyclass(name = "PreviewResult", module = "escpush", frozen)]
#[derive(Clone, Debug)]
pub struct PyPreviewResult {
    pub(crate) result: PreviewResult,
    pub(crate) out: Option<String>,
    /// The job's dataset and billing class (from its `destination_conf`), for `cost`.
    pub(crate) dataset: &'static str,
    pub(crate) billing: Option<Billing>,
}

/// A time as unix seconds (float).
fn seconds(t: Option<(i64, u32)>) -> Option<f64> {
    #[allow(clippy::cast_precision_loss)]
    t.map(|(s, n)| s as f64 + f64::from(n) / 1e9)
}

/// The counts of the whole preview or an input, as `to_dict` gives them.
fn put_counts(d: &Bound<'_, PyDict>, c: &PreviewCounts) -> PyResult<()> {
    d.set_item("lines", c.lines)?;
    d.set_item("malformed", c.malformed)?;
    d.set_item("kept", c.kept)?;
    d.set_item("delivered", c.delivered)?;
    d.set_item("batches", c.batches)?;
    d.set_item("delivered_bytes", c.delivered_bytes)?;
    d.set_item("compressed_bytes", c.compressed_bytes)?;
    d.set_item("bytes_read", c.bytes_read)?;
    d.set_item("first_time", seconds(c.first_time))?;
    d.set_item("last_time", seconds(c.last_time))?;
    d.set_item("timed_lines", c.timed_lines)?;
    d.set_item("span_seconds", c.span_seconds())
}

#[pymethods]
impl PyPreviewResult {
    /// Lines read (blank lines not counted; malformed ones are).
    #[getter]
    fn lines(&self) -> u64 {
        self.result.total.lines
    }
    /// Lines that are not one JSON object.
    #[getter]
    fn malformed(&self) -> u64 {
        self.result.total.malformed
    }
    /// Lines the job's filter keeps.
    #[getter]
    fn kept(&self) -> u64 {
        self.result.total.kept
    }
    /// Lines kept after `sample_rate` too: the records delivered.
    #[getter]
    fn delivered(&self) -> u64 {
        self.result.total.delivered
    }
    /// Batches, as log-push cuts them (`max_upload_*`).
    #[getter]
    fn batches(&self) -> u64 {
        self.result.total.batches
    }
    /// Uncompressed bytes delivered, framing included: what log-push bills.
    #[getter]
    fn delivered_bytes(&self) -> u64 {
        self.result.total.delivered_bytes
    }
    /// The gzip bytes written (None when counting only or writing plain batches).
    #[getter]
    fn compressed_bytes(&self) -> Option<u64> {
        self.result.total.compressed_bytes
    }
    /// Bytes of NDJSON read (after decompression).
    #[getter]
    fn bytes_read(&self) -> u64 {
        self.result.total.bytes_read
    }
    /// The earliest time of the lines read (unix seconds), None when none had one.
    #[getter]
    fn first_time(&self) -> Option<f64> {
        seconds(self.result.total.first_time)
    }
    /// The latest time of the lines read (unix seconds), None when none had one.
    #[getter]
    fn last_time(&self) -> Option<f64> {
        seconds(self.result.total.last_time)
    }
    /// How many lines had a time.
    #[getter]
    fn timed_lines(&self) -> u64 {
        self.result.total.timed_lines
    }
    /// Seconds from the first time to the last (None when no line had one).
    #[getter]
    fn span_seconds(&self) -> Option<f64> {
        self.result.total.span_seconds()
    }
    /// The field the times were read from (the dataset's time field).
    #[getter]
    fn time_field(&self) -> Option<String> {
        self.result.time_field.clone()
    }
    /// The files written into `out`, relative to it, in batch order.
    #[getter]
    fn files(&self) -> Vec<String> {
        self.result.files.clone()
    }
    /// Where the batches went: the folder, "-" for stdout, or None (counted only).
    #[getter]
    fn out(&self) -> Option<String> {
        self.out.clone()
    }
    /// Wall time, in seconds.
    #[getter]
    fn seconds(&self) -> f64 {
        self.result.seconds
    }
    /// The job's dataset.
    #[getter]
    fn dataset(&self) -> &'static str {
        self.dataset
    }
    /// How the job's deliveries are billed, "internal" or "external", read from its
    /// `destination_conf` (None: the job has none).
    #[getter]
    fn destination_class(&self) -> Option<&'static str> {
        self.billing.map(Billing::as_str)
    }

    /// What the job would cost a month, projected from this preview (core's
    /// `Pricing::project_cost`): by the span of the sample's times, or the requests a day it
    /// stands for, or a scale; priced at `destination_class` when given, else at the class
    /// of the job's destination (core's `billing_of`); the account's allowance shown and
    /// subtracted only when asked.
    #[pyo3(signature = (*, requests_per_day=None, scale=None, destination_class=None, subtract_allowance=false, pricing=None))]
    fn cost(
        &self,
        py: Python<'_>,
        requests_per_day: Option<f64>,
        scale: Option<f64>,
        destination_class: Option<Text>,
        subtract_allowance: bool,
        pricing: Option<PyRef<'_, PyPricing>>,
    ) -> PyResult<PyCost> {
        let core = |e: escpush_core::Error| errors::core_error(py, &e);
        let given = destination_class
            .map(|class| Billing::parse(&class))
            .transpose()
            .map_err(core)?;
        let billing = billing_of(self.billing, given, self.dataset).map_err(core)?;
        let basis = Basis::from_options(requests_per_day, scale).map_err(core)?;
        let inner = pricing_or_default(pricing)
            .project_cost(
                &self.result.total.sample(),
                basis,
                billing,
                self.dataset,
                subtract_allowance,
            )
            .map_err(core)?;
        Ok(PyCost { inner })
    }

    /// One line: lines read, kept, delivered, batches and bytes delivered.
    #[getter]
    fn summary(&self) -> String {
        let t = &self.result.total;
        format!(
            "{} lines read, {} kept by the filter ({}), {} delivered in {} batches: {} bytes delivered ({} of the bytes read){}",
            t.lines,
            t.kept,
            percent(t.kept, t.lines).unwrap_or_else(|| "-".into()),
            t.delivered,
            t.batches,
            t.delivered_bytes,
            percent(t.delivered_bytes, t.bytes_read).unwrap_or_else(|| "-".into()),
            t.compressed_bytes.map_or(String::new(), |c| format!(", {c} gzip bytes written"))
        )
    }

    /// Everything as plain data (the shape of `escpush logpush preview --json`): the counts,
    /// `seconds`, `summary`, `time_field`, `out`, `files`, `first_malformed`, `per_input`
    /// and `breakdown` (None without `group_by` and `every`; its rows also hold `delivered`
    /// and `delivered_bytes`).
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        put_counts(&d, &self.result.total)?;
        d.set_item("seconds", self.result.seconds)?;
        d.set_item("summary", self.summary())?;
        d.set_item("dataset", self.dataset)?;
        d.set_item("destination_class", self.destination_class())?;
        d.set_item("time_field", &self.result.time_field)?;
        d.set_item("out", &self.out)?;
        d.set_item("files", &self.result.files)?;
        let first = match &self.result.first_malformed {
            Some(m) => {
                let item = PyDict::new(py);
                item.set_item("source", &m.source_name)?;
                item.set_item("line", m.line)?;
                item.set_item("reason", m.reason.to_string())?;
                Some(item)
            }
            None => None,
        };
        d.set_item("first_malformed", first)?;
        let per_input = PyList::empty(py);
        for input in &self.result.inputs {
            let item = PyDict::new(py);
            item.set_item("source", &input.name)?;
            put_counts(&item, &input.counts)?;
            item.set_item("complete", input.complete)?;
            per_input.append(item)?;
        }
        d.set_item("per_input", per_input)?;
        d.set_item("breakdown", self.breakdown(py)?)?;
        Ok(d)
    }

    /// With `group_by` or `every`: the breakdown as a dict (see `to_dict`), else None.
    #[getter]
    fn breakdown<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyDict>>> {
        self.result
            .breakdown
            .as_ref()
            .map(|b| breakdown_dict(py, b, true))
            .transpose()
    }

    /// The counts of each input, in input order, each a dict as in `to_dict()["per_input"]`.
    #[getter]
    fn per_input<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        Ok(self
            .to_dict(py)?
            .get_item("per_input")?
            .unwrap_or_else(|| PyList::empty(py).into_any()))
    }

    fn __repr__(&self) -> String {
        let t = &self.result.total;
        let mut out = format!(
            "PreviewResult(lines={}, kept={}, delivered={}, batches={}, delivered_bytes={}",
            t.lines, t.kept, t.delivered, t.batches, t.delivered_bytes
        );
        if let Some(c) = t.compressed_bytes {
            let _ = write!(out, ", compressed_bytes={c}");
        }
        let _ = write!(out, ", bytes_read={}", t.bytes_read);
        if t.malformed > 0 {
            let _ = write!(out, ", malformed={}", t.malformed);
        }
        out.push(')');
        out
    }
}
