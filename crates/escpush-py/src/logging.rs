//! The transport's request events (escpush-http's `log` events, target
//! [`LOG_TARGET`](escpush_http::LOG_TARGET)) forwarded to Python's `logging`, to the logger of
//! the same name (`logging.getLogger("escpush")`), through pyo3-log.
//!
//! Whether the logger takes `DEBUG` is read from Python ([`detach`]) with the GIL held, as
//! each API call starts, by one `isEnabledFor` (what a disabled `logger.debug` costs in
//! Python; nothing at all before the program imports `logging`): the transport then formats
//! nothing and takes no GIL while it is off, and a change of the logging configuration shows
//! from the next call on. Only the target's events are
//! forwarded: the HTTP library's own (which would show headers) never are.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::OnceLock;

use escpush_http::LOG_TARGET;
use log::{LevelFilter, Log, Metadata, Record};
use pyo3::prelude::*;

/// Whether the `escpush` logger took `DEBUG` when the last call started.
static ENABLED: AtomicBool = AtomicBool::new(false);

/// Python's `logging.getLogger("escpush")`.
static LOGGER: OnceLock<Py<PyAny>> = OnceLock::new();

/// `DEBUG`'s number in Python's `logging`.
const DEBUG: u8 = 10;

struct Forward {
    python: pyo3_log::Logger,
}

impl Log for Forward {
    fn enabled(&self, meta: &Metadata<'_>) -> bool {
        meta.target() == LOG_TARGET && ENABLED.load(Ordering::Relaxed)
    }

    fn log(&self, record: &Record<'_>) {
        if self.enabled(record.metadata()) {
            self.python.log(record);
        }
    }

    fn flush(&self) {}
}

/// Reads whether the `escpush` logger takes `DEBUG` now. Until the program imports
/// `logging` (escpush does not, so that it starts fast), no logger is configured and nothing
/// is asked; the first call after it installs the forwarder.
fn refresh(py: Python<'_>) {
    let logger = match LOGGER.get() {
        Some(logger) => Some(logger.bind(py).clone()),
        None => install(py),
    };
    let on = logger.is_some_and(|logger| {
        logger
            .call_method1("isEnabledFor", (DEBUG,))
            .and_then(|on| on.is_truthy())
            .unwrap_or(false)
    });
    ENABLED.store(on, Ordering::Relaxed);
}

/// `logging.getLogger("escpush")`, the forwarder installed, once `logging` is imported.
fn install(py: Python<'_>) -> Option<Bound<'_, PyAny>> {
    let imported = py
        .import("sys")
        .ok()?
        .getattr("modules")
        .ok()?
        .get_item("logging")
        .ok()?;
    let logger = imported.call_method1("getLogger", (LOG_TARGET,)).ok()?;
    if LOGGER.set(logger.clone().unbind()).is_ok() {
        let python = pyo3_log::Logger::new(py, pyo3_log::Caching::Loggers)
            .ok()?
            .filter(LevelFilter::Debug);
        // This module is the only user of `log` in its own copy of the crate: the logger is free.
        if log::set_boxed_logger(Box::new(Forward { python })).is_ok() {
            log::set_max_level(LevelFilter::Debug);
        }
    }
    Some(logger)
}

/// Runs an API call `f` with the GIL released ([`Python::detach`]), its events going to
/// Python's `logging` when the `escpush` logger takes `DEBUG` as it starts.
pub(crate) fn detach<T, F>(py: Python<'_>, f: F) -> T
where
    F: pyo3::marker::Ungil + FnOnce() -> T,
    T: pyo3::marker::Ungil,
{
    refresh(py);
    py.detach(f)
}
