//! Batches as log-push cuts them: exact framing and cut points, the byte limit, the interval,
//! count = write, and a job's limits and delivery settings read from its fields.

use proptest::prelude::*;
use serde_json::{json, Map, Value};

use super::*;
use escpush_filter::{Dataset, DatasetScope};

fn http() -> &'static Dataset {
    Dataset::get("http_requests", Some(DatasetScope::Zone)).unwrap()
}

fn formatter(options: &Value) -> Formatter {
    Formatter::new(&OutputFormat::from_output_options(options, http()).unwrap())
}

/// Batches written, each whole.
#[derive(Default)]
struct Files {
    done: Vec<(Vec<u8>, BatchInfo)>,
    open: Vec<u8>,
}

impl BatchSink for Files {
    type Error = ();
    fn write(&mut self, bytes: &[u8]) -> Result<(), ()> {
        self.open.extend_from_slice(bytes);
        Ok(())
    }
    fn end(&mut self, batch: &BatchInfo) -> Result<(), ()> {
        self.done.push((std::mem::take(&mut self.open), *batch));
        Ok(())
    }
}

/// Pushes `records` (with times), checks the count path agrees, and gives the batches.
fn cut(f: &Formatter, limits: BatchLimits, records: &[(&[u8], Option<RecordTime>)]) -> Vec<(Vec<u8>, BatchInfo)> {
    let mut files = Files::default();
    let mut writer = Batcher::new(f, limits);
    let mut counter = Batcher::new(f, limits);
    for (record, time) in records {
        let pushed = writer.push(record, *time, &mut files).unwrap();
        let by_count = counter.count(record.len() as u64, *time);
        assert_eq!(pushed, by_count);
    }
    assert_eq!(writer.finish(&mut files).unwrap(), counter.finish_count());
    assert!(files.open.is_empty());
    assert_eq!((writer.batches(), writer.bytes()), (counter.batches(), counter.bytes()));
    assert_eq!(
        writer.bytes(),
        files.done.iter().map(|(b, _)| b.len() as u64).sum::<u64>()
    );
    for (bytes, info) in &files.done {
        assert_eq!(bytes.len() as u64, info.bytes);
    }
    files.done
}

fn texts(batches: &[(Vec<u8>, BatchInfo)]) -> Vec<String> {
    batches
        .iter()
        .map(|(b, _)| String::from_utf8(b.clone()).unwrap())
        .collect()
}

#[test]
fn framing_and_record_cuts_are_exact() {
    let f = formatter(
        &json!({"field_names": ["RayID"], "output_type": "csv", "batch_prefix": "[", "batch_suffix": "]\n", "record_delimiter": ","}),
    );
    let records: Vec<(&[u8], Option<RecordTime>)> = vec![
        (b"a\n", None),
        (b"b\n", None),
        (b"c\n", None),
        (b"d\n", None),
        (b"e\n", None),
    ];
    let batches = cut(&f, BatchLimits::new(None, Some(2), None), &records);
    assert_eq!(texts(&batches), ["[a\n,b\n]\n", "[c\n,d\n]\n", "[e\n]\n"]);
    assert_eq!(batches.iter().map(|(_, i)| i.records).collect::<Vec<_>>(), [2, 2, 1]);
    // No limit: one batch, the same bytes as the formatter's own batch of the same records.
    let one = cut(&f, BatchLimits::NONE, &records);
    assert_eq!(texts(&one), ["[a\n,b\n,c\n,d\n,e\n]\n"]);
    // No record: no batch, no byte.
    assert!(cut(&f, BatchLimits::NONE, &[]).is_empty());
}

