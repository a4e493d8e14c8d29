//! The one-sentence description of each dataset field, as Cloudflare's docs give it: what
//! `GET .../logpush/datasets/{dataset}/fields` answers for a field (the API returns
//! `{FieldName: "description", ...}`).
//!
//! `data/field_descriptions.json` is written by `scripts/import_datasets.py` beside core's
//! `datasets.json`, from the same pages and corrections; only the emulator embeds it, and it
//! is read on the first fields request.

use std::sync::OnceLock;

use escpush_filter::Dataset;
use serde_json::Value;

const EMBEDDED: &str = include_str!("../data/field_descriptions.json");

/// `{"zone/http_requests": {"ClientIP": "IP address of the client.", ...}, ...}`.
fn all() -> &'static Value {
    static ALL: OnceLock<Value> = OnceLock::new();
    ALL.get_or_init(|| {
        let mut file: Value =
            serde_json::from_str(EMBEDDED).expect("the embedded field descriptions are JSON (checked by tests)");
        file["datasets"].take()
    })
}

/// The docs' description of a field of `dataset`; empty for a field the docs do not describe.
pub(crate) fn description(dataset: &Dataset, field: &str) -> &'static str {
    all()[format!("{}/{}", dataset.scope(), dataset.name())][field]
        .as_str()
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use escpush_filter::{datasets, FieldType};

    use super::*;

    #[test]
    fn every_described_field_is_a_field_of_its_dataset() {
        let all = all().as_object().unwrap();
        assert_eq!(all.len(), datasets().len());
        for d in datasets() {
            let described = all[&format!("{}/{}", d.scope(), d.name())].as_object().unwrap();
            for (name, text) in described {
                assert!(text.as_str().is_some_and(|t| !t.is_empty()), "{name}");
                assert!(d.field(name).is_some(), "{} {}: {name}", d.scope(), d.name());
            }
            // Only the fields the docs neither type nor describe lack a description.
            for f in d.fields() {
                assert_eq!(
                    described.contains_key(f.name()),
                    f.field_type() != FieldType::Unknown,
                    "{}.{}",
                    d.name(),
                    f.name()
                );
            }
        }
    }
}
