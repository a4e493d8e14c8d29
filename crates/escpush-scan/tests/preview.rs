//! A job's preview on real files (the `job` feature): its bytes are those of core's
//! formatter and cutter, one line after another, whatever the threads and chunk size;
//! folders of gzip batches; errors that name the input and line, with nothing written.
#![cfg(feature = "job")]

mod common;
use common::{dir, gzip};

use std::fmt::Write as _;
use std::fs;
use std::io::Read;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};

use escpush_core::{BatchInfo, BatchLimits, BatchSink, Batcher, Delivery, JobOutput};
use escpush_filter::is_blank;
use escpush_scan::{Breakdown, Input, Preview, PreviewResult, ScanError};
use flate2::read::MultiGzDecoder;
use proptest::prelude::*;
use serde_json::{json, Value};

fn job(v: &Value) -> JobOutput {
    JobOutput::from_job(v.as_object().unwrap(), None).unwrap()
}

fn gunzip(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    if bytes.is_empty() {
        return out; // no batch, no gzip member
    }
    MultiGzDecoder::new(bytes).read_to_end(&mut out).unwrap();
    out
}

/// `n` http_requests lines, a second apart, from 2026-11-22T00:00:00Z.
fn http_lines(n: usize, from: usize) -> String {
    let mut out = String::new();
    for i in from..from + n {
        let country = ["de", "us", "fr"][i % 3];
        let status = if i % 4 == 0 { 503 } else { 200 };
        let ns = (1_795_305_600 + i as u64) * 1_000_000_000 + 7;
        let _ = writeln!(
            out,
            r#"{{"RayID":"r{i}","ClientCountry":"{country}","EdgeResponseStatus":{status},"EdgeStartTimestamp":{ns},"ClientRequestPath":"/a${{b}}/{i}"}}"#
        );
    }
    out
}

/// What core's formatter and cutter deliver for `text`, one line after another: the bytes
/// of every batch, in order.
fn sequential(job: &JobOutput, seed: u64, text: &str) -> (Vec<u8>, u64) {
    #[derive(Default)]
    struct All(Vec<u8>, u64);
    impl BatchSink for All {
        type Error = ();
        fn write(&mut self, b: &[u8]) -> Result<(), ()> {
            self.0.extend_from_slice(b);
            Ok(())
        }
        fn end(&mut self, _: &BatchInfo) -> Result<(), ()> {
            self.1 += 1;
            Ok(())
        }
    }
    let time_field = job.dataset.time_field().unwrap().to_owned();
    let mut f = job.formatter().with_seed(seed).observing(&[time_field]);
    let cutter = f.clone();
    let mut batcher = Batcher::new(&cutter, job.limits);
    let mut all = All::default();
    for line in text.split('\n') {
        let line = line.strip_suffix('\r').unwrap_or(line);
        if line.is_empty() || (!line.starts_with('{') && is_blank(line.as_bytes())) {
            continue;
        }
        let mut record = Vec::new();
        if let Ok(Delivery::Delivered) = f.add_record(line.as_bytes(), &mut record) {
            let time = match f.walk().observed(line.as_bytes(), f.observed_offset()).timestamp() {
                escpush_filter::Timestamp::At { seconds, nanos } => Some((seconds, nanos)),
                _ => None,
            };
            let _ = batcher.push(&record, time, &mut all).unwrap();
        }
    }
    let _ = batcher.finish(&mut all).unwrap();
    (all.0, all.1)
}

