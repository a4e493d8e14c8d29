//! Faults: what the emulator answers instead of (or on top of) its normal behaviour, their
//! checks (the one place `fail_next` arguments are checked, for Rust and Python alike) and
//! the queue of pending ones.

use std::collections::VecDeque;
use std::time::Duration;

use escpush_core::Error;

/// The longest delay or pace a fault may have: a day.
pub const MAX_FAULT_DELAY_SECS: f64 = 86_400.0;

/// A fault to answer instead of (or on top of) the normal behaviour.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Fault {
    /// Answer this status with an error envelope (and `Retry-After: n` when given).
    Status { status: u16, retry_after: Option<u64> },
    /// Answer exactly this status and body (`Content-Type: application/json`; a 204 sends
    /// no body), without touching the state.
    Body { status: u16, body: Vec<u8> },
    /// Answer 200 with a body that is not JSON.
    MalformedBody,
    /// Announce a longer body than is sent, then close the connection.
    TruncatedBody,
    /// Wait this long before answering normally.
    Delay(Duration),
    /// Answer normally, slowly: wait this long before the head, then send the body in
    /// pieces over the same time again.
    Trickle(Duration),
    /// Answer this status with an error whose message echoes the request's headers and body
    /// verbatim, as a careless server might (for testing that clients scrub secrets).
    Echo { status: u16 },
    /// Close the connection without answering; the request is not applied.
    Drop,
    /// Apply the request (a job is created, ESC switched), then close the connection
    /// without answering: the case where a client cannot know that its write took effect.
    DropAfterApply,
    /// Answer normally, but send only the head at once, then wait this long before the
    /// body (a server that stalls after its headers).
    Stall(Duration),
    /// Answer normally, the head at once, then the body one byte at a time, this long
    /// apart (a server that trickles).
    Drip(Duration),
}

impl Fault {
    /// A short description, for the request log.
    pub fn name(&self) -> String {
        match self {
            Fault::Status { status, .. } => format!("status {status}"),
            Fault::Body { status, body } => format!("body {status} ({} bytes)", body.len()),
            Fault::MalformedBody => "malformed body".to_owned(),
            Fault::TruncatedBody => "truncated body".to_owned(),
            Fault::Delay(d) => format!("delay {}ms", d.as_millis()),
            Fault::Trickle(d) => format!("trickle {}ms", d.as_millis()),
            Fault::Echo { status } => format!("echo {status}"),
            Fault::Drop => "dropped connection".to_owned(),
            Fault::DropAfterApply => "dropped connection after applying".to_owned(),
            Fault::Stall(d) => format!("stall {}ms", d.as_millis()),
            Fault::Drip(d) => format!("drip {}ms", d.as_millis()),
        }
    }
}

/// The arguments of `fail_next` as a caller gives them (Python's `Emulator.fail_next`
/// passes its keywords through unchanged), checked by [`FaultSpec::check`]. Exactly one
/// kind: `status` alone, `body` (with `status`, default 200), `echo` (with `status`,
/// default 400), `delay`, `trickle`, `stall`, `drip`, `malformed`, `truncated`, `drop` or
/// `drop_after_apply`.
#[derive(Clone, Debug, PartialEq, Default)]
#[non_exhaustive]
#[allow(clippy::struct_excessive_bools)] // one flag per keyword of `fail_next`, as callers give them
pub struct FaultSpec {
    /// How many requests get the fault (0 to 1,000,000; default 1).
    pub count: Option<i64>,
    pub status: Option<i64>,
    /// Seconds, with `status` alone.
    pub retry_after: Option<i64>,
    /// Seconds.
    pub delay: Option<f64>,
    /// Seconds.
    pub trickle: Option<f64>,
    /// Seconds between the head and the body.
    pub stall: Option<f64>,
    /// Seconds between two bytes of the body.
    pub drip: Option<f64>,
    pub body: Option<Vec<u8>>,
    pub malformed: bool,
    pub truncated: bool,
    pub drop: bool,
    pub drop_after_apply: bool,
    pub echo: bool,
}

