//! The client: a configured ureq agent, credentials and a retry policy.

use std::collections::hash_map::RandomState;
use std::fmt;
use std::hash::{BuildHasher, Hasher};
use std::net::IpAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use escpush_core::{
    get_job_request, json_kind, list_jobs_request, parse_response, EscOp, EscSecret, EscStatus, JobSpec, Method,
    Request, Scope,
};
use serde_json::Value;

use crate::error::Error;

/// Cloudflare's v4 API.
pub const DEFAULT_BASE_URL: &str = "https://api.cloudflare.com/client/v4";

const USER_AGENT: &str = concat!("escpush/", env!("CARGO_PKG_VERSION"));

/// How the client authenticates.
#[derive(Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Auth {
    /// `X-Auth-Key` and `X-Auth-Email` (the scheme the spec shows).
    ApiKey { key: String, email: String },
    /// `Authorization: Bearer <token>`.
    Token(String),
}

impl Auth {
    fn check(&self) -> Result<(), Error> {
        let check = |what: &'static str, value: &str| -> Result<(), Error> {
            if value.is_empty() {
                return Err(invalid(what, "must not be empty"));
            }
            if value.chars().any(|c| c.is_control() || !c.is_ascii()) {
                return Err(invalid(what, "must be printable ASCII (a header value)"));
            }
            Ok(())
        };
        match self {
            Auth::ApiKey { key, email } => {
                check("API key", key)?;
                check("email", email)
            }
            Auth::Token(token) => check("API token", token),
        }
    }

    /// `"api_key"` or `"api_token"`: which scheme, never the credential.
    pub fn scheme(&self) -> &'static str {
        match self {
            Auth::ApiKey { .. } => "api_key",
            Auth::Token(_) => "api_token",
        }
    }
}

impl fmt::Debug for Auth {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Auth::ApiKey { email, .. } => f
                .debug_struct("ApiKey")
                .field("key", &"<redacted>")
                .field("email", email)
                .finish(),
            Auth::Token(_) => f.debug_tuple("Token").field(&"<redacted>").finish(),
        }
    }
}

fn invalid(what: &'static str, message: impl Into<String>) -> Error {
    Error::Core(escpush_core::Error::InvalidInput {
        what,
        message: message.into(),
    })
}

/// Settings of a [`Client`]; consuming setters, then [`ClientBuilder::build`].
#[derive(Clone, Debug)]
#[must_use]
pub struct ClientBuilder {
    base_url: String,
    auth: Option<Auth>,
    connect_timeout: Duration,
    read_timeout: Duration,
    max_retries: u32,
    backoff: Duration,
    max_backoff: Duration,
    max_retry_after: Duration,
    max_body: u64,
    allow_insecure_http: bool,
}

