//! [`ClientBuilder`]: the settings of a client (credentials, base URL, deadline, retries,
//! size cap) and their checks.

use std::net::IpAddr;
use std::time::Duration;

use ureq::http::Uri;

use crate::auth::{invalid_arg, Auth, EnvOverrides};
use crate::client::{Client, RetryPolicy};
use crate::error::Error;
use crate::limit::RateLimit;

/// Cloudflare's v4 API.
pub const DEFAULT_BASE_URL: &str = "https://api.cloudflare.com/client/v4";

const USER_AGENT: &str = concat!("escpush/", env!("CARGO_PKG_VERSION"));

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
            timeout: Duration::from_secs(30),
            connect_timeout: Duration::from_secs(10),
            retry: RetryPolicy {
                max_retries: 2,
                backoff: Duration::from_millis(500),
                max_backoff: Duration::from_secs(8),
                max_retry_after: Duration::from_secs(60),
            },
            max_body: 10 * 1024 * 1024,
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
    /// when it runs out, [`Error::Timeout`]. Default 30 s.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// The most time one attempt may take to open its connection (TCP and TLS), within the
    /// deadline; default 10 s.
    pub fn connect_timeout(mut self, timeout: Duration) -> Self {
        self.connect_timeout = timeout;
        self
    }

    /// How many times a request safe to repeat is retried after 429, 5xx or a lost
    /// connection, within the deadline; default 2.
    pub fn max_retries(mut self, n: u32) -> Self {
        self.retry.max_retries = n;
        self
    }

    /// The first retry's wait; each further one doubles it (up to `max_backoff`), times a
    /// random factor in [0.5, 1). Default 500 ms.
    pub fn backoff(mut self, base: Duration) -> Self {
        self.retry.backoff = base;
        self
    }

    /// The longest wait between retries without `Retry-After`; default 8 s.
    pub fn max_backoff(mut self, max: Duration) -> Self {
        self.retry.max_backoff = max;
        self
    }

    /// The longest `Retry-After` the client waits for before retrying; a longer one is cut
    /// to it. A wait (cut or not) that would end after the call's deadline ends the call at
    /// once with [`Error::RetryLater`], which says when the API asked to be retried.
    /// `Retry-After` is delay seconds (above 4294967295, about 136 years, read as that) or an
    /// HTTP date (a date in the past means "now"; a far one is a long wait like any other); a
    /// negative, fractional or unreadable value is ignored (the backoff applies). Default 60 s.
    pub fn max_retry_after(mut self, max: Duration) -> Self {
        self.retry.max_retry_after = max;
        self
    }

    /// The largest response body read; default 10 MiB.
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

    /// Checks the settings and builds the client.
    pub fn build(self) -> Result<Client, Error> {
        let auth = self.auth.ok_or_else(|| {
            invalid_arg(
                "credentials",
                "give api_token, or api_key with email (or read them from the environment with from_env)",
            )
        })?;
        auth.check()?;
        let base_url = self.base_url.trim_end_matches('/').to_owned();
        check_base_url(&base_url, self.allow_insecure_http)?;
        if self.timeout.is_zero() {
            return Err(invalid_arg("timeout", "must be more than zero"));
        }
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
}