#[test]
fn with_no_limit_the_preview_is_the_formatters_one_batch() {
    let d = dir("one-batch");
    let text = http_lines(50, 0);
    let path = d.join("a.log");
    fs::write(&path, &text).unwrap();
    let j = job(
        &json!({"dataset": "http_requests", "filter": {"where": {"key": "EdgeResponseStatus", "operator": "eq", "value": 200}},
        "output_options": {"field_names": ["RayID", "ClientRequestPath"], "output_type": "csv", "CVE-2021-44228": true, "sample_rate": 0.5,
            "batch_prefix": "[", "batch_suffix": "]"},
        "max_upload_records": 0, "max_upload_interval_seconds": 0}),
    );
    let mut out = Vec::new();
    let r = Preview::new(&j)
        .seed(9)
        .write_to([Input::path(&path)], &mut out, false)
        .unwrap();
    let lines: Vec<&[u8]> = text.lines().map(str::as_bytes).collect();
    let expected = j.formatter().with_seed(9).deliver(lines).unwrap();
    assert_eq!(
        String::from_utf8(out.clone()).unwrap(),
        String::from_utf8(expected).unwrap()
    );
    assert!(!out.windows(2).any(|w| w == b"${"));
    assert_eq!((r.total.lines, r.total.kept, r.total.batches), (50, 37, 1));
    assert!(r.total.delivered > 5 && r.total.delivered < 37, "{}", r.total.delivered);
    assert_eq!(r.total.delivered_bytes, out.len() as u64);
    assert_eq!(r.total.compressed_bytes, None);
    // Counting gives the same numbers without writing.
    let counted = Preview::new(&j).seed(9).count([Input::path(&path)]).unwrap();
    assert_eq!(counted.total, r.total);
}

#[test]
fn a_folder_of_gzip_batches_named_as_log_push_names_them() {
    let d = dir("folder");
    let a = d.join("in/a.log.gz");
    fs::create_dir_all(a.parent().unwrap()).unwrap();
    fs::write(&a, gzip(http_lines(2500, 0).as_bytes())).unwrap();
    let b = d.join("in/b.log");
    fs::write(&b, http_lines(700, 2500)).unwrap();
    let j = job(
        &json!({"dataset": "http_requests", "output_options": {"field_names": ["RayID", "EdgeStartTimestamp"], "timestamp_format": "rfc3339"},
        "max_upload_records": 1000, "max_upload_interval_seconds": 300}),
    );
    let out = d.join("out");
    let r = Preview::new(&j)
        .threads(3)
        .write_dir([Input::path(&a), Input::path(&b)], &out, true)
        .unwrap();
    let mut expected_text = http_lines(2500, 0);
    expected_text.push_str(&http_lines(700, 2500));
    let (expected, batches) = sequential(&j, 0, &expected_text);
    // 3200 lines a second apart: cut every 300 s (300 records) by the interval.
    assert_eq!(r.total.batches, batches);
    assert_eq!(batches, 11);
    assert_eq!(r.files.len() as u64, batches);
    let mut joined = Vec::new();
    let mut compressed = 0;
    for name in &r.files {
        let bytes = fs::read(out.join(name)).unwrap();
        compressed += bytes.len() as u64;
        joined.extend(gunzip(&bytes));
    }
    assert_eq!(joined, expected);
    assert_eq!(r.total.compressed_bytes, Some(compressed));
    assert_eq!(r.total.delivered_bytes, expected.len() as u64);
    assert_eq!(
        r.files[0],
        format!("20261122/20261122T000000Z_20261122T000459Z_{}", &r.files[0][43..])
    );
    assert_eq!(Path::new(&r.files[0]).extension(), Some("gz".as_ref()));
    // Per input, and the time span of the lines.
    assert_eq!(r.inputs.len(), 2);
    assert_eq!(r.inputs[0].counts.lines + r.inputs[1].counts.lines, 3200);
    assert_eq!(
        r.inputs.iter().map(|i| i.counts.delivered_bytes).sum::<u64>(),
        r.total.delivered_bytes
    );
    assert_eq!(r.inputs.iter().map(|i| i.counts.batches).sum::<u64>(), r.total.batches);
    assert_eq!(r.total.timed_lines, 3200);
    assert_eq!(r.total.span_seconds(), Some(3199.0));
    assert_eq!(r.time_field.as_deref(), Some("EdgeStartTimestamp"));
    // Nothing else in the folder, no temporary folder beside it.
    assert_eq!(fs::read_dir(&d).unwrap().count(), 2);
    // Plain batches: the same bytes.
    let plain = d.join("plain");
    let p = Preview::new(&j)
        .write_dir([Input::path(&a), Input::path(&b)], &plain, false)
        .unwrap();
    let joined: Vec<u8> = p.files.iter().flat_map(|n| fs::read(plain.join(n)).unwrap()).collect();
    assert_eq!(joined, expected);
    assert_eq!(Path::new(&p.files[0]).extension(), Some("log".as_ref()));
}

