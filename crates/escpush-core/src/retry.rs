//! Retries as a state machine a transport drives, as the ESC assessment is
//! ([`Assessment`](crate::Assessment)): [`Retry::feed`] takes what one attempt of a request
//! gave ([`Attempt`]: an answer's status and `Retry-After`, a connection lost before or
//! after the request was sent, a timeout), with the time since the call began and a random
//! number for the jitter, and says what comes next ([`RetryStep`]): wait this long and send
//! again, or end the call, and how ([`RetryEnd`]).
//!
//! Every decision of a retry is here: which answers are repeated (429, 5xx, a lost
//! connection, as the request's [`RetryClass`] allows), how long to wait (the backoff with
//! its jitter, or the `Retry-After` asked for, cut to [`RetryPolicy::max_retry_after`]),
//! whether the wait fits in the call's deadline, when a lost answer leaves the outcome
//! unknown (and what to say to check it), and when a repeat's answer is the work of an
//! earlier attempt ([`Request::done_on_repeat`]). The machine does no I/O, reads no clock
//! and draws no random number: the transport sends, sleeps, reads the clock and the random
//! source, and feeds it (escpush-http's `send.rs`).
//!
//! [`RetryStep`] and [`RetryEnd`] are matched by a transport without a wildcard: a new way
//! to end a call does not compile until every driver handles it.

use std::time::Duration;

use crate::request::{Request, RetryClass};

/// How often and how long a call is repeated. Its defaults and ranges are the transport's
/// settings (escpush-http's `ClientBuilder`); core only applies it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RetryPolicy {
    /// The most times a request is sent again (the attempts are one more).
    pub max_retries: u32,
    /// The wait before the first retry when the answer names none; each further retry
    /// doubles it, up to `max_backoff`, times a random factor in [0.5, 1).
    pub backoff: Duration,
    /// The longest wait between retries without `Retry-After`.
    pub max_backoff: Duration,
    /// The longest `Retry-After` waited for; a longer one is cut to it.
    pub max_retry_after: Duration,
}

impl RetryPolicy {
    /// The wait before the retry that follows attempt `attempt` (0 is the first) when the
    /// answer asked for no particular wait: [`RetryPolicy::backoff`] doubled per attempt
    /// (16 doublings at most), cut to [`RetryPolicy::max_backoff`], times `0.5 + 0.5 *
    /// jitter`. `jitter` is a random number in [0, 1) (from the transport's random source);
    /// a number outside [0, 1] is taken as the nearer end, NaN as 0.
    pub fn backoff_for(&self, attempt: u32, jitter: f64) -> Duration {
        let exp = self
            .backoff
            .saturating_mul(1u32.checked_shl(attempt.min(16)).unwrap_or(u32::MAX));
        let jitter = if jitter.is_nan() { 0.0 } else { jitter.clamp(0.0, 1.0) };
        let capped = exp.min(self.max_backoff);
        // At most `capped` (a factor of 1 on a wait near `Duration::MAX` rounds above it).
        Duration::try_from_secs_f64(capped.as_secs_f64() * (0.5 + 0.5 * jitter)).map_or(capped, |d| d.min(capped))
    }
}

/// What one attempt gave, as the transport saw it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Attempt {
    /// An HTTP answer, and the wait its `Retry-After` asked for (read by the transport:
    /// delay seconds, or an HTTP date compared with its clock).
    Answered { status: u16, retry_after: Option<Duration> },
    /// The connection failed below HTTP. `sent`: the request may have reached the server
    /// (anything but a failure to resolve, connect or set up the connection).
    Lost { sent: bool },
    /// The call's deadline cut the attempt (or left no time to make it). `sent` as for
    /// [`Attempt::Lost`].
    TimedOut { sent: bool },
    /// Any other failure (an answer larger than the cap, a request that cannot be built):
    /// never repeated, the call's error as it is.
    Failed { sent: bool },
}