impl Default for ClientBuilder {
    fn default() -> Self {
        ClientBuilder {
            base_url: DEFAULT_BASE_URL.to_owned(),
            auth: None,
            connect_timeout: Duration::from_secs(10),
            read_timeout: Duration::from_secs(30),
            max_retries: 2,
            backoff: Duration::from_millis(500),
            max_backoff: Duration::from_secs(8),
            max_retry_after: Duration::from_secs(60),
            max_body: 10 * 1024 * 1024,
            allow_insecure_http: false,
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

    /// Sets both the connect and the read timeout.
    pub fn timeout(self, timeout: Duration) -> Self {
        self.connect_timeout(timeout).read_timeout(timeout)
    }

    /// Time allowed to open the connection (TCP and TLS); default 10 s.
    pub fn connect_timeout(mut self, timeout: Duration) -> Self {
        self.connect_timeout = timeout;
        self
    }

    /// Time allowed for the answer's head, and again for its body; default 30 s.
    pub fn read_timeout(mut self, timeout: Duration) -> Self {
        self.read_timeout = timeout;
        self
    }

    /// How many times a request safe to repeat is retried after 429, 5xx or a lost
    /// connection; default 2.
    pub fn max_retries(mut self, n: u32) -> Self {
        self.max_retries = n;
        self
    }

    /// The first retry's wait; each further one doubles it (up to `max_backoff`), times a
    /// random factor in [0.5, 1). Default 500 ms.
    pub fn backoff(mut self, base: Duration) -> Self {
        self.backoff = base;
        self
    }

    /// The longest wait between retries without `Retry-After`; default 8 s.
    pub fn max_backoff(mut self, max: Duration) -> Self {
        self.max_backoff = max;
        self
    }

    /// The longest `Retry-After` (delay seconds or an HTTP date) honoured; longer ones are cut
    /// to it. Default 60 s.
    pub fn max_retry_after(mut self, max: Duration) -> Self {
        self.max_retry_after = max;
        self
    }

    /// The largest response body read; default 10 MiB.
    pub fn max_response_bytes(mut self, max: u64) -> Self {
        self.max_body = max;
        self
    }

    /// Allow credentials over plain `http://` to a host other than loopback. Off by default:
    /// anyone on the path could read them.
    pub fn allow_insecure_http(mut self, yes: bool) -> Self {
        self.allow_insecure_http = yes;
        self
    }

    /// Reads `CLOUDFLARE_API_TOKEN`, or `CLOUDFLARE_API_KEY` with `CLOUDFLARE_EMAIL`, and
    /// `CLOUDFLARE_BASE_URL` when set.
    pub fn from_env(self) -> Result<Self, Error> {
        let var = |name: &str| std::env::var(name).ok().filter(|v| !v.is_empty());
        let mut b = self;
        if let Some(url) = var("CLOUDFLARE_BASE_URL") {
            b = b.base_url(url);
        }
        if let Some(token) = var("CLOUDFLARE_API_TOKEN") {
            return Ok(b.api_token(token));
        }
        match (var("CLOUDFLARE_API_KEY"), var("CLOUDFLARE_EMAIL")) {
            (Some(key), Some(email)) => Ok(b.api_key(key, email)),
            (Some(_), None) => Err(invalid(
                "credentials",
                "CLOUDFLARE_API_KEY is set but CLOUDFLARE_EMAIL is not",
            )),
            _ => Err(invalid(
                "credentials",
                "set CLOUDFLARE_API_TOKEN, or CLOUDFLARE_API_KEY and CLOUDFLARE_EMAIL",
            )),
        }
    }

    /// Checks the settings and builds the client.
    pub fn build(self) -> Result<Client, Error> {
        let auth = self.auth.ok_or_else(|| {
            invalid(
                "credentials",
                "give an API token, or an API key with the account's email",
            )
        })?;
        auth.check()?;
        let base_url = self.base_url.trim_end_matches('/').to_owned();
        check_base_url(&base_url, self.allow_insecure_http)?;
        let config = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .max_redirects(0)
            .user_agent(USER_AGENT)
            .timeout_connect(Some(self.connect_timeout))
            .timeout_recv_response(Some(self.read_timeout))
            .timeout_recv_body(Some(self.read_timeout))
            .timeout_send_body(Some(self.read_timeout))
            .build();
        Ok(Client {
            agent: ureq::Agent::new_with_config(config),
            base_url,
            auth,
            max_retries: self.max_retries,
            backoff: self.backoff,
            max_backoff: self.max_backoff,
            max_retry_after: self.max_retry_after,
            max_body: self.max_body,
        })
    }
}

/// `https://` anywhere; `http://` only to loopback unless `allow_insecure`.
fn check_base_url(url: &str, allow_insecure: bool) -> Result<(), Error> {
    let (scheme, rest) = url
        .split_once("://")
        .ok_or_else(|| invalid("base URL", "must start with https://"))?;
    let authority = rest.split(['/', '?', '#']).next().unwrap_or_default();
    if authority.contains('@') {
        return Err(invalid("base URL", "must not carry credentials (user@host)"));
    }
    let host = if let Some(v6) = authority.strip_prefix('[') {
        v6.split(']').next().unwrap_or_default()
    } else {
        authority.rsplit_once(':').map_or(authority, |(h, _)| h)
    };
    if host.is_empty() {
        return Err(invalid("base URL", "has no host"));
    }
    match scheme.to_ascii_lowercase().as_str() {
        "https" => Ok(()),
        "http" if allow_insecure || is_loopback(host) => Ok(()),
        "http" => Err(invalid(
            "base URL",
            format!(
                "plain http:// to `{host}` would send the credentials unencrypted; use https://, a loopback \
                 address, or opt in with allow_insecure_http"
            ),
        )),
        other => Err(invalid(
            "base URL",
            format!("scheme `{other}` is not supported; use https://"),
        )),
    }
}

fn is_loopback(host: &str) -> bool {
    host.eq_ignore_ascii_case("localhost")
        || host.to_ascii_lowercase().ends_with(".localhost")
        || host.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback())
}

/// A blocking client of the v4 API. Cheap to share between threads (`&Client` is enough);
/// connections are pooled.
#[derive(Clone)]
pub struct Client {
    agent: ureq::Agent,
    base_url: String,
    auth: Auth,
    max_retries: u32,
    backoff: Duration,
    max_backoff: Duration,
    max_retry_after: Duration,
    max_body: u64,
}

impl fmt::Debug for Client {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Client")
            .field("base_url", &self.base_url)
            .field("auth", &self.auth)
            .field("max_retries", &self.max_retries)
            .finish_non_exhaustive()
    }
}

