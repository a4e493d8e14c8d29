//! Building filters in code: `field("X").eq("y") & !field("Z").ge(500)`.
//!
//! The typed builders (`eq`, `lt`, `is_in`, ...) cannot make a wrong value shape; an empty
//! name or set, or groups nested too deep, are reported by [`Filter::validate`] with the
//! problems [`Filter::parse`] gives. [`Field::new`] and [`Field::build`] check at once, with
//! those same problems: they are what a binding calls with values it has converted.

use std::ops::{BitAnd, BitOr, Not};

use crate::json::Json;
use crate::problem::Problem;

use super::ast::{Condition, Expr, Operator, Scalar, Value};
use super::{validate, Filter, FilterError};

/// Starts a condition on the log field `name`.
///
/// ```
/// use escpush_filter::field;
/// let f = field("ClientCountry").is_in(["cn", "ru"]) | field("EdgeResponseStatus").ge(500);
/// assert_eq!(f.operator_count(), 2);
/// ```
pub fn field(name: impl Into<String>) -> Field {
    Field { name: name.into() }
}

/// A log field, waiting for an operator. Every method gives a one-condition [`Filter`].
///
/// Single values that are integers are written as strings (`"value":"500"`), the form
/// the API documents, as every entry point writes them (`Value`'s canonical spelling); the
/// values of `is_in` / `not_in` are written as given.
/// An empty field name or an empty set is reported by [`Filter::validate`].
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[must_use = "a field does nothing until an operator makes a filter of it"]
pub struct Field {
    name: String,
}

impl Field {
    /// A field, checked: a non-empty name (the problem `empty_key` at `key`, as parsing gives).
    pub fn new(name: impl Into<String>) -> Result<Field, FilterError> {
        let name = name.into();
        match validate::key_problem(&name, "") {
            Some(problem) => Err(FilterError::new(vec![problem])),
            None => Ok(Field { name }),
        }
    }

    /// A condition with `operator` and a value given as JSON, checked exactly as
    /// [`Filter::parse`] checks a condition's `value` (same codes, same messages, paths from
    /// `value`). An integer for a single-value operator is written as a string (`"500"`), as
    /// every entry point writes it. With `unordered` (values from a set, whose order means
    /// nothing), the values of `in` / `!in` are sorted, so the filter always prints the same.
    pub fn build(self, operator: Operator, value: &Json, unordered: bool) -> Result<Filter, FilterError> {
        let mut problems: Vec<Problem> = Vec::new();
        let value = super::parse::parse_value(value, "value", &mut problems);
        let Some(value) = value.filter(|_| problems.is_empty()) else {
            return Err(FilterError::new(problems));
        };
        let value = match value {
            Value::Set(mut items) if unordered => {
                items.sort();
                Value::Set(items)
            }
            other => other,
        };
        self.op(operator, value)
    }

    /// The field's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// A condition with any operator; `value` must have the operator's shape, so this is
    /// the one fallible builder.
    pub fn op(self, operator: Operator, value: Value) -> Result<Filter, super::FilterError> {
        let condition = Condition::new(self.name, operator, value)?;
        Ok(Filter::from_expr(Expr::Condition(condition)))
    }

    fn single(self, operator: Operator, value: impl Into<Scalar>) -> Filter {
        let value = Value::Scalar(value.into());
        Filter::from_expr(Expr::Condition(Condition::canonical(self.name, operator, value)))
    }

    fn set<S: Into<Scalar>>(self, operator: Operator, values: impl IntoIterator<Item = S>) -> Filter {
        let value = Value::Set(values.into_iter().map(Into::into).collect());
        Filter::from_expr(Expr::Condition(Condition::canonical(self.name, operator, value)))
    }

    /// `eq`: the field equals `value`.
    #[allow(clippy::should_implement_trait)]
    pub fn eq(self, value: impl Into<Scalar>) -> Filter {
        self.single(Operator::Eq, value)
    }

    /// `!eq`: the field does not equal `value` (true where the field is missing).
    #[allow(clippy::should_implement_trait)]
    pub fn ne(self, value: impl Into<Scalar>) -> Filter {
        self.single(Operator::NotEq, value)
    }

    /// `lt`: the field is a number less than `value`.
    pub fn lt(self, value: i64) -> Filter {
        self.single(Operator::Lt, value)
    }

    /// `leq`: the field is a number less than or equal to `value`.
    pub fn le(self, value: i64) -> Filter {
        self.single(Operator::Leq, value)
    }

    /// `gt`: the field is a number greater than `value`.
    pub fn gt(self, value: i64) -> Filter {
        self.single(Operator::Gt, value)
    }

    /// `geq`: the field is a number greater than or equal to `value`.
    pub fn ge(self, value: i64) -> Filter {
        self.single(Operator::Geq, value)
    }

