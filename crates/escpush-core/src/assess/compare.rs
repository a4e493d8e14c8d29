//! One fetched response as the assessment keeps it (status, headers, body length and
//! SHA-256), the check a response without ESC must pass, and the comparison of a response
//! with ESC and one without: what differs is what ESC does to that URL.

use std::borrow::Cow;
use std::fmt::Write as _;

use serde_json::{json, Value};
use sha2::{Digest, Sha256};

use super::plan::FRAMING_HEADERS;
use super::replacements::{guide, Replacement, COOKIES, CUSTOM_ERROR, REDIRECT, RESPONSE_HEADERS, STATUS_REDIRECT};
use crate::esc::EscSecret;
use escpush_filter::{mask_secret_forms, mask_secret_forms_bytes};

/// `text` with `secret` masked where the redaction rule hides it (escpush-filter's `mask.rs`:
/// anywhere when it is long, where it stands alone when it is short), in every form a site
/// may reflect it ([`secret_forms`](escpush_filter::secret_forms): percent-encoded in a URL, ...).
pub(crate) fn mask_text(text: &str, secret: &EscSecret) -> String {
    mask_secret_forms(text, secret.expose()).into_owned()
}

/// A response of the user's site, its body reduced to length and SHA-256.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SiteResponse {
    /// The HTTP status.
    pub status: u16,
    /// Every header, names in lower case, in the order received.
    pub headers: Vec<(String, String)>,
    /// The body's length in bytes.
    pub body_len: u64,
    /// The body's SHA-256.
    pub body_sha256: [u8; 32],
    /// Where the response carried the assessment's secret, now masked: header names (lower
    /// case) and `body`. The site reflects the request's cookie there, so these parts say
    /// nothing about ESC and are left out of the comparison.
    pub reflected: Vec<String>,
}

impl SiteResponse {
    /// A response from its parts; the body is hashed and dropped.
    pub fn new<N: AsRef<str>, V: AsRef<str>>(
        status: u16,
        headers: impl IntoIterator<Item = (N, V)>,
        body: &[u8],
    ) -> Self {
        SiteResponse {
            status,
            headers: headers
                .into_iter()
                .map(|(n, v)| (n.as_ref().to_ascii_lowercase(), v.as_ref().to_owned()))
                .collect(),
            body_len: body.len() as u64,
            body_sha256: Sha256::digest(body).into(),
            reflected: Vec::new(),
        }
    }

    /// [`SiteResponse::new`], with `secret` masked (`***`, by the redaction rule) in the
    /// header values and the body before the body is hashed: a site may reflect the request's cookie
    /// (an `X-Seen-Cookie` header, a `Set-Cookie` echo, a redirect or a page that carries
    /// it), and the assessment never shows its secret. A transport builds each response of
    /// [`Step::Fetch`](super::Step::Fetch) this way, with the step's `mask`.
    pub fn masked<N: AsRef<str>, V: AsRef<str>>(
        status: u16,
        headers: impl IntoIterator<Item = (N, V)>,
        body: &[u8],
        secret: &EscSecret,
    ) -> Self {
        let masked_body = mask_secret_forms_bytes(body, secret.expose());
        let mut response = SiteResponse::new(status, headers, &masked_body);
        if let Cow::Owned(_) = masked_body {
            response.reflected.push("body".to_owned());
        }
        response.mask_headers(secret);
        response
    }

    /// Masks `secret` in the header values (the body is only a hash by now).
    fn mask_headers(&mut self, secret: &EscSecret) {
        for (name, value) in &mut self.headers {
            if let Cow::Owned(masked) = mask_secret_forms(value, secret.expose()) {
                *value = masked;
                if !self.reflected.contains(name) {
                    self.reflected.push(name.clone());
                }
            }
        }
    }

    fn reflects(&self, part: &str) -> bool {
        self.reflected.iter().any(|r| r == part)
    }

    /// The values of header `name` (any case), joined by `, ` when it appears more than once.
    pub fn header(&self, name: &str) -> Option<String> {
        let name = name.to_ascii_lowercase();
        let values: Vec<&str> = self
            .headers
            .iter()
            .filter(|(n, _)| *n == name)
            .map(|(_, v)| v.as_str())
            .collect();
        (!values.is_empty()).then(|| values.join(", "))
    }

