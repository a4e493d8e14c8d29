//! [`ClientBuilder`]: the settings of a client (credentials, base URL, deadline, retries,
//! size cap), their defaults and their checks.
//!
//! The defaults and ranges are written here once: the Python binding and the command line
//! read them (`escpush.DEFAULT_TIMEOUT`, `escpush.DEFAULT_MAX_RETRIES`, `escpush.MAX_RETRIES`)
//! and convert their arguments with [`TimeSetting::from_secs`]; [`ClientBuilder::build`]
//! applies the one check ([`ClientBuilder::check`]). The retry settings are core's
//! [`RetryPolicy`], which core's retry machine applies; their values are set here.

use std::net::IpAddr;
use std::time::Duration;

use escpush_core::RetryPolicy;
use ureq::http::Uri;

use crate::auth::{invalid_arg, Auth, EnvOverrides};
use crate::client::Client;
use crate::error::Error;
use crate::limit::RateLimit;

/// Cloudflare's v4 API.
pub const DEFAULT_BASE_URL: &str = "https://api.cloudflare.com/client/v4";

const USER_AGENT: &str = concat!("escpush/", env!("CARGO_PKG_VERSION"));

/// The deadline of a call, retries and their waits included ([`ClientBuilder::timeout`]).
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);
/// The longest an attempt may take to connect ([`ClientBuilder::connect_timeout`]).
pub const DEFAULT_CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// Retries of a request safe to repeat ([`ClientBuilder::max_retries`]).
pub const DEFAULT_MAX_RETRIES: u32 = 2;
/// The most retries a client may be asked for. Every retry also waits its backoff within the
/// call's deadline; this bound keeps a mistyped count (or a zero backoff) from turning one
/// call into a flood of requests against the API's rate limit (1200 per 5 minutes).
pub const MAX_RETRIES: u32 = 100;
/// The first retry's wait ([`ClientBuilder::backoff`]).
pub const DEFAULT_RETRY_BACKOFF: Duration = Duration::from_millis(500);
/// The longest wait between retries without `Retry-After` ([`ClientBuilder::max_backoff`]).
pub const DEFAULT_MAX_BACKOFF: Duration = Duration::from_secs(8);
/// The longest `Retry-After` waited for ([`ClientBuilder::max_retry_after`]).
pub const DEFAULT_MAX_RETRY_AFTER: Duration = Duration::from_secs(60);
/// The largest response body read ([`ClientBuilder::max_response_bytes`]).
pub const DEFAULT_MAX_RESPONSE_BYTES: u64 = 10 * 1024 * 1024;

/// A setting of [`ClientBuilder`] measured in time that a binding or a command line takes as
/// a number of seconds, with the range it allows: the one reading of such a number.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum TimeSetting {
    /// [`ClientBuilder::timeout`]: more than zero, no upper bound (a deadline beyond what the
    /// clock can hold is capped, not refused).
    Timeout,
    /// [`ClientBuilder::backoff`]: zero or more.
    RetryBackoff,
    /// [`ClientBuilder::max_retry_after`]: zero or more.
    MaxRetryAfter,
}

impl TimeSetting {
    /// The setting's name, as the Python binding spells its argument (`"timeout"`).
    pub const fn name(self) -> &'static str {
        match self {
            TimeSetting::Timeout => "timeout",
            TimeSetting::RetryBackoff => "retry_backoff",
            TimeSetting::MaxRetryAfter => "max_retry_after",
        }
    }

    /// The setting's default.
    pub const fn default(self) -> Duration {
        match self {
            TimeSetting::Timeout => DEFAULT_TIMEOUT,
            TimeSetting::RetryBackoff => DEFAULT_RETRY_BACKOFF,
            TimeSetting::MaxRetryAfter => DEFAULT_MAX_RETRY_AFTER,
        }
    }

    const fn zero_allowed(self) -> bool {
        match self {
            TimeSetting::Timeout => false,
            TimeSetting::RetryBackoff | TimeSetting::MaxRetryAfter => true,
        }
    }

    fn range(self) -> &'static str {
        if self.zero_allowed() {
            "must be 0 seconds or more"
        } else {
            "must be more than 0 seconds"
        }
    }

    /// `value` if it is in the setting's range, else [`Error::Core`] (invalid input) naming
    /// the setting and its range.
    pub fn check(self, value: Duration) -> Result<Duration, Error> {
        if value.is_zero() && !self.zero_allowed() {
            return Err(invalid_arg(self.name(), format!("{} (got 0)", self.range())));
        }
        Ok(value)
    }

    /// A number of seconds (a float, as Python and a command line give it) as the setting's
    /// [`Duration`]: refused, naming the setting and its range, when it is not a number, out
    /// of the range, or longer than a `Duration` holds.
    pub fn from_secs(self, secs: f64) -> Result<Duration, Error> {
        let refused = |range: &str| invalid_arg(self.name(), format!("{range} (got {secs:?})"));
        if secs.is_nan() || secs < 0.0 || (secs == 0.0 && !self.zero_allowed()) {
            return Err(refused(self.range()));
        }
        let value = Duration::try_from_secs_f64(secs)
            .map_err(|_| refused(&format!("must be at most {} seconds", Duration::MAX.as_secs())))?;
        self.check(value)
    }
}

