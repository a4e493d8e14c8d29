//! The one error type of escpush-http. What the core decides (a refused argument, the API's
//! error answer, a malformed answer) stays core's error, wrapped in [`Error::Core`]; the
//! other variants are what only a transport can meet.

use std::time::{Duration, SystemTime};

use escpush_core::ApiMessage;

/// Everything a request can end with, other than success. No variant's message carries an
/// API key, a token, an ESC secret or an ownership challenge of the call: the client scrubs
/// them from the answer's text before it becomes an error.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// Refused before anything was sent (an id, a secret, a credential, the base URL), the
    /// API's error answer ([`escpush_core::Error::Api`], after any retries) or an answer that
    /// is not what was expected ([`escpush_core::Error::MalformedResponse`]).
    #[error(transparent)]
    Core(escpush_core::Error),
    /// The API's error answer asked to retry after `retry_after`, later than the call may
    /// wait (its deadline, or the retries ran out): `error` is the answer.
    #[error("{error}; it asks to retry in {} s (after {}){reason}", retry_after.as_secs(), httpdate::fmt_http_date(*at))]
    RetryLater {
        error: escpush_core::Error,
        retry_after: Duration,
        /// When the API may be asked again.
        at: SystemTime,
        /// Why the client stopped, e.g. "; the call's timeout of 1 s ends before that".
        reason: String,
    },
    /// The connection failed after a request that is not safe to repeat was sent: it may
    /// have taken effect. `check` says how to find out.
    #[error("{cause}; the request was sent, so it may have taken effect: {check}")]
    OutcomeUnknown { cause: Box<Error>, check: String },
    /// The answer's body was larger than the configured cap.
    #[error("the response body is larger than the cap of {limit} bytes")]
    ResponseTooLarge { limit: u64 },
    /// The call (every attempt, retry and wait included) took longer than its timeout.
    #[error("timed out: {message}")]
    Timeout { message: String },
    /// No connection, a dropped connection, TLS or another failure below HTTP.
    #[error("transport error: {message}")]
    Transport { message: String },
    /// A plan's writes stopped part-way ([`Client::apply_plan`](crate::Client::apply_plan)):
    /// `error` is the failure of the write of entry `failed`; `done` says, entry by entry,
    /// which were written (`ids` the job ids their writes gave), and `progress` says it in
    /// words (core's [`escpush_core::Plan::progress`]).
    #[error("{error}; {progress}")]
    PlanStopped {
        error: Box<Error>,
        failed: usize,
        done: Vec<bool>,
        ids: Vec<Option<u64>>,
        progress: String,
    },
}

impl Error {
    /// The name of each variant, for tests that check every one is handled (the Python
    /// binding raises each through `_raise_error`). [`Error::variant_name`] matches without
    /// a wildcard, so a new variant does not compile until it is named here too.
    pub const VARIANT_NAMES: &'static [&'static str] = &[
        "Core",
        "RetryLater",
        "OutcomeUnknown",
        "ResponseTooLarge",
        "Timeout",
        "Transport",
        "PlanStopped",
    ];

    /// This error's variant name, one of [`Error::VARIANT_NAMES`].
    pub fn variant_name(&self) -> &'static str {
        match self {
            Error::Core(_) => "Core",
            Error::RetryLater { .. } => "RetryLater",
            Error::OutcomeUnknown { .. } => "OutcomeUnknown",
            Error::ResponseTooLarge { .. } => "ResponseTooLarge",
            Error::Timeout { .. } => "Timeout",
            Error::Transport { .. } => "Transport",
            Error::PlanStopped { .. } => "PlanStopped",
        }
    }

    /// The HTTP status of an API error or a malformed response.
    pub fn status(&self) -> Option<u16> {
        match self {
            Error::Core(escpush_core::Error::Api { status, .. })
            | Error::RetryLater {
                error: escpush_core::Error::Api { status, .. },
                ..
            } => Some(*status),
            Error::Core(escpush_core::Error::MalformedResponse { status, .. }) => *status,
            Error::OutcomeUnknown { cause, .. } | Error::PlanStopped { error: cause, .. } => cause.status(),
            _ => None,
        }
    }

    /// The envelope's errors of an API error (empty otherwise).
    pub fn api_errors(&self) -> &[ApiMessage] {
        match self {
            Error::Core(escpush_core::Error::Api { errors, .. })
            | Error::RetryLater {
                error: escpush_core::Error::Api { errors, .. },
                ..
            } => errors,
            Error::PlanStopped { error, .. } => error.api_errors(),
            _ => &[],
        }
    }

    /// Whether the API answered with an error status (possibly after retries).
    pub fn is_api(&self) -> bool {
        match self {
            Error::PlanStopped { error, .. } => error.is_api(),
            other => matches!(
                other,
                Error::Core(escpush_core::Error::Api { .. }) | Error::RetryLater { .. }
            ),
        }
    }

    /// Whether the answer could not be read as what was expected.
    pub fn is_malformed_response(&self) -> bool {
        matches!(self, Error::Core(escpush_core::Error::MalformedResponse { .. }))
    }

    /// The error with `f` applied to every text that came from the network (the API's
    /// messages, a malformed answer's description, a transport failure).
    #[must_use]
    pub(crate) fn map_text(self, f: &impl Fn(&str) -> String) -> Error {
        let core = |e: escpush_core::Error| match e {
            escpush_core::Error::Api { status, errors } => escpush_core::Error::Api {
                status,
                errors: errors
                    .into_iter()
                    .map(|m| ApiMessage::new(m.code, f(&m.message)))
                    .collect(),
            },
            escpush_core::Error::MalformedResponse { status, message } => escpush_core::Error::MalformedResponse {
                status,
                message: f(&message),
            },
            other => other,
        };
        match self {
            Error::Core(e) => Error::Core(core(e)),
            Error::RetryLater {
                error,
                retry_after,
                at,
                reason,
            } => Error::RetryLater {
                error: core(error),
                retry_after,
                at,
                reason,
            },
            Error::OutcomeUnknown { cause, check } => Error::OutcomeUnknown {
                cause: Box::new(cause.map_text(f)),
                check,
            },
            Error::Timeout { message } => Error::Timeout { message: f(&message) },
            Error::Transport { message } => Error::Transport { message: f(&message) },
            Error::PlanStopped {
                error,
                failed,
                done,
                ids,
                progress,
            } => Error::PlanStopped {
                error: Box::new(error.map_text(f)),
                failed,
                done,
                ids,
                progress,
            },
            other @ Error::ResponseTooLarge { .. } => other,
        }
    }
}

