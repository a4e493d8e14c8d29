//! Reading what a job holds so that it compares by meaning, not by text: its filter in
//! whatever form the API stored it ([`job_filter`]), its `logpull_options` as options
//! ([`logpull_options_equal`]), and a dataset's live field list against its schema
//! ([`field_drift`]).
//!
//! Filters themselves compare by the one exact decision, [`Filter::equivalent`] (the
//! `equiv` module of `filter/`, which `filter diff` uses): the plan of `ensure` and `apply`
//! calls it with the job's dataset, so a filter the API writes back reordered, respelled
//! (`"500"` for `500`) or regrouped, or one that differs only by a redundant condition, is
//! the same filter and causes no update.

use serde_json::{Map, Value as JsonValue};

use crate::error::Error;
use escpush_filter::Dataset;
use escpush_filter::Filter;

use super::options::LogpullOptions;

/// A job's `filter` as a [`Filter`]: the API's string form (the JSON document, or that
/// document quoted once more), the object form, or none (`null`, absent, `""`).
pub fn job_filter(job: &Map<String, JsonValue>) -> Result<Option<Filter>, Error> {
    filter_value(job.get("filter"))
}

/// A `filter` value as a job holds it, read as [`job_filter`] reads it (a jobs file's, an
/// export's: escpush-terraform reads a resource's `filter` with it).
pub fn filter_value(value: Option<&JsonValue>) -> Result<Option<Filter>, Error> {
    match value {
        None | Some(JsonValue::Null) => Ok(None),
        Some(JsonValue::String(s)) if s.trim().is_empty() => Ok(None),
        // JSON, its quoted form, or the text form a person wrote (what the API stores is JSON).
        Some(JsonValue::String(s)) => Ok(Some(Filter::parse_any(s)?)),
        Some(other) => Ok(Some(Filter::from_json(other.clone())?)),
    }
}

/// A `filter` value as the API reads the one it is sent ([`JobSpec::from_body`](super::JobSpec::from_body)):
/// the JSON document, or that document quoted once more; never the text form, which only
/// escpush reads (`ClientCountry == "cn"` is refused, as the API refuses it: it is not JSON).
pub fn sent_filter_value(value: Option<&JsonValue>) -> Result<Option<Filter>, Error> {
    match value {
        Some(JsonValue::String(s)) if !s.trim().is_empty() => Ok(Some(Filter::parse(s)?)),
        other => filter_value(other),
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
                let mut other = o.kept_as_given().to_vec();
                other.sort();
                (o.fields().to_vec(), o.timestamps_format(), flags, other)
            };
            sorted(&x) == sorted(&y)
        }
        _ => a.trim() == b.trim(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(text: &str) -> Filter {
        Filter::parse(text).unwrap()
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
    let embedded: std::collections::BTreeSet<&str> =
        dataset.fields().iter().map(escpush_filter::FieldSchema::name).collect();
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
            .map(escpush_filter::FieldSchema::name)
            .filter(|n| *n != "ClientIP")
            .collect();
        assert!(field_drift(http, live.iter().copied().chain(["ClientIP"])).is_empty());
        live.push("BrandNewField");
        let drift = field_drift(http, live);
        assert_eq!(drift.only_live, ["BrandNewField"]);
        assert_eq!(drift.only_embedded, ["ClientIP"]);
    }
}
