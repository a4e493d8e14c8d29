//! The native side of `escpush.spark.scan`, `select` and `preview`: the driver lists the
//! inputs (`_spark_inputs`), each executor scans its share (`_spark_scan_part`, a partial
//! result as bytes; `_spark_select_part`, the kept lines; `_spark_preview_part`, a job's
//! partial preview as bytes, of the job's fields `_spark_preview_job` gives), and the driver
//! merges the parts (`_spark_merge`: escpush-scan's `ScanResult::merge`;
//! `_spark_preview_merge`: its `PreviewResult::merge`). Conversion only: the listing, the
//! scan, the preview, the bytes and the merges are escpush-scan's, the job's fields core's.

use std::path::PathBuf;

use pyo3::prelude::*;
use pyo3::types::PyBytes;

use escpush_core::JobOutput;
use escpush_filter::Filter;
use escpush_scan::{Input, Preview, PreviewResult, ScanError, ScanResult, Scanner, Selection};

use crate::convert::Int;
use crate::errors;
use crate::filter::PyFilter;
use crate::preview::PyPreviewResult;
use crate::scan::{BreakdownArgs, Options, PyScanResult};
use crate::spark_arrow;

/// Adds `_spark_inputs`, `_spark_scan_part`, `_spark_select_part`, `_spark_merge`,
/// `_spark_preview_job`, `_spark_preview_part` and `_spark_preview_merge`.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(_spark_preview_job, m)?)?;
    m.add_function(wrap_pyfunction!(_spark_preview_part, m)?)?;
    m.add_function(wrap_pyfunction!(_spark_preview_merge, m)?)?;
    m.add_function(wrap_pyfunction!(_spark_inputs, m)?)?;
    m.add_function(wrap_pyfunction!(_spark_scan_part, m)?)?;
    m.add_function(wrap_pyfunction!(_spark_select_part, m)?)?;
    m.add_function(wrap_pyfunction!(_spark_merge, m)?)
}

/// One input as the driver hands it to an executor: a local path, or an object's URL.
#[derive(Clone, Debug, IntoPyObject)]
pub(crate) enum Unit {
    Path(PathBuf),
    Url(String),
}

/// `_spark_inputs(paths, *, since=None, until=None)`: the inputs `Filter.scan` would read,
/// each `(input, is_object, size)`: a file's path (a `str`, as `os.fsdecode` gives it) or an
/// object's URL, and its size in bytes (None when unknown). Standard input is refused: an
/// executor has none to read.
#[pyfunction]
#[pyo3(signature = (paths, *, since=None, until=None))]
pub fn _spark_inputs(
    py: Python<'_>,
    paths: &Bound<'_, PyAny>,
    since: Option<&Bound<'_, PyAny>>,
    until: Option<&Bound<'_, PyAny>>,
) -> PyResult<Vec<(Unit, bool, Option<u64>)>> {
    let selection = Options::new(py, false, None, None, since, until, None)?.selection(py)?;
    let inputs = crate::scan::expand(py, crate::scan::args(paths)?, &selection)?;
    inputs
        .into_iter()
        .map(|input| match input {
            Input::Path(path) => {
                let size = std::fs::metadata(&path).ok().map(|m| m.len());
                Ok((Unit::Path(path), false, size))
            }
            Input::Object(object) => Ok((Unit::Url(object.url()), true, Some(object.size()))),
            other => Err(errors::invalid_input(
                py,
                format!(
                    "`{}`: a Spark scan reads files and object storage; standard input stays on the driver \
                     (use Filter.scan)",
                    other.name()
                ),
            )),
        })
        .collect()
}

/// One input of an executor's share: a path or an object's URL, whether it is an object,
/// and for a large plain file the byte range of it to read (`Input::line_range`: the lines
/// that start there).
type Piece = (PathBuf, bool, Option<(u64, u64)>);