#[test]
fn errors_name_the_input_and_line_and_leave_nothing() {
    let d = dir("errors");
    let good = d.join("good.log");
    fs::write(&good, http_lines(10, 0)).unwrap();
    let bad = d.join("bad.log");
    fs::write(&bad, format!("{}{{\"RayID\":\n", http_lines(3, 0))).unwrap();
    let j = job(&json!({"dataset": "http_requests", "output_options": {"field_names": ["RayID"]}}));
    let out = d.join("out");
    let mut preview = Preview::new(&j).strict(true);
    let err = preview
        .write_dir([Input::path(&good), Input::path(&bad)], &out, true)
        .unwrap_err();
    let text = err.to_string();
    assert!(text.contains("bad.log") && text.contains("line 4"), "{text}");
    assert!(!out.exists());
    assert_eq!(fs::read_dir(&d).unwrap().count(), 2, "no temporary folder is left");
    assert_eq!(preview.partial().unwrap().inputs[0].counts.lines, 10);
    // A folder holding an input, and one that is not empty, are refused.
    let err = Preview::new(&j).write_dir([Input::path(&good)], &d, true).unwrap_err();
    assert!(matches!(err, ScanError::OutputIsInput { .. }), "{err}");
    fs::create_dir(&out).unwrap();
    fs::write(out.join("x"), "x").unwrap();
    let err = Preview::new(&j).write_dir([Input::path(&bad)], &out, true).unwrap_err();
    assert!(err.to_string().contains("not empty"), "{err}");
    // Without strict, the malformed line is counted and reported.
    let r = Preview::new(&j).count([Input::path(&bad)]).unwrap();
    assert_eq!((r.total.lines, r.total.malformed, r.total.delivered), (4, 1, 3));
    assert_eq!(r.first_malformed.as_ref().map(|m| m.line), Some(4));
}

#[test]
fn breakdown_counts_the_delivered_records_per_group() {
    let d = dir("breakdown");
    let path = d.join("a.log");
    fs::write(&path, http_lines(90, 0)).unwrap();
    let j = job(
        &json!({"dataset": "http_requests", "filter": {"where": {"key": "EdgeResponseStatus", "operator": "eq", "value": 200}},
        "output_options": {"field_names": ["RayID"]}}),
    );
    let breakdown = Breakdown::new()
        .group_by(["ClientCountry"])
        .every(60, "EdgeStartTimestamp");
    let r: PreviewResult = Preview::new(&j)
        .breakdown(breakdown)
        .count([Input::path(&path)])
        .unwrap();
    let b = r.breakdown.unwrap();
    assert_eq!(b.groups.len(), 3);
    assert_eq!(b.groups.iter().map(|g| g.counts.lines).sum::<u64>(), 90);
    assert_eq!(b.groups.iter().map(|g| g.counts.matched).sum::<u64>(), r.total.kept);
    assert_eq!(
        b.groups.iter().map(|g| g.counts.delivered).sum::<u64>(),
        r.total.delivered
    );
    // No framing in ndjson: the records' bytes are every byte delivered.
    assert_eq!(
        b.groups.iter().map(|g| g.counts.delivered_bytes).sum::<u64>(),
        r.total.delivered_bytes
    );
    assert_eq!(
        b.buckets.iter().map(|g| g.counts.delivered_bytes).sum::<u64>(),
        r.total.delivered_bytes
    );
    assert_eq!(b.buckets.len(), 2);
}

