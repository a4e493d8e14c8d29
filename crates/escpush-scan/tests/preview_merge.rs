//! Partial previews merged (`PreviewResult::merge`, as `escpush.spark.preview` merges its
//! executors' parts): the merge of previews of disjoint inputs, byte ranges of a plain file
//! among them, is the preview of them all but for the batches, which stay within their
//! bound and frame the bytes delivered by exactly that many batches more; and a preview
//! survives its bytes.
#![cfg(feature = "job")]

mod common;
use common::{dir, gzip};

use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};

use escpush_core::JobOutput;
use escpush_scan::{Breakdown, Input, Preview, PreviewResult};
use serde_json::json;

/// `n` http_requests lines from `seed`, their times seconds to hours apart, a few without one.
fn lines(n: usize, seed: usize) -> String {
    let countries = ["us", "gb", "de", "fr", "jp"];
    let mut out = String::new();
    for i in 0..n {
        let j = i * 11 + seed * 13;
        let status = [200, 404, 500, 503][j % 4];
        let country = countries[j % countries.len()];
        let time = 1_715_644_800 + (j % 50) * [1, 7, 600][j % 3];
        if j.is_multiple_of(29) {
            let _ = writeln!(
                out,
                "{{\"RayID\":\"r{i}\",\"EdgeResponseStatus\":{status},\"ClientCountry\":null}}"
            );
        } else {
            let _ = writeln!(
                out,
                "{{\"RayID\":\"r{i}\",\"EdgeResponseStatus\":{status},\"ClientCountry\":\"{country}\",\"EdgeStartTimestamp\":{time}}}"
            );
        }
    }
    out
}

/// Plain and gzip files, malformed lines in two, an empty one, and a large plain one last
/// (its first malformed line far into it).
fn files(name: &str) -> Vec<PathBuf> {
    let d = dir(name);
    let mut out = Vec::new();
    for (i, n) in [400, 0, 250, 1000, 3, 1500].into_iter().enumerate() {
        let mut text = lines(n, i).into_bytes();
        if i == 2 || i == 5 {
            text.extend_from_slice(b"{\"EdgeResponseStatus\":500,}\n\nnot json\n");
            text.extend_from_slice(lines(40, 9).as_bytes());
        }
        let gz = i % 2 == 1 && i != 5;
        let path = d.join(if gz {
            format!("{i}.log.gz")
        } else {
            format!("{i}.ndjson")
        });
        fs::write(&path, if gz { gzip(&text) } else { text }).unwrap();
        out.push(path);
    }
    out
}

/// A job with a filter, some fields, framing on every batch, `sample_rate` < 1 and batches
/// cut by 30 seconds of their records' times.
fn job() -> JobOutput {
    let job = json!({
        "dataset": "http_requests",
        "filter": {"where": {"key": "EdgeResponseStatus", "operator": "geq", "value": 404}},
        "output_options": {"field_names": ["RayID", "ClientCountry", "EdgeStartTimestamp"], "sample_rate": 0.6,
            "batch_prefix": "[[", "batch_suffix": "]]\n", "record_delimiter": ","},
        "max_upload_interval_seconds": 30,
    });
    JobOutput::from_job(job.as_object().unwrap(), None).unwrap()
}

/// `batch_prefix` + `batch_suffix` − `record_delimiter`: the bytes each batch more adds.
const PER_BATCH: u64 = 2 + 3 - 1;

fn preview() -> Preview<'static> {
    Preview::new(&job()).seed(5).breakdown(
        Breakdown::new()
            .group_by(["ClientCountry"])
            .every(3600, "EdgeStartTimestamp"),
    )
}

/// One input of a part: a whole file, or the byte range `[start, end)` of one.
#[derive(Clone)]
struct Unit(PathBuf, Option<(u64, u64)>);

fn part(units: &[Unit]) -> PreviewResult {
    let inputs = units.iter().map(|Unit(path, range)| match range {
        Some((start, end)) => Input::line_range(path, *start, *end).unwrap(),
        None => Input::path(path),
    });
    let mut result = preview().count(inputs).unwrap();
    let ranges: Vec<Option<(&Path, u64)>> = units
        .iter()
        .map(|Unit(path, range)| range.map(|(start, _)| (path.as_path(), start)))
        .collect();
    result.continue_ranges(&ranges).unwrap();
    PreviewResult::from_bytes(&result.to_bytes()).unwrap()
}

/// The units, the last file cut into `pieces` byte ranges.
fn units(files: &[PathBuf], pieces: u64) -> Vec<Unit> {
    let (last, rest) = files.split_last().unwrap();
    let mut out: Vec<Unit> = rest.iter().map(|p| Unit(p.clone(), None)).collect();
    let len = fs::metadata(last).unwrap().len();
    let cuts: Vec<u64> = (0..=pieces).map(|i| len * i / pieces).collect();
    out.extend(cuts.windows(2).map(|w| Unit(last.clone(), Some((w[0], w[1])))));
    out
}

