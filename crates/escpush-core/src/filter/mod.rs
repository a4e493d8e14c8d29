//! The filter of a log-push job (SPEC appendix B): `{"where": EXPR}`.
//!
//! A [`Filter`] is made by [`Filter::parse`] (JSON text, or the quoted form copied from a
//! job), [`Filter::from_json`], or the builders ([`field`], `&`, `|`, `!`). Its tree is
//! always well formed: known operators, and values of the shape each operator takes.
//! [`Filter::validate`] checks what the API would refuse on top of that: the size limits,
//! and, given a dataset, field names, operator × field type, and values no field of that
//! type can have.

mod ast;
mod build;
mod eval;
mod line;
mod parse;
mod problem;

use std::fmt;
use std::str::FromStr;

pub use ast::{canonical_integer, Condition, Expr, Operator, Scalar, UnknownOperator, Value};
pub use build::{field, Field};
pub use line::{is_blank, CompiledFilter, Malformation, MalformedLine};
pub use eval::{eval_condition, FieldValue, Record};
pub(crate) use problem::describe as describe_problems;
pub use problem::{FilterError, Problem, ProblemCode};

use crate::dataset::{Dataset, FieldType};
use crate::json::Json;

/// The API's limits on a filter. It documents "approximately 30 operators and 1000
/// bytes", so both are configurable; the defaults are those numbers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct Limits {
    /// The most comparison operators (conditions) a filter may hold.
    pub max_operators: usize,
    /// The most bytes of canonical JSON (UTF-8) a filter may take.
    pub max_bytes: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_operators: 30,
            max_bytes: 1000,
        }
    }
}

impl Limits {
    /// Limits of `max_operators` conditions and `max_bytes` bytes.
    pub fn new(max_operators: usize, max_bytes: usize) -> Self {
        Limits {
            max_operators,
            max_bytes,
        }
    }

    /// No limits at all.
    pub fn none() -> Self {
        Limits::new(usize::MAX, usize::MAX)
    }
}

/// A log-push job filter. See the [module docs](self).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Filter {
    expr: Expr,
}

impl Condition {
    /// A condition, checked: a non-empty key, a non-empty set for `in` / `!in` and one
    /// value otherwise, an integer (or its canonical text) for `lt`, `leq`, `gt`, `geq`.
    pub fn new(key: impl Into<String>, operator: Operator, value: Value) -> Result<Condition, FilterError> {
        let condition = Condition {
            key: key.into(),
            operator,
            value,
        };
        let problems = parse::check_condition(&condition, "");
        if problems.is_empty() {
            Ok(condition)
        } else {
            Err(FilterError::new(problems))
        }
    }
}

impl Filter {
    pub(crate) fn from_expr(expr: Expr) -> Filter {
        Filter { expr }
    }

    /// A filter of this tree, checked as [`Filter::parse`] checks text: groups hold at
    /// least one expression and every condition obeys [`Condition::new`].
    pub fn new(expr: Expr) -> Result<Filter, FilterError> {
        let filter = Filter { expr };
        let problems = filter.shape_problems();
        if problems.is_empty() {
            Ok(filter)
        } else {
            Err(FilterError::new(problems))
        }
    }

    /// Parses `{"where": ...}`, or that document as a JSON string (`"{\"where\":...}"`), the
    /// form a job's `filter` field holds. Every problem is reported, each with its path.
    pub fn parse(text: &str) -> Result<Filter, FilterError> {
        parse::parse_text(text).map(Filter::from_expr).map_err(FilterError::new)
    }

    /// Builds a filter from a JSON value `{"where": ...}` (or a string holding one).
    pub fn from_json(value: impl Into<Json>) -> Result<Filter, FilterError> {
        match value.into() {
            Json::String(text) => Filter::parse(&text),
            json => parse::parse_json(&json)
                .map(Filter::from_expr)
                .map_err(FilterError::new),
        }
    }

    /// The expression under `where`.
    pub fn expr(&self) -> &Expr {
        &self.expr
    }