    /// The `Location` header.
    pub fn location(&self) -> Option<String> {
        self.header("location")
    }

    /// The body's SHA-256 in lower-case hex.
    pub fn body_sha256_hex(&self) -> String {
        self.body_sha256.iter().fold(String::with_capacity(64), |mut s, b| {
            let _ = write!(s, "{b:02x}");
            s
        })
    }

    fn body_text(&self) -> String {
        format!("{} bytes, sha256 {}", self.body_len, &self.body_sha256_hex()[..16])
    }

    /// `{"status", "location", "body_length", "body_sha256"}`.
    pub fn to_json(&self) -> Value {
        json!({
            "status": self.status,
            "location": self.location(),
            "body_length": self.body_len,
            "body_sha256": self.body_sha256_hex(),
        })
    }
}

/// What one fetch gave: a response, or why there was none (connection refused, timeout,
/// TLS, ...; never the secret).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Fetched {
    Response(SiteResponse),
    Failed(String),
}

impl Fetched {
    /// The response, when there was one.
    pub fn response(&self) -> Option<&SiteResponse> {
        match self {
            Fetched::Response(r) => Some(r),
            Fetched::Failed(_) => None,
        }
    }

    /// The same, with `secret` masked (by the redaction rule) in the headers (and so the
    /// location) or the failure's text. The body's hash cannot be masked after the fact:
    /// build responses with [`SiteResponse::masked`].
    #[must_use]
    pub fn masked(self, secret: &EscSecret) -> Self {
        match self {
            Fetched::Response(mut r) => {
                r.mask_headers(secret);
                Fetched::Response(r)
            }
            Fetched::Failed(e) => Fetched::Failed(mask_text(&e, secret)),
        }
    }

    /// `{"status", "location", "body_length", "body_sha256", "error"}`.
    pub fn to_json(&self) -> Value {
        match self {
            Fetched::Response(r) => {
                let mut v = r.to_json();
                v["error"] = Value::Null;
                v
            }
            Fetched::Failed(e) => json!({
                "status": null, "location": null, "body_length": null, "body_sha256": null, "error": e,
            }),
        }
    }
}

/// Why a response without ESC fails its check, or None: it must exist, have a status
/// below 500, and one of `expect` when given.
pub(crate) fn check(fetched: &Fetched, expect: Option<&[u16]>) -> Option<String> {
    match fetched {
        Fetched::Failed(e) => Some(format!("no response: {e}")),
        Fetched::Response(r) if r.status >= 500 => Some(format!("status {}", r.status)),
        Fetched::Response(r) => match expect {
            Some(statuses) if !statuses.contains(&r.status) => {
                let list: Vec<String> = statuses.iter().map(u16::to_string).collect();
                Some(format!("status {}, expected {}", r.status, list.join(" or ")))
            }
            _ => None,
        },
    }
}

/// What part of a response differs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum DiffKind {
    Status,
    Location,
    Header,
    Body,
}

impl DiffKind {
    /// `"status"`, `"location"`, `"header"` or `"body"`.
    pub fn as_str(self) -> &'static str {
        match self {
            DiffKind::Status => "status",
            DiffKind::Location => "location",
            DiffKind::Header => "header",
            DiffKind::Body => "body",
        }
    }
}

/// One thing ESC does to a URL: its response with ESC and without differ here.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Difference {
    /// The URL fetched.
    pub url: String,
    /// What differs.
    pub what: DiffKind,
    /// The header's name (lower case) for a header difference.
    pub name: Option<String>,
    /// The value with ESC (a status is a number; an absent header is null).
    pub with_esc: Value,
    /// The value without ESC.
    pub without_esc: Value,
    /// The likely ESC use case and its replacement.
    pub replacement: &'static Replacement,
}

impl Difference {
    /// `{"url", "what", "name", "with_esc", "without_esc", "replacement"}`, the replacement
    /// as `{"use_case", "replacement", "note"}`.
    pub fn to_json(&self) -> Value {
        json!({
            "url": self.url,
            "what": self.what.as_str(),
            "name": self.name,
            "with_esc": self.with_esc,
            "without_esc": self.without_esc,
            "replacement": self.replacement.to_json(),
        })
    }
}

