//! The one-record interpreter: a checked [`Query`] run on one input record, giving the
//! records the job delivers for it (none when the `WHERE` drops it, several after
//! `unnest`). SQL's three-valued logic: a `WHERE` keeps a row only when it is true.

use std::borrow::Cow;

use escpush_filter::{Json, Timestamp};

use super::ir::{BinOp, Func, Item, Part, Query, Source, Stage, Ty, Value, E};

/// A row: its columns' names (borrowed from the query or the input) and values.
pub(crate) type Row<'n> = Vec<(&'n str, Value)>;

/// The rows the query gives for one input record (a JSON object's members).
pub(crate) fn run<'n>(query: &'n Query, record: &'n [(String, Json)]) -> Result<Vec<Row<'n>>, String> {
    let input: Row<'n> = record.iter().map(|(k, v)| (k.as_str(), from_json(v))).collect();
    run_row(query, &input)
}

/// The rows the query gives for one input row (its columns as values).
pub(crate) fn run_row<'n>(query: &'n Query, input: &Row<'n>) -> Result<Vec<Row<'n>>, String> {
    let mut outputs: Vec<Vec<Row<'n>>> = Vec::new();
    for stage in &query.stages {
        let rows: &[Row<'n>] = match stage.source {
            Source::Dataset => std::slice::from_ref(input),
            Source::Stage(i) => outputs.get(i).map_or(&[], Vec::as_slice),
        };
        let mut out = Vec::new();
        for row in rows {
            out.extend(run_stage(stage, row)?);
        }
        outputs.push(out);
    }
    Ok(outputs.pop().unwrap_or_default())
}

fn run_stage<'n>(stage: &'n Stage, row: &Row<'n>) -> Result<Vec<Row<'n>>, String> {
    if let Some(filter) = &stage.filter {
        if *operand(filter, row)? != Value::Bool(true) {
            return Ok(Vec::new());
        }
    }
    let mut out: Row<'n> = Vec::with_capacity(stage.items.len());
    let mut unnest: Option<(usize, Vec<Value>)> = None;
    for item in &stage.items {
        match item {
            Item::All => out.extend(row.iter().cloned()),
            Item::Column {
                name,
                expr: E::Unnest(inner),
            } => {
                let values = match eval(inner, row)? {
                    Value::Array(values) => values,
                    Value::Json(Json::Array(values)) => values.iter().map(from_json).collect(),
                    _ => Vec::new(),
                };
                unnest = Some((out.len(), values));
                out.push((name.as_str(), Value::Null));
            }
            Item::Column { name, expr } => out.push((name.as_str(), eval(expr, row)?)),
        }
    }
    Ok(match unnest {
        None => vec![out],
        Some((at, values)) => values
            .into_iter()
            .map(|v| {
                let mut r = out.clone();
                r[at].1 = v;
                r
            })
            .collect(),
    })
}

/// A member of the input as a value: JSON's shapes, objects kept as JSON.
pub(crate) fn from_json(json: &Json) -> Value {
    match json {
        Json::Null => Value::Null,
        Json::Bool(b) => Value::Bool(*b),
        Json::Number(n) => n
            .as_i64()
            .map_or_else(|| Value::Float(n.as_f64().unwrap_or(f64::NAN)), Value::Int),
        Json::BigNumber(text) => Value::Float(text.parse().unwrap_or(f64::NAN)),
        Json::String(s) => Value::Str(s.clone()),
        Json::Array(items) => Value::Array(items.iter().map(from_json).collect()),
        Json::Object(_) => Value::Json(json.clone()),
    }
}

/// A delivered value as JSON, objects' members sorted by name (as the docs' delivered
/// records are written).
pub(crate) fn to_json(value: &Value) -> Json {
    match value {
        Value::Null => Json::Null,
        Value::Bool(b) => Json::Bool(*b),
        Value::Int(n) => Json::Number((*n).into()),
        Value::Float(f) => super::write::float_json(*f),
        Value::Str(s) => Json::String(s.clone()),
        Value::Time(s, n) => Json::String(super::write::time_text(*s, *n)),
        Value::Array(items) => Json::Array(items.iter().map(to_json).collect()),
        Value::Struct(members) => sorted(members.iter().map(|(k, v)| (k.clone(), to_json(v))).collect()),
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

fn col<'a>(row: &'a Row<'_>, name: &str) -> &'a Value {
    row.iter().find(|(k, _)| *k == name).map_or(&Value::Null, |(_, v)| v)
}

/// An operand's value, borrowed where it is a column or a literal (most are): only what
/// is computed is made.
fn operand<'r>(e: &'r E, row: &'r Row<'_>) -> Result<Cow<'r, Value>, String> {
    Ok(match e {
        E::Col(name) => Cow::Borrowed(col(row, name)),
        E::Lit(v) => Cow::Borrowed(v),
        _ => Cow::Owned(eval(e, row)?),
    })
}

fn truth(v: &Value) -> Option<bool> {
    match v {
        Value::Bool(b) => Some(*b),
        _ => None,
    }
}

fn from_truth(b: Option<bool>) -> Value {
    b.map_or(Value::Null, Value::Bool)
}

