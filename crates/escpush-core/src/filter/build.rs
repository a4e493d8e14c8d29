//! Building filters in code: `field("X").eq("y") & !field("Z").ge(500)`.

use std::ops::{BitAnd, BitOr, Not};

use super::ast::{Condition, Expr, Operator, Scalar, Value};
use super::Filter;

/// Starts a condition on the log field `name`.
///
/// ```
/// use escpush_core::field;
/// let f = field("ClientCountry").is_in(["cn", "ru"]) | field("EdgeResponseStatus").ge(500);
/// assert_eq!(f.operator_count(), 2);
/// ```
pub fn field(name: impl Into<String>) -> Field {
    Field { name: name.into() }
}

/// A log field, waiting for an operator. Every method gives a one-condition [`Filter`].
///
/// Single values that are integers are written as strings (`"value":"500"`), the form
/// the API documents; the values of `is_in` / `not_in` are written as given.
/// An empty field name or an empty set is reported by [`Filter::validate`].
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[must_use = "a field does nothing until an operator makes a filter of it"]
pub struct Field {
    name: String,
}

impl Field {
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
        let value = match value.into() {
            Scalar::Int(n) => Scalar::String(n.to_string()),
            other => other,
        };
        Filter::from_expr(Expr::Condition(Condition {
            key: self.name,
            operator,
            value: Value::Scalar(value),
        }))
    }

    fn set<S: Into<Scalar>>(self, operator: Operator, values: impl IntoIterator<Item = S>) -> Filter {
        Filter::from_expr(Expr::Condition(Condition {
            key: self.name,
            operator,
            value: Value::Set(values.into_iter().map(Into::into).collect()),
        }))
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

fn combine(a: Filter, b: Filter, and: bool) -> Filter {
    let mut items = Vec::new();
    for f in [a, b] {
        match (f.expr, and) {
            (Expr::And(inner), true) | (Expr::Or(inner), false) => items.extend(inner),
            (other, _) => items.push(other),
        }
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
    fn op_checks_the_value_shape() {
        assert!(field("A").op(Operator::In, Value::Scalar("x".into())).is_err());
        assert!(field("A").op(Operator::Lt, Value::Scalar("x".into())).is_err());
        assert!(field("A").op(Operator::In, Value::Set(vec![])).is_err());
        assert!(field("").op(Operator::Eq, Value::Scalar("x".into())).is_err());
        let f = field("A").op(Operator::Lt, Value::Scalar(5.into())).unwrap();
        assert_eq!(f.to_json(), r#"{"where":{"key":"A","operator":"lt","value":5}}"#);
    }
}
