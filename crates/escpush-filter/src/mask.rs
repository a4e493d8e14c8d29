//! Secrets in a text: the mask ([`MASK`]) that stands for every secret shown anywhere, and
//! the one rule that hides a secret in a text ([`mask_secret`], [`Secrets`]): a secret of
//! [`MIN_SCRUBBED_LEN`] characters or more is masked wherever it occurs, a shorter one
//! wherever it stands as a whole token; every form a text may quote it in
//! ([`secret_forms`]); URLs shown without their credentials ([`redact_url`], [`mask_urls`],
//! [`url_credentials`]). Which values are secrets is not this module's to say: the API's
//! secrets (credentials of a destination, an ESC secret, the secret job fields) are
//! `escpush-core`'s (`escpush_core::body_secrets`), the credentials of an object store
//! escpush-scan's. It lives here, below every module that shows a text, so that the filter
//! language's messages and a log scan's errors share it.

use std::borrow::Cow;
use std::fmt::Write as _;

/// What stands in for a secret wherever one would be shown: a credential of a destination,
/// an ownership challenge, an ESC secret, an API key in a log. Defined here, below every
/// module that prints a secret; which values are secrets is the caller's to say.
pub const MASK: &str = "***";

/// The shortest secret masked wherever it occurs in a text; a shorter one only where it
/// stands as a whole token (this module's rule, applied here, below every module
/// that shows a text).
pub const MIN_SCRUBBED_LEN: usize = 8;

/// `text` with every occurrence of `secret` that this module's rule hides replaced
/// by [`MASK`] (borrowed when there is none).
///
/// ```
/// use escpush_filter::mask_secret;
///
/// assert_eq!(
///     mask_secret("bad secret abc1 (disable_esc=abc1); abc12", "abc1"),
///     "bad secret *** (disable_esc=***); abc12"
/// );
/// assert_eq!(mask_secret("key k-0123456789x", "k-0123456789"), "key ***x");
/// ```
pub fn mask_secret<'a>(text: &'a str, secret: &str) -> Cow<'a, str> {
    match mask_secret_bytes(text.as_bytes(), secret) {
        Cow::Borrowed(_) => Cow::Borrowed(text),
        // Whole occurrences of a UTF-8 text in a UTF-8 text, replaced by ASCII: still UTF-8.
        Cow::Owned(bytes) => Cow::Owned(String::from_utf8(bytes).unwrap_or_default()),
    }
}

/// [`mask_secret`] on bytes that need not be text (a page's body, masked before it is
/// hashed).
pub fn mask_secret_bytes<'a>(bytes: &'a [u8], secret: &str) -> Cow<'a, [u8]> {
    let needle = secret.as_bytes();
    if needle.is_empty() || secret == MASK {
        return Cow::Borrowed(bytes);
    }
    let anywhere = secret.chars().count() >= MIN_SCRUBBED_LEN;
    let mut out: Option<Vec<u8>> = None;
    let mut from = 0;
    for at in memchr::memmem::find_iter(bytes, needle) {
        let end = at + needle.len();
        if at < from || !(anywhere || (!value_before(bytes, at) && !value_after(bytes, end))) {
            continue;
        }
        let out = out.get_or_insert_with(|| Vec::with_capacity(bytes.len()));
        out.extend_from_slice(&bytes[from..at]);
        out.extend_from_slice(MASK.as_bytes());
        from = end;
    }
    match out {
        None => Cow::Borrowed(bytes),
        Some(mut out) => {
            out.extend_from_slice(&bytes[from..]);
            Cow::Owned(out)
        }
    }
}

