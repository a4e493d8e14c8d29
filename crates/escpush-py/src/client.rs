//! `escpush.Client` and the scope handles `client.zone(id)` / `client.account(id)`: one
//! `Scope` class, which `Zone` and `Account` extend.

use std::time::Duration;

use pyo3::prelude::*;
use pyo3::PyClassInitializer;

use escpush_core::Scope;
use escpush_http::{
    Auth, Client, ClientBuilder, EnvOverrides, RateLimit, TimeSetting, DEFAULT_MAX_RETRIES, MAX_RATE_LIMIT_REQUESTS,
    MAX_RETRIES,
};

use crate::convert::{int_in_range, repr, Int, Text};
use crate::errors;
use crate::esc::PyEsc;
use crate::logpush::PyLogpush;

/// `rate_limit=(requests, seconds)` as a [`RateLimit`]; `None` leaves it off.
fn rate_limit(py: Python<'_>, value: Option<(i64, f64)>) -> PyResult<Option<RateLimit>> {
    let Some((max, per)) = value else { return Ok(None) };
    let max = int_in_range(py, "rate_limit requests", max, 1, i64::from(MAX_RATE_LIMIT_REQUESTS))?;
    let per = positive_seconds(py, "rate_limit seconds", per)?;
    RateLimit::new(u32::try_from(max).unwrap_or(1), per)
        .map(Some)
        .map_err(|e| errors::http_error(py, &e))
}

/// A positive number of seconds, for a setting escpush-http takes as a `Duration` whose
/// range it does not own (the rate limit's window: `RateLimit::new` refuses zero).
fn positive_seconds(py: Python<'_>, what: &str, value: f64) -> PyResult<Duration> {
    if value.is_finite() && value > 0.0 {
        Duration::try_from_secs_f64(value).map_err(|e| errors::invalid_input(py, format!("invalid {what}: {e}")))
    } else {
        Err(errors::invalid_input(
            py,
            format!("invalid {what}: must be a positive number of seconds"),
        ))
    }
}

/// A client setting given in seconds, read by escpush-http's rule for it.
fn time_setting(py: Python<'_>, setting: TimeSetting, secs: f64) -> PyResult<Duration> {
    setting.from_secs(secs).map_err(|e| errors::http_error(py, &e))
}

/// The defaults of `Client(...)` and `Client.from_env(...)`, as escpush-http's builder has them.
fn default_secs(setting: TimeSetting) -> f64 {
    setting.default().as_secs_f64()
}

fn default_max_retries() -> Int {
    Int::Fits(i64::from(DEFAULT_MAX_RETRIES))
}

/// A client of Cloudflare's v4 API.
///
/// `Client(api_key=..., email=...)` (the `X-Auth-Key`/`X-Auth-Email` scheme) or
/// `Client(api_token=...)` (`Authorization: Bearer`), or `Client.from_env()`.
///
/// `timeout` (seconds, more than 0; `DEFAULT_TIMEOUT`) is the deadline of each call, from
/// its start to its result: connecting, sending and receiving every attempt, and the waits
/// between retries. When the API asks (`Retry-After`) to wait past it, the call stops at once
/// with a `RateLimitError` (or `ServerError`) that says when to retry. `max_retries` (0 to
/// `MAX_RETRIES`; `DEFAULT_MAX_RETRIES`) retries of requests safe to repeat (never a job
/// creation) after 429, 5xx or a lost connection; `retry_backoff` is the
/// first wait, doubling; `max_retry_after` the longest `Retry-After` waited for (a longer
/// one is cut to it). A negative or unreadable `Retry-After` is ignored, a past date means
/// "now".
///
/// A job creation is sent once: retried only after a 429 (which refuses a request before it
/// is processed) or when no connection was made. ESC switches, job updates (PUT) and
/// deletions set a state, so they are retried like reads.
///
/// `rate_limit=(requests, seconds)` (off by default; the API allows `(1200, 300)`) keeps
/// this client, shared by any number of threads, under that many requests, retries
/// included, in any window of that many seconds; a call waits for its turn within its
/// `timeout`, and fails at once with a `TransportError` ("timed out: ... rate limit ...")
/// when its turn comes only after it.
///
/// One client may be shared by many threads: calls release the GIL while they wait on the
/// network, and connections are pooled safely.
///
/// Each request is logged at DEBUG on the `escpush` logger of `logging` (method,
/// URL, status, attempt, retry waits; every secret masked) when logging takes it, or with
/// `CLOUDFLARE_LOG=debug`. A connection that cannot be made names the URL it tried and
/// `CLOUDFLARE_BASE_URL`.
#[pyclass(name = "Client", module = "escpush", frozen)]
#[derive(Debug)]
pub struct PyClient {
    inner: Client,
}

/// An optional `str` argument, read through [`Text`] (a lone surrogate is `InvalidInput`).
fn text(value: Option<Text>) -> Option<String> {
    value.map(|t| t.0)
}