impl Attempt {
    /// Whether the answer asks for a retry: 429 or a 5xx.
    fn asks_for_retry(self) -> bool {
        matches!(self, Attempt::Answered { status, .. } if status == 429 || (500..600).contains(&status))
    }

    /// Whether the attempt may have taken effect on the server: sent and its answer lost, or
    /// answered with a 5xx (a 429 refuses a request before processing it).
    pub fn may_have_taken_effect(self) -> bool {
        match self {
            Attempt::Answered { status, .. } => (500..600).contains(&status),
            Attempt::Lost { sent } | Attempt::TimedOut { sent } | Attempt::Failed { sent } => sent,
        }
    }
}

/// Why the request is sent again, for the transport's events.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RetryReason {
    /// The answer (`status`) asked for the wait with `Retry-After`.
    RetryAfter { status: u16 },
    /// The answer (`status`) asked for a retry without a wait: the backoff.
    Backoff { status: u16 },
    /// The connection failed: the backoff.
    Lost,
}

impl RetryReason {
    /// `HTTP 429 asked for it (Retry-After)`, `after HTTP 503 (backoff)`, `after a failed
    /// connection (backoff)`.
    pub fn describe(self) -> String {
        match self {
            RetryReason::RetryAfter { status } => format!("HTTP {status} asked for it (Retry-After)"),
            RetryReason::Backoff { status } => format!("after HTTP {status} (backoff)"),
            RetryReason::Lost => "after a failed connection (backoff)".to_owned(),
        }
    }
}

/// What the transport does after an attempt.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RetryStep {
    /// Wait `wait`, then send the request again as attempt `next` (0 is the first; the
    /// attempts are [`Retry::attempts`] at most).
    Wait {
        wait: Duration,
        next: u32,
        why: RetryReason,
    },
    /// The call ends with the last attempt, as said.
    End(RetryEnd),
}

/// How a call ends, from its last attempt.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RetryEnd {
    /// The last answer is the call's result: read it as it is (an error status is the
    /// API's error).
    Read,
    /// The last answer is the call's result, but it may follow a change (a 5xx to a request
    /// not safe to repeat, which was processed): when it reads as the API's error, add after
    /// the API's messages one of the transport's (code 0): "HTTP {status} may follow a
    /// change: the request was sent, so it may have taken effect: " and `check`.
    ReadMayHaveChanged { check: String },
    /// A repeat was answered with the request's [`Request::done_on_repeat`] status after
    /// attempt `earlier` (0 is the first) may have taken effect: that attempt did it. The
    /// call is done: read [`Request::DONE_BY_EARLIER_ATTEMPT`] as its answer (and say so).
    DoneByEarlierAttempt { earlier: u32 },
    /// The answer asked to be retried after `retry_after` (as asked, before the cut to
    /// [`RetryPolicy::max_retry_after`]), and even the cut wait ends after the call's
    /// deadline: the call stops at once with the answer's error and when to retry.
    RetryLater { retry_after: Duration },
    /// The last attempt's failure is the call's error, as it is. `after`: when it is a
    /// timeout that cut a retry an answer had asked for, that answer's status (the error
    /// says "before it, the server answered HTTP {after} and asked for a retry").
    Failed { after: Option<u16> },
    /// A request not safe to repeat was sent and its answer lost (a broken connection, a
    /// timeout): it may have taken effect, and it is not sent again. The error says so with
    /// `check`, how to find out. `after` as for [`RetryEnd::Failed`].
    OutcomeUnknown { check: String, after: Option<u16> },
}

/// The longest a call lasts: a longer timeout (about 136 years) is this one, as good as
/// none, and what a clock holds. [`Retry::timeout`] is the one deadline of a call: the
/// transport bounds its attempts by it and the machine its waits.
pub const MAX_CALL_TIMEOUT: Duration = Duration::from_secs(u32::MAX as u64);

/// What a transport says to check when an endpoint names no check of its own.
pub const DEFAULT_OUTCOME_CHECK: &str =
    "find out whether it did before sending it again (it is not sent again by itself)";

