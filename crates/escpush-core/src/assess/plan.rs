//! What an assessment is asked to do: the zone, the optional account, the URLs, and the
//! settings of the comparison and the waits, each checked once here.

use std::time::Duration;

use crate::error::Error;
use crate::scope::Scope;

/// Response headers left out of the comparison unless the caller gives its own list: they
/// change from one response to the next whatever ESC does.
pub const DEFAULT_IGNORED_HEADERS: &[&str] = &["date", "age", "cf-ray", "server-timing", "report-to", "nel"];

/// Headers never compared: they describe the connection or the body's framing (the body
/// itself is compared by length and SHA-256).
pub(crate) const FRAMING_HEADERS: &[&str] = &["connection", "keep-alive", "transfer-encoding", "content-length"];

/// Default seconds to wait after the API reports a scope disabled (the spec: "within seconds").
pub const DEFAULT_SETTLE_SECS: f64 = 3.0;
/// Default seconds each fetch of a URL may take.
pub const DEFAULT_FETCH_TIMEOUT_SECS: f64 = 10.0;
/// Default seconds to wait for a GET to report a scope disabled after the POST.
pub const DEFAULT_WAIT_LIMIT_SECS: f64 = 30.0;
/// The most URLs one assessment fetches.
pub const MAX_URLS: usize = 100;
const MAX_URL_LEN: usize = 8192;
const MAX_SETTLE_SECS: f64 = 3600.0;
const MAX_TIMEOUT_SECS: f64 = 600.0;

/// A URL of the user's site: `http://` or `https://`, a host, no whitespace, control
/// characters or fragment, at most 8192 characters.
///
/// It is fetched as given ([`SiteUrl::as_str`]) and shown, in the report, its JSON, its
/// text, progress lines, errors and `Debug`, without its `user:password@` and its query
/// values ([`SiteUrl::shown`], core's one rule for a URL: [`redact_url`](escpush_filter::redact_url)):
/// either may hold a credential.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct SiteUrl {
    url: String,
    shown: String,
}

impl SiteUrl {
    /// Checks `url`; the error says which rule and where (quoting the URL as it is shown).
    pub fn new(url: impl Into<String>) -> Result<Self, Error> {
        let url = url.into();
        let invalid = |message: String| Err(Error::InvalidInput { what: "URL", message });
        if url.len() > MAX_URL_LEN {
            return invalid(format!("has {} bytes; at most {MAX_URL_LEN} are allowed", url.len()));
        }
        let shown = escpush_filter::redact_url(&url);
        let lower = url.to_ascii_lowercase();
        let Some(rest) = lower.strip_prefix("http://").or_else(|| lower.strip_prefix("https://")) else {
            return invalid(format!("`{shown}` must start with http:// or https://"));
        };
        if let Some((pos, c)) = url.char_indices().find(|&(_, c)| c.is_whitespace() || c.is_control()) {
            let kind = if c.is_control() {
                "a control character"
            } else {
                "whitespace"
            };
            return invalid(format!(
                "`{}` has {kind} at byte {pos}; escape it as %{:02X}",
                shown.escape_debug(),
                u32::from(c)
            ));
        }
        if let Some(pos) = url.find('#') {
            return invalid(format!(
                "`{shown}` has a fragment at byte {pos}; it is never sent, leave it out"
            ));
        }
        let host = rest.split(['/', '?']).next().unwrap_or_default();
        let host = host.rsplit_once('@').map_or(host, |(_, h)| h);
        if host.is_empty() || host.starts_with(':') {
            return invalid(format!("`{shown}` has no host"));
        }
        Ok(SiteUrl { url, shown })
    }

    /// The URL as given: what is fetched. It may hold a credential: show [`SiteUrl::shown`].
    pub fn as_str(&self) -> &str {
        &self.url
    }

    /// The URL as every output shows it: without its `user:password@` and its query values
    /// (`https://***@shop.example.com/?token=***`); of two URLs of a plan that would show
    /// alike, the second is marked ` (2)`, and so on.
    pub fn shown(&self) -> &str {
        &self.shown
    }
}

