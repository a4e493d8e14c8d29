//! A transformer's record-level rules, one owner for the client and the emulator: what a
//! creation and an update must hold ([`TransformerSpec`], [`TransformerUpdate`]), the limits
//! of transformers.mdx, and the refusals of a job that names one ([`job_transformer_refusal`],
//! [`referenced_refusal`], [`FEATURE_UNAVAILABLE`]). Each refusal carries the HTTP status the
//! API answers it with and names its rule and source ([`TransformerRefusal`]). The SQL itself
//! is judged by [`check`](super::check) (the parent module).

use std::fmt;

use serde_json::{Map, Value};

use crate::error::Error;
use escpush_filter::json_kind;

/// The longest name, in bytes (transformers.mdx, Limits: "Transformer name length 255 bytes").
pub const MAX_NAME_BYTES: usize = 255;

/// The longest description, in bytes (transformers.mdx, Limits: "Transformer description
/// length 4,096 bytes").
pub const MAX_DESCRIPTION_BYTES: usize = 4096;

/// Where the limits are written.
const LIMITS: &str = "transformers.mdx, Limits";
/// Where the API's errors are written.
const ERRORS: &str = "transformers.mdx, API errors";

/// One rule of a transformer or of a job that names one: its words and where they are
/// written (printed in docs/job-rules.md).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct RecordRule {
    pub rule: &'static str,
    pub source: &'static str,
}

/// Every record-level rule of a transformer, as escpush enforces it before sending and the
/// emulator answers it (the SQL's own rules are [`check`](super::check)'s).
pub const RECORD_RULES: &[RecordRule] = &[
    RecordRule {
        rule: "A creation holds `name` and a non-empty `code` (400 \"missing required field: name\" / \"code\"); an \
               update holds `name`, and `code` when the SQL changes (a new version).",
        source: "transformers.mdx, API errors; SDK 5.9 TransformerCreateParams, TransformerUpdateParams",
    },
    RecordRule {
        rule: "`name` is at most 255 bytes, `description` at most 4,096 bytes.",
        source: LIMITS,
    },
    RecordRule {
        rule: "`code` is at most MAX_CODE_BYTES (413 past it), one SELECT checked against its dataset.",
        source: "transformers.mdx, Limits and Validation; SDK 5.9 (\"Maximum 32 KB\")",
    },
    RecordRule {
        rule: "A job's `transformer_id` names a transformer of the account (400 \"transformer N not found for this \
               account\") whose dataset is the job's (400 \"transformer N dataset \\\"X\\\" does not match job \
               dataset \\\"Y\\\"\"); `null` detaches it.",
        source: "transformers.mdx, API errors and API (\"set transformer_id on the Logpush job\")",
    },
    RecordRule {
        rule: "Only a job whose output is ndjson takes a transformer (not output_type csv).",
        source: "transformers.mdx, Before you begin (\"Transformers are only available for NDJSON jobs\")",
    },
    RecordRule {
        rule: "A transformer referenced by a job cannot be deleted (409).",
        source: "transformers.mdx, Transformer Studio; SDK 5.9 transformers.delete (\"Returns 409 Conflict\")",
    },
    RecordRule {
        rule: "An account without the feature is answered 403 \"transformer feature is not available for this \
               account\".",
        source: ERRORS,
    },
];

/// A refusal of a transformer rule: the status the API answers it with, the field it is
/// about, and its message, which names the rule's source.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct TransformerRefusal {
    /// The API's status: 400, 403, 404, 409 or 413.
    pub status: u16,
    /// The field the rule is about (`name`, `code`, `transformer_id`, ...).
    pub field: &'static str,
    /// The message, ending with its source in parentheses.
    pub message: String,
}

impl TransformerRefusal {
    fn new(status: u16, field: &'static str, message: impl fmt::Display, source: &str) -> Self {
        TransformerRefusal {
            status,
            field,
            message: format!("{message} ({source})"),
        }
    }
}

impl fmt::Display for TransformerRefusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl From<TransformerRefusal> for Error {
    fn from(r: TransformerRefusal) -> Error {
        Error::InvalidInput {
            what: r.field,
            message: r.message,
        }
    }
}

/// 403: the account lacks the feature (transformers.mdx, API errors).
pub const FEATURE_UNAVAILABLE: &str = "transformer feature is not available for this account";

/// The 403 refusal of an account without the feature.
pub fn feature_refusal() -> TransformerRefusal {
    TransformerRefusal::new(403, "account", FEATURE_UNAVAILABLE, ERRORS)
}

fn missing(field: &'static str) -> TransformerRefusal {
    TransformerRefusal::new(400, field, format!("missing required field: {field}"), ERRORS)
}

fn too_long(field: &'static str, given: usize, most: usize) -> TransformerRefusal {
    TransformerRefusal::new(
        400,
        field,
        format!("{field} is {given} bytes, more than the {most} a transformer's {field} may hold"),
        LIMITS,
    )
}

fn name_problem(name: &str) -> Option<TransformerRefusal> {
    if name.is_empty() {
        return Some(missing("name"));
    }
    (name.len() > MAX_NAME_BYTES).then(|| too_long("name", name.len(), MAX_NAME_BYTES))
}

