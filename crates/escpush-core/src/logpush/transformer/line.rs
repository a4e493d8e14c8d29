//! A transformer run on log lines, as a local run's scanner workers run it:
//! [`LineTransformer`] reads a line once (escpush-filter's validating walk, with the
//! [prefilter](CheckedTransformer::prefilter)), takes the [fields the SQL
//! reads](CheckedTransformer::fields_read) as the line holds them, runs the checked query
//! (`eval.rs`, the interpreter the preview endpoint answers with) and appends each delivered
//! record as an NDJSON line, by `write.rs`'s rules. No engine, no second parse: the line is
//! walked once, a few fields are read from it.

use std::fmt;

use escpush_filter::{CompiledFilter, Json, LineValue, MalformedLine};

use super::eval::{self, Row};
use super::ir::{Query, Value};
use super::write::{write_float, write_string, write_time};
use super::CheckedTransformer;

/// A checked transformer ready to run on log lines. It holds its own scratch space (the line
/// walk), so it takes `&mut self`: clone it for each thread.
///
/// ```
/// use escpush_core::transformer::check;
///
/// let sql = "SELECT UPPER(ClientRequestMethod) AS method FROM http_requests WHERE EdgeResponseStatus >= 500";
/// let mut run = check(sql).unwrap().lines(true);
/// let mut out = Vec::new();
/// assert_eq!(run.line(br#"{"ClientRequestMethod":"get","EdgeResponseStatus":502}"#, &mut out), Ok(Some(1)));
/// assert_eq!(run.line(br#"{"ClientRequestMethod":"get","EdgeResponseStatus":200}"#, &mut out), Ok(None));
/// assert_eq!(out, b"{\"method\":\"GET\"}\n");
/// ```
#[derive(Clone, Debug)]
pub struct LineTransformer {
    query: Query,
    walk: CompiledFilter,
    /// The fields read, in the walk's observed order; `None`: whole lines (the SQL reads `*`).
    fields: Option<Vec<String>>,
}

/// Why a line gave no records: it is no JSON object, or the query failed on it (an
/// integer overflow, a division by zero, a cast that cannot be made), which fails the run
/// as it fails the engine's.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LineError {
    Malformed(MalformedLine),
    Failed(String),
}

impl fmt::Display for LineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LineError::Malformed(e) => write!(f, "{e}"),
            LineError::Failed(message) => write!(f, "the transformer failed on this line: {message}"),
        }
    }
}

impl std::error::Error for LineError {}

impl CheckedTransformer {
    /// The transformer as its lines' runner: with `prefilter`, a line the
    /// [prefilter](CheckedTransformer::prefilter) drops is dropped before the query runs
    /// (the query would drop it too); without, every valid line is given to the query.
    pub fn lines(&self, prefilter: bool) -> LineTransformer {
        let fields = self.fields_read();
        let observed: &[String] = fields.as_deref().unwrap_or(&[]);
        let walk = match self.prefilter().filter(|_| prefilter) {
            Some(filter) => CompiledFilter::with_observed(&filter, observed),
            None => CompiledFilter::reading(observed),
        };
        LineTransformer {
            query: self.query.clone(),
            walk,
            fields,
        }
    }
}

impl LineTransformer {
    /// The line walk (the prefilter, the fields the SQL reads observed), to read the values
    /// of the line last given to [`LineTransformer::line`].
    pub fn walk(&self) -> &CompiledFilter {
        &self.walk
    }