impl From<escpush_core::Error> for Error {
    fn from(e: escpush_core::Error) -> Self {
        Error::Core(e)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One of each variant: a new variant fails to compile in `variant_name` and then here.
    pub(crate) fn one_of_each() -> Vec<Error> {
        let api = || escpush_core::Error::Api {
            status: 429,
            errors: vec![ApiMessage::new(10_429, "slow down")],
        };
        vec![
            Error::Core(api()),
            Error::RetryLater {
                error: api(),
                retry_after: Duration::from_secs(5),
                at: SystemTime::UNIX_EPOCH,
                reason: String::new(),
            },
            Error::OutcomeUnknown {
                cause: Box::new(Error::Transport {
                    message: "closed".into(),
                }),
                check: "look".into(),
            },
            Error::ResponseTooLarge { limit: 1 },
            Error::Timeout { message: "late".into() },
            Error::Transport { message: "gone".into() },
            Error::PlanStopped {
                error: Box::new(Error::Core(api())),
                failed: 1,
                done: vec![true, false],
                ids: vec![Some(7), None],
                progress: "before it, apply created `a` (job 7)".into(),
            },
        ]
    }

    #[test]
    fn every_variant_is_named_once() {
        let names: Vec<&str> = one_of_each().iter().map(Error::variant_name).collect();
        assert_eq!(names, Error::VARIANT_NAMES);
    }

    #[test]
    fn core_errors_are_wrapped_with_their_accessors() {
        let e: Error = escpush_core::Error::Api {
            status: 404,
            errors: vec![ApiMessage::new(7003, "no route")],
        }
        .into();
        assert_eq!(e.status(), Some(404));
        assert_eq!(e.api_errors().len(), 1);
        assert!(e.is_api());
        assert_eq!(e.to_string(), "the API answered HTTP 404: [7003] no route");
        let e: Error = escpush_core::Error::InvalidInput {
            what: "zone id",
            message: "must not be empty".into(),
        }
        .into();
        assert!(matches!(e, Error::Core(_)) && !e.is_api() && e.status().is_none());
        assert_eq!(e.to_string(), "invalid zone id: must not be empty");
        let later = &one_of_each()[1];
        assert_eq!((later.status(), later.api_errors().len()), (Some(429), 1));
        assert!(
            later.to_string().starts_with(
                "the API answered HTTP 429: [10429] slow down; it asks to retry in 5 s (after Thu, 01 Jan 1970"
            ),
            "{later}"
        );
    }

    #[test]
    fn map_text_reaches_every_text() {
        for e in one_of_each() {
            let shown = e.map_text(&|s: &str| s.replace(['s', 'l', 'g', 'c'], "#")).to_string();
            for word in ["slow", "closed", "late", "gone"] {
                assert!(!shown.contains(word), "{shown}");
            }
        }
    }
}
