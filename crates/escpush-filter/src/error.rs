//! The one error type of escpush-filter.
//!
//! Its variants are those of `escpush_filter::Error` that the filter language raises, with
//! the same messages: escpush-core maps each to its own variant of the same name
//! (`From<escpush_filter::Error>`), so that a caller of the API sees one error type.

use crate::dataset_scope::DatasetScope;
use crate::problem::FilterError;
use crate::{shown, suggest};

/// Everything escpush-filter can refuse.
///
/// Not `non_exhaustive`, on purpose: escpush-core matches it without a wildcard, so that a
/// new variant does not compile until core's `Error` says what it becomes.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// A filter that is malformed, over the limits or does not fit its dataset.
    #[error(transparent)]
    Filter(#[from] FilterError),
    /// A dataset name that no embedded schema has.
    #[error(
        "unknown {}dataset `{}`{}",
        scope.map_or(String::new(), |s| format!("{s} ")),
        suggest::cut(name),
        suggest::did_you_mean(suggestion.as_deref())
    )]
    UnknownDataset {
        name: String,
        /// The scope the name was looked up in, if one was given.
        scope: Option<DatasetScope>,
        suggestion: Option<String>,
    },
    /// Input refused, with every problem found, each with its path (a scan's `group_by`,
    /// `every`, `time_field`: escpush-scan's `Breakdown`).
    #[error("{}", crate::problem::describe_problems("invalid input", problems))]
    Invalid { problems: Vec<crate::problem::Problem> },
    /// An argument refused; `what` names the argument (a SQL dialect, a table name, a
    /// dataset scope, ...).
    #[error("invalid {what}: {}", shown::message(&suggest::shorten(message, 1200)))]
    InvalidInput { what: &'static str, message: String },
}
