//! The filter tree: `{"where": EXPR}` with EXPR a condition or an `and` / `or` group.

use std::fmt;
use std::str::FromStr;

use crate::problem::{Problem, ProblemCode};
use crate::suggest;

/// The 14 comparison operators of SPEC appendix B.1.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Operator {
    /// `eq`: equal (string, int, bool).
    Eq,
    /// `!eq`: not equal (string, int, bool).
    NotEq,
    /// `lt`: less than (int).
    Lt,
    /// `leq`: less than or equal (int).
    Leq,
    /// `gt`: greater than (int).
    Gt,
    /// `geq`: greater than or equal (int).
    Geq,
    /// `startsWith` (string).
    StartsWith,
    /// `endsWith` (string).
    EndsWith,
    /// `!startsWith` (string).
    NotStartsWith,
    /// `!endsWith` (string).
    NotEndsWith,
    /// `contains`: substring of a string, element of an array.
    Contains,
    /// `!contains`.
    NotContains,
    /// `in`: value is in a set (string, int, array).
    In,
    /// `!in`: value is not in a set.
    NotIn,
}

impl Operator {
    /// Every operator, in the order of SPEC table B.1.
    pub const ALL: [Operator; 14] = [
        Operator::Eq,
        Operator::NotEq,
        Operator::Lt,
        Operator::Leq,
        Operator::Gt,
        Operator::Geq,
        Operator::StartsWith,
        Operator::EndsWith,
        Operator::NotStartsWith,
        Operator::NotEndsWith,
        Operator::Contains,
        Operator::NotContains,
        Operator::In,
        Operator::NotIn,
    ];

    /// The operator as the API writes it (`"!startsWith"`).
    pub fn as_str(self) -> &'static str {
        match self {
            Operator::Eq => "eq",
            Operator::NotEq => "!eq",
            Operator::Lt => "lt",
            Operator::Leq => "leq",
            Operator::Gt => "gt",
            Operator::Geq => "geq",
            Operator::StartsWith => "startsWith",
            Operator::EndsWith => "endsWith",
            Operator::NotStartsWith => "!startsWith",
            Operator::NotEndsWith => "!endsWith",
            Operator::Contains => "contains",
            Operator::NotContains => "!contains",
            Operator::In => "in",
            Operator::NotIn => "!in",
        }
    }

    /// What the operator means, as the "Meaning" column of SPEC table B.1 words it
    /// (`"does not start with"`): the label of a builder that offers it.
    pub fn meaning(self) -> &'static str {
        match self {
            Operator::Eq => "equal",
            Operator::NotEq => "not equal",
            Operator::Lt => "less than",
            Operator::Leq => "less than or equal",
            Operator::Gt => "greater than",
            Operator::Geq => "greater than or equal",
            Operator::StartsWith => "starts with",
            Operator::EndsWith => "ends with",
            Operator::NotStartsWith => "does not start with",
            Operator::NotEndsWith => "does not end with",
            Operator::Contains => "contains",
            Operator::NotContains => "does not contain",
            Operator::In => "value is in a set",
            Operator::NotIn => "value is not in a set",
        }
    }

    /// The operator `name` names (`"geq"`), or the problem `unknown_operator` at `path`,
    /// with what was probably meant or else the list of operators: one wording for a parsed
    /// condition and an operator a binding or a form gives by name.
    pub fn named(name: &str, path: &str) -> Result<Operator, Problem> {
        name.parse::<Operator>().map_err(|err| {
            Problem::new(
                path,
                ProblemCode::UnknownOperator,
                if err.suggestion.is_some() {
                    err.to_string()
                } else {
                    format!(
                        "{err}; the operators are {}",
                        Operator::ALL.map(Operator::as_str).join(", ")
                    )
                },
            )
        })
    }

    /// The negation partner: `eq`↔`!eq`, `lt`↔`geq`, `leq`↔`gt`, `in`↔`!in`, ...
    ///
    /// For the `!` operators this is an exact negation on every record. For the numeric
    /// pairs it is exact only where the field is a number: a missing field makes both
    /// `lt` and `geq` false.
    #[must_use]
    pub fn negated(self) -> Operator {
        match self {
            Operator::Eq => Operator::NotEq,
            Operator::NotEq => Operator::Eq,
            Operator::Lt => Operator::Geq,
            Operator::Geq => Operator::Lt,
            Operator::Leq => Operator::Gt,
            Operator::Gt => Operator::Leq,
            Operator::StartsWith => Operator::NotStartsWith,
            Operator::NotStartsWith => Operator::StartsWith,
            Operator::EndsWith => Operator::NotEndsWith,
            Operator::NotEndsWith => Operator::EndsWith,
            Operator::Contains => Operator::NotContains,
            Operator::NotContains => Operator::Contains,
            Operator::In => Operator::NotIn,
            Operator::NotIn => Operator::In,
        }
    }

    /// `in` and `!in` take an array of values; every other operator one value.
    pub fn takes_set(self) -> bool {
        matches!(self, Operator::In | Operator::NotIn)
    }

    /// `lt`, `leq`, `gt` and `geq` compare numbers and need an integer value.
    pub fn is_numeric(self) -> bool {
        matches!(self, Operator::Lt | Operator::Leq | Operator::Gt | Operator::Geq)
    }

    /// `!eq`, `!startsWith`, ...: true where the un-negated operator is false, missing fields included.
    pub fn is_negative(self) -> bool {
        matches!(
            self,
            Operator::NotEq | Operator::NotStartsWith | Operator::NotEndsWith | Operator::NotContains | Operator::NotIn
        )
    }
}