/// `got` equals `want` but for the batches: between 0 and `parts - 1` more, each framing
/// [`PER_BATCH`] bytes more; per input, the batches and their bytes add up to the totals.
/// Gives how many more.
fn agree(mut got: PreviewResult, mut want: PreviewResult, parts: usize) -> u64 {
    let more = got.total.batches - want.total.batches;
    assert!(more < parts as u64, "{more} more batches in {parts} parts");
    assert_eq!(got.total.delivered_bytes, want.total.delivered_bytes + more * PER_BATCH);
    for r in [&mut got, &mut want] {
        let inputs = &mut r.inputs;
        assert_eq!(inputs.iter().map(|i| i.counts.batches).sum::<u64>(), r.total.batches);
        assert_eq!(
            inputs.iter().map(|i| i.counts.delivered_bytes).sum::<u64>(),
            r.total.delivered_bytes
        );
        for counts in std::iter::once(&mut r.total).chain(inputs.iter_mut().map(|i| &mut i.counts)) {
            counts.batches = 0;
            counts.delivered_bytes = 0;
        }
        r.seconds = 0.0;
    }
    assert_eq!(got, want);
    more
}

#[test]
fn the_merge_of_partial_previews_is_the_preview_of_them_all_but_for_batches() {
    let files = files("merge");
    let want = preview().count(files.iter().map(Input::path)).unwrap();
    assert!(want.total.malformed == 4 && want.inputs.len() == 6, "{:?}", want.total);
    assert!(want.total.delivered > 100 && want.total.delivered < want.total.kept);
    assert!(want.total.batches > 50 && want.total.batches < want.total.delivered);
    let first = want.first_malformed.as_ref().unwrap();
    assert_eq!(
        (first.source_name.as_str(), first.line),
        (files[2].to_str().unwrap(), 251)
    );
    let mut more = 0;
    for pieces in [1, 2, 5, 9] {
        let all = units(&files, pieces);
        // Every way of cutting the units into parts, in order: one each, halves, all in one,
        // the ranges of the large file split between parts.
        let n = all.len();
        for cuts in [(1..n).collect::<Vec<_>>(), vec![n / 2], vec![], vec![3, 5, n - 1]] {
            let mut parts = Vec::new();
            let mut start = 0;
            for end in cuts.iter().copied().chain([n]) {
                if end <= start {
                    continue;
                }
                parts.push(part(&all[start..end]));
                start = end;
            }
            let count = parts.len();
            more += agree(PreviewResult::merge(parts), want.clone(), count);
        }
    }
    assert!(
        more > 0,
        "a batch held across a part's end: the bound was put to the test"
    );
    // One part: the preview itself, its batches too.
    let one = PreviewResult::merge([part(&units(&files, 1))]);
    assert_eq!(
        (one.total.batches, one.total.delivered_bytes),
        (want.total.batches, want.total.delivered_bytes)
    );
}

#[test]
fn a_malformed_line_in_a_later_range_is_numbered_in_its_file() {
    let files = files("ranges");
    let large = &files[5..];
    let want = preview().count(large.iter().map(Input::path)).unwrap();
    let first = want.first_malformed.clone().unwrap();
    assert_eq!(first.line, 1501);
    for pieces in [2, 3, 8] {
        let all = units(large, pieces);
        let parts: Vec<PreviewResult> = all.chunks(2).map(part).collect();
        let merged = PreviewResult::merge(parts);
        assert_eq!(merged.inputs.len(), 1);
        assert_eq!(merged.first_malformed.as_ref(), Some(&first), "{pieces} pieces");
        agree(merged, want.clone(), usize::try_from(pieces).unwrap());
    }
}

#[test]
fn a_preview_survives_its_bytes() {
    let files = files("bytes");
    let r = preview().count(files.iter().map(Input::path)).unwrap();
    assert!(r.breakdown.is_some() && r.first_malformed.is_some() && r.total.first_time.is_some());
    assert_eq!(PreviewResult::from_bytes(&r.to_bytes()).unwrap(), r);
    // Written batches: the files and the gzip bytes survive too.
    let out = dir("bytes-out").join("out");
    let written = preview().write_dir(files.iter().map(Input::path), &out, true).unwrap();
    assert!(!written.files.is_empty() && written.total.compressed_bytes.is_some());
    assert_eq!(PreviewResult::from_bytes(&written.to_bytes()).unwrap(), written);
    // Nothing read: no breakdown rows, no times.
    let empty = Preview::new(&job()).count(Vec::<Input>::new()).unwrap();
    assert_eq!(PreviewResult::from_bytes(&empty.to_bytes()).unwrap(), empty);
    // Not a preview: an error, not a panic (a scan result's bytes neither).
    let bytes = r.to_bytes();
    for cut in [0, 5, 8, 40, bytes.len() / 2, bytes.len() - 1] {
        assert!(PreviewResult::from_bytes(&bytes[..cut]).is_err(), "cut at {cut}");
    }
    let mut longer = bytes.clone();
    longer.push(0);
    assert!(PreviewResult::from_bytes(&longer).is_err());
    let scan = escpush_scan::Scanner::every_line()
        .scan(files.iter().map(Input::path))
        .unwrap();
    assert!(PreviewResult::from_bytes(&scan.to_bytes()).is_err());
}

#[test]
fn the_merge_of_no_part_is_an_empty_preview_and_inputs_named_twice_stay_two() {
    let empty = PreviewResult::merge(Vec::new());
    assert_eq!((empty.total.lines, empty.inputs.len()), (0, 0));
    let files = files("twice");
    let twice = [files[0].clone(), files[0].clone()];
    let want = preview().count(twice.iter().map(Input::path)).unwrap();
    assert_eq!(want.inputs.len(), 2);
    let parts = twice.iter().map(|p| part(&[Unit(p.clone(), None)]));
    let merged = PreviewResult::merge(parts);
    assert_eq!(merged.inputs.len(), 2);
    agree(merged, want, 2);
}
