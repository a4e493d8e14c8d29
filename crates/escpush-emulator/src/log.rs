//! The request log: the most recent requests (a ring with a cap), each with its answer and
//! with its credentials and secrets redacted.

use std::collections::VecDeque;
use std::time::{SystemTime, UNIX_EPOCH};

use escpush_core::{is_secret_header, redact_body};
use escpush_filter::{Secrets, MASK};
use serde_json::{json, Value};

use crate::wire::HttpRequest;

/// How many requests the log keeps by default.
pub const DEFAULT_LOG_CAPACITY: usize = 10_000;

/// One request as the emulator received it, with credentials and secrets redacted.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct LoggedRequest {
    pub method: String,
    /// The path, with the `/client/v4` prefix, without the query.
    pub path: String,
    /// Every header; the values of core's secret headers (`X-Auth-Key`, `Authorization`,
    /// `Cookie`) are `***`.
    pub headers: Vec<(String, String)>,
    /// The JSON body redacted by core (`redact_body`: every `with_secret`, a job's
    /// credentials; a non-JSON body is described, not kept); `None` when there was no body.
    pub body: Option<Value>,
    /// The status answered; `None` when the connection was dropped.
    pub status: Option<u16>,
    /// The JSON body answered, its secrets masked as in `body` (a non-JSON body is
    /// described, not kept); `None` when nothing was answered, when the body was empty, when
    /// a fault made the answer (an echo quotes the request's credentials) and on the
    /// emulator's own control route (it lists the ownership challenges issued). For a check
    /// of the answers against the API's published schema.
    pub answer: Option<Value>,
    /// The injected fault, if any.
    pub fault: Option<String>,
    /// When the whole request had arrived.
    pub received: SystemTime,
}

impl LoggedRequest {
    pub(crate) fn new(req: &HttpRequest, fault: Option<String>) -> Self {
        LoggedRequest {
            method: req.method.clone(),
            path: req.path.clone(),
            headers: req
                .headers
                .iter()
                .map(|(k, v)| {
                    (
                        k.clone(),
                        if is_secret_header(k) {
                            MASK.to_owned()
                        } else {
                            v.clone()
                        },
                    )
                })
                .collect(),
            body: body_shown(&req.body),
            status: None,
            answer: None,
            fault,
            received: SystemTime::now(),
        }
    }

    /// Keeps the body answered to `req`, redacted as a request's body is, and every text in
    /// it masked of the secrets `req` sent (core's `Secrets`: whatever a handler quotes from
    /// the request, no answer in the log shows a credential; see [`LoggedRequest::answer`]).
    pub(crate) fn set_answer(&mut self, req: &HttpRequest, body: &[u8]) {
        let sent = serde_json::from_slice::<Value>(&req.body).unwrap_or(Value::Null);
        let secrets = escpush_core::body_secrets(&sent);
        self.answer = body_shown(body).map(|mut answer| {
            scrub_texts(&mut answer, &secrets);
            answer
        });
    }

    /// The entry as a JSON object (`method`, `path`, `headers`, `body`, `status`, `answer`,
    /// `fault`, `received`: seconds since the Unix epoch, a float).
    pub fn to_json(&self) -> Value {
        let headers: serde_json::Map<String, Value> = self
            .headers
            .iter()
            .map(|(k, v)| (k.to_ascii_lowercase(), Value::String(v.clone())))
            .collect();
        json!({
            "method": self.method,
            "path": self.path,
            "headers": headers,
            "body": self.body,
            "status": self.status,
            "answer": self.answer,
            "fault": self.fault,
            "received": self.received.duration_since(UNIX_EPOCH).map_or(0.0, |d| d.as_secs_f64()),
        })
    }
}

/// Every string of `value` (keys aside) with `secrets` masked.
fn scrub_texts(value: &mut Value, secrets: &Secrets) {
    match value {
        Value::String(text) => *text = secrets.scrub(text),
        Value::Array(items) => items.iter_mut().for_each(|v| scrub_texts(v, secrets)),
        Value::Object(obj) => obj.values_mut().for_each(|v| scrub_texts(v, secrets)),
        _ => {}
    }
}

fn body_shown(body: &[u8]) -> Option<Value> {
    if body.is_empty() {
        return None;
    }
    match serde_json::from_slice::<Value>(body) {
        Ok(mut v) => {
            redact_body(&mut v);
            Some(v)
        }
        Err(_) => Some(Value::String(format!("<{} bytes, not JSON>", body.len()))),
    }
}

/// The most recent requests, oldest first, at most `capacity` of them.
#[derive(Debug)]
pub(crate) struct RequestLog {
    entries: VecDeque<LoggedRequest>,
    capacity: usize,
}

impl RequestLog {
    pub fn new(capacity: usize) -> Self {
        RequestLog {
            entries: VecDeque::with_capacity(capacity.min(1024)),
            capacity,
        }
    }

    /// Adds an entry, forgetting the oldest when the log is full.
    pub fn push(&mut self, entry: LoggedRequest) {
        if self.capacity == 0 {
            return;
        }
        if self.entries.len() == self.capacity {
            self.entries.pop_front();
        }
        self.entries.push_back(entry);
    }

    pub fn to_vec(&self) -> Vec<LoggedRequest> {
        self.entries.iter().cloned().collect()
    }

    pub fn clear(&mut self) {
        self.entries.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(path: &str) -> LoggedRequest {
        LoggedRequest {
            method: "GET".into(),
            path: path.into(),
            headers: vec![],
            body: None,
            status: Some(200),
            answer: None,
            fault: None,
            received: SystemTime::now(),
        }
    }

    #[test]
    fn the_log_keeps_the_most_recent() {
        let mut log = RequestLog::new(3);
        for i in 0..10 {
            log.push(entry(&format!("/{i}")));
        }
        let paths: Vec<String> = log.to_vec().into_iter().map(|e| e.path).collect();
        assert_eq!(paths, ["/7", "/8", "/9"]);
        let mut none = RequestLog::new(0);
        none.push(entry("/x"));
        assert!(none.to_vec().is_empty());
    }

    #[test]
    fn secrets_are_redacted() {
        let body = br#"{"with_secret":"topsecret","nested":[{"with_secret":"x"}],"destination_conf":"s3://b?region=r&secret-access-key=k2","ownership_challenge":"c"}"#;
        let shown = body_shown(body).unwrap().to_string();
        for secret in ["topsecret", "\"x\"", "k2", "\"c\""] {
            assert!(!shown.contains(secret), "{shown}");
        }
        assert_eq!(
            body_shown(b"not json"),
            Some(Value::String("<8 bytes, not JSON>".into()))
        );
    }
}