    /// `startsWith`: the field is a string starting with `prefix`.
    pub fn starts_with(self, prefix: impl Into<String>) -> Filter {
        self.single(Operator::StartsWith, prefix.into())
    }

    /// `endsWith`: the field is a string ending with `suffix`.
    pub fn ends_with(self, suffix: impl Into<String>) -> Filter {
        self.single(Operator::EndsWith, suffix.into())
    }

    /// `!startsWith`.
    pub fn not_starts_with(self, prefix: impl Into<String>) -> Filter {
        self.single(Operator::NotStartsWith, prefix.into())
    }

    /// `!endsWith`.
    pub fn not_ends_with(self, suffix: impl Into<String>) -> Filter {
        self.single(Operator::NotEndsWith, suffix.into())
    }

    /// `contains`: a substring of a string field, an element of an array field.
    pub fn contains(self, value: impl Into<Scalar>) -> Filter {
        self.single(Operator::Contains, value)
    }

    /// `!contains`.
    pub fn not_contains(self, value: impl Into<Scalar>) -> Filter {
        self.single(Operator::NotContains, value)
    }

    /// `in`: the field's value (or any element of an array field) is one of `values`.
    pub fn is_in<S: Into<Scalar>>(self, values: impl IntoIterator<Item = S>) -> Filter {
        self.set(Operator::In, values)
    }

    /// `!in`.
    pub fn not_in<S: Into<Scalar>>(self, values: impl IntoIterator<Item = S>) -> Filter {
        self.set(Operator::NotIn, values)
    }
}

/// `a & b` (`and`) or `a | b`: one group of the items of both, a group of the same kind
/// being merged into it. The left group's list is reused, so `f = f & g` in a loop is linear.
pub(crate) fn combine(a: Filter, b: Filter, and: bool) -> Filter {
    let mut items = match (a.expr, and) {
        (Expr::And(inner), true) | (Expr::Or(inner), false) => inner,
        (other, _) => vec![other],
    };
    match (b.expr, and) {
        (Expr::And(inner), true) | (Expr::Or(inner), false) => items.extend(inner),
        (other, _) => items.push(other),
    }
    Filter::from_expr(if and { Expr::And(items) } else { Expr::Or(items) })
}

/// `a & b`: both hold. Nested `and` groups are flattened into one.
impl BitAnd for Filter {
    type Output = Filter;

    fn bitand(self, rhs: Filter) -> Filter {
        combine(self, rhs, true)
    }
}

/// `a | b`: either holds. Nested `or` groups are flattened into one.
impl BitOr for Filter {
    type Output = Filter;

    fn bitor(self, rhs: Filter) -> Filter {
        combine(self, rhs, false)
    }
}

/// `!f`: each operator becomes its negation partner (`eq`↔`!eq`, `lt`↔`geq`, ...), and
/// groups swap by De Morgan. Exact on every record, except that a numeric condition and
/// its partner are both false where the field is missing or not a number.
impl Not for Filter {
    type Output = Filter;

