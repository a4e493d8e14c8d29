//! The field schemas of every Logpush dataset, embedded at build time.
//!
//! The data, `data/datasets.json`, holds facts from Cloudflare's documentation
//! (cloudflare/cloudflare-docs; each dataset records its page and commit): field names,
//! documented types and deprecation flags. `scripts/import_datasets.py` regenerates it,
//! applying `scripts/dataset_corrections.json` (where a copied page is not the docs' truth,
//! each correction with its source page and why).
//! This file holds data and lookup only; what a filter may do with a field type (SPEC
//! table B.1) is decided in `filter/validate.rs`.

use std::collections::HashMap;
use std::fmt;
use std::str::FromStr;
use std::sync::OnceLock;

use serde::Deserialize;

use crate::error::Error;
use crate::problem::{Problem, ProblemCode};
use crate::suggest;
use crate::DatasetScope;

const EMBEDDED: &str = include_str!("../data/datasets.json");

/// The type of a log field, as the dataset's documentation gives it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum FieldType {
    /// `string`
    String,
    /// `int`
    Int,
    /// `float` (filtered as a number, like `int`)
    Float,
    /// `bool`
    Bool,
    /// `array[string]`
    StringArray,
    /// `array[int]`
    IntArray,
    /// `int or string` (timestamps: the form follows the job's timestamp format)
    IntOrString,
    /// `object`: cannot be filtered
    Object,
    /// `array[object]`: cannot be filtered
    ObjectArray,
    /// No type documented: a field named in Cloudflare's field list but typed on no docs
    /// page (the `undocumented` list of `scripts/dataset_corrections.json`). Validation
    /// reports a filter on it (`untyped_field`); evaluation, the SQL column (`json`) and the
    /// equivalence (any value) treat it as untyped.
    Unknown,
}

impl FieldType {
    fn from_doc(doc: Option<&str>) -> FieldType {
        match doc {
            Some("string") => FieldType::String,
            Some("int") => FieldType::Int,
            Some("float") => FieldType::Float,
            Some("bool") => FieldType::Bool,
            Some("array[string]") => FieldType::StringArray,
            Some("array[int]") => FieldType::IntArray,
            Some("int or string") => FieldType::IntOrString,
            Some("object") => FieldType::Object,
            Some("array[object]") => FieldType::ObjectArray,
            _ => FieldType::Unknown,
        }
    }

    /// The type as the documentation writes it (`"array[string]"`).
    pub fn as_str(self) -> &'static str {
        match self {
            FieldType::String => "string",
            FieldType::Int => "int",
            FieldType::Float => "float",
            FieldType::Bool => "bool",
            FieldType::StringArray => "array[string]",
            FieldType::IntArray => "array[int]",
            FieldType::IntOrString => "int or string",
            FieldType::Object => "object",
            FieldType::ObjectArray => "array[object]",
            FieldType::Unknown => "unknown",
        }
    }

    /// Objects and arrays of objects cannot be filtered (Cloudflare's filtering limitations).
    pub fn is_filterable(self) -> bool {
        !matches!(self, FieldType::Object | FieldType::ObjectArray)
    }
}

impl fmt::Display for FieldType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One field of a dataset.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FieldSchema {
    name: String,
    field_type: FieldType,
    deprecated: bool,
    filterable: bool,
}

impl FieldSchema {
    /// The field's name, as in the log line (`ClientRequestHost`).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Its documented type.
    pub fn field_type(&self) -> FieldType {
        self.field_type
    }

    /// Marked deprecated in the documentation (still delivered, to be replaced).
    pub fn deprecated(&self) -> bool {
        self.deprecated
    }

    /// Whether a filter may name it: not an object, and not listed in the dataset's
    /// filtering limitations.
    pub fn filterable(&self) -> bool {
        self.filterable
    }
}

/// A Logpush dataset and its fields.
#[derive(Clone, Debug)]
pub struct Dataset {
    name: String,
    scope: DatasetScope,
    title: String,
    source: String,
    fields: Vec<FieldSchema>,
    by_name: HashMap<String, usize>,
}

