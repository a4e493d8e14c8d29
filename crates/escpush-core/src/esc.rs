//! The Edge Side Code (ESC) deprecation controls: secrets, the status the API reports, and
//! the four ESC operations of a zone or an account (GET, POST `always`, POST `with_secret`,
//! DELETE), on the endpoints of the table (`endpoints.rs`).
//!
//! Nothing here does I/O: [`EscOp`]'s [`Operation::request`] describes a request,
//! [`EscOp::read_body`] reads the body of a POST as the API receives it, and
//! [`EscStatus::parse`] reads the body of a GET answer.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer};
use serde_json::{json, Value};

use crate::endpoints::Endpoint;
use crate::envelope::{read_answer, AnswerForm};
use crate::error::Error;
use crate::operation::Operation;
use crate::request::Request;
use crate::scope::Scope;
use escpush_filter::json_kind;

/// The most characters an ESC secret may have (SPEC §8).
pub const MAX_SECRET_LEN: usize = 100;

/// How many random bytes a secret escpush makes holds ([`EscSecret::from_random`]): 256 bits.
pub const SECRET_RANDOM_BYTES: usize = 32;

/// How many characters a secret escpush makes has ([`EscSecret::from_random`]).
pub const GENERATED_SECRET_LEN: usize = 43;

/// The name of the cookie that carries an ESC secret (SPEC §2.2).
pub const ESC_COOKIE_NAME: &str = "disable_esc";

/// An ESC secret: 1 to 100 characters, each one a cookie-octet of RFC 6265 (printable
/// ASCII except space, `"`, `,`, `;` and `\`), so that it survives in `Cookie: disable_esc=...`.
///
/// Built only through [`EscSecret::new`] (also behind `FromStr` and `Deserialize`). Its
/// `Debug` and `Display` never show it; [`EscSecret::expose`] does, on purpose.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct EscSecret(String);

impl EscSecret {
    /// Checks `secret`; the error names the rule broken and where, never the secret.
    pub fn new(secret: impl Into<String>) -> Result<Self, Error> {
        let secret = secret.into();
        let invalid = |message: String| {
            Err(Error::InvalidInput {
                what: "ESC secret",
                message,
            })
        };
        let len = secret.chars().count();
        if len == 0 {
            return invalid("must not be empty (1 to 100 characters)".to_owned());
        }
        if len > MAX_SECRET_LEN {
            return invalid(format!("has {len} characters; at most {MAX_SECRET_LEN} are allowed"));
        }
        if let Some((pos, c)) = secret.chars().enumerate().find(|&(_, c)| !is_cookie_octet(c)) {
            let name = describe_char(c);
            return invalid(format!(
                "character {} is {name}, which a cookie value cannot carry \
                 (allowed: printable ASCII except space, `\"`, `,`, `;` and `\\`)",
                pos + 1
            ));
        }
        Ok(EscSecret(secret))
    }

    /// The secret escpush makes when asked for a fresh one (`Esc.set_secret()` without one,
    /// an assessment without one): the [`SECRET_RANDOM_BYTES`] random bytes given, from the
    /// operating system's random source (the caller's I/O, not core's), as URL-safe base64
    /// without padding: 43 characters of `A-Z a-z 0-9 - _`, each a cookie-octet.
    pub fn from_random(bytes: &[u8; SECRET_RANDOM_BYTES]) -> EscSecret {
        const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
        let mut text = String::with_capacity(GENERATED_SECRET_LEN);
        for chunk in bytes.chunks(3) {
            let n = chunk
                .iter()
                .enumerate()
                .fold(0u32, |n, (i, &b)| n | (u32::from(b) << (16 - 8 * i)));
            // 1 byte gives 2 characters, 2 give 3, 3 give 4 (no padding).
            for i in 0..=chunk.len() {
                text.push(char::from(ALPHABET[((n >> (18 - 6 * i)) & 63) as usize]));
            }
        }
        EscSecret(text)
    }

    /// The secret itself, for a request body or a cookie.
    pub fn expose(&self) -> &str {
        &self.0
    }

