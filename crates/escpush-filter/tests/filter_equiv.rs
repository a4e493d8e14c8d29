//! Equivalence: pairs made by rewrites that keep the meaning are proven equal; mutated pairs
//! get a counterexample that the evaluator confirms (and that fits the dataset when one is
//! given); and no claim of equality is contradicted by random records.

mod common;

use escpush_filter::Filter;
use escpush_filter::{Condition, Expr, FieldValue, Operator, Scalar, Value};
use escpush_filter::{Dataset, FieldType};
use proptest::prelude::*;
use serde_json::{json, Value as J};

const KEYS: [&str; 3] = ["EdgeResponseStatus", "ClientCountry", "SecuritySources"];

fn scalar() -> impl Strategy<Value = Scalar> {
    prop_oneof![
        (0i64..6).prop_map(Scalar::Int),
        prop::sample::select(vec!["0", "1", "5", "a", "ab", "b", "ba", "", "true"])
            .prop_map(|s| Scalar::String(s.into())),
        any::<bool>().prop_map(Scalar::Bool),
    ]
}

fn expr() -> impl Strategy<Value = Expr> {
    let keys = prop::sample::select(KEYS.to_vec()).prop_map(str::to_owned);
    let condition = common::condition(keys, scalar, 1..3, (0i64..6).prop_map(Scalar::Int));
    common::groups(condition, 3, 12, 3)
}

/// An equivalent expression, by one of the rewrites that keep the meaning on every record.
fn rewrite(e: &Expr, how: u8) -> Expr {
    match (e, how % 6) {
        (Expr::Condition(c), 0) => match c.value() {
            // `eq 5` and `eq "5"` compare the same text.
            Value::Scalar(Scalar::Int(n)) if !c.operator().is_numeric() => Expr::Condition(
                Condition::new(c.key(), c.operator(), Value::Scalar(Scalar::String(n.to_string()))).unwrap(),
            ),
            _ => e.clone(),
        },
        (Expr::Condition(_), 1) => Expr::And(vec![e.clone(), e.clone()]),
        (Expr::Condition(_), 2) => Expr::Or(vec![e.clone()]),
        (Expr::And(items) | Expr::Or(items), 3) => {
            let mut items: Vec<Expr> = items.iter().rev().map(|x| rewrite(x, how / 2)).collect();
            items.rotate_left(1);
            if matches!(e, Expr::And(_)) {
                Expr::And(items)
            } else {
                Expr::Or(items)
            }
        }
        (Expr::And(items), 4) if items.len() >= 2 => {
            // a and (b or c) and rest  ->  ((a and b) or (a and c)) and rest ... when items[1] is an or.
            match &items[1] {
                Expr::Or(ors) => {
                    let distributed = Expr::Or(
                        ors.iter()
                            .map(|o| Expr::And(vec![items[0].clone(), o.clone()]))
                            .collect(),
                    );
                    let mut rest = vec![distributed];
                    rest.extend(items[2..].iter().cloned());
                    Expr::And(rest)
                }
                _ => Expr::And(vec![Expr::And(items[..1].to_vec()), Expr::And(items[1..].to_vec())]),
            }
        }
        (Expr::Or(items), 5) => {
            // absorption: x or (x and y)
            let mut more = items.clone();
            more.push(Expr::And(vec![items[0].clone(), items[items.len() - 1].clone()]));
            Expr::Or(more)
        }
        (Expr::And(items), _) => Expr::And(
            items
                .iter()
                .map(|x| rewrite(x, how.wrapping_mul(7).wrapping_add(1)))
                .collect(),
        ),
        (Expr::Or(items), _) => Expr::Or(
            items
                .iter()
                .map(|x| rewrite(x, how.wrapping_mul(5).wrapping_add(3)))
                .collect(),
        ),
        _ => e.clone(),
    }
}

/// Some change: another operator or value on the first condition.
fn mutate(e: &Expr, op: Operator, value: &Scalar) -> Expr {
    match e {
        Expr::Condition(c) => {
            let v = if op.takes_set() {
                Value::Set(vec![value.clone()])
            } else if op.is_numeric() {
                Value::Scalar(Scalar::Int(value.as_integer().unwrap_or(3)))
            } else {
                Value::Scalar(value.clone())
            };
            Expr::Condition(Condition::new(c.key(), op, v).unwrap())
        }
        Expr::And(items) => {
            let mut items = items.clone();
            items[0] = mutate(&items[0], op, value);
            Expr::And(items)
        }
        Expr::Or(items) => {
            let mut items = items.clone();
            items[0] = mutate(&items[0], op, value);
            Expr::Or(items)
        }
    }
}

