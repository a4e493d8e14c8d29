//! The secrets of one call, and their removal from every text the call's error shows: a
//! server may echo the request's headers or body in its error message. What is a secret,
//! is core's `redact` module (`body_secrets`, the secret headers), and how a text is scrubbed
//! of it escpush-filter's `mask.rs`; this adds the credentials.

use escpush_core::Request;
use escpush_filter::Secrets as CoreSecrets;

use crate::auth::Auth;
use crate::error::Error;

/// Every secret a call sends: the credentials, and from the body what core's redaction names (the ESC secret, the secret job fields, the
/// credentials inside a `destination_conf`).
pub(crate) struct Secrets(CoreSecrets);

impl Secrets {
    pub(crate) fn of(auth: &Auth, req: &Request) -> Secrets {
        let mut s = req.body.as_ref().map(escpush_core::body_secrets).unwrap_or_default();
        match auth {
            Auth::ApiKey { key, .. } => s.add(key),
            Auth::Token(token) => s.add(token),
        }
        Secrets(s)
    }

    /// `text` with every secret replaced.
    pub(crate) fn scrub(&self, text: &str) -> String {
        self.0.scrub(text)
    }

    /// `err` with every secret replaced in every text that came from the network.
    pub(crate) fn scrub_error(&self, err: Error) -> Error {
        if self.0.is_empty() {
            return err;
        }
        err.map_text(&|text: &str| self.0.scrub(text))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use escpush_core::Method;
    use serde_json::json;

    #[test]
    fn every_secret_of_the_call_is_masked() {
        let auth = Auth::Token("tok-123456".into());
        let req = Request::new(Method::Post, "/zones/z/logpush/jobs").with_body(json!({
            "destination_conf": "s3://b/p?region=us-east-1&secret-access-key=KEY123",
            "ownership_challenge": "challenge-abc",
        }));
        let s = Secrets::of(&auth, &req);
        let echoed = "bad: Authorization: Bearer tok-123456 body {\"destination_conf\":\"s3://b/p?region=us-east-1&secret-access-key=KEY123\",\"ownership_challenge\":\"challenge-abc\"} secret-access-key=KEY123";
        let shown = s.scrub(echoed);
        for secret in ["tok-123456", "KEY123", "challenge-abc"] {
            assert!(!shown.contains(secret), "{shown}");
        }
        assert!(shown.contains("region=us-east-1"), "{shown}");
        // Short credentials are masked where they stand, not inside ordinary words.
        let req = Request::new(Method::Post, "/zones/z/disable_esc").with_body(json!({"with_secret": "s3cret"}));
        let s = Secrets::of(
            &Auth::ApiKey {
                key: "k-1".into(),
                email: "me@x.io".into(),
            },
            &req,
        );
        assert_eq!(
            s.scrub("X-Auth-Key: k-1 {\"with_secret\":\"s3cret\"} me@x.io k-10"),
            "X-Auth-Key: *** {\"with_secret\":\"***\"} me@x.io k-10"
        );
        // a destination's user:password quoted alone, and one that is not a destination
        let req = Request::new(Method::Post, "/zones/z/logpush/jobs")
            .with_body(json!({"destination_conf": "https://me:pw-9876@logs.example.com/in"}));
        let s = Secrets::of(&auth, &req);
        assert_eq!(
            s.scrub("user me:pw-9876 at https://me:pw-9876@logs.example.com/in"),
            "user *** at https://***@logs.example.com/in"
        );
        let req = Request::new(Method::Post, "/x").with_body(json!({"destination_conf": "nonsense-conf-42"}));
        assert_eq!(Secrets::of(&auth, &req).scrub("got nonsense-conf-42"), "got ***");
    }
}
