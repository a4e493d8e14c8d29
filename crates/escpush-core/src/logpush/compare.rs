//! Comparing what a job holds by meaning, not by text: a filter the API hands back with
//! its keys reordered, spaces added, `500` spelled `"500"` or its groups nested differently
//! is the same filter, so tools that keep jobs in code do not report drift.
//!
//! [`filters_equal`] is the one entry point: when issue 12's equivalence module lands in
//! `filter/`, this function calls it and every caller (ensure, apply, the CLI) follows.

use serde_json::{Map, Value as JsonValue};

use crate::dataset::{Dataset, FieldType};
use crate::error::Error;
use crate::filter::{Expr, Filter, Scalar, Value};

use super::options::LogpullOptions;

/// Whether two filters mean the same, with the job's `dataset` when known.
///
/// Equal when they differ only in how they are written: member order and spacing (both are
/// parsed), the order of the expressions of an `and` / `or` group and of the values of an
/// `in` set, repeated expressions or values, groups of one expression, nested groups of the
/// same kind (`a and (b and c)` is `a and b and c`), and, where `dataset` says the field is
/// a number or a boolean, a value written as text (`"500"` and `500`).
///
/// ```
/// use escpush_core::{filters_equal, Dataset, Filter};
///
/// let sent = Filter::parse(r#"{"where":{"and":[{"key":"EdgeResponseStatus","operator":"geq","value":500},{"key":"ClientCountry","operator":"eq","value":"cn"}]}}"#)?;
/// let stored = Filter::parse(r#""{\"where\": {\"and\": [{\"and\": [{\"value\": \"cn\", \"operator\": \"eq\", \"key\": \"ClientCountry\"}]}, {\"key\": \"EdgeResponseStatus\", \"operator\": \"geq\", \"value\": \"500\"}]}}""#)?;
/// let http = Dataset::get("http_requests", None)?;
/// assert!(filters_equal(&sent, &stored, Some(http)));
/// # Ok::<(), escpush_core::Error>(())
/// ```
pub fn filters_equal(a: &Filter, b: &Filter, dataset: Option<&Dataset>) -> bool {
    normal_form(a.expr(), dataset) == normal_form(b.expr(), dataset)
}

/// A job's `filter` as a [`Filter`]: the API's string form (the JSON document, or that
/// document quoted once more), the object form, or none (`null`, absent, `""`).
pub fn job_filter(job: &Map<String, JsonValue>) -> Result<Option<Filter>, Error> {
    filter_value(job.get("filter"))
}

/// A `filter` value as a job holds it, read as [`job_filter`] reads it.
pub(super) fn filter_value(value: Option<&JsonValue>) -> Result<Option<Filter>, Error> {
    match value {
        None | Some(JsonValue::Null) => Ok(None),
        Some(JsonValue::String(s)) if s.trim().is_empty() => Ok(None),
        // JSON, its quoted form, or the text form a person wrote (what the API stores is JSON).
        Some(JsonValue::String(s)) => Ok(Some(Filter::parse_any(s)?)),
        Some(other) => Ok(Some(Filter::from_json(other.clone())?)),
    }
}

/// Whether two `logpull_options` texts mean the same (the same fields, timestamp format
/// and flags, whatever their order in the query string); texts that do not parse compare
/// as text.
pub fn logpull_options_equal(a: &str, b: &str) -> bool {
    match (LogpullOptions::parse(a), LogpullOptions::parse(b)) {
        (Ok(x), Ok(y)) => {
            let sorted = |o: &LogpullOptions| {
                let mut flags = o.flags().to_vec();
                flags.sort();
                let mut other = o.unknown_options().to_vec();
                other.sort();
                (o.fields().to_vec(), o.timestamps_format(), flags, other)
            };
            sorted(&x) == sorted(&y)
        }
        _ => a.trim() == b.trim(),
    }
}

/// A tree in normal form: groups flattened, sorted and without repeats; values spelled
/// canonically for their field's type.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Normal {
    Condition(String, &'static str, Vec<String>),
    And(Vec<Normal>),
    Or(Vec<Normal>),
}