fn description_problem(description: Option<&str>) -> Option<TransformerRefusal> {
    let d = description?;
    (d.len() > MAX_DESCRIPTION_BYTES).then(|| too_long("description", d.len(), MAX_DESCRIPTION_BYTES))
}

/// The refusal of `code`: empty (400 "missing required field: code"), or SQL that
/// [`check`](super::check) refuses (413 past [`MAX_CODE_BYTES`](super::MAX_CODE_BYTES), else
/// 400, every problem with its line and column). Gives its dataset otherwise.
pub fn code_problem(code: &str) -> Result<Option<String>, TransformerRefusal> {
    if code.trim().is_empty() {
        return Err(missing("code"));
    }
    match super::check(code) {
        Ok(checked) => Ok(Some(checked.dataset().to_owned())),
        // Each problem names its rule and source (core's TRANSFORMER_RULES); 413 for the size.
        Err(problems) => Err(TransformerRefusal {
            status: problems.status(),
            field: "code",
            message: problems.to_string(),
        }),
    }
}

/// A transformer's creation `{name, code, description?}`, checked: every rule of
/// [`RECORD_RULES`] that a creation can break, and the SQL by [`check`](super::check).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TransformerSpec {
    name: String,
    code: String,
    description: Option<String>,
    dataset: Option<String>,
}

impl TransformerSpec {
    /// Checks a creation; the first rule broken is the refusal (the API answers one error).
    pub fn new(name: &str, code: &str, description: Option<&str>) -> Result<Self, TransformerRefusal> {
        if let Some(r) = name_problem(name).or_else(|| description_problem(description)) {
            return Err(r);
        }
        let dataset = code_problem(code)?;
        Ok(TransformerSpec {
            name: name.to_owned(),
            code: code.to_owned(),
            description: description.map(str::to_owned),
            dataset,
        })
    }

    /// Reads a creation body as the API does (the emulator's reading): `name` and `code`
    /// required, text; `description` optional text (or `null`).
    pub fn from_body(body: &Map<String, Value>) -> Result<Self, TransformerRefusal> {
        let name = text(body, "name")?.ok_or_else(|| missing("name"))?;
        let code = text(body, "code")?.ok_or_else(|| missing("code"))?;
        let description = text(body, "description")?;
        TransformerSpec::new(name, code, description)
    }

    /// The body sent.
    pub fn to_body(&self) -> Value {
        let mut body = Map::new();
        body.insert("name".to_owned(), self.name.clone().into());
        body.insert("code".to_owned(), self.code.clone().into());
        if let Some(d) = &self.description {
            body.insert("description".to_owned(), d.clone().into());
        }
        Value::Object(body)
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    pub fn code(&self) -> &str {
        &self.code
    }

    pub fn description(&self) -> Option<&str> {
        self.description.as_deref()
    }

    /// The dataset its `FROM` names (from [`check`](super::check)).
    pub fn dataset(&self) -> Option<&str> {
        self.dataset.as_deref()
    }
}

/// A transformer's update `PUT {name, code?, description?}` (SDK 5.9: `name` required; with
/// `code` the SQL is checked and a new version saved; "Omitting `description` clears the
/// existing description").
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TransformerUpdate {
    id: u64,
    name: String,
    code: Option<String>,
    description: Option<String>,
    dataset: Option<String>,
}

impl TransformerUpdate {
    /// Checks an update of transformer `id`.
    pub fn new(id: u64, name: &str, code: Option<&str>, description: Option<&str>) -> Result<Self, TransformerRefusal> {
        if let Some(r) = name_problem(name).or_else(|| description_problem(description)) {
            return Err(r);
        }
        let dataset = match code {
            Some(code) => code_problem(code)?,
            None => None,
        };
        Ok(TransformerUpdate {
            id,
            name: name.to_owned(),
            code: code.map(str::to_owned),
            description: description.map(str::to_owned),
            dataset,
        })
    }

    /// Reads an update body as the API does (the emulator's reading).
    pub fn from_body(id: u64, body: &Map<String, Value>) -> Result<Self, TransformerRefusal> {
        let name = text(body, "name")?.ok_or_else(|| missing("name"))?;
        let code = text(body, "code")?;
        let description = text(body, "description")?;
        TransformerUpdate::new(id, name, code, description)
    }

    /// The body sent.
    pub fn to_body(&self) -> Value {
        let mut body = Map::new();
        body.insert("name".to_owned(), self.name.clone().into());
        if let Some(c) = &self.code {
            body.insert("code".to_owned(), c.clone().into());
        }
        if let Some(d) = &self.description {
            body.insert("description".to_owned(), d.clone().into());
        }
        Value::Object(body)
    }

