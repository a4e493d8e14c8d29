//! Conversions between Python objects and the core's JSON and field values.

use std::borrow::Cow;

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyMapping, PyString, PyTuple};
use pyo3::IntoPyObjectExt;

use escpush_core::filter::too_deep;
use escpush_core::{FieldValue, Json, Problem, ProblemCode, MAX_JSON_DEPTH};

use crate::errors;

/// The containers on the way from the root to the value being converted, to refuse a
/// cycle (a list that holds itself) and nesting deeper than `limit`, as `json.dumps` refuses
/// them, instead of recursing until the stack overflows.
struct Path {
    open: Vec<usize>,
    limit: usize,
    /// Refuse numbers `serde_json` cannot hold, rather than hand them to the core.
    strict_numbers: bool,
}

/// Why a container cannot be entered: a cycle, or too deep.
enum Refusal {
    Cycle,
    TooDeep,
}

impl Path {
    fn new(limit: usize, strict_numbers: bool) -> Self {
        Path {
            open: Vec::new(),
            limit,
            strict_numbers,
        }
    }

    /// Enters the container `obj` (left with `leave`).
    fn enter(&mut self, obj: &Bound<'_, PyAny>) -> Result<(), Refusal> {
        let id = obj.as_ptr() as usize;
        if self.open.contains(&id) {
            return Err(Refusal::Cycle);
        }
        if self.open.len() >= self.limit {
            return Err(Refusal::TooDeep);
        }
        self.open.push(id);
        Ok(())
    }

    fn leave(&mut self) {
        self.open.pop();
    }
}

fn at(path: &str) -> String {
    if path.is_empty() {
        "the filter".to_owned()
    } else {
        format!("`{path}`")
    }
}

fn type_name(obj: &Bound<'_, PyAny>) -> String {
    obj.get_type().name().map_or_else(|_| "?".to_owned(), |n| n.to_string())
}

/// A Python value (dicts, lists, tuples, str, int, float, bool, None) of a filter as JSON,
/// for the core to check. Type conversion only: integers beyond 64 bits and non-finite
/// floats are handed over as written, for the core to judge. A cycle, nesting deeper than a
/// filter document can be ([`MAX_JSON_DEPTH`]) and other types are refused with a problem
/// at their path (`where.and[1].value`).
pub(crate) fn filter_json(obj: &Bound<'_, PyAny>, path: &str) -> Result<Json, Problem> {
    to_json_in(obj, path, &mut Path::new(MAX_JSON_DEPTH, false))
}

/// A Python value as JSON for a job field: as [`filter_json`], but a number JSON cannot
/// hold is refused here (nothing downstream would name it), and the error is its message.
pub(crate) fn to_json(obj: &Bound<'_, PyAny>, path: &str) -> Result<Json, String> {
    to_json_in(obj, path, &mut Path::new(MAX_JSON_DEPTH, true)).map_err(|p| p.message)
}

fn to_json_in(obj: &Bound<'_, PyAny>, path: &str, open: &mut Path) -> Result<Json, Problem> {
    let other = |message: String| Problem::new(path, ProblemCode::InvalidValue, message);
    if obj.is_none() {
        return Ok(Json::Null);
    }
    if let Ok(b) = obj.cast::<PyBool>() {
        return Ok(Json::Bool(b.is_true()));
    }
    if obj.is_instance_of::<PyInt>() {
        if let Ok(i) = obj.extract::<i64>() {
            return Ok(Json::Number(i.into()));
        }
        if let Ok(u) = obj.extract::<u64>() {
            return Ok(Json::Number(u.into()));
        }
        if open.strict_numbers {
            return Err(other(format!("{} is an integer outside the 64-bit range", at(path))));
        }
        return Ok(Json::BigNumber(
            obj.str().map_err(|e| other(e.to_string()))?.to_string(),
        ));
    }
    if let Ok(f) = obj.cast::<PyFloat>() {
        let value = f.value();
        return match serde_json::Number::from_f64(value) {
            Some(n) => Ok(Json::Number(n)),
            None if open.strict_numbers => Err(other(format!("{} is {value}, which JSON cannot hold", at(path)))),
            None => Ok(Json::BigNumber(value.to_string())),
        };
    }
    if let Ok(s) = obj.cast::<PyString>() {
        return Ok(Json::String(s.to_cow().map_err(|e| other(e.to_string()))?.into_owned()));
    }
    let is_dict = obj.is_instance_of::<PyDict>();
    let is_list = obj.is_instance_of::<PyList>() || obj.is_instance_of::<PyTuple>();
    if !is_dict && !is_list {
        return Err(other(format!(
            "{} is a {}; filters hold only dicts, lists, str, int, float, bool and None",
            at(path),
            type_name(obj)
        )));
    }
    match open.enter(obj) {
        Ok(()) => {}
        Err(Refusal::Cycle) => {
            return Err(other(format!(
                "{} contains itself; a filter is a tree, as JSON is",
                at(path)
            )))
        }
        Err(Refusal::TooDeep) => return Err(too_deep(path)),
    }
    let value = if let Ok(dict) = obj.cast::<PyDict>() {
        let mut members = Vec::with_capacity(dict.len());
        for (k, v) in dict.iter() {
            let key = k
                .cast::<PyString>()
                .map_err(|_| other(format!("{} has a key that is not a string", at(path))))?
                .to_cow()
                .map_err(|e| other(e.to_string()))?
                .into_owned();
            let sub = if path.is_empty() {
                key.clone()
            } else {
                format!("{path}.{key}")
            };
            members.push((key, to_json_in(&v, &sub, open)?));
        }
        Json::Object(members)
    } else {
        let mut items = Vec::new();
        for (i, item) in obj.try_iter().map_err(|e| other(e.to_string()))?.enumerate() {
            let item = item.map_err(|e| other(e.to_string()))?;
            items.push(to_json_in(&item, &format!("{path}[{i}]"), open)?);
        }
        Json::Array(items)
    };
    open.leave();
    Ok(value)
}

