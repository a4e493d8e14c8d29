//! `escpush.Field` and `escpush.field`: a log field waiting for an operator, and the
//! conversion of a condition's Python value for core's checked builders.

use pyo3::basic::CompareOp;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyFrozenSet, PyList, PySet, PyString, PyTuple};

use escpush_filter::{Field, Json, Operator, Problem, ProblemCode};

use crate::convert;
use crate::convert::Text;
use crate::errors;
use crate::filter::{problem_error, PyFilter};

/// A log field waiting for an operator; `field(name)` makes one.
#[pyclass(name = "Field", module = "escpush", frozen)]
#[derive(Debug)]
pub struct PyField {
    field: Field,
}

/// The values of `in` / `!in` as JSON: a list or tuple as it is; any other iterable
/// (set, generator, ...) item by item, and whether its order means nothing (a set). A str
/// or anything not iterable is handed over as one value, for the core to refuse.
fn set_json(obj: &Bound<'_, PyAny>) -> Result<(Json, bool), Problem> {
    let is_text = obj.is_instance_of::<PyString>() || obj.is_instance_of::<PyBytes>();
    if is_text || obj.is_instance_of::<PyList>() || obj.is_instance_of::<PyTuple>() {
        return Ok((convert::filter_json(obj, "value")?, false));
    }
    let Ok(iter) = obj.try_iter() else {
        return Ok((convert::filter_json(obj, "value")?, false));
    };
    let unordered = obj.is_instance_of::<PySet>() || obj.is_instance_of::<PyFrozenSet>();
    let mut items = Vec::new();
    for (i, item) in iter.enumerate() {
        let path = format!("value[{i}]");
        let item = item.map_err(|e| Problem::new(path.clone(), ProblemCode::InvalidValue, e.to_string()))?;
        items.push(convert::filter_json(&item, &path)?);
    }
    Ok((Json::Array(items), unordered))
}

/// A `str` for `startsWith` / `endsWith` and their negations, the type the core's builders
/// take for them.
fn text_value(obj: &Bound<'_, PyAny>, op: Operator) -> Result<Json, Problem> {
    if obj.is_instance_of::<PyString>() {
        convert::filter_json(obj, "value")
    } else {
        Err(Problem::new(
            "value",
            ProblemCode::InvalidValue,
            format!(
                "`{op}` takes a str, not {}",
                obj.get_type().name().map_or_else(|_| "?".to_owned(), |n| n.to_string())
            ),
        ))
    }
}

impl PyField {
    /// The condition `operator` with `value`, converted, then checked by the core.
    fn make(&self, operator: Operator, value: &Bound<'_, PyAny>) -> PyResult<PyFilter> {
        let py = value.py();
        let (json, unordered) = if operator.takes_set() {
            set_json(value)
        } else if operator.takes_text() {
            text_value(value, operator).map(|json| (json, false))
        } else {
            convert::filter_json(value, "value").map(|json| (json, false))
        }
        .map_err(|p| problem_error(py, p))?;
        self.field
            .clone()
            .build(operator, &json, unordered)
            .map(PyFilter::from)
            .map_err(|e| errors::filter_error(py, &e))
    }
}

#[pymethods]
impl PyField {
    #[new]
    fn py_new(py: Python<'_>, name: Text) -> PyResult<Self> {
        let name = &*name;
        Field::new(name)
            .map(|field| PyField { field })
            .map_err(|e| errors::filter_error(py, &e))
    }

    /// The field's name.
    #[getter]
    fn name(&self) -> &str {
        self.field.name()
    }

    /// `eq`: equals `value` (str, int or bool).
    fn eq(&self, value: &Bound<'_, PyAny>) -> PyResult<PyFilter> {
        self.make(Operator::Eq, value)
    }

    /// `!eq`: does not equal `value` (true where the field is missing).
    fn ne(&self, value: &Bound<'_, PyAny>) -> PyResult<PyFilter> {
        self.make(Operator::NotEq, value)
    }

    /// `lt`: a number less than `value` (an int, or its decimal text).
    fn lt(&self, value: &Bound<'_, PyAny>) -> PyResult<PyFilter> {
        self.make(Operator::Lt, value)
    }

    /// `leq`: a number less than or equal to `value`.
    fn le(&self, value: &Bound<'_, PyAny>) -> PyResult<PyFilter> {
        self.make(Operator::Leq, value)
    }

    /// `gt`: a number greater than `value`.
    fn gt(&self, value: &Bound<'_, PyAny>) -> PyResult<PyFilter> {
        self.make(Operator::Gt, value)
    }

    /// `geq`: a number greater than or equal to `value`.
    fn ge(&self, value: &Bound<'_, PyAny>) -> PyResult<PyFilter> {
        self.make(Operator::Geq, value)
    }

    /// `startsWith`: a string starting with `prefix`.
    fn starts_with(&self, prefix: &Bound<'_, PyAny>) -> PyResult<PyFilter> {
        self.make(Operator::StartsWith, prefix)
    }

    /// `endsWith`: a string ending with `suffix`.
    fn ends_with(&self, suffix: &Bound<'_, PyAny>) -> PyResult<PyFilter> {
        self.make(Operator::EndsWith, suffix)
    }

    /// `!startsWith`.
    fn not_starts_with(&self, prefix: &Bound<'_, PyAny>) -> PyResult<PyFilter> {
        self.make(Operator::NotStartsWith, prefix)
    }

    /// `!endsWith`.
    fn not_ends_with(&self, suffix: &Bound<'_, PyAny>) -> PyResult<PyFilter> {
        self.make(Operator::NotEndsWith, suffix)
    }

    /// `contains`: a substring of a string field, an element of an array field.
    fn contains(&self, value: &Bound<'_, PyAny>) -> PyResult<PyFilter> {
        self.make(Operator::Contains, value)
    }

    /// `!contains`.
    fn not_contains(&self, value: &Bound<'_, PyAny>) -> PyResult<PyFilter> {
        self.make(Operator::NotContains, value)
    }

    /// `in`: the value (or any element of an array field) is one of `values`.
    fn is_in(&self, values: &Bound<'_, PyAny>) -> PyResult<PyFilter> {
        self.make(Operator::In, values)
    }

    /// `!in`.
    fn not_in(&self, values: &Bound<'_, PyAny>) -> PyResult<PyFilter> {
        self.make(Operator::NotIn, values)
    }

    /// The condition with the operator named `operator` (`"geq"`, `"!in"`: the API's
    /// names): `field(k).op("geq", 500) == field(k).ge(500)`, for code that holds operators
    /// as text (a form, a table). An unknown name raises `FilterError` (`unknown_operator`
    /// at `operator`, with what was probably meant), as `Filter.parse` words it.
    fn op(&self, operator: Text, value: &Bound<'_, PyAny>) -> PyResult<PyFilter> {
        let py = value.py();
        let operator = Operator::named(&operator, "operator").map_err(|p| problem_error(py, p))?;
        self.make(operator, value)
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
        format!("field({:?})", self.field.name())
    }
}

/// `field(name)`: the start of a condition on a log field.
#[pyfunction]
pub fn field(py: Python<'_>, name: Text) -> PyResult<PyField> {
    let name = &*name;
    PyField::py_new(py, Text(name.to_owned()))
}
