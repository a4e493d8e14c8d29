//! `POST {scope}/logpush/validate/origin`: whether a `logpull_options` string is valid.
//!
//! The rules, with their sources:
//! - the body is `{"logpull_options": string | null}`, the key required (schema
//!   `P:~1zones~1{zone_id}~1logpush~1validate~1origin/post`; SDK 5.9
//!   `ValidateOriginParams.logpull_options: Required[Optional[str]]`, sent as `null` when
//!   None);
//! - the docs' example also sends the dataset the options are for (`"dataset":
//!   "http_requests"`, api-configuration.mdx §Options), which the schema lacks: escpush sends
//!   it when one is named, and then the options' fields are checked against it, as a job's
//!   are;
//! - the answer is `{"valid": bool, "message": string}` (schema `S:logpush_validate_response`).

use serde_json::{json, Value};

use crate::error::Error;
use escpush_filter::json_kind;
use escpush_filter::Dataset;
use escpush_filter::DatasetScope;
use escpush_filter::{Problem, ProblemCode};

use super::options::LogpullOptions;

/// What `validate/origin` is asked: the options (their query string, or none) and the
/// dataset they are for, when one is named. Built by [`OriginCheck::new`] (the client,
/// which refuses what is wrong before sending) or [`OriginCheck::from_body`] (the emulator),
/// judged by [`OriginCheck::verdict`].
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct OriginCheck {
    options: Option<String>,
    dataset: Option<&'static Dataset>,
}

impl OriginCheck {
    /// The check of `options` (for `dataset`, a dataset of `scope`, when named), refused
    /// before anything is sent when the dataset is unknown or the options' fields are not
    /// its fields.
    pub fn new(options: Option<&LogpullOptions>, dataset: Option<&str>, scope: DatasetScope) -> Result<Self, Error> {
        let check = OriginCheck {
            options: options.map(LogpullOptions::to_query),
            dataset: dataset.map(|d| Dataset::get(d, Some(scope))).transpose()?,
        };
        check.verdict()?;
        Ok(check)
    }

    /// Reads the body as the API receives it: `logpull_options` (a string or `null`, the key
    /// required) and an optional `dataset` of `scope`. A body of another shape is refused
    /// here; options that do not hold are [`OriginCheck::verdict`]'s business.
    pub fn from_body(body: &Value, scope: DatasetScope) -> Result<Self, Error> {
        let shape = |path: &str, message: String| Error::Invalid {
            problems: vec![Problem::new(path, ProblemCode::InvalidType, message)],
        };
        let Some(obj) = body.as_object() else {
            return Err(shape(
                "",
                format!(
                    "the body is a JSON object {{\"logpull_options\": ...}}, not {}",
                    json_kind(body)
                ),
            ));
        };
        let options = match obj.get("logpull_options") {
            None => {
                return Err(Error::Invalid {
                    problems: vec![Problem::new(
                        "logpull_options",
                        ProblemCode::MissingMember,
                        "`logpull_options` is required (a string, or null)",
                    )],
                })
            }
            Some(Value::Null) => None,
            Some(Value::String(text)) => Some(text.clone()),
            Some(other) => {
                return Err(shape(
                    "logpull_options",
                    format!("`logpull_options` takes a string or null, not {}", json_kind(other)),
                ))
            }
        };
        let dataset = match obj.get("dataset") {
            None | Some(Value::Null) => None,
            Some(Value::String(name)) => Some(Dataset::get(name, Some(scope))?),
            Some(other) => {
                return Err(shape(
                    "dataset",
                    format!("`dataset` takes a string, not {}", json_kind(other)),
                ))
            }
        };
        Ok(OriginCheck { options, dataset })
    }

    /// Whether the options hold: they parse, and name only fields of the dataset when one is
    /// named. No options (`null`) hold.
    pub fn verdict(&self) -> Result<(), Error> {
        let Some(text) = &self.options else { return Ok(()) };
        let options = LogpullOptions::parse(text)?;
        let problems = self.dataset.map(|d| options.problems(d)).unwrap_or_default();
        if problems.is_empty() {
            Ok(())
        } else {
            Err(Error::Invalid { problems })
        }
    }