/// Every form in which a text may quote `secret`: as given; percent-decoded (`%2B` as `+`,
/// and once more with `+` as a space, as a query is read); percent-encoded when it holds no
/// escape (each byte but `A-Z a-z 0-9 - . _ ~` as `%XX`, upper and lower case hex); and the
/// credential after an authorization scheme (`Splunk <token>`, `Basic <credentials>`,
/// `Bearer <token>`: what follows the first space after a word of four letters or more, as
/// given or decoded), alone. This module's rule masks each
/// ([`mask_secret`]): a destination's credential is sent percent-encoded, and a server may
/// quote it decoded, or quote the token of a header value alone. Empty forms are left out;
/// the forms are distinct, the given one first.
///
/// ```
/// use escpush_filter::secret_forms;
///
/// assert_eq!(secret_forms("abc%2Bdef%2Fghi"), ["abc%2Bdef%2Fghi", "abc+def/ghi"]);
/// assert_eq!(secret_forms("a+b"), ["a+b", "a b", "a%2Bb", "a%2bb"]);
/// assert!(secret_forms("Splunk%20T0KEN-1").contains(&"T0KEN-1".to_owned()));
/// assert!(secret_forms("Splunk+T0KEN-2").contains(&"T0KEN-2".to_owned()));
/// assert!(secret_forms("abc+def/ghi").contains(&"abc%2Bdef%2Fghi".to_owned()));
/// ```
pub fn secret_forms(secret: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let push = |form: String, out: &mut Vec<String>| {
        if !form.is_empty() && !out.contains(&form) {
            out.push(form);
        }
    };
    push(secret.to_owned(), &mut out);
    let decoded = [percent_decode(secret, false), percent_decode(secret, true)];
    for form in decoded.iter().flatten() {
        push(form.clone(), &mut out);
    }
    if decoded[0].is_none() {
        // Not sent encoded already: it may be quoted as it went over the wire.
        push(percent_encode(secret, false), &mut out);
        push(percent_encode(secret, true), &mut out);
    }
    // The token after a scheme, in every form: `Splunk+T0KEN` (a space written `+`, as a
    // query may carry it) is `T0KEN` too.
    for form in std::iter::once(secret.to_owned()).chain(decoded.into_iter().flatten()) {
        if let Some((scheme, token)) = form.trim().split_once(char::is_whitespace) {
            let token = token.trim();
            // A scheme is a word of letters (Splunk, Basic, Bearer, SSWS): `a+b` is no
            // `a <token>`, and its `b` alone no credential.
            let scheme = scheme.len() >= 4 && scheme.bytes().all(|b| b.is_ascii_alphabetic());
            if scheme && !token.is_empty() {
                push(token.to_owned(), &mut out);
            }
        }
    }
    out
}

/// `text` with each `%XX` read as its byte (and `+` as a space when `plus`); `None` when
/// it holds no escape that changes it, or when the bytes are no UTF-8.
fn percent_decode(text: &str, plus: bool) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| char::from(b).to_digit(16);
        match bytes[i] {
            b'%' if i + 2 < bytes.len() => match (hex(bytes[i + 1]), hex(bytes[i + 2])) {
                (Some(h), Some(l)) => {
                    out.push(u8::try_from(h * 16 + l).unwrap_or(b'%'));
                    i += 3;
                    continue;
                }
                _ => out.push(b'%'),
            },
            b'+' if plus => out.push(b' '),
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8(out).ok().filter(|d| d != text)
}

/// [`mask_secret_bytes`] of every form of `secret` ([`secret_forms`], the longest first):
/// a text that may quote a secret as it went over the wire (a site that reflects a cookie in
/// a URL, percent-encoded).
pub fn mask_secret_forms_bytes<'a>(bytes: &'a [u8], secret: &str) -> Cow<'a, [u8]> {
    let mut forms = secret_forms(secret);
    forms.sort_by_key(|f| std::cmp::Reverse(f.len()));
    let mut out = Cow::Borrowed(bytes);
    for form in &forms {
        if let Cow::Owned(masked) = mask_secret_bytes(&out, form) {
            out = Cow::Owned(masked);
        }
    }
    out
}

