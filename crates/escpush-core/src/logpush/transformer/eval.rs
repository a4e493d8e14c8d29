//! The one-record interpreter: a checked [`Query`] run on one input record, giving the
//! records the job delivers for it (none when the `WHERE` drops it, several after
//! `unnest`). SQL's three-valued logic: a `WHERE` keeps a row only when it is true.
//!
//! Values borrow the input's text and the query's literals and names (`Value<'a>`); a row
//! is handed to the caller as it is made (`emit`), so a local run writes each delivered
//! row without collecting them.

use std::borrow::Cow;

use escpush_filter::{Json, Timestamp};

use super::ir::{BinOp, Func, Item, Part, Query, Source, Stage, Ty, Value, E};

/// A row: its columns' names (borrowed from the query or the input) and values.
pub(crate) type Row<'a> = Vec<(&'a str, Value<'a>)>;

/// The rows the query gives for one input record (a JSON object's members).
pub(crate) fn run<'a>(query: &'a Query, record: &'a [(String, Json)]) -> Result<Vec<Row<'a>>, String> {
    let input: Row<'a> = record.iter().map(|(k, v)| (k.as_str(), from_json(v))).collect();
    let mut rows = Vec::new();
    run_row(query, input, &mut |row| rows.push(row))?;
    Ok(rows)
}

/// Runs the query on one input row (its columns as values), handing each row it delivers
/// to `emit`, in order. On an error some rows may have been handed already.
pub(crate) fn run_row<'a>(query: &'a Query, input: Row<'a>, emit: &mut dyn FnMut(Row<'a>)) -> Result<(), String> {
    run_query(query, input, &mut |stage, row| run_stage(stage, row, emit))
}

/// Runs the query's CTEs on one input row and gives `last` the main `SELECT` and each row
/// it reads, in order (to run it as [`run_row`] does, or to write its records directly).
pub(crate) fn run_query<'a>(
    query: &'a Query,
    input: Row<'a>,
    last: &mut dyn FnMut(&'a Stage, &Row<'a>) -> Result<(), String>,
) -> Result<(), String> {
    let Some((main, earlier)) = query.stages.split_last() else {
        return Ok(());
    };
    let input = [input];
    let mut outputs: Vec<Vec<Row<'a>>> = Vec::with_capacity(earlier.len());
    for stage in earlier {
        let mut out = Vec::new();
        for row in source(stage, &input, &outputs) {
            run_stage(stage, row, &mut |r| out.push(r))?;
        }
        outputs.push(out);
    }
    for row in source(main, &input, &outputs) {
        last(main, row)?;
    }
    Ok(())
}

/// The rows a stage reads: the input's, or an earlier stage's.
fn source<'r, 'a>(stage: &Stage, input: &'r [Row<'a>], outputs: &'r [Vec<Row<'a>>]) -> &'r [Row<'a>] {
    match stage.source {
        Source::Dataset => input,
        Source::Stage(i) => outputs.get(i).map_or(&[], Vec::as_slice),
    }
}

/// Whether the stage's `WHERE` keeps `row` (it is true; a stage without one keeps all).
pub(crate) fn keeps(stage: &Stage, row: &Row<'_>) -> Result<bool, String> {
    match &stage.filter {
        Some(filter) => Ok(*operand(filter, row)? == Value::Bool(true)),
        None => Ok(true),
    }
}