fn field_value() -> impl Strategy<Value = J> {
    prop_oneof![
        Just(J::Null),
        any::<bool>().prop_map(J::from),
        (-1i64..7).prop_map(J::from),
        prop::sample::select(vec![4.5f64, 5.0, -0.5]).prop_map(J::from),
        prop::sample::select(vec!["0", "1", "5", "a", "ab", "b", "ba", "", "true", "xab", "abx"]).prop_map(J::from),
        prop::collection::vec(
            prop::sample::select(vec![json!("a"), json!("b"), json!(1), json!(5), json!("true")]),
            0..3
        )
        .prop_map(J::from),
    ]
}

fn record() -> impl Strategy<Value = J> {
    prop::collection::vec(field_value(), 3).prop_map(|vs| {
        J::Object(
            KEYS.iter()
                .zip(vs)
                .filter(|(_, v)| !v.is_null())
                .map(|(k, v)| ((*k).to_owned(), v))
                .collect(),
        )
    })
}

fn http() -> &'static Dataset {
    Dataset::get("http_requests", None).unwrap()
}

fn fits(cx: &J) -> bool {
    cx.as_object()
        .unwrap()
        .iter()
        .all(|(k, v)| match http().field(k).unwrap().field_type() {
            FieldType::Int => v.is_i64() || v.is_u64(),
            FieldType::String => v.is_string(),
            FieldType::StringArray => v.as_array().is_some_and(|a| a.iter().all(J::is_string)),
            _ => false,
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn rewrites_are_proven_equal(e in expr(), how in any::<u8>()) {
        let f = Filter::new(e.clone()).unwrap();
        let g = Filter::new(rewrite(&e, how)).unwrap();
        prop_assert!(f.equivalent(&g, None), "{} / {}", f.to_text(), g.to_text());
        prop_assert!(f.equivalent(&g, Some(http())));
    }

    #[test]
    fn mutations_get_a_confirmed_counterexample(
        e in expr(), op in prop::sample::select(Operator::ALL.to_vec()), value in scalar(), recs in prop::collection::vec(record(), 24),
    ) {
        let f = Filter::new(e.clone()).unwrap();
        let g = Filter::new(mutate(&e, op, &value)).unwrap();
        for dataset in [None, Some(http())] {
            match f.counterexample(&g, dataset) {
                Some(cx) => {
                    let rec = cx.to_json();
                    prop_assert_ne!(f.matches(&rec), g.matches(&rec), "{}", rec);
                    if dataset.is_some() {
                        prop_assert!(fits(&rec), "{} does not fit the schema", rec);
                    }
                }
                None if dataset.is_none() => {
                    for rec in &recs {
                        prop_assert_eq!(f.matches(rec), g.matches(rec), "claimed equal: {} / {} on {}", f.to_text(), g.to_text(), rec);
                    }
                }
                None => {}
            }
        }
    }

    #[test]
    fn claims_of_equality_hold_on_random_records(a in expr(), b in expr(), recs in prop::collection::vec(record(), 32)) {
        let (f, g) = (Filter::new(a).unwrap(), Filter::new(b).unwrap());
        match f.counterexample(&g, None) {
            Some(cx) => prop_assert_ne!(f.matches(&cx.to_json()), g.matches(&cx.to_json())),
            None => for rec in &recs { prop_assert_eq!(f.matches(rec), g.matches(rec)); },
        }
    }
}

#[test]
fn counterexample_values_are_json_values() {
    let f = Filter::from_text("A < -9223372036854775808").unwrap();
    let g = Filter::from_text("A == 1 and A != 1").unwrap();
    let cx = f.counterexample(&g, None).unwrap();
    assert!(matches!(cx.fields()[0].1, FieldValue::Int(_) | FieldValue::Float(_)));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// Every compaction is proven: equivalent (under the same rules) and never larger.
    #[test]
    fn compaction_is_equivalent_and_never_larger(e in expr(), how in any::<u8>()) {
        // Rewritten forms are redundant, which gives compaction work to do.
        let f = Filter::new(Expr::Or(vec![e.clone(), rewrite(&e, how)])).unwrap();
        for dataset in [None, Some(http())] {
            let c = f.compact(dataset);
            prop_assert!(c.equivalent(&f, dataset), "{} / {}", f.to_text(), c.to_text());
            prop_assert!((c.operator_count(), c.byte_size()) <= (f.operator_count(), f.byte_size()));
            prop_assert!(c.operator_count() <= e_ops(&e), "{} gave {}", f.to_text(), c.to_text());
        }
    }
}

fn e_ops(e: &Expr) -> usize {
    e.conditions().len()
}
