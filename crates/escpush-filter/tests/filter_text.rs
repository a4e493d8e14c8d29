//! The text form: from_text ∘ to_text = id over random filters, and every error has a position.

mod common;

use escpush_filter::Filter;
use escpush_filter::{Expr, Scalar};
use proptest::prelude::*;

fn scalar() -> impl Strategy<Value = Scalar> {
    prop_oneof![
        any::<i64>().prop_map(Scalar::Int),
        any::<bool>().prop_map(Scalar::Bool),
        "[a-c0-9é\"\\\\\n\t# ()-]{0,5}".prop_map(Scalar::String),
        prop::sample::select(vec!["200", "-5", "true", "false", ""]).prop_map(|s| Scalar::String(s.into())),
    ]
}

fn key() -> impl Strategy<Value = String> {
    prop_oneof![
        prop::sample::select(vec![
            "A",
            "B",
            "http.request.uri",
            "and",
            "NOT",
            "true",
            "a b",
            "x(",
            "é",
            "_1"
        ])
        .prop_map(str::to_owned),
        "[a-zA-Z_][a-zA-Z0-9_.]{0,6}",
        "[^\"]{1,4}",
    ]
}

fn expr() -> impl Strategy<Value = Expr> {
    let condition = common::condition(key(), scalar, 1..4, common::int_either_form(any::<i64>()));
    common::groups(condition, 4, 24, 4)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn text_round_trips(e in expr()) {
        let f = Filter::new(e).unwrap();
        let text = f.to_text();
        let back = Filter::from_text(&text).map_err(|err| TestCaseError::fail(format!("{text}\n{err}")))?;
        prop_assert_eq!(&back, &f, "{}", text);
        prop_assert_eq!(Filter::parse_any(&text).unwrap(), f);
    }

    #[test]
    fn any_text_parses_or_fails_with_a_position(text in "[A-C \"()!=<>\\[\\]{},0-9a-z#\n]{0,40}") {
        match Filter::from_text(&text) {
            Ok(f) => prop_assert_eq!(Filter::from_text(&f.to_text()).unwrap(), f),
            Err(e) => {
                prop_assert!(e.line >= 1 && e.column >= 1 && e.width >= 1);
                prop_assert!(e.line <= text.split('\n').count());
                prop_assert!(e.caret().contains('^'));
            }
        }
    }

    #[test]
    fn mutated_text_fails_with_a_position(e in expr(), cut in any::<prop::sample::Index>(), junk in "[)(\\]\\[\"=<!,]") {
        let text = Filter::new(e).unwrap().to_text();
        let mut at = cut.index(text.len() + 1);
        while !text.is_char_boundary(at) { at -= 1; }
        let broken = format!("{}{junk}{}", &text[..at], &text[at..]);
        if let Err(err) = Filter::from_text(&broken) {
            prop_assert!(err.column >= 1 && err.line >= 1);
            prop_assert!(!err.message.is_empty());
        }
    }
}
