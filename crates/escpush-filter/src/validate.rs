//! What makes a filter valid, in one place: the shape rules every tree obeys however it was
//! made (parsed, built, converted), the API's size limits, and the dataset checks: field
//! names, the operator × field type table (SPEC B.1) and values no field of a type can equal.

use crate::dataset::{Dataset, FieldSchema, FieldType};
use crate::problem::{Problem, ProblemCode};
use crate::suggest;

use super::ast::{Condition, Expr, Operator, Scalar, Value};
use super::Filter;

/// The deepest `and` / `or` groups may nest: a condition sits inside at most this many
/// groups. Every way of making a filter (parsing, building, converting) refuses more, so
/// every filter prints to text that parses back and every walk over the tree is shallow.
pub const MAX_DEPTH: usize = 64;

/// The deepest JSON nesting read as a filter document: the document, two levels per group
/// (the object and its array) for one group more than [`MAX_DEPTH`] (so that the problem of
/// that group has its path), the condition and its `in` array. Deeper text is refused
/// before it is read.
pub const MAX_JSON_DEPTH: usize = 2 * (MAX_DEPTH + 1) + 3;

/// `path.member`, or `member` at the root.
pub(super) fn join(path: &str, member: &str) -> String {
    if path.is_empty() {
        member.to_owned()
    } else {
        format!("{path}.{member}")
    }
}

/// The problem of an empty field name, the one rule of a `key`.
pub(crate) fn key_problem(key: &str, path: &str) -> Option<Problem> {
    key.is_empty().then(|| {
        Problem::new(
            join(path, "key"),
            ProblemCode::EmptyKey,
            "`key` is empty; name a log field such as \"ClientRequestHost\"",
        )
    })
}

/// The problem of groups nested deeper than [`MAX_DEPTH`], at `path`.
pub fn too_deep(path: &str) -> Problem {
    Problem::new(
        path,
        ProblemCode::TooDeep,
        format!(
            "`and` / `or` groups nest more than {MAX_DEPTH} deep; flatten them (a group inside a \
             group of the same kind can be merged into it)"
        ),
    )
}

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
        Limits::new(Limits::DEFAULT_MAX_OPERATORS, Limits::DEFAULT_MAX_BYTES)
    }
}

impl Limits {
    /// The API's documented "approximately 30 operators".
    pub const DEFAULT_MAX_OPERATORS: usize = 30;
    /// The API's documented "approximately 1000 bytes".
    pub const DEFAULT_MAX_BYTES: usize = 1000;

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

impl FieldType {
    /// Whether `op` applies to a field of this type: the `kinds` column of the operator
    /// table (SPEC table B.1; see `Operator::applies_to`).
    pub fn supports(self, op: Operator) -> bool {
        op.applies_to(self)
    }

    /// The operators this type supports, in the order of table B.1.
    pub fn operators(self) -> Vec<Operator> {
        Operator::ALL.into_iter().filter(|op| self.supports(*op)).collect()
    }
}

impl FieldSchema {
    /// The operators a filter may apply to this field, in the order of table B.1: its
    /// type's ([`FieldType::operators`]), and none when it cannot be filtered (an object,
    /// or a field the dataset does not filter on) or has no documented type, the fields
    /// validation reports whatever the operator.
    pub fn operators(&self) -> Vec<Operator> {
        if !self.filterable() || self.field_type() == FieldType::Unknown {
            return Vec::new();
        }
        self.field_type().operators()
    }
}

/// Every problem the API would refuse; see [`Filter::problems`].
pub(crate) fn problems(filter: &Filter, dataset: Option<&Dataset>, limits: Limits) -> Vec<Problem> {
    let mut problems = shape_problems(filter.expr());
    if problems.first().is_some_and(|p| p.code == ProblemCode::TooDeep) {
        // A tree no walk should recurse into (only Rust's `&` / `|` can make one).
        return problems;
    }
    let ops = filter.operator_count();
    let bytes = filter.byte_size();
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
        walk(filter.expr(), "where", &mut |c, path| {
            dataset_problems(dataset, c, path, &mut problems);
        });
    }
    problems
}

