//! The one way a request is sent: [`Client::execute`] runs any core [`Request`] (its method
//! by name, its optional JSON body) through ureq's `http::Request` path, under one deadline
//! for the whole call, retrying what is safe to repeat, honouring `Retry-After` and the
//! optional rate limit, and scrubbing the call's secrets from any error.
//!
//! Every retry decision is core's [`Retry`] machine (`escpush-core/src/retry.rs`): which
//! answers are repeated (by the request's [`RetryClass`](escpush_core::RetryClass), set from
//! its row of the endpoint table, [`escpush_core::Endpoint`]), how long to wait, whether the
//! wait fits in the deadline, when a lost answer leaves the outcome unknown, and when a
//! repeat's answer (a `DELETE`'s 404) is an earlier attempt's doing. This file drives it as
//! `assess.rs` drives the assessment: it sends, reads the answer's status and `Retry-After`,
//! reads the clock and the random source for the jitter, sleeps, and makes the error or the
//! result the machine says.

use std::collections::hash_map::RandomState;
use std::fmt::Write as _;
use std::hash::{BuildHasher, Hasher};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant, SystemTime};

use escpush_core::{parse_response, ApiMessage, Attempt, Request, Retry, RetryEnd, RetryStep};
use serde_json::Value;
use ureq::http;

use crate::auth::ENV_BASE_URL;
use crate::builder::DEFAULT_BASE_URL;
use crate::client::Client;
use crate::error::Error;
use crate::events;
use crate::scrub::Secrets;

/// What one attempt gave.
struct Answer {
    status: u16,
    retry_after: Option<Duration>,
    body: Vec<u8>,
}

impl Answer {
    /// The error this answer holds, with the wait it asked for, which the call cannot give.
    fn retry_later(&self, retry_after: Duration, reason: &str) -> Error {
        match parse_response(self.status, &self.body) {
            Err(error) => Error::RetryLater {
                error,
                retry_after,
                at: SystemTime::now()
                    .checked_add(retry_after)
                    .unwrap_or(SystemTime::UNIX_EPOCH + MAX_RETRY_AFTER),
                reason: reason.to_owned(),
            },
            Ok(_) => Error::Transport {
                message: format!("HTTP {} asked to retry", self.status),
            },
        }
    }
}

/// Why an attempt failed below HTTP, and whether the request may have reached the server.
struct Failed {
    error: Error,
    maybe_sent: bool,
}

impl Client {
    /// Sends `req` and gives the envelope's `result` (read by core's `parse_response`).
    ///
    /// The whole call, retries, `Retry-After` waits and waits for the rate limit included,
    /// ends by the client's timeout. A `RetryClass::Safe` request is repeated after 429,
    /// 5xx or a lost connection, up to `max_retries` times. Any other request (a job
    /// creation) is repeated only when it cannot have been processed: after a 429 (the API
    /// refuses it before processing it) or when no connection was made; when its connection
    /// breaks or its deadline passes after it was sent, the call ends with
    /// [`Error::OutcomeUnknown`] and nothing is sent again. No error holds a credential or a
    /// secret of the request.
    pub fn execute(&self, req: &Request) -> Result<Value, Error> {
        self.execute_with(req, parse_response)
    }

    /// [`Client::execute`] with the answer read by `read` (its HTTP status and body), one of
    /// core's readers: [`escpush_core::EscStatus::from_answer`], [`escpush_core::read_job`]
    /// through `parse_response`, ... The rules for retries, the deadline and secrets are the same.
    pub fn execute_with<T>(
        &self,
        req: &Request,
        read: impl Fn(u16, &[u8]) -> Result<T, escpush_core::Error>,
    ) -> Result<T, Error> {
        let secrets = Secrets::of(&self.auth, req);
        self.execute_unscrubbed(req, &read, &secrets)
            .map_err(|e| secrets.scrub_error(e))
    }

