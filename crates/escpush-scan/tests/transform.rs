//! A transformer's local run on real files (the `job` feature): the records are core's
//! `LineTransformer`'s, one line after another, in input order whatever the threads and
//! chunk size; a line the query fails on stops the run naming its input and line, and the
//! output file is left as it was.
#![cfg(feature = "job")]

mod common;
use common::{dir, gzip};

use std::fmt::Write as _;
use std::fs;

use escpush_core::transformer::check;
use escpush_scan::{Input, ScanError, Scanner};

const SQL: &str = "SELECT RayID, UPPER(ClientRequestMethod) AS m, unnest(SecurityActions) AS a
FROM http_requests WHERE EdgeResponseStatus >= 500";

fn lines(n: usize) -> String {
    let mut text = String::new();
    for i in 0..n {
        let actions = ["[]", r#"["log"]"#, r#"["log","block","skip"]"#][i % 3];
        let status = [200, 500, 503, 404][i % 4];
        let _ = writeln!(
            text,
            r#"{{"RayID":"r{i}","ClientRequestMethod":"get","EdgeResponseStatus":{status},"SecurityActions":{actions}}}"#
        );
        if i % 97 == 0 {
            text += "not json\n\n";
        }
    }
    text
}

/// The records, one line after another through core's `LineTransformer` alone.
fn expected(text: &str) -> (Vec<u8>, u64, u64) {
    let mut run = check(SQL).unwrap().lines(true);
    let (mut out, mut records, mut kept) = (Vec::new(), 0, 0);
    for line in text.lines().filter(|l| !l.is_empty()) {
        if let Ok(Some(n)) = run.line(line.as_bytes(), &mut out) {
            kept += 1;
            records += n as u64;
        }
    }
    (out, records, kept)
}

#[test]
fn the_records_come_in_input_order_whatever_the_threads_and_chunks() {
    let d = dir("order");
    let text = lines(3000);
    let half = text.len() / 2;
    let cut = half + text[half..].find('\n').unwrap() + 1;
    fs::write(d.join("a.ndjson"), &text[..cut]).unwrap();
    fs::write(d.join("b.ndjson.gz"), gzip(&text.as_bytes()[cut..])).unwrap();
    let (want, records, kept) = expected(&text);
    assert!(records > kept && kept > 0);
    let transformer = check(SQL).unwrap().lines(true);
    for (threads, chunk) in [(1, 0), (3, 1000), (4, 64 << 10)] {
        let inputs = vec![Input::path(d.join("a.ndjson")), Input::path(d.join("b.ndjson.gz"))];
        let mut out = Vec::new();
        let mut scanner = Scanner::every_line().threads(threads).chunk_size(chunk);
        let run = scanner.transform(inputs, &transformer, &mut out).unwrap();
        assert_eq!(out, want, "threads {threads}, chunk {chunk}");
        assert_eq!(
            (run.records, run.bytes, run.scan.matched),
            (records, want.len() as u64, kept)
        );
        assert_eq!(run.scan.malformed, 31);
    }
}

#[test]
fn a_line_the_query_fails_on_stops_the_run_and_the_output_is_kept() {
    let d = dir("fails");
    let mut text = lines(500);
    text += "{\"RayID\":\"x\",\"EdgeResponseStatus\":0,\"ClientRequestBytes\":0}\n";
    fs::write(d.join("in.ndjson"), &text).unwrap();
    let out = d.join("out.ndjson");
    fs::write(&out, "kept\n").unwrap();
    let sql = "SELECT RayID, 10 / EdgeResponseStatus AS q FROM http_requests";
    let transformer = check(sql).unwrap().lines(true);
    let mut scanner = Scanner::every_line().threads(2).chunk_size(4096);
    let err = scanner
        .transform_to_file([Input::path(d.join("in.ndjson"))], &transformer, &out)
        .unwrap_err();
    let line = text.lines().count() as u64;
    match &err {
        ScanError::Transform {
            source_name,
            line: at,
            message,
        } => {
            assert!(source_name.ends_with("in.ndjson"));
            assert_eq!((*at, message.as_str()), (line, "division by zero"));
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(
        err.to_string(),
        format!(
            "`{}` line {line}: the transformer failed on it: division by zero",
            d.join("in.ndjson").display()
        )
    );
    assert_eq!(fs::read_to_string(&out).unwrap(), "kept\n");
    assert_eq!(fs::read_dir(&d).unwrap().count(), 2, "no temporary file is left");
}