pub(crate) fn run_stage<'a>(stage: &'a Stage, row: &Row<'a>, emit: &mut dyn FnMut(Row<'a>)) -> Result<(), String> {
    if !keeps(stage, row)? {
        return Ok(());
    }
    let mut out: Row<'a> = Vec::with_capacity(stage.items.len());
    let mut unnest: Option<(usize, Vec<Value<'a>>)> = None;
    for item in &stage.items {
        match item {
            Item::All => out.extend(row.iter().cloned()),
            Item::Column {
                name,
                expr: E::Unnest(inner),
            } => {
                let values = match eval(inner, row)? {
                    Value::Array(values) => values,
                    Value::Json(json) => match json {
                        Cow::Borrowed(Json::Array(values)) => values.iter().map(from_json).collect(),
                        Cow::Owned(Json::Array(values)) => values.into_iter().map(owned_json).collect(),
                        _ => Vec::new(),
                    },
                    _ => Vec::new(),
                };
                unnest = Some((out.len(), values));
                out.push((name.as_str(), Value::Null));
            }
            Item::Column { name, expr } => out.push((name.as_str(), eval(expr, row)?)),
        }
    }
    match unnest {
        None => emit(out),
        Some((at, values)) => {
            for v in values {
                let mut r = out.clone();
                r[at].1 = v;
                emit(r);
            }
        }
    }
    Ok(())
}

/// A member of the input as a value: JSON's shapes, objects kept as JSON (borrowed).
pub(crate) fn from_json(json: &Json) -> Value<'_> {
    match json {
        Json::String(s) => Value::Str(Cow::Borrowed(s)),
        Json::Array(items) => Value::Array(items.iter().map(from_json).collect()),
        Json::Object(_) => Value::Json(Cow::Borrowed(json)),
        scalar => scalar_json(scalar),
    }
}

/// [`from_json`] of a value given whole (its text and objects moved, not copied).
pub(crate) fn owned_json(json: Json) -> Value<'static> {
    match json {
        Json::String(s) => Value::Str(Cow::Owned(s)),
        Json::Array(items) => Value::Array(items.into_iter().map(owned_json).collect()),
        object @ Json::Object(_) => Value::Json(Cow::Owned(object)),
        scalar => scalar_json(&scalar),
    }
}

/// A JSON null, boolean or number as a value (`Null` for any other).
fn scalar_json(json: &Json) -> Value<'static> {
    match json {
        Json::Bool(b) => Value::Bool(*b),
        Json::Number(n) => n
            .as_i64()
            .map_or_else(|| Value::Float(n.as_f64().unwrap_or(f64::NAN)), Value::Int),
        Json::BigNumber(text) => Value::Float(text.parse().unwrap_or(f64::NAN)),
        _ => Value::Null,
    }
}

/// A delivered value as JSON, objects' members sorted by name (as the docs' delivered
/// records are written).
pub(crate) fn to_json(value: &Value<'_>) -> Json {
    match value {
        Value::Null => Json::Null,
        Value::Bool(b) => Json::Bool(*b),
        Value::Int(n) => Json::Number((*n).into()),
        Value::Float(f) => super::write::float_json(*f),
        Value::Str(s) => Json::String(s.to_string()),
        Value::Time(s, n) => Json::String(super::write::time_text(*s, *n)),
        Value::Array(items) => Json::Array(items.iter().map(to_json).collect()),
        Value::Struct(members) => sorted(members.iter().map(|(k, v)| ((*k).to_owned(), to_json(v))).collect()),
        Value::Json(json) => sort_json(json),
    }
}

pub(crate) fn sorted(mut members: Vec<(String, Json)>) -> Json {
    members.sort_by(|a, b| a.0.cmp(&b.0));
    Json::Object(members)
}

fn sort_json(json: &Json) -> Json {
    match json {
        Json::Object(members) => sorted(members.iter().map(|(k, v)| (k.clone(), sort_json(v))).collect()),
        Json::Array(items) => Json::Array(items.iter().map(sort_json).collect()),
        other => other.clone(),
    }
}

pub(crate) fn col<'r, 'a>(row: &'r Row<'a>, name: &str) -> &'r Value<'a> {
    // Names of one length (a dataset has many) mostly differ in their last byte: tested
    // before the whole name.
    let last = name.as_bytes().last();
    row.iter()
        .find(|(k, _)| k.len() == name.len() && k.as_bytes().last() == last && *k == name)
        .map_or(&Value::Null, |(_, v)| v)
}

/// A literal as a value borrowing the query's text.
fn literal<'a>(v: &'a Value<'static>) -> Value<'a> {
    match v {
        Value::Str(s) => Value::Str(Cow::Borrowed(s)),
        other => other.clone(),
    }
}

