//! Redaction: which parts of what escpush sends, receives and prints are secrets, and how
//! they are hidden. The transport (its errors), the emulator (its request log and state
//! snapshots), the binding and Python (through the native module) all read it here.
//!
//! - **The mask**, [`MASK`] (`***`), stands for every secret shown anywhere.
//! - **Secret headers**, [`SECRET_HEADERS`]: the credentials a request carries.
//! - **Secret body keys**, [`secret_body_keys`]: the ESC secret (`with_secret`) and the job
//!   fields the job field table marks secret (`ownership_challenge`). A destination's
//!   credentials are [`DestinationConf`](crate::DestinationConf)'s to know (which of its
//!   parameters are harmless); they are reached through [`redact_body`], [`redact_job`] and
//!   [`Secrets::of_body`].
//! - **URLs**: [`redact_url`] shows a URL without its `user:password@` and its query values,
//!   [`mask_urls`] every URL a text quotes so, and [`url_credentials`] are those parts, each a
//!   secret (a fetched site's URL, an endpoint given in the environment).
//! - **Text**: [`Secrets`] removes a call's secrets from a message (a server may echo the
//!   request), in every form a text may quote it ([`secret_forms`]: percent-decoded, as
//!   sent percent-encoded, the token of an `Authorization` value alone), and [`mask_secret`]
//!   / [`mask_secret_bytes`] one secret from a text or a body:
//!   one rule for every text escpush shows (the transport's errors, the emulator's log, the
//!   ESC assessment's responses and failures). A secret of [`MIN_SCRUBBED_LEN`] characters
//!   or more is masked wherever it occurs. A shorter one is masked wherever it stands as a
//!   whole token: with no letter, digit or one of `-_~%+/` right before or after it
//!   (`disable_esc=abc`, `"with_secret":"abc"`, `Bearer abc`, `secret abc.`), and inside the
//!   whole text it came in (a destination echoed whole becomes its redacted form). Inside a
//!   longer word it is left: a value that short is as likely part of an ordinary word (the
//!   `ea` of "creating") as the secret, and masking it there would garble the message and,
//!   by the pattern of masks, point at the secret. A secret that is itself an ordinary word
//!   (`a`) is masked where that word stands alone.

use std::borrow::Cow;

use serde_json::{Map, Value};

pub use crate::shown::{
    mask_secret, mask_secret_bytes, mask_urls, redact_url, secret_forms, url_credentials, MIN_SCRUBBED_LEN,
};

use crate::logpush::{job_secrets, JOB_FIELDS};

use crate::logpush::redact_job;
pub use crate::shown::MASK;

/// The key of the ESC secret in a `POST .../disable_esc` body (SPEC 2.1).
pub const ESC_SECRET_KEY: &str = "with_secret";

/// The request headers that carry credentials (lower case): `X-Auth-Key` (SPEC 5),
/// `Authorization: Bearer <token>`, and `Cookie` (which may carry `disable_esc=<secret>`).
pub const SECRET_HEADERS: &[&str] = &["x-auth-key", "authorization", "cookie"];

/// Whether a header's value is a secret (the name in any case).
pub fn is_secret_header(name: &str) -> bool {
    SECRET_HEADERS.iter().any(|h| name.eq_ignore_ascii_case(h))
}

/// Every key of a request body whose value is a secret: [`ESC_SECRET_KEY`] and the secret
/// job fields of [`JOB_FIELDS`].
pub fn secret_body_keys() -> Vec<&'static str> {
    std::iter::once(ESC_SECRET_KEY)
        .chain(JOB_FIELDS.iter().filter(|f| f.secret).map(|f| f.name))
        .collect()
}

