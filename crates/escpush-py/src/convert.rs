//! Conversions between Python objects and the core's JSON and field values.

use std::borrow::Cow;
use std::fmt::Write as _;

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyBytes, PyDict, PyFloat, PyInt, PyList, PyMapping, PyString, PyTuple};
use pyo3::IntoPyObjectExt;

use escpush_filter::too_deep;
use escpush_filter::{FieldValue, Json, Problem, ProblemCode, MAX_JSON_DEPTH};

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
        return Ok(Json::String(
            s.to_cow()
                .map_err(|e| other(format!("{} {}", at(path), lone_surrogate(&e, s))))?
                .into_owned(),
        ));
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
        // A job field is not a filter: its own words, not the filter's group limit.
        Err(Refusal::TooDeep) if open.strict_numbers => {
            return Err(other(format!(
                "{} nests lists and dicts more than {} deep",
                at(path),
                open.limit
            )))
        }
        Err(Refusal::TooDeep) => return Err(too_deep(path)),
    }
    let value = if let Ok(dict) = obj.cast::<PyDict>() {
        let mut members = Vec::with_capacity(dict.len());
        for (k, v) in dict.iter() {
            let key = k
                .cast::<PyString>()
                .map_err(|_| other(format!("{} has a key that is not a string", at(path))))?;
            let key = key
                .to_cow()
                .map_err(|e| other(format!("a key of {} {}", at(path), lone_surrogate(&e, key))))?
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

/// How deep a document a person writes may nest: an `apply` file holds jobs that hold
/// filters in the object form, which nest up to [`MAX_JSON_DEPTH`] themselves.
const DOCUMENT_DEPTH: usize = MAX_JSON_DEPTH + 8;

/// `_load_json(text)`: a JSON document a person wrote (an `apply` file, a job field given
/// as JSON on the command line) as the plain Python object `json.loads` gives, read by
/// core's strict reader: a member given twice, `NaN` / `Infinity`, a lone surrogate and
/// nesting beyond a filter's depth raise `InvalidInput` with the line and column, where
/// `json.loads` keeps the last member, accepts `NaN` and overflows the recursion limit.
/// A number beyond 64 bits comes back as a Python int (or float), for the job checks to
/// name with its path.
#[pyfunction]
pub fn _load_json(py: Python<'_>, text: Text) -> PyResult<Py<PyAny>> {
    let json = escpush_filter::Json::parse_unique(&text, DOCUMENT_DEPTH)
        .map_err(|e| errors::invalid_input(py, format!("not JSON: {e}")))?;
    json_to_py(py, &json, 0)
}

/// A core JSON tree as Python objects; its depth is bounded by the reader.
fn json_to_py(py: Python<'_>, json: &Json, depth: usize) -> PyResult<Py<PyAny>> {
    debug_assert!(depth <= DOCUMENT_DEPTH);
    Ok(match json {
        Json::Array(items) => {
            let list = PyList::empty(py);
            for item in items {
                list.append(json_to_py(py, item, depth + 1)?)?;
            }
            list.into_any().unbind()
        }
        Json::Object(members) => {
            let dict = PyDict::new(py);
            for (k, v) in members {
                dict.set_item(k, json_to_py(py, v, depth + 1)?)?;
            }
            dict.into_any().unbind()
        }
        Json::BigNumber(text) => {
            let builtins = py.import("builtins")?;
            let is_int = !text.contains(['.', 'e', 'E']);
            builtins
                .getattr(if is_int { "int" } else { "float" })?
                .call1((text.as_str(),))?
                .unbind()
        }
        other => from_json(py, &serde_json::Value::from(other.clone()))?,
    })
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

/// What is wrong with a `str` that UTF-8 cannot encode: its first lone surrogate (a
/// `\ud800`..`\udfff` that is not half of a pair, as `json.loads('"\\ud800"')` or the
/// `surrogateescape` decoding of a byte that is not UTF-8 makes), by code and position.
/// The text itself is never shown: it may be a secret.
pub(crate) fn lone_surrogate(err: &PyErr, s: &Bound<'_, PyString>) -> String {
    let py = s.py();
    let at: usize = err.value(py).getattr("start").and_then(|a| a.extract()).unwrap_or(0);
    let code = s
        .call_method1("encode", ("utf-32-le", "surrogatepass"))
        .ok()
        .and_then(|b| {
            let b = b.cast_into::<PyBytes>().ok()?;
            let quad: [u8; 4] = b.as_bytes().get(at * 4..at * 4 + 4)?.try_into().ok()?;
            Some(u32::from_le_bytes(quad))
        })
        .unwrap_or(0xD800);
    let byte = if (0xDC80..=0xDCFF).contains(&code) {
        format!(
            " (the byte 0x{:02x}, not UTF-8, as `surrogateescape` keeps it)",
            code - 0xDC00
        )
    } else {
        String::new()
    };
    format!("holds a lone surrogate \\u{code:04x}{byte} at character {at}, which is not Unicode text")
}

/// A `str` as UTF-8 JSON text, each lone surrogate written as its JSON escape (`\ud800`),
/// which is what `json.loads` reads it as: for a log line (a record) only, which may hold
/// one, as the scanner reads it.
pub(crate) fn escape_surrogates(s: &Bound<'_, PyString>) -> PyResult<String> {
    let units = s.call_method1("encode", ("utf-32-le", "surrogatepass"))?;
    let units = units.cast::<PyBytes>()?;
    let mut out = String::with_capacity(units.as_bytes().len() / 4);
    for quad in units.as_bytes().chunks_exact(4) {
        let code = u32::from_le_bytes([quad[0], quad[1], quad[2], quad[3]]);
        match char::from_u32(code) {
            Some(c) => out.push(c),
            None => {
                let _ = write!(out, "\\u{code:04x}");
            }
        }
    }
    Ok(out)
}

/// Whether `err` is the `UnicodeEncodeError` of a `str` holding a lone surrogate.
pub(crate) fn is_lone_surrogate(py: Python<'_>, err: &PyErr) -> bool {
    err.is_instance_of::<pyo3::exceptions::PyUnicodeEncodeError>(py)
}

/// A `str` as UTF-8; `InvalidInput` naming `what` and the lone surrogate otherwise.
pub(crate) fn utf8(s: &Bound<'_, PyString>, what: &str) -> PyResult<String> {
    s.to_cow()
        .map(Cow::into_owned)
        .map_err(|e| errors::invalid_input(s.py(), format!("{what} {}", lone_surrogate(&e, s))))
}

/// A `str` argument. Where pyo3's `String` raises `UnicodeEncodeError` for a lone
/// surrogate (whose `repr` shows the whole argument, a secret included), this raises
/// `InvalidInput` naming the character, never the text; pyo3 adds the argument's name as a
/// note (`while processing 'api_token'`).
pub(crate) struct Text(pub String);

impl std::ops::Deref for Text {
    type Target = str;
    fn deref(&self) -> &str {
        &self.0
    }
}

impl<'a, 'py> FromPyObject<'a, 'py> for Text {
    type Error = PyErr;

    fn extract(obj: Borrowed<'a, 'py, PyAny>) -> PyResult<Self> {
        let s = obj.cast::<PyString>()?;
        utf8(&s, "the text").map(Text)
    }
}

/// An `int` argument of any size: one beyond 64 bits is kept as its sign, so that the range
/// check names it (`InvalidInput`) instead of pyo3's `OverflowError`.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Int {
    Fits(i64),
    /// Beyond `i64`, on this side of zero.
    Huge {
        negative: bool,
    },
}

impl<'a, 'py> FromPyObject<'a, 'py> for Int {
    type Error = PyErr;

    fn extract(obj: Borrowed<'a, 'py, PyAny>) -> PyResult<Self> {
        match obj.extract::<i64>() {
            Ok(v) => Ok(Int::Fits(v)),
            Err(e) if e.is_instance_of::<pyo3::exceptions::PyOverflowError>(obj.py()) => Ok(Int::Huge {
                negative: obj.lt(0i64)?,
            }),
            Err(e) => Err(e),
        }
    }
}

impl Int {
    /// The value within `min..=max`, else `InvalidInput` naming `what` and the range.
    pub(crate) fn within(self, py: Python<'_>, what: &str, min: i64, max: i64) -> PyResult<i64> {
        match self {
            Int::Fits(v) => int_in_range(py, what, v, min, max),
            Int::Huge { negative } => Err(errors::invalid_input(
                py,
                format!(
                    "invalid {what}: must be from {min} to {max} (got {} integer beyond 64 bits)",
                    if negative { "a negative" } else { "an" }
                ),
            )),
        }
    }

    /// The value, or `i64::MIN` / `i64::MAX` beyond 64 bits: for a range the core checks.
    pub(crate) fn saturating(self) -> i64 {
        match self {
            Int::Fits(v) => v,
            Int::Huge { negative: true } => i64::MIN,
            Int::Huge { negative: false } => i64::MAX,
        }
    }

    /// As [`Int::within`], as a `usize` (`min` at least 0).
    pub(crate) fn count(self, py: Python<'_>, what: &str, min: i64, max: i64) -> PyResult<usize> {
        let v = self.within(py, what, min.max(0), max)?;
        Ok(usize::try_from(v).unwrap_or(usize::MAX))
    }
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
