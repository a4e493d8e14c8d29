use super::*;
use crate::dataset::Dataset;

fn t(text: &str) -> Filter {
    Filter::from_text(text).unwrap_or_else(|e| panic!("{text}: {e}"))
}

fn http() -> &'static Dataset {
    Dataset::get("http_requests", None).unwrap()
}

fn same(a: &str, b: &str, dataset: Option<&Dataset>) -> bool {
    let (f, g) = (t(a), t(b));
    let one = f.equivalent(&g, dataset);
    assert_eq!(one, g.equivalent(&f, dataset), "symmetric: {a} / {b}");
    one
}

#[test]
fn the_issue_examples() {
    // An `or` of `eq`s is not `in` on an array field, but is for a string field.
    let ors = r#"ClientCountry == "cn" or ClientCountry == "ru""#;
    let set = r#"ClientCountry in ["cn", "ru"]"#;
    assert!(!same(ors, set, None));
    let cx = t(ors).counterexample(&t(set), None).unwrap();
    assert!(matches!(cx.fields()[0].1, FieldValue::Array(_)), "{cx:?}");
    assert!(same(ors, set, Some(http())));
    // `lt 10 or lt 20` is `lt 20`, but not `leq 19` (19.5), except on an int field.
    assert!(same("A < 10 or A < 20", "A < 20", None));
    assert!(!same("A < 10 or A < 20", "A <= 19", None));
    let cx = t("A < 20").counterexample(&t("A <= 19"), None).unwrap();
    assert!(
        matches!(cx.fields()[0].1, FieldValue::Float(x) if x > 19.0 && x < 20.0),
        "{cx:?}"
    );
    assert!(same(
        "EdgeResponseStatus < 20",
        "EdgeResponseStatus <= 19",
        Some(http())
    ));
}