/// An operand's value, borrowed where it is a column or a literal (most are): only what
/// is computed is made.
fn operand<'r, 'a: 'r>(e: &'a E, row: &'r Row<'a>) -> Result<Cow<'r, Value<'a>>, String> {
    Ok(match e {
        E::Col(name) => Cow::Borrowed(col(row, name)),
        E::Lit(v) => Cow::Borrowed(v),
        _ => Cow::Owned(eval(e, row)?),
    })
}

fn truth(v: &Value<'_>) -> Option<bool> {
    match v {
        Value::Bool(b) => Some(*b),
        _ => None,
    }
}

fn from_truth(b: Option<bool>) -> Value<'static> {
    b.map_or(Value::Null, Value::Bool)
}

#[allow(clippy::too_many_lines)]
pub(crate) fn eval<'a>(e: &'a E, row: &Row<'a>) -> Result<Value<'a>, String> {
    Ok(match e {
        E::Col(name) => col(row, name).clone(),
        E::Lit(v) => literal(v),
        E::Not(inner) => from_truth(truth(&*operand(inner, row)?).map(|b| !b)),
        E::Neg(inner) => match *operand(inner, row)? {
            Value::Int(n) => Value::Int(n.checked_neg().ok_or("integer overflow in `-`")?),
            Value::Float(f) => Value::Float(-f),
            _ => Value::Null,
        },
        E::Bin(BinOp::And, l, r) => {
            let (a, b) = (truth(&*operand(l, row)?), truth(&*operand(r, row)?));
            match (a, b) {
                (Some(false), _) | (_, Some(false)) => Value::Bool(false),
                (Some(true), Some(true)) => Value::Bool(true),
                _ => Value::Null,
            }
        }
        E::Bin(BinOp::Or, l, r) => {
            let (a, b) = (truth(&*operand(l, row)?), truth(&*operand(r, row)?));
            match (a, b) {
                (Some(true), _) | (_, Some(true)) => Value::Bool(true),
                (Some(false), Some(false)) => Value::Bool(false),
                _ => Value::Null,
            }
        }
        E::Bin(op, l, r) => binary(*op, &*operand(l, row)?, &*operand(r, row)?)?,
        E::IsNull(inner, negated) => Value::Bool((*operand(inner, row)? == Value::Null) != *negated),
        E::In(inner, list, negated) => {
            let v = operand(inner, row)?;
            if *v == Value::Null {
                return Ok(Value::Null);
            }
            let mut unknown = false;
            for item in list {
                let item = operand(item, row)?;
                // Text against text (the usual list): equal or not, no ordering needed.
                if let (Value::Str(a), Value::Str(b)) = (&*v, &*item) {
                    if a == b {
                        return Ok(Value::Bool(!negated));
                    }
                    continue;
                }
                match compare(&v, &item) {
                    Some(std::cmp::Ordering::Equal) => return Ok(Value::Bool(!negated)),
                    None => unknown = true,
                    Some(_) => {}
                }
            }
            if unknown {
                Value::Null
            } else {
                Value::Bool(*negated)
            }
        }
        E::Like {
            expr,
            pattern,
            negated,
            case_insensitive,
        } => match (&*operand(expr, row)?, &*operand(pattern, row)?) {
            (Value::Str(s), Value::Str(p)) => {
                let hit = if *case_insensitive {
                    like(&s.to_lowercase(), &p.to_lowercase())
                } else {
                    like(s, p)
                };
                Value::Bool(hit != *negated)
            }
            _ => Value::Null,
        },
        E::Between(inner, lo, hi, negated) => {
            let v = operand(inner, row)?;
            let (a, b) = (compare(&v, &*operand(lo, row)?), compare(&v, &*operand(hi, row)?));
            match (a, b) {
                (Some(a), Some(b)) => Value::Bool((a.is_ge() && b.is_le()) != *negated),
                _ => Value::Null,
            }
        }
        // The usual one or two arguments without a heap allocation.
        E::Call(func, args) => match args.as_slice() {
            [a] => call(*func, &[operand(a, row)?])?,
            [a, b] => call(*func, &[operand(a, row)?, operand(b, row)?])?,
            _ => call(
                *func,
                &args.iter().map(|a| operand(a, row)).collect::<Result<Vec<_>, _>>()?,
            )?,
        },
        E::Cast(inner, ty) => cast(operand(inner, row)?.into_owned(), ty)?,
        E::Extract(part, inner) => match to_time(&*operand(inner, row)?) {
            Some((s, n)) => extract(*part, s, n),
            None => Value::Null,
        },
        E::Array(items) => Value::Array(items.iter().map(|i| eval(i, row)).collect::<Result<_, _>>()?),
        E::Struct(members) => Value::Struct(
            members
                .iter()
                .map(|(k, v)| Ok((k.as_str(), eval(v, row)?)))
                .collect::<Result<_, String>>()?,
        ),
        E::Case {
            operand,
            whens,
            otherwise,
        } => {
            let subject = operand.as_ref().map(|o| self::operand(o, row)).transpose()?;
            for (when, then) in whens {
                let w = self::operand(when, row)?;
                let hit = match &subject {
                    Some(s) => compare(s, &w) == Some(std::cmp::Ordering::Equal),
                    None => *w == Value::Bool(true),
                };
                if hit {
                    return eval(then, row);
                }
            }
            match otherwise {
                Some(o) => eval(o, row)?,
                None => Value::Null,
            }
        }
        E::Unnest(_) => return Err("`unnest` outside a projection".into()),
    })
}