/// The most requests one `fail_next` may cover.
pub const MAX_FAULT_COUNT: i64 = 1_000_000;

fn invalid(what: &'static str, message: String) -> Error {
    Error::InvalidInput { what, message }
}

fn seconds(what: &'static str, secs: f64) -> Result<Duration, Error> {
    if secs.is_finite() && (0.0..=MAX_FAULT_DELAY_SECS).contains(&secs) {
        Ok(Duration::from_secs_f64(secs))
    } else {
        Err(invalid(
            what,
            format!("must be a number of seconds from 0 to {MAX_FAULT_DELAY_SECS} (got {secs})"),
        ))
    }
}

fn status(value: i64) -> Result<u16, Error> {
    u16::try_from(value)
        .ok()
        .filter(|s| (100..=599).contains(s))
        .ok_or_else(|| {
            invalid(
                "status",
                format!("must be an HTTP status from 100 to 599 (got {value})"),
            )
        })
}

impl FaultSpec {
    /// The fault and how many requests get it, or an `InvalidInput` naming the argument
    /// and its allowed range.
    pub fn check(&self) -> Result<(Fault, usize), Error> {
        let count = self.count.unwrap_or(1);
        let count = usize::try_from(count)
            .ok()
            .filter(|_| count <= MAX_FAULT_COUNT)
            .ok_or_else(|| invalid("count", format!("must be from 0 to {MAX_FAULT_COUNT} (got {count})")))?;
        let kinds = [
            ("status", self.status.is_some() && self.body.is_none() && !self.echo),
            ("body", self.body.is_some()),
            ("echo", self.echo),
            ("delay", self.delay.is_some()),
            ("trickle", self.trickle.is_some()),
            ("stall", self.stall.is_some()),
            ("drip", self.drip.is_some()),
            ("malformed", self.malformed),
            ("truncated", self.truncated),
            ("drop", self.drop),
            ("drop_after_apply", self.drop_after_apply),
        ];
        let chosen: Vec<&str> = kinds.iter().filter(|(_, on)| *on).map(|(name, _)| *name).collect();
        let [kind] = chosen.as_slice() else {
            return Err(invalid(
                "fault",
                format!(
                    "give exactly one of status=, body=, echo=, delay=, trickle=, stall=, drip=, malformed=, \
                     truncated=, drop=, drop_after_apply= (got {})",
                    if chosen.is_empty() {
                        "none".to_owned()
                    } else {
                        chosen.join(", ")
                    }
                ),
            ));
        };
        if self.retry_after.is_some() && *kind != "status" {
            return Err(invalid("retry_after", "goes with status= alone".to_owned()));
        }
        let fault = match *kind {
            "status" => Fault::Status {
                status: status(self.status.unwrap_or_default())?,
                retry_after: match self.retry_after {
                    None => None,
                    Some(secs) => Some(u32::try_from(secs).ok().map(u64::from).ok_or_else(|| {
                        invalid(
                            "retry_after",
                            format!("must be from 0 to {} seconds (got {secs})", u32::MAX),
                        )
                    })?),
                },
            },
            "body" => Fault::Body {
                status: self.status.map_or(Ok(200), status)?,
                body: self.body.clone().unwrap_or_default(),
            },
            "echo" => Fault::Echo {
                status: self.status.map_or(Ok(400), status)?,
            },
            "delay" => Fault::Delay(seconds("delay", self.delay.unwrap_or_default())?),
            "trickle" => Fault::Trickle(seconds("trickle", self.trickle.unwrap_or_default())?),
            "stall" => Fault::Stall(seconds("stall", self.stall.unwrap_or_default())?),
            "drip" => Fault::Drip(seconds("drip", self.drip.unwrap_or_default())?),
            "malformed" => Fault::MalformedBody,
            "truncated" => Fault::TruncatedBody,
            "drop_after_apply" => Fault::DropAfterApply,
            _ => Fault::Drop,
        };
        Ok((fault, count))
    }
}