impl PyClient {
    /// Builder `b` with the retry and time settings, each read and checked by escpush-http's
    /// rule (`TimeSetting`, `ClientBuilder::check`).
    fn settings(
        py: Python<'_>,
        b: ClientBuilder,
        timeout: f64,
        max_retries: Int,
        retry_backoff: f64,
        max_retry_after: f64,
    ) -> PyResult<ClientBuilder> {
        // Any Python int: beyond the range, the message is the builder's (its bound read here).
        let max_retries = max_retries.within(py, "max_retries", 0, i64::from(MAX_RETRIES))?;
        let b = b
            .timeout(time_setting(py, TimeSetting::Timeout, timeout)?)
            .max_retries(u32::try_from(max_retries).unwrap_or(u32::MAX))
            .backoff(time_setting(py, TimeSetting::RetryBackoff, retry_backoff)?)
            .max_retry_after(time_setting(py, TimeSetting::MaxRetryAfter, max_retry_after)?);
        b.check().map_err(|e| errors::http_error(py, &e))?;
        Ok(b)
    }

    /// The client from builder `b` (credentials set) and the settings both constructors take.
    #[allow(clippy::too_many_arguments)]
    fn build(
        py: Python<'_>,
        mut b: ClientBuilder,
        base_url: Option<Text>,
        timeout: f64,
        max_retries: Int,
        retry_backoff: f64,
        max_retry_after: f64,
        allow_insecure_http: bool,
        limit: Option<(i64, f64)>,
    ) -> PyResult<Self> {
        if let Some(url) = base_url {
            b = b.base_url(url.0);
        }
        let b = Self::settings(py, b, timeout, max_retries, retry_backoff, max_retry_after)?
            .allow_insecure_http(allow_insecure_http)
            .rate_limit(rate_limit(py, limit)?);
        let inner = b.build().map_err(|e| errors::http_error(py, &e))?;
        Ok(PyClient { inner })
    }
}

/// Checks client settings as `Client(...)` would, without credentials: for the command line,
/// which refuses a bad `--timeout` or `--retries` as a usage error naming the option.
#[pyfunction]
#[pyo3(signature = (
    *, timeout=default_secs(TimeSetting::Timeout), max_retries=default_max_retries(),
    retry_backoff=default_secs(TimeSetting::RetryBackoff), max_retry_after=default_secs(TimeSetting::MaxRetryAfter)
))]
pub fn _check_client_settings(
    py: Python<'_>,
    timeout: f64,
    max_retries: Int,
    retry_backoff: f64,
    max_retry_after: f64,
) -> PyResult<()> {
    PyClient::settings(
        py,
        ClientBuilder::default(),
        timeout,
        max_retries,
        retry_backoff,
        max_retry_after,
    )
    .map(drop)
}

