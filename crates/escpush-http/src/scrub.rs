//! The secrets of one call, and their removal from every text the call's error shows: a
//! server may echo the request's headers or body in its error message.

use escpush_core::{DestinationConf, Request, SECRET_JOB_FIELDS};
use serde_json::Value;

use crate::auth::Auth;
use crate::error::Error;

/// What stands in for a secret in a message.
const MASK: &str = "***";

/// Every secret a call sends: the credentials, and from the body the ESC secret being set
/// (`with_secret`), the job fields that are secrets, and the credentials inside a
/// `destination_conf`.
#[derive(Default)]
pub(crate) struct Secrets {
    /// (secret, replacement), longest secret first so that no part of one survives.
    pairs: Vec<(String, String)>,
}

impl Secrets {
    pub(crate) fn of(auth: &Auth, req: &Request) -> Secrets {
        let mut s = Secrets::default();
        match auth {
            Auth::ApiKey { key, .. } => s.add(key, MASK),
            Auth::Token(token) => s.add(token, MASK),
        }
        if let Some(Value::Object(body)) = &req.body {
            if let Some(Value::String(secret)) = body.get("with_secret") {
                s.add(secret, MASK);
            }
            for name in SECRET_JOB_FIELDS {
                if let Some(Value::String(secret)) = body.get(*name) {
                    s.add(secret, MASK);
                }
            }
            if let Some(Value::String(conf)) = body.get("destination_conf") {
                s.add_destination(conf);
            }
        }
        s.pairs.sort_by_key(|(secret, _)| std::cmp::Reverse(secret.len()));
        s
    }

    fn add(&mut self, secret: &str, replacement: &str) {
        if !secret.is_empty() && secret != replacement {
            self.pairs.push((secret.to_owned(), replacement.to_owned()));
        }
    }

    /// The whole text becomes its redacted form, and each part that redaction masks is a
    /// secret on its own too (a message may quote it alone); text that is no destination is
    /// masked whole.
    fn add_destination(&mut self, conf: &str) {
        match DestinationConf::parse(conf) {
            Ok(dest) => {
                for value in dest.secret_values() {
                    self.add(value, MASK);
                }
                self.add(conf, &dest.redacted());
            }
            Err(_) => self.add(conf, MASK),
        }
    }

    /// `text` with every secret replaced.
    pub(crate) fn scrub(&self, text: &str) -> String {
        let mut out = text.to_owned();
        for (secret, replacement) in &self.pairs {
            if out.contains(secret.as_str()) {
                out = out.replace(secret.as_str(), replacement);
            }
        }
        out
    }

    /// `err` with every secret replaced in every text that came from the network.
    pub(crate) fn scrub_error(&self, err: Error) -> Error {
        if self.pairs.is_empty() {
            return err;
        }
        err.map_text(&|text: &str| self.scrub(text))
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
        let echoed = "bad: Authorization: Bearer tok-123456 body {\"destination_conf\":\"s3://b/p?region=us-east-1&secret-access-key=KEY123\",\"ownership_challenge\":\"challenge-abc\"} key KEY123";
        let shown = s.scrub(echoed);
        for secret in ["tok-123456", "KEY123", "challenge-abc"] {
            assert!(!shown.contains(secret), "{shown}");
        }
        assert!(shown.contains("region=us-east-1"), "{shown}");
        let req = Request::new(Method::Post, "/zones/z/disable_esc").with_body(json!({"with_secret": "s3cret"}));
        let s = Secrets::of(
            &Auth::ApiKey {
                key: "k-1".into(),
                email: "me@x.io".into(),
            },
            &req,
        );
        assert_eq!(s.scrub("s3cret k-1 me@x.io"), "*** *** me@x.io");
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