    /// Canonical compact JSON: members in the order `key, operator, value`, no spaces.
    /// The same filter always prints the same bytes; this is the value for a job's
    /// `filter` field.
    pub fn to_json(&self) -> String {
        let mut out = String::with_capacity(128);
        out.push_str(r#"{"where":"#);
        write_expr(&self.expr, &mut out);
        out.push('}');
        out
    }

    /// The filter as a JSON value (members in canonical order).
    pub fn to_value(&self) -> serde_json::Value {
        serde_json::json!({ "where": expr_value(&self.expr) })
    }

    /// How many comparison operators (conditions) the filter holds.
    pub fn operator_count(&self) -> usize {
        self.expr.conditions().len()
    }

    /// How many `and` / `or` groups the filter holds.
    pub fn group_count(&self) -> usize {
        fn count(expr: &Expr) -> usize {
            match expr {
                Expr::Condition(_) => 0,
                Expr::And(items) | Expr::Or(items) => 1 + items.iter().map(count).sum::<usize>(),
            }
        }
        count(&self.expr)
    }

    /// The size of the canonical JSON in bytes (UTF-8).
    pub fn byte_size(&self) -> usize {
        self.to_json().len()
    }

    /// The field names the filter reads, each once, in order of first use.
    pub fn fields(&self) -> Vec<&str> {
        let mut out: Vec<&str> = Vec::new();
        for c in self.expr.conditions() {
            if !out.contains(&c.key.as_str()) {
                out.push(&c.key);
            }
        }
        out
    }

    /// Whether the record passes the filter, by the rules of [`eval`](self::eval).
    pub fn matches(&self, record: &(impl Record + ?Sized)) -> bool {
        eval::eval(&self.expr, record)
    }

    /// Every problem the API would refuse: empty names or sets, the limits, and (given a
    /// dataset) unknown or unfilterable fields, operators the field's type does not take,
    /// and values no field of that type can equal. Empty when the filter is fine.
    pub fn problems(&self, dataset: Option<&Dataset>, limits: Limits) -> Vec<Problem> {
        let mut problems = self.shape_problems();
        let ops = self.operator_count();
        if ops > limits.max_operators {
            problems.push(Problem::new(
                "",
                ProblemCode::TooManyOperators,
                format!(
                    "the filter has {ops} comparison operators; the limit is {}. Merge conditions on one \
                     field with `in` / `!in`",
                    limits.max_operators
                ),
            ));
        }
        let bytes = self.byte_size();
        if bytes > limits.max_bytes {
            problems.push(Problem::new(
                "",
                ProblemCode::TooLarge,
                format!(
                    "the filter takes {bytes} bytes as compact JSON; the limit is {}",
                    limits.max_bytes
                ),
            ));
        }
        if let Some(dataset) = dataset {
            walk(&self.expr, "where", &mut |c, path| {
                dataset_problems(dataset, c, path, &mut problems);
            });
        }
        problems
    }

    /// [`problems`](Filter::problems) as a `Result`.
    pub fn validate(&self, dataset: Option<&Dataset>, limits: Limits) -> Result<(), FilterError> {
        let problems = self.problems(dataset, limits);
        if problems.is_empty() {
            Ok(())
        } else {
            Err(FilterError::new(problems))
        }
    }

    fn shape_problems(&self) -> Vec<Problem> {
        fn check(expr: &Expr, path: &str, out: &mut Vec<Problem>) {
            match expr {
                Expr::Condition(c) => out.extend(parse::check_condition(c, path)),
                Expr::And(items) | Expr::Or(items) => {
                    let path = format!("{path}.{}", if matches!(expr, Expr::And(_)) { "and" } else { "or" });
                    if items.is_empty() {
                        out.push(Problem::new(
                            path.clone(),
                            ProblemCode::EmptyGroup,
                            "a group needs at least one expression",
                        ));
                    }
                    for (i, item) in items.iter().enumerate() {
                        check(item, &format!("{path}[{i}]"), out);
                    }
                }
            }
        }
        let mut out = Vec::new();
        check(&self.expr, "where", &mut out);
        out
    }
}

/// Calls `f` with every condition and its path (`where.and[1].or[0]`).
fn walk<'a>(expr: &'a Expr, path: &str, f: &mut impl FnMut(&'a Condition, &str)) {
    match expr {
        Expr::Condition(c) => f(c, path),
        Expr::And(items) => items
            .iter()
            .enumerate()
            .for_each(|(i, e)| walk(e, &format!("{path}.and[{i}]"), f)),
        Expr::Or(items) => items
            .iter()
            .enumerate()
            .for_each(|(i, e)| walk(e, &format!("{path}.or[{i}]"), f)),
    }
}

fn dataset_problems(dataset: &Dataset, c: &Condition, path: &str, out: &mut Vec<Problem>) {
    let Some(schema) = dataset.field(&c.key) else {
        let hint = crate::suggest::did_you_mean(dataset.suggest_field(&c.key));
        out.push(Problem::new(
            format!("{path}.key"),
            ProblemCode::UnknownField,
            format!("`{}` is not a field of {}{hint}", c.key, dataset.name()),
        ));
        return;
    };
    let ty = schema.field_type();
    if !schema.filterable() {
        let why = if ty.is_filterable() {
            format!("{} does not support filtering on it", dataset.name())
        } else {
            format!("fields of type {ty} cannot be filtered")
        };
        out.push(Problem::new(
            format!("{path}.key"),
            ProblemCode::FieldNotFilterable,
            format!("`{}` cannot be filtered: {why}", c.key),
        ));
        return;
    }
    if !ty.supports(c.operator) {
        let ops: Vec<&str> = ty.operators().into_iter().map(Operator::as_str).collect();
        out.push(Problem::new(
            format!("{path}.operator"),
            ProblemCode::OperatorNotSupported,
            format!(
                "`{}` does not apply to `{}`, a field of type {ty}; it takes {}",
                c.operator,
                c.key,
                ops.join(", ")
            ),
        ));
        return;
    }
    // Values that no field of this type can ever equal (numeric bounds are checked by shape).
    let element_kind = match ty {
        FieldType::Int | FieldType::Float | FieldType::IntArray => Some("an integer"),
        FieldType::Bool => Some("true or false"),
        _ => None,
    };
    let Some(kind) = element_kind else { return };
    if c.operator.is_numeric() {
        return;
    }
    let fits = |s: &Scalar| match ty {
        FieldType::Bool => {
            matches!(s, Scalar::Bool(_)) || matches!(s, Scalar::String(t) if t == "true" || t == "false")
        }
        _ => s.as_integer().is_some(),
    };
    let mut check = |s: &Scalar, p: String| {
        if !fits(s) {
            out.push(Problem::new(
                p,
                ProblemCode::ValueTypeMismatch,
                format!(
                    "`{}` is a field of type {ty}, so {s} never matches; write {kind}",
                    c.key
                ),
            ));
        }
    };
    match &c.value {
        Value::Scalar(s) => check(s, format!("{path}.value")),
        Value::Set(items) => {
            for (i, s) in items.iter().enumerate() {
                check(s, format!("{path}.value[{i}]"));
            }
        }
    }
}

fn write_expr(expr: &Expr, out: &mut String) {
    match expr {
        Expr::Condition(c) => {
            out.push_str(r#"{"key":"#);
            write_str(&c.key, out);
            out.push_str(r#","operator":""#);
            out.push_str(c.operator.as_str());
            out.push_str(r#"","value":"#);
            match &c.value {
                Value::Scalar(s) => write_scalar(s, out),
                Value::Set(items) => {
                    out.push('[');
                    for (i, s) in items.iter().enumerate() {
                        if i > 0 {
                            out.push(',');
                        }
                        write_scalar(s, out);
                    }
                    out.push(']');
                }
            }
            out.push('}');
        }
        Expr::And(items) | Expr::Or(items) => {
            out.push_str(if matches!(expr, Expr::And(_)) {
                r#"{"and":["#
            } else {
                r#"{"or":["#
            });
            for (i, e) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_expr(e, out);
            }
            out.push_str("]}");
        }
    }
}

fn write_scalar(s: &Scalar, out: &mut String) {
    match s {
        Scalar::String(v) => write_str(v, out),
        Scalar::Int(n) => out.push_str(&n.to_string()),
        Scalar::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
    }
}

fn write_str(s: &str, out: &mut String) {
    out.push_str(&serde_json::Value::from(s).to_string());
}

fn scalar_value(s: &Scalar) -> serde_json::Value {
    match s {
        Scalar::String(v) => v.as_str().into(),
        Scalar::Int(n) => (*n).into(),
        Scalar::Bool(b) => (*b).into(),
    }
}

fn expr_value(expr: &Expr) -> serde_json::Value {
    match expr {
        Expr::Condition(c) => serde_json::json!({
            "key": c.key,
            "operator": c.operator.as_str(),
            "value": match &c.value {
                Value::Scalar(s) => scalar_value(s),
                Value::Set(items) => items.iter().map(scalar_value).collect(),
            },
        }),
        Expr::And(items) => serde_json::json!({ "and": items.iter().map(expr_value).collect::<Vec<_>>() }),
        Expr::Or(items) => serde_json::json!({ "or": items.iter().map(expr_value).collect::<Vec<_>>() }),
    }
}

impl fmt::Display for Filter {
    /// The canonical JSON.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_json())
    }
}

impl FromStr for Filter {
    type Err = FilterError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Filter::parse(s)
    }
}

/// Serializes as the filter object `{"where": ...}` in canonical member order.
impl serde::Serialize for Filter {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.to_value().serialize(serializer)
    }
}

