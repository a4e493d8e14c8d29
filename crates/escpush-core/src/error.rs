//! The one error type of escpush-core, and the API's error entries it carries.

use std::fmt;

use serde::{Deserialize, Serialize};

use escpush_filter::shown;
use escpush_filter::DatasetScope;
use escpush_filter::{FilterError, Problem};

/// Everything escpush-core can refuse.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A filter that is malformed, over the limits or does not fit its dataset.
    #[error(transparent)]
    Filter(#[from] FilterError),
    /// A dataset name that no embedded schema has. Its message is escpush-filter's (the one
    /// wording of this refusal, whichever crate raises it).
    #[error(
        "{}",
        escpush_filter::Error::UnknownDataset { name: name.clone(), scope: *scope, suggestion: suggestion.clone() }
    )]
    UnknownDataset {
        name: String,
        /// The scope the name was looked up in, if one was given.
        scope: Option<DatasetScope>,
        suggestion: Option<String>,
    },
    /// Input refused before anything was sent, with every problem found (a log-push job's
    /// fields, `logpull_options`, `destination_conf`, ...), each with its path.
    #[error("{}", escpush_filter::describe_problems("invalid input", problems))]
    Invalid { problems: Vec<Problem> },
    /// An argument refused before anything was sent; `what` names the argument. Its message
    /// is escpush-filter's, as for [`Error::UnknownDataset`].
    #[error("{}", escpush_filter::Error::InvalidInput { what, message: message.clone() })]
    InvalidInput { what: &'static str, message: String },
    /// The API answered with an error status or `success: false`; `errors` are the
    /// envelope's `{code, message}` entries (empty when the body had none).
    #[error("the API answered HTTP {status}{}", format_api_errors(errors))]
    Api { status: u16, errors: Vec<ApiMessage> },
    /// An answer whose body could not be read as what was expected.
    #[error(
        "malformed response{}: {}",
        status.map_or(String::new(), |s| format!(" (HTTP {s})")),
        shown::message(message)
    )]
    MalformedResponse { status: Option<u16>, message: String },
}

impl Error {
    /// The name of each variant, for tests that check every one is handled (the Python
    /// binding raises each through `_raise_error`). [`Error::variant_name`] matches without a
    /// wildcard, so a new variant does not compile until it is named there, and the test
    /// below fails until it is named here too.
    pub const VARIANT_NAMES: &'static [&'static str] = &[
        "Filter",
        "UnknownDataset",
        "Invalid",
        "InvalidInput",
        "Api",
        "MalformedResponse",
    ];

    /// This error's variant name, one of [`Error::VARIANT_NAMES`].
    pub fn variant_name(&self) -> &'static str {
        match self {
            Error::Filter(_) => "Filter",
            Error::UnknownDataset { .. } => "UnknownDataset",
            Error::Invalid { .. } => "Invalid",
            Error::InvalidInput { .. } => "InvalidInput",
            Error::Api { .. } => "Api",
            Error::MalformedResponse { .. } => "MalformedResponse",
        }
    }

    /// [`Error::MalformedResponse`] without a status: an answer's body that is not what
    /// the operation returns.
    pub(crate) fn malformed(message: impl Into<String>) -> Error {
        Error::MalformedResponse {
            status: None,
            message: message.into(),
        }
    }
}

/// Each error of the filter language is the variant of the same name, with the same message
/// (a test below holds them to it): a caller of the API sees one error type.
impl From<escpush_filter::Error> for Error {
    fn from(err: escpush_filter::Error) -> Self {
        match err {
            escpush_filter::Error::Filter(e) => Error::Filter(e),
            escpush_filter::Error::UnknownDataset {
                name,
                scope,
                suggestion,
            } => Error::UnknownDataset {
                name,
                scope,
                suggestion,
            },
            escpush_filter::Error::Invalid { problems } => Error::Invalid { problems },
            escpush_filter::Error::InvalidInput { what, message } => Error::InvalidInput { what, message },
        }
    }
}

fn format_api_errors(errors: &[ApiMessage]) -> String {
    if errors.is_empty() {
        return String::new();
    }
    let parts: Vec<String> = errors.iter().map(ToString::to_string).collect();
    format!(": {}", parts.join("; "))
}

/// One entry of the envelope's `errors` or `messages`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ApiMessage {
    #[serde(default)]
    pub code: i64,
    #[serde(default)]
    pub message: String,
}

impl ApiMessage {
    /// An entry from its two parts.
    pub fn new(code: i64, message: impl Into<String>) -> Self {
        ApiMessage {
            code,
            message: message.into(),
        }
    }
}

impl fmt::Display for ApiMessage {
    /// `[code] message`, the message's characters that do not print (a server's text is
    /// shown on a terminal too) written as escapes.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "[{}] {}", self.code, shown::message(&self.message))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_variant_is_named_once() {
        let one_of_each = [
            Error::Filter(escpush_filter::Filter::parse("{}").unwrap_err()),
            Error::from(escpush_filter::Dataset::get("no_such_dataset", None).unwrap_err()),
            Error::Invalid { problems: Vec::new() },
            Error::InvalidInput {
                what: "x",
                message: String::new(),
            },
            Error::Api {
                status: 500,
                errors: Vec::new(),
            },
            Error::malformed("x"),
        ];
        let names: Vec<&str> = one_of_each.iter().map(Error::variant_name).collect();
        assert_eq!(names, Error::VARIANT_NAMES);
        // The scope of an unknown dataset is typed, and shown in words.
        let err =
            Error::from(escpush_filter::Dataset::get("no_such_dataset", Some(DatasetScope::Account)).unwrap_err());
        assert!(matches!(
            err,
            Error::UnknownDataset {
                scope: Some(DatasetScope::Account),
                ..
            }
        ));
        assert!(
            err.to_string().starts_with("unknown account dataset `no_such_dataset`"),
            "{err}"
        );
    }

    /// Each error of the filter language becomes core's variant of the same name, with the
    /// same message (escpush-filter has its own `Error` since the crates split, issue 34).
    #[test]
    fn filter_errors_keep_their_variant_and_message() {
        let problem = || escpush_filter::Problem::new("group_by[0]", escpush_filter::ProblemCode::UnknownField, "no");
        let samples = [
            escpush_filter::Error::Filter(escpush_filter::Filter::parse("{}").unwrap_err()),
            escpush_filter::Dataset::get("http_requestz", Some(DatasetScope::Zone)).unwrap_err(),
            escpush_filter::Error::Invalid {
                problems: vec![problem(), problem()],
            },
            "sql-99".parse::<escpush_filter::Dialect>().unwrap_err(),
            "galaxy".parse::<DatasetScope>().unwrap_err(),
        ];
        let names: Vec<&str> = samples.iter().map(|e| Error::from(e.clone()).variant_name()).collect();
        assert_eq!(
            names,
            ["Filter", "UnknownDataset", "Invalid", "InvalidInput", "InvalidInput"]
        );
        for sample in samples {
            assert_eq!(Error::from(sample.clone()).to_string(), sample.to_string());
        }
    }
}
