//! Generators of random filters shared by the property tests. Each test file picks its own
//! keys and values (what it sets out to exercise); how a condition takes its value from its
//! operator, and how conditions nest into groups, is written once here.
#![allow(dead_code)] // each test file is its own crate and uses part of this

use std::ops::Range;

use escpush_filter::{Condition, Expr, Operator, Scalar, Value};
use proptest::prelude::*;

/// A condition on one of `keys`, of any operator: `in` / `!in` take a set of `scalar()`s
/// (of `sets` sizes), `lt`..`geq` a `number`, the others one `scalar()`.
pub fn condition<S: Strategy<Value = Scalar>>(
    keys: impl Strategy<Value = String>,
    scalar: impl Fn() -> S,
    sets: Range<usize>,
    number: impl Strategy<Value = Scalar>,
) -> impl Strategy<Value = Expr> {
    (
        keys,
        prop::sample::select(Operator::ALL.to_vec()),
        scalar(),
        prop::collection::vec(scalar(), sets),
        number,
    )
        .prop_map(|(key, op, one, set, number)| {
            let value = if op.takes_set() {
                Value::Set(set)
            } else if op.is_numeric() {
                Value::Scalar(number)
            } else {
                Value::Scalar(one)
            };
            Expr::Condition(Condition::new(key, op, value).expect("generated conditions are well formed"))
        })
}

/// `and` / `or` groups of 1 to 3 members over `condition`, nested as proptest's
/// `prop_recursive(depth, size, branch)` lets them.
pub fn groups(
    condition: impl Strategy<Value = Expr> + 'static,
    depth: u32,
    size: u32,
    branch: u32,
) -> impl Strategy<Value = Expr> {
    condition.prop_recursive(depth, size, branch, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 1..4).prop_map(Expr::And),
            prop::collection::vec(inner, 1..4).prop_map(Expr::Or),
        ]
    })
}

/// An integer for `lt`..`geq`, written as a number when even and as its text when odd (a
/// filter takes both forms).
pub fn int_either_form(n: impl Strategy<Value = i64>) -> impl Strategy<Value = Scalar> {
    n.prop_map(|n| {
        if n % 2 == 0 {
            Scalar::Int(n)
        } else {
            Scalar::String(n.to_string())
        }
    })
}