impl Dataset {
    /// The dataset's name, as a job's `dataset` field gives it (`http_requests`).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Zone or account.
    pub fn scope(&self) -> DatasetScope {
        self.scope
    }

    /// The title of its documentation page ("HTTP requests").
    pub fn title(&self) -> &str {
        &self.title
    }

    /// Where its schema comes from (`cloudflare/cloudflare-docs:<path>@<commit>`).
    pub fn source(&self) -> &str {
        &self.source
    }

    /// Every field, in the order of the documentation.
    pub fn fields(&self) -> &[FieldSchema] {
        &self.fields
    }

    /// The field of that exact name.
    pub fn field(&self, name: &str) -> Option<&FieldSchema> {
        self.by_name.get(name).map(|&i| &self.fields[i])
    }

    /// The field that says when a record happened, which a scan's time buckets read
    /// (`EdgeStartTimestamp` for http_requests, `Datetime` for firewall_events), read from the
    /// schema: a dataset's timestamps are its fields typed `int or string` (the form follows
    /// the job's timestamp format); of those, the one named `Timestamp` or `Datetime`, else
    /// the only one whose name holds `Start`, else the only one. `None` when that leaves no
    /// field or several (workers_trace_events has none, email_security_post_delivery_events
    /// three): name one.
    pub fn time_field(&self) -> Option<&str> {
        fn only<'a>(mut names: impl Iterator<Item = &'a str>) -> Option<&'a str> {
            let first = names.next();
            names.next().is_none().then_some(first).flatten()
        }
        let times: Vec<&str> = self
            .fields
            .iter()
            .filter(|f| f.field_type == FieldType::IntOrString)
            .map(|f| f.name.as_str())
            .collect();
        times
            .iter()
            .copied()
            .find(|n| matches!(*n, "Timestamp" | "Datetime"))
            .or_else(|| only(times.iter().copied().filter(|n| n.contains("Start"))))
            .or_else(|| only(times.iter().copied()))
    }

    /// The field name closest to a mistyped one.
    pub fn suggest_field(&self, name: &str) -> Option<&str> {
        suggest::closest(name, self.fields.iter().map(|f| (f.name.as_str(), f.name.as_str())))
    }

    /// Finds a dataset by name, in `scope` when one is given. Two names exist in both scopes
    /// (`firewall_events`, `websocket_analytics`): without a scope the zone dataset is taken.
    /// A name that only the other scope has is refused as such ([`Dataset::check_scope`]'s
    /// words); a name no scope has is [`Error::UnknownDataset`], with a did-you-mean.
    pub fn get(name: &str, scope: Option<DatasetScope>) -> Result<&'static Dataset, Error> {
        let all = datasets();
        let found = all
            .iter()
            .filter(|d| d.name == name && scope.is_none_or(|s| d.scope == s))
            .min_by_key(|d| d.scope);
        if let (None, Some(asked)) = (found, scope) {
            if let Ok(other) = Dataset::get(name, None) {
                other.check_scope(asked)?;
            }
        }
        found.ok_or_else(|| {
            let candidates = all.iter().filter(|d| scope.is_none_or(|s| d.scope == s));
            let suggestion = suggest::closest(name, candidates.map(|d| (d.name.as_str(), d.name.clone())));
            Error::UnknownDataset {
                name: name.to_owned(),
                scope,
                suggestion,
            }
        })
    }
}

impl Dataset {
    /// Refuses `asked`, a scope this dataset is not of: "`gateway_dns` is an account dataset:
    /// use it on an account, not on a zone" (the one wording of a dataset on the other scope,
    /// for a job, its update, a dataset's jobs and fields, an origin check).
    pub fn check_scope(&self, asked: DatasetScope) -> Result<(), Error> {
        if self.scope == asked {
            return Ok(());
        }
        let belongs = self.scope.with_article();
        Err(Error::InvalidInput {
            what: "dataset",
            message: format!(
                "`{}` is {belongs} dataset: use it on {belongs}, not on {}",
                self.name,
                asked.with_article()
            ),
        })
    }
}

