//! Requests as the core describes them: a method, a path relative to the base URL, an
//! optional JSON body and whether it may be sent again. A transport executes them; the
//! endpoint table (`endpoints.rs`) makes them.

use std::fmt;

use serde_json::Value;

/// The HTTP methods the API areas of escpush use.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Method {
    Get,
    Post,
    Put,
    Delete,
}

impl Method {
    /// `"GET"`, `"POST"`, `"PUT"` or `"DELETE"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Method::Get => "GET",
            Method::Post => "POST",
            Method::Put => "PUT",
            Method::Delete => "DELETE",
        }
    }
}

impl fmt::Display for Method {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Whether a transport may send a request again after a failure (429, 5xx, a lost
/// connection). Each endpoint's class, and the reason for it, is its row of the endpoint
/// table ([`Endpoint::retry`](crate::Endpoint::retry)); a transport reads only the class.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum RetryClass {
    /// Repeating it cannot change the outcome: sent again after a 429, a 5xx or a lost
    /// connection.
    Safe,
    /// Each time the API processes it, it may add something (a job): sent again only when
    /// it cannot have been processed (after a 429, or when no connection was made).
    WhenUnprocessed,
}

impl RetryClass {
    /// Whether repeating the request cannot change its outcome.
    pub fn is_safe(self) -> bool {
        matches!(self, RetryClass::Safe)
    }
}

/// One request to the v4 API, described but not sent.
#[derive(Clone, PartialEq)]
#[non_exhaustive]
pub struct Request {
    pub method: Method,
    /// Relative to the base URL, starting with `/` (`/zones/{id}/disable_esc`).
    pub path: String,
    /// The JSON body, sent with `Content-Type: application/json`.
    pub body: Option<Value>,
    /// Whether a transport may send it again after a failure.
    pub retry: RetryClass,
    /// Whether the body carries a secret (its `Debug` hides the body then).
    pub carries_secret: bool,
    /// For a request not safe to repeat, how to find out whether it took effect when its
    /// answer was lost ([`Endpoint::outcome_check`](crate::Endpoint::outcome_check), or the
    /// operation's own words): a transport says it after "the request was sent, so it may
    /// have taken effect".
    pub outcome_check: Option<String>,
    /// The status that, answering a repeat of this request after an attempt that may have
    /// taken effect (its answer lost, or a 5xx), means that attempt did it: a `DELETE`'s 404
    /// (the job is gone). A transport then ends the call as done, with
    /// [`Request::DONE_BY_EARLIER_ATTEMPT`] as the answer, and says so
    /// ([`Endpoint::done_on_repeat`](crate::Endpoint::done_on_repeat)).
    pub done_on_repeat: Option<u16>,
}

impl Request {
    /// A request without body, sent again only when it cannot have been processed
    /// ([`RetryClass::WhenUnprocessed`]). The API's requests come from the endpoint table
    /// ([`Endpoint::request`](crate::Endpoint::request)), which sets their class.
    pub fn new(method: Method, path: impl Into<String>) -> Self {
        Request {
            method,
            path: path.into(),
            body: None,
            retry: RetryClass::WhenUnprocessed,
            carries_secret: false,
            outcome_check: None,
            done_on_repeat: None,
        }
    }

    /// The answer a transport reads when a repeat met [`Request::done_on_repeat`]: a success
    /// with no `result` (the earlier attempt's answer, and what it held, were lost).
    pub const DONE_BY_EARLIER_ATTEMPT: &'static [u8] = br#"{"success":true,"errors":[],"messages":[],"result":null}"#;

    /// Sets [`Request::done_on_repeat`].
    #[must_use]
    pub fn with_done_on_repeat(mut self, status: Option<u16>) -> Self {
        self.done_on_repeat = status;
        self
    }

    /// Sets the JSON body.
    #[must_use]
    pub fn with_body(mut self, body: Value) -> Self {
        self.body = Some(body);
        self
    }

    /// Sets whether the request may be sent again.
    #[must_use]
    pub fn with_retry(mut self, class: RetryClass) -> Self {
        self.retry = class;
        self
    }

    /// Sets how to find out whether the request took effect when its answer was lost.
    #[must_use]
    pub fn with_outcome_check(mut self, check: impl Into<String>) -> Self {
        self.outcome_check = Some(check.into());
        self
    }

    /// Marks the body as holding a secret.
    #[must_use]
    pub fn with_secret(mut self) -> Self {
        self.carries_secret = true;
        self
    }

    /// The body as compact JSON bytes, if there is one.
    pub fn body_bytes(&self) -> Option<Vec<u8>> {
        self.body.as_ref().map(|b| serde_json::to_vec(b).unwrap_or_default())
    }
}

impl fmt::Debug for Request {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut d = f.debug_struct("Request");
        d.field("method", &self.method).field("path", &self.path);
        match (&self.body, self.carries_secret) {
            (Some(_), true) => d.field("body", &"<redacted>"),
            (body, _) => d.field("body", body),
        };
        d.field("retry", &self.retry)
            .field("outcome_check", &self.outcome_check)
            .field("done_on_repeat", &self.done_on_repeat)
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_hides_secret_bodies() {
        let r = Request::new(Method::Post, "/x")
            .with_body(serde_json::json!({"with_secret": "zzz"}))
            .with_secret();
        assert!(!format!("{r:?}").contains("zzz"));
        let r = Request::new(Method::Post, "/x").with_body(serde_json::json!({"always": true}));
        assert!(format!("{r:?}").contains("always"));
        assert_eq!(Method::Delete.to_string(), "DELETE");
        assert_eq!(Method::Put.as_str(), "PUT");
    }
}