#[test]
fn the_byte_limit_counts_the_framing_and_a_record_alone_may_pass_it() {
    let f = formatter(
        &json!({"field_names": ["RayID"], "output_type": "csv", "batch_prefix": "[", "batch_suffix": "]", "record_delimiter": ","}),
    );
    // [aaaa,bbbb] is 11 bytes: with a limit of 11 both fit, with 10 they do not.
    let records: Vec<(&[u8], Option<RecordTime>)> = vec![(b"aaaa", None), (b"bbbb", None)];
    assert_eq!(
        texts(&cut(&f, BatchLimits::new(Some(11), None, None), &records)),
        ["[aaaa,bbbb]"]
    );
    assert_eq!(
        texts(&cut(&f, BatchLimits::new(Some(10), None, None), &records)),
        ["[aaaa]", "[bbbb]"]
    );
    // A record alone over the limit is a batch of its own (never split), and cuts after it.
    let records: Vec<(&[u8], Option<RecordTime>)> = vec![(b"a", None), (b"0123456789", None), (b"b", None)];
    assert_eq!(
        texts(&cut(&f, BatchLimits::new(Some(5), None, None), &records)),
        ["[a]", "[0123456789]", "[b]"]
    );
}

#[test]
fn the_interval_cuts_at_the_first_time_plus_the_seconds() {
    let f = formatter(&json!({"field_names": ["RayID"], "output_type": "csv"}));
    let records: Vec<(&[u8], Option<RecordTime>)> = vec![
        (b"a\n", Some((100, 0))),
        (b"b\n", None),
        (b"c\n", Some((129, 999_999_999))),
        (b"d\n", Some((130, 0))),
        (b"e\n", Some((90, 0))),
        (b"f\n", Some((160, 0))),
    ];
    let batches = cut(&f, BatchLimits::new(None, None, Some(30)), &records);
    // d is 30 s past a: a new batch; e is earlier (no cut); f is 30 s past d.
    assert_eq!(texts(&batches), ["a\nb\nc\n", "d\ne\n", "f\n"]);
    assert_eq!(batches[0].1.first_time, Some((100, 0)));
    assert_eq!(batches[0].1.last_time, Some((129, 999_999_999)));
    assert_eq!(
        (batches[1].1.first_time, batches[1].1.last_time),
        (Some((90, 0)), Some((130, 0)))
    );
}

#[test]
fn cve_2021_44228_across_the_joins_as_the_formatter_writes_one_batch() {
    let options = json!({"field_names": ["ClientRequestPath"], "output_type": "csv", "CVE-2021-44228": true,
        "batch_prefix": "$", "record_prefix": "{", "record_suffix": "$", "record_delimiter": "{$", "batch_suffix": "{"});
    let lines = [
        r#"{"ClientRequestPath":"${jndi:x}$"}"#,
        r#"{"ClientRequestPath":"a$"}"#,
        r#"{"ClientRequestPath":"{b"}"#,
    ];
    let mut f = formatter(&options);
    let expected = f.deliver(lines.iter().map(|l| l.as_bytes())).unwrap();
    let mut records = Vec::new();
    for line in lines {
        let mut out = Vec::new();
        assert_eq!(f.add_record(line.as_bytes(), &mut out), Ok(Delivery::Delivered));
        records.push(out);
    }
    let given: Vec<(&[u8], Option<RecordTime>)> = records.iter().map(|r| (r.as_slice(), None)).collect();
    let batches = cut(&f, BatchLimits::NONE, &given);
    assert_eq!(texts(&batches), [String::from_utf8(expected).unwrap()]);
    assert!(!batches[0].0.windows(2).any(|w| w == b"${"));
}

#[test]
fn limits_read_from_a_job() {
    let job = |v: Value| -> Map<String, Value> { v.as_object().unwrap().clone() };
    assert_eq!(
        BatchLimits::from_job(&job(json!({}))).unwrap(),
        BatchLimits::new(None, Some(100_000), Some(30))
    );
    assert_eq!(
        BatchLimits::from_job(&job(
            json!({"max_upload_bytes": null, "max_upload_records": 0, "max_upload_interval_seconds": 300})
        ))
        .unwrap(),
        BatchLimits::new(None, None, Some(300))
    );
    assert_eq!(
        BatchLimits::from_job(&job(json!({"max_upload_bytes": 5_000_000})))
            .unwrap()
            .bytes,
        Some(5_000_000)
    );
    let err = BatchLimits::from_job(&job(json!({"max_upload_bytes": 10, "max_upload_records": "x"}))).unwrap_err();
    let text = err.to_string();
    assert!(
        text.contains("max_upload_bytes") && text.contains("max_upload_records"),
        "{text}"
    );
}

