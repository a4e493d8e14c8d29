//! Property tests of `Filter::equivalent` as `ensure_job` and `apply` use it to compare a
//! stored filter with the desired one: a filter rewritten the ways a server may write it back
//! (groups reordered, nested, repeated) is equivalent to it, and filters it calls equivalent
//! select the same records.

use escpush_filter::Filter;
use escpush_filter::{Condition, Expr, Operator, Scalar, Value};
use proptest::prelude::*;
use serde_json::{json, Value as J};

fn condition() -> impl Strategy<Value = Expr> {
    (
        prop::sample::select(vec!["A", "B"]),
        prop::sample::select(vec![
            Operator::Eq,
            Operator::NotEq,
            Operator::In,
            Operator::Geq,
            Operator::StartsWith,
        ]),
        prop::collection::vec(prop::sample::select(vec!["1", "2", "x"]), 1..3),
        0i64..3,
    )
        .prop_map(|(key, op, set, n)| {
            let value = if op.takes_set() {
                Value::Set(set.into_iter().map(|s| Scalar::String(s.into())).collect())
            } else if op.is_numeric() {
                Value::Scalar(Scalar::Int(n))
            } else {
                Value::Scalar(Scalar::String(set[0].into()))
            };
            Expr::Condition(Condition::new(key, op, value).expect("well formed"))
        })
}

fn expr() -> impl Strategy<Value = Expr> {
    condition().prop_recursive(3, 12, 3, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 1..4).prop_map(Expr::And),
            prop::collection::vec(inner, 1..4).prop_map(Expr::Or),
        ]
    })
}

/// The same filter written differently: members reversed, each group's first member
/// repeated, groups of two or more split into a nested group of the same kind, and the whole
/// wrapped in a group of one.
fn rewrite(e: &Expr) -> Expr {
    fn group(items: &[Expr], make: fn(Vec<Expr>) -> Expr) -> Expr {
        let mut out: Vec<Expr> = items.iter().rev().map(rewrite).collect();
        out.push(out[0].clone());
        if out.len() >= 2 {
            let rest = out.split_off(1);
            out.push(make(rest));
        }
        make(out)
    }
    match e {
        Expr::Condition(_) => Expr::And(vec![e.clone()]),
        Expr::And(items) => group(items, Expr::And),
        Expr::Or(items) => group(items, Expr::Or),
    }
}

fn record() -> impl Strategy<Value = J> {
    let v = prop_oneof![
        Just(J::Null),
        (0i64..3).prop_map(J::from),
        prop::sample::select(vec!["1", "2", "x", "xy"]).prop_map(J::from)
    ];
    (v.clone(), v).prop_map(|(a, b)| json!({"A": a, "B": b}))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn a_rewritten_filter_is_equal_and_selects_the_same(e in expr(), recs in prop::collection::vec(record(), 4)) {
        let f = Filter::new(e.clone()).unwrap();
        let g = Filter::new(rewrite(&e)).unwrap();
        prop_assert!(f.equivalent(&g, None));
        prop_assert!(g.equivalent(&f, None));
        for r in &recs {
            prop_assert_eq!(f.matches(r), g.matches(r));
        }
    }

    #[test]
    fn filters_called_equal_select_the_same(a in expr(), b in expr(), recs in prop::collection::vec(record(), 8)) {
        let (f, g) = (Filter::new(a).unwrap(), Filter::new(b).unwrap());
        if f.equivalent(&g, None) {
            for r in &recs {
                prop_assert_eq!(f.matches(r), g.matches(r));
            }
        }
        prop_assert!(f.equivalent(&f, None));
    }
}