impl std::fmt::Debug for SiteUrl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("SiteUrl").field(&self.shown).finish()
    }
}

/// A checked assessment: build it with [`AssessPlan::builder`].
#[derive(Clone, Debug)]
pub struct AssessPlan {
    pub(crate) zone: Scope,
    pub(crate) account: Option<Scope>,
    pub(crate) urls: Vec<SiteUrl>,
    pub(crate) keep_disabled: bool,
    pub(crate) settle: Duration,
    pub(crate) timeout: Duration,
    pub(crate) wait_limit: Duration,
    pub(crate) poll: Duration,
    pub(crate) expect_status: Option<Vec<u16>>,
    pub(crate) ignore_headers: Vec<String>,
}

impl AssessPlan {
    /// Settings for an assessment of `zone` (a [`Scope::Zone`]).
    pub fn builder(zone: Scope) -> AssessPlanBuilder {
        AssessPlanBuilder {
            zone,
            account: None,
            urls: Vec::new(),
            keep_disabled: false,
            settle: DEFAULT_SETTLE_SECS,
            timeout: DEFAULT_FETCH_TIMEOUT_SECS,
            wait_limit: DEFAULT_WAIT_LIMIT_SECS,
            expect_status: None,
            ignore_headers: None,
        }
    }

    /// The zone.
    pub fn zone(&self) -> &Scope {
        &self.zone
    }

    /// The account, when its stage runs.
    pub fn account(&self) -> Option<&Scope> {
        self.account.as_ref()
    }

    /// The URLs, in the order given.
    pub fn urls(&self) -> &[SiteUrl] {
        &self.urls
    }

    /// The deadline of one fetch.
    pub fn timeout(&self) -> Duration {
        self.timeout
    }

    /// The headers left out of the comparison (lower case).
    pub fn ignore_headers(&self) -> &[String] {
        &self.ignore_headers
    }
}

/// Settings of an [`AssessPlan`]; [`AssessPlanBuilder::build`] checks them all.
#[derive(Clone, Debug)]
#[must_use]
pub struct AssessPlanBuilder {
    zone: Scope,
    account: Option<Scope>,
    urls: Vec<String>,
    keep_disabled: bool,
    settle: f64,
    timeout: f64,
    wait_limit: f64,
    expect_status: Option<Vec<i64>>,
    ignore_headers: Option<Vec<String>>,
}

impl AssessPlanBuilder {
    /// Adds a URL to fetch.
    pub fn url(mut self, url: impl Into<String>) -> Self {
        self.urls.push(url.into());
        self
    }

    /// Adds URLs to fetch.
    pub fn urls<S: Into<String>>(mut self, urls: impl IntoIterator<Item = S>) -> Self {
        self.urls.extend(urls.into_iter().map(Into::into));
        self
    }

    /// Runs the account stage on `account` (a [`Scope::Account`]) after the zone stage.
    pub fn account(mut self, account: Scope) -> Self {
        self.account = Some(account);
        self
    }

    /// Leaves ESC disabled on the tested scopes when every stage passed (default false).
    pub fn keep_disabled(mut self, keep: bool) -> Self {
        self.keep_disabled = keep;
        self
    }

    /// Seconds to wait once the API reports a scope disabled (0 to 3600; default 3).
    pub fn settle_secs(mut self, secs: f64) -> Self {
        self.settle = secs;
        self
    }

    /// Seconds each fetch may take (more than 0, at most 600; default 10).
    pub fn timeout_secs(mut self, secs: f64) -> Self {
        self.timeout = secs;
        self
    }

    /// Seconds to wait for a GET to report a scope disabled (more than 0, at most 600; default 30).
    pub fn wait_limit_secs(mut self, secs: f64) -> Self {
        self.wait_limit = secs;
        self
    }

    /// The statuses a response without ESC must have (besides being below 500).
    pub fn expect_status(mut self, statuses: impl IntoIterator<Item = i64>) -> Self {
        self.expect_status = Some(statuses.into_iter().collect());
        self
    }

