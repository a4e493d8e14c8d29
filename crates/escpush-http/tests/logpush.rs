//! Log-push jobs through escpush-http against the emulator over loopback.

use escpush_core::{JobSpec, LogpullOptions, Scope, Timestamps};
use escpush_emulator::{Emulator, Fault};
use escpush_filter::Filter;
use escpush_filter::{field, DatasetScope};
use escpush_http::Error;
use serde_json::json;

mod common;
use common::client;

/// An S3 bucket with its keys: a job to it needs no ownership challenge
/// (logpush-ownership-challenge.mdx: "Yes (or use access key/secret key)").
const S3: &str = "s3://b?region=r&access-key-id=AKID&secret-access-key=SAK";

/// The smallest zone job: http_requests to a bucket.
fn plain_spec() -> JobSpec {
    JobSpec::builder("http_requests", DatasetScope::Zone)
        .destination_conf(S3)
        .build()
        .unwrap()
}

#[test]
fn create_list_and_read_back_on_both_scopes() {
    let emu = Emulator::start().unwrap();
    let c = client(&emu);
    let filter = field("EdgeResponseStatus").ge(500) & field("ClientCountry").is_in(["cn", "ru"]);
    let zone = Scope::zone("z1").unwrap();
    // An S3 bucket without keys: the documented ownership challenge first.
    let bucket = "s3://bucket/logs?region=us-east-1";
    c.ownership_challenge(&zone, &escpush_core::DestinationConf::parse(bucket).unwrap())
        .unwrap();
    let token = emu.written_challenge(&zone, bucket).unwrap();
    let spec = JobSpec::builder("http_requests", DatasetScope::Zone)
        .name("errors")
        .destination_conf(bucket)
        .extra("ownership_challenge", json!(token))
        .logpull_options(LogpullOptions::new(["ClientIP", "EdgeResponseStatus"]).timestamps(Timestamps::Rfc3339))
        .filter(filter.clone())
        .build()
        .unwrap();
    let job = c.create_job(&zone, &spec).unwrap();
    assert_eq!(job["dataset"], "http_requests");
    assert!(job.get("ownership_challenge").is_none(), "a record never holds it");
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
        .destination_conf(S3)
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
        .destination_conf(S3)
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

/// Sets the emulator's log-push quirks through its control route.
fn quirks(c: &escpush_http::Client, body: serde_json::Value) {
    let req = escpush_core::Request::new(escpush_core::Method::Put, "/__emulator/logpush").with_body(body);
    c.execute(&req).unwrap();
}

fn methods(emu: &Emulator) -> Vec<String> {
    emu.requests()
        .iter()
        .map(|r| format!("{} {}", r.method, r.path))
        .collect()
}

#[test]
fn update_sends_only_the_changes_keeps_the_rest_and_delete_removes() {
    let emu = Emulator::start().unwrap();
    let c = client(&emu);
    let zone = Scope::zone("z1").unwrap();
    let spec = JobSpec::builder("http_requests", DatasetScope::Zone)
        .name("errors")
        .destination_conf("s3://b/l?region=r&access-key-id=AKID&secret-access-key=UPDSECRET")
        .filter(field("EdgeResponseStatus").ge(500))
        .extra("frequency", json!("low"))
        .extra(
            "output_options",
            json!({"field_names": ["ClientIP"], "sample_rate": 0.5}),
        )
        .build()
        .unwrap();
    let id = c.create_job(&zone, &spec).unwrap()["id"].as_u64().unwrap();
    let changes = json!({"enabled": true, "output_options": {"sample_rate": 1.0}});
    let job = c.update_job(&zone, id, changes.as_object().unwrap()).unwrap();
    assert_eq!(job["enabled"], true);
    assert_eq!(job["frequency"], "low", "not reset");
    assert_eq!(
        job["output_options"],
        json!({"field_names": ["ClientIP"], "sample_rate": 1.0})
    );
    assert_eq!(job["filter"], json!(field("EdgeResponseStatus").ge(500).to_json()));
    let put = emu.requests().into_iter().find(|r| r.method == "PUT").unwrap();
    assert_eq!(
        put.body.unwrap(),
        json!({"enabled": true, "output_options": {"field_names": ["ClientIP"], "sample_rate": 1.0}}),
        "a PUT carries the changes only (output_options whole: the API replaces it)"
    );
    // Refused before sending: a filter that does not fit the job's dataset.
    emu.clear_requests();
    let bad = json!({"filter": {"where": {"key": "QueryName", "operator": "eq", "value": "a"}}});
    let err = c.update_job(&zone, id, bad.as_object().unwrap()).unwrap_err();
    assert!(err.to_string().contains("QueryName"), "{err}");
    assert_eq!(methods(&emu), [format!("GET /client/v4/zones/z1/logpush/jobs/{id}")]);
    // A PUT is retried; a DELETE too, and a job already gone says so.
    emu.fail_next(
        Fault::Status {
            status: 503,
            retry_after: None,
        },
        1,
    );
    c.update_job(&zone, id, json!({"enabled": false}).as_object().unwrap())
        .unwrap();
    emu.fail_next(
        Fault::Status {
            status: 502,
            retry_after: None,
        },
        1,
    );
    assert_eq!(c.delete_job(&zone, id).unwrap(), Some(id));
    let gone = c.delete_job(&zone, id).unwrap_err();
    assert_eq!(gone.status(), Some(404));
    assert!(
        gone.to_string()
            .contains(&format!("not found: zone z1 has no log-push job {id}")),
        "{gone}"
    );
    assert!(c.jobs(&zone).unwrap().is_empty());
    assert!(!format!(
        "{:?}",
        emu.requests()
            .iter()
            .map(escpush_emulator::LoggedRequest::to_json)
            .collect::<Vec<_>>()
    )
    .contains("UPDSECRET"));
}

#[test]
fn a_zone_holds_four_jobs_and_creation_is_not_retried() {
    let emu = Emulator::start().unwrap();
    let c = client(&emu);
    let zone = Scope::zone("z1").unwrap();
    for _ in 0..4 {
        c.create_job(&zone, &plain_spec()).unwrap();
    }
    let err = c.create_job(&zone, &plain_spec()).unwrap_err();
    assert!(err.to_string().contains("exceeded max jobs allowed"), "{err}");
    emu.clear_requests();
    emu.fail_next(
        Fault::Status {
            status: 503,
            retry_after: None,
        },
        1,
    );
    assert!(c.create_job(&Scope::zone("z2").unwrap(), &plain_spec()).is_err());
    assert_eq!(emu.requests().len(), 1, "a creation is never retried");
}

#[test]
fn datasets_fields_ownership_and_destinations() {
    let emu = Emulator::start().unwrap();
    let c = client(&emu);
    let zone = Scope::zone("z1").unwrap();
    let account = Scope::account("a1").unwrap();
    c.create_job(&zone, &plain_spec()).unwrap();
    assert_eq!(c.dataset_jobs(&zone, "http_requests").unwrap().len(), 1);
    assert!(c.dataset_jobs(&zone, "firewall_events").unwrap().is_empty());
    let fields = c.fields(&zone, "http_requests").unwrap();
    let http = escpush_filter::Dataset::get("http_requests", None).unwrap();
    assert!(escpush_core::field_drift(http, fields.iter().map(|(n, _)| n.as_str())).is_empty());
    quirks(
        &c,
        json!({"field_drift": {"http_requests": {"add": {"NewField": "new"}, "remove": ["ClientIP"]}}}),
    );
    let fields = c.fields(&zone, "http_requests").unwrap();
    let drift = escpush_core::field_drift(http, fields.iter().map(|(n, _)| n.as_str()));
    assert_eq!(
        (drift.only_live, drift.only_embedded),
        (vec!["NewField".to_owned()], vec!["ClientIP".to_owned()])
    );
    assert!(c
        .fields(&account, "gateway_dns")
        .unwrap()
        .iter()
        .any(|(n, _)| n == "QueryName"));
    emu.clear_requests();
    assert!(c.fields(&zone, "gateway_dns").is_err(), "refused before sending");
    assert!(emu.requests().is_empty());

    let conf = escpush_core::DestinationConf::parse("s3://own/logs?region=r&secret-access-key=OWNSECRET").unwrap();
    let challenge = c.ownership_challenge(&zone, &conf).unwrap();
    assert!(challenge.filename.starts_with("own/logs/"), "{challenge:?}");
    let issued = c
        .execute(&escpush_core::Request::new(
            escpush_core::Method::Get,
            "/__emulator/logpush",
        ))
        .unwrap();
    let token = issued["challenges"][0]["challenge"].as_str().unwrap().to_owned();
    c.validate_ownership(&zone, &conf, &token).unwrap();
    let err = c.validate_ownership(&zone, &conf, "wrong-token").unwrap_err();
    assert_eq!(err.status(), Some(200));
    assert!(
        err.to_string()
            .contains("the ownership challenge is not valid: no reason given"),
        "{err}"
    );
    assert!(!err.to_string().contains("wrong-token"));
    c.validate_destination(&zone, &conf).unwrap();
    assert!(!c.destination_exists(&zone, &conf).unwrap());
    assert!(c
        .destination_exists(&zone, &escpush_core::DestinationConf::parse(S3).unwrap())
        .unwrap());
    // The docs' own example asks about `s3://foo`, without a region.
    let foo = escpush_core::DestinationConf::parse_address("s3://foo").unwrap();
    assert!(!c.destination_exists(&zone, &foo).unwrap());
    emu.fail_next(
        Fault::Body {
            status: 200,
            body: br#"{"success":true,"errors":[],"messages":[],"result":{"valid":false,"message":"bucket is gone"}}"#
                .to_vec(),
        },
        1,
    );
    let err = c.validate_destination(&zone, &conf).unwrap_err();
    assert!(
        err.to_string().contains("the destination is not valid: bucket is gone"),
        "{err}"
    );
    let logged = format!(
        "{:?}",
        emu.requests()
            .iter()
            .map(escpush_emulator::LoggedRequest::to_json)
            .collect::<Vec<_>>()
    );
    assert!(!logged.contains("OWNSECRET") && !logged.contains(&token), "{logged}");
}

#[test]
fn ensure_against_a_reserializing_server_sends_nothing_the_second_time() {
    let emu = Emulator::start().unwrap();
    let c = client(&emu);
    let zone = Scope::zone("z1").unwrap();
    quirks(&c, json!({"reserialize_filters": true}));
    let desired = json!({
        "name": "errors", "dataset": "http_requests", "destination_conf": S3,
        "filter": (field("EdgeResponseStatus").ge(500) & field("ClientCountry").is_in(["cn", "ru"]) & field("ClientRequestHost").ends_with(".x")).to_json(),
    });
    let (entry, job) = c.ensure_job(&zone, desired.as_object().unwrap()).unwrap();
    assert_eq!(entry.action, escpush_core::PlanAction::Create);
    let stored = job["filter"].as_str().unwrap();
    assert!(
        stored.contains("\"value\": \"500\", \"operator\": \"geq\""),
        "the server rewrote it: {stored}"
    );
    emu.clear_requests();
    let (entry, again) = c.ensure_job(&zone, desired.as_object().unwrap()).unwrap();
    assert_eq!(entry.action, escpush_core::PlanAction::Unchanged);
    assert_eq!(again["id"], job["id"]);
    assert_eq!(
        methods(&emu),
        ["GET /client/v4/zones/z1/logpush/jobs"],
        "only the list is read"
    );
    let mut changed = desired.as_object().unwrap().clone();
    changed.insert("enabled".into(), json!(true));
    let (entry, updated) = c.ensure_job(&zone, &changed).unwrap();
    assert_eq!(entry.action, escpush_core::PlanAction::Update);
    assert_eq!(
        entry.changes.iter().map(|c| c.field.as_str()).collect::<Vec<_>>(),
        ["enabled"]
    );
    assert_eq!(updated["enabled"], true);
}

#[test]
fn apply_plan_creates_before_it_deletes_and_says_where_it_stopped() {
    let emu = Emulator::start().unwrap();
    let c = client(&emu);
    let zone = Scope::zone("z1").unwrap();
    let old = c.create_job(&zone, &plain_spec()).unwrap();
    let old_id = old["id"].as_u64().unwrap();
    let job = |name: &str| json!({"name": name, "dataset": "http_requests", "destination_conf": S3});
    let doc = json!({"jobs": [job("new")]});
    let prune = escpush_core::PlanOptions::new().prune(true);
    // The creation fails: the job it replaces is still there, and the error says so.
    let plan = c.plan_jobs(&zone, &doc, prune).unwrap();
    emu.clear_requests();
    emu.fail_next(
        Fault::Status {
            status: 400,
            retry_after: None,
        },
        1,
    );
    let err = c.apply_plan(&zone, &plan).unwrap_err();
    let Error::PlanStopped { failed, done, .. } = &err else {
        panic!("{err:?}")
    };
    assert_eq!((*failed, done.as_slice()), (0, [false, false].as_slice()));
    assert_eq!(err.status(), Some(400));
    let text = err.to_string();
    assert!(
        text.contains(&format!(
            "stopped at creating `new`; nothing was written before it; not sent: delete (no name) (job {old_id})"
        )),
        "{text}"
    );
    assert_eq!(methods(&emu), ["POST /client/v4/zones/z1/logpush/jobs"]);
    assert_eq!(c.jobs(&zone).unwrap().len(), 1);
    // Without a failure: the creation, then the deletion.
    emu.clear_requests();
    let results = c.apply_plan(&zone, &plan).unwrap();
    assert_eq!(results[1], Some(serde_json::Value::Null), "the deletion");
    assert_eq!(
        methods(&emu),
        [
            "POST /client/v4/zones/z1/logpush/jobs".to_owned(),
            format!("DELETE /client/v4/zones/z1/logpush/jobs/{old_id}")
        ]
    );
    // Five new jobs on an empty zone: refused by the plan, before anything is written.
    let five = json!({"jobs": [job("a"), job("b"), job("c"), job("d"), job("e")]});
    let err = c
        .plan_jobs(&Scope::zone("z2").unwrap(), &five, escpush_core::PlanOptions::new())
        .unwrap_err();
    assert!(
        err.to_string()
            .contains("zone z2 would hold 5 log-push jobs (it holds 0, the plan creates 5)"),
        "{err}"
    );
}

// Findings of the review of issues 23 and 24 (each test failed before its fix).

/// An S3 destination without keys: a job to it needs an ownership challenge.
const S3_IAM: &str = "s3://bucket/logs?region=us-east-1";

/// A job to `dest` created with the challenge the emulator wrote there; its id.
fn create_with_challenge(c: &escpush_http::Client, emu: &Emulator, zone: &Scope, dest: &str, name: &str) -> u64 {
    c.ownership_challenge(zone, &escpush_core::DestinationConf::parse(dest).unwrap())
        .unwrap();
    let token = emu.written_challenge(zone, dest).unwrap();
    let spec = JobSpec::builder("http_requests", DatasetScope::Zone)
        .destination_conf(dest)
        .name(name)
        .extra("ownership_challenge", json!(token))
        .build()
        .unwrap();
    c.create_job(zone, &spec).unwrap()["id"].as_u64().unwrap()
}

#[test]
fn an_update_to_a_destination_with_spaces_around_it_is_taken_by_both_sides() {
    let emu = Emulator::start().unwrap();
    let c = client(&emu);
    let zone = Scope::zone("z1").unwrap();
    let id = create_with_challenge(&c, &emu, &zone, S3_IAM, "a");
    let gs = "gs://b2/logs";
    c.ownership_challenge(&zone, &escpush_core::DestinationConf::parse(gs).unwrap())
        .unwrap();
    let token = emu.written_challenge(&zone, gs).unwrap();
    let changes = json!({"destination_conf": format!(" {gs} \n"), "ownership_challenge": token});
    let job = c.update_job(&zone, id, changes.as_object().unwrap()).unwrap();
    assert_eq!(job["destination_conf"], gs);
    // Another client may send the untrimmed text: the emulator reads it as the client does.
    let raw = escpush_core::Request::new(escpush_core::Method::Put, format!("/zones/z1/logpush/jobs/{id}"))
        .with_body(json!({"destination_conf": format!("{S3_IAM} "), "ownership_challenge":
            emu.written_challenge(&zone, S3_IAM).unwrap()}));
    let job = c.execute(&raw).unwrap();
    assert_eq!(job["destination_conf"], S3_IAM);
}

#[test]
fn a_destination_exists_where_a_job_pushes_whatever_its_parameters() {
    // api-configuration.mdx asks the check about `s3://foo`, a bucket without its region:
    // "exists" compares where a job pushes (scheme, bucket and path), not the whole text.
    let emu = Emulator::start().unwrap();
    let c = client(&emu);
    let zone = Scope::zone("z1").unwrap();
    create_with_challenge(&c, &emu, &zone, S3_IAM, "a");
    let exists = |text: &str| {
        c.destination_exists(&zone, &escpush_core::DestinationConf::parse_address(text).unwrap())
            .unwrap()
    };
    assert!(exists("s3://bucket/logs"));
    assert!(exists("s3://bucket/logs/?region=eu-west-1"));
    assert!(exists(S3_IAM));
    assert!(
        !exists("s3://bucket"),
        "another path of the bucket is another destination"
    );
    assert!(!exists("s3://bucket/logs/http"));
    assert!(!exists("gs://bucket/logs"));
    assert!(!c
        .destination_exists(
            &Scope::zone("z2").unwrap(),
            &escpush_core::DestinationConf::parse(S3_IAM).unwrap()
        )
        .unwrap());
}

#[test]
fn ensure_of_an_existing_job_needs_no_new_challenge() {
    let emu = Emulator::start().unwrap();
    let c = client(&emu);
    let zone = Scope::zone("z1").unwrap();
    let id = create_with_challenge(&c, &emu, &zone, S3_IAM, "a");
    emu.clear_requests();
    let desired = json!({"name": "a", "dataset": "http_requests", "destination_conf": S3_IAM});
    let (entry, job) = c.ensure_job(&zone, desired.as_object().unwrap()).unwrap();
    assert_eq!(entry.action, escpush_core::PlanAction::Unchanged);
    assert_eq!(job["id"], id);
    assert_eq!(
        methods(&emu),
        ["GET /client/v4/zones/z1/logpush/jobs"],
        "nothing but the list was sent"
    );
    // A job that does not exist yet still needs one, refused before anything is sent.
    emu.clear_requests();
    let other = json!({"name": "b", "dataset": "http_requests", "destination_conf": "gs://other/logs"});
    let err = c.ensure_job(&zone, other.as_object().unwrap()).unwrap_err();
    assert!(err.to_string().contains("needs an ownership challenge"), "{err}");
    assert_eq!(methods(&emu), ["GET /client/v4/zones/z1/logpush/jobs"]);
}

#[test]
fn an_ownership_answer_never_shows_a_destination_credential() {
    // The emulator wrote the challenge file under the destination's path, which for Sumo
    // Logic holds the collector code and for an HTTP endpoint may hold `user:password@`.
    let emu = Emulator::start().unwrap();
    let c = client(&emu);
    let zone = Scope::zone("z1").unwrap();
    for (dest, secret) in [
        (
            "sumo://endpoint1.collection.sumologic.com/receiver/v1/http/ZaVnC4dhaV3SECRETCODE",
            "ZaVnC4dhaV3SECRETCODE",
        ),
        ("https://me:pw-SECRET@logs.example.com/in", "pw-SECRET"),
    ] {
        let conf = escpush_core::DestinationConf::parse(dest).unwrap();
        let answer = c.ownership_challenge(&zone, &conf).unwrap();
        let shown = format!("{answer:?} {}", answer.filename);
        assert!(!shown.contains(secret), "{shown}");
        // The answer read from a server that does quote the credential is masked too.
        emu.fail_next(
            Fault::Body {
                status: 200,
                body: format!(
                    r#"{{"success":true,"errors":[],"messages":[],"result":{{"valid":true,"message":"wrote to {dest}","filename":"{secret}/ownership-challenge.txt"}}}}"#
                )
                .into_bytes(),
            },
            1,
        );
        let answer = c.ownership_challenge(&zone, &conf).unwrap();
        let shown = format!("{answer:?}");
        assert!(!shown.contains(secret), "{shown}");
    }
    let logged = format!(
        "{:?}",
        emu.requests()
            .iter()
            .map(escpush_emulator::LoggedRequest::to_json)
            .collect::<Vec<_>>()
    );
    assert!(
        !logged.contains("SECRETCODE") && !logged.contains("pw-SECRET"),
        "{logged}"
    );
}
