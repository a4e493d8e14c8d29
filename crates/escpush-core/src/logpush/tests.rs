//! Tests of log-push job payloads, options, destinations and requests.

use super::*;
use crate::error::Error;
use crate::operation::Operation;
use crate::request::Method;
use crate::scope::Scope;
use escpush_filter::field;
use escpush_filter::DatasetScope;
use escpush_filter::Filter;
use serde_json::json;
use serde_json::{Map, Value};

/// An S3 destination with its keys: it needs no ownership challenge.
const S3_KEYS: &str = "s3://bucket/logs?region=us-east-1&access-key-id=AKID&secret-access-key=SAK-KEYS";

fn codes(err: &Error) -> Vec<(String, &'static str)> {
    let problems = match err {
        Error::Invalid { problems } => problems.clone(),
        Error::Filter(f) => f.problems().to_vec(),
        other => panic!("unexpected {other:?}"),
    };
    problems.into_iter().map(|p| (p.path, p.code.as_str())).collect()
}

#[test]
fn logpull_options_parse_and_print() {
    let text = "fields=ClientIP,EdgeResponseStatus&timestamps=rfc3339&CVE-2021-44228=true";
    let o = LogpullOptions::parse(text).unwrap();
    assert_eq!(o.fields(), ["ClientIP", "EdgeResponseStatus"]);
    assert_eq!(o.timestamps_format(), Some(Timestamps::Rfc3339));
    assert_eq!(o.flags(), [("CVE-2021-44228".to_owned(), true)]);
    assert_eq!(o.to_query(), text);
    assert_eq!(LogpullOptions::parse(&format!("?{text}")).unwrap(), o);
    let built = LogpullOptions::new(["ClientIP", "EdgeResponseStatus"])
        .timestamps(Timestamps::Rfc3339)
        .flag("CVE-2021-44228", true);
    assert_eq!(built, o);
    let kept = LogpullOptions::parse("fields=A&sample=0.1").unwrap();
    assert_eq!(kept.unknown_options(), [], "`sample` is known");
    assert_eq!(kept.sample_rate().unwrap(), Some(0.1));
    assert_eq!(kept.to_query(), "fields=A&sample=0.1");
    assert_eq!(
        kept.warnings(),
        Vec::<String>::new(),
        "`sample` is known: read as sample_rate"
    );
    let typo = LogpullOptions::parse("fields=A&samples=0.1").unwrap();
    assert_eq!(typo.warnings().len(), 1);
    assert!(typo.warnings()[0].contains("`sample`"), "{:?}", typo.warnings());
}

#[test]
fn logpull_options_report_every_problem() {
    let err = LogpullOptions::parse("fields=A,,B&timestamps=iso&CVE-2021-44228=yes&flag&fields=C").unwrap_err();
    assert_eq!(
        codes(&err),
        [
            ("logpull_options.fields[1]".into(), "invalid_option"),
            ("logpull_options.timestamps".into(), "invalid_option"),
            ("logpull_options.CVE-2021-44228".into(), "invalid_option"),
            ("logpull_options.flag".into(), "invalid_option"),
            ("logpull_options.fields".into(), "invalid_option"),
        ]
    );
    let err = LogpullOptions::parse("timestamps=rfc3339x").unwrap_err();
    assert!(err.to_string().contains("did you mean `rfc3339`?"), "{err}");
}

/// Found by the fuzz target `logpull_options`: options that parsed printed to text that
/// parsed to other options (whitespace at the end of the last value was trimmed away, a
/// name `?x` lost its `?`). Such text is refused now, and what parses round-trips.
#[test]
fn logpull_options_refuse_what_would_not_print_back() {
    for text in [
        "fieldarray=&=y\u{b}\u{b}&&",
        "fields=A&x= 1",
        "fields=A&x=1\u{b}",
        "=\u{85}&",
        "k=\u{a0}v\u{a0}&fields=A",
        "f ields=A",
        "??x=1",
        "fields=A&?x=1",
    ] {
        let err = LogpullOptions::parse(text).unwrap_err();
        assert_eq!(codes(&err).len(), 1, "{text:?}: {err}");
        assert_eq!(codes(&err)[0].1, "invalid_option", "{text:?}");
    }
    let err = LogpullOptions::parse("fields=A&x=1 2").unwrap_err();
    assert!(
        err.to_string()
            .contains("`x` holds whitespace or a control character (U+0020)"),
        "{err}"
    );
    // ASCII spaces around an option are trimmed (a pasted `fields=A\n`), never inside it.
    for text in [
        " fields=A&x=1 ",
        "?fields=A&x=",
        "fields=A=B&=y&&x=?",
        "fields=A &x=1",
        "fields=A&x=1\t&",
    ] {
        let options = LogpullOptions::parse(text).unwrap();
        assert_eq!(LogpullOptions::parse(&options.to_query()).unwrap(), options, "{text:?}");
    }
}

/// Found by the fuzz target `destination`: a destination with whitespace inside
/// (`https://h/p\t?`) parsed, and its redacted form lost the whitespace when read again.
/// A URL holds none: such text is refused, naming the place and not the text.
#[test]
fn destinations_with_whitespace_inside_are_refused() {
    for text in [
        "https://h/p\t?",
        "https://h/p ?x=1",
        "s3://b/l?region=r&secret-access-key=top secret",
        "https://me:p w@h/in",
        "sumo://h/code\u{1}",
        "https://h/p\u{a0}x",
    ] {
        let err = DestinationConf::parse(text).unwrap_err();
        assert_eq!(
            codes(&err),
            [("destination_conf".to_owned(), "invalid_destination")],
            "{text:?}"
        );
        assert!(err.to_string().contains("whitespace or a control character"), "{err}");
        assert!(!err.to_string().contains("secret"), "{err}");
        assert_eq!(DestinationConf::redact(text), "***");
    }
    let err = DestinationConf::parse("s3://b/l?region=r&k=top secret").unwrap_err();
    assert!(err.to_string().contains("(U+0020) at byte 23"), "{err}");
    // Around the text, whitespace is trimmed as before.
    assert!(DestinationConf::parse(" s3://b/l?region=r\n").is_ok());
}

#[test]
fn destinations_are_checked_and_never_print_credentials() {
    let d = DestinationConf::parse("s3://bucket/logs?region=us-east-1").unwrap();
    assert_eq!(
        (d.scheme(), d.path(), d.param("region")),
        ("s3", "bucket/logs", Some("us-east-1"))
    );
    let r2 =
        DestinationConf::parse("r2://bucket/logs?account-id=abc&access-key-id=AKIA123&secret-access-key=topsecret")
            .unwrap();
    assert_eq!(
        r2.to_string(),
        "r2://bucket/logs?account-id=***&access-key-id=***&secret-access-key=***"
    );
    assert!(!format!("{r2:?}").contains("topsecret"));
    assert!(r2.expose().contains("topsecret"));
    for (text, shown) in [
        (
            "sumo://endpoint1.collection.sumologic.com/receiver/v1/http/ZaVnC4dhaV2topsecret",
            "sumo://endpoint1.collection.sumologic.com/***",
        ),
        (
            "https://user:topsecret@logs.example.com/ingest?header_Authorization=Basic%20topsecret",
            "https://***@logs.example.com/ingest?header_Authorization=***",
        ),
        ("https://me:p@ss@logs.example.com/in", "https://***@logs.example.com/in"),
        ("https://logs.example.com/a@b?x=1", "https://logs.example.com/a@b?x=***"),
        (
            "splunk://h.example.com:8088/services/collector/raw?channel=c1",
            "splunk://h.example.com:8088/services/collector/raw?channel=c1",
        ),
        ("not a destination topsecret", "***"),
    ] {
        assert_eq!(DestinationConf::redact(text), shown, "{text}");
    }
    // Each masked part is a secret on its own, and nothing shown is one.
    for (text, secrets) in [
        (
            "r2://bucket/logs?account-id=abc&access-key-id=AKIA123&secret-access-key=topsecret",
            vec!["abc", "AKIA123", "topsecret"],
        ),
        (
            "https://me:p@ss@logs.example.com/in?region=eu&header_X=k1",
            vec!["me:p@ss", "p@ss", "k1"],
        ),
        (
            "sumo://endpoint1.collection.sumologic.com/receiver/v1/http/ZaVnC4dh",
            vec!["receiver/v1/http/ZaVnC4dh", "ZaVnC4dh"],
        ),
        ("s3://bucket/logs?region=us-east-1", vec![]),
    ] {
        assert_eq!(DestinationConf::parse(text).unwrap().secret_values(), secrets, "{text}");
    }
    for (bad, says) in [
        ("", "needs a destination"),
        ("bucket/logs", "<scheme>://<path>?<params>"),
        ("s4://bucket?region=x", "did you mean `s3`?"),
        ("s3://bucket/logs", "names its region"),
        ("s3://?region=x", "names no bucket"),
    ] {
        let err = DestinationConf::parse(bad).unwrap_err().to_string();
        assert!(err.contains(says), "{bad}: {err}");
    }
}

