//! Log-push jobs through escpush-http against the emulator over loopback.

use escpush_core::{field, DatasetScope, Filter, JobSpec, LogpullOptions, Scope, Timestamps};
use escpush_emulator::{Emulator, Fault};
use escpush_http::Error;
use serde_json::json;

mod common;
use common::client;

#[test]
fn create_list_and_read_back_on_both_scopes() {
    let emu = Emulator::start().unwrap();
    let c = client(&emu);
    let filter = field("EdgeResponseStatus").ge(500) & field("ClientCountry").is_in(["cn", "ru"]);
    let zone = Scope::zone("z1").unwrap();
    let spec = JobSpec::builder("http_requests", DatasetScope::Zone)
        .name("errors")
        .destination_conf("s3://bucket/logs?region=us-east-1")
        .logpull_options(LogpullOptions::new(["ClientIP", "EdgeResponseStatus"]).timestamps(Timestamps::Rfc3339))
        .filter(filter.clone())
        .build()
        .unwrap();
    let job = c.create_job(&zone, &spec).unwrap();
    assert_eq!(job["dataset"], "http_requests");
    assert_eq!(job["filter"], json!(filter.to_json()));
    assert_eq!(Filter::parse(job["filter"].as_str().unwrap()).unwrap(), filter);
    let id = job["id"].as_u64().unwrap();
    assert_eq!(c.job(&zone, id).unwrap(), job);
    assert_eq!(c.jobs(&zone).unwrap(), vec![job.clone()]);

    let account = Scope::account("a1").unwrap();
    let spec = JobSpec::builder("gateway_dns", DatasetScope::Account)
        .destination_conf("r2://bucket/dns?account-id=x&access-key-id=y&secret-access-key=topsecret")
        .build()
        .unwrap();
    let job = c.create_job(&account, &spec).unwrap();
    assert_ne!(job["id"].as_u64().unwrap(), id);
    assert_eq!(c.jobs(&account).unwrap().len(), 1);
    assert!(c.jobs(&Scope::zone("other").unwrap()).unwrap().is_empty());
    let logged = serde_json::to_string(
        &emu.requests()
            .iter()
            .map(escpush_emulator::LoggedRequest::to_json)
            .collect::<Vec<_>>(),
    )
    .unwrap();
    assert!(
        !logged.contains("topsecret"),
        "the request log masks destination credentials"
    );
    assert!(!emu.state().to_string().contains("topsecret"));
}

#[test]
fn refused_before_sending_and_by_the_emulator() {
    let emu = Emulator::start().unwrap();
    let c = client(&emu);
    let spec = JobSpec::builder("gateway_dns", DatasetScope::Account)
        .destination_conf("s3://b?region=r")
        .build()
        .unwrap();
    let err = c.create_job(&Scope::zone("z1").unwrap(), &spec).unwrap_err();
    assert!(matches!(err, Error::Core(_)), "{err}");
    assert!(emu.requests().is_empty(), "nothing was sent");
    assert!(matches!(
        c.job(&Scope::zone("z1").unwrap(), 99).unwrap_err(),
        Error::Api { status: 404, .. }
    ));
}

#[test]
fn a_creation_is_not_retried_but_reads_are() {
    let emu = Emulator::start().unwrap();
    let c = client(&emu);
    let zone = Scope::zone("z1").unwrap();
    let spec = JobSpec::builder("http_requests", DatasetScope::Zone)
        .destination_conf("s3://b?region=r")
        .build()
        .unwrap();
    emu.fail_next(
        Fault::Status {
            status: 503,
            retry_after: None,
        },
        1,
    );
    let err = c.create_job(&zone, &spec).unwrap_err();
    assert_eq!(err.status(), Some(503));
    assert_eq!(emu.requests().len(), 1, "one POST, not repeated");
    emu.fail_next(
        Fault::Status {
            status: 503,
            retry_after: None,
        },
        1,
    );
    assert!(c.jobs(&zone).unwrap().is_empty());
    assert_eq!(emu.requests().len(), 3, "the GET was retried once");
}