fn normal_form(expr: &Expr, dataset: Option<&Dataset>) -> Normal {
    match expr {
        Expr::Condition(c) => {
            let ty = dataset
                .and_then(|d| d.field(c.key()))
                .map(crate::FieldSchema::field_type);
            let mut values: Vec<String> = match c.value() {
                Value::Scalar(s) => vec![scalar_text(s, ty)],
                Value::Set(items) => items.iter().map(|s| scalar_text(s, ty)).collect(),
            };
            if c.operator().takes_set() {
                values.sort();
                values.dedup();
            }
            Normal::Condition(c.key().to_owned(), c.operator().as_str(), values)
        }
        Expr::And(items) => group(items, dataset, true),
        Expr::Or(items) => group(items, dataset, false),
    }
}

fn group(items: &[Expr], dataset: Option<&Dataset>, and: bool) -> Normal {
    let mut flat = Vec::new();
    for item in items {
        match normal_form(item, dataset) {
            Normal::And(inner) if and => flat.extend(inner),
            Normal::Or(inner) if !and => flat.extend(inner),
            other => flat.push(other),
        }
    }
    flat.sort();
    flat.dedup();
    if flat.len() == 1 {
        return flat.pop().unwrap_or(Normal::And(Vec::new()));
    }
    if and {
        Normal::And(flat)
    } else {
        Normal::Or(flat)
    }
}

