//! The transformer endpoints (issue 36) through escpush-http against the emulator over
//! loopback: a transformer's life with its versions, a job's `transformer_id`, and the
//! refusals made before sending.

use escpush_core::transformer::{TransformerSpec, TransformerUpdate};
use escpush_core::{JobSpec, Scope};
use escpush_emulator::Emulator;
use escpush_filter::DatasetScope;
use serde_json::{json, Map, Value};

mod common;
use common::client;

const SQL: &str = "SELECT QueryName FROM gateway_dns";

#[test]
fn a_transformer_lives_through_versions_and_a_job() {
    let emu = Emulator::start().unwrap();
    let c = client(&emu);
    let account = Scope::account("a1").unwrap();
    let spec = TransformerSpec::new("dns", SQL, None).unwrap();
    let t = c.create_transformer(&account, &spec).unwrap();
    assert_eq!(t.dataset.as_deref(), Some("gateway_dns"));
    let update = TransformerUpdate::new(t.id, "dns", Some("SELECT QueryName, SrcIP FROM gateway_dns"), None).unwrap();
    c.update_transformer(&account, &update).unwrap();
    let versions = c.transformer_versions(&account, t.id, None).unwrap();
    assert_eq!(versions.iter().map(|v| v.version).collect::<Vec<_>>(), [1, 2]);
    assert_eq!(
        c.transformer_content(&account, t.id, Some(versions[0].id)).unwrap(),
        SQL
    );
    let mut input = Map::new();
    input.insert("QueryName".into(), json!("example.com"));
    assert_eq!(c.preview_transformer(&account, SQL, &input).unwrap(), [input.clone()]);
    let job = JobSpec::builder("gateway_dns", DatasetScope::Account)
        .destination_conf("https://logs.example.com/in")
        .extra("transformer_id", json!(t.id))
        .build()
        .unwrap();
    let job = c.create_job(&account, &job).unwrap();
    assert_eq!(
        c.transformer(&account, t.id).unwrap().associated_jobs[0].id,
        job["id"].as_u64()
    );
    // Referenced: refused before the DELETE is sent.
    let before = emu.requests().len();
    let err = c.delete_transformer(&account, t.id).unwrap_err();
    assert!(err.to_string().contains("is referenced by job(s)"), "{err}");
    assert!(emu.requests()[before..].iter().all(|r| r.method == "GET"));
    let mut detach = Map::new();
    detach.insert("transformer_id".into(), Value::Null);
    c.update_job(&account, job["id"].as_u64().unwrap(), &detach).unwrap();
    assert_eq!(c.delete_transformer(&account, t.id).unwrap(), Some(t.id));
}

#[test]
fn a_job_of_another_dataset_is_refused_before_it_is_sent() {
    let emu = Emulator::start().unwrap();
    let c = client(&emu);
    let account = Scope::account("a1").unwrap();
    let t = c
        .create_transformer(&account, &TransformerSpec::new("dns", SQL, None).unwrap())
        .unwrap();
    for (dataset, id, words) in [
        ("gateway_http", t.id, "does not match job dataset \"gateway_http\""),
        ("gateway_dns", 99, "transformer 99 not found for this account"),
    ] {
        let job = JobSpec::builder(dataset, DatasetScope::Account)
            .destination_conf("https://logs.example.com/in")
            .extra("transformer_id", json!(id))
            .build()
            .unwrap();
        let err = c.create_job(&account, &job).unwrap_err();
        assert!(err.to_string().contains(words), "{err}");
    }
    assert!(emu
        .requests()
        .iter()
        .all(|r| r.method == "GET" || r.path.ends_with("/transformers")));
    assert!(c.jobs(&account).unwrap().is_empty());
}