    /// The response headers to leave out of the comparison, replacing
    /// [`DEFAULT_IGNORED_HEADERS`] (names, any case).
    pub fn ignore_headers<S: Into<String>>(mut self, names: impl IntoIterator<Item = S>) -> Self {
        self.ignore_headers = Some(names.into_iter().map(Into::into).collect());
        self
    }

    /// Checks every setting; the first one out of its range is the error.
    pub fn build(self) -> Result<AssessPlan, Error> {
        let invalid = |what: &'static str, message: String| Error::InvalidInput { what, message };
        if !matches!(self.zone, Scope::Zone(_)) {
            return Err(invalid("zone", format!("{} is not a zone", self.zone)));
        }
        if let Some(account) = &self.account {
            if !matches!(account, Scope::Account(_)) {
                return Err(invalid("account", format!("{account} is not an account")));
            }
        }
        if self.urls.is_empty() {
            return Err(invalid(
                "URLs",
                "give at least one URL of the zone's site to fetch".to_owned(),
            ));
        }
        if self.urls.len() > MAX_URLS {
            return Err(invalid(
                "URLs",
                format!("{} given; at most {MAX_URLS} are allowed", self.urls.len()),
            ));
        }
        let mut urls: Vec<SiteUrl> = Vec::with_capacity(self.urls.len());
        for url in self.urls {
            let mut url = SiteUrl::new(url)?;
            if urls.iter().any(|u| u.as_str() == url.as_str()) {
                return Err(invalid("URLs", format!("`{}` is given twice", url.shown())));
            }
            // Two URLs that differ only in what is masked would show alike: the later ones
            // are numbered (a URL holds no space, so no URL shows as a numbered one).
            if urls.iter().any(|u| u.shown() == url.shown()) {
                let mut n = 2;
                while urls.iter().any(|u| u.shown() == format!("{} ({n})", url.shown)) {
                    n += 1;
                }
                url.shown = format!("{} ({n})", url.shown);
            }
            urls.push(url);
        }
        let settle = seconds("settle", self.settle, 0.0, MAX_SETTLE_SECS, true)?;
        let timeout = seconds("timeout", self.timeout, 0.0, MAX_TIMEOUT_SECS, false)?;
        let wait_limit = seconds("wait limit", self.wait_limit, 0.0, MAX_TIMEOUT_SECS, false)?;
        let expect_status = match self.expect_status {
            None => None,
            Some(list) if list.is_empty() => {
                return Err(invalid(
                    "expect_status",
                    "give at least one status, or none at all".to_owned(),
                ))
            }
            Some(list) => Some(
                list.into_iter()
                    .map(|s| {
                        u16::try_from(s)
                            .ok()
                            .filter(|s| (100..=599).contains(s))
                            .ok_or_else(|| invalid("expect_status", format!("{s} is not an HTTP status (100 to 599)")))
                    })
                    .collect::<Result<Vec<u16>, Error>>()?,
            ),
        };
        let ignore_headers = match self.ignore_headers {
            None => DEFAULT_IGNORED_HEADERS.iter().map(|h| (*h).to_owned()).collect(),
            Some(names) => names
                .into_iter()
                .map(|name| {
                    if name.is_empty() || !name.bytes().all(is_token_byte) {
                        Err(invalid(
                            "ignore_headers",
                            format!("`{}` is not a header name", name.escape_debug()),
                        ))
                    } else {
                        Ok(name.to_ascii_lowercase())
                    }
                })
                .collect::<Result<Vec<String>, Error>>()?,
        };
        Ok(AssessPlan {
            zone: self.zone,
            account: self.account,
            urls,
            keep_disabled: self.keep_disabled,
            settle,
            timeout,
            poll: (wait_limit / 20).clamp(Duration::from_millis(50), Duration::from_secs(1)),
            wait_limit,
            expect_status,
            ignore_headers,
        })
    }
}

/// RFC 9110 `tchar`.
fn is_token_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b)
}