    /// How many characters the secret has (safe to show).
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Always false: a secret has at least one character.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// RFC 6265 §4.1.1: `%x21 / %x23-2B / %x2D-3A / %x3C-5B / %x5D-7E`.
fn is_cookie_octet(c: char) -> bool {
    matches!(c, '\x21' | '\x23'..='\x2B' | '\x2D'..='\x3A' | '\x3C'..='\x5B' | '\x5D'..='\x7E')
}

fn describe_char(c: char) -> &'static str {
    match c {
        ' ' => "a space",
        '"' => "a double quote",
        ',' => "a comma",
        ';' => "a semicolon",
        '\\' => "a backslash",
        c if c.is_control() => "a control character",
        c if c.is_whitespace() => "whitespace",
        _ => "a non-ASCII character",
    }
}

impl fmt::Debug for EscSecret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "EscSecret({})", escpush_filter::MASK)
    }
}

impl fmt::Display for EscSecret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(escpush_filter::MASK)
    }
}

impl FromStr for EscSecret {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        EscSecret::new(s)
    }
}

impl<'de> Deserialize<'de> for EscSecret {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let s = String::deserialize(deserializer)?;
        EscSecret::new(s).map_err(serde::de::Error::custom)
    }
}

/// The value of a `Cookie` header that disables ESC for one request: `disable_esc=<secret>`.
pub fn esc_cookie(secret: &EscSecret) -> String {
    format!("{ESC_COOKIE_NAME}={}", secret.expose())
}

/// What a scope's ESC setting amounts to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum EscState {
    /// ESC runs, no secret is configured.
    Enabled,
    /// ESC is disabled for every request (`always`); a secret may also be configured.
    Disabled,
    /// ESC runs, except for requests that carry the configured secret in `disable_esc`.
    Secret,
}

impl EscState {
    /// `"enabled"`, `"disabled"` or `"secret"`.
    pub fn as_str(self) -> &'static str {
        match self {
            EscState::Enabled => "enabled",
            EscState::Disabled => "disabled",
            EscState::Secret => "secret",
        }
    }
}

impl fmt::Display for EscState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The ESC setting of a scope, as a GET reports it: `always`, a secret, both, or neither.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct EscStatus {
    /// ESC is disabled for every request of the scope.
    pub always: bool,
    /// The configured secret, if any.
    pub secret: Option<EscSecret>,
}

impl EscStatus {
    /// A status from its two parts.
    pub fn new(always: bool, secret: Option<EscSecret>) -> Self {
        EscStatus { always, secret }
    }

    /// `Disabled` when `always` holds (whether or not a secret is set), else `Secret` when a
    /// secret is configured, else `Enabled`.
    pub fn state(&self) -> EscState {
        if self.always {
            EscState::Disabled
        } else if self.secret.is_some() {
            EscState::Secret
        } else {
            EscState::Enabled
        }
    }

    /// Reads a GET answer: its HTTP `status` and `body`, bare (`{"always": true}`) or inside
    /// the v4 envelope (`{"success": true, "result": {...}, ...}`). An envelope's `result`
    /// `{}` means ESC is active without a secret (the spec shows no field for that state).
    ///
    /// An answer that holds no status is [`Error::MalformedResponse`], never "enabled": an
    /// empty body (204, empty 200), a bare body without `always` or `with_secret` (`null`,
    /// `{}`), an envelope without `result` or with `result: null`, and a broken envelope.
    pub fn from_answer(status: u16, body: &[u8]) -> Result<Self, Error> {
        let answer = read_answer(status, body)?;
        let no_status = |what: &str| {
            Err(Error::MalformedResponse {
                status: Some(status),
                message: format!("the answer holds no ESC status ({what})"),
            })
        };
        match answer.form {
            AnswerForm::Envelope => Self::from_result(&answer.result),
            AnswerForm::Bare => {
                let has_status = answer
                    .result
                    .as_object()
                    .is_some_and(|o| o.contains_key("always") || o.contains_key("with_secret"));
                if has_status {
                    Self::from_result(&answer.result)
                } else {
                    no_status(&format!(
                        "a body without `always` or `with_secret`: {}",
                        json_kind(&answer.result)
                    ))
                }
            }
            AnswerForm::Empty => no_status("an empty body"),
            _ => no_status("an envelope without `result`"),
        }
    }

