//! Redaction of the API's secrets: which parts of what escpush sends, receives and prints
//! are secrets. The transport (its errors), the emulator (its request log and state
//! snapshots), the binding and Python (through the native module) all read it here; how a
//! secret is hidden in a text (the mask `***`, the rule for short secrets, URLs) is
//! escpush-filter's `mask` module ([`escpush_filter::Secrets`], [`escpush_filter::MASK`]),
//! shared with escpush-scan, which knows nothing of the API.
//!
//! - **Secret headers**, [`SECRET_HEADERS`]: the credentials a request carries.
//! - **Secret body keys**, [`secret_body_keys`]: the ESC secret (`with_secret`) and the job
//!   fields the job field table marks secret (`ownership_challenge`). A destination's
//!   credentials are [`DestinationConf`](crate::DestinationConf)'s to know (which of its
//!   parameters are harmless); they are reached through [`redact_body`], [`redact_job`] and
//!   [`body_secrets`] (the [`Secrets`] of a request body, removed from every text its call
//!   shows: the transport's errors, the emulator's log).

use serde_json::Value;

use escpush_filter::{Secrets, MASK};

use crate::logpush::{job_secrets, redact_job, JOB_FIELDS};

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

/// The secrets of a request body, to remove from any text its call shows: the
/// [`secret_body_keys`] values and the credentials of a `destination_conf` (whose whole text
/// is shown redacted; a text that is no destination is masked whole).
///
/// ```
/// use escpush_core::body_secrets;
/// use serde_json::json;
///
/// let s = body_secrets(&json!({"with_secret": "s3cret-value"}));
/// assert_eq!(s.scrub("echoed s3cret-value"), "echoed ***");
/// ```
pub fn body_secrets(body: &Value) -> Secrets {
    let mut s = Secrets::new();
    if let Value::Object(obj) = body {
        if let Some(Value::String(secret)) = obj.get(ESC_SECRET_KEY) {
            s.add(secret);
        }
        let (values, wholes) = job_secrets(obj);
        for value in values {
            s.add(&value);
        }
        for (whole, shown) in wholes {
            s.add_whole(&whole, &shown);
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use escpush_filter::{mask_secret, mask_secret_bytes};
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
        let s = body_secrets(&body);
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
        let mut s = body_secrets(&json!({"with_secret": "abc"}));
        s.add("tok");
        assert_eq!(
            s.scrub(
                r#"abcd {"with_secret": "abc"} Cookie: disable_esc=abc; Authorization: Bearer tok, disable_esc=abcd"#
            ),
            r#"abcd {"with_secret": "***"} Cookie: disable_esc=***; Authorization: Bearer ***, disable_esc=abcd"#
        );
        // A long secret is found anywhere; a text that is no destination is masked whole.
        let mut s = body_secrets(&json!({"destination_conf": "nonsense-conf-42"}));
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
        let s = body_secrets(&json!({"with_secret": "abc123"}));
        assert_eq!(
            s.scrub("invalid secret abc123 (cookie disable_esc=abc123), 'abc123'. abc1234 xabc123"),
            "invalid secret *** (cookie disable_esc=***), '***'. abc1234 xabc123"
        );
        // A short user:password quoted alone, and a collector code at the end of a sentence.
        let s = body_secrets(&json!({"destination_conf": "https://me:pw1@logs.example.com/in"}));
        assert_eq!(
            s.scrub("refused me:pw1 at logs.example.com"),
            "refused *** at logs.example.com"
        );
        let s = body_secrets(&json!({"destination_conf": "sumo://e.sumologic.com/receiver/v1/http/C0DE"}));
        assert_eq!(s.scrub("no source C0DE."), "no source ***.");
        // Inside a longer word it is part of that word: "cre***ting" no more.
        let s = body_secrets(&json!({"destination_conf": "r2://b/p?account-id=ea"}));
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
                let shown = body_secrets(&body).scrub(quoted);
                assert!(!shown.contains(secret), "{dest}: {shown}");
                assert!(shown.contains(MASK), "{dest}: {shown}");
            }
            let conf = crate::DestinationConf::parse(dest).unwrap();
            let shown = conf.scrub(quoted);
            assert!(!shown.contains(secret), "{dest}: {shown}");
        }
        // The scheme alone is no secret: "Splunk" stays, and so do ordinary words.
        let s = body_secrets(&json!({"destination_conf": splunk}));
        assert_eq!(s.scrub("Splunk refused the token"), "Splunk refused the token");
    }
}
