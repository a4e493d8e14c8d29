//! `escpush._escpush.EmulatorServer`: the loopback emulator, driven by `escpush.testing.Emulator`.

use std::sync::Mutex;

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyInt, PyString};

use escpush_core::Scope;
use escpush_emulator::{Emulator, FaultSpec, DEFAULT_LOG_CAPACITY};
use escpush_filter::DatasetScope;

use crate::convert;
use crate::errors;

/// A running emulator on 127.0.0.1. Use `escpush.testing.Emulator`, which wraps it.
#[pyclass(name = "EmulatorServer", module = "escpush.testing", frozen)]
pub struct PyEmulatorServer {
    inner: Mutex<Option<Emulator>>,
    base_url: String,
    port: u16,
    api_key: String,
    email: String,
    api_token: String,
}

impl std::fmt::Debug for PyEmulatorServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PyEmulatorServer")
            .field("base_url", &self.base_url)
            .finish_non_exhaustive()
    }
}

impl PyEmulatorServer {
    fn with<T>(&self, py: Python<'_>, f: impl FnOnce(&Emulator) -> T) -> PyResult<T> {
        let guard = self.inner.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        match guard.as_ref() {
            Some(emu) => Ok(f(emu)),
            None => Err(errors::invalid_input(py, "the emulator is stopped")),
        }
    }
}

