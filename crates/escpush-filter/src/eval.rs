//! Evaluation of a filter on one log record, by the rules every local preview follows:
//!
//! - a missing (or null) field makes a condition false, so its `!` form is true;
//! - scalars compare by canonical text (`true`/`false`, integers in decimal), so
//!   `eq "200"` matches the integer 200; floats, arrays and objects have no canonical text;
//! - `lt`..`geq` need a number in the field (booleans are not numbers);
//! - `startsWith` / `endsWith` need a string;
//! - `contains` is a substring test on a string and element equality on an array;
//! - `in` on an array field is true if any element is in the set;
//! - everything is case-sensitive.

use std::borrow::Cow;
use std::cmp::Ordering;
use std::collections::HashMap;
use std::hash::BuildHasher;

use super::ast::{canonical_int, Condition, Expr, Operator, Scalar, Value};

/// The value of a log field, as the evaluator sees it.
#[derive(Clone, Debug, PartialEq)]
pub enum FieldValue<'a> {
    Null,
    Bool(bool),
    /// A JSON number written without fraction or exponent.
    Int(i128),
    /// Any other JSON number.
    Float(f64),
    Str(Cow<'a, str>),
    Array(Vec<FieldValue<'a>>),
    Object,
}

impl<'a> From<&'a serde_json::Value> for FieldValue<'a> {
    fn from(value: &'a serde_json::Value) -> Self {
        match value {
            serde_json::Value::Null => FieldValue::Null,
            serde_json::Value::Bool(b) => FieldValue::Bool(*b),
            serde_json::Value::Number(n) => {
                if let Some(i) = n.as_i64() {
                    FieldValue::Int(i.into())
                } else if let Some(u) = n.as_u64() {
                    FieldValue::Int(u.into())
                } else {
                    FieldValue::Float(n.as_f64().unwrap_or(f64::NAN))
                }
            }
            serde_json::Value::String(s) => FieldValue::Str(Cow::Borrowed(s)),
            serde_json::Value::Array(items) => FieldValue::Array(items.iter().map(FieldValue::from).collect()),
            serde_json::Value::Object(_) => FieldValue::Object,
        }
    }
}

/// A log record: anything that can hand out the value of a field by name.
pub trait Record {
    /// The field's value, or `None` when the record does not have it.
    fn field(&self, key: &str) -> Option<FieldValue<'_>>;
}

impl Record for serde_json::Map<String, serde_json::Value> {
    fn field(&self, key: &str) -> Option<FieldValue<'_>> {
        self.get(key).map(FieldValue::from)
    }
}

/// A JSON value as a record: an object's members; anything else has no fields.
impl Record for serde_json::Value {
    fn field(&self, key: &str) -> Option<FieldValue<'_>> {
        self.as_object().and_then(|o| o.field(key))
    }
}

impl<S: BuildHasher> Record for HashMap<String, FieldValue<'_>, S> {
    fn field(&self, key: &str) -> Option<FieldValue<'_>> {
        self.get(key).cloned()
    }
}

pub(crate) fn eval(expr: &Expr, record: &(impl Record + ?Sized)) -> bool {
    match expr {
        Expr::Condition(c) => eval_condition(c, record.field(&c.key).as_ref()),
        Expr::And(items) => items.iter().all(|e| eval(e, record)),
        Expr::Or(items) => items.iter().any(|e| eval(e, record)),
    }
}

/// One condition on a field's value (`None`: the record does not have the field).
pub fn eval_condition(condition: &Condition, value: Option<&FieldValue<'_>>) -> bool {
    let op = condition.operator;
    let positive = if op.is_negative() { op.negated() } else { op };
    let held = match value {
        None | Some(FieldValue::Null) => false,
        Some(x) => holds(positive, &condition.value, x),
    };
    held != op.is_negative()
}