/// Lasting log-push quirks of a real server, set through the emulator's control route
/// (`PUT {base}/__emulator/logpush`, body as [`LogpushQuirks::from_json`] reads it), so
/// that tests prove clients cope with them:
/// - `reserialize_filters`: job filters are stored as a server may write them back: members
///   reordered, spaces added, numbers as strings, groups of three or more nested;
/// - `transformers_unavailable`: the account lacks Transformers: every transformer endpoint
///   answers 403 (transformers.mdx, API errors; core's `transformer::feature_refusal`);
/// - `field_drift`: per dataset, fields the live field list adds (`{"name": "description"}`)
///   or lacks (`["name"]`) compared with the embedded schema.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct LogpushQuirks {
    pub reserialize_filters: bool,
    /// Every transformer endpoint answers 403: the account lacks the feature.
    pub transformers_unavailable: bool,
    /// dataset → the drift of its live field list.
    pub field_drift: std::collections::BTreeMap<String, FieldDrift>,
}

/// How a dataset's live field list differs from its embedded schema.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct FieldDrift {
    /// Fields served besides the schema's, with their description.
    pub add: Vec<(String, String)>,
    /// Schema fields not served.
    pub remove: Vec<String>,
}

impl LogpushQuirks {
    /// Reads `{"reserialize_filters": bool, "field_drift": {"<dataset>": {"add": {...},
    /// "remove": [...]}}}`; members left out are off. Anything else is refused, naming it.
    pub fn from_json(value: &serde_json::Value) -> Result<Self, String> {
        let obj = value.as_object().ok_or("the quirks are a JSON object")?;
        let mut quirks = LogpushQuirks::default();
        for (key, v) in obj {
            match key.as_str() {
                "reserialize_filters" => {
                    quirks.reserialize_filters = v.as_bool().ok_or("`reserialize_filters` takes true or false")?;
                }
                "transformers_unavailable" => {
                    quirks.transformers_unavailable =
                        v.as_bool().ok_or("`transformers_unavailable` takes true or false")?;
                }
                "field_drift" => {
                    let drift = v
                        .as_object()
                        .ok_or("`field_drift` maps dataset names to {add, remove}")?;
                    for (dataset, d) in drift {
                        let d = d.as_object().ok_or(format!(
                            "`field_drift.{dataset}` is an object with `add` and/or `remove`"
                        ))?;
                        if let Some(other) = d.keys().find(|k| !matches!(k.as_str(), "add" | "remove")) {
                            return Err(format!(
                                "`field_drift.{dataset}.{other}` is not known; use add or remove"
                            ));
                        }
                        let add = match d.get("add") {
                            None => Vec::new(),
                            Some(serde_json::Value::Object(m)) => m
                                .iter()
                                .map(|(k, v)| v.as_str().map(|v| (k.clone(), v.to_owned())))
                                .collect::<Option<Vec<_>>>()
                                .ok_or(format!("`field_drift.{dataset}.add` maps field names to descriptions"))?,
                            Some(_) => {
                                return Err(format!("`field_drift.{dataset}.add` maps field names to descriptions"))
                            }
                        };
                        let remove = match d.get("remove") {
                            None => Vec::new(),
                            Some(serde_json::Value::Array(items)) => items
                                .iter()
                                .map(|i| i.as_str().map(str::to_owned))
                                .collect::<Option<Vec<_>>>()
                                .ok_or(format!("`field_drift.{dataset}.remove` lists field names"))?,
                            Some(_) => return Err(format!("`field_drift.{dataset}.remove` lists field names")),
                        };
                        quirks.field_drift.insert(dataset.clone(), FieldDrift { add, remove });
                    }
                }
                other => {
                    return Err(format!(
                        "`{other}` is not a log-push quirk; use reserialize_filters, transformers_unavailable or field_drift"
                    ))
                }
            }
        }
        Ok(quirks)
    }
}

