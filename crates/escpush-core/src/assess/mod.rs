//! The ESC impact assessment: the spec's recommended test order (one request with a secret
//! cookie, then the zone, then optionally the account) as a state machine a transport
//! drives, the comparison of responses with ESC and without, the way back to the state each
//! scope was found in, and the spec's replacement guide as data.
//!
//! `plan` (the checked settings), `machine` (the steps, the decisions), `compare` (a
//! response, its check, the differences), `report` (the outcome, JSON and text),
//! `replacements` (the guide).

mod compare;
mod machine;
mod plan;
mod replacements;
mod report;
#[cfg(test)]
mod tests;

pub use compare::{DiffKind, Difference, Fetched, SiteResponse};
pub use machine::{Assessment, Event, Step};
pub use plan::{
    AssessPlan, AssessPlanBuilder, SiteUrl, DEFAULT_FETCH_TIMEOUT_SECS, DEFAULT_IGNORED_HEADERS, DEFAULT_SETTLE_SECS,
    DEFAULT_WAIT_LIMIT_SECS, MAX_URLS,
};
pub use replacements::{esc_replacements, Replacement};
pub use report::{status_json, AssessReport, NotRestored, Outcome, ScopeReport, StageName, StageReport, UrlResult};
