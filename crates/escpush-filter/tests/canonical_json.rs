//! One canonical JSON per filter (issue 33, item 14): every entry point writes a number
//! compared by a single-value operator as a string (SPEC B.1: "Numeric comparison values are
//! written as strings in single-value operators"; filters.mdx writes `"value":"30"`), and
//! keeps the values of `in` / `!in` as written (filters.mdx writes `[200,201]`). So filters
//! that say the same thing in these spellings are equal, hash alike and print alike.

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};

use escpush_filter::Filter;
use escpush_filter::{field, Condition, Expr, Operator, Scalar, Value};

fn hash(f: &Filter) -> u64 {
    let mut h = DefaultHasher::new();
    f.hash(&mut h);
    h.finish()
}

#[test]
fn every_entry_point_writes_single_numbers_as_strings() {
    let canonical = r#"{"where":{"key":"EdgeResponseStatus","operator":"geq","value":"500"}}"#;
    let built = field("EdgeResponseStatus").ge(500);
    let entry_points = [
        ("builder", built.clone()),
        ("text form", Filter::parse_any("EdgeResponseStatus >= 500").unwrap()),
        (
            "text form, quoted",
            Filter::parse_any(r#"EdgeResponseStatus >= "500""#).unwrap(),
        ),
        (
            "JSON with a number",
            Filter::parse(r#"{"where":{"key":"EdgeResponseStatus","operator":"geq","value":500}}"#).unwrap(),
        ),
        ("JSON with a string", Filter::parse(canonical).unwrap()),
        (
            "a JSON value",
            Filter::from_json(
                serde_json::json!({"where": {"key": "EdgeResponseStatus", "operator": "geq", "value": 500}}),
            )
            .unwrap(),
        ),
        (
            "Condition::new",
            Filter::new(Expr::Condition(
                Condition::new("EdgeResponseStatus", Operator::Geq, Value::Scalar(Scalar::Int(500))).unwrap(),
            ))
            .unwrap(),
        ),
        (
            "Field::op",
            field("EdgeResponseStatus")
                .op(Operator::Geq, Value::Scalar(Scalar::Int(500)))
                .unwrap(),
        ),
    ];
    for (name, f) in &entry_points {
        assert_eq!(f.to_json(), canonical, "{name}");
        assert_eq!(f, &built, "{name}");
        assert_eq!(hash(f), hash(&built), "{name}");
    }
    // eq, !eq, contains too; `in` keeps what was written.
    assert_eq!(
        Filter::parse_any("EdgeResponseStatus == 404 or EdgeResponseStatus != 200").unwrap(),
        field("EdgeResponseStatus").eq(404) | field("EdgeResponseStatus").ne(200)
    );
    assert_eq!(
        Filter::parse_any("EdgeResponseStatus in [200, 201]").unwrap().to_json(),
        r#"{"where":{"key":"EdgeResponseStatus","operator":"in","value":[200,201]}}"#
    );
    // Parse of the canonical text gives the same filter back.
    for (_, f) in &entry_points {
        assert_eq!(&Filter::parse(&f.to_json()).unwrap(), f);
    }
}