/// The retries of one call of one request. See the module documentation.
#[derive(Clone, Debug)]
pub struct Retry {
    class: RetryClass,
    done_on_repeat: Option<u16>,
    check: String,
    policy: RetryPolicy,
    timeout: Duration,
    /// The attempt being made (0 is the first).
    attempt: u32,
    /// The last attempt that may have taken effect.
    maybe_done: Option<u32>,
    /// The status of the last answer that asked for a retry.
    asked_by: Option<u16>,
}

impl Retry {
    /// The retries of a call of `req` under `policy`, the whole call within `timeout` (every
    /// attempt and wait: the time given to [`Retry::feed`] counts from the call's start),
    /// cut to [`MAX_CALL_TIMEOUT`].
    pub fn new(req: &Request, policy: RetryPolicy, timeout: Duration) -> Self {
        Retry {
            class: req.retry,
            done_on_repeat: req.done_on_repeat,
            check: req
                .outcome_check
                .clone()
                .unwrap_or_else(|| DEFAULT_OUTCOME_CHECK.to_owned()),
            policy,
            timeout: timeout.min(MAX_CALL_TIMEOUT),
            attempt: 0,
            maybe_done: None,
            asked_by: None,
        }
    }

    /// The call's timeout, from its start: the deadline a transport sets on its attempts (the
    /// one given to [`Retry::new`], cut to [`MAX_CALL_TIMEOUT`]).
    pub fn timeout(&self) -> Duration {
        self.timeout
    }

    /// The attempt to make or being made (0 is the first).
    pub fn attempt(&self) -> u32 {
        self.attempt
    }

    /// The most attempts the call makes: one more than the retries.
    pub fn attempts(&self) -> u32 {
        self.policy.max_retries.saturating_add(1)
    }

    /// Takes what the current attempt gave, `elapsed` after the call began, and says what
    /// comes next. `jitter` is a random number in [0, 1) for the backoff
    /// ([`RetryPolicy::backoff_for`]).
    ///
    /// A [`RetryClass::Safe`] request is repeated after 429, 5xx or a lost connection; a
    /// [`RetryClass::WhenUnprocessed`] one only when it cannot have been processed: after a
    /// 429 (the API refuses it before processing it) or a connection lost before the request
    /// was sent. No retry beyond [`RetryPolicy::max_retries`], nor one whose wait ends at or
    /// after the deadline.
    pub fn feed(&mut self, got: Attempt, elapsed: Duration, jitter: f64) -> RetryStep {
        let attempt = self.attempt;
        let after = match got {
            Attempt::TimedOut { .. } => self.asked_by,
            Attempt::Answered { .. } | Attempt::Lost { .. } | Attempt::Failed { .. } => None,
        };
        if let (Some(earlier), Attempt::Answered { status, .. }) = (self.maybe_done, got) {
            if self.done_on_repeat == Some(status) {
                return RetryStep::End(RetryEnd::DoneByEarlierAttempt { earlier });
            }
        }
        if got.may_have_taken_effect() {
            self.maybe_done = Some(attempt);
        }
        let retries_left = attempt < self.policy.max_retries;
        let (wait, why) = match got {
            Attempt::Answered { status, retry_after }
                if got.asks_for_retry() && retries_left && self.repeats_answer(status) =>
            {
                match retry_after {
                    Some(asked) => (
                        asked.min(self.policy.max_retry_after),
                        RetryReason::RetryAfter { status },
                    ),
                    None => (
                        self.policy.backoff_for(attempt, jitter),
                        RetryReason::Backoff { status },
                    ),
                }
            }
            Attempt::Lost { sent } if retries_left && self.repeats_lost(sent) => {
                (self.policy.backoff_for(attempt, jitter), RetryReason::Lost)
            }
            _ => return RetryStep::End(self.end(got, after)),
        };
        if wait >= self.timeout.saturating_sub(elapsed) {
            return RetryStep::End(match got {
                Attempt::Answered {
                    retry_after: Some(asked),
                    ..
                } => RetryEnd::RetryLater { retry_after: asked },
                _ => self.end(got, after),
            });
        }
        if let Attempt::Answered { status, .. } = got {
            self.asked_by = Some(status);
        }
        self.attempt += 1;
        RetryStep::Wait {
            wait,
            next: self.attempt,
            why,
        }
    }

