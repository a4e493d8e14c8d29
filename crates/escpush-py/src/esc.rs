//! `escpush.EscStatus`, the `.esc` controls of a zone or an account, and `esc_cookie`.

use std::sync::Mutex;

use pyo3::prelude::*;
use pyo3::types::PyType;

use escpush_core::{EscSecret, EscStatus, Scope};
use escpush_http::Client;

use crate::convert::Text;
use crate::errors;
use crate::signals::Termination;

/// A lock that survives a panic of its last holder.
fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Checks a secret given from Python; the error never repeats it.
pub(crate) fn secret_arg(py: Python<'_>, secret: &str) -> PyResult<EscSecret> {
    EscSecret::new(secret).map_err(|e| errors::core_error(py, &e))
}

/// The ESC setting of a zone or an account, as `status()` reads it.
#[pyclass(name = "EscStatus", module = "escpush", frozen, eq)]
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PyEscStatus {
    inner: EscStatus,
}

#[pymethods]
impl PyEscStatus {
    /// `"enabled"` (ESC runs), `"disabled"` (off for every request; a secret may also be
    /// set) or `"secret"` (off only for requests with the `disable_esc` cookie).
    #[getter]
    fn state(&self) -> &'static str {
        self.inner.state().as_str()
    }

    /// Whether ESC is off for every request of the scope (`always`).
    #[getter]
    fn disabled(&self) -> bool {
        self.inner.always
    }

    /// The configured secret, or None. `repr()` never shows it.
    #[getter]
    fn secret(&self) -> Option<&str> {
        self.inner.secret.as_ref().map(EscSecret::expose)
    }

    fn __repr__(&self) -> String {
        let secret = if self.inner.secret.is_some() {
            format!("'{}'", escpush_filter::MASK)
        } else {
            "None".to_owned()
        };
        format!(
            "EscStatus(state='{}', disabled={}, secret={secret})",
            self.state(),
            if self.inner.always { "True" } else { "False" }
        )
    }
}

/// The ESC controls of one zone or account: `zone.esc` / `account.esc`.
#[pyclass(name = "Esc", module = "escpush", frozen)]
#[derive(Clone, Debug)]
pub struct PyEsc {
    pub(crate) client: Client,
    pub(crate) scope: Scope,
}

impl PyEsc {
    fn read_status(&self, py: Python<'_>) -> PyResult<EscStatus> {
        crate::logging::detach(py, || self.client.esc_status(&self.scope)).map_err(|e| errors::http_error(py, &e))
    }

    fn do_disable(&self, py: Python<'_>) -> PyResult<()> {
        crate::logging::detach(py, || self.client.esc_disable(&self.scope)).map_err(|e| errors::http_error(py, &e))
    }

    fn do_enable(&self, py: Python<'_>) -> PyResult<()> {
        crate::logging::detach(py, || self.client.esc_enable(&self.scope)).map_err(|e| errors::http_error(py, &e))
    }
}

#[pymethods]
impl PyEsc {
    /// GET the status and, if one is configured, the secret.
    fn status(&self, py: Python<'_>) -> PyResult<PyEscStatus> {
        self.read_status(py).map(|inner| PyEscStatus { inner })
    }

    /// Disable ESC for every request of the scope (POST `{"always": true}`).
    fn disable(&self, py: Python<'_>) -> PyResult<()> {
        self.do_disable(py)
    }

    /// Enable ESC again (DELETE).
    fn enable(&self, py: Python<'_>) -> PyResult<()> {
        self.do_enable(py)
    }

    /// Configure the secret that disables ESC for requests carrying the cookie
    /// `disable_esc=<secret>` (POST `{"with_secret": ...}`). Without a secret, a strong one is
    /// made from the operating system's random source: 32 bytes as 43 URL-safe base64
    /// characters (`A-Z a-z 0-9 - _`), core's shape for a secret escpush makes, the one an
    /// assessment makes too. Returns the secret set.
    #[pyo3(signature = (secret=None))]
    fn set_secret(&self, py: Python<'_>, secret: Option<Text>) -> PyResult<String> {
        let secret = if let Some(s) = secret {
            secret_arg(py, &s)?
        } else {
            escpush_http::random_secret().map_err(|e| errors::http_error(py, &e))?
        };
        crate::logging::detach(py, || self.client.esc_set_secret(&self.scope, &secret))
            .map_err(|e| errors::http_error(py, &e))?;
        Ok(secret.expose().to_owned())
    }