static CASE: AtomicUsize = AtomicUsize::new(0);

fn line() -> impl Strategy<Value = String> {
    prop_oneof![
        6 => (0usize..10_000, 0u32..3, any::<bool>()).prop_map(|(i, c, late)| {
            let ns = (1_795_305_600 + if late { 100 } else { 0 } + i as u64) * 1_000_000_000;
            format!(r#"{{"RayID":"r{i}","ClientCountry":"{}","EdgeResponseStatus":{},"EdgeStartTimestamp":{ns},"ClientRequestPath":"/${{x}}{i}$"}}"#,
                ["de", "us", "fr"][c as usize], 200 + (i % 5) * 100)
        }),
        1 => Just(r#"{"RayID":"no time"}"#.to_owned()),
        1 => Just(String::new()),
        1 => Just("{\"RayID\":".to_owned()),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    /// The preview's bytes are those of core's formatter and cutter on the lines one by
    /// one, whatever the threads, chunk size, limits and output type; counting agrees.
    #[test]
    fn previews_do_not_depend_on_threads_or_chunks(
        files in prop::collection::vec((prop::collection::vec(line(), 0..80), any::<bool>()), 1..4),
        threads in 1usize..5,
        chunk in prop_oneof![Just(0usize), 16usize..400],
        csv in any::<bool>(),
        records in prop_oneof![Just(0u64), 1000u64..1001],
        interval in prop_oneof![Just(0u64), 30u64..60],
        seed in 0u64..3,
    ) {
        let case = CASE.fetch_add(1, Ordering::Relaxed);
        let d = dir(&format!("prop-{case}"));
        let mut inputs = Vec::new();
        let mut text = String::new();
        for (i, (lines, zipped)) in files.iter().enumerate() {
            let body: String = lines.iter().flat_map(|l| [l.as_str(), "\n"]).collect();
            text.push_str(&body);
            let path = d.join(format!("{i}.log"));
            fs::write(&path, if *zipped { gzip(body.as_bytes()) } else { body.into_bytes() }).unwrap();
            inputs.push(path);
        }
        let j = job(&json!({"dataset": "http_requests", "filter": {"where": {"key": "EdgeResponseStatus", "operator": "lt", "value": 500}},
            "output_options": {"field_names": ["RayID", "EdgeStartTimestamp", "ClientRequestPath"], "output_type": if csv { "csv" } else { "ndjson" },
                "CVE-2021-44228": true, "sample_rate": 0.7, "batch_prefix": "{", "record_delimiter": "$", "batch_suffix": "}"},
            "max_upload_records": records, "max_upload_interval_seconds": interval}));
        let (expected, batches) = sequential(&j, seed, &text);
        let mut out = Vec::new();
        let r = Preview::new(&j).seed(seed).threads(threads).chunk_size(chunk)
            .write_to(inputs.iter().map(Input::path), &mut out, false).unwrap();
        prop_assert_eq!(&out, &expected);
        prop_assert_eq!(r.total.batches, batches);
        prop_assert_eq!(r.total.delivered_bytes, expected.len() as u64);
        let c = Preview::new(&j).seed(seed).threads(threads).chunk_size(chunk)
            .count(inputs.iter().map(Input::path)).unwrap();
        prop_assert_eq!(&c.total, &r.total);
        let mut zipped = Vec::new();
        let z = Preview::new(&j).seed(seed).threads(threads)
            .write_to(inputs.iter().map(Input::path), &mut zipped, true).unwrap();
        prop_assert_eq!(gunzip(&zipped), expected);
        prop_assert_eq!(z.total.compressed_bytes, Some(zipped.len() as u64));
        let _ = BatchLimits::default();
    }
}