/// The differences between the response `with` ESC and the one `without` for `url`;
/// headers in `ignore` (lower case), the framing headers and the parts either response
/// reflects the test cookie in ([`SiteResponse::reflected`]) are left out.
pub(crate) fn differences(
    url: &str,
    with: &SiteResponse,
    without: &SiteResponse,
    ignore: &[String],
) -> Vec<Difference> {
    let mut out = Vec::new();
    let diff = |what, name: Option<String>, with_esc: Value, without_esc: Value, row| Difference {
        url: url.to_owned(),
        what,
        name,
        with_esc,
        without_esc,
        replacement: guide(row),
    };
    // ESC redirects where the origin fails: a redirect that depends on the origin's status.
    let redirect_row = if without.status >= 500 {
        STATUS_REDIRECT
    } else {
        REDIRECT
    };
    if with.status != without.status {
        let row = if is_redirect(with.status) {
            redirect_row
        } else {
            CUSTOM_ERROR
        };
        out.push(diff(
            DiffKind::Status,
            None,
            json!(with.status),
            json!(without.status),
            row,
        ));
    }
    let reflects = |part: &str| with.reflects(part) || without.reflects(part);
    let (wl, nl) = (with.location(), without.location());
    if wl != nl && !reflects("location") {
        out.push(diff(DiffKind::Location, None, json!(wl), json!(nl), redirect_row));
    }
    let mut names: Vec<&str> = Vec::new();
    for (n, _) in with.headers.iter().chain(&without.headers) {
        let skipped =
            n == "location" || FRAMING_HEADERS.contains(&n.as_str()) || ignore.iter().any(|i| i == n) || reflects(n);
        if !skipped && !names.contains(&n.as_str()) {
            names.push(n);
        }
    }
    for name in names {
        let (a, b) = (with.header(name), without.header(name));
        if a != b {
            let row = if name == "set-cookie" {
                COOKIES
            } else {
                RESPONSE_HEADERS
            };
            out.push(diff(DiffKind::Header, Some(name.to_owned()), json!(a), json!(b), row));
        }
    }
    if (with.body_len != without.body_len || with.body_sha256 != without.body_sha256) && !reflects("body") {
        out.push(diff(
            DiffKind::Body,
            None,
            json!(with.body_text()),
            json!(without.body_text()),
            CUSTOM_ERROR,
        ));
    }
    out
}

