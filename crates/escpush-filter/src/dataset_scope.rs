//! [`DatasetScope`]: zone or account, the scope of a dataset (and the kind of an API scope,
//! escpush-core's `Scope`). Defined in a module that names no other, so that every module
//! may name it, the crate's `Error` included (`Error::UnknownDataset`); its `FromStr`, which
//! fails with an `Error`, is in `dataset.rs`.

use std::fmt;

use serde::{Deserialize, Serialize};

/// Whether a dataset, a scope of the API (escpush-core's `Scope`) or an endpoint belongs to a zone or to an account.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum DatasetScope {
    Zone,
    Account,
}

impl DatasetScope {
    /// Both kinds, zone first: the order of every list of scopes (the CLI's choices, an
    /// endpoint's scopes).
    pub const ALL: [DatasetScope; 2] = [DatasetScope::Zone, DatasetScope::Account];

    /// `"zone"` or `"account"`.
    pub fn as_str(self) -> &'static str {
        match self {
            DatasetScope::Zone => "zone",
            DatasetScope::Account => "account",
        }
    }

    /// `"a zone"` or `"an account"`, for a message.
    pub fn with_article(self) -> &'static str {
        match self {
            DatasetScope::Zone => "a zone",
            DatasetScope::Account => "an account",
        }
    }
}

impl fmt::Display for DatasetScope {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