    /// The options' query string, if any.
    pub fn options(&self) -> Option<&str> {
        self.options.as_deref()
    }

    /// The dataset named, if any.
    pub fn dataset(&self) -> Option<&'static Dataset> {
        self.dataset
    }

    /// The body: `{"logpull_options": ..., "dataset"?: ...}`.
    pub fn to_body(&self) -> Value {
        let mut body = json!({ "logpull_options": self.options });
        if let Some(d) = self.dataset {
            body["dataset"] = d.name().into();
        }
        body
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_are_checked_against_the_dataset_named() {
        let zone = DatasetScope::Zone;
        let options = LogpullOptions::parse("fields=RayID,ClientIP,EdgeStartTimestamp&timestamps=rfc3339").unwrap();
        let check = OriginCheck::new(Some(&options), Some("http_requests"), zone).unwrap();
        // The docs' example body.
        assert_eq!(
            check.to_body(),
            json!({
                "logpull_options": "fields=RayID,ClientIP,EdgeStartTimestamp&timestamps=rfc3339",
                "dataset": "http_requests"
            })
        );
        assert_eq!(OriginCheck::from_body(&check.to_body(), zone).unwrap(), check);
        // The SDK's: no dataset, or null options.
        assert_eq!(
            OriginCheck::new(Some(&options), None, zone).unwrap().to_body(),
            json!({"logpull_options": "fields=RayID,ClientIP,EdgeStartTimestamp&timestamps=rfc3339"})
        );
        assert_eq!(
            OriginCheck::new(None, None, zone).unwrap().to_body(),
            json!({"logpull_options": null})
        );
        // Refused before sending: a field the dataset lacks, a dataset of the other scope.
        let typo = LogpullOptions::parse("fields=RayID,ClientIPP").unwrap();
        let err = OriginCheck::new(Some(&typo), Some("http_requests"), zone).unwrap_err();
        assert!(err.to_string().contains("logpull_options.fields[1]"), "{err}");
        assert!(
            OriginCheck::new(Some(&typo), None, zone).is_ok(),
            "no dataset: fields unchecked"
        );
        let err = OriginCheck::new(Some(&options), Some("gateway_dns"), zone).unwrap_err();
        assert!(
            err.to_string()
                .contains("`gateway_dns` is an account dataset: use it on an account"),
            "{err}"
        );
        let err = OriginCheck::new(Some(&options), Some("gateway_dnss"), zone).unwrap_err();
        assert!(matches!(err, Error::UnknownDataset { .. }), "{err}");
    }

    #[test]
    fn bodies_of_another_shape_are_refused_and_options_judged() {
        let zone = DatasetScope::Zone;
        for (body, said) in [
            (json!({}), "`logpull_options` is required"),
            (json!({"logpull_options": 5}), "takes a string or null, not a number"),
            (
                json!({"logpull_options": null, "dataset": 5}),
                "`dataset` takes a string",
            ),
            (json!([]), "not an array"),
        ] {
            let err = OriginCheck::from_body(&body, zone).unwrap_err();
            assert!(err.to_string().contains(said), "{body}: {err}");
        }
        let read = |body: Value| OriginCheck::from_body(&body, zone).unwrap().verdict();
        assert!(read(json!({"logpull_options": null})).is_ok());
        assert!(read(json!({"logpull_options": "fields=RayID,Nope"})).is_ok());
        let err = read(json!({"logpull_options": "fields=RayID,Nope", "dataset": "http_requests"})).unwrap_err();
        assert!(
            err.to_string().contains("`Nope` is not a field of http_requests"),
            "{err}"
        );
        assert!(read(json!({"logpull_options": "fields=RayID&timestamps=weekly"})).is_err());
    }
}