    /// Reads `line` (without its line break) and appends the records the job delivers for it
    /// to `out`, each a JSON object (members sorted by name) and a `\n`: `Ok(None)` when the
    /// prefilter drops the line, else how many records (none when the `WHERE` drops it, several
    /// after `unnest`).
    pub fn line(&mut self, line: &[u8], out: &mut Vec<u8>) -> Result<Option<usize>, LineError> {
        if !self.walk.matches_line(line).map_err(LineError::Malformed)? {
            return Ok(None);
        }
        let whole;
        let row: Row<'_> = if let Some(fields) = &self.fields {
            fields
                .iter()
                .enumerate()
                .filter_map(|(i, name)| value(self.walk.observed(line, i)).map(|v| (name.as_str(), v)))
                .collect()
        } else {
            // The walk found the line valid: it parses (a lone surrogate's escape is read as U+FFFD).
            whole = Json::parse(&String::from_utf8_lossy(line));
            match &whole {
                Ok(Json::Object(members)) => members.iter().map(|(k, v)| (k.as_str(), eval::from_json(v))).collect(),
                _ => Row::new(),
            }
        };
        let rows = eval::run_row(&self.query, &row).map_err(LineError::Failed)?;
        for row in &rows {
            write_row(row, out);
            out.push(b'\n');
        }
        Ok(Some(rows.len()))
    }
}

/// A field's value as the line holds it; `None` when the line has no such field.
fn value(v: LineValue<'_>) -> Option<Value> {
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    Some(match v {
        LineValue::Null => Value::Null,
        LineValue::Bool(b) => Value::Bool(b),
        LineValue::Int(t) => {
            let t = text(t);
            t.parse()
                .map_or_else(|_| Value::Float(t.parse().unwrap_or(f64::NAN)), Value::Int)
        }
        LineValue::Float(t) => Value::Float(text(t).parse().unwrap_or(f64::NAN)),
        LineValue::Str(s) => Value::Str(text(s)),
        LineValue::Array(t) | LineValue::Object(t) => match Json::parse(&text(t)) {
            Ok(json) => eval::from_json(&json),
            Err(_) => Value::Null,
        },
        // Missing, and any kind a later escpush-filter adds (the enum is non-exhaustive).
        _ => return None,
    })
}

/// A delivered row (or a struct) as a JSON object, members sorted by name.
pub(crate) fn write_row<K: AsRef<str>>(row: &[(K, Value)], out: &mut Vec<u8>) {
    write_object(row, write_value, out);
}

/// An object's members, sorted by name, each value written by `write`.
fn write_object<K: AsRef<str>, T>(members: &[(K, T)], write: fn(&T, &mut Vec<u8>), out: &mut Vec<u8>) {
    let mut order: Vec<&(K, T)> = members.iter().collect();
    order.sort_by(|a, b| a.0.as_ref().cmp(b.0.as_ref()));
    out.push(b'{');
    for (i, (name, v)) in order.into_iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        write_string(name.as_ref(), out);
        out.push(b':');
        write(v, out);
    }
    out.push(b'}');
}

/// An array's items, each written by `write`.
fn write_array<T>(items: &[T], write: fn(&T, &mut Vec<u8>), out: &mut Vec<u8>) {
    out.push(b'[');
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        write(item, out);
    }
    out.push(b']');
}

fn write_value(v: &Value, out: &mut Vec<u8>) {
    match v {
        Value::Null => out.extend_from_slice(b"null"),
        Value::Bool(b) => out.extend_from_slice(if *b { b"true" } else { b"false" }),
        Value::Int(n) => out.extend_from_slice(n.to_string().as_bytes()),
        Value::Float(f) => write_float(*f, out),
        Value::Str(s) => write_string(s, out),
        Value::Time(s, n) => write_time(*s, *n, out),
        Value::Array(items) => write_array(items, write_value, out),
        Value::Struct(members) => write_row(members, out),
        Value::Json(json) => write_json(json, out),
    }
}

/// A JSON value of the input, its objects' members sorted by name and its numbers as
/// [`write_value`] writes a number (an integral float as an integer).
fn write_json(json: &Json, out: &mut Vec<u8>) {
    match json {
        Json::Object(members) => write_object(members, write_json, out),
        Json::Array(items) => write_array(items, write_json, out),
        other => write_value(&eval::from_json(other), out),
    }
}