impl Client {
    /// Settings for a client.
    pub fn builder() -> ClientBuilder {
        ClientBuilder::default()
    }
}

/// Settings of a [`Client`]; consuming setters, then [`ClientBuilder::build`].
#[derive(Clone, Debug)]
#[must_use]
pub struct ClientBuilder {
    base_url: String,
    auth: Option<Auth>,
    timeout: Duration,
    connect_timeout: Duration,
    retry: RetryPolicy,
    max_body: u64,
    allow_insecure_http: bool,
    rate_limit: Option<RateLimit>,
}

impl Default for ClientBuilder {
    fn default() -> Self {
        ClientBuilder {
            base_url: DEFAULT_BASE_URL.to_owned(),
            auth: None,
            timeout: DEFAULT_TIMEOUT,
            connect_timeout: DEFAULT_CONNECT_TIMEOUT,
            retry: RetryPolicy {
                max_retries: DEFAULT_MAX_RETRIES,
                backoff: DEFAULT_RETRY_BACKOFF,
                max_backoff: DEFAULT_MAX_BACKOFF,
                max_retry_after: DEFAULT_MAX_RETRY_AFTER,
            },
            max_body: DEFAULT_MAX_RESPONSE_BYTES,
            allow_insecure_http: false,
            rate_limit: None,
        }
    }
}

impl ClientBuilder {
    /// The API root, ending in `/client/v4` (default [`DEFAULT_BASE_URL`]).
    pub fn base_url(mut self, url: impl Into<String>) -> Self {
        self.base_url = url.into();
        self
    }

    /// Authenticate with `X-Auth-Key` and `X-Auth-Email`.
    pub fn api_key(mut self, key: impl Into<String>, email: impl Into<String>) -> Self {
        self.auth = Some(Auth::ApiKey {
            key: key.into(),
            email: email.into(),
        });
        self
    }

    /// Authenticate with `Authorization: Bearer <token>`.
    pub fn api_token(mut self, token: impl Into<String>) -> Self {
        self.auth = Some(Auth::Token(token.into()));
        self
    }

    /// Authenticate with these credentials.
    pub fn auth(mut self, auth: Auth) -> Self {
        self.auth = Some(auth);
        self
    }

    /// The deadline of one call, from its start to its result: connecting, sending and
    /// receiving every attempt, and the waits between retries (`Retry-After` included).
    /// When the API asks to wait past it, the call stops with [`Error::RetryLater`] at once;
    /// when it runs out, [`Error::Timeout`]. Default [`DEFAULT_TIMEOUT`] (30 s); more than
    /// zero ([`TimeSetting::Timeout`]).
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// The most time one attempt may take to open its connection (TCP and TLS), within the
    /// deadline; default [`DEFAULT_CONNECT_TIMEOUT`] (10 s).
    pub fn connect_timeout(mut self, timeout: Duration) -> Self {
        self.connect_timeout = timeout;
        self
    }

    /// How many times a request safe to repeat is retried after 429, 5xx or a lost
    /// connection, within the deadline; default [`DEFAULT_MAX_RETRIES`] (2), at most
    /// [`MAX_RETRIES`] (100).
    pub fn max_retries(mut self, n: u32) -> Self {
        self.retry.max_retries = n;
        self
    }

    /// The first retry's wait; each further one doubles it (up to `max_backoff`), times a
    /// random factor in [0.5, 1). Default [`DEFAULT_RETRY_BACKOFF`] (500 ms).
    pub fn backoff(mut self, base: Duration) -> Self {
        self.retry.backoff = base;
        self
    }

    /// The longest wait between retries without `Retry-After`; default
    /// [`DEFAULT_MAX_BACKOFF`] (8 s).
    pub fn max_backoff(mut self, max: Duration) -> Self {
        self.retry.max_backoff = max;
        self
    }

    /// The longest `Retry-After` the client waits for before retrying; a longer one is cut
    /// to it. A wait (cut or not) that would end after the call's deadline ends the call at
    /// once with [`Error::RetryLater`], which says when the API asked to be retried.
    /// `Retry-After` is delay seconds (above 4294967295, about 136 years, read as that) or an
    /// HTTP date (a date in the past means "now"; a far one is a long wait like any other); a
    /// negative, fractional or unreadable value is ignored (the backoff applies). Default
    /// [`DEFAULT_MAX_RETRY_AFTER`] (60 s).
    pub fn max_retry_after(mut self, max: Duration) -> Self {
        self.retry.max_retry_after = max;
        self
    }