/// Pending faults, in the order they were queued, each with how many requests it has left.
#[derive(Debug, Default)]
pub(crate) struct FaultQueue(VecDeque<(Fault, usize)>);

impl FaultQueue {
    pub fn push(&mut self, fault: Fault, count: usize) {
        if count > 0 {
            self.0.push_back((fault, count));
        }
    }

    pub fn clear(&mut self) {
        self.0.clear();
    }

    /// The fault for the next request, if any.
    pub fn next(&mut self) -> Option<Fault> {
        let (fault, remaining) = self.0.front_mut()?;
        let fault = fault.clone();
        *remaining -= 1;
        if *remaining == 0 {
            self.0.pop_front();
        }
        Some(fault)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(f: impl FnOnce(&mut FaultSpec)) -> Result<(Fault, usize), Error> {
        let mut s = FaultSpec::default();
        f(&mut s);
        s.check()
    }

    #[test]
    fn arguments_are_checked_with_their_range() {
        assert_eq!(
            spec(|s| s.status = Some(429)).unwrap(),
            (
                Fault::Status {
                    status: 429,
                    retry_after: None
                },
                1
            )
        );
        assert_eq!(
            spec(|s| {
                s.body = Some(b"null".to_vec());
                s.count = Some(3);
            })
            .unwrap(),
            (
                Fault::Body {
                    status: 200,
                    body: b"null".to_vec()
                },
                3
            )
        );
        assert_eq!(spec(|s| s.echo = true).unwrap().0, Fault::Echo { status: 400 });
        for (what, bad) in [
            ("delay", spec(|s| s.delay = Some(1e30))),
            ("delay", spec(|s| s.delay = Some(-1.0))),
            ("delay", spec(|s| s.delay = Some(f64::NAN))),
            ("delay", spec(|s| s.delay = Some(f64::INFINITY))),
            ("trickle", spec(|s| s.trickle = Some(-0.5))),
            ("status", spec(|s| s.status = Some(65_536))),
            ("status", spec(|s| s.status = Some(99))),
            (
                "retry_after",
                spec(|s| {
                    s.status = Some(429);
                    s.retry_after = Some(-1);
                }),
            ),
            (
                "retry_after",
                spec(|s| {
                    s.drop = true;
                    s.retry_after = Some(1);
                }),
            ),
            (
                "count",
                spec(|s| {
                    s.drop = true;
                    s.count = Some(-1);
                }),
            ),
            ("fault", spec(|_| {})),
            (
                "fault",
                spec(|s| {
                    s.drop = true;
                    s.malformed = true;
                }),
            ),
            (
                "fault",
                spec(|s| {
                    s.status = Some(500);
                    s.delay = Some(1.0);
                }),
            ),
        ] {
            let err = bad.unwrap_err();
            assert!(
                matches!(&err, Error::InvalidInput { what: w, .. } if *w == what),
                "{what}: {err}"
            );
        }
        let err = spec(|s| s.delay = Some(1e30)).unwrap_err().to_string();
        assert!(
            err.starts_with("invalid delay: must be a number of seconds from 0 to 86400"),
            "{err}"
        );
    }

    #[test]
    fn the_queue_serves_in_order() {
        let mut q = FaultQueue::default();
        q.push(Fault::Drop, 2);
        q.push(Fault::MalformedBody, 0);
        q.push(Fault::TruncatedBody, 1);
        assert_eq!(q.next(), Some(Fault::Drop));
        assert_eq!(q.next(), Some(Fault::Drop));
        assert_eq!(q.next(), Some(Fault::TruncatedBody));
        assert_eq!(q.next(), None);
    }
}