/// How many nodes of `e` can fail (an integer overflow, a division by zero, a cast that
/// cannot be made): where a stage has at most one, the order its expressions are evaluated
/// in cannot change which error a row fails with.
pub(crate) fn fallible(e: &E) -> usize {
    let own = usize::from(matches!(
        e,
        E::Neg(_)
            | E::Cast(..)
            | E::Unnest(_)
            | E::Call(Func::Abs, _)
            | E::Bin(BinOp::Plus | BinOp::Minus | BinOp::Mul | BinOp::Div | BinOp::Mod, ..)
    ));
    let mut children = 0;
    e.each_child(|child| children += fallible(child));
    own + children
}

/// SQL's ordering of two values: `None` when either is NULL or they do not compare.
fn compare(a: &Value<'_>, b: &Value<'_>) -> Option<std::cmp::Ordering> {
    match (a, b) {
        (Value::Int(x), Value::Int(y)) => Some(x.cmp(y)),
        (Value::Int(_), Value::Float(y)) => number(a)?.partial_cmp(y),
        (Value::Float(x), Value::Int(_)) => x.partial_cmp(&number(b)?),
        (Value::Float(x), Value::Float(y)) => x.partial_cmp(y),
        (Value::Str(x), Value::Str(y)) => Some(x.cmp(y)),
        (Value::Bool(x), Value::Bool(y)) => Some(x.cmp(y)),
        (Value::Time(..), _) | (_, Value::Time(..)) => Some(to_time(a)?.cmp(&to_time(b)?)),
        (Value::Array(x), Value::Array(y)) => {
            for (p, q) in x.iter().zip(y) {
                match compare(p, q)? {
                    std::cmp::Ordering::Equal => {}
                    other => return Some(other),
                }
            }
            Some(x.len().cmp(&y.len()))
        }
        (Value::Json(x), Value::Json(y)) => (x == y).then_some(std::cmp::Ordering::Equal),
        _ => None,
    }
}

