//! A transformer run on log lines, as a local run's scanner workers run it:
//! [`LineTransformer`] reads a line once (escpush-filter's validating walk, with the
//! [prefilter](CheckedTransformer::prefilter)), takes the [fields the SQL
//! reads](CheckedTransformer::fields_read) as the line holds them, runs the checked query
//! (`eval.rs`, the interpreter the preview endpoint answers with) and appends each delivered
//! record as an NDJSON line, by `write.rs`'s rules. No engine, no second parse: the line is
//! walked once, a few fields are read from it.

use std::borrow::Cow;
use std::fmt;

use escpush_filter::{CompiledFilter, Json, LineValue, MalformedLine};

use super::eval::{self, Row};
use super::ir::{Item, Query, Stage, Value, E};
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
    /// How a delivered row is written when its columns are the main `SELECT`'s items (no
    /// `*`): each item's place in the row, in the order of their names, with its name
    /// written as JSON (`"name":`, a `,` before all but the first), made once.
    layout: Option<Vec<(usize, Box<[u8]>)>>,
    /// Whether the main `SELECT`'s records are written from its expressions, with no row
    /// made: it has a layout, no `unnest`, and at most one expression node that can fail
    /// (so writing its items in their names' order fails a line as evaluating them in the
    /// order written does).
    direct: bool,
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
        let layout = layout(&self.query);
        // The layout exists only without `*`: every item is a column.
        let direct = layout.is_some()
            && self.query.stages.last().is_some_and(|main| {
                let exprs = main.items.iter().filter_map(|item| match item {
                    Item::Column { expr, .. } => Some(expr),
                    Item::All => None,
                });
                !exprs.clone().any(|e| matches!(e, E::Unnest(_))) && exprs.map(eval::fallible).sum::<usize>() <= 1
            });
        LineTransformer {
            layout,
            direct,
            query: self.query.clone(),
            walk,
            fields,
        }
    }
}

/// [`LineTransformer::layout`] of `query`'s main `SELECT`; `None` when it selects `*`.
fn layout(query: &Query) -> Option<Vec<(usize, Box<[u8]>)>> {
    let last = query.stages.last()?;
    let mut names = Vec::with_capacity(last.items.len());
    for (at, item) in last.items.iter().enumerate() {
        match item {
            Item::All => return None,
            Item::Column { name, .. } => names.push((at, name.as_str())),
        }
    }
    // Stable: a name given twice keeps its order, as `write_object` writes it.
    names.sort_by(|a, b| a.1.cmp(b.1));
    Some(
        names
            .into_iter()
            .enumerate()
            .map(|(i, (at, name))| {
                let mut written = Vec::with_capacity(name.len() + 4);
                key(i, name, &mut written);
                (at, written.into_boxed_slice())
            })
            .collect(),
    )
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
    /// after `unnest`). A line the query fails on appends nothing ([`LineError::Failed`]).
    pub fn line(&mut self, line: &[u8], out: &mut Vec<u8>) -> Result<Option<usize>, LineError> {
        if !self.walk.matches_line(line).map_err(LineError::Malformed)? {
            return Ok(None);
        }
        let whole;
        let row: Row<'_> = if let Some(fields) = &self.fields {
            let mut row = Row::with_capacity(fields.len());
            row.extend(
                fields
                    .iter()
                    .enumerate()
                    .filter_map(|(i, name)| value(self.walk.observed(line, i)).map(|v| (name.as_str(), v))),
            );
            row
        } else {
            // The walk found the line valid: it parses (a lone surrogate's escape is read as U+FFFD).
            whole = Json::parse(&String::from_utf8_lossy(line));
            match &whole {
                Ok(Json::Object(members)) => members.iter().map(|(k, v)| (k.as_str(), eval::from_json(v))).collect(),
                _ => Row::new(),
            }
        };
        let start = out.len();
        let mut records = 0;
        let (layout, direct) = (self.layout.as_deref(), self.direct);
        let ran = eval::run_query(&self.query, row, &mut |main, row| {
            if let (Some(layout), true) = (layout, direct) {
                if eval::keeps(main, row)? {
                    write_items(main, layout, row, out)?;
                    out.push(b'\n');
                    records += 1;
                }
                return Ok(());
            }
            eval::run_stage(main, row, &mut |row| {
                match layout {
                    Some(layout) => write_laid_out(&row, layout, out),
                    None => write_row(&row, out),
                }
                out.push(b'\n');
                records += 1;
            })
        });
        if let Err(message) = ran {
            // Nothing of a failed line is delivered.
            out.truncate(start);
            return Err(LineError::Failed(message));
        }
        Ok(Some(records))
    }
}