/// What one attempt gave.
struct Answer {
    status: u16,
    retry_after: Option<Duration>,
    body: Vec<u8>,
}

impl Client {
    /// Settings for a client.
    pub fn builder() -> ClientBuilder {
        ClientBuilder::default()
    }

    /// The API root this client talks to.
    pub fn base_url(&self) -> &str {
        &self.base_url
    }

    /// The authentication scheme (never the credential).
    pub fn auth(&self) -> &Auth {
        &self.auth
    }

    /// Sends `req` (retrying when it is safe to and the answer asks for it) and gives the
    /// envelope's `result`.
    pub fn execute(&self, req: &Request) -> Result<Value, Error> {
        let mut attempt = 0;
        loop {
            let outcome = self.send_once(req);
            let retry_wait = match &outcome {
                _ if !req.retry_safe || attempt >= self.max_retries => None,
                Ok(a) if a.status == 429 || (500..600).contains(&a.status) => Some(
                    a.retry_after
                        .map_or_else(|| self.backoff_for(attempt), |d| d.min(self.max_retry_after)),
                ),
                Err(Error::Transport { .. }) => Some(self.backoff_for(attempt)),
                _ => None,
            };
            let Some(wait) = retry_wait else {
                let answer = outcome?;
                return Ok(parse_response(answer.status, &answer.body)?);
            };
            std::thread::sleep(wait);
            attempt += 1;
        }
    }

    fn backoff_for(&self, attempt: u32) -> Duration {
        let exp = self
            .backoff
            .saturating_mul(1u32.checked_shl(attempt.min(16)).unwrap_or(u32::MAX));
        exp.min(self.max_backoff).mul_f64(0.5 + 0.5 * jitter())
    }