#[test]
fn evaluation_rules_that_make_filters_differ_or_not() {
    // Scalars compare by canonical text.
    assert!(same(r#"A == "200""#, "A == 200", None));
    assert!(same(r#"A in ["1", 1, true]"#, r#"A in [1, "true"]"#, None));
    assert!(same(r#"A != "x""#, r#"not A == "x""#, None));
    // A missing field fails `<` and `>=` both.
    assert!(!same("A < 5 or A >= 5", "A == 1 or A != 1", None));
    assert!(!same("A < 5 or A >= 5", "A == 1 or A != 1", Some(http())));
    // A float equals nothing but compares: 5.0.
    assert!(!same("A >= 5 and A <= 5", "A == 5", None));
    assert!(same(
        "EdgeResponseStatus >= 5 and EdgeResponseStatus <= 5",
        "EdgeResponseStatus == 5",
        Some(http())
    ));
    // Prefixes, suffixes and substrings.
    assert!(same(
        r#"A startsWith "ab" and A startsWith "a""#,
        r#"A startsWith "ab""#,
        None
    ));
    assert!(same(
        r#"A startsWith "ab" or A startsWith "a""#,
        r#"A startsWith "a""#,
        None
    ));
    assert!(!same(r#"A startsWith "a""#, r#"A contains "a""#, None));
    assert!(same(
        r#"A startsWith "a" and A !contains "a""#,
        r#"A == "zz" and A != "zz""#,
        None
    ));
    assert!(same(r#"A == "abc" and A endsWith "bc""#, r#"A == "abc""#, None));
    assert!(!same(r#"A startsWith "ab" and A endsWith "bc""#, r#"A == "abc""#, None));
    // Arrays: `contains` is element equality, `in` is any element.
    assert!(!same(
        r#"A contains "x" and A contains "y""#,
        r#"A == "never" and A != "never""#,
        None
    ));
    assert!(same(
        r#"SecuritySources contains "x" and SecuritySources == "x""#,
        r#"A == "n" and A != "n""#,
        Some(http())
    ));
    assert!(same(
        r#"SecuritySources contains "x""#,
        r#"SecuritySources in ["x"]"#,
        Some(http())
    ));
    // Big integers.
    assert!(!same("A > 9223372036854775807", "A == 1 and A != 1", None));
    assert!(same(
        "EdgeResponseStatus > 9223372036854775806",
        "EdgeResponseStatus == 9223372036854775807 or EdgeResponseStatus > 9223372036854775807",
        Some(http())
    ));
}

#[test]
fn counterexamples_fit_the_dataset() {
    let cases = [
        (
            r#"ClientCountry == "cn" or ClientCountry == "ru""#,
            r#"ClientCountry in ["cn", "ru", "us"]"#,
        ),
        ("EdgeResponseStatus >= 500", "EdgeResponseStatus > 500"),
        (
            r#"SecuritySources contains "waf""#,
            r#"SecuritySources in ["waf", "ratelimit"]"#,
        ),
        ("WorkerSubrequest == true", "WorkerSubrequest != false"),
    ];
    for (a, b) in cases {
        let cx = t(a)
            .counterexample(&t(b), Some(http()))
            .unwrap_or_else(|| panic!("{a} / {b}"));
        for (key, value) in cx.fields() {
            let ty = http().field(key).unwrap().field_type();
            let fits = match (ty, value) {
                (crate::dataset::FieldType::String, FieldValue::Str(_))
                | (crate::dataset::FieldType::Int, FieldValue::Int(_))
                | (crate::dataset::FieldType::Bool, FieldValue::Bool(_)) => true,
                (crate::dataset::FieldType::StringArray, FieldValue::Array(items)) => {
                    items.iter().all(|e| matches!(e, FieldValue::Str(_)))
                }
                _ => false,
            };
            assert!(fits, "{key}: {value:?} is not of type {ty}");
        }
        let json = cx.to_json();
        assert_ne!(t(a).matches(&json), t(b).matches(&json));
    }
}

#[test]
fn relations_between_atoms_hold_on_every_sample_value() {
    use super::theory::{relation, Relation};
    let conditions = [
        "A == \"5\"",
        "A == 5",
        "A == \"ab\"",
        "A == \"abc\"",
        "A == true",
        "A in [\"ab\", 5]",
        "A in [\"x\"]",
        "A startsWith \"a\"",
        "A startsWith \"ab\"",
        "A startsWith \"b\"",
        "A endsWith \"c\"",
        "A endsWith \"bc\"",
        "A contains \"b\"",
        "A contains \"5\"",
        "A < 5",
        "A <= 5",
        "A > 5",
        "A >= 5",
        "A < 6",
        "A > 4",
        "A >= 6",
        "A <= 4",
    ];
    let mut atoms = Atoms::default();
    for c in conditions {
        atoms.collect(t(c).expr());
    }
    let values = [
        serde_json::json!(null),
        serde_json::json!(5),
        serde_json::json!(4),
        serde_json::json!(6),
        serde_json::json!(5.0),
        serde_json::json!(4.5),
        serde_json::json!(5.5),
        serde_json::json!("5"),
        serde_json::json!("ab"),
        serde_json::json!("abc"),
        serde_json::json!("a"),
        serde_json::json!("b"),
        serde_json::json!("bc"),
        serde_json::json!(true),
        serde_json::json!(["ab", "5"]),
        serde_json::json!(["b", 5]),
        serde_json::json!("x"),
        serde_json::json!(["x"]),
    ];
    for a in &atoms.list {
        for b in &atoms.list {
            let rel = relation(a, b);
            for v in &values {
                let fv = FieldValue::from(v);
                let (x, y) = (
                    crate::eval_condition(&a.cond, Some(&fv)),
                    crate::eval_condition(&b.cond, Some(&fv)),
                );
                let ok = match rel {
                    Relation::Exclusive => !(x && y),
                    Relation::Implies => !x || y,
                    Relation::ImpliedBy => !y || x,
                    Relation::Free => true,
                };
                assert!(ok, "{:?} {:?} {:?} on {v}", a.cond, rel, b.cond);
            }
        }
    }
}