/// The inputs of one executor's share: files as they are (or a byte range of one), objects looked up again by their
/// URL (a `head`); an object gone since the listing is `ScanError::Open`, as a file is.
fn inputs(units: Vec<Piece>) -> Result<Vec<Input>, ScanError> {
    let mut out = Vec::with_capacity(units.len());
    for (unit, is_object, range) in units {
        if let (false, Some((start, end))) = (is_object, range) {
            out.push(Input::line_range(&unit, start, end)?);
            continue;
        }
        if !is_object {
            out.push(Input::Path(unit));
            continue;
        }
        let url = unit.to_string_lossy().into_owned();
        match <[Input; 1]>::try_from(Selection::new().expand([url.as_str()])?) {
            Ok([Input::Object(object)]) if object.url() == url => out.push(Input::Object(object)),
            _ => {
                return Err(ScanError::Open {
                    source_name: url,
                    error: std::io::Error::new(
                        std::io::ErrorKind::NotFound,
                        "the object is gone since the inputs were listed",
                    ),
                })
            }
        }
    }
    Ok(out)
}

/// A scanner for one executor's share: `strict` and `threads` (None: every core the
/// executor's process may use).
fn scanner<'f>(py: Python<'_>, filter: &'f Filter, strict: bool, threads: Option<Int>) -> PyResult<Scanner<'f>> {
    let options = Options::new(py, strict, threads, None, None, None, None)?;
    Ok(Scanner::new(filter)
        .strict(strict)
        .threads(options.threads.unwrap_or(0)))
}

/// `_spark_scan_part(filter, units, *, strict=False, threads=None, group_by=None, every=None,
/// top=None, time_field=None, dataset=None)`: one executor's scan as bytes, for
/// `_spark_merge`. The breakdown's arguments are checked as `Filter.scan` checks them (`top`
/// too), but the part lists every group: `top` is the merge's, applied once to the sums, so
/// that the merged result is exact. With no units, it checks the arguments and gives an empty
/// part (the driver's, which gives the merge its shape when no input is listed). The driver
/// gives whole files: the line numbers of a range would count from its start. `strict` here
/// stops at the part's first malformed line; `escpush.spark.scan` scans its parts whole and
/// lets `_spark_merge` raise the first in input order.
#[pyfunction]
#[pyo3(signature = (filter, units, *, strict=false, threads=None, group_by=None, every=None, top=None, time_field=None, dataset=None))]
#[allow(clippy::too_many_arguments, clippy::needless_pass_by_value)] // Python keyword arguments
pub fn _spark_scan_part<'py>(
    py: Python<'py>,
    filter: PyRef<'_, PyFilter>,
    units: Vec<Piece>,
    strict: bool,
    threads: Option<Int>,
    group_by: Option<&Bound<'py, PyAny>>,
    every: Option<&Bound<'py, PyAny>>,
    top: Option<Int>,
    time_field: Option<&Bound<'py, PyAny>>,
    dataset: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyBytes>> {
    let args = BreakdownArgs {
        group_by,
        every,
        top,
        time_field,
        dataset,
    };
    let breakdown = Options::new(py, strict, None, None, None, None, None)?
        .with_breakdown(py, &args)?
        .breakdown
        .map(|b| b.top(None));
    let filter = filter.filter();
    let mut scanner = scanner(py, filter, strict, threads)?;
    if let Some(b) = breakdown {
        scanner = scanner.breakdown(b);
    }
    let result = py.detach(|| inputs(units).and_then(|inputs| scanner.scan(inputs)));
    let result = result.map_err(|e| errors::scan_error(py, &e, None))?;
    Ok(PyBytes::new(py, &result.to_bytes()))
}

