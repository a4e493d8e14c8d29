//! The client's reading of an answer (an HTTP status and any body): `read_answer` and
//! `parse_response` agree; a non-2xx status is always `Api` with that status; a 2xx body is
//! an answer of the form it claims or `MalformedResponse` with the status. An ESC status read
//! from it reads the same again from the envelope of itself, and never shows its secret. Every
//! log-push reader takes any `result` without panicking, and a job that `JobSpec::from_body`
//! accepts prints a body that it accepts again as the same job; `redact_job` masks the
//! destination and the secret fields.
#![no_main]

use escpush_core::{parse_response, read_answer, read_deleted, read_exists, read_fields, read_job, read_job_list, read_ownership_challenge, read_valid, redact_job, AnswerForm, DestinationConf, Envelope, Error, EscSecret, EscStatus, JobSpec};
use escpush_filter::DatasetScope;
use libfuzzer_sys::fuzz_target;
use serde_json::{json, Value};

const STATUSES: [u16; 16] = [
    200, 201, 204, 299, 0, 100, 199, 300, 400, 403, 404, 429, 500, 503, 600, 65535,
];

fn check_readers(result: &Value) {
    let reader_error = |e: &Error| {
        assert!(
            matches!(e, Error::MalformedResponse { .. } | Error::Api { status: 200, .. }),
            "{e:?}"
        );
    };
    match read_job(result.clone()) {
        Ok(job) => {
            assert!(result.is_object());
            check_job(job);
        }
        Err(e) => reader_error(&e),
    }
    match read_job_list(result.clone()) {
        Ok(jobs) => assert_eq!(jobs.len(), result.as_array().map_or(0, Vec::len)),
        Err(e) => reader_error(&e),
    }
    match read_fields(result.clone()) {
        Ok(fields) => assert_eq!(fields.len(), result.as_object().map_or(0, serde_json::Map::len)),
        Err(e) => reader_error(&e),
    }
    match read_exists(result.clone()) {
        Ok(exists) => assert_eq!(result["exists"], Value::Bool(exists)),
        Err(e) => reader_error(&e),
    }
    if let Err(e) = read_deleted(result.clone()) {
        reader_error(&e);
    }
    // A destination without credentials: its scrub leaves the filename as the API wrote it.
    let conf = DestinationConf::parse("s3://bucket/logs?region=us-east-1").expect("a destination");
    match read_ownership_challenge(result.clone(), &conf) {
        Ok(challenge) => assert_eq!(result["filename"], Value::String(challenge.filename)),
        Err(e) => reader_error(&e),
    }
    match read_valid(result.clone(), "the destination") {
        Ok(_) => assert_eq!(result["valid"], Value::Bool(true)),
        Err(e) => reader_error(&e),
    }
}

fn check_job(job: serde_json::Map<String, Value>) {
    let body = Value::Object(job.clone());
    for scope in [DatasetScope::Zone, DatasetScope::Account] {
        if let Ok(spec) = JobSpec::from_body(&body, scope) {
            let printed = spec.to_body();
            let again = JobSpec::from_body(&printed, scope)
                .unwrap_or_else(|e| panic!("the body {printed} of an accepted job is refused: {e}"));
            assert!(again == spec, "{body} read back as another job from {printed}");
        }
    }
    let mut redacted = job.clone();
    redact_job(&mut redacted);
    match job.get("destination_conf") {
        None => assert!(!redacted.contains_key("destination_conf")),
        Some(Value::String(conf)) => assert_eq!(redacted["destination_conf"], json!(DestinationConf::redact(conf))),
        Some(_) => assert_eq!(redacted["destination_conf"], json!("***")),
    }
    match job.get("ownership_challenge") {
        None | Some(Value::Null) => assert_eq!(redacted.get("ownership_challenge"), job.get("ownership_challenge")),
        Some(_) => assert_eq!(redacted["ownership_challenge"], json!("***")),
    }
}

fn check_esc(status: u16, body: &[u8]) {
    let Ok(esc) = EscStatus::from_answer(status, body) else {
        return;
    };
    assert!((200..300).contains(&status));
    let mut result = serde_json::Map::new();
    if esc.always {
        result.insert("always".into(), json!(true));
    }
    if let Some(secret) = &esc.secret {
        result.insert("with_secret".into(), json!(secret.expose()));
    }
    let again = EscStatus::from_answer(200, &Envelope::ok(Value::Object(result)).to_bytes());
    assert_eq!(again.as_ref(), Ok(&esc));
    // What it shows does not depend on the secret.
    let other = EscStatus::new(
        esc.always,
        esc.secret.as_ref().map(|_| EscSecret::new("x").expect("valid")),
    );
    assert_eq!(format!("{esc:?}"), format!("{other:?}"));
    assert_eq!(esc.state(), other.state());
}

fuzz_target!(|data: &[u8]| {
    let Some((&s, body)) = data.split_first() else { return };
    let status = if s < 128 {
        200
    } else {
        STATUSES[usize::from(s) % STATUSES.len()]
    };
    let ok_status = (200..300).contains(&status);
    let answer = read_answer(status, body);
    assert_eq!(parse_response(status, body), answer.clone().map(|a| a.result));
    match &answer {
        Ok(answer) => {
            assert!(ok_status);
            match answer.form {
                AnswerForm::Empty => {
                    assert!(body.iter().all(u8::is_ascii_whitespace));
                    assert_eq!(answer.result, Value::Null);
                }
                AnswerForm::Bare => {
                    let value: Value = serde_json::from_slice(body).expect("a bare answer is JSON");
                    assert_eq!(value, answer.result);
                }
                AnswerForm::Envelope => {
                    let value: Value = serde_json::from_slice(body).expect("an envelope is JSON");
                    assert_eq!(value["success"], json!(true));
                    assert_eq!(value["result"], answer.result);
                }
                AnswerForm::EnvelopeWithoutResult => assert_eq!(answer.result, Value::Null),
                _ => panic!("a form the target does not know: {:?}", answer.form),
            }
            check_readers(&answer.result);
        }
        Err(Error::Api { status: s, .. }) => assert_eq!(*s, status),
        Err(Error::MalformedResponse { status: s, .. }) => {
            assert!(ok_status);
            assert_eq!(*s, Some(status));
        }
        Err(other) => panic!("read_answer gave {other:?}"),
    }
    check_esc(status, body);
});
