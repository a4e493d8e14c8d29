//! The endpoints of issue 24 through escpush-http against the emulator over loopback:
//! `validate/origin` and a zone's Instant Logs jobs.

use escpush_core::{Endpoint, InstantLogsSpec, LogpullOptions, OriginCheck, Scope};
use escpush_emulator::{Emulator, Fault};
use escpush_filter::{field, DatasetScope};
use serde_json::json;

mod common;
use common::client;

fn paths(emu: &Emulator) -> Vec<String> {
    emu.requests()
        .iter()
        .map(|r| format!("{} {}", r.method, r.path))
        .collect()
}

#[test]
fn validate_origin_as_the_docs_send_it() {
    let emu = Emulator::start().unwrap();
    let c = client(&emu);
    let zone = Scope::zone("z1").unwrap();
    let options =
        LogpullOptions::parse("fields=RayID,ClientIP,EdgeStartTimestamp&timestamps=rfc3339&CVE-2021-44228=true")
            .unwrap();
    let check = OriginCheck::new(Some(&options), Some("http_requests"), DatasetScope::Zone).unwrap();
    assert_eq!(c.validate_origin(&zone, &check).unwrap(), "");
    let account = Scope::account("a1").unwrap();
    let none = OriginCheck::new(None, None, DatasetScope::Account).unwrap();
    assert_eq!(c.validate_origin(&account, &none).unwrap(), "");
    let sent: Vec<_> = emu.requests().into_iter().map(|r| r.body).collect();
    assert_eq!(
        sent,
        [
            Some(json!({"logpull_options": options.to_query(), "dataset": "http_requests"})),
            Some(json!({"logpull_options": null}))
        ]
    );
    assert_eq!(
        paths(&emu),
        [
            "POST /client/v4/zones/z1/logpush/validate/origin",
            "POST /client/v4/accounts/a1/logpush/validate/origin"
        ]
    );
    // A field the dataset lacks is refused before sending.
    let typo = LogpullOptions::parse("fields=RayID,ClientIPP").unwrap();
    let err = OriginCheck::new(Some(&typo), Some("http_requests"), DatasetScope::Zone).unwrap_err();
    assert!(err.to_string().contains("did you mean `ClientIP`"), "{err}");
    // The API's `valid: false` is an error with its message.
    emu.fail_next(
        Fault::Body {
            status: 200,
            body: br#"{"success":true,"errors":[],"messages":[],"result":{"valid":false,"message":"bad options"}}"#
                .to_vec(),
        },
        1,
    );
    let err = c.validate_origin(&zone, &check).unwrap_err();
    assert!(
        err.to_string()
            .contains("the logpull options is not valid: bad options"),
        "{err}"
    );
}

#[test]
fn instant_logs_sessions_of_a_zone() {
    let emu = Emulator::start().unwrap();
    let c = client(&emu);
    let zone = Scope::zone("z1").unwrap();
    assert!(c.instant_logs_jobs(&zone).unwrap().is_empty());
    let spec = InstantLogsSpec::builder()
        .fields(["ClientIP", "EdgeResponseStatus", "RayID"])
        .filter(field("EdgeResponseStatus").ge(500))
        .sample(10)
        .build()
        .unwrap();
    let session = c.create_instant_logs_job(&zone, &spec).unwrap();
    let address = session["destination_conf"].as_str().unwrap();
    assert!(address.starts_with("wss://"), "{session}");
    assert!(address.ends_with(session["session_id"].as_str().unwrap()));
    assert_eq!(session["fields"], "ClientIP,EdgeResponseStatus,RayID");
    assert_eq!(session["sample"], 10);
    assert_eq!(c.instant_logs_jobs(&zone).unwrap(), std::slice::from_ref(&session));
    // One active session per zone (instant-logs.mdx): the emulator refuses a second.
    let err = c.create_instant_logs_job(&zone, &spec).unwrap_err();
    assert_eq!(err.status(), Some(400));
    assert!(err.to_string().contains("one active Instant Logs session"), "{err}");
    // Zones only: refused before anything is sent.
    emu.clear_requests();
    let account = Scope::account("a1").unwrap();
    for err in [
        c.instant_logs_jobs(&account).unwrap_err(),
        c.create_instant_logs_job(&account, &spec).unwrap_err(),
    ] {
        assert!(err.to_string().contains("exists on zones only"), "{err}");
    }
    assert!(emu.requests().is_empty());
}

#[test]
fn a_session_is_opened_once_but_the_list_is_read_again() {
    let emu = Emulator::start().unwrap();
    let c = client(&emu);
    let zone = Scope::zone("z2").unwrap();
    assert!(!Endpoint::InstantLogsCreate.retry().is_safe());
    let spec = InstantLogsSpec::builder().build().unwrap();
    emu.fail_next(
        Fault::Status {
            status: 503,
            retry_after: None,
        },
        1,
    );
    assert_eq!(c.create_instant_logs_job(&zone, &spec).unwrap_err().status(), Some(503));
    assert_eq!(emu.requests().len(), 1, "one POST, not repeated");
    emu.fail_next(
        Fault::Status {
            status: 503,
            retry_after: None,
        },
        1,
    );
    assert!(c.instant_logs_jobs(&zone).unwrap().is_empty());
    assert_eq!(emu.requests().len(), 3, "the GET was retried once");
    // An answer that is not a session is malformed, not a session.
    emu.fail_next(
        Fault::Body {
            status: 200,
            body: br#"{"success":true,"errors":[],"messages":[],"result":{"destination_conf":"s3://b"}}"#.to_vec(),
        },
        1,
    );
    let err = c.create_instant_logs_job(&zone, &spec).unwrap_err();
    assert!(err.is_malformed_response(), "{err}");
}

#[test]
fn a_session_whose_answer_was_lost_says_how_to_look_for_it() {
    // Review finding: the OutcomeUnknown of a session ended in "...: " with nothing after it.
    let emu = Emulator::start().unwrap();
    let c = client(&emu);
    let zone = Scope::zone("z1").unwrap();
    let spec = InstantLogsSpec::builder().fields(["ClientIP"]).build().unwrap();
    emu.fail_next(Fault::DropAfterApply, 1);
    let err = c.create_instant_logs_job(&zone, &spec).unwrap_err();
    let text = err.to_string();
    assert!(text.contains("may have taken effect: "), "{text}");
    let check = text.split("may have taken effect: ").nth(1).unwrap();
    assert!(
        check.contains("Instant Logs") && check.contains("zone z1") && check.len() > 40,
        "{text}"
    );
    assert_eq!(paths(&emu), ["POST /client/v4/zones/z1/logpush/edge/jobs"], "sent once");
}