    /// Whether an answer asking for a retry (429, 5xx) may be repeated: a 429 refused the
    /// request before it was processed; a 5xx may follow a change.
    fn repeats_answer(&self, status: u16) -> bool {
        match self.class {
            RetryClass::Safe => true,
            RetryClass::WhenUnprocessed => status == 429,
        }
    }

    /// Whether a lost connection may be repeated: always for a safe request, else only when
    /// the request never left.
    fn repeats_lost(&self, sent: bool) -> bool {
        match self.class {
            RetryClass::Safe => true,
            RetryClass::WhenUnprocessed => !sent,
        }
    }

    /// How the call ends with `got`, its last attempt.
    fn end(&self, got: Attempt, after: Option<u16>) -> RetryEnd {
        let unsafe_and_maybe_done = match self.class {
            RetryClass::Safe => false,
            RetryClass::WhenUnprocessed => got.may_have_taken_effect(),
        };
        match got {
            Attempt::Answered { .. } if unsafe_and_maybe_done => RetryEnd::ReadMayHaveChanged {
                check: self.check.clone(),
            },
            Attempt::Answered { .. } => RetryEnd::Read,
            Attempt::Lost { .. } | Attempt::TimedOut { .. } if unsafe_and_maybe_done => RetryEnd::OutcomeUnknown {
                check: self.check.clone(),
                after,
            },
            Attempt::Lost { .. } | Attempt::TimedOut { .. } | Attempt::Failed { .. } => RetryEnd::Failed { after },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::request::Method;

    const MS: Duration = Duration::from_millis(1);
    const SEC: Duration = Duration::from_secs(1);

    fn policy() -> RetryPolicy {
        RetryPolicy {
            max_retries: 2,
            backoff: 100 * MS,
            max_backoff: 300 * MS,
            max_retry_after: 2 * SEC,
        }
    }

    fn request(class: RetryClass) -> Request {
        Request::new(Method::Post, "/x").with_retry(class)
    }

    fn retry(class: RetryClass) -> Retry {
        Retry::new(&request(class), policy(), 30 * SEC)
    }

    fn answered(status: u16) -> Attempt {
        Attempt::Answered {
            status,
            retry_after: None,
        }
    }

    fn wait(wait: Duration, next: u32, why: RetryReason) -> RetryStep {
        RetryStep::Wait { wait, next, why }
    }

    /// The first step after each kind of first attempt, for each class: every decision of
    /// which answer is repeated and how a call ends.
    #[test]
    fn each_class_and_each_attempt() {
        use RetryClass::{Safe, WhenUnprocessed};
        let check = || DEFAULT_OUTCOME_CHECK.to_owned();
        let half = 50 * MS; // the first backoff with jitter 0
        let asked = Attempt::Answered {
            status: 429,
            retry_after: Some(SEC),
        };
        let asked_503 = Attempt::Answered {
            status: 503,
            retry_after: Some(SEC),
        };
        let ended = RetryStep::End;
        let cases: Vec<(RetryClass, Attempt, RetryStep)> = vec![
            (Safe, answered(200), ended(RetryEnd::Read)),
            (WhenUnprocessed, answered(200), ended(RetryEnd::Read)),
            (Safe, answered(404), ended(RetryEnd::Read)),
            (WhenUnprocessed, answered(404), ended(RetryEnd::Read)),
            (Safe, answered(429), wait(half, 1, RetryReason::Backoff { status: 429 })),
            (
                WhenUnprocessed,
                answered(429),
                wait(half, 1, RetryReason::Backoff { status: 429 }),
            ),
            (Safe, asked, wait(SEC, 1, RetryReason::RetryAfter { status: 429 })),
            (
                WhenUnprocessed,
                asked,
                wait(SEC, 1, RetryReason::RetryAfter { status: 429 }),
            ),
            (Safe, answered(500), wait(half, 1, RetryReason::Backoff { status: 500 })),
            (Safe, answered(599), wait(half, 1, RetryReason::Backoff { status: 599 })),
            (Safe, asked_503, wait(SEC, 1, RetryReason::RetryAfter { status: 503 })),
            // A 5xx to a request not safe to repeat may follow a change: not repeated, and
            // said so.
            (
                WhenUnprocessed,
                answered(500),
                ended(RetryEnd::ReadMayHaveChanged { check: check() }),
            ),
            (
                WhenUnprocessed,
                asked_503,
                ended(RetryEnd::ReadMayHaveChanged { check: check() }),
            ),
            (Safe, answered(600), ended(RetryEnd::Read)),
            (Safe, Attempt::Lost { sent: false }, wait(half, 1, RetryReason::Lost)),
            (Safe, Attempt::Lost { sent: true }, wait(half, 1, RetryReason::Lost)),
            (
                WhenUnprocessed,
                Attempt::Lost { sent: false },
                wait(half, 1, RetryReason::Lost),
            ),
            (
                WhenUnprocessed,
                Attempt::Lost { sent: true },
                ended(RetryEnd::OutcomeUnknown {
                    check: check(),
                    after: None,
                }),
            ),
            // A timeout is never repeated (the deadline is spent).
            (
                Safe,
                Attempt::TimedOut { sent: true },
                ended(RetryEnd::Failed { after: None }),
            ),
            (
                Safe,
                Attempt::TimedOut { sent: false },
                ended(RetryEnd::Failed { after: None }),
            ),
            (
                WhenUnprocessed,
                Attempt::TimedOut { sent: false },
                ended(RetryEnd::Failed { after: None }),
            ),
            (
                WhenUnprocessed,
                Attempt::TimedOut { sent: true },
                ended(RetryEnd::OutcomeUnknown {
                    check: check(),
                    after: None,
                }),
            ),
            // Other failures end the call as they are, sent or not.
            (
                Safe,
                Attempt::Failed { sent: true },
                ended(RetryEnd::Failed { after: None }),
            ),
            (
                WhenUnprocessed,
                Attempt::Failed { sent: true },
                ended(RetryEnd::Failed { after: None }),
            ),
            (
                WhenUnprocessed,
                Attempt::Failed { sent: false },
                ended(RetryEnd::Failed { after: None }),
            ),
        ];
        for (class, got, want) in cases {
            assert_eq!(retry(class).feed(got, Duration::ZERO, 0.0), want, "{class:?} {got:?}");
        }
    }

    #[test]
    fn an_endpoint_check_is_said_when_the_outcome_is_unknown() {
        let req = request(RetryClass::WhenUnprocessed).with_outcome_check("list the jobs");
        let mut r = Retry::new(&req, policy(), SEC);
        assert_eq!(
            r.feed(Attempt::Lost { sent: true }, Duration::ZERO, 0.5),
            RetryStep::End(RetryEnd::OutcomeUnknown {
                check: "list the jobs".to_owned(),
                after: None
            })
        );
        let mut r = Retry::new(&req, policy(), SEC);
        assert_eq!(
            r.feed(answered(502), Duration::ZERO, 0.5),
            RetryStep::End(RetryEnd::ReadMayHaveChanged {
                check: "list the jobs".to_owned()
            })
        );
    }

    #[test]
    fn a_timeout_past_what_a_clock_holds_is_the_one_deadline_of_the_call() {
        // A timeout and a cap of 1e19 s: the transport's deadline and the machine's waits are
        // one, MAX_CALL_TIMEOUT, so a wait of 9,999,999,999 s (past it) stops the call at once
        // (the machine had judged the waits by the raw timeout and slept 136 years).
        let huge = Duration::from_secs(10_000_000_000_000_000_000);
        let policy = RetryPolicy {
            max_retry_after: huge,
            ..policy()
        };
        let mut r = Retry::new(&request(RetryClass::Safe), policy, huge);
        assert_eq!(r.timeout(), MAX_CALL_TIMEOUT);
        let asked = Duration::from_secs(9_999_999_999);
        assert_eq!(
            r.feed(
                Attempt::Answered {
                    status: 503,
                    retry_after: Some(asked)
                },
                Duration::ZERO,
                0.0
            ),
            RetryStep::End(RetryEnd::RetryLater { retry_after: asked })
        );
    }

    #[test]
    fn retry_after_is_cut_to_the_cap_and_past_the_deadline_stops_the_call() {
        let hour = Duration::from_secs(3600);
        let asked = |d| Attempt::Answered {
            status: 429,
            retry_after: Some(d),
        };
        // Cut to max_retry_after (2 s) when that fits in the deadline.
        let mut r = retry(RetryClass::Safe);
        assert_eq!(
            r.feed(asked(hour), Duration::ZERO, 0.0),
            wait(2 * SEC, 1, RetryReason::RetryAfter { status: 429 })
        );
        // The cut wait does not fit in what is left (1.5 s of 3 s): stop at once, with the
        // wait the API asked for.
        let mut r = Retry::new(&request(RetryClass::Safe), policy(), 3 * SEC);
        assert_eq!(
            r.feed(asked(hour), 1500 * MS, 0.0),
            RetryStep::End(RetryEnd::RetryLater { retry_after: hour })
        );
        // A wait ending exactly at the deadline does not fit either.
        let mut r = Retry::new(&request(RetryClass::Safe), policy(), 3 * SEC);
        assert_eq!(
            r.feed(asked(SEC), 2 * SEC, 0.0),
            RetryStep::End(RetryEnd::RetryLater { retry_after: SEC })
        );
        // A time past the deadline leaves nothing (no underflow).
        let mut r = Retry::new(&request(RetryClass::Safe), policy(), SEC);
        assert_eq!(
            r.feed(asked(Duration::ZERO), 5 * SEC, 0.0),
            RetryStep::End(RetryEnd::RetryLater {
                retry_after: Duration::ZERO
            })
        );
        // Zero fits while time is left.
        let mut r = Retry::new(&request(RetryClass::Safe), policy(), SEC);
        assert_eq!(
            r.feed(asked(Duration::ZERO), 999 * MS, 0.0),
            wait(Duration::ZERO, 1, RetryReason::RetryAfter { status: 429 })
        );
    }

    #[test]
    fn a_backoff_past_the_deadline_ends_with_the_last_attempt() {
        // 50 ms of backoff, 40 ms left: the 503 is the answer; the lost connection the error.
        let mut r = Retry::new(&request(RetryClass::Safe), policy(), SEC);
        assert_eq!(r.feed(answered(503), 960 * MS, 0.0), RetryStep::End(RetryEnd::Read));
        let mut r = Retry::new(&request(RetryClass::Safe), policy(), SEC);
        assert_eq!(
            r.feed(Attempt::Lost { sent: true }, 960 * MS, 0.0),
            RetryStep::End(RetryEnd::Failed { after: None })
        );
        // A connection never made, past the deadline, is the error as it is.
        let mut r = Retry::new(&request(RetryClass::WhenUnprocessed), policy(), SEC);
        assert_eq!(
            r.feed(Attempt::Lost { sent: false }, 960 * MS, 0.0),
            RetryStep::End(RetryEnd::Failed { after: None })
        );
    }

    #[test]
    fn a_timeout_after_an_answer_asked_for_a_retry_names_it() {
        let mut r = retry(RetryClass::Safe);
        assert!(matches!(
            r.feed(answered(503), Duration::ZERO, 0.0),
            RetryStep::Wait { .. }
        ));
        assert_eq!(
            r.feed(Attempt::TimedOut { sent: true }, 29 * SEC, 0.0),
            RetryStep::End(RetryEnd::Failed { after: Some(503) })
        );
        let mut r = retry(RetryClass::WhenUnprocessed);
        assert!(matches!(
            r.feed(answered(429), Duration::ZERO, 0.0),
            RetryStep::Wait { .. }
        ));
        assert_eq!(
            r.feed(Attempt::TimedOut { sent: true }, 29 * SEC, 0.0),
            RetryStep::End(RetryEnd::OutcomeUnknown {
                check: DEFAULT_OUTCOME_CHECK.to_owned(),
                after: Some(429)
            })
        );
        // A lost connection is not a timeout: nothing to add.
        let mut r = retry(RetryClass::Safe);
        r.feed(answered(503), Duration::ZERO, 0.0);
        r.feed(answered(503), Duration::ZERO, 0.0);
        assert_eq!(
            r.feed(Attempt::Lost { sent: true }, Duration::ZERO, 0.0),
            RetryStep::End(RetryEnd::Failed { after: None })
        );
        // The last answer that asked is named.
        let mut r = retry(RetryClass::Safe);
        r.feed(answered(503), Duration::ZERO, 0.0);
        r.feed(answered(429), Duration::ZERO, 0.0);
        assert_eq!(
            r.feed(Attempt::TimedOut { sent: false }, Duration::ZERO, 0.0),
            RetryStep::End(RetryEnd::Failed { after: Some(429) })
        );
    }

    #[test]
    fn a_repeat_answered_with_done_on_repeat_is_the_earlier_attempts_doing() {
        let delete = || {
            Request::new(Method::Delete, "/jobs/1")
                .with_retry(RetryClass::Safe)
                .with_done_on_repeat(Some(404))
        };
        // Lost after sending, then 404: done by attempt 0.
        let mut r = Retry::new(&delete(), policy(), SEC);
        assert_eq!(
            r.feed(Attempt::Lost { sent: true }, Duration::ZERO, 0.0),
            wait(50 * MS, 1, RetryReason::Lost)
        );
        assert_eq!(
            r.feed(answered(404), Duration::ZERO, 0.0),
            RetryStep::End(RetryEnd::DoneByEarlierAttempt { earlier: 0 })
        );
        // A 5xx may have taken effect too; the last such attempt is named.
        let mut r = Retry::new(&delete(), policy(), SEC);
        r.feed(Attempt::Lost { sent: true }, Duration::ZERO, 0.0);
        r.feed(answered(502), Duration::ZERO, 0.0);
        assert_eq!(
            r.feed(answered(404), Duration::ZERO, 0.0),
            RetryStep::End(RetryEnd::DoneByEarlierAttempt { earlier: 1 })
        );
        // A 404 first, or after attempts that cannot have taken effect (a 429, a connection
        // never made), is the API's answer.
        for first in [
            None,
            Some(answered(429)),
            Some(Attempt::Lost { sent: false }),
            Some(Attempt::Failed { sent: false }),
        ] {
            let mut r = Retry::new(&delete(), policy(), SEC);
            if let Some(first) = first {
                assert!(matches!(
                    r.feed(first, Duration::ZERO, 0.0),
                    RetryStep::Wait { .. } | RetryStep::End(_)
                ));
            }
            assert_eq!(
                r.feed(answered(404), Duration::ZERO, 0.0),
                RetryStep::End(RetryEnd::Read),
                "{first:?}"
            );
        }
        // Another status after a lost answer is read as it is; and a request without
        // done_on_repeat reads its 404.
        let mut r = Retry::new(&delete(), policy(), SEC);
        r.feed(Attempt::Lost { sent: true }, Duration::ZERO, 0.0);
        assert_eq!(
            r.feed(answered(200), Duration::ZERO, 0.0),
            RetryStep::End(RetryEnd::Read)
        );
        let mut r = retry(RetryClass::Safe);
        r.feed(Attempt::Lost { sent: true }, Duration::ZERO, 0.0);
        assert_eq!(
            r.feed(answered(404), Duration::ZERO, 0.0),
            RetryStep::End(RetryEnd::Read)
        );
    }

    #[test]
    fn attempts_stop_at_max_retries() {
        let mut r = retry(RetryClass::Safe);
        assert_eq!(r.attempts(), 3);
        assert_eq!(r.attempt(), 0);
        assert_eq!(
            r.feed(answered(503), Duration::ZERO, 0.0),
            wait(50 * MS, 1, RetryReason::Backoff { status: 503 })
        );
        assert_eq!(r.attempt(), 1);
        assert_eq!(
            r.feed(Attempt::Lost { sent: true }, Duration::ZERO, 0.0),
            wait(100 * MS, 2, RetryReason::Lost)
        );
        assert_eq!(r.attempt(), 2);
        assert_eq!(
            r.feed(answered(503), Duration::ZERO, 0.0),
            RetryStep::End(RetryEnd::Read)
        );
        // No retries at all.
        let none = RetryPolicy {
            max_retries: 0,
            ..policy()
        };
        for got in [answered(429), answered(503), Attempt::Lost { sent: false }] {
            let mut r = Retry::new(&request(RetryClass::Safe), none, SEC);
            assert!(matches!(r.feed(got, Duration::ZERO, 0.0), RetryStep::End(_)), "{got:?}");
        }
        // The most a policy can hold.
        let most = RetryPolicy {
            max_retries: u32::MAX,
            ..policy()
        };
        assert_eq!(Retry::new(&request(RetryClass::Safe), most, SEC).attempts(), u32::MAX);
    }

    #[test]
    fn backoff_grows_is_capped_and_jitter_stays_in_bounds() {
        let p = policy();
        assert_eq!(p.backoff_for(0, 0.0), 50 * MS);
        assert_eq!(p.backoff_for(1, 0.0), 100 * MS);
        // Capped at max_backoff (300 ms) before the jitter.
        assert_eq!(p.backoff_for(5, 0.0), 150 * MS);
        assert_eq!(p.backoff_for(u32::MAX, 0.0), 150 * MS);
        for j in [0.0, 0.25, 0.5, 0.999_999] {
            let d0 = p.backoff_for(0, j);
            assert!(d0 >= 50 * MS && d0 < 100 * MS, "{j}: {d0:?}");
            let d5 = p.backoff_for(5, j);
            assert!(d5 >= 150 * MS && d5 < 300 * MS, "{j}: {d5:?}");
        }
        // Outside [0, 1): the nearer end; NaN as 0.
        assert_eq!(p.backoff_for(0, 1.0), 100 * MS);
        assert_eq!(p.backoff_for(0, 7.0), 100 * MS);
        assert_eq!(p.backoff_for(0, -3.0), 50 * MS);
        assert_eq!(p.backoff_for(0, f64::NAN), 50 * MS);
        assert_eq!(p.backoff_for(0, f64::INFINITY), 100 * MS);
        // Huge settings do not overflow.
        let huge = RetryPolicy {
            backoff: Duration::MAX,
            max_backoff: Duration::MAX,
            ..p
        };
        assert!(huge.backoff_for(40, 0.5) > Duration::from_secs(1 << 60));
        assert_eq!(huge.backoff_for(40, 1.0), Duration::MAX);
        // The jitter reaches the machine's wait.
        let mut r = retry(RetryClass::Safe);
        assert_eq!(
            r.feed(answered(500), Duration::ZERO, 0.5),
            wait(75 * MS, 1, RetryReason::Backoff { status: 500 })
        );
    }

    #[test]
    fn reasons_read_as_the_events_say_them() {
        assert_eq!(
            RetryReason::RetryAfter { status: 429 }.describe(),
            "HTTP 429 asked for it (Retry-After)"
        );
        assert_eq!(
            RetryReason::Backoff { status: 503 }.describe(),
            "after HTTP 503 (backoff)"
        );
        assert_eq!(RetryReason::Lost.describe(), "after a failed connection (backoff)");
        assert!(answered(503).may_have_taken_effect());
        assert!(!answered(429).may_have_taken_effect());
        assert!(!answered(200).may_have_taken_effect());
    }
}
