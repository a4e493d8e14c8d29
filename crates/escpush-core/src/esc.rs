//! The Edge Side Code (ESC) deprecation controls: scopes, secrets, the status the API
//! reports, and the requests of the eight ESC operations (GET, POST `always`, POST
//! `with_secret`, DELETE, on a zone or an account).
//!
//! Nothing here does I/O: [`EscOp::request`] describes a request, [`EscStatus::parse`]
//! reads the body of a GET answer.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer};
use serde_json::{json, Value};

use crate::envelope::{read_answer, AnswerForm};
use crate::error::Error;
use crate::json::json_kind;
use crate::request::{Method, Request};

/// The most characters an ESC secret may have (SPEC §8).
pub const MAX_SECRET_LEN: usize = 100;

/// The name of the cookie that carries an ESC secret (SPEC §2.2).
pub const ESC_COOKIE_NAME: &str = "disable_esc";

/// The identifier of a zone or an account, checked so that it stays one path segment.
///
/// Refused: the empty string, `/`, `?`, `#`, `%`, whitespace and control characters.
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ScopeId(String);

impl ScopeId {
    /// Checks `id`; `what` names the argument in the error (`"zone id"`, `"account id"`).
    pub fn new(what: &'static str, id: impl Into<String>) -> Result<Self, Error> {
        let id = id.into();
        if id.is_empty() {
            return Err(Error::InvalidInput {
                what,
                message: "must not be empty".to_owned(),
            });
        }
        if let Some((pos, c)) = id.char_indices().find(|&(_, c)| matches!(c, '/' | '?' | '#' | '%')) {
            return Err(Error::InvalidInput {
                what,
                message: format!(
                    "`{c}` at byte {pos} is not allowed: an id is one path segment, without `/`, `?`, `#` or `%`"
                ),
            });
        }
        if let Some((pos, c)) = id.char_indices().find(|&(_, c)| c.is_whitespace() || c.is_control()) {
            let kind = if c.is_control() {
                "a control character"
            } else {
                "whitespace"
            };
            return Err(Error::InvalidInput {
                what,
                message: format!("{kind} at byte {pos} is not allowed in an id (U+{:04X})", u32::from(c)),
            });
        }
        if id == "." || id == ".." {
            return Err(Error::InvalidInput {
                what,
                message: format!("`{id}` is not allowed: it would name another path"),
            });
        }
        if let Some((pos, c)) = id.char_indices().find(|&(_, c)| !is_path_char(c)) {
            let shown = if c.is_ascii() {
                format!("`{c}`")
            } else {
                "a non-ASCII character".to_owned()
            };
            return Err(Error::InvalidInput {
                what,
                message: format!(
                    "{shown} at byte {pos} is not allowed in an id: use letters, digits and - . _ ~ ! $ & ' ( ) * + , ; = : @"
                ),
            });
        }
        Ok(ScopeId(id))
    }

    /// The id as given.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for ScopeId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.0, f)
    }
}

impl fmt::Display for ScopeId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Where an ESC setting lives: one zone, or one account (which covers all its zones).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Scope {
    Zone(ScopeId),
    Account(ScopeId),
}

impl Scope {
    /// A zone, its id checked.
    pub fn zone(id: impl Into<String>) -> Result<Self, Error> {
        ScopeId::new("zone id", id).map(Scope::Zone)
    }

    /// An account, its id checked.
    pub fn account(id: impl Into<String>) -> Result<Self, Error> {
        ScopeId::new("account id", id).map(Scope::Account)
    }

