//! The canonical JSON printer: compact, members in the order `key, operator, value` / `and` /
//! `or`, so the same filter always prints the same bytes (the value of a job's `filter`).

use crate::ast::{Expr, Scalar, Value};
use crate::Filter;

/// `{"where":...}` as canonical compact JSON text.
pub fn to_json(filter: &Filter) -> String {
    let mut out = String::with_capacity(128);
    out.push_str(r#"{"where":"#);
    write_expr(filter.expr(), &mut out);
    out.push('}');
    out
}

/// The filter as a `serde_json::Value`, members in canonical order.
pub fn to_value(filter: &Filter) -> serde_json::Value {
    serde_json::json!({ "where": expr_value(filter.expr()) })
}

fn write_expr(expr: &Expr, out: &mut String) {
    match expr {
        Expr::Condition(c) => {
            out.push_str(r#"{"key":"#);
            write_str(&c.key, out);
            out.push_str(r#","operator":""#);
            out.push_str(c.operator.as_str());
            out.push_str(r#"","value":"#);
            match &c.value {
                Value::Scalar(s) => write_scalar(s, out),
                Value::Set(items) => {
                    out.push('[');
                    for (i, s) in items.iter().enumerate() {
                        if i > 0 {
                            out.push(',');
                        }
                        write_scalar(s, out);
                    }
                    out.push(']');
                }
            }
            out.push('}');
        }
        Expr::And(items) | Expr::Or(items) => {
            out.push_str(if matches!(expr, Expr::And(_)) {
                r#"{"and":["#
            } else {
                r#"{"or":["#
            });
            for (i, e) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_expr(e, out);
            }
            out.push_str("]}");
        }
    }
}

fn write_scalar(s: &Scalar, out: &mut String) {
    match s {
        Scalar::String(v) => write_str(v, out),
        Scalar::Int(n) => out.push_str(&n.to_string()),
        Scalar::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
    }
}

fn write_str(s: &str, out: &mut String) {
    out.push_str(&serde_json::Value::from(s).to_string());
}

fn scalar_value(s: &Scalar) -> serde_json::Value {
    match s {
        Scalar::String(v) => v.as_str().into(),
        Scalar::Int(n) => (*n).into(),
        Scalar::Bool(b) => (*b).into(),
    }
}

fn expr_value(expr: &Expr) -> serde_json::Value {
    match expr {
        Expr::Condition(c) => serde_json::json!({
            "key": c.key,
            "operator": c.operator.as_str(),
            "value": match &c.value {
                Value::Scalar(s) => scalar_value(s),
                Value::Set(items) => items.iter().map(scalar_value).collect(),
            },
        }),
        Expr::And(items) => serde_json::json!({ "and": items.iter().map(expr_value).collect::<Vec<_>>() }),
        Expr::Or(items) => serde_json::json!({ "or": items.iter().map(expr_value).collect::<Vec<_>>() }),
    }
}