/// `_spark_select_part(filter, units, schema, *, strict=False, threads=None, fields=None,
/// dataset=None, scope=None)`: the lines of one executor's share that match, in input order,
/// as record batches of `schema` (the IPC bytes of a `pyarrow.Schema`: the columns asked, as
/// `dataset_schema(dataset, "pyarrow")` types them) in one Arrow IPC stream (empty when none
/// matches; `spark_arrow.rs` reads the lines into the columns). With `fields` (of `dataset`),
/// each line is first cut down to them natively (core's `JobOutput::projection`), so that
/// only those are read. A unit may be a byte range of a large plain file (the driver cuts one
/// so that several executors share it).
#[pyfunction]
#[pyo3(signature = (filter, units, schema, *, strict=false, threads=None, fields=None, dataset=None, scope=None))]
#[allow(clippy::too_many_arguments, clippy::needless_pass_by_value)] // Python keyword arguments
pub fn _spark_select_part<'py>(
    py: Python<'py>,
    filter: PyRef<'_, PyFilter>,
    units: Vec<Piece>,
    schema: &[u8],
    strict: bool,
    threads: Option<Int>,
    fields: Option<Vec<String>>,
    dataset: Option<&str>,
    scope: Option<&str>,
) -> PyResult<Bound<'py, PyBytes>> {
    let schema = spark_arrow::read_schema(schema).map_err(|e| errors::invalid_input(py, e))?;
    let filter = filter.filter();
    let mut lines = Vec::new();
    let options = Options::new(py, strict, threads, None, None, None, None)?;
    if let (Some(fields), Some(dataset)) = (fields, dataset) {
        let scope = crate::filter::scope_arg(py, scope)?;
        let dataset = escpush_filter::Dataset::get(dataset, scope).map_err(|e| errors::core_error(py, &e))?;
        let job = JobOutput::projection(dataset, Some(filter.clone()), &fields, None)
            .map_err(|e| errors::core_error(py, &e))?;
        let mut preview = Preview::new(&job).strict(strict).threads(options.threads.unwrap_or(0));
        let result = py.detach(|| inputs(units).and_then(|inputs| preview.write_to(inputs, &mut lines, false)));
        result.map_err(|e| errors::scan_error(py, &e, None))?;
    } else {
        let mut scanner = scanner(py, filter, strict, threads)?;
        let result = py.detach(|| inputs(units).and_then(|inputs| scanner.select(inputs, &mut lines)));
        result.map_err(|e| errors::scan_error(py, &e, None))?;
    }
    let batches = py.detach(|| spark_arrow::ipc_stream(&schema, &lines, spark_arrow::BATCH_ROWS));
    let batches = batches.map_err(|e| errors::invalid_input(py, e))?;
    Ok(PyBytes::new(py, &batches))
}

/// `_spark_merge(parts, *, top=None, strict=False, seconds=None)`: the executors' parts (in
/// input order) as one `ScanResult`, `top` groups listed (escpush-scan's `ScanResult::merge`);
/// with `strict`, the first malformed line in input order raises `ScanError` as
/// `Filter.scan(strict=True)` raises it (the parts are scanned whole, not strict: the first
/// executor to fail may hold a later one), the merged counts as its `partial`; `seconds` the
/// wall time the driver measured.
#[pyfunction]
#[pyo3(signature = (parts, *, top=None, strict=false, seconds=None))]
#[allow(clippy::needless_pass_by_value)] // Python arguments
pub fn _spark_merge(
    py: Python<'_>,
    parts: Vec<Vec<u8>>,
    top: Option<Int>,
    strict: bool,
    seconds: Option<f64>,
) -> PyResult<PyScanResult> {
    let top = top.map(|t| t.count(py, "top", 1, i64::MAX)).transpose()?;
    let parts = parts
        .iter()
        .map(|bytes| ScanResult::from_bytes(bytes))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| errors::scan_error(py, &e, None))?;
    let mut merged = ScanResult::merge(parts, top);
    if let Some(seconds) = seconds {
        merged.seconds = seconds;
    }
    if let (true, Some(first)) = (strict, &merged.first_malformed) {
        let err = errors::scan_error(py, &first.to_error(), None);
        return Err(crate::scan::with_partial(py, err, Some(&merged)));
    }
    Ok(PyScanResult::from_result(&merged))
}

/// `_spark_preview_job(job, *, scope=None)`: the fields of `job` (a dict of a job's fields,
/// or an `escpush.Job`, as `preview_job` takes it) that its delivery depends on, as JSON text
/// for the executors (core's `JobOutput::delivery_fields`: no `destination_conf`, whose
/// credentials stay on the driver). The job is read as `preview_job` reads it: its problems
/// raise here, before a Spark job starts.
#[pyfunction]
#[pyo3(signature = (job, *, scope=None))]
pub fn _spark_preview_job(py: Python<'_>, job: &Bound<'_, PyAny>, scope: Option<&str>) -> PyResult<String> {
    let scope = crate::filter::scope_arg(py, scope)?;
    let fields = crate::preview::job_dict(py, job)?;
    JobOutput::from_job(&fields, scope).map_err(|e| errors::core_error(py, &e))?;
    Ok(serde_json::Value::Object(JobOutput::delivery_fields(&fields)).to_string())
}