/// Datasets are the same when their name and scope are.
impl PartialEq for Dataset {
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name && self.scope == other.scope
    }
}

impl Eq for Dataset {}

/// Every embedded dataset: zone datasets first, then account datasets, each by name.
///
/// # Panics
///
/// Never in practice: the embedded data is checked by the crate's tests.
pub fn datasets() -> &'static [Dataset] {
    static DATASETS: OnceLock<Vec<Dataset>> = OnceLock::new();
    DATASETS.get_or_init(|| load(EMBEDDED).expect("the embedded dataset schemas are valid JSON (checked by tests)"))
}

#[derive(Deserialize)]
struct RawFile {
    datasets: Vec<RawDataset>,
}

#[derive(Deserialize)]
struct RawDataset {
    dataset: String,
    scope: DatasetScope,
    title: String,
    source: String,
    fields: Vec<(String, Option<String>, bool)>,
    #[serde(default)]
    unfilterable: Vec<String>,
}

fn load(text: &str) -> Result<Vec<Dataset>, serde_json::Error> {
    let raw: RawFile = serde_json::from_str(text)?;
    Ok(raw
        .datasets
        .into_iter()
        .map(|d| {
            let fields: Vec<FieldSchema> = d
                .fields
                .into_iter()
                .map(|(name, doc_type, deprecated)| {
                    let field_type = FieldType::from_doc(doc_type.as_deref());
                    FieldSchema {
                        filterable: field_type.is_filterable() && !d.unfilterable.contains(&name),
                        name,
                        field_type,
                        deprecated,
                    }
                })
                .collect();
            let by_name = fields.iter().enumerate().map(|(i, f)| (f.name.clone(), i)).collect();
            Dataset {
                name: d.dataset,
                scope: d.scope,
                title: d.title,
                source: d.source,
                fields,
                by_name,
            }
        })
        .collect())
}

/// The one rule of a list of a dataset's field names (`logpull_options`' `fields`,
/// `output_options.field_names`, an Instant Logs session's `fields`): at least one name
/// (there is no "every field": api-configuration.mdx, "you need to specify the fields
/// names"), each a string, not empty, a field of the dataset (with a did-you-mean), and
/// named once. `path` is the list's (`logpull_options.fields`), an entry's problem is at
/// `path[i]`; `names` holds `None` for an entry that is not a string.
///
/// An unknown field is [`ProblemCode::UnknownField`]; every other problem has `code`, the
/// code of the value the list is part of (`invalid_option` for `logpull_options`, whose every
/// problem has it; `invalid_value` for a field's value), so that each value keeps one code.
pub fn field_list_problems<'a>(
    path: &str,
    names: impl IntoIterator<Item = Option<&'a str>>,
    dataset: &Dataset,
    code: ProblemCode,
) -> Vec<Problem> {
    let list = path.rsplit('.').next().unwrap_or(path);
    let names: Vec<Option<&str>> = names.into_iter().collect();
    if names.is_empty() {
        return vec![Problem::new(path, code, format!("name at least one field in `{list}`"))];
    }
    let mut problems = Vec::new();
    for (i, name) in names.iter().enumerate() {
        let at = format!("{path}[{i}]");
        match name {
            None => problems.push(Problem::new(at, code, "a field name is a string")),
            Some("") => problems.push(Problem::new(
                at,
                code,
                format!("an empty field name in `{list}`; name a field of {}", dataset.name()),
            )),
            Some(name) if dataset.field(name).is_none() => {
                let hint = suggest::did_you_mean(dataset.suggest_field(name));
                problems.push(Problem::new(
                    at,
                    ProblemCode::UnknownField,
                    format!("`{}` is not a field of {}{hint}", suggest::cut(name), dataset.name()),
                ));
            }
            Some(name) if names[..i].contains(&Some(name)) => problems.push(Problem::new(
                at,
                code,
                format!("`{}` is listed twice in `{list}`", suggest::cut(name)),
            )),
            Some(_) => {}
        }
    }
    problems
}