fn binary<'a>(op: BinOp, a: &Value<'a>, b: &Value<'a>) -> Result<Value<'a>, String> {
    use std::cmp::Ordering as O;
    if matches!(op, BinOp::Arrow | BinOp::LongArrow) {
        return Ok(member(op, a, b));
    }
    if *a == Value::Null || *b == Value::Null {
        return Ok(Value::Null);
    }
    Ok(match op {
        BinOp::Eq => from_truth(compare(a, b).map(|o| o == O::Equal)),
        BinOp::NotEq => from_truth(compare(a, b).map(|o| o != O::Equal)),
        BinOp::Lt => from_truth(compare(a, b).map(O::is_lt)),
        BinOp::LtEq => from_truth(compare(a, b).map(O::is_le)),
        BinOp::Gt => from_truth(compare(a, b).map(O::is_gt)),
        BinOp::GtEq => from_truth(compare(a, b).map(O::is_ge)),
        BinOp::Concat => Value::text(format!("{}{}", text(a), text(b))),
        _ => arithmetic(op, a, b)?,
    })
}

fn arithmetic(op: BinOp, a: &Value<'_>, b: &Value<'_>) -> Result<Value<'static>, String> {
    if let (Value::Int(x), Value::Int(y)) = (a, b) {
        let (x, y) = (*x, *y);
        let r = match op {
            BinOp::Plus => x.checked_add(y),
            BinOp::Minus => x.checked_sub(y),
            BinOp::Mul => x.checked_mul(y),
            BinOp::Div | BinOp::Mod if y == 0 => return Err("division by zero".into()),
            BinOp::Div => x.checked_div(y),
            BinOp::Mod => x.checked_rem(y),
            _ => None,
        };
        return r.map(Value::Int).ok_or_else(|| "integer overflow".to_owned());
    }
    let (Some(x), Some(y)) = (number(a), number(b)) else {
        return Ok(Value::Null);
    };
    Ok(Value::Float(match op {
        BinOp::Plus => x + y,
        BinOp::Minus => x - y,
        BinOp::Mul => x * y,
        BinOp::Div => x / y,
        BinOp::Mod => x % y,
        _ => return Ok(Value::Null),
    }))
}

#[allow(clippy::cast_precision_loss)]
fn number(v: &Value<'_>) -> Option<f64> {
    match v {
        Value::Int(n) => Some(*n as f64),
        Value::Float(f) => Some(*f),
        _ => None,
    }
}

/// `->` / `->>`: a member of an object (by name) or an element of an array (by index).
fn member(op: BinOp, base: &Value<'_>, key: &Value<'_>) -> Value<'static> {
    let json = match base {
        Value::Json(j) => j.clone().into_owned(),
        Value::Str(s) => match Json::parse(s) {
            Ok(j) => j,
            Err(_) => return Value::Null,
        },
        Value::Array(items) => Json::Array(items.iter().map(to_json).collect()),
        _ => return Value::Null,
    };
    let found = match (&json, key) {
        (Json::Object(members), Value::Str(k)) => members.iter().rev().find(|(n, _)| n == k).map(|(_, v)| v.clone()),
        (Json::Array(items), Value::Int(i)) => usize::try_from(*i).ok().and_then(|i| items.get(i).cloned()),
        _ => None,
    };
    match (found, op) {
        (None | Some(Json::Null), _) => Value::Null,
        (Some(Json::String(s)), BinOp::LongArrow) => Value::text(s),
        (Some(other), BinOp::LongArrow) => Value::text(json_text(&other)),
        (Some(other), _) => Value::Json(Cow::Owned(other)),
    }
}

fn json_text(json: &Json) -> String {
    serde_json::Value::from(json.clone()).to_string()
}

/// A value as text (`||`, `concat`, `CAST(... AS VARCHAR)`).
fn text(v: &Value<'_>) -> String {
    match v {
        Value::Null => String::new(),
        Value::Str(s) => s.to_string(),
        Value::Int(n) => n.to_string(),
        Value::Float(f) => f.to_string(),
        Value::Bool(b) => b.to_string(),
        Value::Time(s, n) => super::write::time_text(*s, *n),
        other => json_text(&to_json(other)),
    }
}