/// [`mask_secret_forms_bytes`] of a text.
pub fn mask_secret_forms<'a>(text: &'a str, secret: &str) -> Cow<'a, str> {
    match mask_secret_forms_bytes(text.as_bytes(), secret) {
        Cow::Borrowed(_) => Cow::Borrowed(text),
        Cow::Owned(bytes) => Cow::Owned(String::from_utf8(bytes).unwrap_or_default()),
    }
}

/// `text` with each byte but the unreserved ones of RFC 3986 (`A-Z a-z 0-9 - . _ ~`) as
/// `%XX`, its hex digits in lower case when `lower`.
fn percent_encode(text: &str, lower: bool) -> String {
    let mut out = String::with_capacity(text.len());
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
            out.push(char::from(b));
        } else if lower {
            let _ = write!(out, "%{b:02x}");
        } else {
            let _ = write!(out, "%{b:02X}");
        }
    }
    out
}

/// A URL as it may be shown: its `user:password@` as `***@` and each query value as `***`
/// (`?token=***&page=***`; a part without `=` masked whole), the scheme, host, port and
/// path as given. A fetched URL, an endpoint from the environment: either may carry a
/// credential in its userinfo or its query, and nothing tells a token from a page number.
/// Text that is no `scheme://` URL is given back as it is.
///
/// ```
/// use escpush_filter::redact_url;
///
/// assert_eq!(redact_url("https://me:pw@shop.example.com/a?token=t0k&x"), "https://***@shop.example.com/a?token=***&***");
/// assert_eq!(redact_url("https://shop.example.com/a/b"), "https://shop.example.com/a/b");
/// ```
pub fn redact_url(url: &str) -> String {
    let Some(at) = url.find("://") else {
        return url.to_owned();
    };
    let (scheme, rest) = url.split_at(at + 3);
    let (before_query, query) = match rest.find('?') {
        Some(q) => (&rest[..q], Some(&rest[q + 1..])),
        None => (rest, None),
    };
    let authority_end = before_query.find('/').unwrap_or(before_query.len());
    let mut out = String::with_capacity(url.len());
    out.push_str(scheme);
    match before_query[..authority_end].rfind('@') {
        Some(user_end) => {
            out.push_str(MASK);
            out.push_str(&before_query[user_end..]);
        }
        None => out.push_str(before_query),
    }
    if let Some(query) = query {
        out.push('?');
        for (i, part) in query.split('&').enumerate() {
            if i > 0 {
                out.push('&');
            }
            match part.split_once('=') {
                Some((key, _)) => {
                    out.push_str(key);
                    out.push('=');
                    out.push_str(MASK);
                }
                None if part.is_empty() => {}
                None => out.push_str(MASK),
            }
        }
    }
    out
}

/// The credentials a URL may carry, each a secret on its own (a message may quote one
/// alone): its `user:password` and its password, and each query value (a part without `=`
/// whole). What [`redact_url`] masks.
pub fn url_credentials(url: &str) -> Vec<String> {
    let Some(at) = url.find("://") else {
        return Vec::new();
    };
    let rest = &url[at + 3..];
    let (before_query, query) = rest.split_once('?').unwrap_or((rest, ""));
    let authority = &before_query[..before_query.find('/').unwrap_or(before_query.len())];
    let mut out = Vec::new();
    if let Some((userinfo, _)) = authority.rsplit_once('@') {
        out.push(userinfo.to_owned());
        if let Some((_, password)) = userinfo.split_once(':') {
            out.push(password.to_owned());
        }
    }
    for part in query.split('&') {
        out.push(part.split_once('=').map_or(part, |(_, v)| v).to_owned());
    }
    out.retain(|v| !v.is_empty());
    out
}