/// A JSON value as the plain Python object `json.loads` would give.
pub(crate) fn from_json(py: Python<'_>, value: &serde_json::Value) -> PyResult<Py<PyAny>> {
    Ok(match value {
        serde_json::Value::Null => py.None(),
        serde_json::Value::Bool(b) => b.into_py_any(py)?,
        serde_json::Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                i.into_py_any(py)?
            } else if let Some(u) = n.as_u64() {
                u.into_py_any(py)?
            } else {
                n.as_f64().unwrap_or(f64::NAN).into_py_any(py)?
            }
        }
        serde_json::Value::String(s) => s.into_py_any(py)?,
        serde_json::Value::Array(items) => {
            let list = PyList::empty(py);
            for item in items {
                list.append(from_json(py, item)?)?;
            }
            list.into_any().unbind()
        }
        serde_json::Value::Object(map) => {
            let dict = PyDict::new(py);
            for (k, v) in map {
                dict.set_item(k, from_json(py, v)?)?;
            }
            dict.into_any().unbind()
        }
    })
}

/// A Python value of a log record as the evaluator sees it. Integers beyond 128 bits
/// become floats (they keep their order, not their canonical text). A list that contains
/// itself, or lists nested deeper than [`MAX_JSON_DEPTH`], raise `InvalidInput` (a
/// `ValueError`), as `json.dumps` refuses them.
pub(crate) fn to_field_value(obj: &Bound<'_, PyAny>) -> PyResult<FieldValue<'static>> {
    to_field_value_in(obj, &mut Path::new(MAX_JSON_DEPTH, false))
}

fn to_field_value_in(obj: &Bound<'_, PyAny>, open: &mut Path) -> PyResult<FieldValue<'static>> {
    if obj.is_none() {
        return Ok(FieldValue::Null);
    }
    if let Ok(b) = obj.cast::<PyBool>() {
        return Ok(FieldValue::Bool(b.is_true()));
    }
    if obj.is_instance_of::<PyInt>() {
        return Ok(match obj.extract::<i128>() {
            Ok(i) => FieldValue::Int(i),
            Err(_) => FieldValue::Float(obj.extract::<f64>()?),
        });
    }
    if let Ok(f) = obj.cast::<PyFloat>() {
        return Ok(FieldValue::Float(f.value()));
    }
    if let Ok(s) = obj.cast::<PyString>() {
        return Ok(FieldValue::Str(Cow::Owned(s.to_cow()?.into_owned())));
    }
    if obj.is_instance_of::<PyList>() || obj.is_instance_of::<PyTuple>() {
        match open.enter(obj) {
            Ok(()) => {}
            Err(Refusal::Cycle) => {
                return Err(errors::invalid_input(
                    obj.py(),
                    "the record holds a list that contains itself; a log record is JSON, a tree",
                ))
            }
            Err(Refusal::TooDeep) => {
                return Err(errors::invalid_input(
                    obj.py(),
                    format!("the record nests lists more than {MAX_JSON_DEPTH} deep"),
                ))
            }
        }
        let items = obj
            .try_iter()?
            .map(|item| to_field_value_in(&item?, open))
            .collect::<PyResult<Vec<_>>>()?;
        open.leave();
        return Ok(FieldValue::Array(items));
    }
    if obj.is_instance_of::<PyDict>() || obj.cast::<PyMapping>().is_ok() {
        return Ok(FieldValue::Object);
    }
    Err(PyTypeError::new_err(format!(
        "a log record holds JSON values; got {}",
        obj.get_type().name()?
    )))
}

/// A string as Python's `repr` writes it (`'abc'`), for the constructor-like reprs.
pub(crate) fn repr(py: Python<'_>, s: &str) -> String {
    PyString::new(py, s)
        .repr()
        .map_or_else(|_| format!("{s:?}"), |r| r.to_string())
}

/// `value` checked against `min..=max`; `InvalidInput` naming `what` and the range otherwise
/// (instead of the `OverflowError` a narrower Rust type would give).
pub(crate) fn int_in_range(py: Python<'_>, what: &str, value: i64, min: i64, max: i64) -> PyResult<i64> {
    if (min..=max).contains(&value) {
        Ok(value)
    } else {
        Err(errors::invalid_input(
            py,
            format!("invalid {what}: must be from {min} to {max} (got {value})"),
        ))
    }
}