    fn not(self) -> Filter {
        fn negate(expr: Expr) -> Expr {
            match expr {
                Expr::Condition(c) => Expr::Condition(Condition {
                    operator: c.operator.negated(),
                    ..c
                }),
                Expr::And(items) => Expr::Or(items.into_iter().map(negate).collect()),
                Expr::Or(items) => Expr::And(items.into_iter().map(negate).collect()),
            }
        }
        Filter::from_expr(negate(self.expr))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn builders_write_what_the_api_documents() {
        let f = field("EdgeResponseStatus").ge(500);
        assert_eq!(
            f.to_json(),
            r#"{"where":{"key":"EdgeResponseStatus","operator":"geq","value":"500"}}"#
        );
        let f = field("EdgeResponseStatus").is_in([200, 201]);
        assert_eq!(
            f.to_json(),
            r#"{"where":{"key":"EdgeResponseStatus","operator":"in","value":[200,201]}}"#
        );
        let f = field("WorkerSubrequest").eq(true);
        assert_eq!(
            f.to_json(),
            r#"{"where":{"key":"WorkerSubrequest","operator":"eq","value":true}}"#
        );
    }

    #[test]
    fn and_or_flatten_and_nest_as_the_spec_shows() {
        let x = field("X").eq("x");
        let y = field("Y").eq("y");
        let z = field("Z").eq("z");
        let f = x.clone() & y.clone() & z.clone();
        assert!(matches!(f.expr(), Expr::And(v) if v.len() == 3));
        let f = x.clone() & (y.clone() | z.clone());
        assert!(matches!(f.expr(), Expr::And(v) if v.len() == 2 && matches!(v[1], Expr::Or(_))));
        let f = (x.clone() & y.clone()) | z.clone();
        assert!(matches!(f.expr(), Expr::Or(v) if v.len() == 2 && matches!(v[0], Expr::And(_))));
        let f = (x.clone() | y.clone()) | (z.clone() | x);
        assert!(matches!(f.expr(), Expr::Or(v) if v.len() == 4));
    }

    #[test]
    fn negation_uses_partners_and_de_morgan() {
        let f = !(field("A").lt(5) & (field("B").eq("x") | field("C").is_in(["y"])));
        assert_eq!(
            f.to_json(),
            concat!(
                r#"{"where":{"or":[{"key":"A","operator":"geq","value":"5"},"#,
                r#"{"and":[{"key":"B","operator":"!eq","value":"x"},{"key":"C","operator":"!in","value":["y"]}]}]}}"#
            )
        );
        assert_eq!(!!f.clone(), f);
        for rec in [
            json!({"A": 3, "B": "x"}),
            json!({"A": 9, "C": "y"}),
            json!({"B": "q", "A": 1}),
        ] {
            assert_eq!(f.matches(&rec), !(!f.clone()).matches(&rec), "{rec}");
        }
    }

    #[test]
    fn checked_builders_give_the_problems_parse_gives() {
        let parsed = |value: &str, op: &str| {
            let text = format!(r#"{{"key":"A","operator":"{op}","value":{value}}}"#);
            let text = format!(r#"{{"where":{text}}}"#);
            Filter::parse(&text).map_err(|e| {
                e.problems()
                    .iter()
                    .map(|p| {
                        (
                            p.path.trim_start_matches("where.").to_owned(),
                            p.code,
                            p.message.clone(),
                        )
                    })
                    .collect::<Vec<_>>()
            })
        };
        let built = |value: &str, op: Operator| {
            field("A").build(op, &Json::parse(value).unwrap(), false).map_err(|e| {
                e.problems()
                    .iter()
                    .map(|p| (p.path.clone(), p.code, p.message.clone()))
                    .collect::<Vec<_>>()
            })
        };
        for (value, op) in [
            ("[]", Operator::In),
            (r#""abc""#, Operator::NotIn),
            (r#""abc""#, Operator::Lt),
            ("true", Operator::Geq),
            (r#""0500""#, Operator::Lt),
            ("1.5", Operator::Eq),
            ("null", Operator::Eq),
            ("1180591620717411303424", Operator::Eq),
            ("1e400", Operator::Eq),
            (r#"["a"]"#, Operator::Eq),
            ("[1, {}]", Operator::In),
            ("{}", Operator::Contains),
        ] {
            let want = parsed(value, op.as_str()).unwrap_err();
            assert_eq!(built(value, op).unwrap_err(), want, "{value} {op}");
        }
        assert_eq!(
            built("-0", Operator::Geq).unwrap(),
            parsed(r#""0""#, "geq").unwrap(),
            "-0 is the integer 0"
        );
        assert_eq!(built("500", Operator::Eq).unwrap(), field("A").eq(500));
        assert_eq!(
            field("A").build(Operator::In, &Json::parse(r#"["b", 2, "a"]"#).unwrap(), true),
            Ok(field("A").is_in([Scalar::from("a"), "b".into(), Scalar::Int(2)]))
        );
        let empty = Field::new("").unwrap_err();
        let parsed_empty = Filter::parse(r#"{"where":{"key":"","operator":"eq","value":"x"}}"#).unwrap_err();
        assert_eq!(empty.problems()[0].code, parsed_empty.problems()[0].code);
        assert_eq!(empty.problems()[0].message, parsed_empty.problems()[0].message);
        assert_eq!(empty.problems()[0].path, "key");
    }

    #[test]
    fn combining_in_a_loop_reuses_the_group() {
        // Linear: the left group's list is extended in place, never copied. 200,000
        // conditions would take hours if each step copied the group.
        let started = std::time::Instant::now();
        let mut f = field("A").eq(0);
        for i in 1..200_000 {
            f = f & field("A").eq(i);
        }
        assert_eq!(f.operator_count(), 200_000);
        assert_eq!(f.expr().depth(), 1);
        assert!(started.elapsed() < std::time::Duration::from_secs(30));
    }

    #[test]
    fn op_checks_the_value_shape() {
        assert!(field("A").op(Operator::In, Value::Scalar("x".into())).is_err());
        assert!(field("A").op(Operator::Lt, Value::Scalar("x".into())).is_err());
        assert!(field("A").op(Operator::In, Value::Set(vec![])).is_err());
        assert!(field("").op(Operator::Eq, Value::Scalar("x".into())).is_err());
        let f = field("A").op(Operator::Lt, Value::Scalar(5.into())).unwrap();
        assert_eq!(f.to_json(), r#"{"where":{"key":"A","operator":"lt","value":"5"}}"#);
    }
}