    fn execute_unscrubbed<T>(
        &self,
        req: &Request,
        read: &impl Fn(u16, &[u8]) -> Result<T, escpush_core::Error>,
        secrets: &Secrets,
    ) -> Result<T, Error> {
        let started = Instant::now();
        let mut retry = Retry::new(req, self.retry, self.timeout);
        // The one deadline of the call, the machine's (a timeout past what a clock holds is
        // cut to `MAX_CALL_TIMEOUT`, 136 years, which a monotonic clock adds without overflow).
        let deadline = started + retry.timeout();
        loop {
            let attempt = retry.attempt();
            let sent = Instant::now();
            let outcome = self.send_once(req, deadline, attempt, secrets);
            if events::enabled() {
                self.log_attempt(req, &outcome, attempt, sent, secrets);
            }
            let got = match &outcome {
                Ok(answer) => Attempt::Answered {
                    status: answer.status,
                    retry_after: answer.retry_after,
                },
                Err(Failed { error, maybe_sent }) => {
                    let sent = *maybe_sent;
                    match error {
                        Error::Transport { .. } => Attempt::Lost { sent },
                        Error::Timeout { .. } => Attempt::TimedOut { sent },
                        _ => Attempt::Failed { sent },
                    }
                }
            };
            match retry.feed(got, started.elapsed(), jitter()) {
                RetryStep::Wait { wait, next, why } => {
                    if events::enabled() {
                        events::event(
                            secrets,
                            format_args!(
                                "{} {}: retrying in {}, {}; attempt {} of {}",
                                req.method,
                                req.path,
                                secs(wait),
                                why.describe(),
                                next + 1,
                                retry.attempts()
                            ),
                        );
                    }
                    std::thread::sleep(wait);
                }
                RetryStep::End(end) => return self.end(req, end, attempt, outcome, read, secrets),
            }
        }
    }

    /// The call's result from its last attempt (`attempt`), ended as core's machine said.
    fn end<T>(
        &self,
        req: &Request,
        end: RetryEnd,
        attempt: u32,
        outcome: Result<Answer, Failed>,
        read: &impl Fn(u16, &[u8]) -> Result<T, escpush_core::Error>,
        secrets: &Secrets,
    ) -> Result<T, Error> {
        let answer = match outcome {
            Ok(answer) => answer,
            Err(Failed { error, .. }) => {
                return Err(match end {
                    RetryEnd::Failed { after } => after_asked(error, after),
                    RetryEnd::OutcomeUnknown { check, after } => Error::OutcomeUnknown {
                        cause: Box::new(after_asked(error, after)),
                        check,
                    },
                    // The machine ends a failed attempt with one of the two above.
                    RetryEnd::Read
                    | RetryEnd::ReadMayHaveChanged { .. }
                    | RetryEnd::DoneByEarlierAttempt { .. }
                    | RetryEnd::RetryLater { .. } => error,
                });
            }
        };
        match end {
            RetryEnd::DoneByEarlierAttempt { earlier } => {
                events::event(
                    secrets,
                    format_args!(
                        "{} {}: HTTP {} on attempt {}, after attempt {} may have taken effect (its answer was \
                         lost): done by that attempt",
                        req.method,
                        req.path,
                        answer.status,
                        attempt + 1,
                        earlier + 1
                    ),
                );
                Ok(read(200, Request::DONE_BY_EARLIER_ATTEMPT)?)
            }
            RetryEnd::RetryLater { retry_after } => Err(answer.retry_later(
                retry_after,
                &format!("; the call's timeout of {} ends before that", secs(self.timeout)),
            )),
            RetryEnd::ReadMayHaveChanged { check } => match read(answer.status, &answer.body) {
                Err(escpush_core::Error::Api { status, mut errors }) => {
                    // After the API's own messages, which keep their places and codes.
                    errors.push(ApiMessage::new(
                        0,
                        format!(
                            "HTTP {status} may follow a change: the request was sent, so it may have taken effect: \
                             {check}"
                        ),
                    ));
                    Err(Error::Core(escpush_core::Error::Api { status, errors }))
                }
                other => Ok(other?),
            },
            // The machine ends an answer with one of the above or by reading it.
            RetryEnd::Read | RetryEnd::Failed { .. } | RetryEnd::OutcomeUnknown { .. } => {
                Ok(read(answer.status, &answer.body)?)
            }
        }
    }

