//! `escpush.Filter`, `escpush.Field` / `escpush.field`, and the dataset functions.

use std::cell::RefCell;

use pyo3::basic::CompareOp;
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyBytes, PyDict, PyFrozenSet, PyInt, PyList, PySet, PyString, PyType};

use escpush_core::{
    datasets as core_datasets, field as core_field, Dataset, DatasetScope, FieldValue, Filter, FilterError, Limits,
    Problem, ProblemCode, Record, Scalar,
};

use crate::convert;
use crate::errors;

/// A log-push job filter, `{"where": ...}`.
#[pyclass(name = "Filter", module = "escpush", frozen, eq, hash)]
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct PyFilter {
    pub(crate) inner: Filter,
}

fn parse(py: Python<'_>, text: &str) -> PyResult<PyFilter> {
    Filter::parse(text)
        .map(|inner| PyFilter { inner })
        .map_err(|e| errors::filter_error(py, &e))
}

/// Text from `str` or UTF-8 `bytes`.
fn text_of(obj: &Bound<'_, PyAny>) -> PyResult<Option<String>> {
    if let Ok(s) = obj.cast::<PyString>() {
        return Ok(Some(s.to_cow()?.into_owned()));
    }
    if let Ok(b) = obj.cast::<PyBytes>() {
        return std::str::from_utf8(b.as_bytes())
            .map(|s| Some(s.to_owned()))
            .map_err(|e| errors::invalid_input(obj.py(), format!("the bytes are not UTF-8: {e}")));
    }
    Ok(None)
}

fn scope_arg(py: Python<'_>, scope: Option<&str>) -> PyResult<Option<DatasetScope>> {
    scope
        .map(|s| s.parse::<DatasetScope>().map_err(|e| errors::core_error(py, &e)))
        .transpose()
}

