//! Property tests: parse ∘ print = id, and the evaluator against a naive one on JSON values.

mod common;

use escpush_filter::Filter;
use escpush_filter::Limits;
use escpush_filter::{Expr, Operator, Scalar, Value};
use proptest::prelude::*;
use serde_json::{json, Value as J};

fn scalar() -> impl Strategy<Value = Scalar> {
    prop_oneof![
        any::<i64>().prop_map(Scalar::Int),
        (-300i64..300).prop_map(Scalar::Int),
        any::<bool>().prop_map(Scalar::Bool),
        "[a-c0-9é\"\\\\\n-]{0,5}".prop_map(Scalar::String),
        prop::sample::select(vec!["200", "0200", "-5", "true", "false", ""]).prop_map(|s| Scalar::String(s.into())),
    ]
}

fn expr() -> impl Strategy<Value = Expr> {
    let keys = prop::sample::select(vec!["A", "B", "C"]).prop_map(str::to_owned);
    let condition = common::condition(keys, scalar, 1..4, common::int_either_form(-300i64..300));
    common::groups(condition, 3, 16, 4)
}

fn field_value() -> impl Strategy<Value = J> {
    prop_oneof![
        Just(J::Null),
        any::<bool>().prop_map(J::from),
        (-300i64..300).prop_map(J::from),
        any::<i64>().prop_map(J::from),
        prop::sample::select(vec![200.0f64, -5.5, 0.5, 1e300]).prop_map(J::from),
        "[a-c0-9é\"-]{0,4}".prop_map(J::from),
        prop::sample::select(vec!["200", "0200", "-5", "true", "false"]).prop_map(J::from),
        prop::collection::vec(
            prop_oneof![(-300i64..300).prop_map(J::from), "[a-c0-9]{0,3}".prop_map(J::from)],
            0..3
        )
        .prop_map(J::from),
        Just(json!({"x": 1})),
    ]
}

fn record() -> impl Strategy<Value = J> {
    prop::collection::btree_map(prop::sample::select(vec!["A", "B", "C"]), field_value(), 0..3)
        .prop_map(|m| J::Object(m.into_iter().map(|(k, v)| (k.to_owned(), v)).collect()))
}

/// The rules of DESIGN.md, written the plain way on `serde_json::Value`.
fn naive(expr: &Expr, rec: &J) -> bool {
    fn canon(v: &J) -> Option<String> {
        match v {
            J::Bool(b) => Some(b.to_string()),
            J::Number(n) if n.is_i64() || n.is_u64() => Some(n.to_string()),
            J::String(s) => Some(s.clone()),
            _ => None,
        }
    }
    fn text(s: &Scalar) -> String {
        s.canonical_text().into_owned()
    }
    match expr {
        Expr::And(items) => items.iter().all(|e| naive(e, rec)),
        Expr::Or(items) => items.iter().any(|e| naive(e, rec)),
        Expr::Condition(c) => {
            let op = c.operator();
            let base = if op.is_negative() { op.negated() } else { op };
            let x = rec.get(c.key()).filter(|x| !x.is_null());
            let held = x.is_some_and(|x| match (base, c.value()) {
                (Operator::Eq, Value::Scalar(s)) => canon(x) == Some(text(s)),
                (Operator::In, Value::Set(set)) => {
                    let texts: Vec<String> = set.iter().map(text).collect();
                    match x {
                        J::Array(items) => items.iter().any(|e| canon(e).is_some_and(|t| texts.contains(&t))),
                        x => canon(x).is_some_and(|t| texts.contains(&t)),
                    }
                }
                (Operator::StartsWith, Value::Scalar(s)) => x.as_str().is_some_and(|t| t.starts_with(&text(s))),
                (Operator::EndsWith, Value::Scalar(s)) => x.as_str().is_some_and(|t| t.ends_with(&text(s))),
                (Operator::Contains, Value::Scalar(s)) => match x {
                    J::String(t) => t.contains(&text(s)),
                    J::Array(items) => items.iter().any(|e| canon(e) == Some(text(s))),
                    _ => false,
                },
                (_, Value::Scalar(s)) => {
                    #[allow(clippy::cast_precision_loss)]
                    let bound = s.as_integer().unwrap() as f64;
                    x.as_f64().filter(|_| x.is_number()).is_some_and(|f| match base {
                        Operator::Lt => f < bound,
                        Operator::Leq => f <= bound,
                        Operator::Gt => f > bound,
                        _ => f >= bound,
                    })
                }
                _ => unreachable!(),
            });
            held != op.is_negative()
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn parse_of_print_is_identity(e in expr()) {
        let f = Filter::new(e).unwrap();
        let text = f.to_json();
        let back = Filter::parse(&text).unwrap();
        prop_assert_eq!(&back, &f);
        prop_assert_eq!(back.to_json(), text.clone());
        let quoted = serde_json::to_string(&text).unwrap();
        prop_assert_eq!(Filter::parse(&quoted).unwrap(), f.clone());
        let pretty = serde_json::to_string_pretty(&f.to_value()).unwrap();
        prop_assert_eq!(Filter::parse(&pretty).unwrap(), f.clone());
        prop_assert_eq!(f.byte_size(), text.len());
        prop_assert!(f.validate(None, Limits::none()).is_ok());
    }

    #[test]
    fn evaluation_agrees_with_the_naive_rules(e in expr(), rec in record()) {
        let f = Filter::new(e).unwrap();
        prop_assert_eq!(f.matches(&rec), naive(f.expr(), &rec), "{} on {}", f, rec);
    }

    #[test]
    fn negation_is_an_involution_and_exact_on_numbers(e in expr(), rec in record()) {
        let f = Filter::new(e).unwrap();
        prop_assert_eq!(!!f.clone(), f.clone());
        let all_numbers = rec.as_object().unwrap().len() == 3
            && rec.as_object().unwrap().values().all(serde_json::Value::is_number);
        let numeric = f.expr().conditions().iter().any(|c| c.operator().is_numeric());
        if all_numbers || !numeric {
            prop_assert_eq!((!f.clone()).matches(&rec), !f.matches(&rec));
        }
    }
}