/// `text` with each URL in it (`scheme://` up to whitespace, a quote, `<`, `>` or `)`) shown
/// by [`redact_url`]: a message that quotes a URL shows no userinfo or query value.
///
/// ```
/// use escpush_filter::mask_urls;
///
/// assert_eq!(
///     mask_urls("error sending request for url (http://u:PW@127.0.0.1:9/logs?list-type=2)"),
///     "error sending request for url (http://***@127.0.0.1:9/logs?list-type=***)"
/// );
/// ```
pub fn mask_urls(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("://") {
        // The scheme: the letters, digits, `+`, `-` and `.` right before `://`.
        let scheme_start = rest[..at]
            .rfind(|c: char| !(c.is_ascii_alphanumeric() || "+-.".contains(c)))
            .map_or(0, |i| i + 1);
        let end = rest[at..]
            .find(|c: char| c.is_whitespace() || "\"'<>)".contains(c))
            .map_or(rest.len(), |i| at + i);
        out.push_str(&rest[..scheme_start]);
        out.push_str(&redact_url(&rest[scheme_start..end]));
        rest = &rest[end..];
    }
    out.push_str(rest);
    out
}

/// Whether `c` may be part of a value, so that a secret next to it is only part of a
/// longer word: a letter or digit (of any script), `-`, `_`, `~`, `%`, `+` or `/`.
fn is_value_char(c: char) -> bool {
    c.is_alphanumeric() || "-_~%+/".contains(c)
}

/// Whether the character that ends at byte `at` is a value character (bytes that are no
/// character are not).
fn value_before(bytes: &[u8], at: usize) -> bool {
    (at.saturating_sub(4)..at)
        .rev()
        .find_map(|start| std::str::from_utf8(&bytes[start..at]).ok())
        .and_then(|s| s.chars().next_back())
        .is_some_and(is_value_char)
}

/// Whether the character that starts at byte `at` is a value character.
fn value_after(bytes: &[u8], at: usize) -> bool {
    (at + 1..=(at + 4).min(bytes.len()))
        .find_map(|end| std::str::from_utf8(&bytes[at..end]).ok())
        .and_then(|s| s.chars().next())
        .is_some_and(is_value_char)
}

/// The secrets of one call (its credentials, the secrets of its body), and their removal
/// from any text the call shows: see the module's rule. Which values of an API body are
/// secrets is `escpush-core`'s to say (`escpush_core::body_secrets`). Its `Debug` shows how many it holds,
/// never one of them.
#[derive(Clone, Default)]
pub struct Secrets {
    /// The values, longest first.
    values: Vec<String>,
    /// (a whole text that holds secrets, what it is shown as).
    wholes: Vec<(String, String)>,
}

impl std::fmt::Debug for Secrets {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Secrets({} values, {} texts)", self.values.len(), self.wholes.len())
    }
}

impl Secrets {
    /// No secrets.
    pub fn new() -> Self {
        Secrets::default()
    }

    /// Adds a secret (a credential, a secret value of a body), in every form a text may
    /// quote it ([`secret_forms`]: percent-decoded or encoded, a header value's token alone).
    pub fn add(&mut self, value: &str) {
        if value.is_empty() || value == MASK {
            return;
        }
        for form in secret_forms(value) {
            if form != MASK && !self.values.contains(&form) {
                let at = self.values.partition_point(|v| v.len() >= form.len());
                self.values.insert(at, form);
            }
        }
    }

    /// Adds a whole text that holds secrets, replaced by `shown` wherever it occurs.
    pub fn add_whole(&mut self, text: &str, shown: &str) {
        if !text.is_empty() && text != shown {
            self.wholes.push((text.to_owned(), shown.to_owned()));
            self.wholes.sort_by_key(|(t, _)| std::cmp::Reverse(t.len()));
        }
    }

    /// Whether there is nothing to remove.
    pub fn is_empty(&self) -> bool {
        self.values.is_empty() && self.wholes.is_empty()
    }

    /// `text` with every secret replaced by [`MASK`] (see the module's rule).
    pub fn scrub(&self, text: &str) -> String {
        let mut out = text.to_owned();
        for (whole, shown) in &self.wholes {
            if out.contains(whole.as_str()) {
                out = out.replace(whole.as_str(), shown);
            }
        }
        for value in &self.values {
            if let Cow::Owned(masked) = mask_secret(&out, value) {
                out = masked;
            }
        }
        out
    }
}