    fn send_once(&self, req: &Request) -> Result<Answer, Error> {
        let url = format!("{}{}", self.base_url, req.path);
        let body = req.body_bytes();
        let result = match (req.method, body) {
            (Method::Get, _) => self.authed_get(self.agent.get(&url)).call(),
            (Method::Delete, _) => self.authed_get(self.agent.delete(&url)).call(),
            (Method::Post, Some(bytes)) => self
                .authed_post(self.agent.post(&url))
                .header("Content-Type", "application/json")
                .send(&bytes[..]),
            (Method::Post, None) => self.authed_post(self.agent.post(&url)).send_empty(),
            (other, _) => {
                return Err(invalid(
                    "request",
                    format!("method {other} is not supported by this transport"),
                ));
            }
        };
        let mut resp = result?;
        let status = resp.status().as_u16();
        let retry_after = resp
            .headers()
            .get("retry-after")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| parse_retry_after(v, now()));
        let body = resp.body_mut().with_config().limit(self.max_body).read_to_vec()?;
        Ok(Answer {
            status,
            retry_after,
            body,
        })
    }

    fn authed_get(
        &self,
        b: ureq::RequestBuilder<ureq::typestate::WithoutBody>,
    ) -> ureq::RequestBuilder<ureq::typestate::WithoutBody> {
        match &self.auth {
            Auth::ApiKey { key, email } => b.header("X-Auth-Key", key).header("X-Auth-Email", email),
            Auth::Token(token) => b.header("Authorization", format!("Bearer {token}")),
        }
    }

    fn authed_post(
        &self,
        b: ureq::RequestBuilder<ureq::typestate::WithBody>,
    ) -> ureq::RequestBuilder<ureq::typestate::WithBody> {
        match &self.auth {
            Auth::ApiKey { key, email } => b.header("X-Auth-Key", key).header("X-Auth-Email", email),
            Auth::Token(token) => b.header("Authorization", format!("Bearer {token}")),
        }
    }

    /// Performs one ESC operation on `scope` and gives the envelope's `result`.
    pub fn esc(&self, scope: &Scope, op: &EscOp) -> Result<Value, Error> {
        self.execute(&op.request(scope))
    }

    /// `GET .../disable_esc`: the status and, when configured, the secret.
    pub fn esc_status(&self, scope: &Scope) -> Result<EscStatus, Error> {
        let result = self.esc(scope, &EscOp::Status)?;
        Ok(EscStatus::from_result(&result)?)
    }

    /// `POST .../disable_esc {"always": true}`: ESC off for every request of the scope.
    pub fn esc_disable(&self, scope: &Scope) -> Result<(), Error> {
        self.esc(scope, &EscOp::Disable).map(drop)
    }

    /// `DELETE .../disable_esc`: ESC on again.
    pub fn esc_enable(&self, scope: &Scope) -> Result<(), Error> {
        self.esc(scope, &EscOp::Enable).map(drop)
    }

    /// `POST .../disable_esc {"with_secret": "..."}`: requests with cookie
    /// `disable_esc=<secret>` skip ESC.
    pub fn esc_set_secret(&self, scope: &Scope, secret: &EscSecret) -> Result<(), Error> {
        self.esc(scope, &EscOp::SetSecret(secret.clone())).map(drop)
    }

    /// `POST {scope}/logpush/jobs`: creates the job and gives the stored record. Never
    /// retried once the body may have reached the server.
    pub fn create_job(&self, scope: &Scope, spec: &JobSpec) -> Result<Value, Error> {
        self.execute(&spec.create_request(scope)?)
    }

    /// `GET {scope}/logpush/jobs`: every job of the zone or account.
    pub fn jobs(&self, scope: &Scope) -> Result<Vec<Value>, Error> {
        match self.execute(&list_jobs_request(scope))? {
            Value::Array(items) => Ok(items),
            Value::Null => Ok(Vec::new()),
            other => Err(Error::MalformedResponse {
                status: None,
                message: format!("the job list is {}, not an array", json_kind(&other)),
            }),
        }
    }

    /// `GET {scope}/logpush/jobs/{job_id}`: one job.
    pub fn job(&self, scope: &Scope, job_id: u64) -> Result<Value, Error> {
        self.execute(&get_job_request(scope, job_id))
    }
}

