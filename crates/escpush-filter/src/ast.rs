//! The filter tree: `{"where": EXPR}` with EXPR a condition or an `and` / `or` group.

use std::fmt;

pub use super::operator::{Operator, UnknownOperator};

/// One value of a condition: a string, an integer or a boolean.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Scalar {
    String(String),
    Int(i64),
    Bool(bool),
}

impl Scalar {
    /// The canonical text the evaluation compares by: strings as they are, integers in
    /// decimal, booleans `true` / `false`.
    pub fn canonical_text(&self) -> std::borrow::Cow<'_, str> {
        match self {
            Scalar::String(s) => s.as_str().into(),
            Scalar::Int(n) => n.to_string().into(),
            Scalar::Bool(b) => if *b { "true" } else { "false" }.into(),
        }
    }

    /// The integer this value stands for: an `Int`, or a string in canonical decimal
    /// form (`"500"`, `"-3"`; not `"0500"`, `"+5"`, `"5.0"` or `" 5"`).
    pub fn as_integer(&self) -> Option<i64> {
        match self {
            Scalar::Int(n) => Some(*n),
            Scalar::String(s) => canonical_integer(s),
            Scalar::Bool(_) => None,
        }
    }
}

/// `s` as an `i64` when it is written the one canonical way (`0`, or an optional `-`
/// then digits without a leading zero) and fits.
pub fn canonical_integer(s: &str) -> Option<i64> {
    canonical_int(s).and_then(|n| i64::try_from(n).ok())
}

/// Whether `s` is written as a JSON integer: an optional `-`, then `0` or digits without a
/// leading zero (`-0` included), of any length.
pub(crate) fn canonical_int_text(s: &str) -> bool {
    let digits = s.strip_prefix('-').unwrap_or(s);
    !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) && (digits == "0" || !digits.starts_with('0'))
}

/// `s` as an integer when it is the canonical decimal text of one (up to 128 bits).
pub(crate) fn canonical_int(s: &str) -> Option<i128> {
    if canonical_int_text(s) && s != "-0" {
        s.parse().ok()
    } else {
        None
    }
}

impl fmt::Display for Scalar {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            // JSON, with every character that is not printable escaped (`crate::shown`):
            // the same string to a JSON reader, and nothing a terminal acts on.
            Scalar::String(s) => f.write_str(&crate::shown::json_string(s)),
            Scalar::Int(n) => write!(f, "{n}"),
            Scalar::Bool(b) => write!(f, "{b}"),
        }
    }
}

impl From<&str> for Scalar {
    fn from(s: &str) -> Self {
        Scalar::String(s.to_owned())
    }
}

impl From<String> for Scalar {
    fn from(s: String) -> Self {
        Scalar::String(s)
    }
}

impl From<&String> for Scalar {
    fn from(s: &String) -> Self {
        Scalar::String(s.clone())
    }
}

impl From<i64> for Scalar {
    fn from(n: i64) -> Self {
        Scalar::Int(n)
    }
}

impl From<i32> for Scalar {
    fn from(n: i32) -> Self {
        Scalar::Int(n.into())
    }
}

impl From<u32> for Scalar {
    fn from(n: u32) -> Self {
        Scalar::Int(n.into())
    }
}

impl From<bool> for Scalar {
    fn from(b: bool) -> Self {
        Scalar::Bool(b)
    }
}

/// The `value` of a condition: one scalar, or (for `in` / `!in`) a set of them.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Value {
    Scalar(Scalar),
    Set(Vec<Scalar>),
}

impl Value {
    /// The one spelling a filter holds, whatever wrote it (the builders, the text form, JSON
    /// with a number or a string): an integer compared by a single-value operator is written
    /// as its decimal text, `"500"` (SPEC B.1: "Numeric comparison values are written as
    /// strings in single-value operators"; filters.mdx writes `"value":"30"`); the values of
    /// `in` / `!in` are kept as written (filters.mdx writes `[200,201]`). Both spellings mean
    /// the same (values compare by their canonical text, `lt`..`geq` read the integer), so
    /// filters that differ only there are equal, hash alike and print the same JSON.
    pub(crate) fn canonical(self, operator: Operator) -> Value {
        match self {
            Value::Scalar(Scalar::Int(n)) if !operator.takes_set() => Value::Scalar(Scalar::String(n.to_string())),
            other => other,
        }
    }
}

/// `{"key": FIELD, "operator": OP, "value": V}`, with V of the shape OP takes.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Condition {
    pub(crate) key: String,
    pub(crate) operator: Operator,
    pub(crate) value: Value,
}

impl Condition {
    /// A condition in the spelling every filter holds ([`Value::canonical`]), unchecked:
    /// every condition of the crate is made here (checked ones by [`Condition::new`]).
    pub(crate) fn canonical(key: String, operator: Operator, value: Value) -> Condition {
        Condition {
            key,
            operator,
            value: value.canonical(operator),
        }
    }