    /// `"zone"` or `"account"`.
    pub fn kind(&self) -> &'static str {
        match self {
            Scope::Zone(_) => "zone",
            Scope::Account(_) => "account",
        }
    }

    /// The zone or account id.
    pub fn id(&self) -> &str {
        match self {
            Scope::Zone(id) | Scope::Account(id) => id.as_str(),
        }
    }

    /// The path of the scope's resources, relative to the base URL: `/zones/{id}` or `/accounts/{id}`.
    pub fn path(&self) -> String {
        match self {
            Scope::Zone(id) => format!("/zones/{id}"),
            Scope::Account(id) => format!("/accounts/{id}"),
        }
    }

    /// The path of the scope's ESC setting: `/zones/{id}/disable_esc` or `/accounts/{id}/disable_esc`.
    pub fn esc_path(&self) -> String {
        format!("{}/disable_esc", self.path())
    }
}

impl fmt::Display for Scope {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.kind(), self.id())
    }
}

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

/// RFC 3986 `pchar` without `%`: what a path segment holds without escaping.
fn is_path_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || "-._~!$&'()*+,;=:@".contains(c)
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
        write!(f, "EscSecret({})", crate::shown::MASK)
    }
}

impl fmt::Display for EscSecret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(crate::shown::MASK)
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
    /// The request that performs this operation on `scope`. Every ESC request is safe to
    /// repeat: each one sets a state rather than adding to it.
    pub fn request(&self, scope: &Scope) -> Request {
        let path = scope.esc_path();
        match self {
            EscOp::Status => Request::new(Method::Get, path),
            EscOp::Disable => Request::new(Method::Post, path).with_body(json!({ "always": true })),
            EscOp::Enable => Request::new(Method::Delete, path),
            EscOp::SetSecret(secret) => Request::new(Method::Post, path)
                .with_body(json!({ "with_secret": secret.expose() }))
                .with_secret(),
        }
        .retry_safe(true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scope_ids_are_checked() {
        assert_eq!(
            Scope::zone("023e105f").unwrap().esc_path(),
            "/zones/023e105f/disable_esc"
        );
        assert_eq!(Scope::account("abc").unwrap().esc_path(), "/accounts/abc/disable_esc");
        for bad in [
            "", "a/b", "a?b", "a#b", "a%2f", "a b", "a\tb", "a\u{7}b", "../x", ".", "..", "a\\b", "a<b", "zoné",
        ] {
            let err = Scope::zone(bad).unwrap_err();
            assert!(
                matches!(err, Error::InvalidInput { what: "zone id", .. }),
                "{bad:?}: {err}"
            );
        }
        let err = Scope::account("").unwrap_err().to_string();
        assert_eq!(err, "invalid account id: must not be empty");
        assert!(Scope::zone("a/b").unwrap_err().to_string().contains("`/` at byte 1"));
        assert!(Scope::zone("..").unwrap_err().to_string().contains("another path"));
        assert!(Scope::zone("zoné")
            .unwrap_err()
            .to_string()
            .contains("a non-ASCII character at byte 3"));
        assert_eq!(Scope::zone("a.b-c_d~e:f@g").unwrap().id(), "a.b-c_d~e:f@g");
    }

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
        assert!(!format!("{:?}", EscOp::SetSecret(s.clone()).request(&Scope::zone("z").unwrap())).contains("hunter2"));
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
        let secret = EscSecret::new("abc").unwrap();
        for scope in [Scope::zone("z1").unwrap(), Scope::account("a1").unwrap()] {
            let p = scope.esc_path();
            let get = EscOp::Status.request(&scope);
            assert_eq!(
                (get.method, get.path.as_str(), get.body.as_ref()),
                (Method::Get, p.as_str(), None)
            );
            let dis = EscOp::Disable.request(&scope);
            assert_eq!((dis.method, dis.body.unwrap()), (Method::Post, json!({"always": true})));
            let en = EscOp::Enable.request(&scope);
            assert_eq!((en.method, en.body), (Method::Delete, None));
            let set = EscOp::SetSecret(secret.clone()).request(&scope);
            assert_eq!(set.method, Method::Post);
            assert_eq!(set.body_bytes().unwrap(), br#"{"with_secret":"abc"}"#);
            assert!(set.retry_safe && set.carries_secret);
        }
    }
}
