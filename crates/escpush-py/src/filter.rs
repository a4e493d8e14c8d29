//! `escpush.Filter`: parsing, printing, checking, combining and evaluating a filter from
//! Python (`escpush.field` and `Field` are in `field.rs`, the dataset functions in `schema.rs`).

use std::borrow::Cow;
use std::cell::RefCell;

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PyString, PyType};

use escpush_filter::Filter;
use escpush_filter::{Dataset, DatasetScope, FieldValue, FilterError, Limits, Problem, Record, SharedFilter};

use crate::convert;
use crate::convert::{Int, Text};
use crate::errors;

/// A log-push job filter, `{"where": ...}`. Python filters are immutable values that
/// programs combine in loops (`f = f & g`), so the core filter is held as a
/// [`SharedFilter`]: combining is constant time and never copies the operands.
#[pyclass(name = "Filter", module = "escpush", frozen, eq, hash)]
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct PyFilter {
    inner: SharedFilter,
}

impl PyFilter {
    /// The core filter (flattened on first use).
    pub(crate) fn filter(&self) -> &Filter {
        self.inner.filter()
    }

    /// One JSON line through the line evaluator `scan` uses, so that one line gives one
    /// answer everywhere (numbers as json.loads reads them: `-0`, integers of any size).
    fn matches_line(&self, py: Python<'_>, line: &str) -> PyResult<bool> {
        self.filter()
            .compile()
            .matches_line(line.as_bytes())
            .map_err(|e| errors::invalid_input(py, format!("the record is not a JSON object ({e})")))
    }
}

impl From<Filter> for PyFilter {
    fn from(filter: Filter) -> Self {
        PyFilter {
            inner: SharedFilter::from(filter),
        }
    }
}

fn parse(py: Python<'_>, text: &str) -> PyResult<PyFilter> {
    Filter::parse(text)
        .map(PyFilter::from)
        .map_err(|e| errors::filter_error(py, &e))
}

/// The limits given, each defaulting to the core's (`Limits::default()`); a negative or
/// beyond-64-bit one is `InvalidInput` naming it.
fn limits(py: Python<'_>, max_operators: Option<Int>, max_bytes: Option<Int>) -> PyResult<Limits> {
    let default = Limits::default();
    let limit =
        |value: Option<Int>, what: &str, default: usize| value.map_or(Ok(default), |v| v.count(py, what, 0, i64::MAX));
    Ok(Limits::new(
        limit(max_operators, "max_operators", default.max_operators)?,
        limit(max_bytes, "max_bytes", default.max_bytes)?,
    ))
}

pub(crate) fn problem_error(py: Python<'_>, problem: Problem) -> PyErr {
    errors::filter_error(py, &FilterError::new(vec![problem]))
}

/// Text from `str` or UTF-8 `bytes`; `what` names it when a `str` holds a lone surrogate.
fn text_of(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<Option<String>> {
    decode(obj, what, false)
}

/// A filter's text from `str` or UTF-8 `bytes`. Bytes are a file's content: a byte-order
/// mark at their start is dropped, as Python's `utf-8-sig` codec and `json.loads(bytes)`
/// drop it (a `str` is text already decoded: a mark in it is an error that names it).
fn filter_text_of(obj: &Bound<'_, PyAny>) -> PyResult<Option<String>> {
    decode(obj, "the filter", true)
}

fn decode(obj: &Bound<'_, PyAny>, what: &str, drop_bom: bool) -> PyResult<Option<String>> {
    if let Ok(s) = obj.cast::<PyString>() {
        return convert::utf8(s, what).map(Some);
    }
    if let Ok(b) = obj.cast::<PyBytes>() {
        let mut bytes = b.as_bytes();
        if drop_bom {
            bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
        }
        return std::str::from_utf8(bytes)
            .map(|s| Some(s.to_owned()))
            .map_err(|e| errors::invalid_input(obj.py(), format!("the bytes are not UTF-8: {e}")));
    }
    Ok(None)
}

pub(crate) fn scope_arg(py: Python<'_>, scope: Option<&str>) -> PyResult<Option<DatasetScope>> {
    scope
        .map(|s| s.parse::<DatasetScope>().map_err(|e| errors::core_error(py, &e)))
        .transpose()
}

pub(crate) fn dataset_arg(
    py: Python<'_>,
    dataset: Option<&str>,
    scope: Option<&str>,
) -> PyResult<Option<&'static Dataset>> {
    let scope = scope_arg(py, scope)?;
    dataset
        .map(|name| Dataset::get(name, scope).map_err(|e| errors::core_error(py, &e)))
        .transpose()
}

