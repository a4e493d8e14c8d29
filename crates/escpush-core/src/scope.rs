//! Whether a dataset belongs to a zone or to an account: a word every layer uses, defined
//! below all of them (its parsing from text, which can fail with an [`Error`](crate::Error),
//! sits with the datasets).

use std::fmt;

use serde::Deserialize;

/// Whether a dataset belongs to a zone or to an account.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DatasetScope {
    Zone,
    Account,
}

impl DatasetScope {
    /// `"zone"` or `"account"`.
    pub fn as_str(self) -> &'static str {
        match self {
            DatasetScope::Zone => "zone",
            DatasetScope::Account => "account",
        }
    }
}

impl fmt::Display for DatasetScope {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
