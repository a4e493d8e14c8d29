//! The filter language of Cloudflare's log-push jobs (SPEC appendix B): `{"where": EXPR}`,
//! and the vocabulary it is checked against, the field schemas of the log-push datasets.
//!
//! A [`Filter`] is made by [`Filter::parse`] (JSON text, or the quoted form copied from a
//! job), [`Filter::from_json`], [`Filter::from_text`] (the text form) or the builders
//! ([`field`], `&`, `|`, `!`). Its tree is always well formed: known operators, and values of
//! the shape each operator takes. [`Filter::validate`] checks what the API would refuse on
//! top of that: the size limits, and, given a [`Dataset`], field names, operator × field
//! type, and values no field of that type can have. A filter is printed as JSON, as text, as
//! SQL ([`Dialect`]), compared by meaning ([`Filter::equivalent`], [`Counterexample`]),
//! compacted, evaluated on records ([`Record`]) and compiled for NDJSON lines
//! ([`CompiledFilter`]).
//!
//! Beside the language, what its messages and a log scan share: [`Problem`] (what a check
//! reports), [`Json`] (an order-keeping JSON tree and its bounded reader), [`Timestamp`]
//! (log-push's time formats), [`share`] / [`percent`], the masking of secrets in a text
//! ([`MASK`], [`Secrets`], [`mask_urls`]), and the modules [`shown`] (how a person's text
//! appears in a message) and [`suggest`] (did-you-mean). Nothing here does I/O, and nothing
//! here knows the API: `escpush-core` builds the API on top of this crate.
//!
//! ```
//! use escpush_filter::{field, Dataset, Filter, Limits};
//!
//! let f = field("ClientRequestHost").ends_with(".example.com") & field("EdgeResponseStatus").ge(500);
//! assert_eq!(
//!     f.to_json(),
//!     r#"{"where":{"and":[{"key":"ClientRequestHost","operator":"endsWith","value":".example.com"},{"key":"EdgeResponseStatus","operator":"geq","value":"500"}]}}"#
//! );
//! let http = Dataset::get("http_requests", None)?;
//! f.validate(Some(http), Limits::default())?;
//! assert_eq!(Filter::parse(&f.to_json())?, f);
//! assert_eq!(Filter::from_text("EdgeResponseStatus >= 500")?, field("EdgeResponseStatus").ge(500));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Files: `ast` (the tree), `operator` (the one operator table), `parse` (JSON → tree),
//! `build` (builders), `shared` ([`SharedFilter`]), `validate` (every rule: shapes,
//! [`MAX_DEPTH`], [`Limits`], the dataset checks), `text` (the text form), `print` (the
//! printers: JSON, text, SQL), `equiv` (equivalence), `compact`, `eval` (records), `line`
//! (NDJSON lines, [`CompiledFilter`]); `dataset` and `dataset_scope` (the embedded schemas),
//! `problem`, `error`, `json`, `time`, `share`, `mask`, `shown`, `suggest`.
#![deny(unsafe_code)]

mod ast;
mod build;
mod compact;
mod dataset;
mod dataset_scope;
mod equiv;
mod error;
mod eval;
mod json;
mod line;
mod mask;
mod operator;
mod parse;
mod print;
mod problem;
mod share;
mod shared;
pub mod shown;
pub mod suggest;
mod text;
mod time;
mod validate;

use std::fmt;
use std::str::FromStr;

pub use ast::{canonical_integer, Condition, Expr, Operator, Scalar, UnknownOperator, Value};
pub use build::{field, Field};
pub use dataset::{datasets, field_list_problems, Dataset, FieldSchema, FieldType};
pub use dataset_scope::DatasetScope;
pub use equiv::Counterexample;
pub use error::Error;
pub use eval::{eval_condition, FieldValue, Record};
pub use json::{json_kind, Json, JsonError, JsonErrorKind};
pub use line::{is_blank, CompiledFilter, GroupValue, LineValue, Malformation, MalformedLine, TimestampCache};
pub use mask::{
    mask_secret, mask_secret_bytes, mask_secret_forms, mask_secret_forms_bytes, mask_urls, redact_url, secret_forms,
    url_credentials, Secrets, MASK, MIN_SCRUBBED_LEN,
};
pub use print::sql::{columns as dataset_columns, create_table, ColumnType, Dialect};
pub use problem::{describe_problems, FilterError, Problem, ProblemCode};
pub use share::{percent, share};
pub use shared::SharedFilter;
pub use text::TextError;
pub use time::{civil_from_unix, format_time, unix_from_civil, Timestamp, FIRST_SECOND, LAST_SECOND};
pub use validate::{too_deep, Limits, MAX_DEPTH, MAX_JSON_DEPTH};

/// A log-push job filter. See the [module docs](self).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Filter {
    expr: Expr,
}