    /// One attempt (`attempt` 0 is the first), bounded by what is left of the deadline, in
    /// a slot of the rate limit when one is on.
    // `Failed` (an `Error` and a flag) lives for one attempt, next to a network round trip:
    // boxing it would buy nothing.
    #[allow(clippy::result_large_err)]
    fn send_once(&self, req: &Request, deadline: Instant, attempt: u32, secrets: &Secrets) -> Result<Answer, Failed> {
        let queued = Instant::now();
        let _slot = match &self.limiter {
            None => None,
            Some(limiter) => Some(
                limiter
                    .acquire(deadline)
                    .inspect(|_| {
                        let waited = queued.elapsed();
                        if waited >= Duration::from_millis(1) {
                            events::event(
                                secrets,
                                format_args!(
                                    "{} {}: waited {} for the client-side rate limit of {}",
                                    req.method,
                                    req.path,
                                    secs(waited),
                                    limiter.limit()
                                ),
                            );
                        }
                    })
                    .map_err(|wait| {
                        let when = wait.map_or_else(
                            || "only after every request in its window has been answered".to_owned(),
                            |w| format!("in {}", secs(w)),
                        );
                        Failed {
                            error: self.timed_out(format!(
                        "the client-side rate limit of {} lets the next request go {when}, after the deadline; \
                         attempt {} was not sent",
                        limiter.limit(),
                        attempt + 1
                    )),
                            maybe_sent: false,
                        }
                    })?,
            ),
        };
        let remaining = deadline.saturating_duration_since(Instant::now());
        if remaining.is_zero() {
            return Err(Failed {
                error: self.timed_out("no time was left for another attempt"),
                maybe_sent: false,
            });
        }
        let method = http::Method::from_bytes(req.method.as_str().as_bytes()).map_err(|e| Failed {
            error: crate::auth::invalid_arg("request", format!("method {}: {e}", req.method)),
            maybe_sent: false,
        })?;
        let mut builder = http::Request::builder()
            .method(method)
            .uri(format!("{}{}", self.base_url, req.path));
        for (name, value) in self.auth.headers() {
            builder = builder.header(name, value);
        }
        let built = match req.body_bytes() {
            Some(bytes) => builder
                .header("Content-Type", "application/json")
                .body(bytes)
                .map(|r| self.run(r, remaining)),
            None => builder.body(()).map(|r| self.run(r, remaining)),
        };
        let result = built.map_err(|e| Failed {
            error: crate::auth::invalid_arg("request", e.to_string()),
            maybe_sent: false,
        })?;
        let mut resp = result.map_err(|e| self.failed(e))?;
        let status = resp.status().as_u16();
        let retry_after = resp
            .headers()
            .get("retry-after")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| parse_retry_after(v, SystemTime::now()));
        let body = resp
            .body_mut()
            .with_config()
            .limit(self.max_body)
            .read_to_vec()
            .map_err(|e| self.failed(e))?;
        Ok(Answer {
            status,
            retry_after,
            body,
        })
    }

    /// Runs one `http::Request` on the agent, its every phase within `remaining`.
    fn run<S: ureq::AsSendBody>(
        &self,
        req: http::Request<S>,
        remaining: Duration,
    ) -> Result<http::Response<ureq::Body>, ureq::Error> {
        let req = self
            .agent
            .configure_request(req)
            .timeout_global(Some(remaining))
            .build();
        self.agent.run(req)
    }

    /// The event of one attempt: what was sent, and the status it got or why it failed.
    fn log_attempt(
        &self,
        req: &Request,
        outcome: &Result<Answer, Failed>,
        attempt: u32,
        sent: Instant,
        secrets: &Secrets,
    ) {
        let took = sent.elapsed().as_millis();
        let result = match outcome {
            Ok(answer) => format!("HTTP {}", answer.status),
            Err(failed) => format!("failed: {}", failed.error),
        };
        events::event(
            secrets,
            format_args!(
                "{} {}{}{} -> {result} (attempt {}, {took} ms)",
                req.method,
                self.base_url,
                req.path,
                events::shown_body(req),
                attempt + 1
            ),
        );
    }

    fn timed_out(&self, detail: impl std::fmt::Display) -> Error {
        Error::Timeout {
            message: format!(
                "the call did not finish within its timeout of {} ({detail})",
                secs(self.timeout)
            ),
        }
    }

    fn failed(&self, e: ureq::Error) -> Failed {
        let maybe_sent = may_have_been_sent(&e);
        let error = match e {
            ureq::Error::Timeout(t) => self.timed_out(t),
            ureq::Error::Io(io) if io.kind() == std::io::ErrorKind::TimedOut => self.timed_out(io),
            ureq::Error::BodyExceedsLimit(limit) => Error::ResponseTooLarge { limit },
            other if !maybe_sent => Error::Transport {
                message: format!(
                    "cannot connect to {} ({other}); the API root is set by base_url (--base-url) or {ENV_BASE_URL} \
                     (default {DEFAULT_BASE_URL})",
                    self.base_url
                ),
            },
            other => Error::Transport {
                message: format!("{} ({other})", self.base_url),
            },
        };
        Failed { error, maybe_sent }
    }
}