    /// [`EscStatus::from_answer`] for a body that came with a 200.
    pub fn parse(body: &[u8]) -> Result<Self, Error> {
        Self::from_answer(200, body)
    }

    /// Reads the `result` of a GET answer: an object with `always` and/or `with_secret` (`{}`
    /// when neither applies). Anything else, null included, is [`Error::MalformedResponse`].
    pub fn from_result(result: &Value) -> Result<Self, Error> {
        let malformed = |message: String| Error::malformed(message);
        let obj = match result {
            Value::Object(obj) => obj,
            other => {
                return Err(malformed(format!(
                    "the ESC status is {}, not an object",
                    json_kind(other)
                )))
            }
        };
        let always = match obj.get("always") {
            None | Some(Value::Null) => false,
            Some(Value::Bool(b)) => *b,
            Some(other) => return Err(malformed(format!("`always` is {}, not a boolean", json_kind(other)))),
        };
        let secret = match obj.get("with_secret") {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) => Some(
                EscSecret::new(s.as_str())
                    .map_err(|e| malformed(format!("the reported `with_secret` is not a valid secret: {e}")))?,
            ),
            Some(other) => {
                return Err(malformed(format!(
                    "`with_secret` is {}, not a string",
                    json_kind(other)
                )))
            }
        };
        Ok(EscStatus { always, secret })
    }
}

/// One of the four ESC operations of a scope.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum EscOp {
    /// `GET .../disable_esc`: the status and, if configured, the secret.
    Status,
    /// `POST .../disable_esc {"always": true}`: disable ESC for every request.
    Disable,
    /// `DELETE .../disable_esc`: enable ESC again.
    Enable,
    /// `POST .../disable_esc {"with_secret": "..."}`: configure the per-request secret.
    SetSecret(EscSecret),
}

impl EscOp {
    /// The endpoint of the operation: `GET`, `POST` (both `Disable` and `SetSecret`) or
    /// `DELETE .../disable_esc`.
    pub fn endpoint(&self) -> Endpoint {
        match self {
            EscOp::Status => Endpoint::EscStatus,
            EscOp::Disable | EscOp::SetSecret(_) => Endpoint::EscSet,
            EscOp::Enable => Endpoint::EscEnable,
        }
    }

    /// Reads the JSON body of `POST .../disable_esc` as the API receives it: exactly
    /// `{"always": true}` ([`EscOp::Disable`]) or `{"with_secret": "<secret>"}`
    /// ([`EscOp::SetSecret`], the secret checked by [`EscSecret::new`], so that what the
    /// client refuses to send is refused here too). The error names the rule broken and
    /// never shows the secret.
    pub fn read_body(body: &Value) -> Result<EscOp, Error> {
        let invalid = |message: &str| Error::InvalidInput {
            what: "ESC body",
            message: message.to_owned(),
        };
        let Value::Object(obj) = body else {
            return Err(invalid(
                "the body must be a JSON object: {\"always\": true} or {\"with_secret\": \"...\"}",
            ));
        };
        let keys: Vec<&str> = obj.keys().map(String::as_str).collect();
        match (keys.as_slice(), obj.get("always"), obj.get("with_secret")) {
            (["always"], Some(Value::Bool(true)), _) => Ok(EscOp::Disable),
            (["always"], Some(_), _) => Err(invalid("`always` only takes the value true; use DELETE to enable ESC")),
            (["with_secret"], _, Some(Value::String(s))) => EscSecret::new(s.as_str()).map(EscOp::SetSecret),
            (["with_secret"], _, Some(_)) => Err(invalid("`with_secret` must be a string")),
            _ => Err(invalid(
                "the body must be exactly {\"always\": true} or {\"with_secret\": \"...\"}",
            )),
        }
    }
}