#[test]
fn a_good_job_and_its_body() {
    let f = field("EdgeResponseStatus").ge(500);
    let job = JobSpec::builder("http_requests", DatasetScope::Zone)
        .name("errors")
        .destination_conf(S3_KEYS)
        .logpull_options(LogpullOptions::new(["ClientIP", "EdgeResponseStatus"]).timestamps(Timestamps::Rfc3339))
        .filter(f.clone())
        .extra("enabled", json!(true))
        .build()
        .unwrap();
    let body = job.to_body();
    assert_eq!(
        body,
        json!({
            "name": "errors",
            "dataset": "http_requests",
            "destination_conf": S3_KEYS,
            "logpull_options": "fields=ClientIP,EdgeResponseStatus&timestamps=rfc3339",
            "filter": f.to_json(),
            "enabled": true,
        })
    );
    assert_eq!(Filter::parse(body["filter"].as_str().unwrap()).unwrap(), f);
}

#[test]
fn every_mistake_is_caught_before_sending() {
    let err = JobSpec::builder("gateway_dns", DatasetScope::Zone)
        .logpull_options_text("fields=Nope&timestamps=iso")
        .filter_text("{}")
        .extra("frequncy", json!("high"))
        .extra("max_upload_bytes", json!(-1))
        .build()
        .unwrap_err();
    assert_eq!(
        codes(&err),
        [
            ("dataset".into(), "unknown_dataset"),
            ("destination_conf".into(), "invalid_destination"),
            ("logpull_options.timestamps".into(), "invalid_option"),
            ("filter".into(), "missing_where"),
            ("frequncy".into(), "unknown_member"),
            ("max_upload_bytes".into(), "invalid_value"),
        ]
    );
    assert!(err
        .to_string()
        .contains("`gateway_dns` is an account dataset: use it on an account, not on a zone"));
    let err = JobSpec::builder("http_requests", DatasetScope::Zone)
        .destination_conf(S3_KEYS)
        .logpull_options(LogpullOptions::new(["ClientIP", "ClientIPP"]))
        .build()
        .unwrap_err();
    assert_eq!(codes(&err), [("logpull_options.fields[1]".into(), "unknown_field")]);
}

#[test]
fn bodies_read_back_and_requests() {
    let f = field("EdgeResponseStatus").ge(500);
    let job = JobSpec::builder("http_requests", DatasetScope::Zone)
        .destination_conf("r2://b/p?account-id=a&access-key-id=k&secret-access-key=topsecret")
        .filter(f.clone())
        .logpull_options(LogpullOptions::new(["ClientIP"]))
        .build()
        .unwrap();
    let back = JobSpec::from_body(&job.to_body(), DatasetScope::Zone).unwrap();
    assert_eq!(back, job);
    let zone = Scope::zone("z1").unwrap();
    let req = JobOp::Create(&job).request(&zone).unwrap();
    assert_eq!(
        (req.method, req.path.as_str(), req.retry.is_safe()),
        (Method::Post, "/zones/z1/logpush/jobs", false)
    );
    assert!(!format!("{req:?}").contains("topsecret"));
    assert!(JobOp::Create(&job).request(&Scope::account("a1").unwrap()).is_err());
    assert_eq!(JobOp::List.request(&zone).unwrap().path, "/zones/z1/logpush/jobs");
    assert_eq!(JobOp::Get(7).request(&zone).unwrap().path, "/zones/z1/logpush/jobs/7");
    let err = JobSpec::from_body(
        &json!({"dataset": 5, "destination_conf": S3_KEYS, "filter": "{}", "enabled": null}),
        DatasetScope::Zone,
    )
    .unwrap_err();
    assert_eq!(
        codes(&err),
        [
            ("dataset".into(), "invalid_type"),
            ("dataset".into(), "unknown_dataset"),
            ("filter".into(), "missing_where"),
            // not nullable (schema logpush_enabled): the API would refuse it
            ("enabled".into(), "invalid_value"),
        ]
    );
    assert!(JobSpec::from_body(&json!([]), DatasetScope::Zone).is_err());
}

#[test]
fn filter_only_problems_are_a_filter_error() {
    let over = (0..31)
        .map(|i| field("ClientIP").eq(format!("{i}")))
        .reduce(|a, b| a | b)
        .unwrap();
    let err = JobSpec::builder("http_requests", DatasetScope::Zone)
        .destination_conf(S3_KEYS)
        .filter(over & field("EdgeResponseStatus").starts_with("5"))
        .build()
        .unwrap_err();
    assert!(matches!(err, Error::Filter(_)));
    assert_eq!(
        codes(&err),
        [
            ("filter".into(), "too_many_operators"),
            ("filter".into(), "too_large"),
            ("filter.where.and[1].operator".into(), "operator_not_supported"),
        ]
    );
}