fn dataset_arg(py: Python<'_>, dataset: Option<&str>, scope: Option<&str>) -> PyResult<Option<&'static Dataset>> {
    let scope = scope_arg(py, scope)?;
    dataset
        .map(|name| Dataset::get(name, scope).map_err(|e| errors::core_error(py, &e)))
        .transpose()
}

/// A filter from any Python form: a `Filter`, its JSON text (str or bytes, also the quoted
/// form), or a dict `{"where": ...}`. Every problem raises `FilterError`.
pub(crate) fn filter_from_py(py: Python<'_>, obj: &Bound<'_, PyAny>) -> PyResult<Filter> {
    if let Ok(f) = obj.cast::<PyFilter>() {
        return Ok(f.get().inner.clone());
    }
    if let Some(t) = text_of(obj)? {
        return parse(py, &t).map(|f| f.inner);
    }
    let json = convert::to_json(obj, "").map_err(|message| {
        errors::filter_error(
            py,
            &FilterError::new(vec![Problem::new("", ProblemCode::InvalidValue, message)]),
        )
    })?;
    Filter::from_json(json).map_err(|e| errors::filter_error(py, &e))
}

#[pymethods]
impl PyFilter {
    /// `Filter('{"where": ...}')`: the same as `Filter.parse`.
    #[new]
    fn py_new(py: Python<'_>, text: &str) -> PyResult<Self> {
        parse(py, text)
    }

    /// Parses filter JSON: `{"where": ...}` as text, or that text quoted and escaped as it
    /// stands in a job payload. Raises `FilterError` listing every problem.
    #[staticmethod]
    fn parse(py: Python<'_>, text: &Bound<'_, PyAny>) -> PyResult<Self> {
        match text_of(text)? {
            Some(t) => parse(py, &t),
            None => Err(PyTypeError::new_err(
                "Filter.parse takes a str or bytes; use Filter.from_dict for a dict",
            )),
        }
    }

    /// Builds a filter from a dict `{"where": {...}}` (or a str, as `parse`).
    #[staticmethod]
    fn from_dict(py: Python<'_>, obj: &Bound<'_, PyAny>) -> PyResult<Self> {
        filter_from_py(py, obj).map(|inner| PyFilter { inner })
    }

    /// Canonical compact JSON: the value for a job's `filter` field.
    fn to_json(&self) -> String {
        self.inner.to_json()
    }

    /// The filter as plain dicts and lists.
    fn to_dict(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        convert::from_json(py, &self.inner.to_value())
    }

    /// How many comparison operators (conditions) the filter holds.
    #[getter]
    fn operator_count(&self) -> usize {
        self.inner.operator_count()
    }

    /// The size of the canonical JSON in bytes.
    #[getter]
    fn byte_size(&self) -> usize {
        self.inner.byte_size()
    }

    /// The field names the filter reads, each once, in order of first use.
    #[getter]
    fn fields(&self) -> Vec<String> {
        self.inner.fields().into_iter().map(str::to_owned).collect()
    }

    /// Raises `FilterError` listing every problem the API would refuse (limits; and given a
    /// dataset: unknown or unfilterable fields, operators the field's type does not take,
    /// values no field of that type can equal). Returns None when the filter is fine.
    #[pyo3(signature = (dataset=None, *, scope=None, max_operators=30, max_bytes=1000))]
    fn validate(
        &self,
        py: Python<'_>,
        dataset: Option<&str>,
        scope: Option<&str>,
        max_operators: usize,
        max_bytes: usize,
    ) -> PyResult<()> {
        let ds = dataset_arg(py, dataset, scope)?;
        self.inner
            .validate(ds, Limits::new(max_operators, max_bytes))
            .map_err(|e| errors::filter_error(py, &e))
    }

    /// The problems `validate` would raise, as a list of dicts (path, code, message).
    #[pyo3(signature = (dataset=None, *, scope=None, max_operators=30, max_bytes=1000))]
    fn problems<'py>(
        &self,
        py: Python<'py>,
        dataset: Option<&str>,
        scope: Option<&str>,
        max_operators: usize,
        max_bytes: usize,
    ) -> PyResult<Bound<'py, PyList>> {
        let ds = dataset_arg(py, dataset, scope)?;
        errors::problem_list(py, &self.inner.problems(ds, Limits::new(max_operators, max_bytes)))
    }

    /// Whether a log record (a dict, or one JSON line as str/bytes) passes the filter.
    /// A JSON line is read by the same evaluator as `scan`.
    fn matches(&self, py: Python<'_>, record: &Bound<'_, PyAny>) -> PyResult<bool> {
        if let Some(line) = text_of(record)? {
            // The line evaluator `scan` uses, so one line gives one answer everywhere
            // (numbers as json.loads reads them: `-0`, integers of any size).
            return self
                .inner
                .compile()
                .matches_line(line.as_bytes())
                .map_err(|e| errors::invalid_input(py, format!("the record is not a JSON object ({e})")));
        }
        let record = PyRecord {
            mapping: record,
            error: RefCell::new(None),
        };
        let matched = self.inner.matches(&record);
        match record.error.into_inner() {
            Some(err) => Err(err),
            None => Ok(matched),
        }
    }

    /// Runs the filter over NDJSON log files (plain or gzip; `"-"` is stdin) on every core,
    /// with the GIL released, and counts the lines that match. See `escpush.ScanResult`.
    #[pyo3(signature = (paths, *, strict=false, threads=None, progress=None, since=None, until=None, limit=None))]
    #[allow(clippy::too_many_arguments)] // Python keyword arguments
    fn scan(
        &self,
        py: Python<'_>,
        paths: &Bound<'_, PyAny>,
        strict: bool,
        threads: Option<usize>,
        progress: Option<Py<PyAny>>,
        since: Option<&Bound<'_, PyAny>>,
        until: Option<&Bound<'_, PyAny>>,
        limit: Option<u64>,
    ) -> PyResult<crate::scan::PyScanResult> {
        let options = crate::scan::Options {
            strict,
            threads,
            progress,
            since,
            until,
            limit,
        };
        crate::scan::scan(py, &self.inner, paths, options)
    }

    /// Writes the lines of `src` (one path or a list) that match to the file `dst`, in input
    /// order; returns the counts, as `scan` does.
    #[allow(clippy::too_many_arguments, clippy::needless_pass_by_value)] // Python arguments, extracted by value
    #[pyo3(signature = (src, dst, *, strict=false, threads=None, progress=None, since=None, until=None, limit=None))]
    fn select(
        &self,
        py: Python<'_>,
        src: &Bound<'_, PyAny>,
        dst: std::path::PathBuf,
        strict: bool,
        threads: Option<usize>,
        progress: Option<Py<PyAny>>,
        since: Option<&Bound<'_, PyAny>>,
        until: Option<&Bound<'_, PyAny>>,
        limit: Option<u64>,
    ) -> PyResult<crate::scan::PyScanResult> {
        let options = crate::scan::Options {
            strict,
            threads,
            progress,
            since,
            until,
            limit,
        };
        crate::scan::select(py, &self.inner, src, &dst, options)
    }

    fn __invert__(&self) -> Self {
        PyFilter {
            inner: !self.inner.clone(),
        }
    }

    fn __and__(&self, other: &Bound<'_, PyFilter>) -> Self {
        PyFilter {
            inner: self.inner.clone() & other.get().inner.clone(),
        }
    }

    fn __or__(&self, other: &Bound<'_, PyFilter>) -> Self {
        PyFilter {
            inner: self.inner.clone() | other.get().inner.clone(),
        }
    }

    fn __str__(&self) -> String {
        self.inner.to_json()
    }

    fn __repr__(&self, py: Python<'_>) -> String {
        let text = PyString::new(py, &self.inner.to_json());
        match text.repr() {
            Ok(r) => format!("Filter({r})"),
            Err(_) => "Filter(<unprintable>)".to_owned(),
        }
    }

    /// In Jupyter: the filter as a tree, its size against the default limits, its JSON.
    fn _repr_html_(slf: &Bound<'_, Self>) -> PyResult<String> {
        let limits = Limits::default();
        crate::display::html(slf.py(), "filter_html", (slf, limits.max_operators, limits.max_bytes))
    }

    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> (Bound<'py, PyType>, (String,)) {
        (slf.get_type(), (slf.get().inner.to_json(),))
    }
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

