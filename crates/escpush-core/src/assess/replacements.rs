//! The spec's table of ESC use cases and the products that replace them (SPEC §1), as data,
//! and which row a difference the assessment finds most likely belongs to.

use serde_json::{json, Value};

/// One row of the replacement guide.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Replacement {
    /// What ESC did (the spec's "ESC use case").
    pub use_case: &'static str,
    /// What replaces it (the spec's "Replacement kind").
    pub replacement: &'static str,
    /// Where to start, or a caveat.
    pub note: &'static str,
}

impl Replacement {
    /// `{"use_case", "replacement", "note"}`.
    pub fn to_json(&self) -> Value {
        json!({ "use_case": self.use_case, "replacement": self.replacement, "note": self.note })
    }
}

const fn row(use_case: &'static str, replacement: &'static str, note: &'static str) -> Replacement {
    Replacement {
        use_case,
        replacement,
        note,
    }
}

/// Redirect to a URL without contacting the origin.
pub(crate) const REDIRECT: usize = 0;
/// Abort a request with a custom body and/or HTTP status.
pub(crate) const CUSTOM_ERROR: usize = 6;
/// Set, add or remove response headers.
pub(crate) const RESPONSE_HEADERS: usize = 7;
/// Redirect based on origin response status.
pub(crate) const STATUS_REDIRECT: usize = 8;
/// Add cookies to the response.
pub(crate) const COOKIES: usize = 9;

static REPLACEMENTS: [Replacement; 10] = [
    row(
        "Redirect to a URL without contacting the origin",
        "single or bulk redirect rules",
        "one rule per redirect; bulk redirect lists for many fixed URLs",
    ),
    row(
        "Rewrite the TLS SNI used towards the origin",
        "origin rules (SNI override); for SaaS-provider customers, custom hostnames",
        "invisible in responses: test the origin connection itself",
    ),
    row(
        "Override the resolved hostname used to reach the origin",
        "origin rules (resolve override)",
        "invisible in responses unless the origin answers differently",
    ),
    row(
        "Rewrite the URI towards the origin while the visitor still sees the original URL",
        "URL-rewrite transform rules",
        "shows as a different body or status for the same URL",
    ),
    row(
        "Set or clear request headers sent to the origin",
        "request-header transform rules",
        "shows only when the origin answers differently",
    ),
    row(
        "Exclude requests from security products",
        "configuration rules",
        "shows as a challenge or block status once ESC is off",
    ),
    row(
        "Abort a request with a custom body and/or HTTP status",
        "custom error responses",
        "match the URL and return the status and body ESC returned",
    ),
    row(
        "Set, add or remove response headers",
        "response-header transform rules",
        "one rule can set, add or remove several headers",
    ),
    row(
        "Redirect based on origin response status",
        "edge serverless functions (workers)",
        "no rule sees the origin's status before redirecting; complex cases belong in workers too",
    ),
    row(
        "Add cookies to the response",
        "response-header transform rules (these cover setting cookies)",
        "set the Set-Cookie header with a response-header transform rule",
    ),
];

/// The spec's replacement guide, row by row in the spec's order.
pub fn esc_replacements() -> &'static [Replacement] {
    &REPLACEMENTS
}

/// The row at `index` (one of this module's constants).
pub(crate) fn guide(index: usize) -> &'static Replacement {
    &REPLACEMENTS[index]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_guide_is_the_spec_table() {
        let rows = esc_replacements();
        assert_eq!(rows.len(), 10);
        assert!(guide(REDIRECT).replacement.contains("redirect rules"));
        assert_eq!(guide(CUSTOM_ERROR).replacement, "custom error responses");
        assert_eq!(guide(RESPONSE_HEADERS).replacement, "response-header transform rules");
        assert!(guide(STATUS_REDIRECT).replacement.contains("workers"));
        assert!(guide(COOKIES).use_case.contains("cookies"));
        assert_eq!(rows[0].to_json()["use_case"], rows[0].use_case);
    }
}
