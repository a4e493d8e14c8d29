//! The transport's events, through the [`log`] facade under the target [`LOG_TARGET`]
//! (`escpush`), each at `Debug`: every attempt (method, URL, the body as core's redaction
//! shows it, the status or failure, the attempt's number and time), every wait before a
//! retry (and why), and every wait for the client-side rate limit. Every line is scrubbed of
//! the call's secrets by the same rule as its errors ([`Secrets`]), and a body is shown by
//! core's [`redact_body`].
//!
//! Nothing is formatted unless a logger takes the target at `Debug`
//! ([`log::log_enabled!`]): with no logger, or the target off, an event costs one atomic load.
//! A Rust program turns them on as for any crate (`env_logger` with `RUST_LOG=escpush=debug`);
//! the Python binding forwards them to `logging.getLogger("escpush")`.

use std::fmt::Arguments;

use escpush_core::{redact_body, Request};

use crate::scrub::Secrets;

/// The `log` target of every event (and the name of the Python logger they go to).
pub const LOG_TARGET: &str = "escpush";

/// Whether a logger takes the transport's events.
pub(crate) fn enabled() -> bool {
    log::log_enabled!(target: LOG_TARGET, log::Level::Debug)
}

/// One event, its text scrubbed of the call's secrets.
pub(crate) fn event(secrets: &Secrets, args: Arguments<'_>) {
    if enabled() {
        let text = secrets.scrub(&args.to_string());
        log::debug!(target: LOG_TARGET, "{text}");
    }
}

/// ` {"body": ...}` as core's redaction shows it, or nothing for a request without a body.
pub(crate) fn shown_body(req: &Request) -> String {
    match &req.body {
        Some(body) => {
            let mut shown = body.clone();
            redact_body(&mut shown);
            format!(" {shown}")
        }
        None => String::new(),
    }
}