fn is_redirect(status: u16) -> bool {
    matches!(status, 301 | 302 | 303 | 307 | 308)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn resp(status: u16, headers: &[(&str, &str)], body: &str) -> SiteResponse {
        SiteResponse::new(status, headers.iter().copied(), body.as_bytes())
    }

    #[test]
    fn identical_responses_have_no_difference() {
        let a = resp(200, &[("Date", "x"), ("Content-Type", "text/html")], "hi");
        let b = resp(200, &[("date", "y"), ("content-type", "text/html")], "hi");
        let ignore = vec!["date".to_owned()];
        assert!(differences("u", &a, &b, &ignore).is_empty());
        assert_eq!(differences("u", &a, &b, &[]).len(), 1);
    }

    #[test]
    fn each_difference_names_its_replacement() {
        let with = resp(
            301,
            &[
                ("Location", "https://new/"),
                ("X-Esc", "1"),
                ("Set-Cookie", "a=1"),
                ("Content-Length", "0"),
            ],
            "",
        );
        let without = resp(200, &[("Content-Length", "5")], "hello");
        let d = differences("http://a/", &with, &without, &[]);
        let kinds: Vec<(&str, Option<&str>, &str)> = d
            .iter()
            .map(|d| (d.what.as_str(), d.name.as_deref(), d.replacement.replacement))
            .collect();
        assert_eq!(
            kinds,
            [
                ("status", None, "single or bulk redirect rules"),
                ("location", None, "single or bulk redirect rules"),
                ("header", Some("x-esc"), "response-header transform rules"),
                (
                    "header",
                    Some("set-cookie"),
                    "response-header transform rules (these cover setting cookies)"
                ),
                ("body", None, "custom error responses"),
            ]
        );
        assert_eq!(d[0].to_json()["with_esc"], 301);
        assert_eq!(d[2].to_json()["without_esc"], Value::Null);
        // ESC redirects where the origin fails: a status-dependent redirect
        let with = resp(302, &[("Location", "/sorry")], "");
        let without = resp(503, &[], "");
        let d = differences("u", &with, &without, &[]);
        assert!(
            d[..2].iter().all(|d| d.replacement.replacement.contains("workers")),
            "{d:?}"
        );
    }

    #[test]
    fn a_secret_the_response_carries_is_masked_before_the_body_is_hashed() {
        let secret = EscSecret::new("s3cr3t-0123").unwrap();
        let got = SiteResponse::masked(
            302,
            [
                ("Location", "/login?c=disable_esc=s3cr3t-0123"),
                ("X-Seen-Cookie", "disable_esc=s3cr3t-0123"),
                ("Set-Cookie", "a=s3cr3t-0123s3cr3t-0123; Path=/"),
                ("X-Other", "s3cr3t-012"),
            ],
            b"you sent disable_esc=s3cr3t-0123, twice: s3cr3t-0123",
            &secret,
        );
        let want = resp(
            302,
            &[
                ("Location", "/login?c=disable_esc=***"),
                ("X-Seen-Cookie", "disable_esc=***"),
                ("Set-Cookie", "a=******; Path=/"),
                ("X-Other", "s3cr3t-012"),
            ],
            "you sent disable_esc=***, twice: ***",
        );
        assert_eq!(got.headers, want.headers);
        assert_eq!((got.body_len, got.body_sha256), (want.body_len, want.body_sha256));
        assert_eq!(got.reflected, ["body", "location", "x-seen-cookie", "set-cookie"]);
        assert_eq!(got.location().as_deref(), Some("/login?c=disable_esc=***"));
        // What carried the cookie says nothing about ESC: it is not a difference.
        let visitor = resp(
            302,
            &[("Location", "/login?c="), ("X-Other", "s3cr3t-012")],
            "you sent ",
        );
        let d = differences("u", &visitor, &got, &[]);
        assert!(d.is_empty(), "{d:?}");
        assert_eq!(differences("u", &visitor, &want, &[]).len(), 4);
        // Nothing to mask: the same as `new`.
        let plain = SiteResponse::masked(200, [("A", "b")], b"body", &secret);
        assert_eq!(plain, resp(200, &[("A", "b")], "body"));
        // A failure's text too.
        let failed = Fetched::Failed("cookie disable_esc=s3cr3t-0123 refused".into()).masked(&secret);
        assert_eq!(failed, Fetched::Failed("cookie disable_esc=*** refused".into()));
        // Issue 33 (the class of item 7): a secret reflected percent-encoded, as a site puts
        // the cookie it got into a URL, is masked too, and so is it decoded.
        let secret = EscSecret::new("a+b/c=d-0123456789").unwrap();
        let got = SiteResponse::masked(
            302,
            [
                ("Location", "/login?c=a%2Bb%2Fc%3Dd-0123456789"),
                ("X-Seen", "a b/c=d-0123456789"),
            ],
            b"seen a%2bb%2fc%3dd-0123456789",
            &secret,
        );
        assert_eq!(got.location().as_deref(), Some("/login?c=***"));
        assert_eq!(got.header("x-seen").as_deref(), Some("***"));
        assert_eq!(got.reflected, ["body", "location", "x-seen"]);
    }

    #[test]
    fn the_check_of_a_response_without_esc() {
        let ok = Fetched::Response(resp(200, &[], ""));
        assert_eq!(check(&ok, None), None);
        assert_eq!(check(&ok, Some(&[301])).unwrap(), "status 200, expected 301");
        assert_eq!(
            check(&Fetched::Response(resp(502, &[], "")), None).unwrap(),
            "status 502"
        );
        assert!(check(&Fetched::Failed("refused".into()), None)
            .unwrap()
            .contains("refused"));
        assert_eq!(ok.to_json()["body_sha256"].as_str().unwrap().len(), 64);
        assert_eq!(
            resp(200, &[], "").body_sha256_hex(),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
    }
}