/// `_spark_preview_part(job, units, *, scope=None, seed=None, group_by=None, every=None,
/// threads=None)`: one executor's preview of `job` (a dict of its fields) over its share, as
/// bytes for `_spark_preview_merge` (escpush-scan's `PreviewResult::to_bytes`). Never strict:
/// the merge raises the first malformed line in input order. A unit may be a byte range of a
/// large plain file: the part says which inputs continue the one before them, and numbers
/// its first malformed line in its file (`PreviewResult::continue_ranges`). With no units, it
/// checks the arguments and gives an empty part (the driver's).
#[pyfunction]
#[pyo3(signature = (job, units, *, scope=None, seed=None, group_by=None, every=None, threads=None))]
#[allow(clippy::too_many_arguments, clippy::needless_pass_by_value)] // Python keyword arguments
pub fn _spark_preview_part<'py>(
    py: Python<'py>,
    job: &Bound<'py, PyAny>,
    units: Vec<Piece>,
    scope: Option<&str>,
    seed: Option<Int>,
    group_by: Option<&Bound<'py, PyAny>>,
    every: Option<&Bound<'py, PyAny>>,
    threads: Option<Int>,
) -> PyResult<Bound<'py, PyBytes>> {
    let scope = crate::filter::scope_arg(py, scope)?;
    let job = crate::preview::job_output(py, job, scope)?;
    let (mut preview, _) = crate::preview::configured(py, &job, seed, group_by, every, threads, false)?;
    let ranges: Vec<Option<(PathBuf, u64)>> = units
        .iter()
        .map(|(path, is_object, range)| match (is_object, range) {
            (false, Some((start, _))) => Some((path.clone(), *start)),
            _ => None,
        })
        .collect();
    let result = py.detach(|| {
        let mut result = inputs(units).and_then(|inputs| preview.count(inputs))?;
        result.continue_ranges(&ranges)?;
        Ok(result)
    });
    let result = result.map_err(|e: ScanError| errors::scan_error(py, &e, None))?;
    Ok(PyBytes::new(py, &result.to_bytes()))
}

/// `_spark_preview_merge(job, parts, *, scope=None, strict=False, seconds=None)`: the
/// executors' parts (in input order) as one `PreviewResult` of `job` (its dataset and
/// billing class, for `cost`), escpush-scan's `PreviewResult::merge`; with `strict`, the
/// first malformed line in input order raises `ScanError`, as `preview_job` raises it;
/// `seconds` the wall time the driver measured.
#[pyfunction]
#[pyo3(signature = (job, parts, *, scope=None, strict=false, seconds=None))]
#[allow(clippy::needless_pass_by_value)] // Python arguments
pub fn _spark_preview_merge(
    py: Python<'_>,
    job: &Bound<'_, PyAny>,
    parts: Vec<Vec<u8>>,
    scope: Option<&str>,
    strict: bool,
    seconds: Option<f64>,
) -> PyResult<PyPreviewResult> {
    let scope = crate::filter::scope_arg(py, scope)?;
    let job = crate::preview::job_output(py, job, scope)?;
    let parts = parts
        .iter()
        .map(|bytes| PreviewResult::from_bytes(bytes))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| errors::scan_error(py, &e, None))?;
    let mut merged = PreviewResult::merge(parts);
    if let (true, Some(first)) = (strict, &merged.first_malformed) {
        return Err(errors::scan_error(py, &first.to_error(), None));
    }
    if let Some(seconds) = seconds {
        merged.seconds = seconds;
    }
    Ok(PyPreviewResult {
        result: merged,
        out: None,
        dataset: job.dataset.name(),
        billing: job.billing,
    })
}