#[pymethods]
impl PyEmulatorServer {
    /// Starts serving on 127.0.0.1 (`port=0`: a free port). Credentials not given are random.
    /// The request log keeps the `log_capacity` most recent requests (None: the emulator's
    /// default, 10,000). At most `max_connections` connections are served at once (default
    /// 256); a connection waits at most `idle_timeout` seconds for a request to begin (30)
    /// and `request_timeout` seconds for the rest of it (10).
    #[new]
    #[pyo3(signature = (
        port=0, *, api_key=None, email=None, api_token=None, log_capacity=None, max_connections=None,
        idle_timeout=None, request_timeout=None
    ))]
    #[allow(clippy::too_many_arguments)]
    fn py_new(
        py: Python<'_>,
        port: i64,
        api_key: Option<String>,
        email: Option<String>,
        api_token: Option<String>,
        log_capacity: Option<i64>,
        max_connections: Option<i64>,
        idle_timeout: Option<f64>,
        request_timeout: Option<f64>,
    ) -> PyResult<Self> {
        let log_capacity = log_capacity
            .map_or(Ok(DEFAULT_LOG_CAPACITY), usize::try_from)
            .map_err(|_| {
                errors::invalid_input(
                    py,
                    format!(
                        "invalid log_capacity: must be 0 or more requests (got {})",
                        log_capacity.unwrap_or_default()
                    ),
                )
            })?;
        let port = u16::try_from(convert::int_in_range(py, "port", port, 0, 65_535)?).unwrap_or_default();
        let mut b = Emulator::builder().port(port).log_capacity(log_capacity);
        if let Some(n) = max_connections {
            let n = convert::int_in_range(py, "max_connections", n, 1, 100_000)?;
            b = b.max_connections(usize::try_from(n).unwrap_or(1));
        }
        if let Some(secs) = idle_timeout {
            b = b.idle_timeout(time_limit(py, "idle_timeout", secs)?);
        }
        if let Some(secs) = request_timeout {
            b = b.request_timeout(time_limit(py, "request_timeout", secs)?);
        }
        if let Some(k) = api_key {
            b = b.api_key(k);
        }
        if let Some(e) = email {
            b = b.email(e);
        }
        if let Some(t) = api_token {
            b = b.api_token(t);
        }
        let emu = b.start()?;
        Ok(PyEmulatorServer {
            base_url: emu.base_url(),
            port: emu.port(),
            api_key: emu.api_key().to_owned(),
            email: emu.email().to_owned(),
            api_token: emu.api_token().to_owned(),
            inner: Mutex::new(Some(emu)),
        })
    }

    #[getter]
    fn base_url(&self) -> &str {
        &self.base_url
    }

    #[getter]
    fn port(&self) -> u16 {
        self.port
    }

    #[getter]
    fn api_key(&self) -> &str {
        &self.api_key
    }

    #[getter]
    fn email(&self) -> &str {
        &self.email
    }

    #[getter]
    fn api_token(&self) -> &str {
        &self.api_token
    }

    /// Whether the server still runs.
    #[getter]
    fn running(&self) -> bool {
        self.inner
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .is_some()
    }

    /// The state: `{"zones": {id: {"esc": {...}}}, "accounts": {...}}`, secrets never shown.
    fn state(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let value = self.with(py, Emulator::state)?;
        convert::from_json(py, &value)
    }

    /// The most recent requests received (up to the log's capacity), oldest first,
    /// credentials and secrets redacted.
    fn requests(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let log = self.with(py, Emulator::requests)?;
        let value = serde_json::Value::Array(log.iter().map(escpush_emulator::LoggedRequest::to_json).collect());
        convert::from_json(py, &value)
    }

    /// `{"open_connections", "evicted", "refused", "requests"}`: the connections open now;
    /// since the start, those closed to make room at the cap, those refused with 503, and
    /// the requests received (the log keeps only the most recent).
    fn stats(&self, py: Python<'_>) -> PyResult<std::collections::BTreeMap<&'static str, u64>> {
        let st = self.with(py, Emulator::stats)?;
        Ok([
            (
                "open_connections",
                u64::try_from(st.open_connections).unwrap_or(u64::MAX),
            ),
            ("evicted", st.evicted),
            ("refused", st.refused),
            ("requests", st.requests),
        ]
        .into_iter()
        .collect())
    }

    /// Queues a fault for the next `count` requests. The arguments are passed to the
    /// emulator's `FaultSpec`, which checks them (exactly one kind; each number in its
    /// range) and raises `InvalidInput` naming the argument otherwise.
    #[pyo3(signature = (
        *, count=None, status=None, retry_after=None, delay=None, trickle=None, stall=None, drip=None,
        body=None, malformed=false, truncated=false, drop=false, drop_after_apply=false, echo=false
    ))]
    #[allow(clippy::too_many_arguments, clippy::fn_params_excessive_bools, clippy::similar_names)] // the keywords of `fail_next`, as callers give them
    fn fail_next(
        &self,
        py: Python<'_>,
        count: Option<&Bound<'_, PyAny>>,
        status: Option<&Bound<'_, PyAny>>,
        retry_after: Option<&Bound<'_, PyAny>>,
        delay: Option<&Bound<'_, PyAny>>,
        trickle: Option<&Bound<'_, PyAny>>,
        stall: Option<&Bound<'_, PyAny>>,
        drip: Option<&Bound<'_, PyAny>>,
        body: Option<&Bound<'_, PyAny>>,
        malformed: bool,
        truncated: bool,
        drop: bool,
        drop_after_apply: bool,
        echo: bool,
    ) -> PyResult<()> {
        let mut spec = FaultSpec::default();
        spec.count = int_arg(count)?;
        spec.status = int_arg(status)?;
        spec.retry_after = int_arg(retry_after)?;
        spec.delay = float_arg(delay)?;
        spec.trickle = float_arg(trickle)?;
        spec.stall = float_arg(stall)?;
        spec.drip = float_arg(drip)?;
        spec.body = match body {
            None => None,
            Some(b) if b.is_none() => None,
            Some(b) => Some(if let Ok(text) = b.cast::<PyString>() {
                text.to_cow()?.as_bytes().to_vec()
            } else {
                b.cast::<PyBytes>()?.as_bytes().to_vec()
            }),
        };
        spec.malformed = malformed;
        spec.truncated = truncated;
        spec.drop = drop;
        spec.drop_after_apply = drop_after_apply;
        spec.echo = echo;
        self.with(py, |emu| emu.fail_next_spec(&spec))?
            .map_err(|e| errors::core_error(py, &e))
    }

    /// Drops the pending faults.
    fn clear_faults(&self, py: Python<'_>) -> PyResult<()> {
        self.with(py, Emulator::clear_faults)
    }

    /// Forgets the requests received so far.
    fn clear_requests(&self, py: Python<'_>) -> PyResult<()> {
        self.with(py, Emulator::clear_requests)
    }

    /// Forgets state, requests and faults.
    fn reset(&self, py: Python<'_>) -> PyResult<()> {
        self.with(py, Emulator::reset)
    }

    /// Whether a request to the zone (`kind="zone"`) or account with this `Cookie` header
    /// would be served with ESC disabled.
    #[pyo3(signature = (kind, id, cookie=None))]
    fn esc_disabled_for(&self, py: Python<'_>, kind: &str, id: &str, cookie: Option<&str>) -> PyResult<bool> {
        let scope = scope_of(py, kind, id)?;
        self.with(py, |emu| emu.esc_disabled_for(&scope, cookie))
    }

    /// The ownership challenge written to `destination_conf` for the zone (`kind="zone"`) or
    /// account, or None.
    fn written_challenge(
        &self,
        py: Python<'_>,
        kind: &str,
        id: &str,
        destination_conf: &str,
    ) -> PyResult<Option<String>> {
        let scope = scope_of(py, kind, id)?;
        self.with(py, |emu| emu.written_challenge(&scope, destination_conf))
    }

    /// Edge mode: serves the site the JSON `config` describes (escpush-emulator's
    /// `EdgeSite::from_json`) and gives its root URL.
    fn serve_site(&self, py: Python<'_>, config: &str) -> PyResult<String> {
        let value: serde_json::Value = serde_json::from_str(config)
            .map_err(|e| errors::invalid_input(py, format!("invalid site: not JSON: {e}")))?;
        let site = escpush_emulator::EdgeSite::from_json(&value).map_err(|e| errors::core_error(py, &e))?;
        Ok(self.with(py, |emu| emu.serve_site(site))??)
    }

    /// Sets the log-push quirks from the JSON `config` (escpush-emulator's
    /// `LogpushQuirks::from_json`: `reserialize_filters`, `field_drift`).
    fn set_logpush_quirks(&self, py: Python<'_>, config: &str) -> PyResult<()> {
        let value: serde_json::Value = serde_json::from_str(config)
            .map_err(|e| errors::invalid_input(py, format!("invalid log-push quirks: not JSON: {e}")))?;
        let quirks = escpush_emulator::LogpushQuirks::from_json(&value)
            .map_err(|message| errors::invalid_input(py, format!("invalid log-push quirks: {message}")))?;
        self.with(py, |emu| emu.set_logpush_quirks(quirks))
    }

    /// Whether filters are stored re-serialized, and the ownership challenges issued.
    fn logpush_control(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let value = self.with(py, Emulator::logpush_control)?;
        convert::from_json(py, &value)
    }

    /// The root URL of each zone's site, by zone id.
    fn sites(&self, py: Python<'_>) -> PyResult<std::collections::BTreeMap<String, String>> {
        self.with(py, |emu| emu.sites().into_iter().collect())
    }

    /// Stops serving and closes the open connections (idempotent).
    fn stop(&self, py: Python<'_>) {
        let emu = self
            .inner
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .take();
        if let Some(emu) = emu {
            py.detach(|| emu.stop());
        }
    }

    fn __repr__(&self, py: Python<'_>) -> String {
        format!("EmulatorServer(base_url={})", convert::repr(py, &self.base_url))
    }
}