/// Every ESC request is safe to repeat: each one sets a state rather than adding to it (the
/// reasons are the rows of the endpoint table).
impl Operation for EscOp {
    fn request(&self, scope: &Scope) -> Result<Request, Error> {
        let req = self.endpoint().request(scope, &[])?;
        Ok(match self {
            EscOp::Status | EscOp::Enable => req,
            EscOp::Disable => req.with_body(json!({ "always": true })),
            EscOp::SetSecret(secret) => req.with_body(json!({ "with_secret": secret.expose() })).with_secret(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_follow_the_cookie_rules() {
        assert!(EscSecret::new("s3cret-_.~!#$&'()*+/:<=>?@[]^`{|}").is_ok());
        assert!(EscSecret::new("x".repeat(100)).is_ok());
        let long = EscSecret::new("x".repeat(101)).unwrap_err().to_string();
        assert!(long.contains("101 characters"), "{long}");
        assert!(EscSecret::new("").unwrap_err().to_string().contains("empty"));
        for (bad, what) in [
            ("ab;cd", "semicolon"),
            ("ab cd", "space"),
            ("a\"b", "double quote"),
            ("a,b", "comma"),
            ("a\\b", "backslash"),
            ("a\nb", "control"),
            ("aéb", "non-ASCII"),
        ] {
            let msg = EscSecret::new(bad).unwrap_err().to_string();
            assert!(msg.contains(what), "{msg}");
            assert!(!msg.contains(bad), "{msg}");
        }
    }

    #[test]
    fn secrets_are_never_shown() {
        let s = EscSecret::new("hunter2hunter2").unwrap();
        assert_eq!(format!("{s:?}"), "EscSecret(***)");
        assert_eq!(s.to_string(), "***");
        let status = EscStatus::new(false, Some(s.clone()));
        assert!(!format!("{status:?}").contains("hunter2"));
        let req = EscOp::SetSecret(s.clone()).request(&Scope::zone("z").unwrap()).unwrap();
        assert!(!format!("{req:?}").contains("hunter2"));
        assert_eq!(esc_cookie(&s), "disable_esc=hunter2hunter2");
        let parsed: EscSecret = serde_json::from_str("\"hunter2hunter2\"").unwrap();
        assert_eq!(parsed, s);
        assert!(serde_json::from_str::<EscSecret>("\"a;b\"").is_err());
        assert_eq!("abc".parse::<EscSecret>().unwrap().len(), 3);
    }

    #[test]
    fn status_parses_bare_and_enveloped() {
        let st = |b: &str| EscStatus::parse(b.as_bytes()).unwrap();
        // the spec shows no field for "ESC active": an envelope whose result is `{}`
        assert_eq!(
            st(r#"{"success":true,"errors":[],"messages":[],"result":{}}"#).state(),
            EscState::Enabled
        );
        assert_eq!(st(r#"{"always": true}"#).state(), EscState::Disabled);
        assert_eq!(st(r#"{"always": false}"#).state(), EscState::Enabled);
        let s = st(r#"{"with_secret": "abc"}"#);
        assert_eq!((s.state(), s.secret.unwrap().expose()), (EscState::Secret, "abc"));
        let both = st(r#"{"success":true,"errors":[],"messages":[],"result":{"always":true,"with_secret":"abc"}}"#);
        assert_eq!(both.state(), EscState::Disabled);
        assert!(both.always && both.secret.is_some());
        // answers that hold no status are never read as "enabled" (issue 17.4)
        for empty in [
            "",
            "null",
            "{}",
            r#"{"success":true,"errors":[],"messages":[],"result":null}"#,
            r#"{"success":true,"errors":[],"messages":[]}"#,
            r#"{"success":true,"errors":{},"result":{}}"#,
        ] {
            let err = EscStatus::parse(empty.as_bytes()).unwrap_err();
            assert!(matches!(err, Error::MalformedResponse { .. }), "{empty}: {err}");
        }
        assert!(matches!(
            EscStatus::from_answer(204, b""),
            Err(Error::MalformedResponse { status: Some(204), .. })
        ));
        for bad in [
            "[1]",
            r#"{"always": "yes"}"#,
            r#"{"with_secret": 5}"#,
            "nope",
            r#"{"result": 3}"#,
        ] {
            assert!(
                matches!(EscStatus::parse(bad.as_bytes()), Err(Error::MalformedResponse { .. })),
                "{bad}"
            );
        }
    }

    #[test]
    fn the_eight_requests() {
        use crate::request::Method;
        let secret = EscSecret::new("abc").unwrap();
        for (scope, p) in [
            (Scope::zone("z1").unwrap(), "/zones/z1/disable_esc"),
            (Scope::account("a1").unwrap(), "/accounts/a1/disable_esc"),
        ] {
            let get = EscOp::Status.request(&scope).unwrap();
            assert_eq!(
                (get.method, get.path.as_str(), get.body.as_ref()),
                (Method::Get, p, None)
            );
            let dis = EscOp::Disable.request(&scope).unwrap();
            assert_eq!(
                (dis.method, dis.body.clone().unwrap()),
                (Method::Post, json!({"always": true}))
            );
            let en = EscOp::Enable.request(&scope).unwrap();
            assert_eq!(
                (en.method, en.path.as_str(), en.body.as_ref()),
                (Method::Delete, p, None)
            );
            let set = EscOp::SetSecret(secret.clone()).request(&scope).unwrap();
            assert_eq!((set.method, set.path.as_str()), (Method::Post, p));
            assert_eq!(set.body_bytes().unwrap(), br#"{"with_secret":"abc"}"#);
            assert!(set.retry.is_safe() && set.carries_secret);
            // Every ESC request is safe to repeat (the table's rows say why).
            assert!([get, dis, en].iter().all(|r| r.retry.is_safe()));
        }
    }

    #[test]
    fn post_bodies_are_read_as_the_client_writes_them() {
        let zone = Scope::zone("z1").unwrap();
        let secret = EscSecret::new("s3cret").unwrap();
        for op in [EscOp::Disable, EscOp::SetSecret(secret)] {
            let body = op.request(&zone).unwrap().body.unwrap();
            assert_eq!(EscOp::read_body(&body).unwrap(), op);
        }
        // What `EscSecret::new` refuses is refused in a body too (the emulator used to check
        // the length only): a space, a `;`, a control character, a non-ASCII one.
        for (bad, rule) in [
            (json!({"with_secret": "top secret"}), "a space"),
            (json!({"with_secret": "top;secret"}), "a semicolon"),
            (json!({"with_secret": "top\nsecret"}), "a control character"),
            (json!({"with_secret": "topsécret"}), "non-ASCII"),
            (json!({"with_secret": ""}), "must not be empty"),
            (json!({"with_secret": "x".repeat(101)}), "101 characters"),
            (json!({"with_secret": 5}), "must be a string"),
            (json!({"always": false}), "only takes the value true"),
            (json!({"always": "true"}), "only takes the value true"),
            (json!({"always": true, "with_secret": "a"}), "exactly"),
            (json!({}), "exactly"),
            (json!([true]), "a JSON object"),
        ] {
            let err = EscOp::read_body(&bad).unwrap_err();
            let shown = err.to_string();
            assert!(matches!(err, Error::InvalidInput { .. }), "{bad}: {shown}");
            assert!(shown.contains(rule), "{bad}: {shown}");
            assert!(!shown.contains("top"), "the secret is never shown: {shown}");
        }
    }

    #[test]
    fn a_generated_secret_is_its_bytes_as_url_safe_base64() {
        let bytes: [u8; SECRET_RANDOM_BYTES] = std::array::from_fn(|i| u8::try_from(i).unwrap());
        let made = EscSecret::from_random(&bytes);
        assert_eq!(made.expose(), "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8");
        let all = EscSecret::from_random(&[0xff; SECRET_RANDOM_BYTES]);
        assert_eq!(all.expose(), format!("{}8", "_".repeat(42)));
        for made in [made, all] {
            assert_eq!(made.len(), GENERATED_SECRET_LEN);
            // a secret escpush makes is one the API takes
            assert_eq!(EscSecret::new(made.expose()).unwrap(), made);
        }
    }
}