    /// A context manager: disables ESC on entry (unless it already is) and, on exit, enables
    /// it again if it was enabled before, even when the body raises. `as` gives the previous
    /// status. When enabling again fails, its error (an `ApiError` or `TransportError`) says
    /// that ESC was left disabled and how to enable it; if the body had raised, that
    /// exception is the error's `__context__` ("During handling of the above exception,
    /// another exception occurred"), as with any cleanup that fails. SIGTERM and SIGHUP
    /// raise `escpush.Terminated` in the body (in the main thread, where their handler is
    /// the default), so that the exit enables ESC again before the process ends.
    fn disabled(&self) -> PyEscDisabled {
        PyEscDisabled {
            esc: self.clone(),
            restore: Mutex::new(false),
            termination: Mutex::new(None),
        }
    }

    /// The spec's test order as one safe command (the zone's `.esc` only): a request
    /// stage with a fresh secret cookie, then the zone, then the account when given; each
    /// URL fetched with and without ESC and compared. Every scope changed is put back
    /// before returning, also on an error or an interruption (Ctrl-C, SIGTERM or SIGHUP
    /// (`escpush.Terminated`, in the main thread where their handler is the default), or an
    /// exception from `progress`, which is called with a line before each step; the
    /// exception is raised afterwards with the result as its `assessment` attribute). See
    /// `EscAssessment`.
    #[pyo3(signature = (
        urls, *, account=None, keep_disabled=false, settle=escpush_core::DEFAULT_SETTLE_SECS,
        timeout=escpush_core::DEFAULT_FETCH_TIMEOUT_SECS, expect_status=None, ignore_headers=None, progress=None
    ))]
    // The defaults are core's (above); pyo3 shows an expression as `...`, so `help()` gets
    // their values written out here, and tests/esc/test_assess.py checks that they are core's.
    #[pyo3(
        text_signature = "($self, urls, *, account=None, keep_disabled=False, settle=3.0, timeout=10.0, \
        expect_status=None, ignore_headers=None, progress=None)"
    )]
    #[allow(clippy::too_many_arguments)]
    fn assess(
        &self,
        py: Python<'_>,
        urls: &Bound<'_, PyAny>,
        account: Option<Text>,
        keep_disabled: bool,
        settle: f64,
        timeout: f64,
        expect_status: Option<&Bound<'_, PyAny>>,
        ignore_headers: Option<&Bound<'_, PyAny>>,
        progress: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<crate::assess::PyEscAssessment> {
        let args = crate::assess::AssessArgs {
            urls: crate::assess::strings(py, "urls", urls)?,
            account: account.map(|a| a.0),
            keep_disabled,
            settle,
            timeout,
            expect_status: crate::assess::statuses(expect_status)?,
            ignore_headers: ignore_headers
                .filter(|v| !v.is_none())
                .map(|v| crate::assess::strings(py, "ignore_headers", v))
                .transpose()?,
        };
        crate::assess::run(py, &self.client, &self.scope, args, progress)
    }

    fn __repr__(&self, py: Python<'_>) -> String {
        format!(
            "Esc({}={})",
            self.scope.kind(),
            crate::convert::repr(py, self.scope.id())
        )
    }
}