    /// The largest response body read; default [`DEFAULT_MAX_RESPONSE_BYTES`] (10 MiB).
    pub fn max_response_bytes(mut self, max: u64) -> Self {
        self.max_body = max;
        self
    }

    /// Switches on a client-side rate limit (off by default): at most `limit.max()` requests,
    /// retries included, in any window of `limit.per()`, shared by the clones of the client
    /// and counted so that the server never sees more (each request holds its slot from
    /// its start until `per` after its answer). A request waits for a slot within its
    /// deadline; when the slot frees only after it, the call fails at once with
    /// [`Error::Timeout`], nothing sent. [`crate::API_RATE_LIMIT`] is the API's 1200 per
    /// 5 minutes.
    pub fn rate_limit(mut self, limit: Option<RateLimit>) -> Self {
        self.rate_limit = limit;
        self
    }

    /// Allow credentials over plain `http://` to a host other than loopback. Off by default:
    /// anyone on the path could read them.
    pub fn allow_insecure_http(mut self, yes: bool) -> Self {
        self.allow_insecure_http = yes;
        self
    }

    /// Reads `CLOUDFLARE_API_TOKEN`, or `CLOUDFLARE_API_KEY` with `CLOUDFLARE_EMAIL`, and
    /// `CLOUDFLARE_BASE_URL` when set (empty variables count as unset).
    pub fn from_env(self) -> Result<Self, Error> {
        self.from_env_with(&EnvOverrides::new())
    }

    /// Like [`ClientBuilder::from_env`], but each credential or base URL given in
    /// `overrides` wins over its variable: a token or key given in code is used whatever
    /// the environment holds (a key takes its email from the overrides, else from
    /// `CLOUDFLARE_EMAIL`). The one place escpush reads credentials from the environment.
    pub fn from_env_with(self, overrides: &EnvOverrides) -> Result<Self, Error> {
        let (auth, base_url) = overrides.resolve(|name| std::env::var(name).ok())?;
        let b = self.auth(auth);
        Ok(match base_url {
            Some(url) => b.base_url(url),
            None => b,
        })
    }

    /// Checks the ranges of the settings that have one: the deadline ([`TimeSetting`]) and
    /// the number of retries (at most [`MAX_RETRIES`]). [`ClientBuilder::build`] applies it;
    /// a binding may call it to refuse a setting before it has credentials.
    pub fn check(&self) -> Result<(), Error> {
        TimeSetting::Timeout.check(self.timeout)?;
        TimeSetting::RetryBackoff.check(self.retry.backoff)?;
        TimeSetting::MaxRetryAfter.check(self.retry.max_retry_after)?;
        if self.retry.max_retries > MAX_RETRIES {
            return Err(invalid_arg(
                "max_retries",
                format!("must be from 0 to {MAX_RETRIES} (got {})", self.retry.max_retries),
            ));
        }
        Ok(())
    }

    /// Checks the settings and builds the client.
    pub fn build(mut self) -> Result<Client, Error> {
        let auth = self.auth.take().ok_or_else(|| {
            invalid_arg(
                "credentials",
                "give api_token, or api_key with email (or read them from the environment with from_env)",
            )
        })?;
        auth.check()?;
        let base_url = self.base_url.trim_end_matches('/').to_owned();
        check_base_url(&base_url, self.allow_insecure_http)?;
        self.check()?;
        let config = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .max_redirects(0)
            .user_agent(USER_AGENT)
            .timeout_connect(Some(self.connect_timeout))
            .build();
        Ok(Client::new(
            ureq::Agent::new_with_config(config),
            base_url,
            auth,
            self.timeout,
            self.retry,
            self.max_body,
            self.rate_limit,
        ))
    }
}

/// `https://` anywhere; `http://` only to loopback unless `allow_insecure`.
fn check_base_url(url: &str, allow_insecure: bool) -> Result<(), Error> {
    let bad = |message: String| invalid_arg("base URL", message);
    let uri: Uri = url
        .parse()
        .map_err(|e| bad(format!("is not a URL ({e}); give https://<host>/client/v4")))?;
    let Some(scheme) = uri.scheme_str() else {
        return Err(bad("must start with https://".to_owned()));
    };
    let Some(authority) = uri.authority() else {
        return Err(bad("has no host".to_owned()));
    };
    if authority.as_str().contains('@') {
        return Err(bad("must not carry credentials (user@host)".to_owned()));
    }
    if uri.query().is_some() {
        return Err(bad("must not have a query (`?...`); give the API root".to_owned()));
    }
    let host = authority.host().trim_start_matches('[').trim_end_matches(']');
    if host.is_empty() {
        return Err(bad("has no host".to_owned()));
    }
    match scheme.to_ascii_lowercase().as_str() {
        "https" => Ok(()),
        "http" if allow_insecure || is_loopback(host) => Ok(()),
        "http" => Err(bad(format!(
            "plain http:// to `{host}` would send the credentials unencrypted; use https://, a loopback address, \
             or opt in with allow_insecure_http"
        ))),
        other => Err(bad(format!("scheme `{other}` is not supported; use https://"))),
    }
}