/// The un-negated operator on a present, non-null field value. A value of the wrong shape
/// (a set for `eq`, one value for `in`) holds nowhere: a filter's shape is checked when it is
/// made, so none reaches here.
fn holds(op: Operator, value: &Value, x: &FieldValue<'_>) -> bool {
    let scalar = match value {
        Value::Scalar(s) => Some(s),
        Value::Set(_) => None,
    };
    match op {
        Operator::In => match (value, x) {
            (Value::Set(set), FieldValue::Array(items)) => items.iter().any(|e| set.iter().any(|s| scalar_eq(e, s))),
            (Value::Set(set), x) => set.iter().any(|s| scalar_eq(x, s)),
            (Value::Scalar(_), _) => false,
        },
        Operator::Eq => scalar.is_some_and(|s| scalar_eq(x, s)),
        Operator::Lt | Operator::Leq | Operator::Gt | Operator::Geq => {
            let Some(bound) = scalar.and_then(Scalar::as_integer) else {
                return false;
            };
            let ord = match x {
                FieldValue::Int(i) => Some(i.cmp(&i128::from(bound))),
                FieldValue::Float(f) => cmp_float_int(*f, bound),
                _ => None,
            };
            ord.is_some_and(|o| op.orderings().contains(&o))
        }
        Operator::StartsWith => {
            matches!((x, scalar), (FieldValue::Str(t), Some(s)) if t.starts_with(s.canonical_text().as_ref()))
        }
        Operator::EndsWith => {
            matches!((x, scalar), (FieldValue::Str(t), Some(s)) if t.ends_with(s.canonical_text().as_ref()))
        }
        Operator::Contains => match (x, scalar) {
            (FieldValue::Str(t), Some(s)) => t.contains(s.canonical_text().as_ref()),
            (FieldValue::Array(items), Some(s)) => items.iter().any(|e| scalar_eq(e, s)),
            _ => false,
        },
        // On a present value, a `!` operator is the negation of its partner.
        Operator::NotEq | Operator::NotStartsWith | Operator::NotEndsWith | Operator::NotContains | Operator::NotIn => {
            !holds(op.negated(), value, x)
        }
    }
}

/// Whether a field value and a filter value have the same canonical text.
fn scalar_eq(x: &FieldValue<'_>, s: &Scalar) -> bool {
    match (x, s) {
        (FieldValue::Str(t), Scalar::String(v)) => t == v,
        (FieldValue::Str(t), Scalar::Int(n)) => canonical_int(t) == Some(i128::from(*n)),
        (FieldValue::Str(t), Scalar::Bool(b)) => t == bool_text(*b),
        (FieldValue::Int(i), Scalar::String(v)) => canonical_int(v) == Some(*i),
        (FieldValue::Int(i), Scalar::Int(n)) => *i == i128::from(*n),
        (FieldValue::Bool(b), Scalar::Bool(v)) => b == v,
        (FieldValue::Bool(b), Scalar::String(v)) => v == bool_text(*b),
        _ => false,
    }
}

fn bool_text(b: bool) -> &'static str {
    if b {
        "true"
    } else {
        "false"
    }
}

