//! Zones and accounts: the two scopes every endpoint of the API lives on, and the datasets
//! belong to.
//!
//! - [`DatasetScope`]: which of the two, zone or account (the kind of a [`Scope`], the
//!   scope of a dataset, the `--scope` choices of the command line: [`DatasetScope::ALL`]);
//! - [`ScopeId`]: a zone's or an account's id, checked so that it stays one path segment;
//! - [`Scope`]: one zone or one account, by id.
//!
//! Where a scope sits in a path (`/zones/{id}`) is the endpoint table's business
//! ([`crate::Endpoint`]). `DatasetScope` itself is escpush-filter's (a dataset's scope,
//! which its schemas carry), as is its reading from text.

use std::fmt;

use crate::error::Error;
use escpush_filter::DatasetScope;

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
    /// A zone or an account, its id checked.
    pub fn new(kind: DatasetScope, id: impl Into<String>) -> Result<Self, Error> {
        match kind {
            DatasetScope::Zone => ScopeId::new("zone id", id).map(Scope::Zone),
            DatasetScope::Account => ScopeId::new("account id", id).map(Scope::Account),
        }
    }

    /// A zone, its id checked.
    pub fn zone(id: impl Into<String>) -> Result<Self, Error> {
        Scope::new(DatasetScope::Zone, id)
    }

    /// An account, its id checked.
    pub fn account(id: impl Into<String>) -> Result<Self, Error> {
        Scope::new(DatasetScope::Account, id)
    }

    /// Zone or account.
    pub fn kind(&self) -> DatasetScope {
        match self {
            Scope::Zone(_) => DatasetScope::Zone,
            Scope::Account(_) => DatasetScope::Account,
        }
    }

    /// The zone or account id.
    pub fn id(&self) -> &str {
        match self {
            Scope::Zone(id) | Scope::Account(id) => id.as_str(),
        }
    }
}

impl fmt::Display for Scope {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.kind(), self.id())
    }
}

/// RFC 3986 `pchar` without `%`: what a path segment holds without escaping.
fn is_path_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || "-._~!$&'()*+,;=:@".contains(c)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scope_ids_are_checked() {
        assert_eq!(Scope::zone("023e105f").unwrap().id(), "023e105f");
        assert_eq!(Scope::account("abc").unwrap().kind(), DatasetScope::Account);
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
    fn kinds_are_read_and_written_by_one_list() {
        for kind in DatasetScope::ALL {
            assert_eq!(kind.as_str().parse::<DatasetScope>().unwrap(), kind);
            assert_eq!(Scope::new(kind, "x").unwrap().kind(), kind);
        }
        let err = "zones".parse::<DatasetScope>().unwrap_err().to_string();
        assert_eq!(
            err,
            "invalid scope: `zones` is not a scope; use \"zone\" or \"account\""
        );
        assert_eq!(Scope::account("a1").unwrap().to_string(), "account a1");
    }
}