/// Makes any JSON body fit to print, in place: every object in it redacted as a job record
/// ([`redact_job`]: a destination's credentials, the secret job fields) and every
/// [`ESC_SECRET_KEY`] value set masked.
///
/// ```
/// use escpush_core::redact_body;
/// use serde_json::json;
///
/// let mut body = json!({"with_secret": "s3cret", "jobs": [{"destination_conf": "s3://b?region=r&secret-access-key=k"}]});
/// redact_body(&mut body);
/// assert_eq!(body, json!({"with_secret": "***", "jobs": [{"destination_conf": "s3://b?region=r&secret-access-key=***"}]}));
/// ```
pub fn redact_body(value: &mut Value) {
    match value {
        Value::Object(obj) => {
            redact_job(obj);
            for (key, item) in obj.iter_mut() {
                if key == ESC_SECRET_KEY && !item.is_null() {
                    *item = Value::String(MASK.to_owned());
                } else {
                    redact_body(item);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(redact_body),
        _ => {}
    }
}

/// The secrets of one call (its credentials, the secrets of its body), and their removal
/// from any text the call shows: see the module's rule. Its `Debug` shows how many it holds,
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

    /// The secrets of a request body: the [`secret_body_keys`] values and the credentials
    /// of a `destination_conf` (whose whole text is shown redacted; a text that is no
    /// destination is masked whole).
    pub fn of_body(body: &Value) -> Self {
        let mut s = Secrets::new();
        if let Value::Object(obj) = body {
            if let Some(Value::String(secret)) = obj.get(ESC_SECRET_KEY) {
                s.add(secret);
            }
            s.add_job(obj);
        }
        s
    }

    fn add_job(&mut self, obj: &Map<String, Value>) {
        let (values, wholes) = job_secrets(obj);
        for value in values {
            self.add(&value);
        }
        for (whole, shown) in wholes {
            self.add_whole(&whole, &shown);
        }
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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn long_secrets_go_everywhere_short_ones_where_they_stand() {
        // Issue 23: `account-id=a` turned "creating a new job" into "cre***ting *** new job":
        // a short value inside a word is left; standing alone, it is masked (here the word
        // `a` too, which is the price of a one-letter credential).
        let body = json!({
            "destination_conf": "r2://b/p?account-id=a&access-key-id=AK&secret-access-key=SAK-long-secret",
            "ownership_challenge": "challenge-abcdef",
        });
        let s = Secrets::of_body(&body);
        let echoed = "creating a new job: bad destination r2://b/p?account-id=a&access-key-id=AK&secret-access-key=\
                      SAK-long-secret; account-id=a, access-key-id: AK, key SAK-long-secret, \
                      {\"ownership_challenge\":\"challenge-abcdef\"} AKA";
        assert_eq!(
            s.scrub(echoed),
            "creating *** new job: bad destination r2://b/p?account-id=***&access-key-id=***&secret-access-key=***; \
             account-id=***, access-key-id: ***, key ***, {\"ownership_challenge\":\"***\"} AKA"
        );
        // A short ESC secret is masked in its JSON member, in the cookie, after Bearer; a
        // value that only begins with it is left alone.
        let mut s = Secrets::of_body(&json!({"with_secret": "abc"}));
        s.add("tok");
        assert_eq!(
            s.scrub(
                r#"abcd {"with_secret": "abc"} Cookie: disable_esc=abc; Authorization: Bearer tok, disable_esc=abcd"#
            ),
            r#"abcd {"with_secret": "***"} Cookie: disable_esc=***; Authorization: Bearer ***, disable_esc=abcd"#
        );
        // A long secret is found anywhere; a text that is no destination is masked whole.
        let mut s = Secrets::of_body(&json!({"destination_conf": "nonsense-conf-42"}));
        s.add("k-0123456789");
        assert_eq!(s.scrub("got nonsense-conf-42 with k-0123456789x"), "got *** with ***x");
        assert!(Secrets::new().is_empty() && !s.is_empty());
        assert!(!format!("{s:?}").contains("k-0123456789"));
        // Bytes that are no text, and characters of other scripts, around a short secret.
        assert_eq!(mask_secret_bytes(b"\xff abc \xfe", "abc").as_ref(), b"\xff *** \xfe");
        assert_eq!(mask_secret_bytes(b"\xffabc\xfe", "abc").as_ref(), b"\xff***\xfe");
        assert_eq!(
            mask_secret("\u{e9}abc \u{ab}abc\u{bb}", "abc"),
            "\u{e9}abc \u{ab}***\u{bb}"
        );
    }

    #[test]
    fn a_short_secret_is_masked_wherever_it_stands_alone() {
        // An ESC secret may have 1 to 7 characters: the transport registers it under
        // `with_secret`, yet a server may quote it anywhere, in the cookie or alone.
        let s = Secrets::of_body(&json!({"with_secret": "abc123"}));
        assert_eq!(
            s.scrub("invalid secret abc123 (cookie disable_esc=abc123), 'abc123'. abc1234 xabc123"),
            "invalid secret *** (cookie disable_esc=***), '***'. abc1234 xabc123"
        );
        // A short user:password quoted alone, and a collector code at the end of a sentence.
        let s = Secrets::of_body(&json!({"destination_conf": "https://me:pw1@logs.example.com/in"}));
        assert_eq!(
            s.scrub("refused me:pw1 at logs.example.com"),
            "refused *** at logs.example.com"
        );
        let s = Secrets::of_body(&json!({"destination_conf": "sumo://e.sumologic.com/receiver/v1/http/C0DE"}));
        assert_eq!(s.scrub("no source C0DE."), "no source ***.");
        // Inside a longer word it is part of that word: "cre***ting" no more.
        let s = Secrets::of_body(&json!({"destination_conf": "r2://b/p?account-id=ea"}));
        assert_eq!(s.scrub("creating a job"), "creating a job");
    }

    #[test]
    fn bodies_are_redacted_at_every_depth() {
        let mut body = json!({
            "with_secret": "topsecret", "nested": [{"with_secret": "x"}],
            "destination_conf": "s3://b?region=r&secret-access-key=k2", "ownership_challenge": "c",
            "always": true, "with_secret_too": "shown",
        });
        redact_body(&mut body);
        assert_eq!(
            body,
            json!({
                "with_secret": "***", "nested": [{"with_secret": "***"}],
                "destination_conf": "s3://b?region=r&secret-access-key=***", "ownership_challenge": "***",
                "always": true, "with_secret_too": "shown",
            })
        );
        assert_eq!(secret_body_keys(), ["with_secret", "ownership_challenge"]);
        assert!(is_secret_header("X-Auth-Key") && is_secret_header("COOKIE") && !is_secret_header("x-auth-email"));
    }

    /// Issue 33, item 7: a destination's credential is masked in every form an error may
    /// quote it: percent-decoded, percent-encoded, the token of an `Authorization` value
    /// alone; in the call's secrets (create, validate destination, ownership, exists: their
    /// bodies hold the destination) and in a destination's own scrub (the ownership answer).
    #[test]
    fn a_credential_is_masked_in_every_form_an_error_may_quote_it() {
        let splunk =
            "splunk://splunk.example.com:8088/services/collector/raw?channel=FE0ECFAD-13D5-401B-847D-77833BD77131\
                      &insecure-skip-verify=false&header_Authorization=Splunk%20T0KEN-5EC7E7";
        let s3 = "s3://bucket/logs?region=us-east-1&access-key-id=AKID&secret-access-key=abc%2Bdef%2Fghi";
        let raw = "s3://bucket/logs?region=us-east-1&access-key-id=AKID&secret-access-key=abc+def/ghi";
        // The space of `Splunk <token>` written `+`, as a query may carry it.
        let plus =
            "splunk://splunk.example.com:8088/services/collector/raw?channel=FE0ECFAD-13D5-401B-847D-77833BD77131\
                    &insecure-skip-verify=false&header_Authorization=Splunk+T0KEN-9A8B7C";
        for (dest, quoted, secret) in [
            (plus, "token T0KEN-9A8B7C is invalid", "T0KEN-9A8B7C"),
            (splunk, "bad header Authorization: Splunk T0KEN-5EC7E7", "T0KEN-5EC7E7"),
            (splunk, "token T0KEN-5EC7E7 is invalid", "T0KEN-5EC7E7"),
            (splunk, "bad Splunk%20T0KEN-5EC7E7", "T0KEN-5EC7E7"),
            (s3, "InvalidSignature for key abc+def/ghi.", "def/ghi"),
            (raw, "sent secret-access-key=abc%2Bdef%2Fghi", "def%2Fghi"),
            (raw, "sent secret-access-key=abc%2bdef%2fghi", "def%2fghi"),
        ] {
            for body in [
                json!({"destination_conf": dest, "dataset": "http_requests"}),
                json!({"destination_conf": dest}),
                json!({"destination_conf": dest, "ownership_challenge": "challenge-0123456789"}),
            ] {
                let shown = Secrets::of_body(&body).scrub(quoted);
                assert!(!shown.contains(secret), "{dest}: {shown}");
                assert!(shown.contains(MASK), "{dest}: {shown}");
            }
            let conf = crate::DestinationConf::parse(dest).unwrap();
            let shown = conf.scrub(quoted);
            assert!(!shown.contains(secret), "{dest}: {shown}");
        }
        // The scheme alone is no secret: "Splunk" stays, and so do ordinary words.
        let s = Secrets::of_body(&json!({"destination_conf": splunk}));
        assert_eq!(s.scrub("Splunk refused the token"), "Splunk refused the token");
    }
}