#[test]
fn a_jobs_delivery_settings_refuse_bad_options_naming_them() {
    let job = |v: Value| -> Map<String, Value> { v.as_object().unwrap().clone() };
    let ok = JobOutput::from_job(
        &job(json!({"dataset": "http_requests", "filter": "{\"where\":{\"key\":\"ClientCountry\",\"operator\":\"eq\",\"value\":\"de\"}}",
            "output_options": {"field_names": ["RayID"], "sample_rate": 0.5}, "max_upload_records": 1000})),
        None,
    )
    .unwrap();
    assert_eq!(ok.limits.records, Some(1000));
    assert!(ok.filter.is_some());
    for (given, named) in [
        (json!({"field_names": ["RayID"], "output_type": "xml"}), "output_type"),
        (json!({"field_names": ["RayID"], "sample_rate": 0}), "sample_rate"),
        (json!({"field_names": ["RayID"], "sample_rate": 1.5}), "sample_rate"),
        (
            json!({"field_names": ["RayID"], "record_template": "{{ .RayID | printf }}"}),
            "record_template",
        ),
    ] {
        let err =
            JobOutput::from_job(&job(json!({"dataset": "http_requests", "output_options": given})), None).unwrap_err();
        assert!(err.to_string().contains(named), "{named}: {err}");
    }
    let err = JobOutput::from_job(&job(json!({"dataset": "nope", "filter": "{"})), None).unwrap_err();
    let text = err.to_string();
    assert!(text.contains("dataset") && text.contains("filter"), "{text}");
}

#[test]
fn a_jobs_billing_class_is_read_from_its_destination() {
    use crate::logpush::destination::Billing;
    let job = |conf: Value| -> Map<String, Value> {
        json!({"dataset": "http_requests", "destination_conf": conf, "output_options": {"field_names": ["RayID"]}})
            .as_object()
            .unwrap()
            .clone()
    };
    let billing = |conf: Value| JobOutput::from_job(&job(conf), None).map(|o| o.billing);
    assert_eq!(
        billing(json!("r2://logs/http?account-id=a")).unwrap(),
        Some(Billing::Internal)
    );
    assert_eq!(
        billing(json!("s3://b/p?region=us-east-1&secret-access-key=SAK-SECRET")).unwrap(),
        Some(Billing::External)
    );
    assert_eq!(
        billing(Value::Null).unwrap(),
        None,
        "a job sketched without a destination"
    );
    let err = billing(json!("ftp://user:PASS-SECRET@h/x")).unwrap_err().to_string();
    assert!(
        err.contains("destination_conf") && !err.contains("PASS-SECRET"),
        "{err}"
    );
    assert!(billing(json!(7)).unwrap_err().to_string().contains("destination_conf"));
}

proptest! {
    /// A batch never passes max_upload_bytes unless it is one record that alone does; no
    /// batch passes max_upload_records; every record is in one batch, in order.
    #[test]
    fn batches_keep_their_limits(lens in prop::collection::vec(0usize..40, 0..60), bytes in 8u64..120, records in 1u64..8) {
        let f = formatter(&json!({"field_names": ["RayID"], "output_type": "csv", "batch_prefix": "<<", "batch_suffix": ">", "record_delimiter": "|"}));
        let bodies: Vec<Vec<u8>> = lens.iter().enumerate().map(|(i, n)| vec![b"abcdefghijklmnopqrstuvwxyz"[i % 26]; *n]).collect();
        let given: Vec<(&[u8], Option<RecordTime>)> = bodies.iter().map(|b| (b.as_slice(), None)).collect();
        let batches = cut(&f, BatchLimits::new(Some(bytes), Some(records), None), &given);
        let mut expected = Vec::new();
        for (bytes_of, info) in &batches {
            prop_assert!(info.records <= records);
            prop_assert!(info.bytes <= bytes || info.records == 1, "{} > {bytes}", info.bytes);
            prop_assert!(bytes_of.starts_with(b"<<") && bytes_of.ends_with(b">"));
            expected.push(bytes_of[2..bytes_of.len() - 1].to_vec());
        }
        let joined: Vec<u8> = expected.join(&b"|"[..]);
        prop_assert_eq!(joined, bodies.join(&b"|"[..]));
    }
}