/// `error`, and when it is a timeout that cut a retry an answer (`after`, its status) had
/// asked for, what the server had been answering.
fn after_asked(error: Error, after: Option<u16>) -> Error {
    match (error, after) {
        (Error::Timeout { mut message }, Some(status)) => {
            let _ = write!(
                message,
                "; before it, the server answered HTTP {status} and asked for a retry"
            );
            Error::Timeout { message }
        }
        (error, _) => error,
    }
}

/// Whether a failure may have come after the request reached the server: everything but a
/// failure to resolve, connect or set up the connection.
fn may_have_been_sent(e: &ureq::Error) -> bool {
    use std::io::ErrorKind;
    match e {
        ureq::Error::HostNotFound | ureq::Error::ConnectionFailed | ureq::Error::BadUri(_) => false,
        ureq::Error::Timeout(t) => !matches!(t, ureq::Timeout::Resolve | ureq::Timeout::Connect),
        ureq::Error::Io(io) => !matches!(
            io.kind(),
            ErrorKind::ConnectionRefused | ErrorKind::AddrNotAvailable | ErrorKind::NotFound
        ),
        _ => true,
    }
}

/// `1 s`, `0.25 s`.
fn secs(d: Duration) -> String {
    format!("{} s", d.as_secs_f64())
}

/// The longest `Retry-After` read (about 136 years): a longer one is read as this, so that
/// the time it names can still be written as an HTTP date.
const MAX_RETRY_AFTER: Duration = Duration::from_secs(u32::MAX as u64);

/// `Retry-After` (RFC 9110 §10.2.3): delay seconds (at most [`MAX_RETRY_AFTER`]), or an HTTP
/// date compared with `now` (a date in the past means no wait). Anything else, a negative or
/// fractional number included, is ignored (the backoff applies).
fn parse_retry_after(value: &str, now: SystemTime) -> Option<Duration> {
    let value = value.trim();
    if !value.is_empty() && value.bytes().all(|b| b.is_ascii_digit()) {
        // All digits: a number too large for u64 is still a (very) long wait.
        let secs = value.parse::<u64>().unwrap_or(u64::MAX);
        return Some(Duration::from_secs(secs).min(MAX_RETRY_AFTER));
    }
    let at = httpdate::parse_http_date(value).ok()?;
    Some(at.duration_since(now).unwrap_or(Duration::ZERO).min(MAX_RETRY_AFTER))
}

/// A number in [0, 1) from std's randomly keyed hasher: enough to spread retries, no crate.
fn jitter() -> f64 {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let mut h = RandomState::new().build_hasher();
    h.write_u64(COUNTER.fetch_add(1, Ordering::Relaxed));
    let high = u32::try_from(h.finish() >> 32).unwrap_or(0);
    f64::from(high) / 4_294_967_296.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retry_after_takes_seconds_or_a_date() {
        let at = |s: u64| SystemTime::UNIX_EPOCH + Duration::from_secs(s);
        assert_eq!(parse_retry_after(" 7 ", at(0)), Some(Duration::from_secs(7)));
        // 1994-11-06T08:49:37Z is 784111777
        let date = "Sun, 06 Nov 1994 08:49:37 GMT";
        assert_eq!(
            parse_retry_after(date, at(784_111_777 - 30)),
            Some(Duration::from_secs(30))
        );
        assert_eq!(parse_retry_after(date, at(784_111_777 + 30)), Some(Duration::ZERO));
        for bad in [
            "",
            "soon",
            "-1",
            "1.5",
            "Sun, 06 Nov 1994 08:49:37 CET",
            "Sun, 06 Foo 1994 08:49:37 GMT",
        ] {
            assert_eq!(parse_retry_after(bad, at(0)), None, "{bad}");
        }
    }
}