impl fmt::Display for Operator {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An operator name that is not one of the 14, with the closest one if any is close.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
// `given` whole (a problem's message keeps what was given; its display shortens it), its
// characters that are not printable escaped.
#[error("unknown operator `{}`{}", crate::shown::escape(given), suggest::did_you_mean(suggestion.map(Operator::as_str)))]
pub struct UnknownOperator {
    /// The name as given.
    pub given: String,
    /// What was probably meant.
    pub suggestion: Option<Operator>,
}

impl FromStr for Operator {
    type Err = UnknownOperator;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        if let Some(op) = Operator::ALL.into_iter().find(|op| op.as_str() == s) {
            return Ok(op);
        }
        Err(UnknownOperator {
            given: s.to_owned(),
            suggestion: suggest_operator(s),
        })
    }
}

/// Spellings people reach for, from SQL, other filter languages and other SDKs. Cloudflare's
/// older filters page (cloudflare-docs `content/logs/reference/logpush-api-configuration/filters.md`,
/// then `content/logs/reference/filters.md` until its C-like column was dropped) gave each
/// operator a "C-like" notation beside its name: `==`, `!=`, `<`, `<=`, `>`, `>=` and `~`
/// (contains), and named two operators `lte` and `gte`. None of them is accepted by the API
/// today, but every one of them is suggested as the name it stood for.
const OPERATOR_ALIASES: &[(&str, Operator)] = &[
    ("=", Operator::Eq),
    ("==", Operator::Eq),
    ("equal", Operator::Eq),
    ("equals", Operator::Eq),
    ("is", Operator::Eq),
    ("!=", Operator::NotEq),
    ("<>", Operator::NotEq),
    ("ne", Operator::NotEq),
    ("neq", Operator::NotEq),
    ("noteq", Operator::NotEq),
    ("not_eq", Operator::NotEq),
    ("notequal", Operator::NotEq),
    ("not_equal", Operator::NotEq),
    ("!equal", Operator::NotEq),
    ("<", Operator::Lt),
    ("less", Operator::Lt),
    ("lessthan", Operator::Lt),
    ("<=", Operator::Leq),
    ("le", Operator::Leq),
    ("lte", Operator::Leq),
    (">", Operator::Gt),
    ("greater", Operator::Gt),
    ("greaterthan", Operator::Gt),
    (">=", Operator::Geq),
    ("ge", Operator::Geq),
    ("gte", Operator::Geq),
    ("prefix", Operator::StartsWith),
    ("suffix", Operator::EndsWith),
    ("starts_with", Operator::StartsWith),
    ("ends_with", Operator::EndsWith),
    ("not_starts_with", Operator::NotStartsWith),
    ("not_ends_with", Operator::NotEndsWith),
    ("notstartswith", Operator::NotStartsWith),
    ("notendswith", Operator::NotEndsWith),
    ("~", Operator::Contains), // the older docs' C-like "contains"
    ("like", Operator::Contains),
    ("has", Operator::Contains),
    ("includes", Operator::Contains),
    ("not_contains", Operator::NotContains),
    ("notcontains", Operator::NotContains),
    ("not_like", Operator::NotContains),
    ("notin", Operator::NotIn),
    ("not_in", Operator::NotIn),
    ("nin", Operator::NotIn),
    ("not in", Operator::NotIn),
    ("oneof", Operator::In),
    ("one_of", Operator::In),
    ("anyof", Operator::In),
];

fn suggest_operator(given: &str) -> Option<Operator> {
    let trimmed = given.trim();
    if let Some(op) = Operator::ALL.into_iter().find(|op| op.as_str() == trimmed) {
        return Some(op);
    }
    // `startswith`, `StartsWith`, `!In`, `NEQ`: compare without case (and `not` for `!`).
    let folded = trimmed.to_ascii_lowercase();
    let folded = folded
        .strip_prefix("not")
        .map_or(folded.clone(), |rest| format!("!{rest}"));
    if let Some(op) = Operator::ALL
        .into_iter()
        .find(|op| op.as_str().eq_ignore_ascii_case(&folded))
    {
        return Some(op);
    }
    let lower = trimmed.to_ascii_lowercase();
    if let Some((_, op)) = OPERATOR_ALIASES.iter().find(|(alias, _)| *alias == lower) {
        return Some(*op);
    }
    suggest::closest(
        &lower,
        Operator::ALL
            .into_iter()
            .map(|op| (op.as_str().to_ascii_lowercase(), op)),
    )
}

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
