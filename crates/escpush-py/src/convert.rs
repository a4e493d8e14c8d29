//! Conversions between Python objects and the core's JSON and field values.

use std::borrow::Cow;

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyMapping, PySequence, PyString};
use pyo3::IntoPyObjectExt;

use escpush_core::{FieldValue, Json};

/// A Python value (dicts, lists, tuples, str, int, float, bool, None) as JSON.
/// The error names the path of the offending value (`where.and[1].value`).
pub(crate) fn to_json(obj: &Bound<'_, PyAny>, path: &str) -> Result<Json, String> {
    let at = |p: &str| {
        if p.is_empty() {
            "the filter".to_owned()
        } else {
            format!("`{p}`")
        }
    };
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
        return Err(format!("{} is an integer outside the 64-bit range", at(path)));
    }
    if let Ok(f) = obj.cast::<PyFloat>() {
        return serde_json::Number::from_f64(f.value())
            .map(Json::Number)
            .ok_or_else(|| format!("{} is {}, which JSON cannot hold", at(path), f.value()));
    }
    if let Ok(s) = obj.cast::<PyString>() {
        return Ok(Json::String(s.to_cow().map_err(|e| e.to_string())?.into_owned()));
    }
    if let Ok(dict) = obj.cast::<PyDict>() {
        let mut members = Vec::with_capacity(dict.len());
        for (k, v) in dict.iter() {
            let key = k
                .cast::<PyString>()
                .map_err(|_| format!("{} has a key that is not a string", at(path)))?
                .to_cow()
                .map_err(|e| e.to_string())?
                .into_owned();
            let sub = if path.is_empty() {
                key.clone()
            } else {
                format!("{path}.{key}")
            };
            members.push((key, to_json(&v, &sub)?));
        }
        return Ok(Json::Object(members));
    }
    if obj.is_instance_of::<PyList>() || obj.is_instance_of::<pyo3::types::PyTuple>() {
        let seq = obj.cast::<PySequence>().map_err(|e| e.to_string())?;
        let mut items = Vec::new();
        for (i, item) in seq.try_iter().map_err(|e| e.to_string())?.enumerate() {
            let item = item.map_err(|e| e.to_string())?;
            items.push(to_json(&item, &format!("{path}[{i}]"))?);
        }
        return Ok(Json::Array(items));
    }
    let type_name = obj.get_type().name().map_or_else(|_| "?".to_owned(), |n| n.to_string());
    Err(format!(
        "{} is a {type_name}; filters hold only dicts, lists, str, int, float, bool and None",
        at(path)
    ))
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
/// become floats (they keep their order, not their canonical text).
pub(crate) fn to_field_value(obj: &Bound<'_, PyAny>) -> PyResult<FieldValue<'static>> {
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
    if obj.is_instance_of::<PyList>() || obj.is_instance_of::<pyo3::types::PyTuple>() {
        let items = obj
            .try_iter()?
            .map(|item| to_field_value(&item?))
            .collect::<PyResult<Vec<_>>>()?;
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
