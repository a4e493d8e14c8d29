//! The other way: a transformer whose SQL only filters (one `SELECT` of `*` or of the
//! dataset's fields as they are, and a `WHERE` of conditions a job filter has) read back as a
//! job's `filter` and `field_names`, with the note that the filter is free where the
//! transformer is billed (pricing.mdx; the rate read from [`PRICES`]).

use escpush_filter::{Condition, Expr, Filter, Operator, Scalar, Value as FilterValue};

use super::ir::{BinOp, Func, Item, Source, Value, E};
use super::CheckedTransformer;
use crate::logpush::cost::{Component, PRICES};

/// A transformer's SQL as a job filter: what it keeps and delivers, said the free way.
#[derive(Clone, Debug, PartialEq)]
pub struct FilterForm {
    /// The job filter that keeps the records the `WHERE` keeps.
    pub filter: Filter,
    /// The job's `field_names`: the columns selected, `None` for `SELECT *`.
    pub fields: Option<Vec<String>>,
    /// Where the two differ (a negative condition drops a record without the field in SQL
    /// and keeps it in a filter), and the price of the transformer the filter saves.
    pub note: String,
}

impl CheckedTransformer {
    /// The job filter (and `field_names`) that keep and deliver what this transformer does,
    /// when its SQL only filters; `None` when it reshapes, computes, renames or uses a form
    /// no job filter has.
    pub fn as_job_filter(&self) -> Option<FilterForm> {
        let [stage] = self.query.stages.as_slice() else {
            return None;
        };
        if stage.source != Source::Dataset {
            return None;
        }
        let fields = match stage.items.as_slice() {
            [Item::All] => None,
            items => Some(
                items
                    .iter()
                    .map(|item| match item {
                        Item::Column {
                            name,
                            expr: E::Col(col),
                        } if name == col => Some(name.clone()),
                        _ => None,
                    })
                    .collect::<Option<Vec<_>>>()?,
            ),
        };
        let mut negative = Vec::new();
        let expr = expr(stage.filter.as_ref()?, &mut negative)?;
        let filter = Filter::new(expr).ok()?;
        if !filter
            .problems(Some(self.dataset), escpush_filter::Limits::default())
            .is_empty()
        {
            return None;
        }
        let rate = PRICES
            .iter()
            .find(|p| p.component == Component::Transformation)
            .map_or_else(String::new, |p| format!("{} per GB of input", p.rate));
        let mut note = format!(
            "this transformer only filters: the job filter below keeps the same records for free, where a transformer is billed {rate} past the included amount (pricing.mdx)"
        );
        if !negative.is_empty() {
            negative.sort();
            negative.dedup();
            let fields = negative.iter().map(|f| format!("`{f}`")).collect::<Vec<_>>().join(", ");
            note.push_str("; one difference: a record without ");
            note.push_str(&fields);
            note.push_str(" is dropped by the SQL's negative test (NULL) and kept by the filter's");
        }
        Some(FilterForm { filter, fields, note })
    }
}

impl CheckedTransformer {
    /// A job filter that keeps every record the transformer delivers anything for (and
    /// perhaps more): the `WHERE` of the one stage that reads the dataset, its conjuncts that
    /// a filter has (a negative test keeps a record without the field, which SQL drops: a
    /// superset still). A local run lets escpush's scanner drop the other lines before the
    /// engine parses them; `None` when no part of the `WHERE` is a filter's.
    pub fn prefilter(&self) -> Option<Filter> {
        let mut reading = self.query.stages.iter().filter(|s| s.source == Source::Dataset);
        let (Some(stage), None) = (reading.next(), reading.next()) else {
            return None;
        };
        let expr = superset(stage.filter.as_ref()?)?;
        let filter = Filter::new(expr).ok()?;
        filter
            .problems(Some(self.dataset), escpush_filter::Limits::default())
            .is_empty()
            .then_some(filter)
    }
}

/// A filter expression true wherever `e` is (an `AND` keeps the conjuncts a filter has).
fn superset(e: &E) -> Option<Expr> {
    if let E::Bin(BinOp::And, l, r) = e {
        return match (superset(l), superset(r)) {
            (Some(a), Some(b)) => Some(Expr::And(vec![a, b])),
            (one, None) | (None, one) => one,
        };
    }
    expr(e, &mut Vec::new())
}

/// The filter expression of a `WHERE`, `None` for any form no job filter has. A bare
/// condition is one: under `AND` / `OR` alone, SQL's NULL drops a record as the filter's
/// false does, except for a negative test (`<>`, `NOT IN`, `NOT LIKE`), listed in `negative`.
fn expr(e: &E, negative: &mut Vec<String>) -> Option<Expr> {
    match e {
        E::Bin(op @ (BinOp::And | BinOp::Or), l, r) => {
            let mut items = Vec::new();
            for side in [l, r] {
                match expr(side, negative)? {
                    Expr::And(inner) if *op == BinOp::And => items.extend(inner),
                    Expr::Or(inner) if *op == BinOp::Or => items.extend(inner),
                    other => items.push(other),
                }
            }
            Some(if *op == BinOp::And {
                Expr::And(items)
            } else {
                Expr::Or(items)
            })
        }
        // escpush's transformer dialect: `COALESCE(test, FALSE)`, `NOT COALESCE(test, FALSE)`.
        E::Call(Func::Coalesce, args) if matches!(args.as_slice(), [_, E::Lit(Value::Bool(false))]) => {
            condition(&args[0], &mut Vec::new()).map(Expr::Condition)
        }
        E::Not(inner) => match inner.as_ref() {
            E::Call(Func::Coalesce, args) if matches!(args.as_slice(), [_, E::Lit(Value::Bool(false))]) => {
                let c = condition(&args[0], &mut Vec::new())?;
                if c.operator().is_negative() {
                    return None;
                }
                Condition::new(c.key(), c.operator().negated(), c.value().clone())
                    .ok()
                    .map(Expr::Condition)
            }
            _ => None,
        },
        other => condition(other, negative).map(Expr::Condition),
    }
}

