//! What escpush knows of Terraform's `cloudflare_logpush_job`, the resource of Cloudflare's
//! Terraform provider (terraform-provider-cloudflare, v5): its attributes, and its import id.
//! A fact of the provider, not of the API: the job fields themselves are
//! [`JOB_FIELDS`](super::JOB_FIELDS)' rows, and an attribute is the field of the same name
//! (an `output_options` key, the [`OUTPUT_OPTIONS`](super::OUTPUT_OPTIONS) row whose name
//! lowercased, with `-` as `_`, is the attribute's: `CVE-2021-44228` is `cve_2021_44228`).
//!
//! Source: `internal/services/logpush_job/schema.go` and `docs/resources/logpush_job.md` of
//! cloudflare/terraform-provider-cloudflare at v5.22.0 (2026-07-09). Not in that schema,
//! though the API has them: `filter_attack_traffic`, `merge_subrequests` (the job field; the
//! `output_options` key is there) and `output_options.stringify_object`.

use escpush_core::Scope;
use escpush_filter::DatasetScope;

use escpush_core::OUTPUT_OPTIONS;

/// The resource type.
pub const TERRAFORM_RESOURCE: &str = "cloudflare_logpush_job";

/// The provider version whose schema [`TERRAFORM_ATTRIBUTES`] follows.
pub const TERRAFORM_PROVIDER_VERSION: &str = "5.22.0";

/// The attributes of a `cloudflare_logpush_job` that a configuration sets (schema.go: every
/// `Optional` or `Required` one; `id`, `error_message`, `last_complete` and `last_error` are
/// `Computed` only).
pub const TERRAFORM_ATTRIBUTES: &[&str] = &[
    "account_id",
    "zone_id",
    "dataset",
    "destination_conf",
    "filter",
    "logpull_options",
    "max_upload_bytes",
    "max_upload_interval_seconds",
    "max_upload_records",
    "name",
    "ownership_challenge",
    "output_options",
    "enabled",
    "frequency",
    "kind",
];

/// The attributes of its `output_options` (a single nested attribute in v5: `output_options
/// = { ... }`; a block, `output_options { ... }`, in v4).
pub const TERRAFORM_OUTPUT_OPTIONS: &[&str] = &[
    "batch_prefix",
    "batch_suffix",
    "cve_2021_44228",
    "field_delimiter",
    "field_names",
    "merge_subrequests",
    "output_type",
    "record_delimiter",
    "record_prefix",
    "record_suffix",
    "record_template",
    "sample_rate",
    "timestamp_format",
];

/// The attributes of provider v4's `output_options` block named otherwise in v5 (v4's
/// `resource_cloudflare_logpush_job` schema; the provider's v4 to v5 migration guide:
/// "`output_options.cve20214428` | `cve20214428 = false` | `cve_2021_44228 = false`").
pub const TERRAFORM_V4_OUTPUT_OPTIONS: &[(&str, &str)] = &[("cve20214428", "cve_2021_44228")];

/// The dataset of a resource that names none (schema.go: `Default:
/// stringdefault.StaticString("http_requests")`).
pub const TERRAFORM_DEFAULT_DATASET: &str = "http_requests";

/// The datasets the provider's `dataset` validator takes (schema.go's
/// `stringvalidator.OneOfCaseInsensitive(...)`); a job of another dataset the API has is
/// refused by `terraform plan` until a provider release lists it.
pub const TERRAFORM_DATASETS: &[&str] = &[
    "access_requests",
    "audit_logs",
    "audit_logs_v2",
    "biso_user_actions",
    "casb_findings",
    "device_posture_results",
    "dex_application_tests",
    "dex_device_state_events",
    "dlp_forensic_copies",
    "dns_firewall_logs",
    "dns_logs",
    "email_security_alerts",
    "email_security_post_delivery_events",
    "firewall_events",
    "gateway_dns",
    "gateway_http",
    "gateway_network",
    "http_requests",
    "ipsec_logs",
    "magic_ids_detections",
    "mcp_portal_logs",
    "mnm_flow_logs",
    "nel_reports",
    "network_analytics_logs",
    "page_shield_events",
    "sinkhole_http_logs",
    "spectrum_events",
    "ssh_logs",
    "turnstile_events",
    "warp_config_changes",
    "warp_toggle_changes",
    "websocket_analytics",
    "workers_trace_events",
    "zaraz_events",
    "zero_trust_network_sessions",
];

/// The deprecated attributes (schema.go: `DeprecationMessage`) with their defaults: one
/// written at its default would only make Terraform warn, so an export leaves it out
/// (Terraform then sets the same default).
pub const TERRAFORM_DEPRECATED: &[(&str, &str)] = &[("frequency", "high"), ("logpull_options", "")];

/// The attributes that are the job's scope, not a job field.
pub(crate) fn scope_attribute(kind: DatasetScope) -> &'static str {
    match kind {
        DatasetScope::Zone => "zone_id",
        DatasetScope::Account => "account_id",
    }
}

/// Whether a job field is an attribute of the resource.
pub(crate) fn has_attribute(field: &str) -> bool {
    TERRAFORM_ATTRIBUTES.contains(&field)
}

/// The attribute of an `output_options` key (`CVE-2021-44228` → `cve_2021_44228`), if the
/// resource has one.
pub(crate) fn output_option_attribute(key: &str) -> Option<String> {
    let attribute = key.to_ascii_lowercase().replace('-', "_");
    TERRAFORM_OUTPUT_OPTIONS
        .contains(&attribute.as_str())
        .then_some(attribute)
}

/// The `output_options` key of an attribute (`cve_2021_44228` → `CVE-2021-44228`): the row
/// of [`OUTPUT_OPTIONS`] it stands for.
pub(crate) fn output_option_key(attribute: &str) -> Option<&'static str> {
    OUTPUT_OPTIONS
        .iter()
        .map(|o| o.name)
        .find(|name| output_option_attribute(name).as_deref() == Some(attribute))
}

/// The import id of a job, as docs/resources/logpush_job.md documents it
/// (`'<{accounts|zones}/{account_id|zone_id}>/<job_id>'`; resource.go's `ImportState`):
/// `zones/023e105f4ecef8ad9ca31a8372d0c353/7`.
pub fn terraform_import_id(scope: &Scope, job_id: u64) -> String {
    let kind = match scope.kind() {
        DatasetScope::Zone => "zones",
        DatasetScope::Account => "accounts",
    };
    format!("{kind}/{}/{job_id}", scope.id())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_output_options_attribute_is_a_key_escpush_knows() {
        for attribute in TERRAFORM_OUTPUT_OPTIONS {
            let key = output_option_key(attribute).unwrap();
            assert_eq!(output_option_attribute(key).as_deref(), Some(*attribute));
        }
        assert_eq!(output_option_key("cve_2021_44228"), Some("CVE-2021-44228"));
        assert_eq!(output_option_attribute("stringify_object"), None);
    }

    #[test]
    fn the_import_id_is_the_documented_one() {
        let zone = Scope::zone("023e105f4ecef8ad9ca31a8372d0c353").unwrap();
        assert_eq!(
            terraform_import_id(&zone, 7),
            "zones/023e105f4ecef8ad9ca31a8372d0c353/7"
        );
        let account = Scope::account("01a7362d577a6c3019a474fd6f485823").unwrap();
        assert_eq!(
            terraform_import_id(&account, 12),
            "accounts/01a7362d577a6c3019a474fd6f485823/12"
        );
    }
}