fn to_time(v: &Value<'_>) -> Option<(i64, u32)> {
    match v {
        Value::Time(s, n) => Some((*s, *n)),
        Value::Str(s) => match Timestamp::read(s) {
            Timestamp::At { seconds, nanos } => Some((seconds, nanos)),
            _ => None,
        },
        // DataFusion's `to_timestamp` of an integer: seconds since the epoch.
        Value::Int(n) => Some((*n, 0)),
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        Value::Float(f) if f.is_finite() => Some((f.floor() as i64, ((f - f.floor()) * 1e9) as u32)),
        _ => None,
    }
}

fn extract(part: Part, seconds: i64, nanos: u32) -> Value<'static> {
    let ((y, mo, d), (h, mi, s)) = escpush_filter::civil_from_unix(seconds);
    match part {
        // A whole second is an integer, as the docs' examples deliver `unix_ts`.
        Part::Epoch if nanos == 0 => Value::Int(seconds),
        // DataFusion's: the nanoseconds since the epoch as a float, over 10^9.
        #[allow(clippy::cast_precision_loss)]
        Part::Epoch => Value::Float((i128::from(seconds) * 1_000_000_000 + i128::from(nanos)) as f64 / 1e9),
        Part::Year => Value::Int(y),
        Part::Month => Value::Int(mo),
        Part::Day => Value::Int(d),
        Part::Hour => Value::Int(h),
        Part::Minute => Value::Int(mi),
        Part::Second => Value::Int(s),
    }
}

fn call<'a>(func: Func, args: &[Cow<'_, Value<'a>>]) -> Result<Value<'a>, String> {
    let first: &Value<'a> = args.first().map_or(&Value::Null, |a| a);
    Ok(match func {
        Func::Coalesce => args
            .iter()
            .find(|v| ***v != Value::Null)
            .map_or(Value::Null, |v| (**v).clone()),
        Func::NullIf => {
            if compare(first, &args[1]) == Some(std::cmp::Ordering::Equal) {
                Value::Null
            } else {
                first.clone()
            }
        }
        Func::Concat => Value::text(args.iter().map(|a| text(a)).collect::<String>()),
        Func::MakeArray => Value::Array(args.iter().map(|a| (**a).clone()).collect()),
        Func::ToTimestamp => to_time(first).map_or(Value::Null, |(s, n)| Value::Time(s, n)),
        Func::Abs => match first {
            Value::Int(n) => Value::Int(n.checked_abs().ok_or("integer overflow in `abs`")?),
            Value::Float(f) => Value::Float(f.abs()),
            _ => Value::Null,
        },
        Func::Round => number(first).map_or(Value::Null, |f| Value::Float(f.round())),
        _ => {
            let Value::Str(text) = first else {
                return Ok(Value::Null);
            };
            let s: &str = text;
            let mut rest: Vec<&str> = Vec::new();
            for arg in args.iter().skip(1) {
                match &**arg {
                    Value::Str(a) => rest.push(a),
                    _ => return Ok(Value::Null),
                }
            }
            match func {
                // ASCII text with nothing to change is passed on as it is (borrowed).
                Func::Upper if s.bytes().all(|b| b.is_ascii() && !b.is_ascii_lowercase()) => first.clone(),
                Func::Lower if s.bytes().all(|b| b.is_ascii() && !b.is_ascii_uppercase()) => first.clone(),
                Func::Upper => Value::text(s.to_uppercase()),
                Func::Lower => Value::text(s.to_lowercase()),
                Func::Trim => trimmed(text, s.trim_matches(' ')),
                Func::Ltrim => trimmed(text, s.trim_start_matches(' ')),
                Func::Rtrim => trimmed(text, s.trim_end_matches(' ')),
                Func::Length => Value::Int(i64::try_from(s.chars().count()).unwrap_or(i64::MAX)),
                Func::Replace => Value::text(s.replace(rest[0], rest[1])),
                Func::StartsWith => Value::Bool(s.starts_with(rest[0])),
                Func::EndsWith => Value::Bool(s.ends_with(rest[0])),
                _ => Value::Null,
            }
        }
    })
}

