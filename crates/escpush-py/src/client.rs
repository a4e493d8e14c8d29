//! `escpush.Client` and the scope handles `client.zone(id)` / `client.account(id)`.

use std::time::Duration;

use pyo3::prelude::*;

use escpush_core::Scope;
use escpush_http::{Client, ClientBuilder};

use crate::errors;
use crate::esc::PyEsc;
use crate::logpush::PyLogpush;

fn seconds(py: Python<'_>, what: &str, value: f64) -> PyResult<Duration> {
    if value.is_finite() && value > 0.0 {
        Duration::try_from_secs_f64(value).map_err(|e| errors::invalid_input(py, format!("invalid {what}: {e}")))
    } else {
        Err(errors::invalid_input(
            py,
            format!("invalid {what}: must be a positive number of seconds"),
        ))
    }
}

fn seconds_or_zero(py: Python<'_>, what: &str, value: f64) -> PyResult<Duration> {
    if value == 0.0 {
        Ok(Duration::ZERO)
    } else {
        seconds(py, what, value)
    }
}

/// A string as Python's `repr` writes simple ones: `'abc'`.
pub(crate) fn quote(s: &str) -> String {
    if s.contains(['\'', '\\']) {
        format!("{s:?}")
    } else {
        format!("'{s}'")
    }
}

/// The settings every constructor shares.
struct Settings {
    base_url: Option<String>,
    timeout: f64,
    max_retries: u32,
    retry_backoff: f64,
    max_retry_after: f64,
    allow_insecure_http: bool,
}

impl Settings {
    fn apply(self, py: Python<'_>, mut b: ClientBuilder) -> PyResult<ClientBuilder> {
        if let Some(url) = self.base_url {
            b = b.base_url(url);
        }
        Ok(b.timeout(seconds(py, "timeout", self.timeout)?)
            .max_retries(self.max_retries)
            .backoff(seconds_or_zero(py, "retry_backoff", self.retry_backoff)?)
            .max_retry_after(seconds_or_zero(py, "max_retry_after", self.max_retry_after)?)
            .allow_insecure_http(self.allow_insecure_http))
    }
}

/// A client of Cloudflare's v4 API.
///
/// `Client(api_key=..., email=...)` (the `X-Auth-Key`/`X-Auth-Email` scheme) or
/// `Client(api_token=...)` (`Authorization: Bearer`), or `Client.from_env()`.
#[pyclass(name = "Client", module = "escpush", frozen)]
#[derive(Debug)]
pub struct PyClient {
    inner: Client,
}