#[pymethods]
impl PyClient {
    #[new]
    #[pyo3(signature = (
        *, api_key=None, email=None, api_token=None, base_url=None, timeout=default_secs(TimeSetting::Timeout),
        max_retries=default_max_retries(), retry_backoff=default_secs(TimeSetting::RetryBackoff),
        max_retry_after=default_secs(TimeSetting::MaxRetryAfter), allow_insecure_http=false, rate_limit=None
    ))]
    // The defaults are escpush-http's (above); pyo3 shows an expression as `...`, so `help()`
    // gets their values written out here, and tests/client/test_client_defaults.py checks that they
    // are the builder's.
    #[pyo3(
        text_signature = "(*, api_key=None, email=None, api_token=None, base_url=None, timeout=30.0, max_retries=2, \
        retry_backoff=0.5, max_retry_after=60.0, allow_insecure_http=False, rate_limit=None)"
    )]
    #[allow(clippy::too_many_arguments)]
    fn py_new(
        py: Python<'_>,
        api_key: Option<Text>,
        email: Option<Text>,
        api_token: Option<Text>,
        base_url: Option<Text>,
        timeout: f64,
        max_retries: Int,
        retry_backoff: f64,
        max_retry_after: f64,
        allow_insecure_http: bool,
        rate_limit: Option<(i64, f64)>,
    ) -> PyResult<Self> {
        let b = match Auth::from_parts(text(api_token), text(api_key), text(email))
            .map_err(|e| errors::http_error(py, &e))?
        {
            Some(auth) => Client::builder().auth(auth),
            None => Client::builder(),
        };
        Self::build(
            py,
            b,
            base_url,
            timeout,
            max_retries,
            retry_backoff,
            max_retry_after,
            allow_insecure_http,
            rate_limit,
        )
    }

    /// A client whose credentials and base URL come from the environment:
    /// `CLOUDFLARE_API_TOKEN`, or `CLOUDFLARE_API_KEY` with `CLOUDFLARE_EMAIL`, and
    /// `CLOUDFLARE_BASE_URL` (else Cloudflare's). Each of `api_token`, `api_key`, `email`
    /// and `base_url` given wins over its variable; a token or key given is used whatever
    /// the environment holds.
    #[staticmethod]
    #[pyo3(signature = (
        *, api_token=None, api_key=None, email=None, base_url=None, timeout=default_secs(TimeSetting::Timeout),
        max_retries=default_max_retries(), retry_backoff=default_secs(TimeSetting::RetryBackoff),
        max_retry_after=default_secs(TimeSetting::MaxRetryAfter), allow_insecure_http=false, rate_limit=None
    ))]
    #[pyo3(
        text_signature = "(*, api_token=None, api_key=None, email=None, base_url=None, timeout=30.0, max_retries=2, \
        retry_backoff=0.5, max_retry_after=60.0, allow_insecure_http=False, rate_limit=None)"
    )]
    #[allow(clippy::too_many_arguments)]
    fn from_env(
        py: Python<'_>,
        api_token: Option<Text>,
        api_key: Option<Text>,
        email: Option<Text>,
        base_url: Option<Text>,
        timeout: f64,
        max_retries: Int,
        retry_backoff: f64,
        max_retry_after: f64,
        allow_insecure_http: bool,
        rate_limit: Option<(i64, f64)>,
    ) -> PyResult<Self> {
        let given = EnvOverrides::new()
            .api_token(text(api_token))
            .api_key(text(api_key))
            .email(text(email));
        let b = Client::builder()
            .from_env_with(&given)
            .map_err(|e| errors::http_error(py, &e))?;
        // The base URL given wins over CLOUDFLARE_BASE_URL, which from_env_with read.
        Self::build(
            py,
            b,
            base_url,
            timeout,
            max_retries,
            retry_backoff,
            max_retry_after,
            allow_insecure_http,
            rate_limit,
        )
    }

    /// The API root this client talks to.
    #[getter]
    fn base_url(&self) -> &str {
        self.inner.base_url()
    }

    /// The client-side rate limit as `(requests, seconds)`, or None when it is off.
    #[getter]
    fn rate_limit(&self) -> Option<(u32, f64)> {
        self.inner.rate_limit().map(|l| (l.max(), l.per().as_secs_f64()))
    }

    /// A zone, its id checked (raises `InvalidInput` before anything is sent).
    fn zone(&self, py: Python<'_>, zone_id: Text) -> PyResult<Py<PyZone>> {
        let scope = Scope::zone(zone_id.0).map_err(|e| errors::core_error(py, &e))?;
        Py::new(py, PyScope::new(&self.inner, scope).add_subclass(PyZone))
    }

    /// An account, its id checked (raises `InvalidInput` before anything is sent).
    fn account(&self, py: Python<'_>, account_id: Text) -> PyResult<Py<PyAccount>> {
        let scope = Scope::account(account_id.0).map_err(|e| errors::core_error(py, &e))?;
        Py::new(py, PyScope::new(&self.inner, scope).add_subclass(PyAccount))
    }

    fn __repr__(&self, py: Python<'_>) -> String {
        format!(
            "Client(base_url={}, auth={})",
            repr(py, self.inner.base_url()),
            repr(py, self.inner.auth().scheme())
        )
    }
}

/// A zone or an account of the API, with its ESC controls and log-push jobs; `Zone` and
/// `Account` are its two kinds.
#[pyclass(name = "Scope", module = "escpush", frozen, subclass)]
#[derive(Debug)]
pub struct PyScope {
    esc: PyEsc,
    logpush: PyLogpush,
}

impl PyScope {
    fn new(client: &Client, scope: Scope) -> PyClassInitializer<PyScope> {
        PyClassInitializer::from(PyScope {
            logpush: PyLogpush {
                client: client.clone(),
                scope: scope.clone(),
            },
            esc: PyEsc {
                client: client.clone(),
                scope,
            },
        })
    }
}

#[pymethods]
impl PyScope {
    /// The zone or account id.
    #[getter]
    fn id(&self) -> &str {
        self.esc.scope.id()
    }

    /// The ESC controls (an account's cover all its zones).
    #[getter]
    fn esc(&self) -> PyEsc {
        self.esc.clone()
    }

    /// The log-push jobs.
    #[getter]
    fn logpush(&self) -> PyLogpush {
        self.logpush.clone()
    }

    /// `Zone('id')` or `Account('id')`.
    fn __repr__(&self, py: Python<'_>) -> String {
        let kind = match self.esc.scope {
            Scope::Zone(_) => "Zone",
            Scope::Account(_) => "Account",
        };
        format!("{kind}({})", repr(py, self.esc.scope.id()))
    }
}

/// One zone of the API: `client.zone(id)`.
#[pyclass(name = "Zone", module = "escpush", frozen, extends = PyScope)]
#[derive(Debug)]
pub struct PyZone;

/// One account of the API: `client.account(id)`. Its ESC setting covers all its zones.
#[pyclass(name = "Account", module = "escpush", frozen, extends = PyScope)]
#[derive(Debug)]
pub struct PyAccount;