/// A log field waiting for an operator; `field(name)` makes one.
#[pyclass(name = "Field", module = "escpush", frozen)]
#[derive(Debug)]
pub struct PyField {
    name: String,
}

fn value_problem(py: Python<'_>, code: ProblemCode, message: String) -> PyErr {
    errors::filter_error(py, &FilterError::new(vec![Problem::new("value", code, message)]))
}

/// One filter value: str, int or bool.
fn scalar(obj: &Bound<'_, PyAny>) -> PyResult<Scalar> {
    let py = obj.py();
    if let Ok(b) = obj.cast::<PyBool>() {
        return Ok(Scalar::Bool(b.is_true()));
    }
    if obj.is_instance_of::<PyInt>() {
        return obj.extract::<i64>().map(Scalar::Int).map_err(|_| {
            value_problem(
                py,
                ProblemCode::IntegerOutOfRange,
                format!("{obj} is outside the 64-bit integer range"),
            )
        });
    }
    if let Ok(s) = obj.cast::<PyString>() {
        return Ok(Scalar::String(s.to_cow()?.into_owned()));
    }
    Err(value_problem(
        py,
        ProblemCode::InvalidValue,
        format!(
            "a filter value is a str, an int or a bool, not {} ({})",
            obj.get_type().name()?,
            obj.repr()?
        ),
    ))
}

fn integer(obj: &Bound<'_, PyAny>, op: &str) -> PyResult<i64> {
    let py = obj.py();
    let s = scalar(obj)?;
    s.as_integer().filter(|_| !matches!(s, Scalar::Bool(_))).ok_or_else(|| {
        value_problem(
            py,
            ProblemCode::NotAnInteger,
            format!("`{op}` compares numbers; {s} is not an integer (write it like 500 or \"500\")"),
        )
    })
}