/// A field's value as the line holds it (its text borrowed); `None` when the line has no
/// such field.
fn value(v: LineValue<'_>) -> Option<Value<'_>> {
    // A number's text is ASCII (the walk checked it).
    let number = |b| std::str::from_utf8(b).unwrap_or("");
    Some(match v {
        LineValue::Null => Value::Null,
        LineValue::Bool(b) => Value::Bool(b),
        LineValue::Int(t) => {
            let t = number(t);
            t.parse()
                .map_or_else(|_| Value::Float(t.parse().unwrap_or(f64::NAN)), Value::Int)
        }
        LineValue::Float(t) => Value::Float(number(t).parse().unwrap_or(f64::NAN)),
        // A lone surrogate's escape (not UTF-8) is read as U+FFFD, as a JSON reader does.
        LineValue::Str(s) => Value::Str(match std::str::from_utf8(s) {
            Ok(text) => Cow::Borrowed(text),
            Err(_) => String::from_utf8_lossy(s),
        }),
        LineValue::Array(t) | LineValue::Object(t) => match Json::parse(&String::from_utf8_lossy(t)) {
            Ok(json) => eval::owned_json(json),
            Err(_) => Value::Null,
        },
        // Missing, and any kind a later escpush-filter adds (the enum is non-exhaustive).
        _ => return None,
    })
}

/// A delivered row (or a struct) as a JSON object, members sorted by name.
pub(crate) fn write_row<K: AsRef<str>>(row: &[(K, Value<'_>)], out: &mut Vec<u8>) {
    write_object(row, write_value, out);
}

/// A delivered row by its [layout](LineTransformer::layout): [`write_row`]'s bytes, its
/// names sorted and written once.
fn write_laid_out(row: &[(&str, Value<'_>)], layout: &[(usize, Box<[u8]>)], out: &mut Vec<u8>) {
    debug_assert_eq!(row.len(), layout.len());
    out.push(b'{');
    for (at, key) in layout {
        out.extend_from_slice(key);
        write_value(&row[*at].1, out);
    }
    out.push(b'}');
}

/// The main `SELECT`'s record for `row`, written from its items' expressions by their
/// layout ([`LineTransformer::direct`]): [`write_laid_out`]'s bytes, with no row made.
fn write_items(main: &Stage, layout: &[(usize, Box<[u8]>)], row: &Row<'_>, out: &mut Vec<u8>) -> Result<(), String> {
    out.push(b'{');
    for (at, key) in layout {
        out.extend_from_slice(key);
        if let Some(Item::Column { expr, .. }) = main.items.get(*at) {
            write_expr(expr, row, out)?;
        }
    }
    out.push(b'}');
    Ok(())
}

/// The value of `e` on `row` as [`write_value`] writes it: a column, a literal, an array or
/// a struct is written from what it holds (nothing copied), anything else evaluated.
fn write_expr(e: &E, row: &Row<'_>, out: &mut Vec<u8>) -> Result<(), String> {
    match e {
        E::Col(name) => write_value(eval::col(row, name), out),
        E::Lit(v) => write_value(v, out),
        E::Array(items) => {
            out.push(b'[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write_expr(item, row, out)?;
            }
            out.push(b']');
        }
        E::Struct(members) => {
            out.push(b'{');
            let mut i = 0;
            in_name_order(members, |(name, e)| {
                key(i, name, out);
                i += 1;
                write_expr(e, row, out)
            })?;
            out.push(b'}');
        }
        other => write_value(&eval::eval(other, row)?, out),
    }
    Ok(())
}

/// Calls `each` on `members` in the order of their names (stable: a name given twice keeps
/// its order), without a heap allocation for the usual few.
fn in_name_order<K: AsRef<str>, T, X>(
    members: &[(K, T)],
    mut each: impl FnMut(&(K, T)) -> Result<(), X>,
) -> Result<(), X> {
    if members.is_sorted_by(|a, b| a.0.as_ref() <= b.0.as_ref()) {
        return members.iter().try_for_each(each);
    }
    let mut few = [0u8; 16];
    if members.len() > few.len() {
        let mut sorted: Vec<&(K, T)> = members.iter().collect();
        sorted.sort_by(|a, b| a.0.as_ref().cmp(b.0.as_ref()));
        return sorted.into_iter().try_for_each(each);
    }
    let order = &mut few[..members.len()];
    for (slot, at) in order.iter_mut().zip(0u8..) {
        *slot = at;
    }
    order.sort_by(|&a, &b| {
        members[usize::from(a)]
            .0
            .as_ref()
            .cmp(members[usize::from(b)].0.as_ref())
    });
    order.iter().try_for_each(|&at| each(&members[usize::from(at)]))
}

/// An object's members, sorted by name (stable: a name given twice keeps its order), each
/// value written by `write`.
fn write_object<K: AsRef<str>, T>(members: &[(K, T)], write: fn(&T, &mut Vec<u8>), out: &mut Vec<u8>) {
    out.push(b'{');
    let mut i = 0;
    let _ = in_name_order(members, |(name, v)| {
        key(i, name.as_ref(), out);
        i += 1;
        write(v, out);
        Ok::<(), ()>(())
    });
    out.push(b'}');
}

/// The `i`-th member's name in an object: `,` before all but the first, the name, `:`.
fn key(i: usize, name: &str, out: &mut Vec<u8>) {
    if i > 0 {
        out.push(b',');
    }
    write_string(name, out);
    out.push(b':');
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

fn write_value(v: &Value<'_>, out: &mut Vec<u8>) {
    match v {
        Value::Null => out.extend_from_slice(b"null"),
        Value::Bool(b) => out.extend_from_slice(if *b { b"true" } else { b"false" }),
        Value::Int(n) => out.extend_from_slice(itoa::Buffer::new().format(*n).as_bytes()),
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
