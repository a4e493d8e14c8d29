//! The one error type of escpush-http.

use escpush_core::ApiMessage;

/// Everything a request can end with, other than success. No variant's message carries an
/// API key, a token or an ESC secret.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// Refused before anything was sent (an id, a secret, a credential, the base URL).
    #[error(transparent)]
    Core(escpush_core::Error),
    /// The API answered with an error status (after any retries) or `success: false`.
    #[error("the API answered HTTP {status}{}", format_errors(errors))]
    Api { status: u16, errors: Vec<ApiMessage> },
    /// The answer could not be read: not JSON, or not the expected shape.
    #[error("malformed response{}: {message}", status.map_or(String::new(), |s| format!(" (HTTP {s})")))]
    MalformedResponse { status: Option<u16>, message: String },
    /// The answer's body was larger than the configured cap.
    #[error("the response body is larger than the cap of {limit} bytes")]
    ResponseTooLarge { limit: u64 },
    /// The request or the answer took longer than a timeout.
    #[error("timed out: {message}")]
    Timeout { message: String },
    /// No connection, a dropped connection, TLS or another failure below HTTP.
    #[error("transport error: {message}")]
    Transport { message: String },
}

fn format_errors(errors: &[ApiMessage]) -> String {
    if errors.is_empty() {
        return String::new();
    }
    let parts: Vec<String> = errors.iter().map(ToString::to_string).collect();
    format!(": {}", parts.join("; "))
}

impl Error {
    /// The HTTP status of an API error or a malformed response.
    pub fn status(&self) -> Option<u16> {
        match self {
            Error::Api { status, .. } => Some(*status),
            Error::MalformedResponse { status, .. } => *status,
            _ => None,
        }
    }

    /// The envelope's errors of an API error (empty otherwise).
    pub fn api_errors(&self) -> &[ApiMessage] {
        match self {
            Error::Api { errors, .. } => errors,
            _ => &[],
        }
    }
}

impl From<escpush_core::Error> for Error {
    fn from(e: escpush_core::Error) -> Self {
        match e {
            escpush_core::Error::Api { status, errors } => Error::Api { status, errors },
            escpush_core::Error::MalformedResponse { status, message } => Error::MalformedResponse { status, message },
            other => Error::Core(other),
        }
    }
}

impl From<ureq::Error> for Error {
    fn from(e: ureq::Error) -> Self {
        match e {
            ureq::Error::Timeout(t) => Error::Timeout {
                message: format!("{t}"),
            },
            ureq::Error::BodyExceedsLimit(limit) => Error::ResponseTooLarge { limit },
            ureq::Error::Io(io) if io.kind() == std::io::ErrorKind::TimedOut => Error::Timeout {
                message: io.to_string(),
            },
            other => Error::Transport {
                message: other.to_string(),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn core_api_errors_become_api_errors() {
        let e: Error = escpush_core::Error::Api {
            status: 404,
            errors: vec![ApiMessage::new(7003, "no route")],
        }
        .into();
        assert_eq!(e.status(), Some(404));
        assert_eq!(e.api_errors().len(), 1);
        assert_eq!(e.to_string(), "the API answered HTTP 404: [7003] no route");
        let e: Error = escpush_core::Error::InvalidInput {
            what: "zone id",
            message: "must not be empty".into(),
        }
        .into();
        assert!(matches!(e, Error::Core(_)));
        assert_eq!(e.to_string(), "invalid zone id: must not be empty");
    }
}
