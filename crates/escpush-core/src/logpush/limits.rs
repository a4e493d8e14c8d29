//! How many log-push jobs a zone or an account may hold: the API's documented limits, read
//! by the plan (which refuses before it writes) and by the emulator (which refuses the
//! creation past a limit with the API's message).

use escpush_filter::DatasetScope;

/// One documented limit on the number of log-push jobs of a scope.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct JobLimit {
    /// The scope the limit applies to.
    pub scope: DatasetScope,
    /// The dataset whose jobs are counted, or `None` for the jobs of every dataset.
    pub dataset: Option<&'static str>,
    /// The most jobs the scope holds (of `dataset`, where one is named).
    pub max: usize,
    /// Where Cloudflare documents it.
    pub source: &'static str,
}

impl JobLimit {
    /// Whether a job of `dataset` counts against this limit.
    pub fn counts(&self, dataset: &str) -> bool {
        self.dataset.is_none_or(|d| d == dataset)
    }

    /// What the limit says, for messages: "at most 4 per zone", "at most 4
    /// dlp_forensic_copies jobs per account".
    pub fn describe(&self) -> String {
        match self.dataset {
            None => format!("at most {} per {}", self.max, self.scope),
            Some(d) => format!("at most {} {d} jobs per {}", self.max, self.scope),
        }
    }
}

/// The documented limits on how many log-push jobs a scope holds. Nothing else is
/// documented: an account has no general limit (the "exceeded max jobs allowed" others
/// report on accounts and on zones without jobs is a plan's entitlement, not a count).
///
/// - Zone, every dataset and kind together: "There is currently a max limit of **4 Logpush
///   jobs per zone**. Trying to create a job once the limit has been reached will result in
///   an error message: `creating a new job is not allowed: exceeded max jobs allowed`."
///   (cloudflare/cloudflare-docs, `src/content/docs/logs/logpush/index.mdx`, "Limits";
///   <https://developers.cloudflare.com/logs/logpush/#limits>).
/// - Account, `dlp_forensic_copies` only: "Logpush supports up to four DLP Forensic Copy
///   Logpush jobs per account." (cloudflare/cloudflare-docs,
///   `src/content/docs/cloudflare-one/data-loss-prevention/dlp-policies/logging-options.mdx`).
pub const JOB_LIMITS: &[JobLimit] = &[
    JobLimit {
        scope: DatasetScope::Zone,
        dataset: None,
        max: 4,
        source: "https://developers.cloudflare.com/logs/logpush/#limits",
    },
    JobLimit {
        scope: DatasetScope::Account,
        dataset: Some("dlp_forensic_copies"),
        max: 4,
        source: "https://developers.cloudflare.com/cloudflare-one/data-loss-prevention/dlp-policies/logging-options/",
    },
];

/// The API's message for a creation past a limit, as Cloudflare documents it (the same
/// page as the zone's limit, above).
pub const MAX_JOBS_MESSAGE: &str = "creating a new job is not allowed: exceeded max jobs allowed";

/// The limits that count a job of `dataset` on a scope of kind `scope`.
pub fn job_limits(scope: DatasetScope, dataset: &str) -> impl Iterator<Item = &'static JobLimit> + '_ {
    JOB_LIMITS.iter().filter(move |l| l.scope == scope && l.counts(dataset))
}

/// The limit a new job of `dataset` would break on a scope holding jobs of the `held`
/// datasets (one entry per job), if any: the emulator's check of a creation (a client's
/// plan checks its whole write order instead, `plan_jobs`).
#[cfg(any(test, feature = "emulator"))]
pub fn limit_reached(scope: DatasetScope, held: &[&str], dataset: &str) -> Option<&'static JobLimit> {
    job_limits(scope, dataset).find(|limit| held.iter().filter(|d| limit.counts(d)).count() >= limit.max)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_zone_counts_every_dataset_an_account_only_dlp_copies() {
        let four = ["http_requests", "firewall_events", "dns_logs", "http_requests"];
        let zone = limit_reached(DatasetScope::Zone, &four, "spectrum_events").expect("a zone holds 4 jobs");
        assert_eq!((zone.max, zone.describe()), (4, "at most 4 per zone".to_owned()));
        assert!(limit_reached(DatasetScope::Zone, &four[..3], "http_requests").is_none());
        let dns = ["gateway_dns"; 9];
        assert!(limit_reached(DatasetScope::Account, &dns, "gateway_dns").is_none());
        assert!(limit_reached(DatasetScope::Account, &dns, "dlp_forensic_copies").is_none());
        let dlp = ["dlp_forensic_copies"; 4];
        let account = limit_reached(DatasetScope::Account, &dlp, "dlp_forensic_copies").expect("4 DLP jobs");
        assert_eq!(account.describe(), "at most 4 dlp_forensic_copies jobs per account");
        assert!(limit_reached(DatasetScope::Account, &dlp, "gateway_dns").is_none());
    }
}