/// Deserializes through [`Filter::from_json`]: an object `{"where": ...}` or a string holding one.
impl<'de> serde::Deserialize<'de> for Filter {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let json = Json::deserialize(deserializer)?;
        Filter::from_json(json).map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dataset::DatasetScope;
    use crate::Dataset;

    fn http() -> &'static Dataset {
        Dataset::get("http_requests", None).unwrap()
    }

    fn codes(f: &Filter, dataset: Option<&Dataset>) -> Vec<(String, &'static str)> {
        f.problems(dataset, Limits::default())
            .into_iter()
            .map(|p| (p.path, p.code.as_str()))
            .collect()
    }

    #[test]
    fn canonical_json_is_compact_ordered_and_stable() {
        let text = r#" { "where" : { "or" : [ { "value" : "x\"y", "operator" : "eq", "key" : "A" },
                       { "value" : [1, "é", true], "key" : "B", "operator" : "in" } ] } } "#;
        let f = Filter::parse(text).unwrap();
        let canonical = r#"{"where":{"or":[{"key":"A","operator":"eq","value":"x\"y"},{"key":"B","operator":"in","value":[1,"é",true]}]}}"#;
        assert_eq!(f.to_json(), canonical);
        assert_eq!(f.byte_size(), canonical.len());
        assert_eq!(Filter::parse(canonical).unwrap(), f);
        assert_eq!(f.to_value().to_string(), canonical);
        assert_eq!(serde_json::to_string(&f).unwrap(), canonical);
        let back: Filter = serde_json::from_str(canonical).unwrap();
        assert_eq!(back, f);
        let quoted = serde_json::to_string(canonical).unwrap();
        let back: Filter = serde_json::from_str(&quoted).unwrap();
        assert_eq!(back, f);
        assert!(serde_json::from_str::<Filter>("{}")
            .unwrap_err()
            .to_string()
            .contains("missing_where"));
    }

    #[test]
    fn limits_count_comparison_operators_and_canonical_bytes() {
        let f = (0..31)
            .map(|i| field("ClientIP").eq(format!("10.0.0.{i}")))
            .reduce(|a, b| a | b)
            .unwrap();
        assert_eq!(f.operator_count(), 31);
        assert_eq!(f.group_count(), 1);
        assert_eq!(
            codes(&f, None),
            [(String::new(), "too_many_operators"), (String::new(), "too_large")]
        );
        assert!(f.problems(None, Limits::new(31, 2000)).is_empty());
        assert!(f.validate(None, Limits::none()).is_ok());
        let at_limit = field("A").eq("x".repeat(1000 - 48));
        assert_eq!(at_limit.byte_size(), 1000);
        assert!(at_limit.validate(None, Limits::default()).is_ok());
        let over = field("A").eq("x".repeat(1000 - 47));
        assert_eq!(codes(&over, None), [(String::new(), "too_large")]);
    }

    #[test]
    fn dataset_checks_name_field_operator_and_value_problems() {
        let f = field("ClientRequestHots").eq("x")
            & field("EdgeResponseStatus").starts_with("5")
            & field("MatchedRules").eq("x")
            & field("EdgeResponseStatus").is_in(["200", "abc"])
            & field("WorkerSubrequest").eq("yes")
            & field("ClientRequestHost").ends_with(".example.com")
            & field("EdgeStartTimestamp").ge(0)
            & field("SecuritySources").contains("waf");
        assert_eq!(
            codes(&f, Some(http())),
            [
                ("where.and[0].key".into(), "unknown_field"),
                ("where.and[1].operator".into(), "operator_not_supported"),
                ("where.and[2].key".into(), "field_not_filterable"),
                ("where.and[3].value[1]".into(), "value_type_mismatch"),
                ("where.and[4].value".into(), "value_type_mismatch"),
            ]
        );
        let problems = f.problems(Some(http()), Limits::default());
        assert_eq!(
            problems[0].message,
            "`ClientRequestHots` is not a field of http_requests; did you mean `ClientRequestHost`?"
        );
        assert_eq!(
            problems[1].message,
            "`startsWith` does not apply to `EdgeResponseStatus`, a field of type int; it takes eq, !eq, lt, leq, gt, geq, in, !in"
        );
        assert_eq!(
            problems[2].message,
            "`MatchedRules` cannot be filtered: fields of type array[object] cannot be filtered"
        );
        let fw = Dataset::get("firewall_events", Some(DatasetScope::Account)).unwrap();
        let p = field("RuleID").eq("x").problems(Some(fw), Limits::default());
        assert_eq!(p[0].code, ProblemCode::FieldNotFilterable);
        assert_eq!(
            p[0].message,
            "`RuleID` cannot be filtered: firewall_events does not support filtering on it"
        );
    }

    #[test]
    fn builder_made_empties_are_reported() {
        let f = field("").eq("x") | field("A").is_in(Vec::<String>::new());
        assert_eq!(
            codes(&f, None),
            [
                ("where.or[0].key".into(), "empty_key"),
                ("where.or[1].value".into(), "empty_set")
            ]
        );
        assert!(Filter::new(Expr::And(vec![])).is_err());
        assert!(Filter::new(f.expr().clone()).is_err());
        assert!(Filter::new(field("A").eq("x").expr().clone()).is_ok());
    }

    #[test]
    fn fields_in_order_of_first_use() {
        let f = field("B").eq("1") & field("A").eq("2") & field("B").eq("3");
        assert_eq!(f.fields(), ["B", "A"]);
    }
}