/// A literal, or an integer written as arithmetic of literals (the dialect writes the
/// smallest 64-bit integer as `(-9223372036854775807 - 1)`).
fn constant(e: &E) -> Option<Value<'static>> {
    match e {
        E::Lit(v) => Some(v.clone()),
        E::Neg(inner) => match constant(inner)? {
            Value::Int(n) => n.checked_neg().map(Value::Int),
            Value::Float(f) => Some(Value::Float(-f)),
            _ => None,
        },
        E::Bin(op @ (BinOp::Plus | BinOp::Minus), l, r) => match (constant(l)?, constant(r)?) {
            (Value::Int(a), Value::Int(b)) if *op == BinOp::Plus => a.checked_add(b).map(Value::Int),
            (Value::Int(a), Value::Int(b)) => a.checked_sub(b).map(Value::Int),
            _ => None,
        },
        _ => None,
    }
}

fn scalar(v: &Value<'_>) -> Option<Scalar> {
    match v {
        Value::Str(s) => Some(Scalar::String(s.to_string())),
        Value::Int(n) => Some(Scalar::Int(*n)),
        Value::Bool(b) => Some(Scalar::Bool(*b)),
        // A whole double (the dialect writes a bound past 2^53 on a `float` field so).
        #[allow(clippy::cast_possible_truncation)]
        Value::Float(f) if f.fract() == 0.0 && f.abs() < 9.2e18 => Some(Scalar::Int(*f as i64)),
        _ => None,
    }
}

fn condition(e: &E, negative: &mut Vec<String>) -> Option<Condition> {
    let (key, op, value) = match e {
        E::Bin(op, l, r) => {
            let (key, lit, flipped) = match (l.as_ref(), r.as_ref()) {
                (E::Col(k), v) => (k, constant(v)?, false),
                (v, E::Col(k)) => (k, constant(v)?, true),
                _ => return None,
            };
            let lit = &lit;
            let op = match (op, flipped) {
                (BinOp::Eq, _) => Operator::Eq,
                (BinOp::NotEq, _) => Operator::NotEq,
                (BinOp::Lt, false) | (BinOp::Gt, true) => Operator::Lt,
                (BinOp::LtEq, false) | (BinOp::GtEq, true) => Operator::Leq,
                (BinOp::Gt, false) | (BinOp::Lt, true) => Operator::Gt,
                (BinOp::GtEq, false) | (BinOp::LtEq, true) => Operator::Geq,
                _ => return None,
            };
            (key.clone(), op, FilterValue::Scalar(scalar(lit)?))
        }
        E::In(col, list, negated) => {
            let E::Col(key) = col.as_ref() else { return None };
            let set = list.iter().map(|i| scalar(&constant(i)?)).collect::<Option<Vec<_>>>()?;
            let op = if *negated { Operator::NotIn } else { Operator::In };
            (key.clone(), op, FilterValue::Set(set))
        }
        E::Like {
            expr,
            pattern,
            negated,
            case_insensitive: false,
        } => {
            let (E::Col(key), E::Lit(Value::Str(p))) = (expr.as_ref(), pattern.as_ref()) else {
                return None;
            };
            let (op, text) = like_form(p)?;
            let op = if *negated { op.negated() } else { op };
            (key.clone(), op, FilterValue::Scalar(Scalar::String(text)))
        }
        _ => return None,
    };
    if op.is_negative() {
        negative.push(key.clone());
    }
    Condition::new(key, op, value).ok()
}

/// A `LIKE` pattern as a filter operator and its text: `abc%` starts with, `%abc` ends with,
/// `%abc%` contains, `abc` equals; `None` for a `_` or a `%` inside.
fn like_form(pattern: &str) -> Option<(Operator, String)> {
    let mut parts = Vec::new(); // (is_wildcard_percent, char)
    let mut chars = pattern.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => parts.push((false, chars.next()?)),
            '%' => parts.push((true, '%')),
            '_' => return None,
            c => parts.push((false, c)),
        }
    }
    let trail = parts.last().is_some_and(|p| p.0);
    let lead = parts.len() > usize::from(trail) && parts.first().is_some_and(|p| p.0);
    let inner = &parts[usize::from(lead)..parts.len() - usize::from(trail)];
    if inner.iter().any(|p| p.0) {
        return None;
    }
    let text: String = inner.iter().map(|p| p.1).collect();
    // `%` alone is any text: starts with "" (as the dialect prints it).
    let op = match (lead, trail) {
        (false, false) => Operator::Eq,
        (false, true) => Operator::StartsWith,
        (true, false) => Operator::EndsWith,
        (true, true) => Operator::Contains,
    };
    Some((op, text))
}