    pub fn id(&self) -> u64 {
        self.id
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    pub fn code(&self) -> Option<&str> {
        self.code.as_deref()
    }

    pub fn description(&self) -> Option<&str> {
        self.description.as_deref()
    }

    /// The dataset of the new SQL, when `code` is given.
    pub fn dataset(&self) -> Option<&str> {
        self.dataset.as_deref()
    }
}

/// A member that is text, absent (or `null`), or refused naming its kind.
fn text<'b>(body: &'b Map<String, Value>, key: &'static str) -> Result<Option<&'b str>, TransformerRefusal> {
    match body.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(other) => Err(TransformerRefusal::new(
            400,
            key,
            format!("{key} is {}, not a string", json_kind(other)),
            "SDK 5.9 TransformerCreateParams",
        )),
    }
}

/// The refusal of a job naming transformer `id` (its `transformer_id`): `found` is the
/// dataset of the account's transformer of that id (`None`: the account has none; `Some(None)`:
/// a transformer whose dataset is not known), `job_dataset` the job's. `None`: accepted.
pub fn job_transformer_refusal(id: u64, found: Option<Option<&str>>, job_dataset: &str) -> Option<TransformerRefusal> {
    match found {
        None => Some(TransformerRefusal::new(
            400,
            "transformer_id",
            format!("transformer {id} not found for this account"),
            ERRORS,
        )),
        Some(Some(dataset)) if dataset != job_dataset => Some(TransformerRefusal::new(
            400,
            "transformer_id",
            format!("transformer {id} dataset \"{dataset}\" does not match job dataset \"{job_dataset}\""),
            ERRORS,
        )),
        Some(_) => None,
    }
}

/// The 409 refusal of deleting transformer `id` while the jobs `jobs` reference it.
pub fn referenced_refusal(id: u64, jobs: &[u64]) -> TransformerRefusal {
    let list: Vec<String> = jobs.iter().map(u64::to_string).collect();
    TransformerRefusal::new(
        409,
        "transformer_id",
        format!(
            "transformer {id} is referenced by job(s) {}; detach it (transformer_id: null) before deleting it",
            list.join(", ")
        ),
        "transformers.mdx, Transformer Studio (\"cannot be deleted while any Logpush job references it\"); SDK 5.9 \
         transformers.delete (409)",
    )
}

/// The refusal of a job `transformer_id` on a job whose output is not ndjson (`output_type`
/// of its `output_options`), or `None`.
pub fn ndjson_refusal(output_options: Option<&Value>) -> Option<TransformerRefusal> {
    let ty = output_options
        .and_then(|o| o.get("output_type"))
        .and_then(Value::as_str)?;
    (ty != "ndjson").then(|| {
        TransformerRefusal::new(
            400,
            "transformer_id",
            format!(
                "a job with output_type \"{ty}\" takes no transformer: transformers are only available for ndjson jobs"
            ),
            "transformers.mdx, Before you begin",
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn body(v: &Value) -> Map<String, Value> {
        v.as_object().unwrap().clone()
    }

    #[test]
    fn a_creation_needs_name_and_code_within_the_limits() {
        let err =
            TransformerSpec::from_body(&body(&json!({"code": "SELECT ClientIP FROM http_requests"}))).unwrap_err();
        assert_eq!(err.status, 400);
        assert!(err.message.starts_with("missing required field: name ("), "{err}");
        let err = TransformerSpec::from_body(&body(&json!({"name": "n"}))).unwrap_err();
        assert!(err.message.starts_with("missing required field: code ("), "{err}");
        let err = TransformerSpec::new(&"n".repeat(256), "SELECT ClientIP FROM http_requests", None).unwrap_err();
        assert!(
            err.message.contains("255") && err.message.contains("transformers.mdx"),
            "{err}"
        );
        let err = TransformerSpec::new("n", "SELECT ClientIP FROM http_requests", Some(&"d".repeat(4097))).unwrap_err();
        assert_eq!(err.field, "description");
        let big = format!(
            "SELECT ClientIP FROM http_requests WHERE ClientIP = '{}'",
            "x".repeat(super::super::MAX_CODE_BYTES)
        );
        assert_eq!(TransformerSpec::new("n", &big, None).unwrap_err().status, 413);
        let ok = TransformerSpec::new(
            &"n".repeat(255),
            "SELECT ClientIP FROM http_requests",
            Some(&"d".repeat(4096)),
        )
        .unwrap();
        assert_eq!(ok.dataset(), Some("http_requests"));
    }

    #[test]
    fn a_job_names_a_transformer_of_its_dataset() {
        let r = job_transformer_refusal(7, None, "http_requests").unwrap();
        assert!(
            r.message.starts_with("transformer 7 not found for this account ("),
            "{r}"
        );
        let r = job_transformer_refusal(7, Some(Some("dns_logs")), "http_requests").unwrap();
        assert!(r
            .message
            .starts_with("transformer 7 dataset \"dns_logs\" does not match job dataset \"http_requests\""));
        assert_eq!(
            job_transformer_refusal(7, Some(Some("http_requests")), "http_requests"),
            None
        );
        assert_eq!(referenced_refusal(7, &[1, 2]).status, 409);
        assert!(ndjson_refusal(Some(&json!({"output_type": "csv"}))).is_some());
        assert!(ndjson_refusal(Some(&json!({"output_type": "ndjson"}))).is_none());
        assert!(ndjson_refusal(None).is_none());
    }
}