fn string(obj: &Bound<'_, PyAny>, op: &str) -> PyResult<String> {
    match obj.cast::<PyString>() {
        Ok(s) => Ok(s.to_cow()?.into_owned()),
        Err(_) => Err(value_problem(
            obj.py(),
            ProblemCode::InvalidValue,
            format!("`{op}` takes a str, not {}", obj.get_type().name()?),
        )),
    }
}

fn set(obj: &Bound<'_, PyAny>, op: &str) -> PyResult<Vec<Scalar>> {
    let py = obj.py();
    if obj.is_instance_of::<PyString>() || obj.is_instance_of::<PyBytes>() {
        return Err(value_problem(
            py,
            ProblemCode::InvalidValue,
            format!(
                "`{op}` takes a list of values, not a single string; write [{}]",
                obj.repr()?
            ),
        ));
    }
    let mut values = obj
        .try_iter()
        .map_err(|_| value_problem(py, ProblemCode::InvalidValue, format!("`{op}` takes a list of values")))?
        .map(|item| scalar(&item?))
        .collect::<PyResult<Vec<_>>>()?;
    if values.is_empty() {
        return Err(value_problem(
            py,
            ProblemCode::EmptySet,
            format!("`{op}` needs at least one value"),
        ));
    }
    // A Python set has no stable order; sort it so that the filter prints the same bytes every run.
    if obj.is_instance_of::<PySet>() || obj.is_instance_of::<PyFrozenSet>() {
        values.sort();
    }
    Ok(values)
}

impl PyField {
    fn make(&self, build: impl FnOnce(escpush_core::Field) -> Filter) -> PyFilter {
        PyFilter {
            inner: build(core_field(self.name.clone())),
        }
    }
}

#[pymethods]
impl PyField {
    #[new]
    fn py_new(py: Python<'_>, name: &str) -> PyResult<Self> {
        if name.is_empty() {
            return Err(errors::filter_error(
                py,
                &FilterError::new(vec![Problem::new(
                    "key",
                    ProblemCode::EmptyKey,
                    "a field name cannot be empty",
                )]),
            ));
        }
        Ok(PyField { name: name.to_owned() })
    }

    /// The field's name.
    #[getter]
    fn name(&self) -> &str {
        &self.name
    }

    /// `eq`: equals `value` (str, int or bool).
    fn eq(&self, value: &Bound<'_, PyAny>) -> PyResult<PyFilter> {
        let v = scalar(value)?;
        Ok(self.make(|f| f.eq(v)))
    }

    /// `!eq`: does not equal `value` (true where the field is missing).
    fn ne(&self, value: &Bound<'_, PyAny>) -> PyResult<PyFilter> {
        let v = scalar(value)?;
        Ok(self.make(|f| f.ne(v)))
    }

    /// `lt`: a number less than `value` (an int, or its decimal text).
    fn lt(&self, value: &Bound<'_, PyAny>) -> PyResult<PyFilter> {
        let v = integer(value, "lt")?;
        Ok(self.make(|f| f.lt(v)))
    }

    /// `leq`: a number less than or equal to `value`.
    fn le(&self, value: &Bound<'_, PyAny>) -> PyResult<PyFilter> {
        let v = integer(value, "leq")?;
        Ok(self.make(|f| f.le(v)))
    }

    /// `gt`: a number greater than `value`.
    fn gt(&self, value: &Bound<'_, PyAny>) -> PyResult<PyFilter> {
        let v = integer(value, "gt")?;
        Ok(self.make(|f| f.gt(v)))
    }

    /// `geq`: a number greater than or equal to `value`.
    fn ge(&self, value: &Bound<'_, PyAny>) -> PyResult<PyFilter> {
        let v = integer(value, "geq")?;
        Ok(self.make(|f| f.ge(v)))
    }