/// Exact comparison of a float with an integer (no rounding of the integer to a float).
#[allow(clippy::cast_precision_loss, clippy::cast_possible_truncation)]
pub(crate) fn cmp_float_int(f: f64, n: i64) -> Option<Ordering> {
    if f.is_nan() {
        return None;
    }
    // Beyond ±2^63 every i64 is on one side.
    if f >= 9_223_372_036_854_775_808.0 {
        return Some(Ordering::Greater);
    }
    if f < -9_223_372_036_854_775_808.0 {
        return Some(Ordering::Less);
    }
    let whole = f.trunc();
    match (whole as i64).cmp(&n) {
        Ordering::Equal => f.partial_cmp(&whole),
        other => Some(other),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Filter;
    use serde_json::json;

    fn m(filter: &str, record: &serde_json::Value) -> bool {
        Filter::parse(filter).unwrap().matches(record)
    }

    fn cond(key: &str, op: &str, value: &serde_json::Value) -> String {
        json!({"where": {"key": key, "operator": op, "value": value}}).to_string()
    }

    #[test]
    fn missing_or_null_fields_make_conditions_false_and_negations_true() {
        for rec in [json!({}), json!({"F": null})] {
            for op in Operator::ALL {
                let value = if op.takes_set() { json!(["x"]) } else { json!("1") };
                assert_eq!(
                    m(&cond("F", op.as_str(), &value), &rec),
                    op.is_negative(),
                    "{op} on {rec}"
                );
            }
        }
    }

    #[test]
    fn scalars_compare_by_canonical_text() {
        let rec = json!({"S": "200", "I": 200, "B": true, "F": 200.0, "Z": "0200", "A": [1, "x"], "O": {}});
        let eq = |k: &str, v: serde_json::Value| m(&cond(k, "eq", &v), &rec);
        assert!(eq("I", json!("200")));
        assert!(eq("I", json!(200)));
        assert!(eq("S", json!(200)));
        assert!(!eq("I", json!("0200")));
        assert!(!eq("Z", json!(200)));
        assert!(eq("B", json!("true")));
        assert!(eq("B", json!(true)));
        assert!(!eq("B", json!(1)));
        assert!(!eq("F", json!("200")), "floats have no canonical text");
        assert!(!eq("A", json!("x")), "arrays have no canonical text");
        assert!(!eq("O", json!("x")));
        assert!(m(&cond("F", "!eq", &json!("200")), &rec));
        assert!(eq("S", json!("200")));
        assert!(!eq("S", json!("20")), "case and length matter");
    }

    #[test]
    fn numeric_operators_need_numbers() {
        let rec = json!({"I": 500, "F": 499.5, "S": "600", "B": true, "Big": 18_446_744_073_709_551_615_u64});
        let t = |k: &str, op: &str, v: &str| m(&cond(k, op, &json!(v)), &rec);
        assert!(t("I", "geq", "500") && !t("I", "gt", "500") && t("I", "leq", "500") && !t("I", "lt", "500"));
        assert!(t("F", "lt", "500") && !t("F", "geq", "500") && t("F", "gt", "499") && t("F", "leq", "500"));
        assert!(!t("S", "gt", "1") && !t("S", "leq", "1"), "strings are not numbers");
        assert!(!t("B", "gt", "0") && !t("B", "lt", "5"), "booleans are not numbers");
        assert!(t("Big", "gt", "9223372036854775807"));
        assert!(t("I", "gt", "-5"));
    }

    #[test]
    fn string_and_array_operators() {
        let rec = json!({"P": "/wp-admin/x.php", "A": ["rateLimit", "waf"], "N": [200, 404], "I": 7});
        let t = |k: &str, op: &str, v: serde_json::Value| m(&cond(k, op, &v), &rec);
        assert!(t("P", "startsWith", json!("/wp-")) && t("P", "endsWith", json!(".php")));
        assert!(!t("P", "startsWith", json!("/WP-")), "case-sensitive");
        assert!(t("P", "contains", json!("admin")) && t("P", "!contains", json!("xyz")));
        assert!(
            t("A", "contains", json!("waf")) && !t("A", "contains", json!("rate")),
            "element equality"
        );
        assert!(t("N", "contains", json!("404")) && t("N", "in", json!([1, 404])));
        assert!(t("A", "in", json!(["waf"])) && t("A", "!in", json!(["x"])));
        assert!(!t("I", "startsWith", json!("7")), "startsWith needs a string");
        assert!(t("I", "in", json!(["7", "8"])) && t("I", "in", json!([7])));
        assert!(!t("I", "contains", json!("7")), "contains needs a string or an array");
    }

    #[test]
    fn groups() {
        let rec = json!({"A": 1, "B": 2});
        let a1 = r#"{"key":"A","operator":"eq","value":"1"}"#;
        let b3 = r#"{"key":"B","operator":"eq","value":"3"}"#;
        assert!(!m(&format!(r#"{{"where":{{"and":[{a1},{b3}]}}}}"#), &rec));
        assert!(m(&format!(r#"{{"where":{{"or":[{a1},{b3}]}}}}"#), &rec));
        assert!(!m(&format!(r#"{{"where":{{"and":[{a1}]}}}}"#), &json!("not an object")));
    }

    #[test]
    fn float_int_comparison_is_exact() {
        assert_eq!(cmp_float_int(-2.5, -2), Some(Ordering::Less));
        assert_eq!(cmp_float_int(-2.5, -3), Some(Ordering::Greater));
        assert_eq!(
            cmp_float_int(9_007_199_254_740_993.0, 9_007_199_254_740_993),
            Some(Ordering::Less)
        );
        assert_eq!(cmp_float_int(1e300, i64::MAX), Some(Ordering::Greater));
        assert_eq!(cmp_float_int(-1e300, i64::MIN), Some(Ordering::Less));
        assert_eq!(cmp_float_int(f64::NAN, 0), None);
    }
}
