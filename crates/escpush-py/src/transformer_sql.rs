//! A transformer's SQL from Python, without the API: `check_transformer` (core's check, the
//! one the client and the emulator apply), `preview_transformer` (core's one-record
//! interpreter), `transformer_to_filter` (a transformer that only filters, read back as a
//! job filter), `_transformer_prefilter` (the filter a local run scans with first),
//! `_transformer_run` (a local run in escpush's scanner) and `_transformer_input` (what a
//! local run on DataFusion reads).
//! Conversion only: every rule is `escpush_core::transformer`'s.

use std::path::PathBuf;

use pyo3::prelude::*;
use pyo3::types::PyDict;

use escpush_core::transformer::{check, CheckedTransformer, TransformerProblems};

use crate::convert::{self, Int, Text};
use crate::errors;
use crate::filter::PyFilter;
use crate::preview::{Out, PreviewArgs};
use crate::scan::Options;

/// `InvalidInput` with the problems (`errors()`: path `line L, column C`, code, message).
fn problems_error(py: Python<'_>, problems: &TransformerProblems) -> PyErr {
    errors::invalid_problems(py, problems.to_string(), &problems.problems)
}

fn checked(py: Python<'_>, code: &str) -> PyResult<CheckedTransformer> {
    check(code).map_err(|p| problems_error(py, &p))
}

/// Checks a transformer's SQL against the contract (transformers.mdx) and its dataset's
/// fields and types; returns `{"dataset": ..., "scope": "zone"|"account"}`. Raises
/// `InvalidInput` whose `errors()` list each problem at its line and column.
#[pyfunction]
pub(crate) fn check_transformer(py: Python<'_>, code: Text) -> PyResult<Bound<'_, PyDict>> {
    let checked = checked(py, &code)?;
    let dict = PyDict::new(py);
    dict.set_item("dataset", checked.dataset())?;
    dict.set_item("scope", checked.scope().to_string())?;
    Ok(dict)
}

/// The records a job delivers for one input record (a dict), as core's interpreter runs
/// the SQL: what the API's preview endpoint answers.
#[pyfunction]
pub(crate) fn preview_transformer(py: Python<'_>, code: Text, input: &Bound<'_, PyAny>) -> PyResult<Vec<Py<PyAny>>> {
    let checked = checked(py, &code)?;
    let input = convert::to_json(input, "input").map_err(|m| errors::invalid_input(py, m))?;
    let out = checked.run(&input).map_err(|p| problems_error(py, &p))?;
    out.into_iter()
        .map(|j| convert::from_json(py, &serde_json::Value::from(j)))
        .collect()
}

/// A transformer that only filters (`SELECT *` or the dataset's fields, a `WHERE` a job
/// filter has) as `{"filter": Filter, "fields": list | None, "note": str}`; `None` when
/// it reshapes, computes or uses a form no filter has.
#[pyfunction]
pub(crate) fn transformer_to_filter(py: Python<'_>, code: Text) -> PyResult<Option<Bound<'_, PyDict>>> {
    let Some(form) = checked(py, &code)?.as_job_filter() else {
        return Ok(None);
    };
    let dict = PyDict::new(py);
    dict.set_item("filter", PyFilter::from(form.filter))?;
    dict.set_item("fields", form.fields)?;
    dict.set_item("note", form.note)?;
    Ok(Some(dict))
}

/// The filter a local run scans with before the engine (every record the transformer
/// delivers for passes it), or `None`.
#[pyfunction]
pub(crate) fn _transformer_prefilter(py: Python<'_>, code: Text) -> PyResult<Option<PyFilter>> {
    Ok(checked(py, &code)?.prefilter().map(PyFilter::from))
}

/// Writes a local run's input into the new folder `dst` and returns `(lines read, lines
/// kept, fields)`: core's `CheckedTransformer::input` (the prefilter, then the fields the SQL
/// reads, values as written) previewed into a file per batch (`<day>/<start>_<end>_<token>.log`,
/// as a preview names them); for SQL that reads `*` (`fields` is `None`), the lines the
/// prefilter keeps (every valid line without one) as they are, into `dst/input.ndjson`.
/// Without `prefilter` every valid line goes on. Inputs as `Filter.scan` takes them.
#[pyfunction]
#[pyo3(signature = (code, sample, dst, *, prefilter=true, threads=None, strict=false, progress=None))]
#[allow(clippy::too_many_arguments)] // Python keyword arguments
pub(crate) fn _transformer_input(
    py: Python<'_>,
    code: Text,
    sample: &Bound<'_, PyAny>,
    dst: PathBuf,
    prefilter: bool,
    threads: Option<Int>,
    strict: bool,
    progress: Option<Py<PyAny>>,
) -> PyResult<(u64, u64, Option<Vec<String>>)> {
    let checked = checked(py, &code)?;
    if let Some(mut job) = checked.input() {
        if !prefilter {
            job.filter = None;
        }
        let fields = checked.fields_read();
        let args = PreviewArgs {
            seed: None,
            group_by: None,
            every: None,
            out: None,
            gzip: false,
            threads,
            strict,
            progress,
        };
        let result = crate::preview::run(py, &job, sample, args, Out::Dir(dst))?;
        return Ok((result.result.total.lines, result.result.total.kept, fields));
    }
    let options = Options::new(py, strict, threads, progress, None, None, None)?;
    let filter = if prefilter { checked.prefilter() } else { None };
    std::fs::create_dir_all(&dst)
        .map_err(|e| pyo3::exceptions::PyOSError::new_err(format!("cannot write {}: {e}", dst.display())))?;
    let result = crate::scan::select(py, filter.as_ref(), sample, &dst.join("input.ndjson"), options)?;
    Ok((result.total, result.matched, None))
}

/// Runs a transformer's SQL on local logs in escpush's scanner (core's `LineTransformer` in
/// every worker, the GIL released) and writes the delivered records to `dst` (NDJSON, members
/// sorted by name; replaced only when the run succeeds); returns `(lines read, lines kept,
/// records delivered, fields)`: `fields` the ones the SQL reads (`None`: whole lines). Without
/// `prefilter` every valid line goes to the query. Inputs as `Filter.scan` takes them.
#[pyfunction]
#[pyo3(signature = (code, sample, dst, *, prefilter=true, threads=None, strict=false, progress=None))]
#[allow(clippy::too_many_arguments)] // Python keyword arguments
pub(crate) fn _transformer_run(
    py: Python<'_>,
    code: Text,
    sample: &Bound<'_, PyAny>,
    dst: PathBuf,
    prefilter: bool,
    threads: Option<Int>,
    strict: bool,
    progress: Option<Py<PyAny>>,
) -> PyResult<(u64, u64, u64, Option<Vec<String>>)> {
    let checked = checked(py, &code)?;
    let options = Options::new(py, strict, threads, progress, None, None, None)?;
    let (result, delivered) = crate::scan::transform(py, &checked.lines(prefilter), sample, &dst, options)?;
    Ok((result.total, result.matched, delivered, checked.fields_read()))
}