    /// `startsWith`: a string starting with `prefix`.
    fn starts_with(&self, prefix: &Bound<'_, PyAny>) -> PyResult<PyFilter> {
        let v = string(prefix, "startsWith")?;
        Ok(self.make(|f| f.starts_with(v)))
    }

    /// `endsWith`: a string ending with `suffix`.
    fn ends_with(&self, suffix: &Bound<'_, PyAny>) -> PyResult<PyFilter> {
        let v = string(suffix, "endsWith")?;
        Ok(self.make(|f| f.ends_with(v)))
    }

    /// `!startsWith`.
    fn not_starts_with(&self, prefix: &Bound<'_, PyAny>) -> PyResult<PyFilter> {
        let v = string(prefix, "!startsWith")?;
        Ok(self.make(|f| f.not_starts_with(v)))
    }

    /// `!endsWith`.
    fn not_ends_with(&self, suffix: &Bound<'_, PyAny>) -> PyResult<PyFilter> {
        let v = string(suffix, "!endsWith")?;
        Ok(self.make(|f| f.not_ends_with(v)))
    }

    /// `contains`: a substring of a string field, an element of an array field.
    fn contains(&self, value: &Bound<'_, PyAny>) -> PyResult<PyFilter> {
        let v = scalar(value)?;
        Ok(self.make(|f| f.contains(v)))
    }

    /// `!contains`.
    fn not_contains(&self, value: &Bound<'_, PyAny>) -> PyResult<PyFilter> {
        let v = scalar(value)?;
        Ok(self.make(|f| f.not_contains(v)))
    }

    /// `in`: the value (or any element of an array field) is one of `values`.
    fn is_in(&self, values: &Bound<'_, PyAny>) -> PyResult<PyFilter> {
        let v = set(values, "in")?;
        Ok(self.make(|f| f.is_in(v)))
    }

    /// `!in`.
    fn not_in(&self, values: &Bound<'_, PyAny>) -> PyResult<PyFilter> {
        let v = set(values, "!in")?;
        Ok(self.make(|f| f.not_in(v)))
    }

    /// `field == v`, `!=`, `<`, `<=`, `>`, `>=` make filters, like the methods.
    fn __richcmp__(&self, other: &Bound<'_, PyAny>, op: CompareOp) -> PyResult<PyFilter> {
        match op {
            CompareOp::Eq => self.eq(other),
            CompareOp::Ne => self.ne(other),
            CompareOp::Lt => self.lt(other),
            CompareOp::Le => self.le(other),
            CompareOp::Gt => self.gt(other),
            CompareOp::Ge => self.ge(other),
        }
    }

    fn __repr__(&self) -> String {
        format!("field({:?})", self.name)
    }
}

/// `field(name)`: the start of a condition on a log field.
#[pyfunction]
pub fn field(py: Python<'_>, name: &str) -> PyResult<PyField> {
    PyField::py_new(py, name)
}

/// The names of every embedded Logpush dataset (of one scope, if given).
#[pyfunction]
#[pyo3(signature = (scope=None))]
pub fn datasets(py: Python<'_>, scope: Option<&str>) -> PyResult<Vec<String>> {
    let scope = scope_arg(py, scope)?;
    let mut names: Vec<String> = core_datasets()
        .iter()
        .filter(|d| scope.is_none_or(|s| d.scope() == s))
        .map(|d| d.name().to_owned())
        .collect();
    names.sort();
    names.dedup();
    Ok(names)
}

/// The fields of a dataset, name → documented type (`"string"`, `"int"`, `"array[string]"`, ...).
#[pyfunction]
#[pyo3(signature = (dataset, scope=None))]
pub fn dataset_fields(py: Python<'_>, dataset: &str, scope: Option<&str>) -> PyResult<Py<PyDict>> {
    let ds = dataset_arg(py, Some(dataset), scope)?.expect("a dataset was named");
    let dict = PyDict::new(py);
    for f in ds.fields() {
        dict.set_item(f.name(), f.field_type().as_str())?;
    }
    Ok(dict.unbind())
}