impl FromStr for DatasetScope {
    type Err = Error;

    /// `"zone"` or `"account"`, as [`DatasetScope::as_str`] writes them.
    fn from_str(s: &str) -> Result<Self, Error> {
        DatasetScope::ALL.into_iter().find(|k| k.as_str() == s).ok_or_else(|| {
            let names: Vec<String> = DatasetScope::ALL.iter().map(|k| format!("\"{k}\"")).collect();
            Error::InvalidInput {
                what: "scope",
                message: format!("`{}` is not a scope; use {}", suggest::cut(s), names.join(" or ")),
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_fields_come_from_the_schema() {
        let time = |name, scope| Dataset::get(name, Some(scope)).unwrap().time_field();
        assert_eq!(time("http_requests", DatasetScope::Zone), Some("EdgeStartTimestamp"));
        assert_eq!(time("firewall_events", DatasetScope::Zone), Some("Datetime"));
        assert_eq!(time("spectrum_events", DatasetScope::Zone), Some("Timestamp"));
        assert_eq!(time("zaraz_events", DatasetScope::Zone), Some("TimestampStart"));
        assert_eq!(time("ssh_logs", DatasetScope::Account), Some("Datetime"));
        assert_eq!(
            time("zero_trust_network_sessions", DatasetScope::Account),
            Some("SessionStartTime")
        );
        assert_eq!(time("audit_logs", DatasetScope::Account), Some("When"));
        assert_eq!(time("workers_trace_events", DatasetScope::Account), None);
        assert_eq!(time("email_security_post_delivery_events", DatasetScope::Account), None);
        // Every dataset but those two has one.
        assert_eq!(datasets().iter().filter(|d| d.time_field().is_none()).count(), 2);
    }

    #[test]
    fn every_dataset_of_both_scopes_is_embedded_with_typed_fields() {
        let all = datasets();
        assert_eq!(all.len(), 39);
        assert_eq!(all.iter().filter(|d| d.scope == DatasetScope::Zone).count(), 9);
        let http = Dataset::get("http_requests", None).unwrap();
        assert_eq!(http.fields().len(), 123);
        assert_eq!(http.field("EdgeResponseStatus").unwrap().field_type(), FieldType::Int);
        assert_eq!(http.field("ClientRequestHost").unwrap().field_type(), FieldType::String);
        assert_eq!(
            http.field("EdgeStartTimestamp").unwrap().field_type(),
            FieldType::IntOrString
        );
        assert!(http.field("WAFFlags").unwrap().deprecated());
        assert!(!http.field("MatchedRules").unwrap().filterable());
        assert!(http.source().starts_with("cloudflare/cloudflare-docs:"));
        // Every documented type string maps to a known type.
        for d in all {
            for f in d.fields() {
                assert!(
                    f.field_type() != FieldType::Unknown || d.name() != "http_requests",
                    "{}.{}",
                    d.name(),
                    f.name()
                );
            }
        }
    }

    #[test]
    fn scoped_names_and_firewall_limitations() {
        let zone = Dataset::get("firewall_events", None).unwrap();
        assert_eq!(zone.scope(), DatasetScope::Zone);
        let account = Dataset::get("firewall_events", Some(DatasetScope::Account)).unwrap();
        assert_eq!(account.scope(), DatasetScope::Account);
        for d in [zone, account] {
            for name in [
                "Action",
                "Description",
                "Kind",
                "MatchIndex",
                "Metadata",
                "OriginatorRayID",
                "RuleID",
                "Source",
            ] {
                assert!(!d.field(name).unwrap().filterable(), "{name}");
            }
            assert!(d.field("ClientIP").unwrap().filterable());
        }
        // Named by Cloudflare's field list, missing from the stored page: kept, type unknown.
        assert_eq!(
            zone.field("WAFRequestSignatureRefs").unwrap().field_type(),
            FieldType::Unknown
        );
        assert!(Dataset::get("gateway_dns", Some(DatasetScope::Zone)).is_err());
    }

    #[test]
    fn account_websocket_analytics_has_the_account_page_fields() {
        // The account page as published (2026-06-29, 2026-09-14) and the 2026-09-15 field
        // list; not the camelCase names of the repository copy @7dcfdac9
        // (scripts/dataset_corrections.json).
        let account = Dataset::get("websocket_analytics", Some(DatasetScope::Account)).unwrap();
        let fields: Vec<(&str, &str)> = account
            .fields()
            .iter()
            .map(|f| (f.name(), f.field_type().as_str()))
            .collect();
        assert_eq!(
            fields,
            [
                ("BytesReceivedClient", "int"),
                ("BytesReceivedOrigin", "int"),
                ("BytesSentClient", "int"),
                ("BytesSentOrigin", "int"),
                ("ClientASN", "int"),
                ("ClientIP", "string"),
                ("ClientRequestHost", "string"),
                ("ClientRequestPath", "string"),
                ("ClientRequestUserAgent", "string"),
                ("ColoCode", "string"),
                ("ConnectionCloseReason", "string"),
                ("ConnectionCloseSource", "string"),
                ("ConnectionID", "string"),
                ("ConnectionTransportCloseCode", "int"),
                ("EdgeEndTimestamp", "int or string"),
                ("EdgeStartTimestamp", "int or string"),
                ("RayID", "string"),
            ]
        );
        let zone = Dataset::get("websocket_analytics", Some(DatasetScope::Zone)).unwrap();
        assert_eq!(account.fields(), zone.fields());
    }

    /// Every field without a documented type, as (scope, dataset, field): the list of
    /// `undocumented` in scripts/dataset_corrections.json. A new untyped field fails here.
    const UNDOCUMENTED: [(&str, &str, &str); 10] = [
        ("zone", "firewall_events", "WAFRequestSignatureCategories"),
        ("zone", "firewall_events", "WAFRequestSignatureRefs"),
        ("account", "dex_application_tests", "HTTPRedirectEndMs"),
        ("account", "dex_application_tests", "HTTPRedirectStartMs"),
        ("account", "dex_application_tests", "HTTPResponseBody"),
        ("account", "dex_application_tests", "HTTPResponseHeaders"),
        ("account", "firewall_events", "WAFRequestSignatureCategories"),
        ("account", "firewall_events", "WAFRequestSignatureRefs"),
        ("account", "gateway_http", "ExperimentalFeatures"),
        ("account", "gateway_http", "PackageInfo"),
    ];

    #[test]
    fn no_field_is_untyped_unless_the_docs_give_no_type() {
        let untyped: Vec<(&str, &str, &str)> = datasets()
            .iter()
            .flat_map(|d| {
                d.fields()
                    .iter()
                    .filter(|f| f.field_type() == FieldType::Unknown)
                    .map(move |f| (d.scope().as_str(), d.name(), f.name()))
            })
            .collect();
        assert_eq!(untyped, UNDOCUMENTED);
    }

    #[test]
    fn fields_typed_from_the_docs_pages() {
        let zone = Dataset::get("firewall_events", Some(DatasetScope::Zone)).unwrap();
        let topics = zone.field("AISecurityCustomTopicCategories").unwrap();
        assert_eq!(topics.field_type(), FieldType::Object);
        assert!(!topics.filterable());
        assert_eq!(zone.field("ZoneName").unwrap().field_type(), FieldType::String);
        let warp = Dataset::get("warp_config_changes", None).unwrap();
        assert_eq!(warp.field("UserEmail").unwrap().field_type(), FieldType::String);
    }

    #[test]
    fn unknown_datasets_get_a_suggestion() {
        let err = Dataset::get("http_request", None).unwrap_err();
        assert_eq!(
            err.to_string(),
            "unknown dataset `http_request`; did you mean `http_requests`?"
        );
    }
}
