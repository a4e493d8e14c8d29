//! Terraform for escpush's log-push jobs, on top of escpush-core's job rules: the
//! `cloudflare_logpush_job` resources of a Terraform file read as a jobs document
//! ([`read_terraform_jobs`]: `.tf` parsed by the hcl-edit crate, or `.tf.json`, evaluated as
//! far as escpush can without Terraform), stored jobs written as Terraform, TOML or JSON
//! ([`export_jobs`], [`ExportFormat`]), a Terraform plan (`terraform show -json`) checked
//! against the job rules ([`check_terraform_plan`]) and read as the jobs it leaves
//! ([`terraform_plan_jobs`]), and the facts of the provider escpush
//! follows ([`TERRAFORM_PROVIDER_VERSION`], [`TERRAFORM_ATTRIBUTES`], [`terraform_import_id`]).
//! No I/O: the caller reads and writes the files.
//!
//! Files: `hcl` (the reader), `hcl_eval` (its expressions' values), `export` (the writers), `tfplan` (a plan's check), `provider`
//! (the provider's schema as escpush reads and writes it), `formats` (the names of the
//! export formats and filter forms).
//!
//! ```
//! use escpush_core::Scope;
//! use escpush_terraform::{export_jobs, read_terraform_jobs, ExportFormat, FilterForm};
//!
//! let tf = r#"
//! resource "cloudflare_logpush_job" "errors" {
//!   zone_id          = "023e105f4ecef8ad9ca31a8372d0c353"
//!   name             = "errors"
//!   dataset          = "http_requests"
//!   destination_conf = "r2://logs/http"
//!   filter           = jsonencode({ where = { key = "EdgeResponseStatus", operator = "geq", value = 500 } })
//! }"#;
//! let zone = Scope::zone("023e105f4ecef8ad9ca31a8372d0c353")?;
//! let doc = read_terraform_jobs(tf, &zone)?;
//! assert_eq!(doc["addresses"][0], "cloudflare_logpush_job.errors");
//! assert_eq!(doc["jobs"][0]["name"], "errors");
//!
//! let stored = [serde_json::json!({"id": 7, "name": "errors", "dataset": "http_requests",
//!     "destination_conf": "r2://logs/http", "enabled": true}).as_object().unwrap().clone()];
//! let hcl = export_jobs(&stored, &zone, ExportFormat::Terraform(FilterForm::Text), None)?;
//! assert!(hcl.contains("resource \"cloudflare_logpush_job\" \"errors\""));
//! # Ok::<(), escpush_core::Error>(())
//! ```
#![deny(unsafe_code)]

mod export;
mod formats;
mod hcl;
mod hcl_eval;
mod provider;
mod tfplan;

pub use export::export_jobs;
pub use formats::{ExportFormat, FilterForm, UnknownName};
pub use hcl::{read_terraform_jobs, read_terraform_jobs_for};
pub use provider::{
    terraform_import_id, TERRAFORM_ATTRIBUTES, TERRAFORM_OUTPUT_OPTIONS, TERRAFORM_PROVIDER_VERSION, TERRAFORM_RESOURCE,
};
pub use tfplan::{check_terraform_plan, terraform_plan_jobs, PlannedJob};