#[pymethods]
impl PyClient {
    #[new]
    #[pyo3(signature = (
        *, api_key=None, email=None, api_token=None, base_url=None, timeout=30.0, max_retries=2,
        retry_backoff=0.5, max_retry_after=60.0, allow_insecure_http=false
    ))]
    #[allow(clippy::too_many_arguments)]
    fn py_new(
        py: Python<'_>,
        api_key: Option<String>,
        email: Option<String>,
        api_token: Option<String>,
        base_url: Option<String>,
        timeout: f64,
        max_retries: u32,
        retry_backoff: f64,
        max_retry_after: f64,
        allow_insecure_http: bool,
    ) -> PyResult<Self> {
        let b =
            match (api_key, email, api_token) {
                (None, None, Some(token)) => Client::builder().api_token(token),
                (Some(key), Some(email), None) => Client::builder().api_key(key, email),
                (_, _, Some(_)) => {
                    return Err(errors::invalid_input(
                        py,
                        "invalid credentials: give api_token, or api_key with email, not both",
                    ))
                }
                (Some(_), None, None) => {
                    return Err(errors::invalid_input(
                        py,
                        "invalid credentials: api_key needs the account's email too",
                    ))
                }
                (None, Some(_), None) => {
                    return Err(errors::invalid_input(
                        py,
                        "invalid credentials: email needs api_key too",
                    ))
                }
                (None, None, None) => return Err(errors::invalid_input(
                    py,
                    "invalid credentials: give api_token=..., or api_key=... with email=... (or use Client.from_env())",
                )),
            };
        let settings = Settings {
            base_url,
            timeout,
            max_retries,
            retry_backoff,
            max_retry_after,
            allow_insecure_http,
        };
        let inner = settings.apply(py, b)?.build().map_err(|e| errors::http_error(py, &e))?;
        Ok(PyClient { inner })
    }

    /// A client from `CLOUDFLARE_API_TOKEN`, or `CLOUDFLARE_API_KEY` with `CLOUDFLARE_EMAIL`;
    /// the base URL from `base_url`, else `CLOUDFLARE_BASE_URL`, else Cloudflare's.
    #[staticmethod]
    #[pyo3(signature = (
        *, base_url=None, timeout=30.0, max_retries=2, retry_backoff=0.5, max_retry_after=60.0,
        allow_insecure_http=false
    ))]
    fn from_env(
        py: Python<'_>,
        base_url: Option<String>,
        timeout: f64,
        max_retries: u32,
        retry_backoff: f64,
        max_retry_after: f64,
        allow_insecure_http: bool,
    ) -> PyResult<Self> {
        let b = Client::builder().from_env().map_err(|e| errors::http_error(py, &e))?;
        let settings = Settings {
            base_url,
            timeout,
            max_retries,
            retry_backoff,
            max_retry_after,
            allow_insecure_http,
        };
        let inner = settings.apply(py, b)?.build().map_err(|e| errors::http_error(py, &e))?;
        Ok(PyClient { inner })
    }

    /// The API root this client talks to.
    #[getter]
    fn base_url(&self) -> &str {
        self.inner.base_url()
    }

    /// A zone, its id checked (raises `InvalidInput` before anything is sent).
    fn zone(&self, py: Python<'_>, zone_id: String) -> PyResult<PyZone> {
        let scope = Scope::zone(zone_id).map_err(|e| errors::core_error(py, &e))?;
        Ok(PyZone {
            logpush: PyLogpush {
                client: self.inner.clone(),
                scope: scope.clone(),
            },
            esc: PyEsc {
                client: self.inner.clone(),
                scope,
            },
        })
    }

    /// An account, its id checked (raises `InvalidInput` before anything is sent).
    fn account(&self, py: Python<'_>, account_id: String) -> PyResult<PyAccount> {
        let scope = Scope::account(account_id).map_err(|e| errors::core_error(py, &e))?;
        Ok(PyAccount {
            logpush: PyLogpush {
                client: self.inner.clone(),
                scope: scope.clone(),
            },
            esc: PyEsc {
                client: self.inner.clone(),
                scope,
            },
        })
    }

    fn __repr__(&self) -> String {
        format!(
            "Client(base_url={}, auth={})",
            quote(self.inner.base_url()),
            quote(self.inner.auth().scheme())
        )
    }
}

/// One zone of the API: `client.zone(id)`.
#[pyclass(name = "Zone", module = "escpush", frozen)]
#[derive(Debug)]
pub struct PyZone {
    esc: PyEsc,
    logpush: PyLogpush,
}

#[pymethods]
impl PyZone {
    /// The zone id.
    #[getter]
    fn id(&self) -> &str {
        self.esc.scope.id()
    }

    /// The zone's ESC controls.
    #[getter]
    fn esc(&self) -> PyEsc {
        self.esc.clone()
    }

    /// The zone's log-push jobs.
    #[getter]
    fn logpush(&self) -> PyLogpush {
        self.logpush.clone()
    }

    fn __repr__(&self) -> String {
        format!("Zone({})", quote(self.esc.scope.id()))
    }
}

/// One account of the API: `client.account(id)`. Its ESC setting covers all its zones.
#[pyclass(name = "Account", module = "escpush", frozen)]
#[derive(Debug)]
pub struct PyAccount {
    esc: PyEsc,
    logpush: PyLogpush,
}

#[pymethods]
impl PyAccount {
    /// The account id.
    #[getter]
    fn id(&self) -> &str {
        self.esc.scope.id()
    }

    /// The account's ESC controls.
    #[getter]
    fn esc(&self) -> PyEsc {
        self.esc.clone()
    }

    /// The account's log-push jobs.
    #[getter]
    fn logpush(&self) -> PyLogpush {
        self.logpush.clone()
    }

    fn __repr__(&self) -> String {
        format!("Account({})", quote(self.esc.scope.id()))
    }
}