impl Condition {
    /// A condition, checked: a non-empty key, a non-empty set for `in` / `!in` and one
    /// value otherwise, an integer (or its canonical text) for `lt`, `leq`, `gt`, `geq`. An
    /// integer given to a single-value operator is held as its text (`"500"`, see
    /// [`Value`]'s canonical spelling), as every entry point holds it.
    pub fn new(key: impl Into<String>, operator: Operator, value: Value) -> Result<Condition, FilterError> {
        let condition = Condition::canonical(key.into(), operator, value);
        let problems = validate::check_condition(&condition, "");
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
        let problems = validate::shape_problems(&filter.expr);
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

    /// Reads the text form (see [`text`]): `EdgeResponseStatus >= 500 and ClientCountry in
    /// ["cn", "ru"]`. The first problem is reported with its line, column and a caret.
    pub fn from_text(text: &str) -> Result<Filter, TextError> {
        text::parse(text, None).map(Filter::from_expr)
    }

    /// [`from_text`](Filter::from_text), with every field name checked against the
    /// dataset (an unknown one gets a did-you-mean).
    pub fn from_text_for(text: &str, dataset: &Dataset) -> Result<Filter, TextError> {
        text::parse(text, Some(dataset)).map(Filter::from_expr)
    }

    /// Reads a filter written either way: JSON (`{"where": ...}`, or that document as a
    /// JSON string) when the text starts with `{` or is one JSON string, else the text form.
    pub fn parse_any(text: &str) -> Result<Filter, FilterError> {
        let trimmed = text.trim_start();
        if trimmed.starts_with('{') || (trimmed.starts_with('"') && serde_json::from_str::<String>(text).is_ok()) {
            Filter::parse(text)
        } else {
            Filter::from_text(text).map_err(FilterError::from)
        }
    }

    /// The canonical text form (see [`print::text`]): `Filter::from_text(&f.to_text())`
    /// gives back `f`, value types included.
    pub fn to_text(&self) -> String {
        print::text::to_text(self)
    }

    /// Whether the two filters match exactly the same records, by the evaluation rules
    /// (see [`equiv`]); with a dataset, among the records its schema allows. A decision:
    /// equal filters are proven equal.
    pub fn equivalent(&self, other: &Filter, dataset: Option<&Dataset>) -> bool {
        equiv::equivalent(self, other, dataset)
    }

    /// A record on which exactly one of the two filters matches (fitting the dataset's
    /// schema when one is given), or `None` when they are equivalent.
    pub fn counterexample(&self, other: &Filter, dataset: Option<&Dataset>) -> Option<Counterexample> {
        equiv::counterexample(self, other, dataset)
    }

    /// An equivalent filter that is never larger (fewer operators first, then fewer
    /// bytes): flattened, deduplicated, `in` sets merged, shared conditions factored out,
    /// implied conditions dropped. With a dataset, equivalent on the records its schema
    /// allows (which lets an `or` of `eq`s become `in`). Every rewrite is proven by
    /// [`equivalent`](Filter::equivalent).
    #[must_use]
    pub fn compact(&self, dataset: Option<&Dataset>) -> Filter {
        compact::compact(self, dataset)
    }

    /// The expression under `where`.
    pub fn expr(&self) -> &Expr {
        &self.expr
    }

    /// Canonical compact JSON: members in the order `key, operator, value`, no spaces.
    /// The same filter always prints the same bytes; this is the value for a job's
    /// `filter` field.
    pub fn to_json(&self) -> String {
        print::json::to_json(self)
    }

    /// The filter as a boolean SQL expression for a `WHERE` clause in `dialect`, over a
    /// table of `dataset`'s columns typed as [`create_table`](crate::create_table) types them;
    /// it gives the answers of [`matches`](Filter::matches) there. See [`print::sql`].
    ///
    /// # Errors
    ///
    /// A field the dataset does not have, or a condition the dialect cannot express.
    pub fn to_sql(&self, dialect: crate::Dialect, dataset: &Dataset) -> Result<String, crate::Error> {
        print::sql::to_sql(self, dialect, dataset)
    }

    /// `SELECT * FROM <table> WHERE <to_sql>`; the table defaults to the dataset's name.
    ///
    /// # Errors
    ///
    /// Those of [`to_sql`](Filter::to_sql), and a table named for the transformer dialect.
    pub fn to_query(
        &self,
        dialect: crate::Dialect,
        dataset: &Dataset,
        table: Option<&str>,
    ) -> Result<String, crate::Error> {
        print::sql::to_query(self, dialect, dataset, table)
    }

    /// The Logpush transformer that delivers the records this filter keeps: `SELECT <fields>
    /// FROM <dataset> WHERE <the filter in the transformer dialect>`, `*` without `fields`
    /// (a job's `field_names`). See [`print::sql::to_transformer`].
    ///
    /// # Errors
    ///
    /// A condition the transformer dialect cannot express, a field list with an unknown,
    /// empty or repeated name.
    pub fn to_transformer(&self, dataset: &Dataset, fields: Option<&[&str]>) -> Result<String, crate::Error> {
        print::sql::to_transformer(self, dataset, fields)
    }

    /// The filter as a JSON value (members in canonical order).
    pub fn to_value(&self) -> serde_json::Value {
        print::json::to_value(self)
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
    /// and values no field of that type can equal. Empty when the filter is fine. Past a
    /// limit, the first limit problem says when [`compact`](Filter::compact) fits.
    pub fn problems(&self, dataset: Option<&Dataset>, limits: Limits) -> Vec<Problem> {
        let mut problems = validate::problems(self, dataset, limits);
        compact::suggest(self, dataset, limits, &mut problems);
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
    use crate::Dataset;
    use crate::DatasetScope;
    use crate::ProblemCode;

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