/// A value's spelling for comparison: the canonical text where the field is a number or a
/// boolean (so `"500"` is `500`), else the value tagged with its JSON type.
fn scalar_text(s: &Scalar, ty: Option<FieldType>) -> String {
    let numeric = matches!(
        ty,
        Some(FieldType::Int | FieldType::Float | FieldType::IntArray | FieldType::IntOrString | FieldType::Bool)
    );
    if numeric {
        return format!("={}", s.canonical_text());
    }
    match s {
        Scalar::String(t) => format!("s{t}"),
        Scalar::Int(n) => format!("i{n}"),
        Scalar::Bool(b) => format!("b{b}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(text: &str) -> Filter {
        Filter::parse(text).unwrap()
    }

    #[test]
    fn spelling_order_and_nesting_do_not_matter() {
        let http = Dataset::get("http_requests", None).unwrap();
        let a = f(
            r#"{"where":{"and":[{"key":"EdgeResponseStatus","operator":"geq","value":"500"},{"or":[{"key":"ClientCountry","operator":"in","value":["cn","ru"]},{"key":"ClientRequestHost","operator":"eq","value":"a"}]}]}}"#,
        );
        let b = f(
            r#"{"where": {"and": [{"and": [{"or": [{"or": [{"value": "a", "key": "ClientRequestHost", "operator": "eq"}]}, {"key": "ClientCountry", "operator": "in", "value": ["ru", "cn", "cn"]}]}]}, {"key": "EdgeResponseStatus", "operator": "geq", "value": 500}]}}"#,
        );
        assert!(filters_equal(&a, &b, Some(http)));
        assert!(filters_equal(&b, &a, Some(http)));
    }

    #[test]
    fn different_meanings_differ() {
        let http = Dataset::get("http_requests", None).unwrap();
        let base = f(
            r#"{"where":{"and":[{"key":"EdgeResponseStatus","operator":"geq","value":500},{"key":"ClientCountry","operator":"eq","value":"cn"}]}}"#,
        );
        for other in [
            r#"{"where":{"or":[{"key":"EdgeResponseStatus","operator":"geq","value":500},{"key":"ClientCountry","operator":"eq","value":"cn"}]}}"#,
            r#"{"where":{"and":[{"key":"EdgeResponseStatus","operator":"gt","value":500},{"key":"ClientCountry","operator":"eq","value":"cn"}]}}"#,
            r#"{"where":{"and":[{"key":"EdgeResponseStatus","operator":"geq","value":501},{"key":"ClientCountry","operator":"eq","value":"cn"}]}}"#,
            r#"{"where":{"key":"EdgeResponseStatus","operator":"geq","value":500}}"#,
            r#"{"where":{"and":[{"key":"EdgeResponseStatus","operator":"geq","value":500},{"key":"ClientCountry","operator":"eq","value":"CN"}]}}"#,
        ] {
            assert!(!filters_equal(&base, &f(other), Some(http)), "{other}");
        }
        // A string field keeps the JSON type of its value; without a dataset, so does every field.
        let text = f(r#"{"where":{"key":"ClientRequestHost","operator":"eq","value":"500"}}"#);
        let number = f(r#"{"where":{"key":"ClientRequestHost","operator":"eq","value":500}}"#);
        assert!(!filters_equal(&text, &number, Some(http)));
        let status_text = f(r#"{"where":{"key":"EdgeResponseStatus","operator":"eq","value":"500"}}"#);
        let status = f(r#"{"where":{"key":"EdgeResponseStatus","operator":"eq","value":500}}"#);
        assert!(!filters_equal(&status_text, &status, None));
        assert!(filters_equal(&status_text, &status, Some(http)));
    }

    #[test]
    fn job_filters_are_read_in_every_form() {
        let want = f(r#"{"where":{"key":"ClientCountry","operator":"eq","value":"cn"}}"#);
        for given in [
            serde_json::json!(want.to_json()),
            serde_json::json!(serde_json::to_string(&want.to_json()).unwrap()),
            want.to_value(),
        ] {
            let job = serde_json::json!({"filter": given});
            assert_eq!(job_filter(job.as_object().unwrap()).unwrap(), Some(want.clone()));
        }
        for none in [
            serde_json::json!({}),
            serde_json::json!({"filter": null}),
            serde_json::json!({"filter": ""}),
        ] {
            assert_eq!(job_filter(none.as_object().unwrap()).unwrap(), None);
        }
        let bad = serde_json::json!({"filter": "{}"});
        assert!(matches!(job_filter(bad.as_object().unwrap()), Err(Error::Filter(_))));
    }

    #[test]
    fn options_compare_by_meaning() {
        assert!(logpull_options_equal(
            "fields=ClientIP,EdgeResponseStatus&timestamps=rfc3339&CVE-2021-44228=true",
            "timestamps=rfc3339&CVE-2021-44228=true&fields=ClientIP,EdgeResponseStatus"
        ));
        assert!(!logpull_options_equal(
            "fields=ClientIP,EdgeResponseStatus",
            "fields=EdgeResponseStatus,ClientIP"
        ));
        assert!(!logpull_options_equal(
            "fields=ClientIP&timestamps=unix",
            "fields=ClientIP"
        ));
    }
}

/// How a dataset's live field list (the API's) and its embedded schema differ: the fields
/// only the API has (escpush is stale and does not know them) and the fields only the
/// schema has (removed or renamed by the API), each sorted.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct FieldDrift {
    /// Fields the API lists that the embedded schema lacks.
    pub only_live: Vec<String>,
    /// Fields the embedded schema has that the API no longer lists.
    pub only_embedded: Vec<String>,
}

impl FieldDrift {
    /// Whether the two lists agree.
    pub fn is_empty(&self) -> bool {
        self.only_live.is_empty() && self.only_embedded.is_empty()
    }
}

/// Compares the live field names of `dataset` with its embedded schema.
pub fn field_drift<'a>(dataset: &Dataset, live: impl IntoIterator<Item = &'a str>) -> FieldDrift {
    let live: std::collections::BTreeSet<&str> = live.into_iter().collect();
    let embedded: std::collections::BTreeSet<&str> = dataset.fields().iter().map(crate::FieldSchema::name).collect();
    FieldDrift {
        only_live: live.difference(&embedded).map(|s| (*s).to_owned()).collect(),
        only_embedded: embedded.difference(&live).map(|s| (*s).to_owned()).collect(),
    }
}

#[cfg(test)]
mod drift_tests {
    use super::*;

    #[test]
    fn drift_names_both_sides() {
        let http = Dataset::get("http_requests", None).unwrap();
        let mut live: Vec<&str> = http
            .fields()
            .iter()
            .map(crate::FieldSchema::name)
            .filter(|n| *n != "ClientIP")
            .collect();
        assert!(field_drift(http, live.iter().copied().chain(["ClientIP"])).is_empty());
        live.push("BrandNewField");
        let drift = field_drift(http, live);
        assert_eq!(drift.only_live, ["BrandNewField"]);
        assert_eq!(drift.only_embedded, ["ClientIP"]);
    }
}
