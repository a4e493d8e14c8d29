//! Log-push jobs through escpush-http against the emulator over loopback.

use escpush_core::{field, DatasetScope, Filter, JobSpec, LogpullOptions, Scope, Timestamps};
use escpush_emulator::{Emulator, Fault};
use escpush_http::Error;
use serde_json::json;

mod common;
use common::client;

/// The smallest zone job: http_requests to a bucket.
fn plain_spec() -> JobSpec {
    JobSpec::builder("http_requests", DatasetScope::Zone)
        .destination_conf("s3://b?region=r")
        .build()
        .unwrap()
}

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
    let err = c.job(&Scope::zone("z1").unwrap(), 99).unwrap_err();
    assert!(err.is_api() && err.status() == Some(404), "{err}");
}

#[test]
fn a_creation_is_not_retried_but_reads_are() {
    let emu = Emulator::start().unwrap();
    let c = client(&emu);
    let zone = Scope::zone("z1").unwrap();
    let spec = plain_spec();
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

#[test]
fn a_creation_cut_after_sending_says_the_job_may_exist() {
    let emu = Emulator::start().unwrap();
    let c = client(&emu);
    let zone = Scope::zone("z1").unwrap();
    let spec = JobSpec::builder("http_requests", DatasetScope::Zone)
        .name("edge-errors")
        .destination_conf("s3://b?region=r")
        .build()
        .unwrap();
    emu.fail_next(Fault::Drop, 1);
    let err = c.create_job(&zone, &spec).unwrap_err();
    assert!(matches!(err, Error::OutcomeUnknown { .. }), "{err}");
    let text = err.to_string();
    assert!(
        text.contains("may exist") && text.contains("list the jobs of zone z1") && text.contains("`edge-errors`"),
        "{text}"
    );
    assert_eq!(emu.requests().len(), 1, "not retried");
    // Nothing was sent: a plain transport error.
    let port = emu.port();
    drop(emu);
    let gone = escpush_http::Client::builder()
        .base_url(format!("http://127.0.0.1:{port}/client/v4"))
        .api_token("t")
        .build()
        .unwrap();
    assert!(matches!(
        gone.create_job(&zone, &spec).unwrap_err(),
        Error::Transport { .. }
    ));
}

#[test]
fn job_answers_that_are_not_jobs_are_malformed() {
    let emu = Emulator::start().unwrap();
    let c = client(&emu);
    let zone = Scope::zone("z1").unwrap();
    let spec = plain_spec();
    for body in [
        &b"null"[..],
        b"",
        b"[1]",
        br#"{"success":true,"errors":[],"result":null}"#,
    ] {
        emu.fail_next(
            Fault::Body {
                status: 200,
                body: body.to_vec(),
            },
            1,
        );
        let err = c.create_job(&zone, &spec).unwrap_err();
        assert!(err.is_malformed_response(), "{}: {err}", String::from_utf8_lossy(body));
        emu.fail_next(
            Fault::Body {
                status: 200,
                body: body.to_vec(),
            },
            1,
        );
        let err = c.job(&zone, 1).unwrap_err();
        assert!(err.is_malformed_response(), "{}: {err}", String::from_utf8_lossy(body));
    }
    emu.fail_next(
        Fault::Body {
            status: 200,
            body: b"{}".to_vec(),
        },
        1,
    );
    assert!(c.jobs(&zone).unwrap_err().is_malformed_response());
    emu.fail_next(
        Fault::Body {
            status: 200,
            body: b"[null]".to_vec(),
        },
        1,
    );
    assert!(c.jobs(&zone).unwrap_err().is_malformed_response());
}

#[test]
fn job_secrets_echoed_by_the_server_are_scrubbed() {
    let emu = Emulator::start().unwrap();
    let c = client(&emu);
    let spec = JobSpec::builder("http_requests", DatasetScope::Zone)
        .destination_conf("s3://bucket/p?region=us-east-1&access-key-id=AKIDSECRET&secret-access-key=SAKSECRET")
        .extra("ownership_challenge", json!("challenge-token-123"))
        .build()
        .unwrap();
    emu.fail_next(Fault::Echo { status: 500 }, 1);
    let err = c.create_job(&Scope::zone("z1").unwrap(), &spec).unwrap_err();
    let shown = format!("{err} {err:?}");
    assert!(
        shown.contains("cannot process POST") && shown.contains("region=us-east-1"),
        "{shown}"
    );
    for leaked in ["AKIDSECRET", "SAKSECRET", "challenge-token-123", emu.api_key()] {
        assert!(!shown.contains(leaked), "{leaked} in {shown}");
    }
}
