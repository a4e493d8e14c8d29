//! Partial scans merged (`ScanResult::merge`, as `escpush.spark.scan` merges its executors'
//! results): the merge of scans of disjoint inputs is the scan of them all, groups, buckets,
//! malformed lines and per-input counts included; and a result survives its bytes.

mod common;
use common::{dir, gzip};

use std::fmt::Write as _;
use std::fs;
use std::path::PathBuf;

use escpush_filter::Filter;
use escpush_scan::{Breakdown, Input, ScanResult, Scanner};

/// `n` lines from `seed`: statuses, countries and times spread so that groups and buckets
/// are shared between files, with ties in group sizes.
fn lines(n: usize, seed: usize) -> String {
    let countries = ["us", "gb", "de", "fr", "jp", "br", "in"];
    let mut out = String::new();
    for i in 0..n {
        let j = i * 11 + seed * 13;
        let status = [200, 404, 500, 503][j % 4];
        let country = countries[j % countries.len()];
        let time = 1_715_644_800 + (j % 50) * 600;
        match j % 29 {
            0 => {
                let _ = writeln!(out, "{{\"EdgeResponseStatus\":{status},\"ClientCountry\":null}}");
            }
            1 => {
                let _ = writeln!(
                    out,
                    "{{\"EdgeResponseStatus\":{status},\"ClientCountry\":\"{country}\",\"EdgeStartTimestamp\":\"soon\"}}"
                );
            }
            _ => {
                let _ = writeln!(
                    out,
                    "{{\"EdgeResponseStatus\":{status},\"ClientCountry\":\"{country}\",\"EdgeStartTimestamp\":{time}}}"
                );
            }
        }
    }
    out
}

fn filter() -> Filter {
    Filter::parse(r#"{"where":{"key":"EdgeResponseStatus","operator":"geq","value":"500"}}"#).unwrap()
}

fn breakdown(top: Option<usize>) -> Breakdown {
    Breakdown::new()
        .group_by(["ClientCountry", "EdgeResponseStatus"])
        .every(3600, "EdgeStartTimestamp")
        .top(top)
}

fn scan(files: &[PathBuf], top: Option<usize>) -> ScanResult {
    let mut r = Scanner::new(&filter())
        .breakdown(breakdown(top))
        .scan(files.iter().map(Input::path))
        .unwrap();
    r.seconds = 0.0;
    r
}

/// The files of one test (a folder of its own: the tests run at once).
fn files(name: &str) -> Vec<PathBuf> {
    let d = dir(name);
    let mut out = Vec::new();
    for (i, n) in [400, 0, 250, 1000, 3].into_iter().enumerate() {
        let mut text = lines(n, i).into_bytes();
        if i == 2 {
            text.extend_from_slice(b"{\"EdgeResponseStatus\":500,}\nnot json\n");
            text.extend_from_slice(lines(10, 9).as_bytes());
        }
        if i == 3 {
            text.extend_from_slice(b"[1]\n");
        }
        let path = if i % 2 == 1 {
            d.join(format!("{i}.log.gz"))
        } else {
            d.join(format!("{i}.ndjson"))
        };
        fs::write(&path, if i % 2 == 1 { gzip(&text) } else { text }).unwrap();
        out.push(path);
    }
    out
}

#[test]
fn the_merge_of_partial_scans_is_the_scan_of_them_all() {
    let files = files("merge");
    for top in [None, Some(3)] {
        let whole = scan(&files, top);
        // Every way of cutting the inputs into parts, in order: one part per file, halves, all.
        for cuts in [vec![1, 2, 3, 4], vec![2], vec![], vec![3, 4]] {
            let mut parts = Vec::new();
            let mut start = 0;
            for end in cuts.iter().copied().chain([files.len()]) {
                // The parts are scanned without `top`; the merge applies it once.
                parts.push(scan(&files[start..end], None));
                start = end;
            }
            let merged = ScanResult::merge(parts, top);
            assert_eq!(merged, whole, "top {top:?}, cuts {cuts:?}");
        }
        let b = whole.breakdown.as_ref().unwrap();
        assert!(b.exact);
        assert_eq!(b.groups.len() > 20, top.is_none(), "groups shared between files");
        assert!(b.buckets.len() > 5);
        assert!(b.no_time.lines > 0 && b.unreadable_time.lines > 0);
        assert_eq!(whole.malformed, 3);
        assert_eq!(whole.first_malformed.as_ref().unwrap().line, 251);
    }
}

#[test]
fn a_result_survives_its_bytes() {
    let files = files("bytes");
    let r = scan(&files, None);
    let back = ScanResult::from_bytes(&r.to_bytes()).unwrap();
    assert_eq!(back, r);
    // Malformed, in every way a line can be: the reasons read back as they were.
    let d = dir("reasons");
    let bad = d.join("bad.ndjson");
    for text in [
        &b"{\"a\":1,}\n"[..],
        b"{\"a\" 1}\n",
        b"\xff\n",
        b"[1]\n",
        b"{\"a\":01}\n",
    ] {
        fs::write(&bad, text).unwrap();
        let r = scan(std::slice::from_ref(&bad), None);
        assert_eq!(r.malformed, 1);
        assert_eq!(ScanResult::from_bytes(&r.to_bytes()).unwrap(), r);
    }
    // Not a result: an error, not a panic.
    let bytes = r.to_bytes();
    for cut in [0, 5, 8, 40, bytes.len() - 1] {
        assert!(ScanResult::from_bytes(&bytes[..cut]).is_err(), "cut at {cut}");
    }
    let mut longer = bytes.clone();
    longer.push(0);
    assert!(ScanResult::from_bytes(&longer).is_err());
}

#[test]
fn an_input_named_twice_is_listed_twice_as_a_scan_lists_it() {
    let files = files("twice");
    let twice = [files[0].clone(), files[0].clone()];
    let whole = scan(&twice, None);
    assert_eq!(whole.inputs.len(), 2);
    let merged = ScanResult::merge([scan(&twice[..1], None), scan(&twice[1..], None)], None);
    assert_eq!(merged, whole);
}