/// A time limit of the emulator in seconds: more than 0, at most a day.
fn time_limit(py: Python<'_>, what: &str, secs: f64) -> PyResult<std::time::Duration> {
    if secs.is_finite() && secs > 0.0 && secs <= 86_400.0 {
        Ok(std::time::Duration::from_secs_f64(secs))
    } else {
        Err(errors::invalid_input(
            py,
            format!("invalid {what}: must be more than 0 and at most 86400 seconds (got {secs})"),
        ))
    }
}

/// An integer argument as `i64`, saturated (a huge int is out of every range, and the range
/// check names it); `None` for None.
fn int_arg(value: Option<&Bound<'_, PyAny>>) -> PyResult<Option<i64>> {
    let Some(value) = value.filter(|v| !v.is_none()) else {
        return Ok(None);
    };
    match value.extract::<i64>() {
        Ok(n) => Ok(Some(n)),
        Err(_) if value.is_instance_of::<PyInt>() => Ok(Some(if value.lt(0)? { i64::MIN } else { i64::MAX })),
        Err(e) => Err(e),
    }
}

/// A number of seconds as `f64` (ints too, however large); `None` for None.
fn float_arg(value: Option<&Bound<'_, PyAny>>) -> PyResult<Option<f64>> {
    let Some(value) = value.filter(|v| !v.is_none()) else {
        return Ok(None);
    };
    match value.extract::<f64>() {
        Ok(x) => Ok(Some(x)),
        Err(_) if value.is_instance_of::<PyInt>() => {
            Ok(Some(if value.lt(0)? { f64::NEG_INFINITY } else { f64::INFINITY }))
        }
        Err(e) => Err(e),
    }
}

/// The zone or account `id`, `kind` read as core reads a scope's name.
fn scope_of(py: Python<'_>, kind: &str, id: &str) -> PyResult<Scope> {
    kind.parse::<DatasetScope>()
        .map_err(escpush_core::Error::from)
        .and_then(|kind| Scope::new(kind, id))
        .map_err(|e| errors::core_error(py, &e))
}
