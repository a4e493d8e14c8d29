//! Credentials and references through an export and back (issue 33): what escpush-core's
//! jobs file rules and escpush-terraform's writers and reader must agree on.

use escpush_core::{desired_jobs, plan_job, resolve_references, JobOp, PlanAction, Scope};
use escpush_filter::DatasetScope;
use escpush_terraform::{export_jobs, read_terraform_jobs, ExportFormat, FilterForm};
use serde_json::{json, Map, Value};

fn zone() -> Scope {
    Scope::zone("023e105f4ecef8ad9ca31a8372d0c353").unwrap()
}

fn stored(dest: &str) -> Map<String, Value> {
    json!({"id": 7, "name": "x", "dataset": "http_requests", "destination_conf": dest,
           "enabled": true, "kind": "", "filter": null})
    .as_object()
    .cloned()
    .unwrap()
}

fn problems(err: &escpush_core::Error) -> String {
    match err {
        escpush_core::Error::Invalid { problems } => {
            problems.iter().map(ToString::to_string).collect::<Vec<_>>().join("\n")
        }
        other => other.to_string(),
    }
}

/// A credential left to a variable Terraform does not set never moves to another host:
/// `${var.tok}` is read as `${TF_VAR_tok}`, unset, and the plan names it (escpush-core's
/// `stored_credentials_never_move_to_another_destination`, through the Terraform reader).
#[test]
fn an_unset_terraform_variable_keeps_a_credential_home() {
    // Terraform: `${var.tok}` left unset, another host.
    let tf = r#"
resource "cloudflare_logpush_job" "x" {
  name             = "x"
  dataset          = "http_requests"
  destination_conf = "https://other.example.net/in?header_Authorization=${var.tok}"
}"#;
    let doc = read_terraform_jobs(tf, &zone()).unwrap();
    let want = desired_jobs(&doc, DatasetScope::Zone).unwrap();
    let err = plan_job(
        &want[0],
        &[stored("https://logs.example.com/in?header_Authorization=TOKEN-123")],
        &zone(),
    )
    .unwrap_err();
    assert!(problems(&err).contains("TF_VAR_tok"), "{err}");
}

/// Issue 33, item 4: a literal `${NAME}` in a destination survives export -> apply, in a
/// jobs file (escaped `$${`) and in Terraform (`$${`, read by escpush's own reader).
#[test]
fn a_literal_reference_survives_export_and_apply() {
    let held = "https://logs.example.com/in/${HOME}?header_Authorization=TOKEN-123";
    let job = stored(held);
    for format in [
        ExportFormat::Toml,
        ExportFormat::Json,
        ExportFormat::Terraform(FilterForm::Text),
    ] {
        let out = export_jobs(std::slice::from_ref(&job), &zone(), format, None).unwrap();
        let doc = match format {
            ExportFormat::Terraform(_) => read_terraform_jobs(&out, &zone()).unwrap(),
            ExportFormat::Json => serde_json::from_str(&out).unwrap(),
            _ => {
                let dest = out
                    .lines()
                    .find_map(|l| l.strip_prefix("destination_conf = "))
                    .unwrap()
                    .trim_matches('"')
                    .to_owned();
                json!({"jobs": [{"name": "x", "dataset": "http_requests", "destination_conf": dest}]})
            }
        };
        // Unchanged, without any variable.
        let mut unset = doc.clone();
        resolve_references(&mut unset, |_| None).unwrap();
        let want = desired_jobs(&unset, DatasetScope::Zone).unwrap();
        let entry = plan_job(&want[0], std::slice::from_ref(&job), &zone()).unwrap();
        assert_eq!(entry.action, PlanAction::Unchanged, "{format:?}:\n{out}");
        // With the environment's HOME and the credential given: `${HOME}` stays literal.
        let mut given = doc.clone();
        resolve_references(&mut given, |name| match name {
            "HOME" => Some("/root".to_owned()),
            _ => Some("NEW-TOKEN".to_owned()),
        })
        .unwrap();
        let want = desired_jobs(&given, DatasetScope::Zone).unwrap();
        let entry = plan_job(&want[0], std::slice::from_ref(&job), &zone()).unwrap();
        assert_eq!(entry.action, PlanAction::Update, "{format:?}");
        let sent = match entry.operation() {
            Some(JobOp::Update(update)) => update.to_body()["destination_conf"].clone(),
            _ => panic!("not an update"),
        };
        assert_eq!(
            sent, "https://logs.example.com/in/${HOME}?header_Authorization=NEW-TOKEN",
            "{format:?}"
        );
        // A creation sends the literal text too (of the job without the id the Terraform
        // export's import block gives it: an import names a job that must exist).
        let mut fresh = given.clone();
        fresh["jobs"][0].as_object_mut().unwrap().remove("id");
        let want = desired_jobs(&fresh, DatasetScope::Zone).unwrap();
        let entry = plan_job(&want[0], &[], &zone()).unwrap();
        assert_eq!(
            entry.spec().unwrap().destination().expose(),
            "https://logs.example.com/in/${HOME}?header_Authorization=NEW-TOKEN"
        );
    }
}

/// A query part without `=` (`?TOKEN`) may be a credential whole: a reference in an
/// export, never shown (the masking itself is escpush-core's test of the same name).
#[test]
fn a_query_part_without_a_value_is_masked_whole_in_an_export() {
    let job = json!({"id": 9, "name": "bare", "dataset": "http_requests", "enabled": true,
        "destination_conf": "https://logs.example.com/in?SECRETXYZ"});
    let zone = Scope::zone("023e105f4ecef8ad9ca31a8372d0c353").unwrap();
    for format in [
        ExportFormat::Toml,
        ExportFormat::Json,
        ExportFormat::Terraform(FilterForm::Jsonencode),
    ] {
        let out = export_jobs(&[job.as_object().unwrap().clone()], &zone, format, None).unwrap();
        assert!(!out.contains("SECRETXYZ"), "{format:?}:\n{out}");
    }
    let toml = export_jobs(&[job.as_object().unwrap().clone()], &zone, ExportFormat::Toml, None).unwrap();
    assert!(
        toml.contains("https://logs.example.com/in?${LOGPUSH_BARE_QUERY}"),
        "{toml}"
    );
}
