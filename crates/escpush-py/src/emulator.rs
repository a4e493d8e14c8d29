//! `escpush._escpush.EmulatorServer`: the loopback emulator, driven by `escpush.testing.Emulator`.

use std::sync::Mutex;
use std::time::Duration;

use pyo3::prelude::*;

use escpush_emulator::{Emulator, Fault, ScopeKind};

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
    #[new]
    #[pyo3(signature = (port=0, *, api_key=None, email=None, api_token=None))]
    fn py_new(port: u16, api_key: Option<String>, email: Option<String>, api_token: Option<String>) -> PyResult<Self> {
        let mut b = Emulator::builder().port(port);
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

    /// The requests received, oldest first, credentials and secrets redacted.
    fn requests(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let log = self.with(py, Emulator::requests)?;
        let value = serde_json::Value::Array(log.iter().map(escpush_emulator::LoggedRequest::to_json).collect());
        convert::from_json(py, &value)
    }

    /// Queues a fault for the next `count` requests. `kind` is `"status"` (with `status` and
    /// optional `retry_after`), `"malformed"`, `"truncated"`, `"delay"` (with `delay` seconds)
    /// or `"drop"`.
    #[pyo3(signature = (kind, count=1, *, status=None, retry_after=None, delay=None))]
    fn fail_next(
        &self,
        py: Python<'_>,
        kind: &str,
        count: usize,
        status: Option<u16>,
        retry_after: Option<u64>,
        delay: Option<f64>,
    ) -> PyResult<()> {
        let fault = match (kind, status, delay) {
            ("status", Some(status), None) if (100..=599).contains(&status) => Fault::Status { status, retry_after },
            ("status", _, _) => return Err(errors::invalid_input(py, "invalid fault: status needs a status from 100 to 599")),
            ("malformed", None, None) => Fault::MalformedBody,
            ("truncated", None, None) => Fault::TruncatedBody,
            ("drop", None, None) => Fault::Drop,
            ("delay", None, Some(secs)) if secs.is_finite() && secs >= 0.0 => Fault::Delay(Duration::from_secs_f64(secs)),
            _ => {
                return Err(errors::invalid_input(
                    py,
                    format!("invalid fault `{kind}`: use status (with status=), malformed, truncated, delay (with delay=) or drop"),
                ))
            }
        };
        self.with(py, |emu| emu.fail_next(fault, count))
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
        let kind = match kind {
            "zone" => ScopeKind::Zone,
            "account" => ScopeKind::Account,
            _ => return Err(errors::invalid_input(py, "invalid kind: use \"zone\" or \"account\"")),
        };
        self.with(py, |emu| emu.esc_disabled_for(kind, id, cookie))
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

    fn __repr__(&self) -> String {
        format!("EmulatorServer(base_url={})", crate::client::quote(&self.base_url))
    }
}