fn now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// `Retry-After` (RFC 9110 §10.2.3): delay seconds, or an HTTP date (IMF-fixdate) compared
/// with `now` (Unix seconds). Anything else is ignored (the backoff applies).
fn parse_retry_after(value: &str, now: u64) -> Option<Duration> {
    let value = value.trim();
    if let Ok(secs) = value.parse::<u64>() {
        return Some(Duration::from_secs(secs));
    }
    // "Sun, 06 Nov 1994 08:49:37 GMT"
    let parts: Vec<&str> = value.split_whitespace().collect();
    let [_, day, month, year, time, "GMT"] = parts.as_slice() else {
        return None;
    };
    let month = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ]
    .iter()
    .position(|m| m == month)?;
    let (day, year): (i64, i64) = (day.parse().ok()?, year.parse().ok()?);
    let hms: Vec<i64> = time.split(':').map(str::parse).collect::<Result<_, _>>().ok()?;
    let [h, m, s] = hms.as_slice() else { return None };
    let at = days_from_civil(year, i64::try_from(month).ok()? + 1, day) * 86_400 + h * 3600 + m * 60 + s;
    let wait = at - i64::try_from(now).ok()?;
    Some(Duration::from_secs(u64::try_from(wait).unwrap_or(0)))
}

/// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's algorithm).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let doy = (153 * ((m + 9) % 12) + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// A number in [0, 1) from std's randomly keyed hasher: enough to spread retries, no crate.
fn jitter() -> f64 {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let mut h = RandomState::new().build_hasher();
    h.write_u64(COUNTER.fetch_add(1, Ordering::Relaxed));
    let high = u32::try_from(h.finish() >> 32).unwrap_or(0);
    f64::from(high) / 4_294_967_296.0
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
        ] {
            assert!(check_base_url(ok, false).is_ok(), "{ok}");
        }
        for bad in [
            "http://example.com/client/v4",
            "http://10.0.0.1/client/v4",
            "ftp://x/",
            "api.cloudflare.com",
        ] {
            assert!(check_base_url(bad, false).is_err(), "{bad}");
        }
        assert!(check_base_url("http://example.com/client/v4", true).is_ok());
        assert!(check_base_url("https://user:pw@example.com/", false).is_err());
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
        assert!(!err.contains("bad") || !err.contains("token\n"), "{err}");
        assert!(Client::builder().api_key("", "e").build().is_err());
        let err = Client::builder()
            .api_token("t")
            .base_url("http://example.com/client/v4")
            .build()
            .unwrap_err();
        assert!(err.to_string().contains("unencrypted"), "{err}");
    }

    #[test]
    fn retry_after_takes_seconds_or_a_date() {
        assert_eq!(parse_retry_after(" 7 ", 0), Some(Duration::from_secs(7)));
        // 1994-11-06T08:49:37Z is 784111777
        let date = "Sun, 06 Nov 1994 08:49:37 GMT";
        assert_eq!(parse_retry_after(date, 784_111_777 - 30), Some(Duration::from_secs(30)));
        assert_eq!(parse_retry_after(date, 784_111_777 + 30), Some(Duration::ZERO));
        assert_eq!(days_from_civil(1970, 1, 1), 0);
        assert_eq!(days_from_civil(2000, 3, 1), 11_017);
        for bad in [
            "",
            "soon",
            "-1",
            "Sun, 06 Nov 1994 08:49:37 CET",
            "Sun, 06 Foo 1994 08:49:37 GMT",
        ] {
            assert_eq!(parse_retry_after(bad, 0), None, "{bad}");
        }
    }

    #[test]
    fn backoff_grows_and_is_capped() {
        let c = Client::builder()
            .api_token("t")
            .backoff(Duration::from_millis(100))
            .max_backoff(Duration::from_millis(300))
            .build()
            .unwrap();
        for _ in 0..50 {
            let d0 = c.backoff_for(0);
            assert!(
                d0 >= Duration::from_millis(50) && d0 < Duration::from_millis(100),
                "{d0:?}"
            );
            let d5 = c.backoff_for(5);
            assert!(
                d5 >= Duration::from_millis(150) && d5 < Duration::from_millis(300),
                "{d5:?}"
            );
        }
        assert!(c.backoff_for(u32::MAX) <= Duration::from_millis(300));
    }
}
