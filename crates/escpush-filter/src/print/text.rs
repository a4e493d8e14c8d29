//! The canonical text form: conditions as `KEY OP VALUE` with `==`, `!=`, `<`, `<=`, `>`,
//! `>=` for the comparisons and the format's names for the rest, `and` / `or` in lower case,
//! and the fewest parentheses that parse back to the same tree (`and` binds tighter than
//! `or`; a group directly inside a group of the same kind keeps its parentheses, a group
//! of one expression is written `and(...)` / `or(...)`). Values keep their type, but for
//! one thing: a filter holds an integer compared by a single-value operator as its text
//! (`Value`'s canonical spelling, SPEC B.1), and `==`, `!=`, `<`, `<=`, `>`, `>=` print such
//! a text bare (`EdgeResponseStatus >= 500`), which reads back the same.

use std::fmt::Write;

use crate::ast::{canonical_integer, Expr, Operator, Scalar, Value};
use crate::text::is_keyword;
use crate::Filter;

/// The filter in the text form; `Filter::from_text` reads it back to the same filter.
pub fn to_text(filter: &Filter) -> String {
    let mut out = String::with_capacity(64);
    write_expr(filter.expr(), Place::Top, &mut out);
    out
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Place {
    Top,
    InAnd,
    InOr,
}

fn write_expr(expr: &Expr, place: Place, out: &mut String) {
    match expr {
        Expr::Condition(c) => {
            write_key(&c.key, out);
            out.push(' ');
            out.push_str(c.operator.text());
            out.push(' ');
            match &c.value {
                Value::Scalar(Scalar::String(s)) if compares_numbers(c.operator) && canonical_integer(s).is_some() => {
                    out.push_str(s);
                }
                value => write_value(value, out),
            }
        }
        Expr::And(items) | Expr::Or(items) if items.len() == 1 => {
            out.push_str(if matches!(expr, Expr::And(_)) { "and(" } else { "or(" });
            write_expr(&items[0], Place::Top, out);
            out.push(')');
        }
        Expr::And(items) => {
            let paren = place == Place::InAnd;
            write_group(items, " and ", Place::InAnd, paren, out);
        }
        Expr::Or(items) => {
            let paren = place != Place::Top;
            write_group(items, " or ", Place::InOr, paren, out);
        }
    }
}

fn write_group(items: &[Expr], joiner: &str, place: Place, paren: bool, out: &mut String) {
    if paren {
        out.push('(');
    }
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.push_str(joiner);
        }
        write_expr(item, place, out);
    }
    if paren {
        out.push(')');
    }
}

/// The operators written as symbols, whose integer values read best bare.
fn compares_numbers(op: Operator) -> bool {
    op.text() != op.as_str()
}

/// A field name as a bare word when it reads as one, else as a JSON string.
fn write_key(key: &str, out: &mut String) {
    let bare = key.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
        && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.')
        && !is_keyword(key);
    if bare {
        out.push_str(key);
    } else {
        out.push_str(&serde_json::Value::from(key).to_string());
    }
}

fn write_value(value: &Value, out: &mut String) {
    match value {
        Value::Scalar(s) => write_scalar(s, out),
        Value::Set(items) => {
            out.push('[');
            for (i, s) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_scalar(s, out);
            }
            out.push(']');
        }
    }
}

fn write_scalar(s: &Scalar, out: &mut String) {
    match s {
        Scalar::String(v) => out.push_str(&serde_json::Value::from(v.as_str()).to_string()),
        Scalar::Int(n) => {
            let _ = write!(out, "{n}");
        }
        Scalar::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
    }
}