impl PyEscDisabled {
    /// `err` (enabling ESC again failed) with a message that says the scope was left
    /// disabled and how to enable it, chained to the body's exception `body_exc`.
    fn left_disabled(&self, py: Python<'_>, err: PyErr, body_exc: Option<&Bound<'_, PyAny>>) -> PyErr {
        let scope = &self.esc.scope;
        let call = format!(
            "client.{}({}).esc.enable()",
            scope.kind(),
            crate::convert::repr(py, scope.id())
        );
        let value = err.value(py);
        let amended = (|| -> PyResult<()> {
            let args = value.getattr("args")?;
            let first: String = args.get_item(0)?.extract()?;
            let message = format!(
                "{first}; ESC of {scope} was left disabled: enable it again with {call} or \
                 `escpush esc enable --{} {}`",
                scope.kind(),
                scope.id()
            );
            let rest = args.get_item(pyo3::types::PySlice::new(py, 1, isize::MAX, 1))?;
            let new_args = pyo3::types::PyTuple::new(py, [message.into_pyobject(py)?.into_any()])?.add(rest)?;
            value.setattr("args", new_args)?;
            if let Some(exc) = body_exc.filter(|e| !e.is_none()) {
                value.setattr("__context__", exc)?;
            }
            Ok(())
        })();
        match amended {
            Ok(()) => err,
            Err(e) => e,
        }
    }
}

/// What `esc.disabled()` returns: a context manager.
#[pyclass(name = "EscDisabled", module = "escpush", frozen)]
pub struct PyEscDisabled {
    esc: PyEsc,
    /// Whether the exit must enable ESC again.
    restore: Mutex<bool>,
    /// SIGTERM and SIGHUP raise `escpush.Terminated` in the body (see `signals.rs`).
    termination: Mutex<Option<Termination>>,
}

impl std::fmt::Debug for PyEscDisabled {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PyEscDisabled")
            .field("esc", &self.esc)
            .field("restore", &self.restore)
            .finish_non_exhaustive()
    }
}

#[pymethods]
impl PyEscDisabled {
    fn __enter__(&self, py: Python<'_>) -> PyResult<PyEscStatus> {
        let termination = Termination::catch(py)?;
        let entered = (|| {
            let before = self.esc.read_status(py)?;
            if !before.always {
                self.esc.do_disable(py)?;
                *lock(&self.restore) = true;
                // A signal during the POST: enable ESC again before raising, as no `with`
                // body (and so no `__exit__`) runs after a failed `__enter__`.
                if let Err(stop) = py.check_signals() {
                    *lock(&self.restore) = false;
                    return Err(match self.esc.do_enable(py) {
                        Ok(()) => stop,
                        Err(err) => self.left_disabled(py, err, Some(stop.value(py).as_any())),
                    });
                }
            }
            Ok(before)
        })();
        match entered {
            Ok(before) => {
                *lock(&self.termination) = Some(termination);
                Ok(PyEscStatus { inner: before })
            }
            Err(err) => Err(crate::signals::with_late(py, termination.release(py), err)),
        }
    }

    #[pyo3(signature = (exc_type=None, exc=None, tb=None))]
    fn __exit__(
        &self,
        py: Python<'_>,
        exc_type: Option<&Bound<'_, PyType>>,
        exc: Option<&Bound<'_, PyAny>>,
        tb: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<bool> {
        let _ = (exc_type, tb);
        let restore = std::mem::take(&mut *lock(&self.restore));
        let termination = lock(&self.termination).take();
        if restore {
            if let Err(err) = self.esc.do_enable(py) {
                let err = self.left_disabled(py, err, exc);
                return Err(crate::signals::with_late(
                    py,
                    termination.and_then(|t| t.release(py)),
                    err,
                ));
            }
        }
        // A signal that came as the body ended raises once ESC is enabled again.
        match termination.and_then(|t| t.release(py)) {
            Some(late) => Err(late),
            None => Ok(false),
        }
    }

    fn __repr__(&self, py: Python<'_>) -> String {
        format!("{}.disabled()", self.esc.__repr__(py))
    }
}

/// `"disable_esc=<secret>"`: the value of a `Cookie` header that disables ESC for one request.
#[pyfunction]
pub fn esc_cookie(py: Python<'_>, secret: Text) -> PyResult<String> {
    let secret = &*secret;
    Ok(escpush_core::esc_cookie(&secret_arg(py, secret)?))
}