/// A trim's result: a part of `text`, borrowed where `text` is.
fn trimmed<'a>(text: &Cow<'a, str>, part: &str) -> Value<'a> {
    match text {
        Cow::Borrowed(s) if part.len() == s.len() => Value::Str(Cow::Borrowed(s)),
        Cow::Borrowed(s) => {
            let start = part.as_ptr() as usize - s.as_ptr() as usize;
            Value::Str(Cow::Borrowed(&s[start..start + part.len()]))
        }
        Cow::Owned(_) => Value::text(part),
    }
}

fn cast<'a>(v: Value<'a>, ty: &Ty) -> Result<Value<'a>, String> {
    if v == Value::Null {
        return Ok(Value::Null);
    }
    let fail = |v: &Value<'_>| format!("cannot cast {} to {}", json_text(&to_json(v)), ty.name());
    Ok(match ty {
        Ty::Str => match v {
            Value::Str(_) => v,
            other => Value::text(text(&other)),
        },
        Ty::Int => match &v {
            Value::Int(_) => v,
            #[allow(clippy::cast_possible_truncation)]
            Value::Float(f) if f.is_finite() => Value::Int(f.trunc() as i64),
            Value::Bool(b) => Value::Int(i64::from(*b)),
            Value::Str(s) => Value::Int(s.trim().parse().map_err(|_| fail(&v))?),
            Value::Time(s, _) => Value::Int(*s),
            _ => return Err(fail(&v)),
        },
        Ty::Float => match &v {
            Value::Str(s) => Value::Float(s.trim().parse().map_err(|_| fail(&v))?),
            Value::Bool(b) => Value::Float(f64::from(u8::from(*b))),
            other => number(other).map(Value::Float).ok_or_else(|| fail(&v))?,
        },
        Ty::Bool => match &v {
            Value::Bool(_) => v,
            Value::Int(n) => Value::Bool(*n != 0),
            Value::Str(s) if s.eq_ignore_ascii_case("true") => Value::Bool(true),
            Value::Str(s) if s.eq_ignore_ascii_case("false") => Value::Bool(false),
            _ => return Err(fail(&v)),
        },
        Ty::Time => to_time(&v).map(|(s, n)| Value::Time(s, n)).ok_or_else(|| fail(&v))?,
        _ => v,
    })
}

/// SQL `LIKE`: `%` any run, `_` one character, `\` escapes the next.
fn like(text: &str, pattern: &str) -> bool {
    // `prefix%` (the usual pattern) with no other wildcard or escape: a prefix test.
    if let Some(prefix) = pattern.strip_suffix('%') {
        if !prefix.bytes().any(|b| matches!(b, b'%' | b'_' | b'\\')) {
            return text.starts_with(prefix);
        }
    }
    if text.is_ascii() && pattern.is_ascii() {
        return like_units(text.as_bytes(), pattern.as_bytes(), |b| char::from(*b));
    }
    let t: Vec<char> = text.chars().collect();
    let p: Vec<char> = pattern.chars().collect();
    like_units(&t, &p, |c| *c)
}

/// `LIKE` over a text's units (bytes of ASCII text, else characters).
fn like_units<U: PartialEq>(t: &[U], p: &[U], ch: impl Fn(&U) -> char) -> bool {
    // Iterative matching with backtracking to the last `%`.
    let (mut ti, mut pi) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while ti < t.len() {
        if pi < p.len() && ch(&p[pi]) == '\\' && pi + 1 < p.len() && p[pi + 1] == t[ti] {
            ti += 1;
            pi += 2;
        } else if pi < p.len() && ch(&p[pi]) == '%' {
            star = Some((pi, ti));
            pi += 1;
        } else if pi < p.len() && ch(&p[pi]) != '\\' && (ch(&p[pi]) == '_' || p[pi] == t[ti]) {
            ti += 1;
            pi += 1;
        } else if let Some((sp, st)) = star {
            pi = sp + 1;
            ti = st + 1;
            star = Some((sp, st + 1));
        } else {
            return false;
        }
    }
    while pi < p.len() && ch(&p[pi]) == '%' {
        pi += 1;
    }
    pi == p.len()
}