/// The rules every tree obeys, however it was made: groups hold at least one expression,
/// every condition obeys [`check_condition`], and groups nest at most [`MAX_DEPTH`] deep.
pub(crate) fn shape_problems(expr: &Expr) -> Vec<Problem> {
    fn check(expr: &Expr, path: &str, out: &mut Vec<Problem>) {
        match expr {
            Expr::Condition(c) => out.extend(check_condition(c, path)),
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
    if expr.depth() > MAX_DEPTH {
        return vec![too_deep("where")];
    }
    let mut out = Vec::new();
    check(expr, "where", &mut out);
    out
}

/// The rules every condition obeys, whether parsed or built: a non-empty key, a set for
/// `in` / `!in` (non-empty) and one value otherwise, an integer for the numeric operators.
pub(crate) fn check_condition(condition: &Condition, path: &str) -> Vec<Problem> {
    let mut problems: Vec<Problem> = key_problem(&condition.key, path).into_iter().collect();
    let op = condition.operator;
    let value_path = join(path, "value");
    match (&condition.value, op.takes_set()) {
        (Value::Set(items), true) if items.is_empty() => problems.push(Problem::new(
            value_path,
            ProblemCode::EmptySet,
            format!("`{op}` needs at least one value in its array"),
        )),
        (Value::Set(_), true) => {}
        (Value::Scalar(s), true) => problems.push(Problem::new(
            value_path,
            ProblemCode::InvalidValue,
            format!("`{op}` takes an array of values, like {}", set_meant(s)),
        )),
        (Value::Set(_), false) => problems.push(Problem::new(
            value_path,
            ProblemCode::InvalidValue,
            format!(
                "`{op}` takes one value, not an array{}",
                if matches!(op, Operator::Eq | Operator::NotEq) {
                    format!(
                        "; for a set of values use `{}`",
                        if op == Operator::Eq { "in" } else { "!in" }
                    )
                } else {
                    String::new()
                }
            ),
        )),
        (Value::Scalar(s), false) => {
            if op.is_numeric() && s.as_integer().is_none() {
                problems.push(Problem::new(
                    value_path,
                    ProblemCode::NotAnInteger,
                    format!("`{op}` compares numbers; {s} is not an integer (write it like \"500\")"),
                ));
            }
        }
    }
    problems
}

/// The set a scalar given to `in` / `!in` probably stands for, as a message shows it: the
/// values of a comma-separated string (`"200,201"`: `["200", "201"]`, each trimmed and kept
/// a string, as the spec writes numbers), the array a string holds (`"[200, 201]"`), else
/// the set of that one value.
fn set_meant(s: &Scalar) -> String {
    let list = |items: &[Scalar]| {
        let shown: Vec<String> = items.iter().map(ToString::to_string).collect();
        format!("[{}]", shown.join(", "))
    };
    let Scalar::String(text) = s else {
        return format!("[{s}]");
    };
    if text.trim_start().starts_with('[') {
        if let Ok(serde_json::Value::Array(items)) = serde_json::from_str::<serde_json::Value>(text) {
            let scalars: Option<Vec<Scalar>> = items
                .iter()
                .map(|v| match v {
                    serde_json::Value::String(t) => Some(Scalar::String(t.clone())),
                    serde_json::Value::Bool(b) => Some(Scalar::Bool(*b)),
                    serde_json::Value::Number(n) => n.as_i64().map(Scalar::Int),
                    _ => None,
                })
                .collect();
            if let Some(scalars) = scalars.filter(|v| !v.is_empty()) {
                return format!("{}: the array itself, not a string holding it", list(&scalars));
            }
        }
    }
    let parts: Vec<Scalar> = text
        .split(',')
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .map(Scalar::from)
        .collect();
    if text.contains(',') && parts.len() > 1 {
        return format!(
            "{}: a string is one value, and [{s}] is a set of one value that matches only that text",
            list(&parts)
        );
    }
    format!("[{s}]")
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
        let hint = suggest::did_you_mean(dataset.suggest_field(&c.key));
        out.push(Problem::new(
            format!("{path}.key"),
            ProblemCode::UnknownField,
            format!(
                "`{}` is not a field of {}{hint}",
                crate::shown::escape(&c.key),
                dataset.name()
            ),
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
            format!("`{}` cannot be filtered: {why}", crate::shown::escape(&c.key)),
        ));
        return;
    }
    if ty == FieldType::Unknown {
        // Named by Cloudflare's field list but typed on no docs page: nothing says which
        // operators apply, so the filter is not passed as if every one did.
        out.push(Problem::new(
            format!("{path}.key"),
            ProblemCode::UntypedField,
            format!(
                "`{}` has no documented type in {} ({}): Cloudflare's docs do not give it, so which operators \
                 apply cannot be checked",
                c.key,
                dataset.name(),
                dataset.scope()
            ),
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
                crate::shown::escape(&c.key),
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
                    crate::shown::escape(&c.key)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn operator_support_follows_table_b1() {
        use Operator as O;
        assert_eq!(
            FieldType::String.operators(),
            [
                O::Eq,
                O::NotEq,
                O::StartsWith,
                O::EndsWith,
                O::NotStartsWith,
                O::NotEndsWith,
                O::Contains,
                O::NotContains,
                O::In,
                O::NotIn
            ]
        );
        assert_eq!(
            FieldType::Int.operators(),
            [O::Eq, O::NotEq, O::Lt, O::Leq, O::Gt, O::Geq, O::In, O::NotIn]
        );
        assert_eq!(FieldType::Float.operators(), FieldType::Int.operators());
        assert_eq!(FieldType::Bool.operators(), [O::Eq, O::NotEq]);
        assert_eq!(
            FieldType::StringArray.operators(),
            [O::Contains, O::NotContains, O::In, O::NotIn]
        );
        assert_eq!(FieldType::IntOrString.operators(), O::ALL);
        assert!(FieldType::Object.operators().is_empty());
        assert!(FieldType::ObjectArray.operators().is_empty());
    }

    #[test]
    fn a_fields_operators_are_exactly_those_validation_lets_through() {
        // What a builder offers for a field is what validation accepts on it: for every field
        // of every dataset and every operator, no problem at the key or the operator.
        for dataset in crate::dataset::datasets() {
            for schema in dataset.fields() {
                let offered = schema.operators();
                for op in Operator::ALL {
                    let value = if op.takes_set() {
                        Value::Set(vec![Scalar::Int(1)])
                    } else {
                        Value::Scalar(Scalar::Int(1))
                    };
                    let f = crate::field(schema.name()).op(op, value).unwrap();
                    let refused = f
                        .problems(Some(dataset), Limits::default())
                        .iter()
                        .any(|p| matches!(p.path.as_str(), "where.key" | "where.operator"));
                    assert_eq!(
                        offered.contains(&op),
                        !refused,
                        "{}.{} ({}) {op}",
                        dataset.name(),
                        schema.name(),
                        schema.field_type()
                    );
                }
            }
        }
        let http = Dataset::get("http_requests", None).unwrap();
        assert_eq!(
            http.field("EdgeResponseStatus").unwrap().operators(),
            FieldType::Int.operators()
        );
        assert!(http.field("MatchedRules").unwrap().operators().is_empty());
    }

    #[test]
    fn a_field_without_a_documented_type_is_reported_not_let_through() {
        use crate::field;
        use crate::DatasetScope;
        let zone = Dataset::get("firewall_events", Some(DatasetScope::Zone)).unwrap();
        let f = field("WAFRequestSignatureRefs").starts_with("x") & field("ClientIP").eq("1.2.3.4");
        let found = f.problems(Some(zone), Limits::default());
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].path, "where.and[0].key");
        assert_eq!(found[0].code, ProblemCode::UntypedField);
        assert_eq!(found[0].code.as_str(), "untyped_field");
        assert_eq!(
            found[0].message,
            "`WAFRequestSignatureRefs` has no documented type in firewall_events (zone): Cloudflare's docs do not \
             give it, so which operators apply cannot be checked"
        );
        assert!(f.validate(Some(zone), Limits::default()).is_err());
        // Without a dataset nothing is known of types, and evaluation is unchanged.
        assert!(f.problems(None, Limits::default()).is_empty());
        let record = serde_json::json!({"WAFRequestSignatureRefs": "xyz", "ClientIP": "1.2.3.4"});
        assert!(f.matches(&record));
    }
}