/// A filter from any Python form: a `Filter`, its JSON text (str or bytes, also the quoted
/// form), or a dict `{"where": ...}`. Every problem raises `FilterError`.
pub(crate) fn filter_from_py(py: Python<'_>, obj: &Bound<'_, PyAny>) -> PyResult<Filter> {
    if let Ok(f) = obj.cast::<PyFilter>() {
        return Ok(f.get().filter().clone());
    }
    if let Some(t) = filter_text_of(obj)? {
        return Filter::parse(&t).map_err(|e| errors::filter_error(py, &e));
    }
    let json = convert::filter_json(obj, "").map_err(|p| problem_error(py, p))?;
    Filter::from_json(json).map_err(|e| errors::filter_error(py, &e))
}

#[pymethods]
impl PyFilter {
    /// `Filter('{"where": ...}')`: the same as `Filter.parse`.
    #[new]
    fn py_new(py: Python<'_>, text: Text) -> PyResult<Self> {
        let text = &*text;
        parse(py, text)
    }

    /// Parses filter JSON: `{"where": ...}` as text, or that text quoted and escaped as it
    /// stands in a job payload. Raises `FilterError` listing every problem.
    #[staticmethod]
    fn parse(py: Python<'_>, text: &Bound<'_, PyAny>) -> PyResult<Self> {
        match filter_text_of(text)? {
            Some(t) => parse(py, &t),
            None => Err(PyTypeError::new_err(
                "Filter.parse takes a str or bytes; use Filter.from_dict for a dict",
            )),
        }
    }

    /// Builds a filter from a dict `{"where": {...}}` (or a str, as `parse`).
    #[staticmethod]
    fn from_dict(py: Python<'_>, obj: &Bound<'_, PyAny>) -> PyResult<Self> {
        filter_from_py(py, obj).map(PyFilter::from)
    }

    /// Canonical compact JSON: the value for a job's `filter` field, one spelling per filter
    /// (an integer of a single-value operator as a string, `"value":"500"`, SPEC B.1).
    fn to_json(&self) -> String {
        self.filter().to_json()
    }

    /// The filter as plain dicts and lists.
    fn to_dict(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        convert::from_json(py, &self.filter().to_value())
    }

    /// How many comparison operators (conditions) the filter holds.
    #[getter]
    fn operator_count(&self) -> usize {
        self.filter().operator_count()
    }

    /// The size of the canonical JSON in bytes.
    #[getter]
    fn byte_size(&self) -> usize {
        self.filter().byte_size()
    }

    /// The field names the filter reads, each once, in order of first use.
    #[getter]
    fn fields(&self) -> Vec<String> {
        self.filter().fields().into_iter().map(str::to_owned).collect()
    }

    /// Raises `FilterError` listing every problem the API would refuse (limits; and given a
    /// dataset: unknown or unfilterable fields, operators the field's type does not take,
    /// values no field of that type can equal). Returns None when the filter is fine.
    #[pyo3(signature = (dataset=None, *, scope=None, max_operators=None, max_bytes=None))]
    fn validate(
        &self,
        py: Python<'_>,
        dataset: Option<Text>,
        scope: Option<Text>,
        max_operators: Option<Int>,
        max_bytes: Option<Int>,
    ) -> PyResult<()> {
        let ds = dataset_arg(py, dataset.as_deref(), scope.as_deref())?;
        self.filter()
            .validate(ds, limits(py, max_operators, max_bytes)?)
            .map_err(|e| errors::filter_error(py, &e))
    }