fn is_loopback(host: &str) -> bool {
    host.eq_ignore_ascii_case("localhost")
        || host.to_ascii_lowercase().ends_with(".localhost")
        || host.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base_urls() {
        for ok in [
            "https://api.cloudflare.com/client/v4",
            "http://127.0.0.1:8787/client/v4",
            "http://localhost/client/v4",
            "http://[::1]:80/client/v4",
            "http://127.9.9.9/client/v4",
            "HTTPS://api.cloudflare.com",
        ] {
            assert!(check_base_url(ok, false).is_ok(), "{ok}");
        }
        for bad in [
            "http://example.com/client/v4",
            "http://10.0.0.1/client/v4",
            "ftp://x/",
            "api.cloudflare.com",
            "https://",
            "https://x/client/v4?a=b",
            "https://exa mple.com/",
            "",
        ] {
            assert!(check_base_url(bad, false).is_err(), "{bad}");
        }
        assert!(check_base_url("http://example.com/client/v4", true).is_ok());
        let err = check_base_url("https://user:pw@example.com/", false).unwrap_err();
        assert!(
            err.to_string().contains("credentials") && !err.to_string().contains("pw"),
            "{err}"
        );
    }

    #[test]
    fn credentials_are_checked_and_hidden() {
        let c = Client::builder()
            .api_key("verysecretkey", "me@example.com")
            .build()
            .unwrap();
        let dbg = format!("{c:?}");
        assert!(
            !dbg.contains("verysecretkey") && dbg.contains("me@example.com"),
            "{dbg}"
        );
        let c = Client::builder().api_token("verysecrettoken").build().unwrap();
        assert!(!format!("{c:?}").contains("verysecrettoken"));
        assert!(Client::builder().build().is_err());
        let err = Client::builder()
            .api_token("bad\ntoken")
            .build()
            .unwrap_err()
            .to_string();
        assert!(!err.contains("bad\ntoken"), "{err}");
        assert!(Client::builder().api_key("", "e").build().is_err());
        let err = Client::builder()
            .api_token("t")
            .base_url("http://example.com/client/v4")
            .build()
            .unwrap_err();
        assert!(err.to_string().contains("unencrypted"), "{err}");
        let err = Client::builder()
            .api_token("t")
            .timeout(Duration::ZERO)
            .build()
            .unwrap_err();
        assert!(err.to_string().contains("timeout"), "{err}");
    }

    #[test]
    fn retries_are_capped_and_times_read_by_one_rule() {
        let with_retries = |n| Client::builder().api_token("t").max_retries(n).build();
        assert!(with_retries(MAX_RETRIES).is_ok());
        let err = with_retries(MAX_RETRIES + 1).unwrap_err().to_string();
        assert_eq!(err, "invalid max_retries: must be from 0 to 100 (got 101)");
        assert!(with_retries(u32::MAX).is_err());
        // Seconds as Python and the command line give them.
        assert_eq!(
            TimeSetting::Timeout.from_secs(0.25).unwrap(),
            Duration::from_millis(250)
        );
        assert_eq!(TimeSetting::RetryBackoff.from_secs(0.0).unwrap(), Duration::ZERO);
        for bad in [0.0, -1.0, f64::NAN, f64::INFINITY, 1e300] {
            let err = TimeSetting::Timeout.from_secs(bad).unwrap_err().to_string();
            assert!(err.starts_with("invalid timeout: must be "), "{err}");
        }
        let err = TimeSetting::MaxRetryAfter.from_secs(-0.5).unwrap_err().to_string();
        assert_eq!(err, "invalid max_retry_after: must be 0 seconds or more (got -0.5)");
        // A deadline beyond the clock is capped where it is used, not refused.
        assert!(TimeSetting::Timeout.from_secs(1e19).is_ok());
        for setting in [
            TimeSetting::Timeout,
            TimeSetting::RetryBackoff,
            TimeSetting::MaxRetryAfter,
        ] {
            assert_eq!(setting.check(setting.default()).unwrap(), setting.default());
        }
        let b = ClientBuilder::default();
        assert_eq!((b.timeout, b.retry.max_retries), (DEFAULT_TIMEOUT, DEFAULT_MAX_RETRIES));
    }
}