    /// The log field the condition reads.
    pub fn key(&self) -> &str {
        &self.key
    }

    /// The comparison operator.
    pub fn operator(&self) -> Operator {
        self.operator
    }

    /// The value compared with the field.
    pub fn value(&self) -> &Value {
        &self.value
    }
}

/// An expression: a condition, or a non-empty `and` / `or` group of expressions.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Expr {
    Condition(Condition),
    And(Vec<Expr>),
    Or(Vec<Expr>),
}

impl Expr {
    /// How deep `and` / `or` groups nest: 0 for a condition, 1 for a group of conditions.
    /// Measured without recursion, so any tree can be measured.
    pub fn depth(&self) -> usize {
        let mut deepest = 0;
        let mut stack = vec![(self, 0)];
        while let Some((expr, depth)) = stack.pop() {
            match expr {
                Expr::Condition(_) => deepest = deepest.max(depth),
                Expr::And(items) | Expr::Or(items) => {
                    deepest = deepest.max(depth + 1);
                    stack.extend(items.iter().map(|e| (e, depth + 1)));
                }
            }
        }
        deepest
    }

    /// Every condition of the tree, depth first, in the order of the text.
    pub fn conditions(&self) -> Vec<&Condition> {
        fn walk<'a>(expr: &'a Expr, out: &mut Vec<&'a Condition>) {
            match expr {
                Expr::Condition(c) => out.push(c),
                Expr::And(items) | Expr::Or(items) => items.iter().for_each(|e| walk(e, out)),
            }
        }
        let mut out = Vec::new();
        walk(self, &mut out);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::problem::ProblemCode;

    #[test]
    fn every_operator_round_trips_through_its_name() {
        for op in Operator::ALL {
            assert_eq!(op.as_str().parse::<Operator>(), Ok(op));
            assert_eq!(op.negated().negated(), op);
            assert_ne!(op.negated(), op);
        }
    }

    #[test]
    fn an_operator_named_is_the_problem_parse_gives() {
        assert_eq!(Operator::named("!startsWith", "operator"), Ok(Operator::NotStartsWith));
        let meant = Operator::named("gte", "where.operator").unwrap_err();
        assert_eq!(
            (meant.path.as_str(), meant.code),
            ("where.operator", ProblemCode::UnknownOperator)
        );
        assert_eq!(meant.message, "unknown operator `gte`; did you mean `geq`?");
        let parsed = crate::Filter::parse(r#"{"where":{"key":"A","operator":"between","value":1}}"#).unwrap_err();
        assert_eq!(
            parsed.problems(),
            [Operator::named("between", "where.operator").unwrap_err()]
        );
        assert!(parsed.problems()[0].message.ends_with("the operators are eq, !eq, lt, leq, gt, geq, startsWith, endsWith, !startsWith, !endsWith, contains, !contains, in, !in"));
        assert_eq!(Operator::NotStartsWith.meaning(), "does not start with");
        assert!(Operator::ALL.iter().all(|op| !op.meaning().is_empty()));
    }

    #[test]
    fn unknown_operators_get_the_operator_people_meant() {
        let cases = [
            ("neq", "!eq"),
            ("ne", "!eq"),
            ("!=", "!eq"),
            ("gte", "geq"),
            ("lte", "leq"),
            (">=", "geq"),
            ("startswith", "startsWith"),
            ("StartsWith", "startsWith"),
            ("notStartsWith", "!startsWith"),
            ("not_in", "!in"),
            ("notin", "!in"),
            ("IN", "in"),
            ("contain", "contains"),
            ("endWith", "endsWith"),
            ("~", "contains"),
            ("==", "eq"),
            ("<", "lt"),
            (">", "gt"),
            (" eq", "eq"),
        ];
        for (given, meant) in cases {
            let err = given.parse::<Operator>().unwrap_err();
            assert_eq!(err.suggestion.map(Operator::as_str), Some(meant), "{given}");
        }
        let err = "between".parse::<Operator>().unwrap_err();
        assert_eq!(err.suggestion, None);
        assert_eq!(err.to_string(), "unknown operator `between`");
        assert_eq!(
            "neq".parse::<Operator>().unwrap_err().to_string(),
            "unknown operator `neq`; did you mean `!eq`?"
        );
    }

    #[test]
    fn canonical_integers() {
        for (s, n) in [("0", Some(0)), ("500", Some(500)), ("-3", Some(-3))] {
            assert_eq!(canonical_integer(s), n);
        }
        for s in [
            "",
            "-",
            "-0",
            "0500",
            "+5",
            "5.0",
            " 5",
            "5 ",
            "1e3",
            "5_000",
            "99999999999999999999",
        ] {
            assert_eq!(canonical_integer(s), None, "{s:?}");
        }
    }
}