    /// The problems `validate` would raise, as a list of dicts (path, code, message).
    #[pyo3(signature = (dataset=None, *, scope=None, max_operators=None, max_bytes=None))]
    fn problems<'py>(
        &self,
        py: Python<'py>,
        dataset: Option<Text>,
        scope: Option<Text>,
        max_operators: Option<Int>,
        max_bytes: Option<Int>,
    ) -> PyResult<Bound<'py, PyList>> {
        let ds = dataset_arg(py, dataset.as_deref(), scope.as_deref())?;
        errors::problem_list(py, &self.filter().problems(ds, limits(py, max_operators, max_bytes)?))
    }

    // SQL and dataframes (issue 13): the printers of escpush-core, per dialect.

    /// The filter as a boolean SQL expression for a `WHERE` clause in `dialect` (`duckdb`,
    /// `datafusion`, `spark`, `clickhouse`, `bigquery`, `snowflake`, `trino`, `postgres`,
    /// `transformer`, `polars`), over a table of `dataset`'s columns as `escpush.dataset_schema`
    /// types them. It gives the answers of `matches` there.
    #[pyo3(signature = (dialect, *, dataset, scope=None))]
    fn to_sql(&self, py: Python<'_>, dialect: Text, dataset: Text, scope: Option<Text>) -> PyResult<String> {
        let ds = dataset_arg(py, Some(&dataset), scope.as_deref())?.expect("a dataset was named");
        let dialect = dialect.parse().map_err(|e| errors::core_error(py, &e))?;
        self.filter()
            .to_sql(dialect, ds)
            .map_err(|e| errors::core_error(py, &e))
    }

    /// `SELECT * FROM <table> WHERE <to_sql>`; `table` (dotted parts quoted one by one)
    /// defaults to the dataset's name. A transformer reads the dataset: no table is named.
    #[pyo3(signature = (dialect, *, dataset, table=None, scope=None))]
    fn to_query(
        &self,
        py: Python<'_>,
        dialect: Text,
        dataset: Text,
        table: Option<Text>,
        scope: Option<Text>,
    ) -> PyResult<String> {
        let dialect = &*dialect;
        let dataset = &*dataset;
        let ds = dataset_arg(py, Some(dataset), scope.as_deref())?.expect("a dataset was named");
        let dialect = dialect.parse().map_err(|e| errors::core_error(py, &e))?;
        self.filter()
            .to_query(dialect, ds, table.as_deref())
            .map_err(|e| errors::core_error(py, &e))
    }

    /// The Logpush transformer that delivers the records this filter keeps: `SELECT <fields>
    /// FROM <dataset> WHERE <the filter in the transformer dialect>` (`*` without `fields`,
    /// a job's `field_names`). Raises `InvalidInput` for a condition the transformer dialect
    /// cannot express (arrays, integer comparisons on `int or string` fields) and
    /// `FilterError` for an unknown field (with a did-you-mean).
    #[pyo3(signature = (*, dataset, fields=None, scope=None))]
    fn to_transformer(
        &self,
        py: Python<'_>,
        dataset: Text,
        fields: Option<Vec<String>>,
        scope: Option<Text>,
    ) -> PyResult<String> {
        let ds = dataset_arg(py, Some(&dataset), scope.as_deref())?.expect("a dataset was named");
        let names: Option<Vec<&str>> = fields.as_ref().map(|f| f.iter().map(String::as_str).collect());
        self.filter()
            .to_transformer(ds, names.as_deref())
            .map_err(|e| errors::core_error(py, &e))
    }

    /// Whether a log record (a dict, or one JSON line as str/bytes) passes the filter.
    /// A JSON line is read by the same evaluator as `scan`.
    fn matches(&self, py: Python<'_>, record: &Bound<'_, PyAny>) -> PyResult<bool> {
        let line = match record.cast::<PyString>() {
            // A lone surrogate in a line is read as json.loads reads it: as its escape.
            Ok(s) => Some(
                s.to_cow()
                    .map(Cow::into_owned)
                    .or_else(|_| convert::escape_surrogates(s))?,
            ),
            Err(_) => text_of(record, "the record")?,
        };
        if let Some(line) = line {
            return self.matches_line(py, &line);
        }
        let mapping = PyRecord {
            mapping: record,
            error: RefCell::new(None),
        };
        let matched = self.filter().matches(&mapping);
        match mapping.error.into_inner() {
            // A string that holds a lone surrogate (json.loads makes one of `"\ud800"`)
            // has no Rust form: the record is read as the JSON line json.dumps writes, by
            // the evaluator of lines, which reads such a string as the scanner does.
            Some(err) if convert::is_lone_surrogate(py, &err) => {
                let dumped = py
                    .import("json")?
                    .call_method1("dumps", (record,))
                    .map_err(|e| errors::invalid_input(py, format!("the record is not JSON: {e}")))?;
                self.matches_line(py, &dumped.cast::<PyString>()?.to_cow()?)
            }
            Some(err) => Err(err),
            None => Ok(matched),
        }
    }

    /// Runs the filter over NDJSON log files (plain or gzip; `"-"` is stdin) on every core,
    /// with the GIL released, and counts the lines that match. See `escpush.ScanResult`.
    #[pyo3(signature = (paths, *, strict=false, threads=None, progress=None, since=None, until=None, limit=None, group_by=None, every=None, top=None, time_field=None, dataset=None))]
    #[allow(clippy::too_many_arguments)] // Python keyword arguments
    fn scan(
        &self,
        py: Python<'_>,
        paths: &Bound<'_, PyAny>,
        strict: bool,
        threads: Option<Int>,
        progress: Option<Py<PyAny>>,
        since: Option<&Bound<'_, PyAny>>,
        until: Option<&Bound<'_, PyAny>>,
        limit: Option<Int>,
        group_by: Option<&Bound<'_, PyAny>>,
        every: Option<&Bound<'_, PyAny>>,
        top: Option<Int>,
        time_field: Option<&Bound<'_, PyAny>>,
        dataset: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<crate::scan::PyScanResult> {
        let breakdown = crate::scan::BreakdownArgs {
            group_by,
            every,
            top,
            time_field,
            dataset,
        };
        let options = crate::scan::Options::new(py, strict, threads, progress, since, until, limit)?
            .with_breakdown(py, &breakdown)?;
        crate::scan::scan(py, self.filter(), paths, options)
    }

    /// Writes the lines of `src` (one path or a list) that match to the file `dst`, in input
    /// order; returns the counts, as `scan` does. The lines go to a temporary file beside
    /// `dst`, renamed over it only when the scan succeeds; Ctrl-C, SIGTERM and SIGHUP (the
    /// latter as `escpush.Terminated`, in the main thread where their handler is the
    /// default) stop the scan and remove it.
    #[allow(clippy::too_many_arguments, clippy::needless_pass_by_value)] // Python arguments, extracted by value
    #[pyo3(signature = (src, dst, *, strict=false, threads=None, progress=None, since=None, until=None, limit=None, group_by=None, every=None, top=None, time_field=None, dataset=None))]
    fn select(
        &self,
        py: Python<'_>,
        src: &Bound<'_, PyAny>,
        dst: &Bound<'_, PyAny>,
        strict: bool,
        threads: Option<Int>,
        progress: Option<Py<PyAny>>,
        since: Option<&Bound<'_, PyAny>>,
        until: Option<&Bound<'_, PyAny>>,
        limit: Option<Int>,
        group_by: Option<&Bound<'_, PyAny>>,
        every: Option<&Bound<'_, PyAny>>,
        top: Option<Int>,
        time_field: Option<&Bound<'_, PyAny>>,
        dataset: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<crate::scan::PyScanResult> {
        let breakdown = crate::scan::BreakdownArgs {
            group_by,
            every,
            top,
            time_field,
            dataset,
        };
        let options = crate::scan::Options::new(py, strict, threads, progress, since, until, limit)?
            .with_breakdown(py, &breakdown)?;
        // A path str holding a lone surrogate that names no bytes (`surrogateescape` ones
        // do) is InvalidInput, not the UnicodeEncodeError that would show the whole path.
        let dst: std::path::PathBuf = dst.extract().map_err(|e| match dst.cast::<PyString>() {
            Ok(s) if convert::is_lone_surrogate(py, &e) => {
                errors::invalid_input(py, format!("dst {}", convert::lone_surrogate(&e, s)))
            }
            _ => e,
        })?;
        crate::scan::select(py, Some(self.filter()), src, &dst, options)
    }

    fn __invert__(&self) -> Self {
        PyFilter::from(!self.filter().clone())
    }

    fn __and__(&self, py: Python<'_>, other: &Bound<'_, PyFilter>) -> PyResult<Self> {
        self.inner
            .and(&other.get().inner)
            .map(|inner| PyFilter { inner })
            .map_err(|e| errors::filter_error(py, &e))
    }

    fn __or__(&self, py: Python<'_>, other: &Bound<'_, PyFilter>) -> PyResult<Self> {
        self.inner
            .or(&other.get().inner)
            .map(|inner| PyFilter { inner })
            .map_err(|e| errors::filter_error(py, &e))
    }

    /// A filter has no truth value: `500 <= f < 600` would keep only `f < 600`, and
    /// `f in [...]` would always hold.
    #[allow(clippy::unused_self)] // Python calls it on the object
    fn __bool__(&self) -> PyResult<bool> {
        Err(PyTypeError::new_err(
            "a Filter has no truth value: combine filters with & (and), | (or) and ~ (not), not with \
             `and`, `or`, `not` or a chained comparison such as `500 <= field(\"X\") < 600` (write \
             `(field(\"X\") >= 500) & (field(\"X\") < 600)`); compare filters with ==",
        ))
    }

    /// The text form (`f.to_text()`).
    fn __str__(&self) -> String {
        self.filter().to_text()
    }

    fn __repr__(&self, py: Python<'_>) -> String {
        format!("Filter({})", convert::repr(py, &self.filter().to_json()))
    }

    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> (Bound<'py, PyType>, (String,)) {
        (slf.get_type(), (slf.get().filter().to_json(),))
    }

    // -- issue 12: the text form, equivalence, compaction ------------------------------------

    /// Reads the text form: `EdgeResponseStatus >= 500 and ClientCountry in ["cn", "ru"]`.
    /// With a dataset, field names are checked against it. Raises `FilterError` whose one
    /// problem has the path `line L, column C` and a caret under the spot.
    #[staticmethod]
    #[pyo3(signature = (text, dataset=None, *, scope=None))]
    fn from_text(
        py: Python<'_>,
        text: &Bound<'_, PyAny>,
        dataset: Option<Text>,
        scope: Option<Text>,
    ) -> PyResult<Self> {
        let Some(text) = filter_text_of(text)? else {
            return Err(PyTypeError::new_err("Filter.from_text takes a str or bytes"));
        };
        let parsed = match dataset_arg(py, dataset.as_deref(), scope.as_deref())? {
            Some(ds) => Filter::from_text_for(&text, ds),
            None => Filter::from_text(&text),
        };
        parsed
            .map(PyFilter::from)
            .map_err(|e| errors::filter_error(py, &FilterError::from(e)))
    }

    /// The canonical text form; `Filter.from_text(f.to_text()) == f`.
    fn to_text(&self) -> String {
        self.filter().to_text()
    }

    /// Whether the two filters match exactly the same records, by the evaluation rules
    /// (missing fields, types, arrays, floats, integers of any size); with a dataset, among
    /// the records its schema allows. A decision, not a sample. `other` is a `Filter` or any
    /// form `Filter.from_dict` takes.
    #[pyo3(signature = (other, dataset=None, *, scope=None))]
    fn equivalent(
        &self,
        py: Python<'_>,
        other: &Bound<'_, PyAny>,
        dataset: Option<Text>,
        scope: Option<Text>,
    ) -> PyResult<bool> {
        let other = other_filter(py, other)?;
        let ds = dataset_arg(py, dataset.as_deref(), scope.as_deref())?;
        let this = self.filter();
        Ok(py.detach(|| this.equivalent(&other, ds)))
    }

    /// A record (a dict) on which exactly one of the two filters matches, fitting the
    /// dataset's schema when one is given; `None` when they are equivalent.
    #[pyo3(signature = (other, dataset=None, *, scope=None))]
    fn counterexample(
        &self,
        py: Python<'_>,
        other: &Bound<'_, PyAny>,
        dataset: Option<Text>,
        scope: Option<Text>,
    ) -> PyResult<Option<Py<PyDict>>> {
        let other = other_filter(py, other)?;
        let ds = dataset_arg(py, dataset.as_deref(), scope.as_deref())?;
        let this = self.filter();
        let Some(cx) = py.detach(|| this.counterexample(&other, ds)) else {
            return Ok(None);
        };
        let record = PyDict::new(py);
        for (key, value) in cx.fields() {
            record.set_item(key, field_value_to_py(py, value)?)?;
        }
        Ok(Some(record.unbind()))
    }

    /// An equivalent filter that is never larger (fewer operators first, then fewer bytes):
    /// flattened, deduplicated, `in` sets merged, shared conditions factored out, implied
    /// conditions dropped; with a dataset, equivalent on the records its schema allows
    /// (where an `or` of `eq`s becomes `in`). Every rewrite is proven by `equivalent`.
    #[pyo3(signature = (dataset=None, *, scope=None))]
    fn compact(&self, py: Python<'_>, dataset: Option<Text>, scope: Option<Text>) -> PyResult<Self> {
        let ds = dataset_arg(py, dataset.as_deref(), scope.as_deref())?;
        let this = self.filter();
        Ok(PyFilter::from(py.detach(|| this.compact(ds))))
    }

    /// Reads a filter written either way: JSON (also the quoted form) when the text starts
    /// with `{` or is one JSON string, else the text form. Raises `FilterError`.
    #[staticmethod]
    fn parse_any(py: Python<'_>, text: &Bound<'_, PyAny>) -> PyResult<Self> {
        let Some(text) = filter_text_of(text)? else {
            return Err(PyTypeError::new_err("Filter.parse_any takes a str or bytes"));
        };
        Filter::parse_any(&text)
            .map(PyFilter::from)
            .map_err(|e| errors::filter_error(py, &e))
    }
}

/// The other filter of a comparison: a `Filter`, text in either form, or a dict.
fn other_filter(py: Python<'_>, obj: &Bound<'_, PyAny>) -> PyResult<Filter> {
    match filter_text_of(obj)? {
        Some(text) => Filter::parse_any(&text).map_err(|e| errors::filter_error(py, &e)),
        None => filter_from_py(py, obj),
    }
}

/// A field value as the Python value `json.loads` would give.
fn field_value_to_py(py: Python<'_>, value: &FieldValue<'_>) -> PyResult<Py<PyAny>> {
    Ok(match value {
        FieldValue::Null | FieldValue::Object => py.None(),
        FieldValue::Bool(b) => pyo3::types::PyBool::new(py, *b).to_owned().into_any().unbind(),
        FieldValue::Int(n) => n.into_pyobject(py)?.into_any().unbind(),
        FieldValue::Float(x) => x.into_pyobject(py)?.into_any().unbind(),
        FieldValue::Str(s) => PyString::new(py, s).into_any().unbind(),
        FieldValue::Array(items) => {
            let list = PyList::empty(py);
            for item in items {
                list.append(field_value_to_py(py, item)?)?;
            }
            list.into_any().unbind()
        }
    })
}

/// A Python mapping as a log record: fields are looked up and converted only when a
/// condition reads them, so that `and` / `or` short-circuits skip the work.
struct PyRecord<'a, 'py> {
    mapping: &'a Bound<'py, PyAny>,
    /// The first lookup or conversion error; evaluation goes on, the caller raises it.
    error: RefCell<Option<PyErr>>,
}

impl PyRecord<'_, '_> {
    fn lookup(&self, key: &str) -> PyResult<Option<FieldValue<'static>>> {
        let value = if let Ok(dict) = self.mapping.cast::<PyDict>() {
            dict.get_item(key)?
        } else {
            match self.mapping.get_item(key) {
                Ok(v) => Some(v),
                Err(e) if e.is_instance_of::<pyo3::exceptions::PyKeyError>(self.mapping.py()) => None,
                Err(e) => return Err(e),
            }
        };
        value.map(|v| convert::to_field_value(&v)).transpose()
    }
}

impl Record for PyRecord<'_, '_> {
    fn field(&self, key: &str) -> Option<FieldValue<'_>> {
        match self.lookup(key) {
            Ok(value) => value,
            Err(err) => {
                self.error.borrow_mut().get_or_insert(err);
                None
            }
        }
    }
}