#[allow(clippy::too_many_lines)]
fn eval(e: &E, row: &Row<'_>) -> Result<Value, String> {
    Ok(match e {
        E::Col(name) => col(row, name).clone(),
        E::Lit(v) => v.clone(),
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
                match compare(&v, &*operand(item, row)?) {
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
        E::Call(func, args) => {
            let values = args.iter().map(|a| operand(a, row)).collect::<Result<Vec<_>, _>>()?;
            call(*func, values)?
        }
        E::Cast(inner, ty) => cast(operand(inner, row)?.into_owned(), ty)?,
        E::Extract(part, inner) => match to_time(&*operand(inner, row)?) {
            Some((s, n)) => extract(*part, s, n),
            None => Value::Null,
        },
        E::Array(items) => Value::Array(items.iter().map(|i| eval(i, row)).collect::<Result<_, _>>()?),
        E::Struct(members) => Value::Struct(
            members
                .iter()
                .map(|(k, v)| Ok((k.clone(), eval(v, row)?)))
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

/// SQL's ordering of two values: `None` when either is NULL or they do not compare.
fn compare(a: &Value, b: &Value) -> Option<std::cmp::Ordering> {
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

fn binary(op: BinOp, a: &Value, b: &Value) -> Result<Value, String> {
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
        BinOp::Concat => Value::Str(format!("{}{}", text(a), text(b))),
        _ => arithmetic(op, a, b)?,
    })
}

fn arithmetic(op: BinOp, a: &Value, b: &Value) -> Result<Value, String> {
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
fn number(v: &Value) -> Option<f64> {
    match v {
        Value::Int(n) => Some(*n as f64),
        Value::Float(f) => Some(*f),
        _ => None,
    }
}

/// `->` / `->>`: a member of an object (by name) or an element of an array (by index).
fn member(op: BinOp, base: &Value, key: &Value) -> Value {
    let json = match base {
        Value::Json(j) => j.clone(),
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
        (Some(Json::String(s)), BinOp::LongArrow) => Value::Str(s),
        (Some(other), BinOp::LongArrow) => Value::Str(json_text(&other)),
        (Some(other), _) => Value::Json(other),
    }
}

fn json_text(json: &Json) -> String {
    serde_json::Value::from(json.clone()).to_string()
}

/// A value as text (`||`, `concat`, `CAST(... AS VARCHAR)`).
fn text(v: &Value) -> String {
    match v {
        Value::Null => String::new(),
        Value::Str(s) => s.clone(),
        Value::Int(n) => n.to_string(),
        Value::Float(f) => f.to_string(),
        Value::Bool(b) => b.to_string(),
        Value::Time(s, n) => super::write::time_text(*s, *n),
        other => json_text(&to_json(other)),
    }
}

fn to_time(v: &Value) -> Option<(i64, u32)> {
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

fn extract(part: Part, seconds: i64, nanos: u32) -> Value {
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

fn call(func: Func, args: Vec<Cow<'_, Value>>) -> Result<Value, String> {
    let first: &Value = args.first().map_or(&Value::Null, |a| a);
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
        Func::Concat => Value::Str(args.iter().map(|a| text(a)).collect()),
        Func::MakeArray => Value::Array(args.into_iter().map(Cow::into_owned).collect()),
        Func::ToTimestamp => to_time(first).map_or(Value::Null, |(s, n)| Value::Time(s, n)),
        Func::Abs => match first {
            Value::Int(n) => Value::Int(n.checked_abs().ok_or("integer overflow in `abs`")?),
            Value::Float(f) => Value::Float(f.abs()),
            _ => Value::Null,
        },
        Func::Round => number(first).map_or(Value::Null, |f| Value::Float(f.round())),
        _ => {
            let Value::Str(s) = first else {
                return Ok(Value::Null);
            };
            let mut rest: Vec<&str> = Vec::new();
            for arg in args.iter().skip(1) {
                match &**arg {
                    Value::Str(a) => rest.push(a),
                    _ => return Ok(Value::Null),
                }
            }
            match func {
                Func::Upper => Value::Str(s.to_uppercase()),
                Func::Lower => Value::Str(s.to_lowercase()),
                Func::Trim => Value::Str(s.trim_matches(' ').to_owned()),
                Func::Ltrim => Value::Str(s.trim_start_matches(' ').to_owned()),
                Func::Rtrim => Value::Str(s.trim_end_matches(' ').to_owned()),
                Func::Length => Value::Int(i64::try_from(s.chars().count()).unwrap_or(i64::MAX)),
                Func::Replace => Value::Str(s.replace(rest[0], rest[1])),
                Func::StartsWith => Value::Bool(s.starts_with(rest[0])),
                Func::EndsWith => Value::Bool(s.ends_with(rest[0])),
                _ => Value::Null,
            }
        }
    })
}

fn cast(v: Value, ty: &Ty) -> Result<Value, String> {
    if v == Value::Null {
        return Ok(Value::Null);
    }
    let fail = |v: &Value| format!("cannot cast {} to {}", json_text(&to_json(v)), ty.name());
    Ok(match ty {
        Ty::Str => Value::Str(text(&v)),
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