/// `secs` as a duration, within `min..=max` (`min` itself allowed when `zero_ok`).
fn seconds(what: &'static str, secs: f64, min: f64, max: f64, zero_ok: bool) -> Result<Duration, Error> {
    let ok = secs.is_finite() && secs <= max && (secs > min || (zero_ok && secs >= min));
    if ok {
        Ok(Duration::from_secs_f64(secs))
    } else {
        let low = if zero_ok {
            format!("{min}")
        } else {
            format!("more than {min}")
        };
        Err(Error::InvalidInput {
            what,
            message: format!("{secs} seconds is out of range ({low} to {max})"),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn zone() -> Scope {
        Scope::zone("z1").unwrap()
    }

    #[test]
    fn urls_are_checked() {
        for good in [
            "http://a.example/",
            "HTTPS://a.example:8443/x?y=1",
            "http://127.0.0.1:80",
            "http://u@h/",
        ] {
            assert_eq!(SiteUrl::new(good).unwrap().as_str(), good);
        }
        // Issue 33, item 15: a password and a query token are never shown.
        let url = SiteUrl::new("https://me:pa55-word@shop.example.com/a?token=t0k3n-SECRET&page=2").unwrap();
        assert_eq!(url.shown(), "https://***@shop.example.com/a?token=***&page=***");
        assert!(!format!("{url:?}").contains("pa55") && !format!("{url:?}").contains("t0k3n"));
        let msg = SiteUrl::new("https://me:pa55-word@shop.example.com/a?token=t0k3n#x")
            .unwrap_err()
            .to_string();
        assert!(
            !msg.contains("pa55") && !msg.contains("t0k3n") && msg.contains("fragment"),
            "{msg}"
        );
        for (bad, why) in [
            ("ftp://a/", "must start with http"),
            ("a.example/", "must start with http"),
            ("http:///x", "no host"),
            ("http://a b/", "whitespace at byte 8"),
            ("http://a/#top", "fragment"),
            ("http://a/\n", "control character"),
        ] {
            let msg = SiteUrl::new(bad).unwrap_err().to_string();
            assert!(msg.starts_with("invalid URL") && msg.contains(why), "{bad}: {msg}");
        }
    }

    #[test]
    fn settings_are_checked() {
        let plan = AssessPlan::builder(zone()).url("http://a/").build().unwrap();
        assert_eq!(plan.settle, Duration::from_secs(3));
        assert_eq!(plan.ignore_headers, DEFAULT_IGNORED_HEADERS);
        assert!(plan.expect_status.is_none() && plan.account.is_none());
        let err = |b: AssessPlanBuilder| b.build().unwrap_err().to_string();
        assert!(err(AssessPlan::builder(zone())).contains("at least one URL"));
        assert!(err(AssessPlan::builder(Scope::account("a").unwrap()).url("http://a/")).contains("not a zone"));
        assert!(err(AssessPlan::builder(zone()).url("http://a/").account(zone())).contains("not an account"));
        assert!(err(AssessPlan::builder(zone()).url("http://a/").url("http://a/")).contains("twice"));
        assert!(err(AssessPlan::builder(zone()).url("http://a/").settle_secs(-1.0)).contains("invalid settle"));
        assert!(err(AssessPlan::builder(zone()).url("http://a/").settle_secs(f64::NAN)).contains("out of range"));
        assert!(err(AssessPlan::builder(zone()).url("http://a/").timeout_secs(0.0)).contains("more than 0"));
        assert!(err(AssessPlan::builder(zone()).url("http://a/").expect_status([200, 700])).contains("700"));
        assert!(err(AssessPlan::builder(zone()).url("http://a/").expect_status([])).contains("at least one"));
        assert!(err(AssessPlan::builder(zone()).url("http://a/").ignore_headers(["a b"])).contains("header name"));
        let plan = AssessPlan::builder(zone())
            .url("http://a/")
            .settle_secs(0.0)
            .ignore_headers(["X-Req-Id"])
            .expect_status([200, 301])
            .build()
            .unwrap();
        assert_eq!(plan.ignore_headers, ["x-req-id"]);
        assert_eq!(plan.expect_status, Some(vec![200, 301]));
        assert_eq!(plan.settle, Duration::ZERO);
    }
}