#[test]
fn closed_job_fields_take_only_their_documented_values() {
    let build = |key: &str, value: Value| {
        JobSpec::builder("http_requests", DatasetScope::Zone)
            .destination_conf(S3_KEYS)
            .extra(key, value)
            .build()
    };
    for (key, good) in [
        ("frequency", "high"),
        ("frequency", "low"),
        ("kind", ""),
        ("kind", "edge"),
    ] {
        assert!(build(key, json!(good)).is_ok(), "{key}={good}");
    }
    let err = build("frequency", json!("medium")).unwrap_err();
    assert_eq!(codes(&err), [("frequency".to_owned(), "invalid_value")]);
    assert!(
        err.to_string()
            .contains(r#"`frequency` is "medium"; it takes one of "high", "low""#),
        "{err}"
    );
    let err = build("kind", json!("bogus")).unwrap_err();
    assert!(
        err.to_string()
            .contains(r#"`kind` is "bogus"; it takes one of "", "edge""#),
        "{err}"
    );
    for (key, good, bad) in [
        ("max_upload_bytes", 5_000_000, 4_999_999),
        ("max_upload_records", 1_000_000, 1_000_001),
        ("max_upload_interval_seconds", 30, 301),
    ] {
        assert!(build(key, json!(good)).is_ok(), "{key}={good}");
        assert!(build(key, json!(0)).is_ok(), "{key}=0 turns it off");
        let err = build(key, json!(bad)).unwrap_err();
        assert_eq!(codes(&err), [(key.to_owned(), "invalid_value")]);
        assert!(
            err.to_string().contains(&format!("`{key}` is {bad}; it takes ")),
            "{err}"
        );
    }
    // The same check reads what the emulator receives.
    let body = json!({"dataset": "http_requests", "destination_conf": S3_KEYS, "kind": "bogus"});
    assert_eq!(
        codes(&JobSpec::from_body(&body, DatasetScope::Zone).unwrap_err()),
        [("kind".to_owned(), "invalid_value")]
    );
}

#[test]
fn job_operations_describe_their_requests() {
    let scope = Scope::zone("023e105f4ecef8ad9ca31a8372d0c353").unwrap();
    let list = JobOp::List.request(&scope).unwrap();
    assert_eq!(
        (list.method, list.path.as_str(), list.retry.is_safe()),
        (
            Method::Get,
            "/zones/023e105f4ecef8ad9ca31a8372d0c353/logpush/jobs",
            true
        )
    );
    let get = JobOp::Get(7).request(&scope).unwrap();
    assert_eq!(get.path, "/zones/023e105f4ecef8ad9ca31a8372d0c353/logpush/jobs/7");
    let spec = JobSpec::builder("http_requests", DatasetScope::Zone)
        .destination_conf(S3_KEYS)
        .build()
        .unwrap();
    let create = JobOp::Create(&spec).request(&scope).unwrap();
    assert_eq!(
        (create.method, create.retry.is_safe(), create.carries_secret),
        (Method::Post, false, true)
    );
    let account = Scope::account("023e105f4ecef8ad9ca31a8372d0c353").unwrap();
    let err = JobOp::Create(&spec).request(&account).unwrap_err();
    assert!(matches!(err, Error::InvalidInput { what: "dataset", .. }), "{err}");
    assert!(
        err.to_string()
            .contains("`http_requests` is a zone dataset: use it on a zone, not on an account"),
        "{err}"
    );
}

#[test]
fn job_answers_are_read_or_refused_by_what_they_hold() {
    let job = read_job(json!({"id": 1})).unwrap();
    assert_eq!(job["id"], 1);
    for (body, found) in [
        (json!(null), "null"),
        (json!([]), "an array"),
        (json!("x"), "a string"),
        (json!(5), "a number"),
    ] {
        let err = read_job(body).unwrap_err();
        assert!(matches!(&err, Error::MalformedResponse { .. }), "{err:?}");
        assert!(
            err.to_string().contains(&format!("the job is {found}, not an object")),
            "{err}"
        );
    }
    assert_eq!(read_job_list(json!(null)).unwrap(), Vec::<Map<String, Value>>::new());
    assert_eq!(read_job_list(json!([{"id": 1}, {"id": 2}])).unwrap().len(), 2);
    let err = read_job_list(json!({"id": 1})).unwrap_err();
    assert!(
        err.to_string().contains("the job list is an object, not an array"),
        "{err}"
    );
    let err = read_job_list(json!([{"id": 1}, 5])).unwrap_err();
    assert!(
        err.to_string().contains("job 1 of the list is a number, not an object"),
        "{err}"
    );
}

#[allow(clippy::needless_pass_by_value)] // json!(...) literals, given by value
fn obj(v: Value) -> Map<String, Value> {
    v.as_object().unwrap().clone()
}

const SECRET_CONF: &str = "s3://b/logs?region=us-east-1&access-key-id=AKID-SECRET&secret-access-key=SAK-SECRET";

fn stored_job() -> Map<String, Value> {
    obj(json!({
        "id": 7, "name": "errors", "dataset": "http_requests", "enabled": true, "kind": "",
        "destination_conf": SECRET_CONF, "frequency": "low",
        "logpull_options": "fields=ClientIP&timestamps=rfc3339",
        "filter": "{\"where\": {\"value\": \"500\", \"operator\": \"geq\", \"key\": \"EdgeResponseStatus\"}}",
        "output_options": {"field_names": ["ClientIP"], "sample_rate": 0.5},
        "last_complete": null, "error_message": null
    }))
}

#[test]
fn an_update_sends_only_what_changes() {
    // Issue 24: a PUT changes only the fields it sends (example-logpush-curl.mdx's
    // `PUT {"enabled": true}`; the SDK's `jobs.update(id, enabled=True)` sends that alone),
    // and `kind` is never sent (api-configuration.mdx).
    let zone = Scope::zone("z1").unwrap();
    let changes = obj(json!({"enabled": false, "output_options": {"sample_rate": 1.0}}));
    let update = JobUpdate::new(&stored_job(), &changes, DatasetScope::Zone).unwrap();
    let req = JobOp::Update(&update).request(&zone).unwrap();
    assert_eq!(
        (req.method, req.path.as_str()),
        (Method::Put, "/zones/z1/logpush/jobs/7")
    );
    assert!(req.retry.is_safe() && req.carries_secret);
    assert!(!format!("{req:?} {update:?}").contains("SAK-SECRET"));
    // output_options is replaced whole by the API: the stored keys go with the change.
    assert_eq!(
        req.body.unwrap(),
        json!({"enabled": false, "output_options": {"field_names": ["ClientIP"], "sample_rate": 1.0}})
    );
    assert_eq!(update.changed(), ["enabled", "output_options"]);
    let mut disabled = stored_job();
    disabled.insert("enabled".into(), json!(false));
    let enable = JobUpdate::new(&disabled, &obj(json!({"enabled": true})), DatasetScope::Zone).unwrap();
    assert_eq!(enable.to_body(), json!({"enabled": true}));
    // A value the job already has is no change: not sent.
    let again = JobUpdate::new(&stored_job(), &obj(json!({"enabled": true})), DatasetScope::Zone).unwrap();
    assert_eq!(again.to_body(), json!({}));
    // What cannot change and equals the stored value is not sent; nor is the same destination.
    let same = obj(json!({"kind": "", "dataset": "http_requests", "destination_conf": SECRET_CONF, "name": "x"}));
    assert_eq!(
        JobUpdate::new(&stored_job(), &same, DatasetScope::Zone)
            .unwrap()
            .to_body(),
        json!({"name": "x"})
    );
    // A filter given in any form is sent canonical; null clears it.
    let f = obj(json!({"filter": {"where": {"key": "ClientCountry", "operator": "eq", "value": "cn"}}}));
    let body = JobUpdate::new(&stored_job(), &f, DatasetScope::Zone).unwrap().to_body();
    assert_eq!(
        body,
        json!({"filter": r#"{"where":{"key":"ClientCountry","operator":"eq","value":"cn"}}"#})
    );
    let cleared = JobUpdate::new(&stored_job(), &obj(json!({"filter": null})), DatasetScope::Zone).unwrap();
    assert_eq!(cleared.to_body(), json!({"filter": null}));
}

#[test]
fn an_update_is_judged_on_the_stored_job_with_the_change() {
    // The emulator judges what it receives with the same function.
    let stored = stored_job();
    assert!(check_update(&stored, &obj(json!({"enabled": true})), DatasetScope::Zone).is_ok());
    for (body, says) in [
        (json!({"kind": "edge"}), "kind cannot change"),
        (json!({"dataset": "firewall_events"}), "dataset cannot change"),
        (
            json!({"last_error": "2024-01-01T00:00:00Z"}),
            "last_error cannot change",
        ),
    ] {
        let err = check_update(&stored, &obj(body.clone()), DatasetScope::Zone).unwrap_err();
        assert!(err.to_string().contains(says), "{body}: {err}");
    }
    // A new destination that needs a challenge needs it in the same body.
    let to_gcs = obj(json!({"destination_conf": "gs://bucket/logs"}));
    let err = check_update(&stored, &to_gcs, DatasetScope::Zone).unwrap_err();
    assert_eq!(codes(&err), [("ownership_challenge".to_owned(), "missing_member")]);
    assert!(err.to_string().contains("Google Cloud Storage"), "{err}");
    assert!(JobUpdate::new(&stored, &to_gcs, DatasetScope::Zone).is_err());
    let mut with = to_gcs.clone();
    with.insert("ownership_challenge".into(), json!("challenge-1"));
    assert!(check_update(&stored, &with, DatasetScope::Zone).is_ok());
    // filter_attack_traffic is judged against the stored dataset.
    let mut dns = stored_job();
    dns.insert("dataset".into(), json!("dns_logs"));
    let err = check_update(&dns, &obj(json!({"filter_attack_traffic": true})), DatasetScope::Zone).unwrap_err();
    assert_eq!(codes(&err), [("filter_attack_traffic".to_owned(), "invalid_value")]);
    // The API takes `filter` as a string; an update stores it as a creation does.
    let object = obj(json!({"filter": {"where": {"key": "ClientIP", "operator": "eq", "value": "1"}}}));
    let err = check_update(&stored, &object, DatasetScope::Zone).unwrap_err();
    assert_eq!(codes(&err), [("filter".to_owned(), "invalid_type")]);
    let text = obj(
        json!({"filter": "{\"where\": {\"value\": \"1\", \"key\": \"ClientIP\", \"operator\": \"eq\"}}",
                          "destination_conf": " gs://b/l ", "ownership_challenge": "c"}),
    );
    let after = updated_record(&stored, &text);
    assert_eq!(
        (
            &after["filter"],
            &after["destination_conf"],
            after.get("ownership_challenge")
        ),
        (
            &json!(r#"{"where":{"key":"ClientIP","operator":"eq","value":"1"}}"#),
            &json!("gs://b/l"),
            None
        )
    );
    // A stored name the schema would refuse does not block a change elsewhere.
    let mut spaced = stored_job();
    spaced.insert("name".into(), json!("my job"));
    assert!(check_update(&spaced, &obj(json!({"enabled": false})), DatasetScope::Zone).is_ok());
    assert!(check_update(&spaced, &obj(json!({"name": "my job 2"})), DatasetScope::Zone).is_err());
}

#[test]
fn an_update_is_checked_like_a_creation() {
    let bad = |changes: Value| JobUpdate::new(&stored_job(), &obj(changes), DatasetScope::Zone).unwrap_err();
    assert_eq!(
        codes(&bad(
            json!({"filter": {"where": {"key": "ClientRequestHots", "operator": "eq", "value": "a"}}})
        )),
        [("filter.where.key".to_owned(), "unknown_field")]
    );
    assert_eq!(
        codes(&bad(json!({"frequency": "often"}))),
        [("frequency".to_owned(), "invalid_value")]
    );
    assert_eq!(
        codes(&bad(json!({"enabeld": true}))),
        [("enabeld".to_owned(), "unknown_member")]
    );
    assert!(bad(json!({"dataset": "firewall_events"}))
        .to_string()
        .contains("dataset cannot change"));
    assert!(bad(json!({"kind": "edge"})).to_string().contains("kind cannot change"));
    assert!(bad(json!({"id": 8})).to_string().contains("id cannot change"));
    // A stored field escpush would refuse does not block a change elsewhere.
    let mut stale = stored_job();
    stale.insert("logpull_options".into(), json!("fields=NoSuchField"));
    assert!(JobUpdate::new(&stale, &obj(json!({"enabled": false})), DatasetScope::Zone).is_ok());
    // The same kind is not a change of kind; an account cannot update a zone job.
    let same_kind = JobUpdate::new(&stored_job(), &obj(json!({"kind": ""})), DatasetScope::Zone).unwrap();
    let account = Scope::account("a1").unwrap();
    assert!(JobOp::Update(&same_kind).request(&account).is_err());
    assert!(JobUpdate::new(&stored_job(), &Map::new(), DatasetScope::Account).is_err());
}

#[test]
fn the_other_job_endpoints() {
    let zone = Scope::zone("z1").unwrap();
    let conf = DestinationConf::parse(SECRET_CONF).unwrap();
    let cases: Vec<(JobOp<'_>, Method, &str, bool)> = vec![
        (JobOp::Delete(7), Method::Delete, "/zones/z1/logpush/jobs/7", true),
        (
            JobOp::DatasetJobs("http_requests"),
            Method::Get,
            "/zones/z1/logpush/datasets/http_requests/jobs",
            true,
        ),
        (
            JobOp::Fields("http_requests"),
            Method::Get,
            "/zones/z1/logpush/datasets/http_requests/fields",
            true,
        ),
        (
            JobOp::OwnershipChallenge(&conf),
            Method::Post,
            "/zones/z1/logpush/ownership",
            true,
        ),
        (
            JobOp::ValidateOwnership(&conf, "tok"),
            Method::Post,
            "/zones/z1/logpush/ownership/validate",
            true,
        ),
        (
            JobOp::ValidateDestination(&conf),
            Method::Post,
            "/zones/z1/logpush/validate/destination",
            true,
        ),
        (
            JobOp::DestinationExists(&conf),
            Method::Post,
            "/zones/z1/logpush/validate/destination/exists",
            true,
        ),
    ];
    for (op, method, path, retry) in cases {
        let req = op.request(&zone).unwrap();
        assert_eq!(
            (req.method, req.path.as_str(), req.retry.is_safe()),
            (method, path, retry)
        );
        assert!(!format!("{req:?}").contains("SAK-SECRET"));
    }
    let req = JobOp::ValidateOwnership(&conf, "tok").request(&zone).unwrap();
    assert_eq!(
        req.body.unwrap(),
        json!({"destination_conf": SECRET_CONF, "ownership_challenge": "tok"})
    );
    assert!(JobOp::ValidateOwnership(&conf, " ").request(&zone).is_err());
    // A token a creation would refuse is refused before it is checked too (the schema's
    // pattern and length), naming the field and never showing the token.
    for bad in ["TOKEN bad-SECRET".to_owned(), "t".repeat(4097)] {
        let err = JobOp::ValidateOwnership(&conf, &bad).request(&zone).unwrap_err();
        assert!(err.to_string().contains("ownership_challenge"), "{err}");
        assert!(!err.to_string().contains("bad-SECRET"), "{err}");
    }
    let shown = format!("{:?}", JobOp::ValidateOwnership(&conf, "tok-SECRET"));
    assert!(
        !shown.contains("tok-SECRET") && !shown.contains("SAK-SECRET"),
        "{shown}"
    );
    assert!(
        JobOp::Fields("gateway_dns").request(&zone).is_err(),
        "an account dataset on a zone"
    );
    assert!(JobOp::DatasetJobs("http_request").request(&zone).is_err());
}

#[test]
fn the_answers_are_read_strictly() {
    assert_eq!(read_deleted(json!({"id": 7})).unwrap(), Some(7));
    assert_eq!(read_deleted(Value::Null).unwrap(), None);
    assert!(read_deleted(json!([])).is_err() && read_deleted(json!({"id": "x"})).is_err());
    assert_eq!(
        read_fields(json!({"ClientIP": "IP of the client", "X": null})).unwrap(),
        [
            ("ClientIP".to_owned(), "IP of the client".to_owned()),
            ("X".to_owned(), String::new())
        ]
    );
    assert!(read_fields(json!({"A": 1})).is_err() && read_fields(json!(["A"])).is_err());
    let conf = DestinationConf::parse("sumo://e.sumologic.com/receiver/v1/http/CODE-123").unwrap();
    let ok = read_ownership_challenge(
        json!({"filename": "logs/challenge.txt", "message": "", "valid": true}),
        &conf,
    )
    .unwrap();
    assert_eq!(ok.filename, "logs/challenge.txt");
    let refused =
        read_ownership_challenge(json!({"filename": "f", "message": "no bucket", "valid": false}), &conf).unwrap_err();
    assert!(matches!(&refused, Error::Api { status: 200, .. }) && refused.to_string().contains("no bucket"));
    assert!(read_ownership_challenge(json!({"valid": true}), &conf).is_err());
    // A server that writes the file under the collector's path: shown masked.
    let quoted = read_ownership_challenge(
        json!({"filename": "receiver/v1/http/CODE-123/o.txt", "message": "wrote CODE-123", "valid": true}),
        &conf,
    )
    .unwrap();
    assert_eq!(
        (quoted.filename.as_str(), quoted.message.as_str()),
        ("***/o.txt", "wrote ***")
    );
    assert_eq!(read_valid(json!({"valid": true}), "x").unwrap(), "");
    assert!(
        read_valid(json!({"valid": false, "message": "bad"}), "the ownership challenge")
            .unwrap_err()
            .to_string()
            .contains("the ownership challenge is not valid: bad")
    );
    assert!(read_valid(json!({}), "x").is_err());
    assert!(read_exists(json!({"exists": true})).unwrap());
    assert!(read_exists(json!({"exists": "yes"})).is_err());
}

#[allow(clippy::needless_pass_by_value)] // json!(...) literals, given by value
fn desired(v: Value) -> Vec<Map<String, Value>> {
    desired_jobs(&v, DatasetScope::Zone).unwrap()
}

#[test]
fn a_plan_compares_by_meaning_and_only_what_is_named() {
    let want = desired(json!({"jobs": [
        {"name": "errors", "dataset": "http_requests", "destination_conf": SECRET_CONF, "enabled": true,
         "filter": {"where": {"key": "EdgeResponseStatus", "operator": "geq", "value": 500}},
         "logpull_options": "timestamps=rfc3339&fields=ClientIP", "output_options": {"sample_rate": 0.5},
         "ownership_challenge": "challenge-secret"},
        {"name": "new", "dataset": "http_requests", "destination_conf": "r2://b/x?account-id=a"}
    ]}));
    let mut other = stored_job();
    other.insert("id".into(), json!(9));
    other.insert("name".into(), json!("old"));
    let stored = [stored_job(), other];
    let zone = Scope::zone("z1").unwrap();
    let plan = plan_jobs(&want, &stored, &zone, PlanOptions::new()).unwrap();
    let actions: Vec<&str> = plan.entries.iter().map(|e| e.action.as_str()).collect();
    assert_eq!(actions, ["unchanged", "create", "untracked"]);
    assert!(plan.entries[0].operation().is_none() && plan.entries[2].operation().is_none());
    assert!(matches!(plan.entries[1].operation(), Some(JobOp::Create(_))));
    let pruned = plan_jobs(&want, &stored, &zone, PlanOptions::new().prune(true)).unwrap();
    assert!(matches!(pruned.entries[2].operation(), Some(JobOp::Delete(9))));
    assert_eq!(
        pruned.steps(),
        [1, 2, 0],
        "deletions last: a failed creation loses no job"
    );
    assert!(!pruned.is_noop());
    assert!(plan_jobs(&want[..1], &stored[..1], &zone, PlanOptions::new())
        .unwrap()
        .is_noop());
}

#[test]
fn a_plan_updates_only_what_differs_and_hides_secrets() {
    let want = desired(json!({"jobs": [
        {"name": "errors", "dataset": "http_requests",
         "destination_conf": "s3://b/logs?region=us-east-1&access-key-id=AKID-SECRET&secret-access-key=NEW-SECRET",
         "filter": "{\"where\":{\"key\":\"EdgeResponseStatus\",\"operator\":\"geq\",\"value\":501}}",
         "ownership_challenge": "challenge-secret"}
    ]}));
    let entry = plan_job(&want[0], &[stored_job()], &Scope::zone("z1").unwrap()).unwrap();
    assert_eq!(entry.action, PlanAction::Update);
    let fields: Vec<&str> = entry.changes.iter().map(|c| c.field.as_str()).collect();
    assert_eq!(fields, ["destination_conf", "filter"]);
    let shown = entry.to_json().to_string();
    for secret in ["NEW-SECRET", "SAK-SECRET", "challenge-secret"] {
        assert!(!shown.contains(secret), "{shown}");
    }
    assert!(shown.contains("a credential changed"), "{shown}");
    let Some(JobOp::Update(update)) = entry.operation() else {
        panic!("an update")
    };
    // A new destination goes with the challenge the file gives (the API never gives one back).
    assert_eq!(update.changed(), ["destination_conf", "filter", "ownership_challenge"]);
    assert!(update.to_body().get("frequency").is_none(), "only what changes is sent");
}

#[test]
fn bad_files_and_ambiguous_names_are_refused() {
    let err = desired_jobs(
        &json!({"jobs": [
            {"dataset": "http_requests", "destination_conf": SECRET_CONF},
            {"name": "a", "dataset": "http_requests", "destination_conf": SECRET_CONF,
             "filter": {"where": {"key": "Nope", "operator": "eq", "value": 1}}},
            {"name": "a", "dataset": "http_requests", "destination_conf": SECRET_CONF}
        ]}),
        DatasetScope::Zone,
    )
    .unwrap_err();
    let paths: Vec<String> = codes(&err).into_iter().map(|(p, _)| p).collect();
    assert_eq!(paths, ["jobs[0].name", "jobs[1].filter.where.key", "jobs[2].name"]);
    assert!(desired_jobs(&json!({"job": []}), DatasetScope::Zone).is_err());
    let want =
        desired(json!({"jobs": [{"name": "errors", "dataset": "firewall_events", "destination_conf": SECRET_CONF}]}));
    let zone = Scope::zone("z1").unwrap();
    assert!(plan_job(&want[0], &[stored_job()], &zone)
        .unwrap_err()
        .to_string()
        .contains("cannot change"));
    let want =
        desired(json!({"jobs": [{"name": "errors", "dataset": "http_requests", "destination_conf": SECRET_CONF}]}));
    let mut twin = stored_job();
    twin.insert("id".into(), json!(8));
    let err = plan_job(&want[0], &[stored_job(), twin], &zone).unwrap_err();
    assert!(
        err.to_string().contains("2 jobs are named `errors` (ids 7, 8)"),
        "{err}"
    );
}

#[test]
fn a_spec_debug_hides_its_secrets() {
    let spec = JobSpec::builder("http_requests", DatasetScope::Zone)
        .destination_conf(SECRET_CONF)
        .extra("ownership_challenge", json!("challenge-SECRET"))
        .build()
        .unwrap();
    let shown = format!("{spec:?} {:?}", JobOp::Create(&spec));
    assert!(
        !shown.contains("SAK-SECRET") && !shown.contains("challenge-SECRET"),
        "{shown}"
    );
    assert!(shown.contains("http_requests"), "{shown}");
}

#[test]
fn a_file_may_write_its_filters_in_the_text_form() {
    let doc = json!({"jobs": [
        {"name": "errors", "dataset": "http_requests", "destination_conf": S3_KEYS,
         "filter": "EdgeResponseStatus >= 500 and ClientRequestHost endsWith \".example.com\""},
    ]});
    let desired = desired_jobs(&doc, DatasetScope::Zone).unwrap();
    assert_eq!(
        desired[0]["filter"],
        json!(
            r#"{"where":{"and":[{"key":"EdgeResponseStatus","operator":"geq","value":"500"},{"key":"ClientRequestHost","operator":"endsWith","value":".example.com"}]}}"#
        )
    );
    let doc = json!({"jobs": [
        {"name": "errors", "dataset": "http_requests", "destination_conf": S3_KEYS,
         "filter": "EdgeResponseStatus >== 500"},
    ]});
    let Err(Error::Invalid { problems }) = desired_jobs(&doc, DatasetScope::Zone) else {
        panic!("a text filter with a typo is refused")
    };
    assert_eq!(problems[0].path, "jobs[0].filter, line 1, column 20");
    assert!(problems[0].message.contains("did you mean `>=`"), "{problems:?}");
}

#[test]
fn logpull_options_print_and_parse_back_to_the_same_options() {
    // Found by the property suite (issue 16): spaces around an option, ASCII or not. ASCII
    // ones around an option are trimmed; any other whitespace or control character is
    // refused (see `logpull_options_refuse_what_would_not_print_back`).
    for text in ["x=a &fields=B", " fields=A\n", "fields=A\r\n&x=1"] {
        let once = LogpullOptions::parse(text).unwrap();
        let twice = LogpullOptions::parse(&once.to_string()).unwrap();
        assert_eq!(once, twice, "{text:?} -> {once}");
    }
    for text in ["=\u{85}&", "k=\u{a0}v\u{a0}&fields=A"] {
        assert!(LogpullOptions::parse(text).is_err(), "{text:?}");
    }
}

/// `n` stored jobs of `dataset`, ids 1.., named `old0`...
fn stored_jobs(n: u64, dataset: &str) -> Vec<Map<String, Value>> {
    (1..=n)
        .map(|id| {
            obj(json!({"id": id, "name": format!("old{}", id - 1), "dataset": dataset,
                       "destination_conf": SECRET_CONF}))
        })
        .collect()
}

fn wanted(names: &[&str], dataset: &str) -> Vec<Map<String, Value>> {
    let jobs: Vec<Value> = names
        .iter()
        .map(|n| json!({"name": n, "dataset": dataset, "destination_conf": SECRET_CONF}))
        .collect();
    desired_jobs(&json!({ "jobs": jobs }), DatasetScope::Zone)
        .or_else(|_| desired_jobs(&json!({ "jobs": jobs }), DatasetScope::Account))
        .unwrap()
}

#[test]
fn a_plan_past_the_zone_limit_is_refused_before_anything_is_sent() {
    // Issue 22 item 7: five new jobs on an empty zone.
    let zone = Scope::zone("z1").unwrap();
    let five = wanted(&["a", "b", "c", "d", "e"], "http_requests");
    let err = plan_jobs(&five, &[], &zone, PlanOptions::new()).unwrap_err();
    let text = err.to_string();
    assert!(matches!(err, Error::InvalidInput { what: "jobs", .. }), "{err:?}");
    for part in [
        "zone z1 would hold 5 log-push jobs (it holds 0, the plan creates 5)",
        "at most 4 per zone",
        MAX_JOBS_MESSAGE,
        "nothing was sent",
    ] {
        assert!(text.contains(part), "{part}: {text}");
    }
    assert!(plan_jobs(&five[..4], &[], &zone, PlanOptions::new()).is_ok());
    // Every dataset of the zone counts, and delete_first does not make room that is not there.
    let err = plan_jobs(
        &five[..1],
        &stored_jobs(4, "firewall_events"),
        &zone,
        PlanOptions::new().delete_first(true),
    )
    .unwrap_err();
    assert!(err.to_string().contains("would hold 5 log-push jobs"), "{err}");
    // One job at a time (ensure): the same rule.
    let err = plan_job(&five[0], &stored_jobs(4, "http_requests"), &zone).unwrap_err();
    assert!(err.to_string().contains("it holds 4, the plan creates 1"), "{err}");
    let unchanged = wanted(&["old0"], "http_requests");
    assert_eq!(
        plan_job(&unchanged[0], &stored_jobs(4, "http_requests"), &zone)
            .unwrap()
            .action,
        PlanAction::Unchanged
    );
}

#[test]
fn a_replacement_on_a_full_zone_needs_delete_first() {
    let zone = Scope::zone("z1").unwrap();
    let stored = stored_jobs(4, "http_requests");
    let renamed = wanted(&["old0", "old1", "old2", "new"], "http_requests");
    let prune = PlanOptions::new().prune(true);
    let err = plan_jobs(&renamed, &stored, &zone, prune).unwrap_err().to_string();
    assert!(
        err.contains("zone z1 would hold 5 log-push jobs while the plan runs"),
        "{err}"
    );
    assert!(err.contains("it holds 4, the plan creates 1 and deletes 1"), "{err}");
    assert!(err.contains("delete_first (`--delete-first`"), "{err}");
    let plan = plan_jobs(&renamed, &stored, &zone, prune.delete_first(true)).unwrap();
    let order: Vec<&str> = plan.steps().iter().map(|&i| plan.entries[i].action.as_str()).collect();
    assert_eq!(order, ["delete", "create", "unchanged", "unchanged", "unchanged"]);
    // With room, the creation goes first and the deletion last.
    let plan = plan_jobs(&renamed, &stored[..3], &zone, prune).unwrap();
    let order: Vec<&str> = plan.steps().iter().map(|&i| plan.entries[i].action.as_str()).collect();
    assert_eq!(order, ["create", "unchanged", "unchanged", "unchanged"]);
    let renamed = wanted(&["old0", "new"], "http_requests");
    let plan = plan_jobs(&renamed, &stored[..3], &zone, prune).unwrap();
    let order: Vec<&str> = plan.steps().iter().map(|&i| plan.entries[i].action.as_str()).collect();
    assert_eq!(order, ["create", "delete", "delete", "unchanged"]);
}

#[test]
fn an_account_counts_only_dlp_forensic_copies() {
    let account = Scope::account("a1").unwrap();
    let many = wanted(&["a", "b", "c", "d", "e", "f"], "gateway_dns");
    assert!(plan_jobs(&many, &stored_jobs(4, "gateway_dns"), &account, PlanOptions::new()).is_ok());
    let dlp = wanted(&["a"], "dlp_forensic_copies");
    let err = plan_jobs(
        &dlp,
        &stored_jobs(4, "dlp_forensic_copies"),
        &account,
        PlanOptions::new(),
    )
    .unwrap_err()
    .to_string();
    assert!(
        err.contains("account a1 would hold 5 log-push jobs of dlp_forensic_copies"),
        "{err}"
    );
    assert!(err.contains("at most 4 dlp_forensic_copies jobs per account"), "{err}");
    assert!(plan_jobs(&dlp, &stored_jobs(4, "gateway_dns"), &account, PlanOptions::new()).is_ok());
}

#[test]
fn progress_says_what_was_written_and_what_was_not() {
    let zone = Scope::zone("z1").unwrap();
    let mut want = wanted(&["old0", "new", "other"], "http_requests");
    want[0].insert("enabled".into(), json!(true));
    let plan = plan_jobs(
        &want,
        &stored_jobs(2, "http_requests"),
        &zone,
        PlanOptions::new().prune(true),
    )
    .unwrap();
    // Entries: update old0 (job 1), create new, create other, delete old1 (job 2).
    assert_eq!(plan.steps(), [0, 1, 2, 3]);
    let none = plan.progress(&[false; 4], &[None; 4], 0);
    assert_eq!(
        none,
        "stopped at updating `old0` (job 1); nothing was written before it; not sent: create `new`, create `other`, \
         delete `old1` (job 2)"
    );
    let some = plan.progress(&[true, true, false, false], &[Some(1), Some(9), None, None], 2);
    assert_eq!(
        some,
        "stopped at creating `other`; before it, apply updated `old0` (job 1) and created `new` (job 9); not sent: \
         delete `old1` (job 2)"
    );
}

#[test]
fn plans_compare_filters_by_the_exact_equivalence() {
    // Issue 22 item 9: `filter diff` calls these equivalent; so does the plan.
    let zone = Scope::zone("z1").unwrap();
    let mut stored = stored_jobs(1, "http_requests");
    stored[0].insert(
        "filter".into(),
        json!(r#"{"where":{"key":"ClientCountry","operator":"eq","value":"us"}}"#),
    );
    let mut want = wanted(&["old0"], "http_requests");
    for (filter, action) in [
        (
            r#"ClientCountry == "us" or (ClientCountry == "us" and EdgeResponseStatus >= 500)"#,
            PlanAction::Unchanged,
        ),
        (r#"ClientCountry in ["us", "us"]"#, PlanAction::Unchanged),
        (
            r#"ClientCountry == "us" or EdgeResponseStatus >= 500"#,
            PlanAction::Update,
        ),
        (r#"ClientCountry == "US""#, PlanAction::Update),
    ] {
        want[0].insert("filter".into(), json!(filter));
        let f = Filter::parse_any(filter).unwrap();
        let g = crate::logpush::job_filter(&stored[0]).unwrap().unwrap();
        let http = escpush_filter::Dataset::get("http_requests", None).unwrap();
        assert_eq!(
            f.equivalent(&g, Some(http)),
            action == PlanAction::Unchanged,
            "{filter}"
        );
        assert_eq!(plan_job(&want[0], &stored, &zone).unwrap().action, action, "{filter}");
    }
}

#[test]
fn a_masked_credential_is_refused_not_sent() {
    // What a printed or serialised job holds (issue 22 item 10): sent back, it would store a
    // job that cannot push.
    let mut shown = stored_job();
    shown.insert("ownership_challenge".into(), json!("challenge-SECRET"));
    redact_job(&mut shown);
    for (field, conf, challenge) in [
        ("destination_conf", shown["destination_conf"].as_str().unwrap(), None),
        ("destination_conf", "https://***@logs.example.com/in", None),
        ("ownership_challenge", SECRET_CONF, Some("***")),
    ] {
        let mut builder = JobSpec::builder("http_requests", DatasetScope::Zone).destination_conf(conf);
        if let Some(c) = challenge {
            builder = builder.extra("ownership_challenge", json!(c));
        }
        let err = builder.build().unwrap_err();
        let found = codes(&err);
        assert_eq!(found[0].0, field, "{err}");
        assert!(err.to_string().contains("the mask escpush prints"), "{err}");
    }
    let changes = obj(json!({"destination_conf": shown["destination_conf"]}));
    assert!(JobUpdate::new(&stored_job(), &changes, DatasetScope::Zone).is_err());
    // A destination whose shown parameters merely look masked is not refused.
    assert!(JobSpec::builder("http_requests", DatasetScope::Zone)
        .destination_conf("s3://b/p?region=us-east-1")
        .extra("ownership_challenge", json!("challenge-1"))
        .build()
        .is_ok());
}

/// A creation of `dataset` (a zone one unless it is account-only) with the fields of `extra`.
#[allow(clippy::needless_pass_by_value)] // json!(...) literals, given by value
fn create(dataset: &str, destination: &str, extra: Value) -> Result<JobSpec, Error> {
    let scope = escpush_filter::Dataset::get(dataset, None).map_or(DatasetScope::Zone, escpush_filter::Dataset::scope);
    let mut builder = JobSpec::builder(dataset, scope).destination_conf(destination);
    for (k, v) in extra.as_object().unwrap() {
        builder = builder.extra(k.clone(), v.clone());
    }
    builder.build()
}

#[test]
fn names_follow_the_schemas_pattern_and_length() {
    // Schema logpush_name: pattern ^[a-zA-Z0-9\-\.]*$, maxLength 512.
    for good in ["", "example.com", "edge-errors.v2", &"a".repeat(512)] {
        assert!(
            create("http_requests", S3_KEYS, json!({"name": good})).is_ok(),
            "{good}"
        );
    }
    for (bad, says) in [
        ("my job", "holds ` ` at character 3"),
        ("my_job", "holds `_` at character 3"),
        (&"a".repeat(513) as &str, "has 513 characters; it takes at most 512"),
    ] {
        let err = create("http_requests", S3_KEYS, json!({"name": bad})).unwrap_err();
        assert_eq!(codes(&err), [("name".to_owned(), "invalid_value")], "{bad}");
        assert!(err.to_string().contains(says), "{err}");
    }
    // The emulator reads a body with the same rule.
    let body = json!({"dataset": "http_requests", "destination_conf": S3_KEYS, "name": "a b"});
    assert!(JobSpec::from_body(&body, DatasetScope::Zone).is_err());
}

#[test]
fn edge_jobs_and_attack_traffic_apply_to_their_datasets() {
    // edge-log-delivery.mdx: "only available for HTTP request logs".
    assert!(create("http_requests", S3_KEYS, json!({"kind": "edge"})).is_ok());
    let err = create("firewall_events", S3_KEYS, json!({"kind": "edge"})).unwrap_err();
    assert_eq!(codes(&err), [("kind".to_owned(), "invalid_value")]);
    assert!(
        err.to_string()
            .contains(r#"`kind` "edge" applies only to http_requests, not to firewall_events"#),
        "{err}"
    );
    assert!(create("firewall_events", S3_KEYS, json!({"kind": ""})).is_ok());
    // changelog 2026-09-18: http_requests, firewall_events, network_analytics_logs.
    for ok in ["http_requests", "firewall_events", "network_analytics_logs"] {
        assert!(
            create(ok, S3_KEYS, json!({"filter_attack_traffic": true})).is_ok(),
            "{ok}"
        );
    }
    let err = create("dns_logs", S3_KEYS, json!({"filter_attack_traffic": true})).unwrap_err();
    assert_eq!(codes(&err), [("filter_attack_traffic".to_owned(), "invalid_value")]);
    assert!(err.to_string().contains("applies only to http_requests"), "{err}");
}

#[test]
fn nullable_fields_take_null_on_creation() {
    // Schema: frequency and kind are nullable; the SDK sends null for None.
    let spec = create("http_requests", S3_KEYS, json!({"frequency": null, "kind": null})).unwrap();
    assert_eq!(spec.to_body()["frequency"], Value::Null);
    let body = json!({"dataset": "http_requests", "destination_conf": S3_KEYS, "frequency": null, "kind": null,
                      "name": null, "max_upload_bytes": null, "output_options": null});
    assert_eq!(JobSpec::from_body(&body, DatasetScope::Zone).unwrap().to_body(), body);
    // The record holds `filter_attack_traffic: null` where it was never set: a value of it.
    assert!(create("dns_logs", S3_KEYS, json!({"filter_attack_traffic": null})).is_ok());
    for not_nullable in ["enabled", "ownership_challenge"] {
        let err = create("http_requests", S3_KEYS, json!({ not_nullable: null })).unwrap_err();
        assert!(err.to_string().contains("cannot be null"), "{not_nullable}: {err}");
    }
}

#[test]
fn destinations_that_need_an_ownership_challenge_get_one() {
    // logpush-ownership-challenge.mdx, "Which destinations require an ownership challenge?"
    for needs in [
        "s3://bucket/logs?region=us-east-1",
        "s3://bucket/logs?region=us-east-1&secret-access-key=only-the-secret",
        "gs://bucket/logs",
        "azure://container/logs?sv=2020&sig=abc",
        "sumo://endpoint.collection.sumologic.com/receiver/v1/http/code",
    ] {
        let err = create("http_requests", needs, json!({})).unwrap_err();
        assert_eq!(
            codes(&err),
            [("ownership_challenge".to_owned(), "missing_member")],
            "{needs}"
        );
        assert!(create("http_requests", needs, json!({"ownership_challenge": "challenge-1"})).is_ok());
    }
    for free in [
        S3_KEYS,
        "s3://bucket/logs?region=auto&access-key-id=k&secret-access-key=s&endpoint=sfo2.digitaloceanspaces.com",
        "r2://bucket/logs?account-id=a&access-key-id=k&secret-access-key=s",
        "https://logs.example.com/in?header_Authorization=Basic%20x",
        "https://log-api.newrelic.com/log/v1?Api-Key=key&format=cloudflare",
        "datadog://http-intake.logs.datadoghq.com/api/v2/logs?header_DD-API-KEY=k&ddsource=cloudflare",
        "splunk://splunk.example.com:8088/services/collector/raw?channel=c&insecure-skip-verify=false&sourcetype=cloudflare:json&header_Authorization=Splunk%20t",
        "bq://projects/p/datasets/d/tables/t?credentials=base64:eyJ0",
        "kinesis://stream?region=us-east-1&sts-assume-role-arn=arn:aws:iam::1:role/r",
        "ibmcl://i.ingress.us-south.logs.cloud.ibm.com/logs/v1/singles?ibm_api_key=key",
        "sentinelone://ingest.us1.sentinelone.net/services/collector/raw?sourcetype=s&header_Authorization=Bearer%20t",
    ] {
        assert!(create("http_requests", free, json!({})).is_ok(), "{free}");
    }
    // The challenge's characters are the schema's.
    let err = create("http_requests", "gs://b/l", json!({"ownership_challenge": "a b"})).unwrap_err();
    assert_eq!(codes(&err), [("ownership_challenge".to_owned(), "invalid_value")]);
}

#[test]
fn the_documented_destinations_parse_and_hide_their_credentials() {
    // enable-destinations/*.mdx: BigQuery, Kinesis, IBM Cloud Logs, SentinelOne.
    for (text, shown, secret) in [
        (
            "bq://projects/p/datasets/d/tables/t?credentials=base64:SECRET-JSON",
            "bq://projects/p/datasets/d/tables/t?credentials=***",
            "SECRET-JSON",
        ),
        (
            "kinesis://stream?region=us-east-1&access-key-id=AKID-K&secret-access-key=SAK-K",
            "kinesis://stream?region=us-east-1&access-key-id=***&secret-access-key=***",
            "SAK-K",
        ),
        (
            "ibmcl://i.ingress.us-south.logs.cloud.ibm.com/logs/v1/singles?ibm_api_key=IBM-KEY",
            "ibmcl://i.ingress.us-south.logs.cloud.ibm.com/logs/v1/singles?ibm_api_key=***",
            "IBM-KEY",
        ),
        (
            "sentinelone://ingest.us1.sentinelone.net/services/collector/raw?sourcetype=s&header_Authorization=Bearer%20TOK",
            "sentinelone://ingest.us1.sentinelone.net/services/collector/raw?sourcetype=***&header_Authorization=***",
            "TOK",
        ),
    ] {
        let d = DestinationConf::parse(text).unwrap();
        assert_eq!(d.redacted(), shown);
        assert!(!format!("{d:?} {d}").contains(secret));
        assert!(!d.needs_challenge());
    }
    // The exists check takes the docs' `s3://foo` (no region); a job does not.
    assert!(DestinationConf::parse("s3://foo").is_err());
    assert_eq!(DestinationConf::parse_address("s3://foo").unwrap().scheme(), "s3");
    assert!(DestinationConf::parse_address("ftp://foo").is_err());
    assert_eq!(
        known_schemes().collect::<Vec<_>>(),
        [
            "s3",
            "gs",
            "azure",
            "sumo",
            "r2",
            "https",
            "datadog",
            "splunk",
            "bq",
            "kinesis",
            "ibmcl",
            "sentinelone"
        ]
    );
}

#[test]
fn output_options_take_their_documented_keys_and_values() {
    let good = json!({"output_options": {
        "field_names": ["ClientIP", "EdgeResponseStatus"], "output_type": "csv", "timestamp_format": "rfc3339ms",
        "sample_rate": 0.1, "CVE-2021-44228": true, "batch_prefix": "[", "batch_suffix": null,
        "record_template": "{{.ClientIP}}", "merge_subrequests": true,
    }});
    assert!(create("http_requests", S3_KEYS, good).is_ok());
    let err = create(
        "http_requests",
        S3_KEYS,
        json!({"output_options": {
            "field_names": ["ClientIP", "ClientIPP", "ClientIP"], "output_type": "xml", "timestamp_format": "iso",
            "sample_rate": 0, "CVE-2021-4428": true, "batch_prefix": 5,
        }}),
    )
    .unwrap_err();
    assert_eq!(
        codes(&err),
        [
            ("output_options.CVE-2021-4428".to_owned(), "unknown_member"),
            ("output_options.batch_prefix".to_owned(), "invalid_value"),
            ("output_options.field_names[1]".to_owned(), "unknown_field"),
            ("output_options.field_names[2]".to_owned(), "invalid_value"),
            ("output_options.output_type".to_owned(), "invalid_value"),
            ("output_options.sample_rate".to_owned(), "invalid_value"),
            ("output_options.timestamp_format".to_owned(), "invalid_value"),
        ]
    );
    let text = err.to_string();
    for says in [
        "did you mean `CVE-2021-44228`",
        "`ClientIPP` is not a field of http_requests; did you mean `ClientIP`",
        "it takes a number above 0 and at most 1",
        r#""rfc3339ms", "rfc3339ns""#,
    ] {
        assert!(text.contains(says), "{says}: {text}");
    }
    let err = create(
        "dns_logs",
        S3_KEYS,
        json!({"output_options": {"merge_subrequests": true}}),
    )
    .unwrap_err();
    assert_eq!(
        codes(&err),
        [("output_options.merge_subrequests".to_owned(), "invalid_value")]
    );
}

#[test]
fn a_record_never_holds_the_challenge() {
    // Neither the schema's logpush_logpush_job nor the SDK's LogpushJob has it.
    let body = json!({"dataset": "http_requests", "destination_conf": "gs://b/l", "ownership_challenge": "c"});
    let record = job_record(1, body.as_object().unwrap());
    assert!(!record.contains_key("ownership_challenge"));
    let keys: Vec<&str> = record.keys().map(String::as_str).collect();
    assert_eq!(
        keys,
        [
            "dataset",
            "destination_conf",
            "enabled",
            "error_message",
            "filter",
            "filter_attack_traffic",
            "frequency",
            "id",
            "kind",
            "last_complete",
            "last_error",
            "logpull_options",
            "max_upload_bytes",
            "max_upload_interval_seconds",
            "max_upload_records",
            "name",
            "output_options",
        ],
        "the SDK's 16 LogpushJob keys and filter"
    );
}

// Findings of the review of issues 23 and 24 (each test failed before its fix).

#[test]
fn an_update_of_a_whole_record_sends_only_what_differs() {
    // `changes` = the stored record with one field changed: the body holds that field alone
    // (the rest equals the stored job; what the API sets is never sent).
    let stored = obj(json!({"id": 1, "name": "a", "dataset": "http_requests",
        "destination_conf": "r2://b/p?account-id=a", "enabled": false, "kind": "",
        "frequency": "high", "last_complete": "2026-01-01T00:00:00Z", "error_message": null,
        "output_options": {"sample_rate": 0.5}, "filter": "{\"where\": {\"key\": \"ClientIP\", \"operator\": \"eq\", \"value\": \"1.1.1.1\"}}"}));
    let mut changes = stored.clone();
    changes.insert("enabled".into(), json!(true));
    let update = JobUpdate::new(&stored, &changes, DatasetScope::Zone).unwrap();
    assert_eq!(update.to_body(), json!({"enabled": true}));
    assert_eq!(update.changed(), ["enabled"]);
    // Nothing differs: nothing to send.
    let same = JobUpdate::new(&stored, &stored, DatasetScope::Zone).unwrap();
    assert_eq!((same.to_body(), same.changed().len()), (json!({}), 0));
    // A real change of what cannot change is still refused.
    for (key, value, says) in [
        ("id", json!(2), "id cannot change"),
        ("dataset", json!("dns_logs"), "dataset cannot change"),
        ("kind", json!("edge"), "kind cannot change"),
        (
            "last_complete",
            json!("2026-02-01T00:00:00Z"),
            "last_complete cannot change",
        ),
    ] {
        let mut other = stored.clone();
        other.insert(key.into(), value);
        let err = JobUpdate::new(&stored, &other, DatasetScope::Zone).unwrap_err();
        assert!(err.to_string().contains(says), "{key}: {err}");
    }
}

#[test]
fn an_update_sends_the_destination_it_checked() {
    // The client checks the destination trimmed: it sends that text, not the raw one.
    let changes = obj(json!({"destination_conf": " gs://b2/logs ", "ownership_challenge": "challenge-1"}));
    let update = JobUpdate::new(&stored_job(), &changes, DatasetScope::Zone).unwrap();
    assert_eq!(update.to_body()["destination_conf"], "gs://b2/logs");
}

#[test]
fn one_destination_is_the_same_place_as_another_by_scheme_path_and_store() {
    let place = |a: &str, b: &str| {
        DestinationConf::parse_address(a)
            .unwrap()
            .same_place(&DestinationConf::parse_address(b).unwrap())
    };
    assert!(place(
        "s3://b/logs",
        "s3://b/logs/?region=us-east-1&access-key-id=K&secret-access-key=S"
    ));
    assert!(place(
        "https://me:pw@logs.example.com/in",
        "https://logs.example.com/in?header_X=1"
    ));
    assert!(!place(
        "s3://b/logs",
        "s3://b/logs?region=r&endpoint=sfo2.digitaloceanspaces.com"
    ));
    assert!(!place("r2://b/logs?account-id=one", "r2://b/logs?account-id=two"));
    assert!(!place("s3://b", "s3://b/logs") && !place("s3://b/logs", "gs://b/logs"));
    let sumo = "sumo://e.sumologic.com/receiver/v1/http/";
    assert!(
        !place(&format!("{sumo}ONE"), &format!("{sumo}TWO")),
        "one collector each"
    );
    // A change of the text is a change of the field, a credential included (a rotated key).
    let (a, b) = (json!(SECRET_CONF), json!(format!(" {SECRET_CONF}")));
    assert!(super::destination::same_conf(Some(&a), Some(&b)));
    assert!(!super::destination::same_conf(Some(&a), Some(&json!(S3_KEYS))));
}

#[test]
fn a_record_passes_the_checks_of_its_own_rows() {
    // The record a creation makes holds only values its own rows take, so that the record
    // (or the record with a change) is a body the checks of an update take.
    for (dataset, scope) in [
        ("http_requests", DatasetScope::Zone),
        ("dns_logs", DatasetScope::Zone),
        ("gateway_dns", DatasetScope::Account),
    ] {
        let spec = JobSpec::builder(dataset, scope)
            .destination_conf(S3_KEYS)
            .build()
            .unwrap();
        let Value::Object(body) = spec.to_body() else {
            panic!("a body is an object")
        };
        let record = job_record(1, &body);
        let ds = escpush_filter::Dataset::get(dataset, Some(scope)).unwrap();
        for (key, value) in &record {
            let problems = JobField::get(key).unwrap().problems(value, Some(ds));
            assert!(problems.is_empty(), "{dataset}: `{key}` {value}: {problems:?}");
        }
        check_update(&record, &record, scope).unwrap();
        let mut enable = record.clone();
        enable.insert("enabled".into(), json!(true));
        assert_eq!(
            JobUpdate::new(&record, &enable, scope).unwrap().to_body(),
            json!({"enabled": true})
        );
    }
    // Every default the table gives a record is a value of its row, unless a creation
    // without the field is refused (then the default never shows).
    for field in JOB_FIELDS {
        let InRecord::Always(default) = field.record else {
            continue;
        };
        if default == RecordDefault::Assigned || field.problems(&default.to_value(), None).is_empty() {
            continue;
        }
        let mut without = obj(json!({"dataset": "http_requests", "destination_conf": S3_KEYS}));
        without.remove(field.name);
        assert!(
            JobSpec::from_body(&Value::Object(without), DatasetScope::Zone).is_err(),
            "`{}`: a record may hold {}, which its row refuses",
            field.name,
            default.to_value()
        );
    }
}

#[test]
fn a_file_need_not_carry_the_challenge_of_a_job_that_exists_unchanged() {
    // An S3 job without keys needs an ownership challenge when it is created or moved there,
    // a one-time token: a file that keeps the job need not carry one once the job exists.
    let dest = "s3://bucket/logs?region=us-east-1";
    let file = json!({"jobs": [{"name": "a", "dataset": "http_requests", "destination_conf": dest}]});
    let want = desired_jobs(&file, DatasetScope::Zone).unwrap();
    let zone = Scope::zone("z1").unwrap();
    let stored = obj(
        json!({"id": 3, "name": "a", "dataset": "http_requests", "destination_conf": dest,
                            "enabled": false, "kind": "", "filter": null}),
    );
    let entry = plan_job(&want[0], std::slice::from_ref(&stored), &zone).unwrap();
    assert_eq!(entry.action, PlanAction::Unchanged);
    assert!(
        plan_jobs(&want, std::slice::from_ref(&stored), &zone, PlanOptions::new())
            .unwrap()
            .is_noop()
    );
    // Still refused before anything is written: the job's creation, and a move to it.
    let err = plan_jobs(&want, &[], &zone, PlanOptions::new()).unwrap_err();
    assert_eq!(
        codes(&err),
        [("jobs[0].ownership_challenge".to_owned(), "missing_member")]
    );
    assert!(plan_job(&want[0], &[], &zone).is_err());
    let mut elsewhere = stored.clone();
    elsewhere.insert("destination_conf".into(), json!(S3_KEYS));
    let err = plan_job(&want[0], &[elsewhere], &zone).unwrap_err();
    assert_eq!(codes(&err), [("ownership_challenge".to_owned(), "missing_member")]);
}

/// A list of fields: its path, the code of its other problems, and a check of one list.
type Check<'a> = (&'a str, &'a str, Box<dyn Fn(&[&str]) -> Result<(), Error>>);

#[test]
fn every_list_of_fields_follows_one_rule() {
    // logpull_options' fields, output_options.field_names and an Instant Logs session's
    // fields: at least one, each a field of the dataset, once (one function); each keeps the
    // code of the value it is part of.
    let options = |fields: &[&str]| {
        let options = LogpullOptions::new(fields.iter().copied());
        JobSpec::builder("http_requests", DatasetScope::Zone)
            .destination_conf(S3_KEYS)
            .logpull_options(options)
            .build()
            .map(drop)
    };
    let names = |fields: &[&str]| {
        create(
            "http_requests",
            S3_KEYS,
            json!({"output_options": {"field_names": fields}}),
        )
        .map(drop)
    };
    let session = |fields: &[&str]| {
        InstantLogsSpec::builder()
            .fields(fields.iter().copied())
            .build()
            .map(drop)
    };
    let lists: [Check<'_>; 3] = [
        ("logpull_options.fields", "invalid_option", Box::new(options)),
        ("output_options.field_names", "invalid_value", Box::new(names)),
        ("fields", "invalid_value", Box::new(session)),
    ];
    for (path, code, check) in &lists {
        assert_eq!(codes(&check(&[]).unwrap_err()), [((*path).to_owned(), *code)], "{path}");
        assert!(check(&[]).unwrap_err().to_string().contains("name at least one field"));
        assert_eq!(
            codes(&check(&["ClientIP", "ClientIPP", "ClientIP"]).unwrap_err()),
            [(format!("{path}[1]"), "unknown_field"), (format!("{path}[2]"), *code)],
            "{path}"
        );
        assert!(check(&["ClientIP", "EdgeResponseStatus"]).is_ok(), "{path}");
    }
    assert!(session(&[""])
        .unwrap_err()
        .to_string()
        .contains("an empty field name in `fields`"));
}

/// A query part without `=` (`?TOKEN`) may be a credential whole: masked whole when shown,
/// one of the secret values a message is scrubbed of (and a reference in an export:
/// escpush-terraform's `tests/references.rs`).
#[test]
fn a_query_part_without_a_value_is_masked_whole() {
    let d = DestinationConf::parse("https://logs.example.com/in?SECRETXYZ&tags=a&k=&region").unwrap();
    assert_eq!(d.redacted(), "https://logs.example.com/in?***&tags=***&k=***&region");
    assert!(!format!("{d:?} {d}").contains("SECRETXYZ"));
    assert!(d.secret_values().contains(&"SECRETXYZ"));
    assert_eq!(d.scrub("bad token SECRETXYZ"), "bad token ***");
}

#[test]
fn a_job_taken_by_two_entries_is_refused_in_one_readable_sentence() {
    // One entry takes job 7 by its id, another by its name: refused, the message naming both
    // entries in plain words (it once held a run of 30 spaces, a line break of the source).
    let want = desired(json!({"jobs": [
        {"id": 7, "name": "renamed", "dataset": "http_requests", "destination_conf": "r2://b/x?account-id=a"},
        {"name": "errors", "dataset": "http_requests", "destination_conf": "r2://b/x?account-id=a"}
    ]}));
    let zone = Scope::zone("z1").unwrap();
    let err = plan_jobs(&want, &[stored_job()], &zone, PlanOptions::new())
        .unwrap_err()
        .to_string();
    assert!(
        err.contains(
            "(by an import block's id or a jobs file's `id`, and by its name): each job may be one entry only"
        ),
        "{err}"
    );
    assert!(!err.contains("  "), "{err}");
}

#[test]
fn a_plan_entry_gives_the_job_before_and_after() {
    // What a change delivers is read from the job as it is and as it will be: the stored
    // record, and the record after the PUT (only the fields sent change) or the creation.
    let want = desired(json!({"jobs": [
        {"name": "errors", "dataset": "http_requests", "destination_conf": SECRET_CONF,
         "output_options": {"field_names": ["ClientIP", "RayID"], "sample_rate": 0.5}},
        {"name": "new", "dataset": "http_requests", "destination_conf": "r2://b/x?account-id=a"}
    ]}));
    let mut other = stored_job();
    other.insert("id".into(), json!(9));
    other.insert("name".into(), json!("old"));
    let stored = [stored_job(), other];
    let zone = Scope::zone("z1").unwrap();
    let plan = plan_jobs(&want, &stored, &zone, PlanOptions::new().prune(true)).unwrap();
    let actions: Vec<&str> = plan.entries.iter().map(|e| e.action.as_str()).collect();
    assert_eq!(actions, ["update", "create", "delete"]);
    let (update, create, delete) = (&plan.entries[0], &plan.entries[1], &plan.entries[2]);
    assert_eq!(update.job_before(), Some(&stored_job()));
    let after = update.job_after().unwrap();
    assert_eq!(
        after["output_options"],
        json!({"field_names": ["ClientIP", "RayID"], "sample_rate": 0.5})
    );
    assert_eq!(
        after["logpull_options"],
        stored_job()["logpull_options"],
        "a PUT changes only what it sends"
    );
    assert_eq!(after["id"], json!(7));
    assert_eq!(create.job_before(), None);
    assert_eq!(
        create.job_after().unwrap()["destination_conf"],
        json!("r2://b/x?account-id=a")
    );
    assert_eq!(delete.job_before().unwrap()["id"], json!(9));
    assert_eq!(delete.job_after(), None);
    let shown = format!("{plan:?}");
    assert!(
        !shown.contains("SAK-SECRET") && !shown.contains("AKID-SECRET"),
        "{shown}"
    );
}
